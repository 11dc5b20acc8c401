//! The global list of pools: every pool that has been used (what
//! [`trim_all`] visits and [`pools`] lists), each seen through
//! [`AnyStorage`], a type-erased view of its storage; and, with the
//! `metrics` feature, what the dropped ones counted, by name (what
//! `export_metrics` adds to their names' series).

use crate::advice::{self, Advice};
use crate::decay::{self, Stepping, Steps};
use crate::policy::{self, Mode};
use crate::stats::{Stats, saturating_sum};
use crate::sync::{Arc, Weak};
use crate::tier::storage::{AnyStorage, Core, Observation, Storage};
use core::fmt;
#[cfg(feature = "metrics")]
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

// These globals use `std` locks even under loom: they are held for a few
// instructions, run no loom operation inside, and are not a path the models
// explore.

static POOLS: Mutex<Registry> = Mutex::new(Registry {
    pools: Vec::new(),
    #[cfg(feature = "metrics")]
    dropped: BTreeMap::new(),
});

/// What [`POOLS`] holds.
struct Registry {
    /// Every pool used so far whose storage is alive (a dropped pool's
    /// storage lives on until its threads let go of their caches of it).
    pools: Vec<Entry>,
    /// What the dropped pools had counted, by name (`export_metrics`).
    #[cfg(feature = "metrics")]
    dropped: Dropped,
}

/// The counters of dropped pools, by name.
#[cfg(feature = "metrics")]
pub(crate) type Dropped = BTreeMap<Box<str>, Stats>;

/// A pool in the list.
struct Entry {
    pool: Weak<dyn AnyStorage>,
    /// Whether the pool was dropped ([`retire`]): its counts are then
    /// among the registry's `dropped`, with the `metrics` feature.
    retired: bool,
    /// Whether the storage is the pool's ([`list`]): one made by a thread
    /// that lost the race to publish it is registered, for the steps of
    /// every pool, but not listed, so that no reading shows the pool twice.
    listed: bool,
}

fn registry() -> MutexGuard<'static, Registry> {
    let mut registry = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    registry.pools.retain(|p| p.pool.strong_count() > 0);
    registry
}

/// The pools of `registry`'s entries that `keep` keeps and that are still
/// alive, in the order of first use.
fn alive(registry: &Registry, keep: impl Fn(&Entry) -> bool) -> Vec<Arc<dyn AnyStorage>> {
    registry
        .pools
        .iter()
        .filter(|entry| keep(entry))
        .filter_map(|entry| entry.pool.upgrade())
        .collect()
}

/// Every registered pool still alive, in the order of first use.
fn live() -> Vec<Arc<dyn AnyStorage>> {
    alive(&registry(), |_| true)
}

/// Record a storage for `trim_all`, when a thread has made it on a pool's
/// first use and before it races to publish it: a storage that can hold
/// values is always in the list the steps of every pool go through.
pub(crate) fn register(storage: &Arc<Storage>) {
    let pool: Weak<Storage> = Arc::downgrade(storage);
    registry().pools.push(Entry {
        pool,
        retired: false,
        listed: false,
    });
}

/// The storage won the race to be its pool's: [`pools`] lists it.
pub(crate) fn list(storage: &Arc<Storage>) {
    for entry in &mut registry().pools {
        if core::ptr::addr_eq(entry.pool.as_ptr(), Arc::as_ptr(storage)) {
            entry.listed = true;
        }
    }
}

/// The pool of `storage` is dropped, and had `counted` (`Core::close`):
/// under the list's lock, mark it dropped and keep its counters, for
/// `export_metrics`.
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
pub(crate) fn retire(storage: &Arc<Storage>, counted: &Stats) {
    let mut registry = registry();
    for entry in &mut registry.pools {
        if core::ptr::addr_eq(entry.pool.as_ptr(), Arc::as_ptr(storage)) {
            entry.retired = true;
        }
    }
    #[cfg(feature = "metrics")]
    {
        // The counters only: its values are gone.
        let counted = Stats {
            retained: 0,
            retained_bytes: 0,
            ..*counted
        };
        match registry.dropped.get_mut(&storage.name) {
            Some(sum) => sum.add(&counted),
            None => {
                registry.dropped.insert(storage.name.clone(), counted);
            }
        }
    }
}

/// For `export_metrics`, read together under the list's lock: every pool
/// alive and not dropped, and what the dropped ones counted, by name. A
/// pool is in one or the other: one dropped after this reading is among
/// the first, and reads as it was when dropped (`Core::close`).
#[cfg(feature = "metrics")]
pub(crate) fn live_and_dropped() -> (Vec<Arc<dyn AnyStorage>>, Dropped) {
    let registry = registry();
    let live = alive(&registry, |entry| entry.listed && !entry.retired);
    (live, registry.dropped.clone())
}

/// One decay step ([`Pool::trim`](crate::Pool::trim)) on every pool that has been used so far.
///
/// Pools register themselves on first use, statics and heap pools alike
/// (a dropped pool leaves the list). Call it from a timer, or let the
/// [`trimmer`](crate::trimmer) do it, to get the two-cycle decay of Go's
/// `sync.Pool` without a garbage collector. A panic in an idle value's
/// `Drop` is caught and counted (`Stats::drop_panics`); every pool is
/// trimmed all the same.
///
/// ```
/// use poolable::{Pool, trim_all};
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// drop(BUFS.get());
/// trim_all();
/// trim_all();
/// assert_eq!(BUFS.stats().retained, 0);
/// ```
pub fn trim_all() {
    step_all(Steps::TRIM);
}

/// Decay steps on every pool, then the retained budget: a trim, a clear,
/// or medium memory pressure (the trimmer's
/// [`MemoryPressure::Medium`](crate::trimmer::MemoryPressure): every
/// pool's shared tier lets go of all its idle values, thread caches take
/// one step).
pub(crate) fn step_all(steps: Steps) {
    step_pools(&live(), steps);
    enforce_budget();
}

/// Decay steps on `pools` in one batch: one heavy fence however many pools
/// and threads there are (`raw/owned.rs`); the values go after the batch.
fn step_pools(pools: &[Arc<dyn AnyStorage>], steps: Steps) {
    decay::step_each(|reclaim| {
        pools
            .iter()
            .map(|pool| Stepping::begin(Arc::clone(pool), steps, reclaim))
            .collect()
    });
}

/// Drop idle values of `pool`'s shared tier, the oldest first (victims
/// only, or every list), until `bytes` are freed; returns the bytes freed.
fn shed(pool: &Core, oldest_only: bool, bytes: usize) -> usize {
    let (dead, freed) = pool.shards.shed(oldest_only, bytes);
    decay::drop_idle(pool, dead);
    freed
}

/// Cap the bytes that all pools together keep idle (`None`: no cap, the
/// default), in their shared tiers and their thread caches.
///
/// - **Between trims**, a value that would pass it as it enters a shared
///   tier is dropped instead (`Stats::dropped_full`). Thread caches take
///   returns without looking, so that the fast path stays free: each holds
///   up to [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE) values of at most
///   [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES) per thread and
///   pool. Concurrent returns may pass the budget by one value each.
/// - **After a trim** ([`trim_all`], and so the trimmer)
///   and when the budget is set, [`retained_bytes`]
///   is back under it: idle values of the shared tiers go first, the oldest
///   first (values idle since the last trim, in every pool, before any that
///   came back since); then, if the thread caches alone hold more than the
///   budget, the caches of the pools whose caches hold the most are
///   emptied. A thread in the middle of a get or a return empties its own
///   cache at its next operation.
///
/// ```
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
/// drop(BUFS.get());
/// poolable::set_retained_budget(Some(64 << 20)); // 64 MiB for every pool
/// assert!(poolable::retained_bytes() <= 64 << 20);
/// poolable::set_retained_budget(None);
/// ```
pub fn set_retained_budget(bytes: Option<usize>) {
    crate::budget::set_limit(bytes.unwrap_or(usize::MAX));
    enforce_budget();
}

/// Bring every pool's retained bytes, thread caches included, back under
/// the retained budget ([`set_retained_budget`]):
/// first the shared tiers, the values idle since the last trim first, in
/// every pool, then the rest; then, if that is not enough, the thread
/// caches of the pools whose caches hold the most, emptied in one batch.
pub(crate) fn enforce_budget() {
    let budget = crate::budget::limit();
    if budget == usize::MAX {
        return;
    }
    let pools = live();
    let cached: Vec<usize> = pools
        .iter()
        .map(|pool| pool.core().cached_bytes())
        .collect();
    let total = crate::budget::shared_retained_bytes()
        .saturating_add(saturating_sum(cached.iter().copied()));
    let mut excess = total.saturating_sub(budget);
    for oldest_only in [true, false] {
        for pool in &pools {
            if excess == 0 {
                return;
            }
            excess = excess.saturating_sub(shed(pool.core(), oldest_only, excess));
        }
    }
    if excess == 0 {
        return;
    }
    let mut by_cache: Vec<_> = pools.iter().zip(cached).filter(|(_, c)| *c > 0).collect();
    by_cache.sort_by_key(|&(_, bytes)| core::cmp::Reverse(bytes));
    let mut emptied = Vec::new();
    for (pool, bytes) in by_cache {
        if excess == 0 {
            break;
        }
        excess = excess.saturating_sub(bytes);
        emptied.push(Arc::clone(pool));
    }
    step_pools(&emptied, Steps::CACHES);
}

/// The bytes every pool keeps idle now, in its shared tier and its thread
/// caches: what [`set_retained_budget`] caps
/// after each trim. The sum of `Stats::retained_bytes` over [`pools`],
/// read without the other counters.
///
/// ```
/// use poolable::Pool;
///
/// static LINES: Pool<String> = Pool::with_new(|| String::with_capacity(1000));
/// let before = poolable::retained_bytes();
/// drop(LINES.get());
/// assert!(poolable::retained_bytes() >= before + 1000);
/// ```
#[must_use]
pub fn retained_bytes() -> usize {
    let cached = saturating_sum(live().iter().map(|pool| pool.core().cached_bytes()));
    crate::budget::shared_retained_bytes().saturating_add(cached)
}

/// [`Pool::clear`](crate::Pool::clear) on every pool that has been used so far: every idle
/// value of the process is dropped now, without waiting for two trims. What
/// the [`trimmer`](crate::trimmer) does under memory pressure.
///
/// ```
/// use poolable::{Pool, clear_all};
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// drop(BUFS.get());
/// clear_all();
/// assert_eq!(BUFS.stats().retained, 0);
/// ```
pub fn clear_all() {
    step_all(Steps::CLEAR);
}

/// Every pool of the process that has been used and is still alive, in the
/// order of first use: derived types' pools (one per instantiation of a
/// generic type), statics, heap pools, and each class of a
/// [`BufferPool`](crate::BufferPool). A pool registers itself on first use
/// and leaves the list when it is dropped.
///
/// ```
/// use poolable::Pool;
///
/// static SCRATCH: Pool<Vec<u8>> = Pool::new().name("scratch");
/// drop(SCRATCH.get());
///
/// let scratch = poolable::pools().into_iter().find(|p| p.name() == "scratch").unwrap();
/// assert_eq!(scratch.stats().retained, 1);
/// ```
#[must_use]
pub fn pools() -> Vec<PoolInfo> {
    // Less the storages that lost the race to be their pool's. Bound
    // first: the registry's lock goes with this statement, not held over
    // the filter below, which can drop the last handle of a closed storage.
    let listed = alive(&registry(), |entry| entry.listed);
    listed
        .into_iter()
        .filter(|pool| !pool.core().is_closed())
        .map(|storage| PoolInfo { storage })
        .collect()
}

/// Every pool of [`pools`], by name, and the classes of a `BufferPool` by
/// capacity (their names, `name[capacity]`, would sort `[1048576]` before
/// `[262144]`).
fn by_name() -> Vec<PoolInfo> {
    let mut pools = pools();
    pools.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    pools
}

/// What pools do not pay, and what to change: one [`Advice`] per finding,
/// for every pool of [`pools`] (by name, as [`report`] lists them, which
/// prints them too). Read it after a realistic load; a healthy pool gets
/// none. Under `POOLABLE=off` or `POOLABLE=chaos` it is empty: the counters
/// then show the mode, not the workload.
///
/// A pool is judged once it has seen [`ADVICE_MIN_GETS`](crate::ADVICE_MIN_GETS)
/// gets (or as many returns), on these rules:
///
/// | finding ([`AdviceKind`](crate::AdviceKind)) | when | what it names |
/// | --- | --- | --- |
/// | `Oversize` | at least half the returns were dropped over the size cap | `max_bytes` at the size 95% of the dropped values' heap reached, rounded up to a power of two (a quarter more, for the value itself); or `max_bytes_auto`; for a `BufferPool`, its ceiling |
/// | `Full` | a hit rate under 90%, and at least 10% of returns dropped because the pool was full | `max_retained` at the bound in force divided by the hit rate (the values out at once, in a steady cycle), at least twice the bound, rounded up to a multiple of [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE) |
/// | `OtherThreads` | a hit rate under 50%, not from the two above, and at least half the returns made on threads beyond the values each took itself, and at least half as many returns as gets | that the returning threads' caches keep the values out of the getting threads' reach |
/// | `OutgrowsClass` | a `BufferPool` class with a hit rate under 50%, to which fewer than half the buffers taken came back | that they grow into a larger class: ask `get(n)` for the size they reach |
/// | `KeepsTooMuch` | at least 1 MiB idle, a hit rate of 50% or more, and at least 4 times as many idle values as the most seen out at once | `max_retained` at twice that, rounded up to a power of two (at least [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE)), or trimming |
/// | `MayNotPay` | the idle values own no heap memory, or a hit rate under 5% that none of the above explains | retention off, `max_retained(0)`, to compare |
///
/// "The most seen out at once" is sampled: each time the pool's counters
/// are summed ([`Pool::stats`](crate::Pool::stats), [`pools`], `advice`
/// itself) and at each trim. The pool records no true high-water mark (a
/// new peak can come from a get served by a thread cache, the path that
/// must stay cheapest), so a burst between two samples is missed. Nothing
/// else here costs a get or a return: the rest is the counters, and what
/// slow paths record (the sizes of values dropped over the cap, and each
/// thread's returns beyond its gets, read with its counters).
///
/// ```
/// use poolable::{AdviceKind, BufferPool};
///
/// // A pipe whose buffers reach 1 MiB, in classes that stop at 64 KiB.
/// static PIPE: BufferPool = BufferPool::new().name("advice-example-pipe");
///
/// for _ in 0..poolable::ADVICE_MIN_GETS {
///     let mut buf = PIPE.get(4096);
///     buf.reserve(1 << 20); // grows to 1 MiB as it is written
/// }
/// for advice in poolable::advice() {
///     println!("{advice}");
/// }
/// let advice = poolable::advice();
/// let top = advice.iter().find(|a| a.pool() == "advice-example-pipe[65536]").unwrap();
/// assert_eq!((top.kind(), top.value()), (AdviceKind::Oversize, Some(1 << 20)));
/// let small = advice.iter().find(|a| a.pool() == "advice-example-pipe[4096]").unwrap();
/// assert_eq!(small.kind(), AdviceKind::OutgrowsClass);
/// ```
#[must_use]
pub fn advice() -> Vec<Advice> {
    by_name()
        .iter()
        .flat_map(|pool| pool.advice(&pool.storage.core().observe()))
        .collect()
}

/// One pool in [`pools`]: its name and its live [`Stats`].
#[derive(Clone)]
pub struct PoolInfo {
    storage: Arc<dyn AnyStorage>,
}

impl PoolInfo {
    /// The pool's name: the type's name (`core::any::type_name`), or the
    /// one given with [`Pool::name`](crate::Pool::name).
    pub fn name(&self) -> &str {
        &self.storage.core().name
    }

    /// The pool's counters now (each call reads them afresh); once the
    /// pool is dropped, those it had then.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.storage.core().stats()
    }

    /// Name first; a `BufferPool`'s classes (`name[capacity]`) under their
    /// pool's name, by capacity.
    fn sort_key(&self) -> (&str, usize, &str) {
        let name = self.name();
        match self.storage.core().class {
            Some(capacity) => {
                let pool = name.rfind('[').map_or(name, |at| &name[..at]);
                (pool, capacity, name)
            }
            None => (name, 0, name),
        }
    }

    /// The findings for this pool in `seen`, none under the modes that
    /// make the counters meaningless for it.
    fn advice(&self, seen: &Observation) -> Vec<Advice> {
        match policy::mode() {
            Mode::Normal => advice::findings(self.name(), seen),
            Mode::Off | Mode::Chaos => Vec::new(),
        }
    }
}

impl fmt::Debug for PoolInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolInfo")
            .field("name", &self.name())
            .field("stats", &self.stats())
            .finish()
    }
}

/// A table of every pool for logs: one line per pool of [`pools`], by
/// name (a `BufferPool`'s classes by capacity), its name then its
/// [`Stats`], read when the report is formatted; then a line for each
/// finding of [`advice`](advice()), if any (`advice: pool: sentence`).
///
/// ```
/// use poolable::Pool;
///
/// static SESSIONS: Pool<String> = Pool::new().name("sessions");
/// drop(SESSIONS.get());
/// let report = poolable::report().to_string();
/// assert!(report.lines().any(|line| line.starts_with("sessions ") && line.contains("gets=1")));
/// ```
#[must_use]
pub fn report() -> Report {
    Report { pools: by_name() }
}

/// What [`report`] returns: `Display` it.
#[derive(Clone, Debug)]
pub struct Report {
    pools: Vec<PoolInfo>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.pools.iter().map(|p| p.name().len()).max().unwrap_or(0);
        let mut advice = Vec::new();
        for pool in &self.pools {
            let seen = pool.storage.core().observe();
            writeln!(f, "{:<width$} {}", pool.name(), seen.stats)?;
            advice.extend(pool.advice(&seen));
        }
        if !advice.is_empty() {
            writeln!(f)?;
        }
        for advice in advice {
            writeln!(f, "advice: {advice}")?;
        }
        Ok(())
    }
}

#[cfg(all(test, not(poolable_loom)))]
pub(crate) mod tests {
    use super::*;
    use crate::Pool;
    use crate::raw::fence::tests::heavy_fences_of;
    use std::sync::{Barrier, Mutex};

    /// Held by a test that trims every pool, and by one that counts a
    /// pool's idle values: a trim of every pool reaches every test's pools
    /// (a value idle across two is dropped), and a count read while it runs
    /// can be one value out.
    static EVERY_POOL: Mutex<()> = Mutex::new(());

    /// Hold [`EVERY_POOL`] (a test that panicked holding it leaves it
    /// poisoned, not broken).
    pub(crate) fn every_pool() -> std::sync::MutexGuard<'static, ()> {
        EVERY_POOL.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A trim of every pool makes a number of heavy fences (expedited
    /// `membarrier` calls, each of which interrupts every running thread of
    /// the process) that does not grow with threads or pools: one batch
    /// per `trim_all`. It made one per thread cache of each pool.
    #[test]
    fn a_trim_of_every_pool_makes_one_heavy_fence() {
        let _every_pool = every_pool();
        const THREADS: usize = 16;
        let pools: Arc<Vec<Pool<Vec<u8>>>> = Arc::new((0..4).map(|_| Pool::new()).collect());
        let parked = Arc::new(Barrier::new(THREADS + 1));
        let threads: Vec<_> = (0..THREADS)
            .map(|_| {
                let (pools, parked) = (Arc::clone(&pools), Arc::clone(&parked));
                std::thread::spawn(move || {
                    // A thread cache in every pool, holding a value. A
                    // return that panics is raised after the barriers, so
                    // the test fails at the join instead of waiting for
                    // this thread forever.
                    let filled = std::panic::catch_unwind(|| {
                        for pool in pools.iter() {
                            drop(pool.get());
                        }
                    });
                    parked.wait();
                    parked.wait();
                    if let Err(panic) = filled {
                        std::panic::resume_unwind(panic);
                    }
                })
            })
            .collect();
        parked.wait();
        let fences = heavy_fences_of(|| {
            trim_all();
            trim_all();
        });
        parked.wait();
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(fences <= 2, "{fences} heavy fences for two trim_all calls");
        // And the trims reached every parked thread's cache: two trims
        // dropped each idle value.
        for pool in pools.iter() {
            assert_eq!(pool.stats().retained, 0, "{}", pool.stats());
        }
    }
}
