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
static USED: AtomicUsize = AtomicUsize::new(0);

/// Set the budget (`usize::MAX`: none); the registry enforces it.
pub(crate) fn set_limit(bytes: usize) {
    BUDGET.store(bytes, Relaxed);
}

/// The bytes every pool's shared tier holds now: the part of
/// [`retained_bytes`](crate::retained_bytes) that each return into a shard
/// checks against [`set_retained_budget`](crate::set_retained_budget).
#[must_use]
pub fn shared_retained_bytes() -> usize {
    USED.load(Relaxed)
}

/// Whether `bytes` more fit in the budget.
#[inline]
pub(crate) fn admits(bytes: usize) -> bool {
    USED.load(Relaxed).saturating_add(bytes) <= BUDGET.load(Relaxed)
}

/// The budget in force (`usize::MAX`: none).
pub(crate) fn limit() -> usize {
    BUDGET.load(Relaxed)
}

#[inline]
pub(crate) fn add(bytes: usize) {
    USED.fetch_add(bytes, Relaxed);
}

#[inline]
pub(crate) fn sub(bytes: usize) {
    USED.fetch_sub(bytes, Relaxed);
}
