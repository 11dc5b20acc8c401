//! The two tiers where a pool's idle values wait. Nothing here knows `Pool`
//! or decay's schedule: it works on a pool's [`Storage`](storage::Storage),
//! and the pool (`pool.rs`), decay (`decay.rs`) and the registry
//! (`registry.rs`) drive it.
//!
//! - `thread`: the thread tier, each thread's cache of each pool (the fast
//!   path); it spills to and refills from the shared tier.
//! - `shared`: the shared tier, the shards and stealing.
//! - `storage`: what a pool allocates on first use: both tiers, its limits,
//!   its counters and its list of thread caches.

pub(crate) mod shared;
pub(crate) mod storage;
pub(crate) mod thread;
