//! The runtime of [poolable](https://docs.rs/poolable): the [`Reset`] trait,
//! the [`Pool`] and its [`Pooled`] guard, the retention policy and the
//! sharded storage.
//!
//! Use it through the `poolable` crate, which re-exports everything here
//! together with `#[derive(Poolable)]`.
//!
//! Where things are, from the top down: each module uses only modules below
//! it in this list (`scripts/module_graph.py` checks that no two import each
//! other, directly or around a circle). A get runs down from `pool` into the
//! tiers; a return comes from the guard into `pool` and down again.
//! - `buffer`: [`BufferPool`], byte buffers by size class, one [`Pool`] per
//!   class.
//! - `generic`: the pools of generic derived types, one per concrete type.
//! - [`trimmer`]: the optional background trimmer.
//! - `export`: [`export_metrics`] (feature `metrics`), every pool's stats
//!   through the `metrics` facade.
//! - `http_body`: `PooledBody` and `PooledChunk` (feature `http-body`).
//! - `integrations`: `Reset` and friends for `bytes`, `smallvec`, `indexmap`,
//!   `hashbrown` and `Serialize` for `Pooled`, each behind a cargo feature.
//! - `pool`: [`Pool`] (get, put, trim, clear, stats), the size cap, and its
//!   guards [`Pooled`] and [`OwnedPooled`].
//! - `guard`: [`PoolGuard`], the guard itself, over [`PoolRef`], what it
//!   asks of the pool its value returns to (which the pool implements).
//! - `registry`: every pool used so far, seen through a type-erased view of
//!   its storage ([`pools`], [`report`], [`advice`](advice()), [`trim_all`],
//!   [`clear_all`], [`retained_bytes`], [`set_retained_budget`]).
//! - `advice`: the rules behind [`advice`](advice()), which say which pools do not
//!   pay and what to change ([`Advice`]).
//! - `decay`: the two-trim rule, over both tiers: when a step is due and
//!   how a batch of them reaches every thread cache.
//! - `tier/`: where idle values wait, knowing nothing of `Pool` nor of the
//!   value type (values of one `Kind`, moved as bytes: compiled once, not
//!   once per pooled type): `tier/thread.rs`, the thread tier, each
//!   thread's cache (the fast path); `tier/shared.rs`, the shared tier,
//!   shards and stealing; `tier/storage.rs`, what a pool allocates on first
//!   use, and the type-erased views of it and of its thread caches that
//!   decay and the registry work through.
//! - `autocap`: the adaptive size cap ([`Pool::max_bytes_auto`]).
//! - `budget`: the gauge of the process-wide retained budget
//!   ([`shared_retained_bytes`]).
//! - `policy`: the defaults ([`DEFAULT_MAX_BYTES`], [`LOCAL_CACHE_SIZE`]).
//! - `stats`: [`Stats`] and the counters.
//! - `fields`: what a derived [`Reset`] impl calls for the fields that their
//!   own `Reset` handles, passed as one tuple (`__private::reset((&mut
//!   this.a, &mut this.b))`): the derive names each field once per method.
//! - `recycle`: [`RecycleVec`] and [`RecycleOption`], containers whose reset
//!   keeps their elements (reset) for the next use.
//! - `reset`: [`Reset`] and its std impls; [`Shrink`] and [`Zeroize`], the
//!   rules behind the `max_capacity` and `zeroize` field attributes.
//! - `raw`: every `unsafe` block: the asymmetric fences, the owner/reclaimer
//!   protocol of the thread tier, the per-thread tables (with their
//!   mirror), the slots a guard leases its value in, the lists that hold
//!   values as erased data (the shared tier's), the cell a pool keeps its
//!   storage in, a value's move between two slots, and the rebuild of a
//!   lock or cell in place.
//! - `sync`: the std/loom switch.
//!
//! ```
//! use pool_runtime::Pool;
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//! BUFS.get().extend_from_slice(b"scratch");
//! assert!(BUFS.get().is_empty());
//! ```
// `export_metrics` exists only with the `metrics` feature: without it, the
// link above goes to the item's page on docs.rs (built with every feature),
// so `cargo doc` is clean with default features too.
#![cfg_attr(
    not(feature = "metrics"),
    doc = "\n[`export_metrics`]: https://docs.rs/pool-runtime/latest/pool_runtime/fn.export_metrics.html"
)]
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod advice;
mod autocap;
mod budget;
mod buffer;
mod decay;
#[cfg(feature = "metrics")]
mod export;
mod fields;
mod generic;
mod guard;
#[cfg(feature = "http-body")]
mod http_body;
mod integrations;
mod policy;
mod pool;
#[allow(unsafe_code)]
mod raw;
mod recycle;
mod registry;
mod reset;
mod stats;
mod sync;
mod tier;
#[cfg(not(poolable_loom))]
pub mod trimmer;

pub use advice::{ADVICE_MIN_GETS, Advice, AdviceKind};
pub use autocap::{AUTO_CAP_FLOOR, AUTO_CAP_WINDOW};
pub use budget::shared_retained_bytes;
pub use buffer::{BufferPool, ClassStats, PooledBuf};
#[cfg(feature = "metrics")]
pub use export::export_metrics;
pub use guard::{PoolGuard, PoolRef};
#[cfg(feature = "http-body")]
pub use http_body::{PooledBody, PooledChunk};
pub use policy::{
    ADAPTIVE_RETAINED_FACTOR, DEFAULT_MAX_BYTES, DEFAULT_RETAINED_PER_CPU, LOCAL_CACHE_MAX_BYTES,
    LOCAL_CACHE_SIZE, Oversize,
};
pub use pool::{OwnedPooled, Pool, Pooled};
pub use recycle::{RecycleOption, RecycleVec};
pub use registry::{
    PoolInfo, Report, advice, clear_all, pools, report, retained_bytes, set_retained_budget,
    trim_all,
};
pub use reset::{Reset, Shrink, Zeroize};
pub use stats::Stats;

/// A type with a static pool of its own, generated by `#[derive(Poolable)]`.
///
/// The derive implements it with a `static` [`Pool`] per type (its policy
/// from the container attributes `new`, `max_retained`, `max_bytes` (or
/// `"auto"`), `oversize` and `name`). Generic types
/// get one pool per concrete type, created on first use and found through a
/// small per-thread memo.
///
/// For a type without generic parameters, the derive also writes `pool()`
/// as an inherent function (hidden from the docs) that returns the same
/// pool, so `T::pool()` needs no `use poolable::Poolable` in scope. It is
/// also what keeps a `!Send` field to one error: a use of the pool adds
/// none of its own. So such a type cannot have an inherent `pool` of its
/// own.
///
/// ```
/// use poolable::Poolable;
///
/// #[derive(Poolable, Default)]
/// struct Request {
///     id: u64,
///     body: String,
/// }
///
/// let mut req = Request::pool().get();
/// req.id = 7;
/// req.body.push_str("secret");
/// drop(req);
///
/// let req = Request::pool().get();
/// assert_eq!((req.id, req.body.as_str()), (0, ""));
/// ```
pub trait Poolable: Reset + Send + Sized + 'static {
    /// The type's static pool.
    ///
    /// ```
    /// # use poolable::Poolable;
    /// # #[derive(Poolable, Default)] struct Scratch { buf: Vec<u8> }
    /// let pool = Scratch::pool();
    /// assert!(std::ptr::eq(pool, Scratch::pool()));
    /// ```
    fn pool() -> &'static Pool<Self>;
}

/// What the derive's generated code names; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::fields::{
        heap_bytes, is_reset, measure, reset, shrink_fields, shrink_heap, used_bytes,
    };
    pub use crate::generic::generic_pool;
    pub use crate::reset::Measure;
    pub use crate::reset::shrink_level;

    /// How a derived pool constructs a value when no `new = path` is given:
    /// `Default`, with a diagnostic that names the other way.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no `Default`, so its pool cannot construct one",
        label = "`{Self}` does not implement `Default`",
        note = "derive or implement `Default` for `{Self}`, or give the pool a constructor: `#[poolable(new = path)]`, where `path` is a `fn() -> {Self}`"
    )]
    pub trait NewByDefault: Sized {
        fn new_by_default() -> Self;
    }

    /// A derived struct's static pool, when the struct has no `new` and no
    /// policy attributes: `ManuallyDrop::new(Pool::with_new(..))` in one
    /// free function, which costs each derived type less to build than the
    /// two associated functions named in its `static` (a type-relative path
    /// is resolved, and its traits in scope looked up, once per body).
    #[inline]
    pub const fn pool_by_default<T: NewByDefault + crate::Reset + Send + 'static>()
    -> core::mem::ManuallyDrop<crate::Pool<T>> {
        core::mem::ManuallyDrop::new(crate::Pool::with_new(T::new_by_default))
    }

    #[diagnostic::do_not_recommend]
    impl<T: Default> NewByDefault for T {
        #[inline]
        fn new_by_default() -> Self {
            T::default()
        }
    }

    /// Every field of a `#[derive(Poolable)]` struct must be `Send`: the
    /// derive checks each field type with `<Field as SendField>::OK`, spanned
    /// on the field, so a `!Send` field is one error at that field (not a
    /// chain of errors about the pool's internals), saying why. (A field that
    /// has no `Reset` impl either is a second error, at the same field.)
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be sent to another thread, so a pooled struct cannot hold it",
        label = "`{Self}` is not `Send`",
        note = "a pool moves its values between threads: a value returned on one thread is handed out again on another through the pool's shared tier, and a guard may be dropped on a thread other than the one that took it; so a `Poolable` type, and every field of it, must be `Send`",
        note = "use a `Send` type instead (`Arc` for `Rc`, `Arc<Mutex<T>>` for `Rc<RefCell<T>>`), or keep the value on one thread: `#[derive(Reset)]` for the struct, and a `thread_local!` of your own that holds one and resets it between uses"
    )]
    pub trait SendField {
        /// Names the check: `<Field as SendField>::OK` compiles only for a
        /// `Send` field.
        const OK: bool = true;
    }

    #[diagnostic::do_not_recommend]
    impl<T: Send + ?Sized> SendField for T {}

    /// `<T as Checked<OK>>::Is` is `T`. `#[derive(Poolable)]` names the
    /// pool's type, and the `Reset` impl its fields' types, through it, with
    /// `OK` the constant that holds the fields' checks (`Reset`, `SendField`,
    /// the struct's `Default`): when a check fails, that constant is an
    /// error, so is every type that names it, and rustc reports nothing more
    /// about them. The failed check is then the only error, not the first
    /// of several (the static pool is not `Sync`, its constructor has
    /// unmet bounds, the `Reset` impl cannot call the field's).
    pub trait Checked<const OK: bool> {
        type Is: ?Sized;
    }

    impl<T: ?Sized, const OK: bool> Checked<OK> for T {
        type Is = T;
    }

    /// `(&IsReset(&field)).is_reset()`: the field type's `Reset::is_reset`
    /// if it has one, else `true` (autoref specialisation, for fields the
    /// derive resets with `with` or `default`).
    pub struct IsReset<'a, T: ?Sized>(pub &'a T);

    /// Picked first, when `T: Reset`.
    pub trait IsResetViaReset {
        fn is_reset(&self) -> bool;
    }

    impl<T: crate::Reset + ?Sized> IsResetViaReset for IsReset<'_, T> {
        #[inline]
        fn is_reset(&self) -> bool {
            self.0.is_reset()
        }
    }

    /// Picked otherwise: nothing to check with.
    pub trait IsResetFallback {
        #[inline]
        fn is_reset(&self) -> bool {
            true
        }
    }

    impl<T: ?Sized> IsResetFallback for &IsReset<'_, T> {}

    /// Do now what the calling thread's exit will do to its thread caches.
    /// For the loom models, whose `join` returns before thread-local
    /// destructors run.
    #[cfg(poolable_loom)]
    pub fn exit_thread_caches() {
        crate::raw::table::evict_all();
    }

    /// How many thread caches' slot allocations are alive, in every pool:
    /// for the loom models, which check that each is freed exactly once.
    #[cfg(poolable_loom)]
    pub fn live_slots() -> usize {
        crate::raw::lease::LIVE.load(core::sync::atomic::Ordering::SeqCst)
    }
}
