//! The runtime's only `unsafe` code, kept small and in one place so it can be
//! read in one sitting and checked under Miri
//! (`cargo +nightly miri test -p pool-runtime raw::`).
//!
//! - `rebuild`: move a lock or cell out of a `&mut` and put a fresh one,
//!   holding the same contents, back in its place.

pub(crate) mod rebuild;
