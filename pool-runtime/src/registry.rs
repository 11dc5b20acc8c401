//! The global lists of pools: the pools that [`trim_all`] visits, and the
//! pools of generic derived types.

use crate::Reset;
use crate::decay;
use crate::pool::Pool;
use crate::raw::memo;
use crate::storage::Storage;
use crate::sync::{Arc, Weak};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError, RwLock};

// These globals use `std` locks even under loom: they are held for a few
// instructions, run no loom operation inside, and are not a path the models
// explore.

/// Something `trim_all` can trim.
trait Trim: Send + Sync {
    fn trim(self: Arc<Self>);
}

impl<T: Reset + Send + 'static> Trim for Storage<T> {
    fn trim(self: Arc<Self>) {
        decay::step(&self, 1);
    }
}

static POOLS: Mutex<Vec<Weak<dyn Trim>>> = Mutex::new(Vec::new());

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
    let live: Vec<Arc<dyn Trim>> = {
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        pools.retain(|p| p.strong_count() > 0);
        pools.iter().filter_map(Weak::upgrade).collect()
    };
    for pool in live {
        pool.trim();
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
