//! The process-wide budget of retained bytes ([`set_retained_budget`]):
//! what the shared tier of every pool holds, added up. Checked when a value
//! enters a shard (a spill, a return without a thread cache, a prefill) and
//! enforced at [`trim_all`](crate::trim_all), never on the fast path.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// Plain std atomics even under loom: a global gauge the models do not
// explore, read and written with no ordering duties.
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
static USED: AtomicUsize = AtomicUsize::new(0);

/// Cap the bytes that all pools together keep in their shared tier
/// (`None`: no cap, the default). A value that would pass it when it
/// enters the shared tier is dropped instead (`Stats::dropped_full`); if
/// the shared tier already holds more (the budget was lowered),
/// [`trim_all`](crate::trim_all) (and so the trimmer) drops idle values
/// until it is back under, the oldest first: values idle since the last
/// trim, in every pool, before any that came back since.
///
/// Thread caches are outside the budget, so the fast path stays free: each
/// holds up to [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE) values per
/// thread and pool, until two trims reclaim them. Concurrent returns may
/// pass the budget by one value each.
///
/// ```
/// use poolable::Pool;
///
/// poolable::set_retained_budget(Some(64 << 20)); // 64 MiB for every pool's shared tier
/// static BUFS: Pool<Vec<u8>> = Pool::new();
/// drop(BUFS.get());
/// assert!(poolable::shared_retained_bytes() <= 64 << 20);
/// poolable::set_retained_budget(None);
/// ```
pub fn set_retained_budget(bytes: Option<usize>) {
    BUDGET.store(bytes.unwrap_or(usize::MAX), Relaxed);
    crate::registry::enforce_budget();
}

/// The bytes every pool's shared tier holds now, which
/// [`set_retained_budget`] caps.
pub fn shared_retained_bytes() -> usize {
    USED.load(Relaxed)
}

/// Whether `bytes` more fit in the budget.
pub(crate) fn admits(bytes: usize) -> bool {
    USED.load(Relaxed).saturating_add(bytes) <= BUDGET.load(Relaxed)
}

/// How far over the budget the shared tier is.
pub(crate) fn excess() -> usize {
    USED.load(Relaxed).saturating_sub(BUDGET.load(Relaxed))
}

pub(crate) fn add(bytes: usize) {
    USED.fetch_add(bytes, Relaxed);
}

pub(crate) fn sub(bytes: usize) {
    USED.fetch_sub(bytes, Relaxed);
}
