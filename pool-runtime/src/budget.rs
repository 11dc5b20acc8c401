//! The process-wide budget of retained bytes ([`set_retained_budget`]):
//! what every pool keeps idle, its shared tier and its thread caches, added
//! up. The shared tier checks it when a value enters a shard (a spill, a
//! return without a thread cache, a prefill); [`trim_all`](crate::trim_all)
//! and a change of the budget enforce it on every tier; the fast path never
//! looks at it.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// Plain std atomics even under loom: a global gauge the models do not
// explore, read and written with no ordering duties.
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
static USED: AtomicUsize = AtomicUsize::new(0);

/// Cap the bytes that all pools together keep idle (`None`: no cap, the
/// default), in their shared tiers and their thread caches.
///
/// - **Between trims**, a value that would pass it as it enters a shared
///   tier is dropped instead (`Stats::dropped_full`). Thread caches take
///   returns without looking, so that the fast path stays free: each holds
///   up to [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE) values of at most
///   [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES) per thread and
///   pool. Concurrent returns may pass the budget by one value each.
/// - **After a trim** ([`trim_all`](crate::trim_all), and so the trimmer)
///   and when the budget is set, [`retained_bytes`](crate::retained_bytes)
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
    BUDGET.store(bytes.unwrap_or(usize::MAX), Relaxed);
    crate::registry::enforce_budget();
}

/// The bytes every pool's shared tier holds now: the part of
/// [`retained_bytes`](crate::retained_bytes) that each return into a shard
/// checks against [`set_retained_budget`].
pub fn shared_retained_bytes() -> usize {
    USED.load(Relaxed)
}

/// Whether `bytes` more fit in the budget.
pub(crate) fn admits(bytes: usize) -> bool {
    USED.load(Relaxed).saturating_add(bytes) <= BUDGET.load(Relaxed)
}

/// The budget in force (`usize::MAX`: none).
pub(crate) fn limit() -> usize {
    BUDGET.load(Relaxed)
}

pub(crate) fn add(bytes: usize) {
    USED.fetch_add(bytes, Relaxed);
}

pub(crate) fn sub(bytes: usize) {
    USED.fetch_sub(bytes, Relaxed);
}
