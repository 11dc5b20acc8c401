//! What a pool allocates on first use: its resolved limits, the shared tier,
//! the registry of its thread caches, the counters of everything that ran
//! without a thread cache, and its key in every thread's table.

use super::shared::{Dead, Shards};
use super::thread::{Head, Stack};
use crate::autocap::AutoCap;
use crate::policy::Limits;
use crate::raw::erased::{Kind, Moving};
use crate::raw::owned::{Fenced, Reclaim};
use crate::raw::table::Key;
use crate::stats::{Counters, Event, SizeLog, Stats, saturating_sum};
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering, lock};
use once_cell::race::OnceBox;

/// A pool's storage. It does not name the value type: its values are of
/// one [`Kind`], so that its code, and the thread tier's, is compiled once,
/// not once per pooled type (a debug build compiles every generic function
/// again for each type that uses a pool, `scripts/derive_cost.py`).
pub(crate) struct Storage {
    /// Limits, counters, the decay generation, the name, the shared tier,
    /// the list of thread caches; `Storage` derefs to it.
    core: Core,
    /// This pool's place in each thread's table of thread caches.
    pub(crate) key: Key<Stack, Head>,
    /// The values' kind: every thread cache's slots are of it.
    pub(crate) kind: Kind,
    /// `T::is_reset`, for the check of every return under `POOLABLE=chaos`.
    pub(crate) is_reset: Check,
}

/// `Reset::is_reset` of a pool's value type, where the type is not named:
/// the check of every return under `POOLABLE=chaos` (`tier/thread.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Check {
    /// Whether the value is reset; `None` if it is of another type.
    pub(crate) is_reset: fn(&Moving<'_>) -> Option<bool>,
    /// The type's name, for the report of a value that is not.
    pub(crate) type_name: &'static str,
}

/// `T::is_reset` of `value`, if it is a `T`: a [`Check`]'s `is_reset`.
#[allow(clippy::manual_map)] // `Option::map` and a closure: two more functions per type
pub(crate) fn is_reset<T: crate::Reset + 'static>(value: &Moving<'_>) -> Option<bool> {
    match value.downcast_ref::<T>() {
        Some(value) => Some(T::is_reset(value)),
        None => None,
    }
}

/// A pool's storage, whatever its value type: what decay and the registry
/// hold a pool by.
pub(crate) trait AnyStorage: Send + Sync {
    fn core(&self) -> &Core;
}

impl AnyStorage for Storage {
    fn core(&self) -> &Core {
        &self.core
    }
}

/// A thread cache of a pool, whatever its value type: what the pool's
/// statistics and decay need of it (`tier/thread.rs` implements it).
pub(crate) trait Cache: Send + Sync {
    fn counters(&self) -> &Counters;
    /// The gets and returns its owner's fast path counted (`[gets, puts]`),
    /// beside `counters`.
    fn fast_counts(&self) -> [u64; 2];
    /// The values it holds and their bytes.
    fn retained(&self) -> (usize, usize);
    /// Ask it for a decay step, in `reclaim`'s batch.
    fn post(&self, reclaim: &Reclaim);
    /// After the batch's fence: age it now if its owner is between two
    /// operations, what decayed going to `dead`; else its owner ages it at
    /// its next operation.
    fn age_if_idle(&self, fenced: &Fenced, dead: &mut Dead);
}

/// The part of a [`Storage`] that does not name the value type.
pub(crate) struct Core {
    /// The shared tier.
    pub(crate) shards: Shards,
    /// Every live thread cache of this pool, for trims and statistics.
    caches: Mutex<Vec<Arc<dyn Cache>>>,
    pub(crate) limits: Limits,
    /// The calibration of an adaptive size cap.
    pub(crate) auto_cap: Option<AutoCap>,
    /// Operations that ran without a thread cache, reclaimers' drops, and
    /// exited threads' totals.
    pub(crate) counters: Counters,
    /// Decay steps so far (`decay.rs`); bumped by trims, read on slow paths.
    pub(crate) generation: AtomicU64,
    /// Set when the owning `Pool` is dropped: thread caches of a closed pool
    /// are freed the next time their thread links a pool, or exits.
    closed: AtomicBool,
    /// What the pool had counted when it was closed, and the returns
    /// beyond gets then: what a reading gives from then on (a `PoolInfo`
    /// read after its pool was dropped). Its thread caches, let go of at
    /// the close, are no longer summed, so a later sum would lose their
    /// counts.
    closing: std::sync::OnceLock<(Stats, u64)>,
    /// What `pools()` calls it.
    pub(crate) name: Box<str>,
    /// The capacity of its buffers, for a class of a `BufferPool`.
    pub(crate) class: Option<usize>,
    /// For `advice()`, recorded on slow paths only (plain `std` atomics:
    /// no model checks their order). The most values seen out at once,
    /// sampled whenever the counters are summed (`stats()`, a trim).
    most_held: std::sync::atomic::AtomicU64,
    /// Returns that exited threads made beyond the gets they made
    /// ([`Counters::returns_beyond_gets`]), recorded as each one exits.
    exited_returns_beyond_gets: std::sync::atomic::AtomicU64,
    /// The sizes of values dropped over the size cap, allocated at the
    /// first one.
    oversize: OnceBox<SizeLog>,
    /// `size_of::<T>()`, which the size cap counts beside a value's heap.
    value_size: usize,
}

impl core::ops::Deref for Storage {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

impl Core {
    fn new(
        limits: Limits,
        name: Box<str>,
        class: Option<usize>,
        value_size: usize,
        kind: Kind,
    ) -> Self {
        crate::raw::fence::init();
        Core {
            shards: Shards::new(kind, &limits.shard_caps, &limits.shard_ceilings),
            caches: Mutex::new(Vec::new()),
            auto_cap: limits.auto_cap.then(|| AutoCap::new(limits.max_bytes)),
            limits,
            counters: Counters::new(),
            generation: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            closing: std::sync::OnceLock::new(),
            name,
            class,
            most_held: std::sync::atomic::AtomicU64::new(0),
            exited_returns_beyond_gets: std::sync::atomic::AtomicU64::new(0),
            oversize: OnceBox::new(),
            value_size,
        }
    }

    /// The size cap in force: the calibrated one, or `max_bytes`.
    pub(crate) fn max_bytes(&self) -> usize {
        match &self.auto_cap {
            Some(auto) => auto.cap(),
            None => self.limits.max_bytes,
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Count an event that happened without a thread cache.
    pub(crate) fn count(&self, event: Event, n: u64) {
        self.counters.add_shared(event, n);
    }

    /// Fold the values out now into the most seen out at once.
    fn sample_held(&self, stats: &Stats) {
        self.most_held
            .fetch_max(stats.held(), std::sync::atomic::Ordering::Relaxed);
    }

    /// Record the size of a value dropped over the size cap (`bytes`, as
    /// the cap measures it: heap bytes plus `size_of::<T>()`), for
    /// `advice()`. A slow path: only such a drop pays for it.
    pub(crate) fn record_oversize(&self, bytes: usize) {
        let heap = bytes.saturating_sub(self.value_size);
        self.oversize.get_or_init(Box::default).record(heap);
    }

    /// The owning `Pool` is gone. Its thread caches are let go of here
    /// (each is an `Arc` that holds this storage: keeping them would make a
    /// cycle); the threads' tables drop theirs when the thread next links a
    /// pool, or exits. What the pool counted until now is kept, under the
    /// list's lock, for the readings from now on; returns it.
    pub(crate) fn close(&self) -> Stats {
        let (count, bytes) = self.shards.retained();
        let (stats, caches) = {
            let mut caches = lock(&self.caches);
            let (mut stats, returns_beyond_gets) = self.sum(&caches);
            stats.retained += count;
            stats.retained_bytes = stats.retained_bytes.saturating_add(bytes);
            // `close` runs once, from the pool's `drop`.
            let _ = self.closing.set((stats, returns_beyond_gets));
            self.closed.store(true, Ordering::Relaxed);
            (stats, core::mem::take(&mut *caches))
        };
        // Outside the lock: the last reference to a cache frees it.
        drop(caches);
        stats
    }

    pub(crate) fn register(&self, cache: Arc<dyn Cache>) {
        lock(&self.caches).push(cache);
    }

    /// A thread cache (the one with `counters`) is going away: fold its
    /// counters into the pool's, atomically with respect to `stats()`.
    pub(crate) fn unregister(&self, counters: &Counters, fast: [u64; 2]) {
        let mut caches = lock(&self.caches);
        caches.retain(|cache| !core::ptr::eq(cache.counters(), counters));
        self.counters.absorb(counters, fast);
        self.exited_returns_beyond_gets.fetch_add(
            counters.returns_beyond_gets(fast),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Post `reclaim`'s request to every live thread cache, under the
    /// list's lock; returns them.
    pub(crate) fn post_to_caches(&self, reclaim: &Reclaim) -> Vec<Arc<dyn Cache>> {
        let caches = lock(&self.caches);
        for cache in caches.iter() {
            cache.post(reclaim);
        }
        caches.clone()
    }

    /// The bytes every thread cache of this pool holds now.
    pub(crate) fn cached_bytes(&self) -> usize {
        saturating_sum(lock(&self.caches).iter().map(|cache| cache.retained().1))
    }

    pub(crate) fn stats(&self) -> Stats {
        self.snapshot().0
    }

    /// The counters, and what `advice()` needs beside them.
    pub(crate) fn observe(&self) -> Observation {
        let (stats, returns_beyond_gets) = self.snapshot();
        Observation {
            stats,
            returns_beyond_gets,
            most_held: self.most_held.load(std::sync::atomic::Ordering::Relaxed),
            oversize_heap_p95: self.oversize.get().and_then(|log| log.percentile(95)),
            retention: self.limits.local_cap + self.shards.capacity(),
            value_size: self.value_size,
            max_bytes: self.max_bytes(),
            ceiling: self.limits.max_bytes,
            auto_cap: self.limits.auto_cap,
            class: self.class,
        }
    }

    /// The stats, and the returns beyond gets summed thread by thread;
    /// samples the values out now into the most seen out at once. Those
    /// it had when it was closed, for a closed pool.
    fn snapshot(&self) -> (Stats, u64) {
        let (mut stats, returns_beyond_gets) = {
            let caches = lock(&self.caches);
            if let Some(closing) = self.closing.get() {
                return *closing;
            }
            self.sum(&caches)
        };
        let (count, bytes) = self.shards.retained();
        stats.retained += count;
        stats.retained_bytes = stats.retained_bytes.saturating_add(bytes);
        self.sample_held(&stats);
        (stats, returns_beyond_gets)
    }

    /// Every counter summed, with the thread caches' retained values (not
    /// the shards'), and the returns beyond gets summed thread by thread;
    /// `caches` is the list of thread caches, locked.
    fn sum(&self, caches: &[Arc<dyn Cache>]) -> (Stats, u64) {
        let mut stats = Stats::default();
        // Under the lock, as `unregister` moves an exiting thread's share
        // from its cache to this total: read before it, a thread that
        // exited in between was in neither.
        let mut returns_beyond_gets = self
            .exited_returns_beyond_gets
            .load(std::sync::atomic::Ordering::Relaxed);
        self.counters.sum_into(&mut stats);
        for cache in caches.iter() {
            let fast = cache.fast_counts();
            cache.counters().sum_into_with(fast, &mut stats);
            let (count, bytes) = cache.retained();
            stats.retained += count;
            stats.retained_bytes = stats.retained_bytes.saturating_add(bytes);
            returns_beyond_gets += cache.counters().returns_beyond_gets(fast);
        }
        (stats, returns_beyond_gets)
    }

    /// Sample the values out now (a trim does, so that a pool whose stats
    /// are rarely read still has samples for `advice()`).
    #[cfg(not(poolable_loom))]
    pub(crate) fn note_held(&self) {
        let caches = lock(&self.caches);
        let stats = self.sum(&caches).0;
        drop(caches);
        self.sample_held(&stats);
    }
}

impl Storage {
    /// The storage of a pool of values of `kind` named `name`; `class` is
    /// the capacity of its buffers, for a class of a `BufferPool`.
    pub(crate) fn new(
        limits: Limits,
        name: Box<str>,
        class: Option<usize>,
        kind: Kind,
        is_reset: Check,
    ) -> Self {
        Storage {
            key: Key::new(),
            core: Core::new(limits, name, class, kind.size(), kind),
            kind,
            is_reset,
        }
    }
}

/// What [`Core::observe`] reads.
pub(crate) struct Observation {
    pub(crate) stats: Stats,
    /// Returns made on a thread beyond the values that thread took itself
    /// (summed over threads): a lower bound of the values that went back on
    /// another thread than the one that took them.
    pub(crate) returns_beyond_gets: u64,
    /// The most values seen out at once ([`Stats::held`]), sampled each time
    /// the counters were summed: a burst between two samples is missed.
    pub(crate) most_held: u64,
    /// The 95th percentile of the heap bytes of values dropped over the
    /// size cap, rounded up to a power of two ([`SizeLog::percentile`]);
    /// `None` before any.
    pub(crate) oversize_heap_p95: Option<usize>,
    /// How many idle values one thread alone can keep now: its cache and
    /// the shards' room in force (the adaptive bound's, for the default).
    pub(crate) retention: usize,
    /// `size_of::<T>()`: what the pool stores per value beside its heap.
    pub(crate) value_size: usize,
    /// The size cap in force.
    pub(crate) max_bytes: usize,
    /// `max_bytes` as configured: the ceiling of an adaptive cap.
    pub(crate) ceiling: usize,
    /// Whether the cap adapts (`max_bytes_auto`).
    pub(crate) auto_cap: bool,
    /// The capacity of a `BufferPool` class's buffers.
    pub(crate) class: Option<usize>,
}
