//! Pool statistics: per-thread counter cells and the [`Stats`] snapshot.

use crate::sync::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use core::fmt;

/// A snapshot of a pool's counters, from [`Pool::stats`](crate::Pool::stats).
///
/// Counts are exact for every operation that happened before the call (the
/// calling thread's own operations, and those of threads it has joined or
/// synchronised with). Operations racing with the call may or may not be
/// included. `retained` and `retained_bytes` are read shard by shard, so
/// values moving between a thread cache and a shard during the call can be
/// missed or seen twice.
///
/// Every value the pool creates ends in exactly one place, so, for values
/// that came from the pool, `misses` = `retained` + values still held by
/// users + `dropped_oversize` + `dropped_full` + `dropped_panic` +
/// `dropped_idle` + `detached`.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<Vec<u8>> = Pool::new();
/// drop(pool.get());
/// drop(pool.get());
/// let stats = pool.stats();
/// assert_eq!((stats.gets, stats.misses, stats.puts), (2, 1, 2));
/// assert_eq!(stats.retained, 1);
/// assert_eq!(stats.hit_rate(), 0.5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Stats {
    /// Calls to [`get`](crate::Pool::get).
    pub gets: u64,
    /// Gets that found no idle value and constructed a new one.
    pub misses: u64,
    /// Values handed back: guards dropped normally and [`put`](crate::Pool::put) calls.
    pub puts: u64,
    /// Values dropped on return because `heap_bytes` exceeded `max_bytes`.
    pub dropped_oversize: u64,
    /// Values dropped on return because the retention bound was reached.
    pub dropped_full: u64,
    /// Values lost to a panic: a guard dropped while its thread panicked, a
    /// reset that panicked, or a constructor that panicked on a miss.
    pub dropped_panic: u64,
    /// Idle values dropped by decay ([`trim`](crate::Pool::trim)) or [`clear`](crate::Pool::clear).
    pub dropped_idle: u64,
    /// Values taken out for good with [`Pooled::into_inner`](crate::Pooled::into_inner).
    pub detached: u64,
    /// Idle values retained now, in thread caches and shards.
    pub retained: usize,
    /// Heap bytes kept by the retained values, as reported by [`Reset::heap_bytes`](crate::Reset::heap_bytes).
    pub retained_bytes: usize,
}

impl Stats {
    /// The share of gets served from the pool, from 0.0 to 1.0 (1.0 when there were no gets).
    ///
    /// ```
    /// # use poolable::Stats;
    /// assert_eq!(Stats::default().hit_rate(), 1.0);
    /// ```
    pub fn hit_rate(&self) -> f64 {
        if self.gets == 0 {
            1.0
        } else {
            (self.gets - self.misses.min(self.gets)) as f64 / self.gets as f64
        }
    }

    /// Values dropped on return for any reason (oversize, full, panic).
    ///
    /// ```
    /// # use poolable::Stats;
    /// assert_eq!(Stats::default().dropped_on_return(), 0);
    /// ```
    pub fn dropped_on_return(&self) -> u64 {
        self.dropped_oversize + self.dropped_full + self.dropped_panic
    }
}

impl fmt::Display for Stats {
    /// One line, for logs.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// drop(pool.get());
    /// assert_eq!(
    ///     pool.stats().to_string(),
    ///     "gets=1 hit_rate=0.0% misses=1 puts=1 dropped(oversize=0 full=0 panic=0 idle=0) detached=0 retained=1 (0 B)"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gets={} hit_rate={:.1}% misses={} puts={} dropped(oversize={} full={} panic={} idle={}) detached={} retained={} ({} B)",
            self.gets,
            self.hit_rate() * 100.0,
            self.misses,
            self.puts,
            self.dropped_oversize,
            self.dropped_full,
            self.dropped_panic,
            self.dropped_idle,
            self.detached,
            self.retained,
            self.retained_bytes,
        )
    }
}

/// One set of counters. Each thread's cache owns one (it alone writes it, with
/// plain loads and stores, so the hot path never does a read-modify-write on
/// a shared cache line); the pool owns one more for operations that run
/// without a thread cache and for the totals of exited threads. Aligned to its
/// own cache lines so two threads' counters never share one.
#[repr(align(128))]
pub(crate) struct Counters {
    pub(crate) gets: AtomicU64,
    pub(crate) misses: AtomicU64,
    pub(crate) puts: AtomicU64,
    pub(crate) dropped_oversize: AtomicU64,
    pub(crate) dropped_full: AtomicU64,
    pub(crate) dropped_panic: AtomicU64,
    pub(crate) dropped_idle: AtomicU64,
    pub(crate) detached: AtomicU64,
    /// Values (and their bytes) in the owning thread's cache.
    pub(crate) cached: AtomicUsize,
    pub(crate) cached_bytes: AtomicUsize,
}

/// Which counter an event goes to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    Get,
    Miss,
    Put,
    DroppedOversize,
    DroppedFull,
    DroppedPanic,
    DroppedIdle,
    Detached,
}

impl Counters {
    pub(crate) fn new() -> Self {
        Counters {
            gets: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            puts: AtomicU64::new(0),
            dropped_oversize: AtomicU64::new(0),
            dropped_full: AtomicU64::new(0),
            dropped_panic: AtomicU64::new(0),
            dropped_idle: AtomicU64::new(0),
            detached: AtomicU64::new(0),
            cached: AtomicUsize::new(0),
            cached_bytes: AtomicUsize::new(0),
        }
    }

    fn cell(&self, event: Event) -> &AtomicU64 {
        match event {
            Event::Get => &self.gets,
            Event::Miss => &self.misses,
            Event::Put => &self.puts,
            Event::DroppedOversize => &self.dropped_oversize,
            Event::DroppedFull => &self.dropped_full,
            Event::DroppedPanic => &self.dropped_panic,
            Event::DroppedIdle => &self.dropped_idle,
            Event::Detached => &self.detached,
        }
    }

    /// Count `n` events on counters that only the calling thread writes.
    #[inline]
    pub(crate) fn add_owned(&self, event: Event, n: u64) {
        let cell = self.cell(event);
        cell.store(cell.load(Relaxed).wrapping_add(n), Relaxed);
    }

    /// Count `n` events on counters that any thread may write.
    pub(crate) fn add_shared(&self, event: Event, n: u64) {
        self.cell(event).fetch_add(n, Relaxed);
    }

    /// Record the owning thread's cache contents (owner only).
    #[inline]
    pub(crate) fn set_cached(&self, count: usize, bytes: usize) {
        self.cached.store(count, Relaxed);
        self.cached_bytes.store(bytes, Relaxed);
    }

    /// Add these counters into a snapshot.
    pub(crate) fn sum_into(&self, stats: &mut Stats) {
        stats.gets += self.gets.load(Relaxed);
        stats.misses += self.misses.load(Relaxed);
        stats.puts += self.puts.load(Relaxed);
        stats.dropped_oversize += self.dropped_oversize.load(Relaxed);
        stats.dropped_full += self.dropped_full.load(Relaxed);
        stats.dropped_panic += self.dropped_panic.load(Relaxed);
        stats.dropped_idle += self.dropped_idle.load(Relaxed);
        stats.detached += self.detached.load(Relaxed);
        stats.retained += self.cached.load(Relaxed);
        stats.retained_bytes += self.cached_bytes.load(Relaxed);
    }

    /// Fold an exiting thread's counters into the pool's (its cache is empty by now).
    pub(crate) fn absorb(&self, other: &Counters) {
        for event in [
            Event::Get,
            Event::Miss,
            Event::Put,
            Event::DroppedOversize,
            Event::DroppedFull,
            Event::DroppedPanic,
            Event::DroppedIdle,
            Event::Detached,
        ] {
            self.add_shared(event, other.cell(event).load(Relaxed));
        }
    }
}
