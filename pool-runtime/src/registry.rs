//! The global lists of pools: every pool that has been used (what
//! [`trim_all`] visits and [`pools`] lists), and the pools of generic derived
//! types.

use crate::Reset;
use crate::decay::{self, Stepping, Steps};
use crate::pool::Pool;
use crate::raw::memo;
use crate::raw::owned::{Fenced, Reclaim};
use crate::stats::Stats;
use crate::storage::Storage;
use crate::sync::{Arc, Weak};
use core::fmt;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError, RwLock};

// These globals use `std` locks even under loom: they are held for a few
// instructions, run no loom operation inside, and are not a path the models
// explore.

/// A pool's storage, whatever its type: what `trim_all` and `pools` need.
trait Registered: Send + Sync {
    /// Begin decay steps (a trim, a clear, or between them) in `reclaim`'s
    /// batch.
    fn begin_step(self: Arc<Self>, steps: Steps, reclaim: &Reclaim) -> Box<dyn Stepped>;
    fn name(&self) -> &str;
    fn stats(&self) -> Stats;
    fn is_closed(&self) -> bool;
    /// Drop idle values of the shared tier, the oldest first (victims only,
    /// or every list), until `bytes` are freed; returns the bytes freed.
    fn shed(&self, oldest_only: bool, bytes: usize) -> usize;
}

/// A pool's [`Stepping`], whatever its type.
trait Stepped {
    fn finish(&mut self, fenced: &Fenced);
    fn drop_dead(self: Box<Self>);
}

impl<T> Stepped for Stepping<T> {
    fn finish(&mut self, fenced: &Fenced) {
        Stepping::finish(self, fenced);
    }

    fn drop_dead(self: Box<Self>) {
        Stepping::drop_dead(*self);
    }
}

impl<T: Reset + Send + 'static> Registered for Storage<T> {
    fn begin_step(self: Arc<Self>, steps: Steps, reclaim: &Reclaim) -> Box<dyn Stepped> {
        Box::new(Stepping::begin(&self, steps, reclaim))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn stats(&self) -> Stats {
        Storage::stats(self)
    }

    fn is_closed(&self) -> bool {
        Storage::is_closed(self)
    }

    fn shed(&self, oldest_only: bool, bytes: usize) -> usize {
        let (dead, freed) = self.shards.shed(oldest_only, bytes);
        decay::drop_idle(self, dead);
        freed
    }
}

static POOLS: Mutex<Vec<Weak<dyn Registered>>> = Mutex::new(Vec::new());

/// Every registered pool still alive, in the order of first use.
fn live() -> Vec<Arc<dyn Registered>> {
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    pools.retain(|p| p.strong_count() > 0);
    pools.iter().filter_map(Weak::upgrade).collect()
}

/// Record a pool's storage for `trim_all`; called once, on first use.
pub(crate) fn register<T: Reset + Send + 'static>(storage: &Arc<Storage<T>>) {
    let weak: Weak<Storage<T>> = Arc::downgrade(storage);
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    pools.retain(|p| p.strong_count() > 0);
    pools.push(weak);
}

/// One decay step ([`Pool::trim`]) on every pool that has been used so far.
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
    let pools = live();
    // One batch for every pool: one heavy fence however many pools and
    // threads there are (`raw/owned.rs`); the values go after the batch.
    let reclaim = Reclaim::begin();
    let mut stepping: Vec<_> = pools
        .iter()
        .map(|pool| Arc::clone(pool).begin_step(steps, &reclaim))
        .collect();
    let fenced = reclaim.fence();
    for pool in &mut stepping {
        pool.finish(&fenced);
    }
    drop(fenced);
    for pool in stepping {
        pool.drop_dead();
    }
    drop(pools);
    enforce_budget();
}

/// Bring the shared tiers back under the retained budget, if they are over
/// it: the values idle since the last trim first, in every pool, then the
/// rest ([`set_retained_budget`](crate::set_retained_budget)).
pub(crate) fn enforce_budget() {
    if crate::budget::excess() == 0 {
        return;
    }
    let pools = live();
    for oldest_only in [true, false] {
        for pool in &pools {
            let excess = crate::budget::excess();
            if excess == 0 {
                return;
            }
            pool.shed(oldest_only, excess);
        }
    }
}

/// [`Pool::clear`] on every pool that has been used so far: every idle
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
pub fn pools() -> Vec<PoolInfo> {
    live()
        .into_iter()
        .filter(|pool| !pool.is_closed())
        .map(|storage| PoolInfo { storage })
        .collect()
}

/// One pool in [`pools`]: its name and its live [`Stats`].
#[derive(Clone)]
pub struct PoolInfo {
    storage: Arc<dyn Registered>,
}

impl PoolInfo {
    /// The pool's name: the type's name (`core::any::type_name`), or the
    /// one given with [`Pool::name`](crate::Pool::name).
    pub fn name(&self) -> &str {
        self.storage.name()
    }

    /// The pool's counters now (each call reads them afresh).
    pub fn stats(&self) -> Stats {
        self.storage.stats()
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

/// A table of every pool for logs: one line per pool of [`pools`], its name
/// then its [`Stats`], read when the report is formatted.
///
/// ```
/// use poolable::Pool;
///
/// static SESSIONS: Pool<String> = Pool::new().name("sessions");
/// drop(SESSIONS.get());
/// let report = poolable::report().to_string();
/// assert!(report.lines().any(|line| line.starts_with("sessions ") && line.contains("gets=1")));
/// ```
pub fn report() -> Report {
    Report { pools: pools() }
}

/// What [`report`] returns: `Display` it.
#[derive(Clone, Debug)]
pub struct Report {
    pools: Vec<PoolInfo>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.pools.iter().map(|p| p.name().len()).max().unwrap_or(0);
        for pool in &self.pools {
            writeln!(f, "{:<width$} {}", pool.name(), pool.stats())?;
        }
        Ok(())
    }
}

type PoolMap = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;

static GENERIC_POOLS: RwLock<Option<PoolMap>> = RwLock::new(None);

/// The static pool of a generic derived type, created on first use.
///
/// A `static` inside a generic function is shared by every instantiation, so
/// the derive cannot give `Wrapper<A>` and `Wrapper<B>` their own pools the
/// way it does for plain types. They live here instead, one leaked `Pool` per
/// concrete type, found through a small per-thread memo (no lock, no hash)
/// and, on a thread's first use of the type, a map keyed by `TypeId`.
#[doc(hidden)]
#[inline]
pub fn generic_pool<T: Reset + Send + 'static>(make: fn() -> Pool<T>) -> &'static Pool<T> {
    match memo::get::<Pool<T>>() {
        Some(pool) => pool,
        None => generic_pool_slow(make),
    }
}

#[cold]
#[inline(never)]
fn generic_pool_slow<T: Reset + Send + 'static>(make: fn() -> Pool<T>) -> &'static Pool<T> {
    let key = TypeId::of::<T>();
    let found = GENERIC_POOLS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|map| map.get(&key).copied());
    let any = match found {
        Some(pool) => pool,
        None => {
            // Build outside the lock: `make` is user-influenced code. If two
            // threads race here, the loser's pool is leaked unused: a few
            // words, once per type, never any values.
            let fresh: &'static Pool<T> = Box::leak(Box::new(make()));
            let mut map = GENERIC_POOLS
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            *map.get_or_insert_with(HashMap::new)
                .entry(key)
                .or_insert(fresh)
        }
    };
    match any.downcast_ref::<Pool<T>>() {
        Some(pool) => {
            memo::put(pool);
            pool
        }
        None => unreachable!("the generic pool registry is keyed by TypeId"),
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use crate::raw::fence::tests::heavy_fences_of;
    use std::sync::Barrier;

    /// A trim of every pool makes a number of heavy fences (expedited
    /// `membarrier` calls, each of which interrupts every running thread of
    /// the process) that does not grow with threads or pools: one batch
    /// per `trim_all`. It made one per thread cache of each pool.
    #[test]
    fn a_trim_of_every_pool_makes_one_heavy_fence() {
        const THREADS: usize = 16;
        let pools: Arc<Vec<Pool<Vec<u8>>>> = Arc::new((0..4).map(|_| Pool::new()).collect());
        let parked = Arc::new(Barrier::new(THREADS + 1));
        let threads: Vec<_> = (0..THREADS)
            .map(|_| {
                let (pools, parked) = (Arc::clone(&pools), Arc::clone(&parked));
                std::thread::spawn(move || {
                    // A thread cache in every pool, holding a value.
                    for pool in pools.iter() {
                        drop(pool.get());
                    }
                    parked.wait();
                    parked.wait();
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
