//! The pools of generic derived types: one leaked [`Pool`] per concrete
//! type, found through a per-thread memo.

use crate::Reset;
use crate::pool::Pool;
use crate::raw::memo;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

// A `std` lock even under loom, as in `registry.rs`: held for a few
// instructions, no loom operation inside.

type PoolMap = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;

static GENERIC_POOLS: RwLock<Option<PoolMap>> = RwLock::new(None);

/// The static pool of a generic derived type, created on first use.
///
/// A `static` inside a generic function is shared by every instantiation, so
/// the derive cannot give `Wrapper<A>` and `Wrapper<B>` their own pools the
/// way it does for plain types. They live here instead, one leaked `Pool` per
/// concrete type, found through a small per-thread memo (no lock, no hash;
/// four types a thread, replaced round robin) and, when the memo does not
/// hold the type (a thread's first use of it, or a thread that uses more
/// generic types in turn than the memo holds), a map keyed by `TypeId`,
/// under a read lock.
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
