//! What a pool allocates on first use: its resolved limits, the shared tier,
//! the registry of its thread caches, the counters of everything that ran
//! without a thread cache, and its key in every thread's table.

use crate::autocap::AutoCap;
use crate::local::ThreadCache;
use crate::policy::Limits;
use crate::raw::table::Key;
use crate::shard::Shards;
use crate::stats::{Counters, Event, Stats};
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering, lock};

pub(crate) struct Storage<T: 'static> {
    /// This pool's place in each thread's table of thread caches.
    pub(crate) key: Key<crate::local::Stack<T>, crate::local::Head<T>>,
    pub(crate) limits: Limits,
    /// The calibration of an adaptive size cap.
    pub(crate) auto_cap: Option<AutoCap>,
    pub(crate) shards: Shards<T>,
    /// Every live thread cache of this pool, for trims and statistics.
    caches: Mutex<Vec<Arc<ThreadCache<T>>>>,
    /// Operations that ran without a thread cache, reclaimers' drops, and
    /// exited threads' totals.
    pub(crate) counters: Counters,
    /// Decay steps so far (`decay.rs`); bumped by trims, read on slow paths.
    pub(crate) generation: AtomicU64,
    /// Set when the owning `Pool` is dropped: thread caches of a closed pool
    /// are freed the next time their thread links a pool, or exits.
    closed: AtomicBool,
    /// What `pools()` calls it.
    pub(crate) name: Box<str>,
    /// `T::is_reset`, for the check of every return under `POOLABLE=chaos`
    /// (which runs where this module's generic code has no `T: Reset`).
    pub(crate) is_reset: fn(&T) -> bool,
}

impl<T: 'static> Storage<T> {
    pub(crate) fn new(limits: Limits, name: Box<str>, is_reset: fn(&T) -> bool) -> Self {
        crate::raw::fence::init();
        Storage {
            key: Key::new(),
            shards: Shards::new(&limits.shard_caps, &limits.shard_ceilings),
            auto_cap: limits.auto_cap.then(|| AutoCap::new(limits.max_bytes)),
            limits,
            caches: Mutex::new(Vec::new()),
            counters: Counters::new(),
            generation: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            name,
            is_reset,
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

    /// The owning `Pool` is gone. Its thread caches are let go of here
    /// (each is an `Arc` that holds this storage: keeping them would make a
    /// cycle); the threads' tables drop theirs when the thread next links a
    /// pool, or exits.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
        let caches = core::mem::take(&mut *lock(&self.caches));
        drop(caches);
    }

    pub(crate) fn register(&self, cache: Arc<ThreadCache<T>>) {
        lock(&self.caches).push(cache);
    }

    /// A thread cache is going away: fold its counters into the pool's,
    /// atomically with respect to `stats()`.
    pub(crate) fn unregister(&self, head: &crate::local::Head<T>) {
        let mut caches = lock(&self.caches);
        caches.retain(|c| !core::ptr::eq(&c.head, head));
        self.counters.absorb(&head.counters);
    }

    /// The live thread caches, for a reclaimer to visit without the lock.
    pub(crate) fn caches(&self) -> Vec<Arc<ThreadCache<T>>> {
        lock(&self.caches).clone()
    }

    /// Count an event that happened without a thread cache.
    pub(crate) fn count(&self, event: Event, n: u64) {
        self.counters.add_shared(event, n);
    }

    pub(crate) fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        {
            let caches = lock(&self.caches);
            self.counters.sum_into(&mut stats);
            for cache in caches.iter() {
                cache.head.sum_into(&mut stats);
            }
        }
        let (count, bytes) = self.shards.retained();
        stats.retained += count;
        stats.retained_bytes += bytes;
        stats
    }
}
