//! Pool statistics: per-thread counter cells and the [`Stats`] snapshot.

use crate::sync::{AtomicU64, Ordering::Relaxed};
use core::fmt;

/// A snapshot of a pool's counters, from [`Pool::stats`](crate::Pool::stats).
///
/// Counts are exact for every operation that happened before the call (the
/// calling thread's own operations, and those of threads it has joined or
/// synchronised with). Operations racing with the call may or may not be
/// included. `retained` and `retained_bytes` are read shard by shard, so
/// values moving between a thread cache and a shard during the call can be
/// missed or seen twice. A thread that exits hands its caches' values back
/// in its thread-local destructors: [`join`](std::thread::JoinHandle::join)
/// waits for them, but the end of a [`std::thread::scope`] does not, so
/// counts read right after a scope can still catch values on the move.
///
/// Every value the pool creates ends in exactly one place, so, for values
/// that came from the pool, `misses` + `prefilled` = `retained` + values still held by
/// users + `dropped_oversize` + `dropped_full` + `dropped_panic` +
/// `dropped_idle` + `detached` ([`Stats::unaccounted`] checks it).
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
    /// Values dropped on return because `heap_bytes` plus `size_of::<T>()`
    /// exceeded `max_bytes`,
    /// and values [`reserve`](crate::Pool::reserve) made over it (it stops
    /// at the first).
    pub dropped_oversize: u64,
    /// Values over the size cap that [`Oversize::Shrink`](crate::Oversize::Shrink)
    /// brought under it, and that were kept. Counted among `puts` too; not
    /// a value count for the identity (the value is retained or held).
    pub shrunk: u64,
    /// Values dropped on return because the retention bound was reached.
    pub dropped_full: u64,
    /// Values lost to a panic: a guard dropped while its thread panicked, a
    /// reset that panicked, a constructor that panicked on a miss, or a
    /// [`BufferPool::get`](crate::BufferPool::get) that panicked on a
    /// capacity over `isize::MAX`.
    pub dropped_panic: u64,
    /// Idle values dropped by decay ([`trim`](crate::Pool::trim)) or [`clear`](crate::Pool::clear),
    /// or, in a [`BufferPool`](crate::BufferPool)'s large classes, let go of by a get that
    /// had to allocate ([Memory](crate::BufferPool#memory)).
    pub dropped_idle: u64,
    /// Values taken out for good with [`Pooled::into_inner`](crate::Pooled::into_inner).
    pub detached: u64,
    /// Idle values retained now, in thread caches and shards.
    pub retained: usize,
    /// Bytes kept by the retained values: each one's [`Reset::heap_bytes`](crate::Reset::heap_bytes)
    /// plus `size_of::<T>()`, the pool's own storage of it. The sum
    /// saturates at `usize::MAX`, which values that measure so much (a
    /// locked `Mutex` measures `usize::MAX`) can reach under a disabled cap.
    pub retained_bytes: usize,
    /// Panics caught while the pool dropped values it was discarding (idle
    /// values at a trim, a `clear` or a thread's exit; values that found no
    /// room). The pool drops each value on its own, so one panicking `Drop`
    /// neither stops the others nor escapes into an unrelated call. Not a
    /// value count: the values are already counted where they went.
    pub drop_panics: u64,
    /// Values constructed ahead of demand by [`reserve`](crate::Pool::reserve)
    /// and kept idle. Like `misses`, each is a value the pool created, so
    /// the identity counts them on the same side; unlike a miss, no get
    /// waited for it.
    pub prefilled: u64,
    /// Values given to [`put`](crate::Pool::put) from outside the pool
    /// (not through a guard). Counted among `puts` too.
    pub external: u64,
}

impl Stats {
    /// The share of gets served from the pool, from 0.0 to 1.0 (1.0 when there were no gets).
    ///
    /// ```
    /// # use poolable::Stats;
    /// assert_eq!(Stats::default().hit_rate(), 1.0);
    /// ```
    #[must_use]
    pub fn hit_rate(&self) -> f64 {
        if self.gets == 0 {
            1.0
        } else {
            (self.gets - self.misses.min(self.gets)) as f64 / self.gets as f64
        }
    }

    /// How many values the identity above cannot place, given how many the
    /// caller holds (`held`) and how many it gave to [`put`](crate::Pool::put)
    /// from outside the pool (`external`): 0 when the books balance.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// let held = pool.get();
    /// drop(pool.get());
    /// pool.put(String::new());
    /// assert_eq!(pool.stats().unaccounted(1, 1), 0);
    /// drop(held);
    /// assert_eq!(pool.stats().unaccounted(0, 1), 0);
    /// ```
    #[must_use]
    pub fn unaccounted(&self, held: u64, external: u64) -> i128 {
        let created = i128::from(self.misses) + i128::from(self.prefilled) + i128::from(external);
        let placed = self.retained as i128
            + i128::from(held)
            + i128::from(self.dropped_oversize)
            + i128::from(self.dropped_full)
            + i128::from(self.dropped_panic)
            + i128::from(self.dropped_idle)
            + i128::from(self.detached);
        created - placed
    }

    /// Add `other` into these totals (the pools of a `BufferPool`).
    pub(crate) fn add(&mut self, other: &Stats) {
        self.gets += other.gets;
        self.misses += other.misses;
        self.puts += other.puts;
        self.dropped_oversize += other.dropped_oversize;
        self.dropped_full += other.dropped_full;
        self.dropped_panic += other.dropped_panic;
        self.dropped_idle += other.dropped_idle;
        self.detached += other.detached;
        self.retained += other.retained;
        self.retained_bytes = self.retained_bytes.saturating_add(other.retained_bytes);
        self.drop_panics += other.drop_panics;
        self.prefilled += other.prefilled;
        self.external += other.external;
        self.shrunk += other.shrunk;
    }

    /// Values out of the pool right now, in guards: handed out by gets and
    /// not yet returned, detached or dropped in a panic. Exact when no
    /// operation races with [`stats`](crate::Pool::stats).
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// let (a, b) = (pool.get(), pool.get());
    /// drop(a);
    /// assert_eq!(pool.stats().held(), 1);
    /// drop(b);
    /// assert_eq!(pool.stats().held(), 0);
    /// ```
    ///
    /// It never goes below 0, so returns counted beyond the gets do not show
    /// here: a class of a [`BufferPool`](crate::BufferPool) that receives
    /// buffers grown out of a smaller class (the counts balance only for the
    /// whole `BufferPool`), or returns counted twice. The signed count is
    /// `gets - (puts - external) - detached - dropped_panic`, below; and
    /// [`is_balanced`](Stats::is_balanced) is false when such returns left
    /// values in the pool that its own gets and `put`s cannot account for
    /// ([`unaccounted`](Stats::unaccounted) is then negative).
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// let mut buf = bufs.get(100); // from a small class
    /// buf.reserve(10_000); // grown: it goes back to a larger class
    /// drop(buf);
    ///
    /// let classes = bufs.class_stats();
    /// let larger = classes.iter().find(|c| c.stats.puts == 1).unwrap().stats;
    /// assert_eq!((larger.gets, larger.held()), (0, 0)); // the extra return is hidden
    /// let signed = i128::from(larger.gets)
    ///     - i128::from(larger.puts - larger.external)
    ///     - i128::from(larger.detached)
    ///     - i128::from(larger.dropped_panic);
    /// assert_eq!(signed, -1);
    /// assert!(!larger.is_balanced());
    /// assert!(bufs.stats().is_balanced()); // the totals balance
    /// ```
    #[must_use]
    pub fn held(&self) -> u64 {
        u64::try_from(self.signed_held().max(0)).unwrap_or(u64::MAX)
    }

    /// [`held`](Stats::held) before it stops at 0: `gets - (puts -
    /// external) - detached - dropped_panic`.
    pub(crate) fn signed_held(&self) -> i128 {
        let returned = i128::from(self.puts) - i128::from(self.external);
        i128::from(self.gets)
            - returned
            - i128::from(self.detached)
            - i128::from(self.dropped_panic)
    }

    /// Whether the books balance: every value the pool created or was given
    /// is retained, held, or counted where it was dropped or detached
    /// ([`unaccounted`](Stats::unaccounted) with [`held`](Stats::held) and
    /// `external`). One call for users' and tests' checks; exact when no
    /// operation races with [`stats`](crate::Pool::stats).
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new();
    /// let held = pool.get();
    /// pool.put(Vec::with_capacity(16));
    /// drop(pool.get());
    /// assert!(pool.stats().is_balanced());
    /// drop(held);
    /// assert!(pool.stats().is_balanced());
    /// ```
    #[must_use]
    pub fn is_balanced(&self) -> bool {
        self.unaccounted(self.held(), self.external) == 0
    }

    /// Values dropped on return for any reason (oversize, full, panic),
    /// saturating at `u64::MAX`.
    ///
    /// ```
    /// # use poolable::Stats;
    /// assert_eq!(Stats::default().dropped_on_return(), 0);
    /// ```
    #[must_use]
    pub fn dropped_on_return(&self) -> u64 {
        self.dropped_oversize
            .saturating_add(self.dropped_full)
            .saturating_add(self.dropped_panic)
    }
}

impl fmt::Display for Stats {
    /// One line, for logs. `prefilled=N`, `drop_panics=N` and `shrunk=N`
    /// are appended when they are not 0.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// drop(pool.get());
    /// assert_eq!(
    ///     pool.stats().to_string(),
    ///     "gets=1 hit_rate=0.0% misses=1 puts=1 dropped(oversize=0 full=0 panic=0 idle=0) detached=0 retained=1 (24 B)"
    /// );
    /// ```
    ///
    /// Bytes are in binary units from 1 KiB up (`retained=174 (72.6 MiB)`),
    /// with one decimal unless the figure is a whole number of its unit.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gets={} hit_rate={:.1}% misses={} puts={} dropped(oversize={} full={} panic={} idle={}) detached={} retained={} ({})",
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
            Bytes(self.retained_bytes),
        )?;
        if self.prefilled > 0 {
            write!(f, " prefilled={}", self.prefilled)?;
        }
        if self.drop_panics > 0 {
            write!(f, " drop_panics={}", self.drop_panics)?;
        }
        if self.shrunk > 0 {
            write!(f, " shrunk={}", self.shrunk)?;
        }
        Ok(())
    }
}

/// The sum of retained sizes, saturating: a value may measure up to
/// `usize::MAX` (`Reset::heap_bytes` of a locked `Mutex`), so sums of them
/// can pass it (`Stats::retained_bytes`).
pub(crate) fn saturating_sum(sizes: impl IntoIterator<Item = usize>) -> usize {
    sizes.into_iter().fold(0, usize::saturating_add)
}

/// A byte count for people: `512 B`, `64 KiB`, `72.6 MiB` (binary units,
/// one decimal unless the figure is a whole number of its unit).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bytes(pub(crate) usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        let scale = |unit: usize| 1u128 << (10 * (unit + 1));
        let bytes = self.0 as u128;
        if bytes < 1024 {
            return write!(f, "{bytes} B");
        }
        let mut unit = 0;
        while unit + 1 < UNITS.len() && bytes >= scale(unit + 1) {
            unit += 1;
        }
        // Tenths of the unit, rounded to nearest; one unit up when that
        // rounds to 1024.0 of this one.
        let tenths = |unit: usize| (bytes * 10 + scale(unit) / 2) / scale(unit);
        if tenths(unit) >= 10_240 && unit + 1 < UNITS.len() {
            unit += 1;
        }
        let name = UNITS[unit];
        if bytes % scale(unit) == 0 {
            write!(f, "{} {name}", bytes / scale(unit))
        } else {
            let tenths = tenths(unit);
            write!(f, "{}.{} {name}", tenths / 10, tenths % 10)
        }
    }
}

/// How many values of each size were seen, by power of two: for
/// `advice()`, fed by slow paths only (values dropped over the size cap).
/// Plain `std` atomics: a tally, not part of what the loom models check.
pub(crate) struct SizeLog([std::sync::atomic::AtomicU64; SIZE_CLASSES]);

/// Size classes of a [`SizeLog`]: class 0 holds 0, and class `k` from 1
/// the sizes in `(2^(k-2), 2^(k-1)]` (class 1: 1). A size of 0 has its
/// own: a value over its cap with no heap is over by its own size.
const SIZE_CLASSES: usize = usize::BITS as usize + 2;

impl Default for SizeLog {
    fn default() -> Self {
        SizeLog(core::array::from_fn(|_| {
            std::sync::atomic::AtomicU64::new(0)
        }))
    }
}

impl SizeLog {
    pub(crate) fn record(&self, bytes: usize) {
        let class = match bytes {
            0 => 0,
            n => (usize::BITS - (n - 1).leading_zeros()) as usize + 1,
        };
        self.0[class].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The smallest power of two (or 0) that is at least `percent`% of the
    /// sizes recorded (`usize::MAX` past the largest); `None` before any.
    pub(crate) fn percentile(&self, percent: u64) -> Option<usize> {
        let counts: Vec<u64> = self
            .0
            .iter()
            .map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            .collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return None;
        }
        let mut seen = 0;
        let class = counts.iter().position(|&n| {
            seen += n;
            seen * 100 >= total * percent
        })?;
        Some(match class {
            0 => 0,
            k => 1usize.checked_shl(k as u32 - 1).unwrap_or(usize::MAX),
        })
    }
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
    DropPanicked,
    Prefilled,
    External,
    Shrunk,
}

const EVENTS: usize = 12;

/// One set of counters, indexed by [`Event`]. Each thread cache owns one (its
/// thread alone writes it, with plain loads and stores, so the hot path never
/// does a read-modify-write on a shared cache line); the pool owns one more
/// for operations that run without a thread cache, for reclaimers, and for
/// the totals of exited threads.
pub(crate) struct Counters([AtomicU64; EVENTS]);

impl Counters {
    pub(crate) fn new() -> Self {
        Counters(core::array::from_fn(|_| AtomicU64::new(0)))
    }

    /// Count `n` events on counters that only the calling thread writes.
    #[inline(always)]
    pub(crate) fn add_owned(&self, event: Event, n: u64) {
        let cell = &self.0[event as usize];
        cell.store(cell.load(Relaxed).wrapping_add(n), Relaxed);
    }

    /// Count `n` events on counters that any thread may write.
    pub(crate) fn add_shared(&self, event: Event, n: u64) {
        self.0[event as usize].fetch_add(n, Relaxed);
    }

    fn get(&self, event: Event) -> u64 {
        self.0[event as usize].load(Relaxed)
    }

    /// Add these counters into a snapshot.
    pub(crate) fn sum_into(&self, stats: &mut Stats) {
        stats.gets += self.get(Event::Get);
        stats.misses += self.get(Event::Miss);
        stats.puts += self.get(Event::Put);
        stats.dropped_oversize += self.get(Event::DroppedOversize);
        stats.dropped_full += self.get(Event::DroppedFull);
        stats.dropped_panic += self.get(Event::DroppedPanic);
        stats.dropped_idle += self.get(Event::DroppedIdle);
        stats.detached += self.get(Event::Detached);
        stats.drop_panics += self.get(Event::DropPanicked);
        stats.prefilled += self.get(Event::Prefilled);
        stats.external += self.get(Event::External);
        stats.shrunk += self.get(Event::Shrunk);
    }

    /// Add these counters into a snapshot, with a thread's `fast` gets and
    /// returns (`[gets, puts]`, counted in its marks, `raw/owned.rs`).
    pub(crate) fn sum_into_with(&self, fast: [u64; 2], stats: &mut Stats) {
        self.sum_into(stats);
        stats.gets += fast[0];
        stats.puts += fast[1];
    }

    /// Returns counted here (and among the `fast` ones, as in
    /// [`sum_into_with`](Self::sum_into_with)) beyond the gets counted
    /// there: on a thread's counters, values that thread gave back without
    /// having taken them (from another thread, or a `BufferPool` class
    /// below). `put`s of values from outside the pool are not returns.
    pub(crate) fn returns_beyond_gets(&self, fast: [u64; 2]) -> u64 {
        let returns = (self.get(Event::Put) + fast[1]).saturating_sub(self.get(Event::External));
        returns.saturating_sub(self.get(Event::Get) + fast[0])
    }

    /// Fold an exiting thread's counters, and its `fast` gets and returns,
    /// into these.
    pub(crate) fn absorb(&self, other: &Counters, fast: [u64; 2]) {
        for (mine, theirs) in self.0.iter().zip(&other.0) {
            mine.fetch_add(theirs.load(Relaxed), Relaxed);
        }
        self.add_shared(Event::Get, fast[0]);
        self.add_shared(Event::Put, fast[1]);
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_in_binary_units() {
        let shown = |n: usize| Bytes(n).to_string();
        assert_eq!(shown(0), "0 B");
        assert_eq!(shown(1023), "1023 B");
        assert_eq!(shown(1024), "1 KiB");
        assert_eq!(shown(1025), "1.0 KiB");
        assert_eq!(shown(1536), "1.5 KiB");
        assert_eq!(shown(64 << 10), "64 KiB");
        assert_eq!(shown(76_100_688), "72.6 MiB");
        assert_eq!(shown((1 << 20) - 1), "1.0 MiB");
        assert_eq!(shown((5 << 30) + (1 << 29)), "5.5 GiB");
        assert_eq!(shown(usize::MAX), "16.0 EiB");
    }

    /// `prefilled`, `drop_panics` and `shrunk` are appended to the line
    /// when they are not 0 (the doc example shows them left out at 0).
    #[test]
    fn the_line_appends_the_rare_counters_when_not_zero() {
        let stats = Stats {
            gets: 4,
            misses: 1,
            puts: 4,
            prefilled: 2,
            drop_panics: 3,
            shrunk: 5,
            ..Stats::default()
        };
        assert_eq!(
            stats.to_string(),
            "gets=4 hit_rate=75.0% misses=1 puts=4 dropped(oversize=0 full=0 panic=0 idle=0) \
             detached=0 retained=0 (0 B) prefilled=2 drop_panics=3 shrunk=5"
        );
    }

    /// `add` (a `BufferPool`'s totals, and `export_metrics`' sum of the
    /// pools that share a name) adds every counter, each into its own.
    #[test]
    fn add_sums_every_counter_into_its_own() {
        // Distinct powers of two, so that a counter added into another, or
        // left out, shows.
        let one = Stats {
            gets: 1,
            misses: 1 << 1,
            puts: 1 << 2,
            dropped_oversize: 1 << 3,
            shrunk: 1 << 4,
            dropped_full: 1 << 5,
            dropped_panic: 1 << 6,
            dropped_idle: 1 << 7,
            detached: 1 << 8,
            retained: 1 << 9,
            retained_bytes: 1 << 10,
            drop_panics: 1 << 11,
            prefilled: 1 << 12,
            external: 1 << 13,
        };
        let mut total = one;
        total.add(&one);
        let twice = Stats {
            gets: 2,
            misses: 1 << 2,
            puts: 1 << 3,
            dropped_oversize: 1 << 4,
            shrunk: 1 << 5,
            dropped_full: 1 << 6,
            dropped_panic: 1 << 7,
            dropped_idle: 1 << 8,
            detached: 1 << 9,
            retained: 1 << 10,
            retained_bytes: 1 << 11,
            drop_panics: 1 << 12,
            prefilled: 1 << 13,
            external: 1 << 14,
        };
        assert_eq!(total, twice);
        let mut from_zero = Stats::default();
        from_zero.add(&one);
        assert_eq!(from_zero, one);
        // Bytes saturate, as values that measure `usize::MAX` can reach.
        let huge = Stats {
            retained_bytes: usize::MAX,
            ..Stats::default()
        };
        total.add(&huge);
        assert_eq!(total.retained_bytes, usize::MAX);
    }

    /// A thread's returns beyond its gets (for `advice()`'s
    /// `OtherThreads`) count its gets and returns on both paths, the slow
    /// ones in its counters and the `fast` ones in its tenant's counts, and leave
    /// out `put`s of values from outside the pool.
    #[test]
    fn returns_beyond_gets_count_both_paths_and_leave_out_external_puts() {
        let counters = Counters::new();
        counters.add_owned(Event::Get, 2);
        counters.add_owned(Event::Put, 4);
        counters.add_owned(Event::External, 1);
        // 4 + 6 returns, 1 of them external: 9, beyond 2 + 3 gets by 4.
        assert_eq!(counters.returns_beyond_gets([3, 6]), 4);
        // As many gets as returns, or more: none beyond.
        assert_eq!(counters.returns_beyond_gets([7, 6]), 0);
        assert_eq!(counters.returns_beyond_gets([20, 6]), 0);
    }

    /// The other derived figures (`held`, `unaccounted`, `hit_rate`) take
    /// any counters; this one overflowed (a panic in a debug build).
    #[test]
    fn drops_on_return_of_large_counters_saturate() {
        let stats = Stats {
            dropped_full: u64::MAX,
            dropped_panic: 1,
            ..Stats::default()
        };
        assert_eq!(stats.dropped_on_return(), u64::MAX);
    }

    #[test]
    fn a_size_log_gives_the_power_of_two_above_a_percentile() {
        let log = SizeLog::default();
        assert_eq!(log.percentile(95), None);
        for _ in 0..90 {
            log.record((1 << 20) + 24);
        }
        for _ in 0..10 {
            log.record(100);
        }
        assert_eq!(log.percentile(95), Some(2 << 20));
        assert_eq!(log.percentile(10), Some(128));
        log.record(usize::MAX);
        assert_eq!(log.percentile(100), Some(usize::MAX));
        let exact = SizeLog::default();
        exact.record(1 << 20);
        assert_eq!(exact.percentile(95), Some(1 << 20));
        // 0 is a class of its own, below 1's.
        let small = SizeLog::default();
        small.record(0);
        assert_eq!(small.percentile(100), Some(0));
        small.record(1);
        assert_eq!(small.percentile(50), Some(0));
        assert_eq!(small.percentile(100), Some(1));
    }
}
