//! Decay: the two-trim rule, in one place.
//!
//! A trim is one decay step, the equivalent of one garbage collection for
//! Go's `sync.Pool`: a value idle across two consecutive trims is dropped,
//! and a value taken and returned between them survives. `clear` is two steps
//! at once, and medium memory pressure (`trimmer`) is two steps in the shards
//! and one in the thread caches ([`Steps`]). Both parts of a pool follow the same rule:
//!
//! - the shards keep `current` and `victim` lists: a step drops `victim` and
//!   demotes `current` (Go's `poolCleanup`);
//! - a thread cache keeps an `aged` prefix: a step drops it and marks the
//!   rest aged. A step is applied to a cache by the trimming thread itself
//!   when the cache's owner is between operations, and by the owner at its
//!   next operation otherwise (`raw/owned.rs`), so idle threads hold nothing
//!   after two trims. Values of a cache's own that another thread returned
//!   (handed back to their slots) and that it has not taken up yet are
//!   idle across the step that reaches the cache, as its listed ones are
//!   (`age` in `tier/thread.rs`).
//!
//! Each tier applies a step to itself (`Shards::step` in `tier/shared.rs`,
//! `age` in `tier/thread.rs`); this module, above both, decides when and
//! drives them over a pool's storage, and nothing in the tiers calls it.
//!
//! Steps are counted by the pool's generation. A cache records the
//! generation it was aged to, and each shard the generation it was last
//! stepped to. A batch a cache spills reaches the shards only if no step
//! began since (the pool's generation is still the cache's, checked under
//! each shard's lock), so a value idle before a `clear` cannot slip past it
//! into a shard. A refill takes only from shards stepped to the cache's
//! generation, so it cannot pull a shard's idle values, which a `clear` has
//! not swept yet, into a cache the clear has already aged.
//!
//! A value keeps its age as it moves between the tiers: a cache's aged
//! values spill among a shard's victims (among its current values if the
//! step under way has not reached that shard yet: it demotes them), and a
//! refill takes a shard's victims only first, into the cache's aged
//! prefix. Else a value idle across one trim that moved would start over,
//! and survive a third.
//!
//! Steps are made in batches (`raw/owned.rs`): a trim of every pool posts
//! its requests to every thread cache of every pool, runs one heavy fence,
//! then ages the caches whose owner is idle ([`Stepping`]).
//!
//! Idle values are dropped one at a time, outside every lock, each under
//! `catch_unwind`: a panicking `Drop` is counted (`Stats::drop_panics`) and
//! the rest of the batch, the other pools and the trimmer go on.

use crate::raw::owned::Reclaim;
use crate::stats::Event;
use crate::sync::{Arc, Ordering};
use crate::tier::shared::Dead;
use crate::tier::storage::{AnyStorage, Cache, Core};
use crate::tier::thread::drop_each;

/// How far one decay pass goes in each part of a pool: 1 step ages, 2
/// drop every idle value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    pub(crate) shards: u64,
    pub(crate) caches: u64,
}

impl Steps {
    /// A trim: one step everywhere.
    pub(crate) const TRIM: Steps = Steps {
        shards: 1,
        caches: 1,
    };
    /// Medium memory pressure: the shared tier lets go of every idle value,
    /// the thread caches (a few hot values per thread) take one step.
    pub(crate) const SHARED: Steps = Steps {
        shards: 2,
        caches: 1,
    };
    /// A clear: two steps everywhere.
    pub(crate) const CLEAR: Steps = Steps {
        shards: 2,
        caches: 2,
    };
    /// The retained budget, once the shared tier is empty: the thread
    /// caches let go of every idle value, the shards are left as they are.
    pub(crate) const CACHES: Steps = Steps {
        shards: 0,
        caches: 2,
    };
}

/// Decay steps on one pool (a [`Pool::trim`](crate::Pool::trim) or
/// [`clear`](crate::Pool::clear)): a batch of one.
pub(crate) fn step(storage: Arc<dyn AnyStorage>, steps: Steps) {
    step_each(|reclaim| vec![Stepping::begin(storage, steps, reclaim)]);
}

/// Decay steps on several pools in one batch ([`Reclaim`]): `begin` begins
/// each pool's part, then one heavy fence however many pools and threads
/// there are, then each finishes; the values let go of are dropped after
/// every lock is released.
pub(crate) fn step_each(begin: impl FnOnce(&Reclaim) -> Vec<Stepping>) {
    let reclaim = Reclaim::begin();
    let mut stepping = begin(&reclaim);
    let fenced = reclaim.fence();
    for pool in &mut stepping {
        for cache in &pool.caches {
            cache.age_if_idle(&fenced, &mut pool.dead);
        }
    }
    drop(fenced);
    for pool in stepping {
        pool.drop_dead();
    }
}

/// One pool's part of a batch of decay steps ([`Reclaim`]): begun before
/// the batch's fence, its thread caches aged after it (those whose owner
/// is between two operations; the others age themselves at their next
/// one), its values dropped after the batch's lock is released, so that a
/// value's `Drop` may use any pool (a clear of its own pool, the drop of
/// the last `Arc` of it, `trim_all`). Not generic: a pool's storage and
/// its thread caches are seen through their type-erased views.
pub(crate) struct Stepping {
    storage: Arc<dyn AnyStorage>,
    /// The pool's thread caches, each asked for the steps.
    caches: Vec<Arc<dyn Cache>>,
    /// What decay let go of, dropped by [`drop_dead`](Self::drop_dead).
    dead: Dead,
}

impl Stepping {
    /// Step the shards and post the steps to every thread cache.
    pub(crate) fn begin(storage: Arc<dyn AnyStorage>, steps: Steps, reclaim: &Reclaim) -> Self {
        let core = storage.core();
        // A sample for `advice()`; left out of the loom models, which check
        // the decay itself.
        #[cfg(not(poolable_loom))]
        core.note_held();
        let now = core.generation.fetch_add(steps.caches, Ordering::AcqRel) + steps.caches;
        let dead = core.shards.step(steps.shards, now);
        let caches = core.post_to_caches(reclaim);
        Stepping {
            storage,
            caches,
            dead,
        }
    }

    /// Outside every lock: drop what decay let go of, counted.
    fn drop_dead(self) {
        drop(self.caches);
        drop_idle(self.storage.core(), self.dead);
    }
}

/// Count idle values that decay (or the retained budget) let go of on the
/// pool's shared counters, then drop them.
pub(crate) fn drop_idle(storage: &Core, dead: Dead) {
    storage.count(Event::DroppedIdle, dead.len() as u64);
    drop_each(dead, &storage.counters);
}
