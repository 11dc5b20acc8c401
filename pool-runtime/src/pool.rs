//! [`Pool`]: get, put, trim, clear and stats, on top of the thread caches
//! (`local`) and the shards (`shard`).

use crate::Reset;
use crate::guard::Pooled;
use crate::local::{self, LocalCache};
use crate::policy::{self, Limits, Policy};
use crate::registry;
use crate::shard::{Entry, Shared};
use crate::stats::{Event, Stats};
use crate::sync::Arc;
use once_cell::race::OnceBox;

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
///   = 64 KiB): a returned value whose [`Reset::heap_bytes`] exceeds it is
///   dropped (`Stats::dropped_oversize`).
/// - **Retention bound** ([`max_retained`](Pool::max_retained), default
///   `4 × CPUs × LOCAL_CACHE_SIZE`): each thread caches up to
///   `min(LOCAL_CACHE_SIZE, max_retained)` idle values, and the shared shards hold up to
///   `max_retained` minus that. So one thread alone never retains more than
///   `max_retained`; each further thread that uses the pool can hold one more
///   thread cache's worth. Values beyond it are dropped (`Stats::dropped_full`).
/// - **Idle decay** ([`trim`](Pool::trim)): a value idle across two
///   consecutive trims is dropped. Call [`trim_all`](crate::trim_all) from a
///   timer, or start the [`trimmer`](crate::trimmer).
///
/// # What the pool does not promise
///
/// - Which value a get returns, or that it returns a retained one at all: a
///   get may construct a new value while another thread's cache holds idle
///   ones.
/// - That an idle thread's cache shrinks at a trim. A thread ages its own
///   cache the next time it uses the pool, and flushes it when it exits; a
///   thread that stays alive but never touches the pool again keeps up to one
///   thread cache of values.
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
    new: fn() -> T,
    policy: Policy,
    /// Whether this is the derive-generated pool of `T`, which keeps its
    /// thread caches in the `thread_local!` the derive generated for `T`.
    type_pool: bool,
    // `OnceBox` (from `once_cell::race`) rather than `OnceLock`: it is
    // `const`-constructible, so a pool can be a `static`, and its lazy init is
    // lock-free. Two threads that race on first use each allocate the shard
    // array, one wins, and the other frees its copy: no thread ever blocks
    // behind another's initialisation, and the fast path is one acquire load.
    shared: OnceBox<Arc<Shared<T>>>,
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
    /// A pre-sized value must fit under the size cap, or every return drops
    /// it; raise the cap to match:
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// fn one_mib() -> Vec<u8> {
    ///     Vec::with_capacity(1 << 20)
    /// }
    /// static BIG: Pool<Vec<u8>> = Pool::with_new(one_mib).max_bytes(1 << 20);
    ///
    /// drop(BIG.get());
    /// assert_eq!(BIG.stats().dropped_oversize, 0);
    /// assert!(BIG.get().capacity() >= 1 << 20);
    /// ```
    pub const fn with_new(new: fn() -> T) -> Self {
        Pool {
            new,
            policy: Policy::DEFAULT,
            type_pool: false,
            shared: OnceBox::new(),
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
    pub const fn max_retained(mut self, n: usize) -> Self {
        self.policy.max_retained = Some(n);
        self
    }

    /// Drop, instead of retaining, any returned value whose
    /// [`Reset::heap_bytes`] exceeds `bytes`. `usize::MAX` disables the cap.
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new().max_bytes(1024);
    /// pool.get().reserve(4096);
    /// assert_eq!(pool.stats().dropped_oversize, 1);
    /// assert_eq!(pool.stats().retained, 0);
    /// ```
    pub const fn max_bytes(mut self, bytes: usize) -> Self {
        self.policy.max_bytes = bytes;
        self
    }

    /// Mark the derive-generated pool of `T`: its thread caches live in the
    /// `thread_local!` that `T::__thread_cache` returns.
    #[doc(hidden)]
    pub const fn __type_pool(mut self) -> Self {
        self.type_pool = true;
        self
    }

    #[inline(always)]
    fn shared(&self) -> &Arc<Shared<T>> {
        match self.shared.get() {
            Some(shared) => shared,
            None => self.init_shared(),
        }
    }

    #[cold]
    #[inline(never)]
    fn init_shared(&self) -> &Arc<Shared<T>> {
        self.shared.get_or_init(|| {
            let limits = Limits::resolve(self.policy, policy::cpus());
            let shared = Arc::new(Shared::new(limits, self.type_pool));
            registry::register(&shared);
            Box::new(shared)
        })
    }

    /// Take a value: an idle one if there is one, else a new one.
    ///
    /// Never fails and never blocks on other threads' work. The value is
    /// reset (a returned value) or fresh (a new one).
    ///
    /// ```
    /// use poolable::Pool;
    ///
    /// let pool: Pool<Vec<u8>> = Pool::new();
    /// let mut buf = pool.get();
    /// buf.push(1);
    /// assert_eq!(*buf, [1]);
    /// ```
    #[inline]
    pub fn get(&self) -> Pooled<'_, T> {
        let shared = self.shared();
        let mut guard = Pooled::empty(self);
        let slot = Pooled::slot(&mut guard);
        // The value is moved straight into the guard's slot.
        if local::with(
            shared,
            true,
            #[inline(always)]
            |cache| cache.take_into(slot),
        )
        .is_none()
        {
            *slot = self.take_without_cache(shared);
        }
        if slot.is_none() {
            *slot = Some(self.create());
        }
        guard
    }

    /// A miss: construct a value. A panicking constructor leaves the pool
    /// as it was; the counted miss is balanced by a `dropped_panic`.
    #[cold]
    fn create(&self) -> Box<T> {
        let on_panic = CountOnUnwind(self);
        let value = Box::new((self.new)());
        core::mem::forget(on_panic);
        value
    }

    #[cold]
    fn take_without_cache(&self, shared: &Shared<T>) -> Option<Box<T>> {
        shared.count(Event::Get, 1);
        let entry = shared.pop_one(local::home_shard(shared));
        if entry.is_none() {
            shared.count(Event::Miss, 1);
        }
        entry.map(|e| e.value)
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
    #[inline]
    pub fn put(&self, value: T) {
        self.put_from(&mut Some(Box::new(value)));
    }

    /// Reset and keep (or drop) the value in `slot`, leaving `None`. Taking
    /// the value by `&mut Option` lets the guard hand it over without an
    /// extra move, and keeps it safe when the thread cache is unavailable.
    #[inline(always)]
    pub(crate) fn put_from(&self, slot: &mut Option<Box<T>>) {
        let Some(value) = slot.as_mut() else { return };
        // A panicking reset leaves the value half-reset: it is dropped by the
        // unwinding caller, and counted here as a panic drop.
        let on_panic = CountOnUnwind(self);
        T::reset(value);
        let bytes = T::heap_bytes(value);
        core::mem::forget(on_panic);
        let shared = self.shared();
        local::with(
            shared,
            true,
            #[inline(always)]
            |cache| cache.give_from(slot, bytes),
        );
        // No thread cache (thread exiting, or re-entered from a `Drop`).
        if let Some(value) = slot.take() {
            self.put_without_cache(shared, Entry { value, bytes });
        }
    }

    #[cold]
    fn put_without_cache(&self, shared: &Shared<T>, entry: Entry<T>) {
        shared.count(Event::Put, 1);
        if entry.bytes > shared.limits.max_bytes {
            shared.count(Event::DroppedOversize, 1);
        } else if let Err(entry) = shared.push_one(local::home_shard(shared), entry) {
            shared.count(Event::DroppedFull, 1);
            drop(entry);
        }
    }

    /// Count a value that leaves the pool's accounting without being
    /// returned: detached, or dropped during a panic.
    pub(crate) fn count_unreturned(&self, event: Event) {
        let shared = self.shared();
        if local::with(shared, false, |cache: &mut LocalCache<T>| {
            cache.count(event)
        })
        .is_none()
        {
            shared.count(event, 1);
        }
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
    pub fn stats(&self) -> Stats {
        match self.shared.get() {
            Some(shared) => shared.stats(),
            None => Stats::default(),
        }
    }

    /// One decay step, the equivalent of one garbage collection for Go's
    /// `sync.Pool`: values idle since the previous trim are dropped, and the
    /// values idle now become candidates for the next one. A value taken and
    /// returned between two trims survives them.
    ///
    /// The calling thread's own cache is aged at once; other threads age
    /// theirs the next time they use the pool.
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
        if let Some(shared) = self.shared.get() {
            trim_shared(shared);
        }
    }

    /// Drop every idle value now: the shards and this thread's cache at once,
    /// other threads' caches the next time they use the pool.
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
        if let Some(shared) = self.shared.get() {
            let dead = shared.clear();
            count_idle(shared, &dead);
            drop(dead);
            local::with(shared, false, LocalCache::catch_up);
        }
    }
}

/// Counts a `dropped_panic` if dropped, i.e. if a reset or a constructor
/// unwinds past it.
struct CountOnUnwind<'a, T: Reset + Send + 'static>(&'a Pool<T>);

impl<T: Reset + Send + 'static> Drop for CountOnUnwind<'_, T> {
    fn drop(&mut self) {
        self.0.count_unreturned(Event::DroppedPanic);
    }
}

fn count_idle<T>(shared: &Shared<T>, dead: &[Vec<Entry<T>>]) {
    let n: usize = dead.iter().map(Vec::len).sum();
    if n > 0 {
        shared.count(Event::DroppedIdle, n as u64);
    }
}

/// A trim of one pool, also used by [`trim_all`](crate::trim_all).
pub(crate) fn trim_shared<T: Reset + 'static>(shared: &Arc<Shared<T>>) {
    let dead = shared.trim();
    count_idle(shared, &dead);
    drop(dead);
    local::with(shared, false, LocalCache::catch_up);
}

impl<T: 'static> Drop for Pool<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.get() {
            // Other threads' caches for this pool are freed when their thread
            // next sweeps its table, or exits.
            drop(shared.close());
        }
    }
}

impl<T: 'static> core::fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool")
            .field("type", &core::any::type_name::<T>())
            .field("max_retained", &self.policy.max_retained)
            .field("max_bytes", &self.policy.max_bytes)
            .finish_non_exhaustive()
    }
}
