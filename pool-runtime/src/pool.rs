//! [`Pool`]: get, put, trim, clear and stats. A get goes to the thread tier
//! (`tier/thread.rs`), which refills from the shared tier (`tier/shared.rs`),
//! then to `new`; a return is reset and measured here (the size cap), then
//! kept by the thread tier, which spills to the shared tier. Decay is in
//! `decay.rs`.

use crate::Reset;
use crate::decay;
use crate::guard::{PoolGuard, sealed};
use crate::policy::{self, Limits, Oversize, Policy};
use crate::raw::erased::{self, Kind, Moving};
use crate::raw::lease::{Lease, RawLease};
use crate::raw::once::OnceArc;
use crate::registry;
use crate::reset::not_reset_named;
use crate::stats::{Event, Stats};
use crate::sync::Arc;
use crate::tier::storage::{Check, Storage, is_reset};
use crate::tier::thread;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ops::Deref;

/// A pool of reusable values of type `T`.
///
/// [`get`](Pool::get) hands out a [`Pooled`] guard; dropping the guard resets
/// the value and returns it. A value is reset exactly once before it can be
/// handed out again, is never held by two guards at once, and is dropped
/// instead of retained when it is too large, when the pool is full, or when
/// its guard is dropped during a panic.
///
/// A pool is usually a `static` (the constructor and the policy setters are
/// `const fn`), or, for a type with `#[derive(Poolable)]`, the one returned
/// by `T::pool()`.
///
/// # Policy
///
/// - **Size cap** ([`max_bytes`](Pool::max_bytes), default [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES)
///   = 64 KiB): a returned value whose [`Reset::heap_bytes`] plus
///   `size_of::<T>()` exceeds it is dropped (`Stats::dropped_oversize`).
/// - **Retention bound** ([`max_retained`](Pool::max_retained), default
///   `4 × CPUs × LOCAL_CACHE_SIZE`): each thread caches up to
///   `min(LOCAL_CACHE_SIZE, max_retained)` idle values, and the shared shards hold up to
///   `max_retained` minus that. So one thread alone never retains more than
///   `max_retained`; each further thread that uses the pool can hold one more
///   thread cache's worth. Values beyond it are dropped (`Stats::dropped_full`).
///   Without an explicit `max_retained` the bound adapts: a return that
///   finds every shard full doubles its home shard's room, up to
///   [`ADAPTIVE_RETAINED_FACTOR`](crate::ADAPTIVE_RETAINED_FACTOR) (8) times
///   the default, and each trim halves it back toward the default. An
///   explicit `max_retained` is fixed.
/// - **Idle decay** ([`trim`](Pool::trim)): a value idle across two
///   consecutive trims is dropped. Call [`trim_all`](crate::trim_all) from a
///   timer, or start the [`trimmer`](crate::trimmer).
///
/// # What the pool does not promise
///
/// - Which value a get returns, or that it returns a retained one at all: a
///   get may construct a new value while another thread's cache holds idle
///   ones.
/// - That the bound holds between trims when many threads use the pool:
///   each thread's cache can hold up to `LOCAL_CACHE_SIZE` values until the
///   next two trims reclaim them (a trim reaches every thread's cache, busy
///   threads' at their next operation).
/// - That a child process after `fork()` gets back what the parent's other
///   threads held. Only the forking thread runs in the child; the caches of
///   the others stay registered with the values they held. A trim in the
///   child reclaims the caches whose thread was between two operations at
///   the fork (where the heavy fence works in the child; where it fails,
///   it leaves them alone). A cache whose thread was inside an operation
///   stays busy for good and keeps its values, at most
///   [`LOCAL_CACHE_SIZE`](crate::LOCAL_CACHE_SIZE) per pool and
///   thread, until the child exits. Fork before the pools are used, or
///   exec, as with any threaded program.
///
/// # Example
///
/// ```
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes(64 << 10);
///
/// let mut buf = BUFS.get();
/// buf.extend_from_slice(b"user=ada secret=hunter2");
/// let first = buf.as_ptr();
/// drop(buf); // reset (cleared) and returned
///
/// let buf = BUFS.get();
/// assert!(buf.is_empty()); // no trace of the previous user
/// assert_eq!(buf.as_ptr(), first); // same allocation, reused
/// ```
pub struct Pool<T: 'static> {
    new: New<T>,
    core: PoolCore,
    /// `Pool<T>` is invariant in `T`, and must be: a `&Pool<W<for<'a>
    /// fn(&'a str)>>` taken as a `&Pool<W<fn(&'static str)>>` would let a
    /// value that holds a `'static`-only function into the pool, for a get
    /// of the wider type to take out (the storage hands values out by slot,
    /// not by type: `raw/lease.rs`). `New<T>` makes it so today; this says
    /// it whatever `New` becomes (`tests/ui/pool_is_invariant.rs`).
    invariant: PhantomData<fn(T) -> T>,
}

/// Everything of a [`Pool`] that does not name `T`, and the work on it:
/// compiled once, not once per pooled type (`scripts/derive_cost.py`).
struct PoolCore {
    policy: Policy,
    /// What [`pools`](crate::pools) calls it.
    name: Name,
    // A race (`raw/once.rs`) rather than `OnceLock`: its lazy init is
    // lock-free. Two threads that race on first use each allocate the
    // storage, one wins, and the other frees its copy: no thread ever blocks
    // behind another's initialisation, and a read is one acquire load.
    storage: OnceArc<Storage>,
    /// A copy of the storage's key, beside the policy: the fast path finds
    /// the thread's cache without reaching the storage first.
    key: thread::PoolKey,
}

/// What a pool's storage needs of its value type, `T`: asked for once, when
/// the storage is made ([`PoolCore::storage`]).
struct Meta {
    kind: Kind,
    check: Check,
}

impl Meta {
    fn of<T: Reset + Send + 'static>() -> Meta {
        Meta {
            kind: Kind::of::<T>(),
            check: Check {
                is_reset: is_reset::<T>,
                type_name: core::any::type_name::<T>(),
            },
        }
    }
}

impl PoolCore {
    /// The storage, made on first use from `meta`.
    #[inline(always)]
    fn storage(&self, meta: fn() -> Meta) -> &Arc<Storage> {
        match self.storage.get() {
            Some(storage) => storage,
            None => self.init_storage(meta),
        }
    }

    #[cold]
    #[inline(never)]
    fn init_storage(&self, meta: fn() -> Meta) -> &Arc<Storage> {
        let meta = meta();
        let limits = Limits::resolve(self.policy, policy::cpus(), meta.kind.size())
            .with_mode(policy::mode());
        let storage = Arc::new(Storage::new(
            limits,
            self.name.render(meta.check.type_name),
            self.name.class(),
            meta.kind,
            meta.check,
        ));
        // Registered before it is published, so that `trim_all` and
        // `clear_all` reach every storage a value can be in; listed by
        // `pools()` only once it has won the race (a loser's would show the
        // pool twice until it is dropped).
        registry::register(&storage);
        let made = Arc::as_ptr(&storage);
        #[cfg(all(test, not(poolable_loom)))]
        tests::hook(tests::Stage::Made);
        let storage = self.storage.set(storage);
        #[cfg(all(test, not(poolable_loom)))]
        tests::hook(tests::Stage::Published);
        if core::ptr::eq(Arc::as_ptr(storage), made) {
            registry::list(storage);
        }
        // After the race: every thread that got here copies the winner's key.
        self.key.set(&storage.key);
        storage
    }

    /// Count `event` on the calling thread's counters.
    fn count(&self, meta: fn() -> Meta, event: Event) {
        thread::count(self.storage(meta), event);
    }

    /// A return that could not be pushed onto the thread's cache
    /// (`tier::thread::give_cached`).
    #[cold]
    #[inline(never)]
    fn give_slow(&self, meta: fn() -> Meta, value: Moving<'_>, bytes: usize) {
        thread::give_cached(self.storage(meta), value, bytes);
    }

    /// A leased value whose slot could not be listed again
    /// (`tier::thread::give_lease_slow`).
    #[cold]
    #[inline(never)]
    fn give_lease_slow(&self, meta: fn() -> Meta, lease: RawLease, bytes: usize) {
        thread::give_lease_slow(self.storage(meta), lease, bytes);
    }

    /// The heap bytes to reserve ([`Reset::reserve_heap`]) in a value the
    /// pool has just made, of `value_size` bytes itself: the most common
    /// size an adaptive cap has learned, less the value; `None` without
    /// an adaptive cap, or before its first calibration. A miss and a
    /// prefill ([`Pool::reserve`]) both ask.
    fn presize(&self, value_size: usize) -> Option<usize> {
        let auto = self.storage.get()?.auto_cap.as_ref()?;
        match auto.common() {
            0 => None,
            common => Some(common.saturating_sub(value_size)),
        }
    }

    /// Keep `value`, reset, `bytes` big and within the cap: in the thread
    /// tier, or the shared tier if it is over
    /// [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES).
    fn keep(&self, storage: &Arc<Storage>, value: Moving<'_>, bytes: usize) {
        if bytes > crate::LOCAL_CACHE_MAX_BYTES {
            thread::give_shared(storage, value, bytes);
        } else {
            thread::keep_here(storage, value, bytes);
        }
    }
}

/// A pool's name in [`pools`](crate::pools) and [`report`](crate::report).
#[derive(Clone, Copy)]
pub(crate) enum Name {
    /// The type's name, `core::any::type_name::<T>()`.
    Type,
    /// Set with [`Pool::name`].
    Given(&'static str),
    /// A class of a `BufferPool` named so, of buffers of this capacity.
    Class(&'static str, usize),
}

impl Name {
    /// The name, `type_name` for [`Name::Type`]. (Not generic: it would be
    /// compiled once per pool type.)
    fn render(self, type_name: &'static str) -> Box<str> {
        match self {
            Name::Type => type_name.into(),
            Name::Given(name) => name.into(),
            Name::Class(name, capacity) => format!("{name}[{capacity}]").into(),
        }
    }

    /// The capacity of a `BufferPool` class's buffers.
    fn class(self) -> Option<usize> {
        match self {
            Name::Class(_, capacity) => Some(capacity),
            Name::Type | Name::Given(_) => None,
        }
    }
}

/// How a pool makes a value on a miss: a plain function (what `const`
/// constructors can hold) or a closure (heap pools built at run time). Only
/// a miss looks at it.
enum New<T> {
    Fn(fn() -> T),
    Closure(Box<dyn Fn() -> T + Send + Sync>),
}

impl<T> New<T> {
    fn call(&self) -> T {
        match self {
            New::Fn(new) => new(),
            New::Closure(new) => new(),
        }
    }
}

impl<T: Reset + Default + Send + 'static> Pool<T> {
    /// A pool that constructs values with `T::default()` when it has none idle.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// static NAMES: Pool<String> = Pool::new();
    /// assert!(NAMES.get().is_empty());
    /// ```
    pub const fn new() -> Self {
        Self::with_new(T::default)
    }
}

impl<T: Reset + Default + Send + 'static> Default for Pool<T> {
    /// Same as [`Pool::new`].
    ///
    /// ```
    /// let pool: poolable::Pool<Vec<u32>> = Default::default();
    /// assert!(pool.get().is_empty());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// A pool that constructs values with `new` when it has none idle, for
    /// types without `Default` or for pre-sized values.
    ///
    /// A pre-sized value must fit under the size cap (its heap bytes plus
    /// `size_of::<T>()`), or every return drops it; raise the cap to match:
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// fn one_mib() -> Vec<u8> {
    ///     Vec::with_capacity(1 << 20)
    /// }
    /// static BIG: Pool<Vec<u8>> = Pool::with_new(one_mib).max_bytes(2 << 20);
    ///
    /// drop(BIG.get());
    /// assert_eq!(BIG.stats().dropped_oversize, 0);
    /// assert!(BIG.get().capacity() >= 1 << 20);
    /// ```
    pub const fn with_new(new: fn() -> T) -> Self {
        Self::built_by(New::Fn(new))
    }

    /// A pool that constructs values with the closure `new`, which may
    /// capture its configuration: for a pool built at run time (a `static`
    /// needs [`with_new`](Pool::with_new) and a plain function). Only a miss
    /// calls it, so a hit costs the same either way.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let size = 16 << 10; // from the configuration
    /// let pool = Pool::from_fn(move || Vec::<u8>::with_capacity(size));
    /// assert!(pool.get().capacity() >= size);
    /// ```
    pub fn from_fn(new: impl Fn() -> T + Send + Sync + 'static) -> Self {
        Self::built_by(New::Closure(Box::new(new)))
    }

    /// A pool with the default policy whose misses call `new`.
    const fn built_by(new: New<T>) -> Self {
        Pool {
            new,
            invariant: PhantomData,
            core: PoolCore {
                policy: Policy::DEFAULT,
                name: Name::Type,
                storage: OnceArc::new(),
                key: thread::PoolKey::new(),
            },
        }
    }

    /// Retain at most about `n` idle values (see the policy section above for
    /// the exact bound). `0` turns retention off: every return is dropped.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new().max_retained(1);
    /// let (a, b) = (pool.get(), pool.get());
    /// drop(a);
    /// drop(b);
    /// assert_eq!(pool.stats().retained, 1);
    /// assert_eq!(pool.stats().dropped_full, 1);
    /// ```
    #[must_use]
    pub const fn max_retained(mut self, n: usize) -> Self {
        self.core.policy.max_retained = Some(n);
        self
    }

    /// Drop, instead of retaining, any returned value whose
    /// [`Reset::heap_bytes`] plus `size_of::<T>()` (the pool's own storage of
    /// it) exceeds `bytes`. `usize::MAX` disables the cap.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new().max_bytes(1024);
    /// pool.get().reserve(4096);
    /// assert_eq!(pool.stats().dropped_oversize, 1);
    /// assert_eq!(pool.stats().retained, 0);
    /// ```
    #[must_use]
    pub const fn max_bytes(mut self, bytes: usize) -> Self {
        self.core.policy.set_max_bytes(bytes);
        self
    }

    /// Let the size cap adapt to the sizes actually returned, as
    /// valyala/bytebufferpool does: every [`AUTO_CAP_WINDOW`](crate::AUTO_CAP_WINDOW)
    /// returns, the cap becomes twice the smallest power-of-two class that
    /// covers 95% of what they used ([`Reset::used_bytes`] plus
    /// `size_of::<T>()`), less one byte: room for a buffer that grew by
    /// doubling to hold such a use. Uses of 10,000 bytes (the 8 to 16 KiB
    /// class) give a cap of 32 KiB - 1. It stays between
    /// [`AUTO_CAP_FLOOR`](crate::AUTO_CAP_FLOOR) and
    /// [`max_bytes`](Pool::max_bytes) (the ceiling), rises at once and
    /// lowers only when two windows in a row ask for less. A value the pool
    /// constructs gets the most common size reserved
    /// ([`Reset::reserve_heap`]), so new buffers start at the size most
    /// uses reach.
    ///
    /// The cost: each return of such a pool records its size on shared
    /// counters (two relaxed atomic adds) and takes the pool's cold return
    /// path. Other pools pay one predictable branch per return. [`max_bytes_now`](Pool::max_bytes_now)
    /// reads the cap in force.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes_auto().max_bytes(1 << 20);
    ///
    /// for _ in 0..2 * poolable::AUTO_CAP_WINDOW {
    ///     BUFS.get().extend_from_slice(&[0; 100]); // small uses only
    /// }
    /// assert_eq!(BUFS.max_bytes_now(), poolable::AUTO_CAP_FLOOR);
    /// for _ in 0..poolable::AUTO_CAP_WINDOW {
    ///     BUFS.get().extend_from_slice(&[0; 10_000]); // larger uses: it rises at once
    /// }
    /// assert_eq!(BUFS.max_bytes_now(), (32 << 10) - 1); // twice their class, 8 to 16 KiB
    /// ```
    #[must_use]
    pub const fn max_bytes_auto(mut self) -> Self {
        self.core.policy.auto_cap = true;
        self
    }

    /// The size cap in force: [`max_bytes`](Pool::max_bytes), or the
    /// calibrated cap of a [`max_bytes_auto`](Pool::max_bytes_auto) pool.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new().max_bytes(1024);
    /// assert_eq!(pool.max_bytes_now(), 1024);
    /// ```
    pub fn max_bytes_now(&self) -> usize {
        // An unused pool's is the one it will start with (an adaptive cap
        // starts at its ceiling): a reading makes no storage.
        match self.core.storage.get() {
            Some(storage) => storage.max_bytes(),
            None => self.core.policy.max_bytes,
        }
    }

    /// What to do with a returned value over the size cap: drop it (the
    /// default) or shrink it under the cap and keep it. See [`Oversize`] for
    /// when each is right.
    ///
    /// ```
    /// use poolable::{Oversize, Pool};
    ///
    /// static BODIES: Pool<String> = Pool::new().max_bytes(1024).oversize(Oversize::Shrink);
    ///
    /// BODIES.get().push_str(&"x".repeat(10_000));
    /// assert_eq!(BODIES.stats().shrunk, 1);
    /// assert!(BODIES.get().capacity() <= 1024);
    /// ```
    #[must_use]
    pub const fn oversize(mut self, policy: Oversize) -> Self {
        self.core.policy.oversize = policy;
        self
    }

    /// What the storage needs of `T`.
    const META: fn() -> Meta = Meta::of::<T>;

    /// Take a value: an idle one if there is one, else a new one.
    ///
    /// Never fails and never waits for a value: a miss constructs one. (Its
    /// slow paths take locks held for a few instructions, never across user
    /// code.) The value is reset (a returned value) or fresh (a new one).
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new();
    /// let mut buf = pool.get();
    /// buf.push(1);
    /// assert_eq!(*buf, [1]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the constructor (`Default::default`, `with_new`'s function,
    /// `from_fn`'s closure) panics on a miss. The panic propagates and the
    /// pool is as it was; the stats balance the miss with a
    /// `dropped_panic`.
    #[inline(always)]
    #[must_use = "a value taken and dropped at once goes straight back; `reserve` prefills a pool"]
    pub fn get(&self) -> Pooled<'_, T> {
        match self.take() {
            Some(lease) => PoolGuard::leased(self, lease),
            None => PoolGuard::inline(self, self.take_slow()),
        }
    }

    /// [`get`](Pool::get) for a pool behind an [`Arc`]: the
    /// guard holds a clone of the `Arc` instead of a borrow, so it is
    /// `'static` and can be moved into a spawned thread or task. It behaves
    /// exactly like the guard `get` returns.
    ///
    /// ```
    /// use poolable::Pool;
    /// use std::sync::Arc;
    ///
    /// let pool = Arc::new(Pool::<String>::new());
    /// let mut name = pool.get_owned();
    /// name.push_str("ada");
    /// std::thread::spawn(move || assert_eq!(*name, "ada")).join().unwrap();
    /// assert_eq!(pool.stats().puts, 1);
    /// ```
    #[inline]
    pub fn get_owned(self: &std::sync::Arc<Self>) -> OwnedPooled<T> {
        let pool = std::sync::Arc::clone(self);
        match self.take() {
            Some(lease) => PoolGuard::leased(pool, lease),
            None => PoolGuard::inline(pool, self.take_slow()),
        }
    }

    /// An idle value leased in its thread cache's slot; `None` sends the
    /// caller to [`take_slow`](Self::take_slow). A key past the table's
    /// mirror finds its cache through the table's list, out of line.
    #[inline(always)]
    pub(crate) fn take(&self) -> Option<Lease<T>> {
        let found = match thread::take(&self.core.key) {
            Some(lease) => Some(lease),
            None => thread::take_far(&self.core.key),
        };
        match found {
            // Always a `T`: the cache is this pool's storage's, of `T`s.
            Some(lease) => lease.typed::<T>(),
            None => None,
        }
    }

    /// [`take`](Self::take) when the thread's cache had nothing to lease
    /// (`tier::thread::take_cached`): an idle value, else a new one. Also a
    /// large `BufferPool` get's, whose class keeps nothing in a thread cache.
    /// Returned by value: a slot of the caller's passed in here was memory
    /// whose address escaped, and the fast path then read it back to see
    /// whether it needed dropping (5 instructions per get).
    #[cold]
    #[inline(never)]
    pub(crate) fn take_slow(&self) -> T {
        let found = erased::fill_with::<T, _>(self.core.storage(Self::META), thread::take_cached);
        match found {
            Some(value) => value,
            None => self.create(),
        }
    }

    /// A miss: construct a value. A panicking constructor leaves the pool
    /// as it was; the counted miss is balanced by a `dropped_panic`.
    #[cold]
    fn create(&self) -> T {
        let on_panic = CountOnUnwind(&self.core, Self::META);
        // A `match`, not a method of `New`: one function less per type.
        let mut value = match &self.new {
            New::Fn(new) => new(),
            // Through the `dyn Fn` itself: calling the `Box` compiles its `Fn`
            // impl once more for each pooled type.
            New::Closure(new) => (**new)(),
        };
        if let Some(heap) = self.core.presize(const { size_of::<T>() }) {
            value.reserve_heap(heap);
        }
        core::mem::forget(on_panic);
        value
    }

    /// Reset `value` and keep it for reuse, or drop it as the policy says.
    ///
    /// The value need not have come from this pool. Dropping a [`Pooled`]
    /// does the same.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// pool.put(String::from("left over"));
    /// assert!(pool.get().is_empty()); // reset before reuse
    /// assert_eq!(pool.stats().misses, 0);
    /// ```
    ///
    /// # Panics
    ///
    /// When user code run on the value panics: its `Reset::reset`,
    /// `heap_bytes` or `shrink_heap`. And, in debug builds and under
    /// `POOLABLE=chaos`, when the value is not reset after its reset
    /// ([`Reset::is_reset`] is false: a reset that leaves one user's data
    /// for the next). Either way the value is dropped, counted as a
    /// `dropped_panic`, and the pool stays usable. Dropping a [`Pooled`]
    /// panics in the same cases, unless its thread is already panicking.
    #[inline]
    pub fn put(&self, value: T) {
        thread::count(self.core.storage(Self::META), Event::External);
        self.put_from(&mut Some(value));
    }

    /// Reset and keep (or drop) the value in `slot`, leaving `None`, also
    /// when it unwinds (the guards' return, `sealed::Home::put_from`).
    #[inline]
    pub(crate) fn put_from(&self, slot: &mut Option<T>) {
        sealed::Home::put_from(&self, slot);
    }

    /// `put_lease` out of the slot: for a pool with an adaptive cap (not
    /// reset yet, `reset` is `None`), on as [`put_measured`](Self::put_measured);
    /// over the thread caches' limit (reset, `reset` bytes big), on as
    /// [`put_capped`](Self::put_capped).
    #[cold]
    #[inline(never)]
    fn put_lease_out(&self, lease: Lease<T>, reset: Option<usize>) {
        let slot = &mut Some(lease.take());
        match reset {
            None => self.put_measured(slot),
            Some(bytes) => self.put_capped(slot, bytes, self.core.policy.max_bytes),
        }
    }

    /// Reset the value in `slot` and return its size for the cap. Under
    /// [`DiscardOnUnwind`]: a panicking reset drops the value, counted.
    #[inline(always)]
    fn reset(&self, slot: &mut Option<T>) -> usize {
        let mut on_panic = DiscardOnUnwind {
            core: &self.core,
            meta: Self::META,
            slot,
            armed: true,
        };
        // `match`es, not `Option::map_or` and a closure or `as_mut`, here
        // and below: one instance less of each per pooled type in a debug
        // build.
        let bytes = match &mut *on_panic.slot {
            Some(value) => reset_value(value),
            None => 0,
        };
        on_panic.armed = false;
        bytes
    }

    /// `put_from` for a pool with an adaptive cap: record what the value's
    /// contents used (before the reset forgets it), then hold it to the
    /// calibrated cap.
    #[cold]
    #[inline(never)]
    fn put_measured(&self, slot: &mut Option<T>) {
        let Some(_) = slot else {
            return;
        };
        let used = {
            let mut on_panic = DiscardOnUnwind {
                core: &self.core,
                meta: Self::META,
                slot,
                armed: true,
            };
            let used = match &*on_panic.slot {
                Some(value) => T::used_bytes(value),
                None => 0,
            };
            on_panic.armed = false;
            used.saturating_add(const { size_of::<T>() })
        };
        let bytes = self.reset(slot);
        let cap = match &self.core.storage(Self::META).auto_cap {
            Some(auto) => auto.record(used),
            None => self.core.policy.max_bytes,
        };
        self.put_capped(slot, bytes, cap);
    }

    /// A return that is not for the thread cache's fast path (`slot` holds
    /// the reset value, `bytes` big): over `cap`, the size cap, shrink it
    /// and keep it if the policy says so and it then fits, else drop it
    /// (its size recorded for `advice()`); within it, keep it, in the shared
    /// tier if it is over [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES).
    #[cold]
    #[inline(never)]
    fn put_capped(&self, slot: &mut Option<T>, mut bytes: usize, cap: usize) {
        let storage = self.core.storage(Self::META);
        if bytes > cap {
            let cap = storage.max_bytes();
            let mut shrunk = usize::MAX;
            if self.core.policy.oversize == Oversize::Shrink {
                let mut on_panic = DiscardOnUnwind {
                    core: &self.core,
                    meta: Self::META,
                    slot,
                    armed: true,
                };
                if let Some(value) = &mut *on_panic.slot {
                    T::shrink_heap(value, cap.saturating_sub(const { size_of::<T>() }));
                    shrunk = T::heap_bytes(value).saturating_add(const { size_of::<T>() });
                }
                on_panic.armed = false;
            }
            if shrunk > cap {
                thread::count(storage, Event::Put);
                thread::count(storage, Event::DroppedOversize);
                storage.record_oversize(bytes);
                *slot = None;
                return;
            }
            thread::count(storage, Event::Shrunk);
            bytes = shrunk;
        }
        if let Some(value) = slot.take() {
            let mut place = const { MaybeUninit::uninit() };
            self.core
                .keep(storage, Moving::new(&mut place, value), bytes);
        }
    }

    /// Construct up to `n` values now and keep them idle, so that the first
    /// burst of gets does not miss (opool's `new_prefilled`, Commons Pool's
    /// `minIdle`). Returns how many it kept.
    ///
    /// The values go to the shared shards, where any thread's first get
    /// finds them, and it stops early when the shards are full: the thread
    /// caches fill from use, so at most `max_retained` minus one thread
    /// cache are kept. Each value is counted in `Stats::prefilled` (not as a
    /// miss: no get waited for it), so the [`Stats`] identity stays exact.
    /// Each is made as a miss makes one: by the constructor, and, in a
    /// [`max_bytes_auto`](Pool::max_bytes_auto) pool, pre-sized to the
    /// most common use ([`Reset::reserve_heap`]).
    /// A value over the size cap is dropped (`dropped_oversize`) and ends
    /// the prefill. Prefilled values decay like any idle value: two trims
    /// before a get takes them, and they are gone. A panicking constructor,
    /// `reserve_heap` or `heap_bytes` propagates; the values made before it
    /// are kept, and the one it panicked on is dropped, not counted.
    ///
    /// # Panics
    ///
    /// When the constructor, `reserve_heap` or `heap_bytes` panics, as
    /// above.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::from_fn(|| Vec::with_capacity(4096));
    /// assert_eq!(pool.reserve(16), 16);
    /// for _ in 0..16 {
    ///     drop(pool.get());
    /// }
    /// let stats = pool.stats();
    /// assert_eq!((stats.prefilled, stats.misses), (16, 0));
    /// assert_eq!(stats.unaccounted(0, 0), 0);
    /// ```
    pub fn reserve(&self, n: usize) -> usize {
        let storage = self.core.storage(Self::META);
        let mut kept = 0;
        while kept < n && storage.shards.has_room() {
            let mut value = self.new.call();
            // Made at the common size, as a miss makes it.
            if let Some(heap) = self.core.presize(const { size_of::<T>() }) {
                value.reserve_heap(heap);
            }
            // Measured before it is counted: `heap_bytes` is user code, and
            // if it unwinds the value, dropped, never was the pool's (as one
            // whose constructor unwinds).
            let bytes = size_of_kept(&value);
            storage.count(Event::Prefilled, 1);
            if bytes > storage.max_bytes() {
                storage.count(Event::DroppedOversize, 1);
                storage.record_oversize(bytes);
                drop(value);
                break;
            }
            let mut place = const { MaybeUninit::uninit() };
            match storage
                .shards
                .push(0, Moving::new(&mut place, value), bytes)
            {
                Ok(()) => kept += 1,
                Err(value) => {
                    // Another thread filled the last room first.
                    storage.count(Event::DroppedFull, 1);
                    drop(value);
                    break;
                }
            }
        }
        kept
    }

    /// An idle value from the shared tier, counted as `event` (a get, or
    /// `DroppedIdle` for one the caller lets go of); `None`, and nothing
    /// counted, if it has none (`tier::thread::take_idle`). A pool not used
    /// yet has none, and stays unused (it does not register).
    pub(crate) fn take_idle(&self, event: Event) -> Option<T> {
        let storage = self.core.storage.get()?;
        erased::fill_with::<T, _>((storage, event), |(storage, event), out| {
            thread::take_idle(storage, event, out)
        })
    }

    /// How many idle values the shared tier holds now (it locks each shard
    /// in turn: for slow paths).
    pub(crate) fn idle_shared(&self) -> usize {
        self.core
            .storage
            .get()
            .map_or(0, |storage| storage.shards.retained().0)
    }

    /// Count a get that the caller serves with a value made outside the
    /// pool (a miss).
    pub(crate) fn count_fresh(&self) {
        let storage = self.core.storage(Self::META);
        thread::count(storage, Event::Get);
        thread::count(storage, Event::Miss);
    }

    /// The name [`pools`](crate::pools) and [`report`](crate::report) show
    /// for this pool; by default, the type's name
    /// (`core::any::type_name::<T>()`).
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// static UPLOADS: Pool<Vec<u8>> = Pool::new().name("uploads");
    /// drop(UPLOADS.get());
    /// assert!(poolable::pools().iter().any(|p| p.name() == "uploads"));
    /// ```
    #[must_use]
    pub const fn name(mut self, name: &'static str) -> Self {
        self.core.name = Name::Given(name);
        self
    }

    /// Name a class of a `BufferPool`.
    pub(crate) const fn set_class_name(&mut self, pool: &'static str, capacity: usize) {
        self.core.name = Name::Class(pool, capacity);
    }

    /// The size cap, for a container of pools whose setters are `const`.
    pub(crate) const fn set_max_bytes(&mut self, bytes: usize) {
        self.core.policy.set_max_bytes(bytes);
    }

    /// The most values a thread cache keeps (at most `LOCAL_CACHE_SIZE`),
    /// for a container of pools whose setters are `const`.
    pub(crate) const fn set_local_cache_size(&mut self, values: usize) {
        self.core.policy.local_cache_size = if values < policy::LOCAL_CACHE_SIZE {
            values
        } else {
            policy::LOCAL_CACHE_SIZE
        };
    }

    /// Give the thread caches slots for their idle values only, none
    /// spare for leases (a `BufferPool`'s classes, `Policy::spare_slots`).
    pub(crate) const fn set_no_spare_slots(&mut self) {
        self.core.policy.spare_slots = false;
    }

    /// Count a value that leaves the pool's accounting without being
    /// returned: detached, or dropped during a panic.
    #[inline]
    pub(crate) fn count_unreturned(&self, event: Event) {
        self.core.count(Self::META, event);
    }

    /// A snapshot of the counters. See [`Stats`] for what is exact.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new();
    /// let a = pool.get();
    /// let b = pool.get();
    /// drop((a, b));
    /// let stats = pool.stats();
    /// assert_eq!(stats.misses, 2);
    /// assert_eq!(stats.retained, 2);
    /// ```
    #[must_use]
    pub fn stats(&self) -> Stats {
        match self.core.storage.get() {
            Some(storage) => storage.stats(),
            None => Stats::default(),
        }
    }

    /// One decay step, the equivalent of one garbage collection for Go's
    /// `sync.Pool`: values idle since the previous trim are dropped, and the
    /// values idle now become candidates for the next one. A value taken and
    /// returned between two trims survives them.
    ///
    /// Every thread's cache is aged too: at once if its thread is between two
    /// operations on the pool, else by that thread at its next one. So after
    /// two trims a thread that no longer uses the pool holds nothing of it.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new();
    /// drop(pool.get());
    /// pool.trim();
    /// assert_eq!(pool.stats().retained, 1); // idle across one trim: kept
    /// pool.trim();
    /// assert_eq!(pool.stats().retained, 0); // idle across two: dropped
    /// ```
    pub fn trim(&self) {
        if let Some(storage) = self.core.storage.get() {
            decay::step(Arc::<Storage>::clone(storage), decay::Steps::TRIM);
        }
    }

    /// Drop every idle value now: the shards' and every idle thread's cache
    /// at once. A thread in the middle of an operation on the pool drops its
    /// cache's values at its next one. After `clear` returns, no get on any
    /// thread hands out a value that was idle before it.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<String> = Pool::new();
    /// drop(pool.get());
    /// pool.clear();
    /// assert_eq!(pool.stats().retained, 0);
    /// assert_eq!(pool.stats().dropped_idle, 1);
    /// ```
    pub fn clear(&self) {
        if let Some(storage) = self.core.storage.get() {
            decay::step(Arc::<Storage>::clone(storage), decay::Steps::CLEAR);
        }
    }
}

// ---------------------------------------------------------------------------
// The guards of a `Pool`: the pool is what a `PoolGuard` returns its value
// to (`guard.rs`).
// ---------------------------------------------------------------------------

/// A value borrowed from a [`Pool`]; dropping it resets the value and returns
/// it to the pool.
///
/// The guard is the only way to reach the value, and the borrow checker ends
/// every reference into it before the guard is dropped, so no slice or
/// reference taken from a pooled value can outlive its return: the
/// use-after-put bug of Go's `sync.Pool` does not compile.
///
/// ```compile_fail
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// let mut buf = BUFS.get();
/// buf.extend_from_slice(b"user=bob");
/// let name: &[u8] = &buf[5..];
/// drop(buf); // error: cannot move out of `buf` because it is borrowed
/// println!("{name:?}");
/// ```
///
/// If the guard is dropped while its thread is panicking, the value is
/// dropped instead of returned (`Stats::dropped_panic`): the panic may have
/// left it half-written. It is dropped in place, where the guard holds it,
/// so the wipe of its `zeroize` fields reaches the guard's own memory (a
/// guard in a `Box`, a `Vec` or an async task included), not a moved copy.
/// A guard is `Send` when `T` is, so a value may be taken on one thread and
/// returned from another.
///
/// ```
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// let mut buf = BUFS.get();
/// buf.extend_from_slice(b"hello");
/// std::thread::spawn(move || assert_eq!(&buf[..], b"hello")).join().unwrap();
/// assert_eq!(BUFS.stats().puts, 1);
/// ```
pub type Pooled<'a, T> = PoolGuard<T, &'a Pool<T>>;

/// A value taken with [`Pool::get_owned`]: like [`Pooled`], but it holds an
/// [`Arc`] of its pool instead of a borrow, so it is `'static` and can move
/// into a spawned thread or task (`tokio::spawn`) whatever owns the pool.
///
/// It is the same guard type as [`Pooled`] (a [`PoolGuard`]): dropping it,
/// [`into_inner`](PoolGuard::into_inner), a drop during a panic and the
/// stats behave exactly alike.
///
/// ```
/// use poolable::{OwnedPooled, Pool};
/// use std::sync::Arc;
///
/// let pool: Arc<Pool<Vec<u8>>> = Arc::new(Pool::new());
/// let mut buf: OwnedPooled<Vec<u8>> = pool.get_owned();
/// buf.extend_from_slice(b"hello");
/// let worker = std::thread::spawn(move || buf.len()); // `'static`: moves freely
/// assert_eq!(worker.join().unwrap(), 5);
/// assert_eq!(pool.stats().puts, 1); // returned by the worker
/// ```
pub type OwnedPooled<T> = PoolGuard<T, std::sync::Arc<Pool<T>>>;

// A guard's return. The code is here, not in methods of `Pool` that these
// would call: a debug build compiles each function once per pooled type.
impl<T: Reset + Send + 'static, P: Deref<Target = Pool<T>>> sealed::Home<T> for P {
    /// Reset and keep (or drop) the value in `slot`, leaving `None`, also
    /// when it unwinds: the reset runs in place, and a panicking one drops
    /// the value ([`DiscardOnUnwind`]). Each cold path is the last call, so
    /// the hot path needs no stack frame.
    #[inline(always)]
    fn put_from(&self, slot: &mut Option<T>) {
        let pool: &Pool<T> = self;
        let Some(_) = slot else {
            return;
        };
        if pool.core.policy.auto_cap {
            return pool.put_measured(slot);
        }
        let bytes = pool.reset(slot);
        if bytes > pool.core.policy.local_max_bytes {
            return pool.put_capped(slot, bytes, pool.core.policy.max_bytes);
        }
        // Into the calling thread's cache; everything but a push onto it
        // is `give_slow`, the last call.
        let Some(value) = slot.take() else {
            return;
        };
        let mut place = const { MaybeUninit::uninit() };
        if let Err(value) = thread::give(&pool.core.key, Moving::new(&mut place, value), bytes) {
            pool.core.give_slow(Pool::<T>::META, value, bytes);
        }
    }

    /// `put_from` for a value leased from a thread cache: reset in its
    /// slot, and the slot given back.
    #[inline(always)]
    fn put_lease(&self, mut lease: Lease<T>) {
        let pool: &Pool<T> = self;
        if pool.core.policy.auto_cap {
            return pool.put_lease_out(lease, None);
        }
        // A panicking reset is counted here, and the lease's `Drop` drops
        // the value in its slot as it unwinds.
        let on_panic = CountOnUnwind(&pool.core, Pool::<T>::META);
        let bytes = reset_value(lease.get_mut());
        core::mem::forget(on_panic);
        if bytes > pool.core.policy.local_max_bytes {
            return pool.put_lease_out(lease, Some(bytes));
        }
        let mut lease = Some(lease.into_raw());
        thread::give_lease(&pool.core.key, &mut lease, bytes);
        if let Some(lease) = lease {
            pool.core.give_lease_slow(Pool::<T>::META, lease, bytes);
        }
    }

    fn count_detached(&self) {
        self.core.count(Pool::<T>::META, Event::Detached);
    }

    fn count_panicked(&self) {
        self.core.count(Pool::<T>::META, Event::DroppedPanic);
    }
}

impl<'a, T: Reset + Send + 'static> Pooled<'a, T> {
    /// The pool this value returns to.
    ///
    /// ```
    /// use poolable::{Pool, Pooled};
    ///
    /// static BUFS: Pool<Vec<u8>> = Pool::new();
    ///
    /// let buf = BUFS.get();
    /// assert!(std::ptr::eq(Pooled::pool(&buf), &BUFS));
    /// ```
    pub fn pool(this: &Self) -> &'a Pool<T> {
        this.pool
    }
}

impl<T: Reset + Send + 'static> OwnedPooled<T> {
    /// The pool this value returns to.
    ///
    /// ```
    /// use poolable::{OwnedPooled, Pool};
    /// use std::sync::Arc;
    ///
    /// let pool = Arc::new(Pool::<String>::new());
    /// let name = pool.get_owned();
    /// assert!(Arc::ptr_eq(OwnedPooled::pool(&name), &pool));
    /// ```
    pub fn pool(this: &Self) -> &std::sync::Arc<Pool<T>> {
        &this.pool
    }
}

/// Reset `value` and return its size for the cap.
#[inline(always)]
fn reset_value<T: Reset>(value: &mut T) -> usize {
    T::reset(value);
    // Reset verification: free in release builds (under `POOLABLE=chaos`
    // the thread tier checks, on its slow path).
    if cfg!(debug_assertions) && !T::is_reset(value) {
        not_reset_named(core::any::type_name::<T>());
    }
    // `size_of_kept`, written out: one function less per type.
    T::heap_bytes(value).saturating_add(const { size_of::<T>() })
}

/// What keeping `value` costs, checked against the size cap: its heap bytes
/// plus `size_of::<T>()`, the pool's own storage of it.
fn size_of_kept<T: Reset>(value: &T) -> usize {
    T::heap_bytes(value).saturating_add(const { size_of::<T>() })
}

/// Counts a `dropped_panic` if dropped, i.e. if a constructor unwinds past it.
struct CountOnUnwind<'a>(&'a PoolCore, fn() -> Meta);

impl Drop for CountOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.count(self.1, Event::DroppedPanic);
    }
}

/// Drops the value in `slot`, counted as a `dropped_panic`, if dropped: if
/// user code run on a returned value (`reset`, `heap_bytes`, `used_bytes`,
/// `shrink_heap`) unwinds past it. A guard's slot is `ManuallyDrop`, so this
/// is what drops the value then.
///
/// Disarmed by clearing `armed` once the user code has returned, rather
/// than by `mem::forget`: one function less compiled for each pooled type.
struct DiscardOnUnwind<'a, 's, T> {
    core: &'a PoolCore,
    meta: fn() -> Meta,
    slot: &'s mut Option<T>,
    armed: bool,
}

impl<T> Drop for DiscardOnUnwind<'_, '_, T> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.core.count(self.meta, Event::DroppedPanic);
        // In place, not `take()`: the value's `Drop` (the generated wipe of
        // its `zeroize` fields, which the unwound reset may not have reached)
        // runs on the slot itself, not on a moved copy that leaves the
        // secret behind in the guard's memory.
        *self.slot = None;
    }
}

impl<T: 'static> Drop for Pool<T> {
    fn drop(&mut self) {
        if let Some(storage) = self.core.storage.get() {
            // Every idle value goes now; the (empty) thread caches are freed
            // when their thread next links a pool, or exits.
            decay::step(Arc::<Storage>::clone(storage), decay::Steps::CLEAR);
            let counted = storage.close();
            registry::retire(storage, &counted);
        }
    }
}

// A pool is as unwind safe as std's `Mutex`: a panic in user code it runs
// (a constructor, a reset, a measure, a value's `Drop`) leaves it consistent
// and usable, and the value the panic may have left half-written is
// dropped, never handed out (`tests/panic_matrix.rs`). Without these, its
// constructor's `Box<dyn Fn>` and its cells would make `&Pool` unusable in
// `catch_unwind` without `AssertUnwindSafe`.
impl<T> std::panic::UnwindSafe for Pool<T> {}
impl<T> std::panic::RefUnwindSafe for Pool<T> {}

impl<T: 'static> core::fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool")
            .field("name", &self.core.name.render(core::any::type_name::<T>()))
            .field("type", &core::any::type_name::<T>())
            .field("max_retained", &self.core.policy.max_retained)
            .field("max_bytes", &self.core.policy.max_bytes)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A point of `init_storage` where a test can step in.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Stage {
        /// The storage is made (and registered), not yet published.
        Made,
        /// The race to publish is decided, the winner not yet listed.
        Published,
    }

    /// What a thread runs at a stage of its next `init_storage`.
    type Hook = Option<(Stage, Box<dyn FnOnce()>)>;

    std::thread_local! {
        static HOOK: Cell<Hook> = const { Cell::new(None) };
    }

    pub(super) fn hook(stage: Stage) {
        match HOOK.take() {
            Some((at, run)) if at == stage => run(),
            other => HOOK.set(other),
        }
    }

    /// Two threads race a pool's first use, and the one that made its
    /// storage first publishes it last: the pool is listed once, before the
    /// race is decided and after. (Both storages were listed until the
    /// loser's was dropped: `pools()` showed the pool twice, one of them
    /// with no counts.)
    #[test]
    fn a_first_use_race_lists_the_pool_once() {
        const NAME: &str = "pool::tests::first-use-race";
        static POOL: Pool<Vec<u8>> = Pool::new().name(NAME);
        let listed = || {
            registry::pools()
                .iter()
                .filter(|p| p.name() == NAME)
                .count()
        };
        let during = std::sync::Arc::new(std::sync::Mutex::new(None));
        let seen = std::sync::Arc::clone(&during);
        HOOK.set(Some((
            Stage::Made,
            Box::new(move || {
                // The other thread makes, publishes and lists its storage first.
                std::thread::spawn(|| drop(POOL.get())).join().unwrap();
                *seen.lock().unwrap() = Some(listed());
            }),
        )));
        drop(POOL.get());
        assert_eq!(*during.lock().unwrap(), Some(1), "listed during the race");
        assert_eq!(listed(), 1, "listed after it");
        assert_eq!(POOL.stats().gets, 2, "{}", POOL.stats());
    }

    /// A pool that another thread has published and not yet listed is
    /// still reached by `clear_all`: a value made idle in that window is not
    /// handed out after it. (Registering only the winner, after the race,
    /// left such a storage out of the list that `clear_all` steps.)
    #[test]
    fn clear_all_reaches_a_pool_published_and_not_yet_listed() {
        let _every_pool = registry::tests::every_pool();
        static POOL: Pool<Vec<u8>> = Pool::new();
        HOOK.set(Some((
            Stage::Published,
            Box::new(|| {
                // A value idle in the shards once its thread has exited.
                std::thread::spawn(|| POOL.get().reserve_exact(64))
                    .join()
                    .unwrap();
                registry::clear_all();
            }),
        )));
        let got = POOL.get();
        assert_eq!(
            got.capacity(),
            0,
            "a value idle before clear_all handed out"
        );
        drop(got);
        let stats = POOL.stats();
        assert_eq!((stats.dropped_idle, stats.misses), (1, 2), "{stats}");
    }

    /// A pool whose key is past the table's mirror (more pools in use than
    /// it has entries) leases from its thread cache too, and its returns
    /// list their slots again: it took the locked slow path for every get
    /// (551 instructions per get + push + drop against a mirrored pool's
    /// 115; 201 once it stopped, 186 now: `benches/instructions.rs far`).
    #[test]
    fn a_pool_past_the_tables_mirror_leases_from_its_thread_cache() {
        let mut pools: Vec<Pool<Vec<u8>>> = Vec::new();
        let far = loop {
            let pool = Pool::new();
            drop(pool.get());
            if pool.core.key.is_far() {
                break pool;
            }
            assert!(pools.len() < 10_000, "no key past the mirror");
            pools.push(pool);
        };
        for round in 0..3 {
            let lease = far.take();
            assert!(lease.is_some(), "round {round}: no lease");
            drop(lease);
            far.get().push(1);
        }
        let stats = far.stats();
        // Each round: a lease taken and dropped (its value with it), then a
        // miss that returns a value.
        assert_eq!(
            (stats.gets, stats.misses, stats.retained),
            (7, 4, 1),
            "{stats}"
        );
    }

    /// A value whose heap is a number it reports, and that a shrink lowers
    /// to what it is asked for: the size the pool measures is exact.
    #[derive(Default)]
    struct Measured(usize);

    impl Reset for Measured {
        fn reset(&mut self) {}
        fn heap_bytes(&self) -> usize {
            self.0
        }
        fn shrink_heap(&mut self, max_bytes: usize) {
            self.0 = self.0.min(max_bytes);
        }
    }

    /// A value shrunk to exactly [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES)
    /// is kept in the thread's cache, as one returned at that size is: only
    /// a value over it goes to the shared tier (`PoolCore::keep`). A `keep`
    /// that sent it to the shards passed every other test.
    #[test]
    fn a_value_shrunk_to_the_thread_caches_limit_stays_in_the_thread_cache() {
        let _every_pool = registry::tests::every_pool();
        let limit = crate::LOCAL_CACHE_MAX_BYTES;
        let pool: Pool<Measured> = Pool::new().max_bytes(limit).oversize(Oversize::Shrink);
        pool.put(Measured(4 * limit));
        let stats = pool.stats();
        assert_eq!((stats.shrunk, stats.retained), (1, 1), "{stats}");
        assert_eq!(stats.retained_bytes, limit, "{stats}");
        assert_eq!(pool.idle_shared(), 0, "kept in the shared tier");
    }

    /// A pool without spare slots (a `BufferPool`'s class, held to a byte
    /// bound per thread cache) keeps no more values in a thread's cache than
    /// its `local_cache_size`, leased ones included: with every slot leased,
    /// a miss of the cache takes one value from the shards for the get and
    /// refills nothing. A `set_no_spare_slots` that did nothing passed every
    /// other test: the spare slots took a refill beside the four values out.
    #[test]
    fn without_spare_slots_leased_values_hold_the_thread_caches_room() {
        let _every_pool = registry::tests::every_pool();
        let mut pool: Pool<Vec<u8>> = Pool::new().max_retained(64);
        pool.set_local_cache_size(4);
        pool.set_no_spare_slots();
        for _ in 0..4 {
            pool.put(Vec::new());
        }
        assert_eq!(pool.reserve(6), 6);
        // The four idle in the thread cache, each leased in its slot.
        let out: Vec<_> = (0..4).map(|_| pool.get()).collect();
        let fifth = pool.get();
        assert_eq!(pool.idle_shared(), 5, "a refill took more than the get");
        assert_eq!(pool.stats().retained, 5);
        drop((out, fifth));
    }

    /// The returns threads made beyond their own gets never read lower than
    /// before while threads that made them exit: an exiting thread's count
    /// moves from its cache to the pool's total under the cache list's lock,
    /// and a reading takes both under it. (It read the total before taking
    /// the lock, so a thread that exited in between was in neither.)
    #[test]
    fn returns_beyond_gets_never_go_back_as_threads_exit() {
        struct SetOnDrop<'a>(&'a AtomicBool);
        impl Drop for SetOnDrop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }

        let pool = &Pool::<Vec<u8>>::new();
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let (mut last, mut readings) = (0, 0u64);
                while !done.load(Ordering::Relaxed) {
                    let now = pool
                        .core
                        .storage
                        .get()
                        .map_or(0, |s| s.observe().returns_beyond_gets);
                    assert!(now >= last, "read {now} after {last} ({readings} readings)");
                    (last, readings) = (now, readings + 1);
                }
            });
            // Stops the reader also when a return panics here, so the test
            // fails instead of waiting for it forever.
            let stop = SetOnDrop(&done);
            for _ in 0..if cfg!(miri) { 10 } else { 3000 } {
                // Taken here, returned on a thread that then exits: one
                // return beyond that thread's gets.
                let value = pool.get();
                s.spawn(move || drop(value)).join().unwrap();
            }
            drop(stop);
            reader.join().unwrap();
        });
    }
}
