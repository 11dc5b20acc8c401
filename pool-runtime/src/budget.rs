//! The process-wide budget of retained bytes
//! ([`set_retained_budget`](crate::set_retained_budget)), a gauge:
//! what every pool's shared tier keeps idle, added up (`retained_bytes`,
//! `registry.rs`, adds the thread caches). The shared tier checks it when a value enters a shard (a spill, a
//! return without a thread cache, a prefill); [`trim_all`](crate::trim_all)
//! and a change of the budget enforce it on every tier (`registry.rs`); the
//! fast path never looks at it.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// Plain std atomics even under loom: a global gauge the models do not
// explore, read and written with no ordering duties.
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The gauge, in stripes that add up to it (wrapping): each shard counts
/// its values in the stripe of its index ([`add`]), so threads that
/// spill to and refill from different shards, of any pools, write
/// different cache lines. With one counter for all of them, two threads
/// bursting on two pools took 30.3 ns per operation, against 25.4 ns
/// striped (`benches/bursts.rs`, medians of seven alternated rounds): the
/// line moved between their cores at each spill and refill. A shard adds
/// and takes out under its lock, in order, so no stripe goes below zero,
/// and a sum read stripe by stripe is at worst stale, never wrapped.
static USED: [Stripe; STRIPES] = [const { Stripe(AtomicUsize::new(0)) }; STRIPES];

/// How many stripes the gauge has.
const STRIPES: usize = 16;

/// One stripe of the gauge, on a cache line pair of its own (as
/// `CachePadded`).
#[repr(align(128))]
struct Stripe(AtomicUsize);

/// The gauge: the stripes' wrapping sum.
fn used() -> usize {
    USED.iter().fold(0usize, |sum, stripe| {
        sum.wrapping_add(stripe.0.load(Relaxed))
    })
}

/// Set the budget (`usize::MAX`: none); the registry enforces it.
pub(crate) fn set_limit(bytes: usize) {
    BUDGET.store(bytes, Relaxed);
}

/// The bytes every pool's shared tier holds now: the part of
/// [`retained_bytes`](crate::retained_bytes) that each return into a shard
/// checks against [`set_retained_budget`](crate::set_retained_budget).
#[must_use]
pub fn shared_retained_bytes() -> usize {
    used()
}

/// Whether `bytes` more fit in the budget. With none set, the stripes are
/// not read.
#[inline]
pub(crate) fn admits(bytes: usize) -> bool {
    let budget = BUDGET.load(Relaxed);
    budget == usize::MAX || used().saturating_add(bytes) <= budget
}

/// The budget in force (`usize::MAX`: none).
pub(crate) fn limit() -> usize {
    BUDGET.load(Relaxed)
}

/// Count `bytes` more, entering the shard of index `shard` (of any pool).
#[inline]
pub(crate) fn add(shard: usize, bytes: usize) {
    USED[shard % STRIPES].0.fetch_add(bytes, Relaxed);
}

/// Count `bytes` fewer, leaving the shard of index `shard`.
#[inline]
pub(crate) fn sub(shard: usize, bytes: usize) {
    USED[shard % STRIPES].0.fetch_sub(bytes, Relaxed);
}
