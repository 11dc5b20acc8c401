//! Every `unsafe` block of the crate, behind safe interfaces:
//!
//! - `erased`: lists of values that name their type only where a value
//!   goes in or out (the shared tier's, and what decay drops), and the
//!   moved values and places the thread tier passes without naming it;
//! - `fence`: the asymmetric fence pair (`membarrier(2)` on Linux);
//! - `owned`: [`Tenant`](owned::Tenant), the thread tier's owner/reclaimer
//!   protocol;
//! - `table`: each thread's table of its tenants, the fast-path lookup;
//! - `lease`: a thread cache's slots, and the leases that let a guard use
//!   its value where the cache keeps it;
//! - `once`: the cell a pool keeps its storage in, set once by a race;
//! - `memo`: the per-thread memo of generic derived types' pools;
//! - `rebuild`: move a lock or cell out of a `&mut` and put a fresh one,
//!   holding the same contents, back in its place;
//!
//! Each block carries a `// SAFETY:` note; the unit tests of the crate run
//! under Miri in CI (`cargo +nightly miri test -p pool-runtime --lib`), and
//! the protocol is model-checked with loom (`tests/loom.rs`).

pub(crate) mod erased;
pub(crate) mod fence;
pub(crate) mod lease;
pub(crate) mod memo;
pub(crate) mod once;
pub(crate) mod owned;
pub(crate) mod rebuild;
pub(crate) mod table;
