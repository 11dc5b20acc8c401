//! The contenders: one type per allocation strategy, each implementing
//! [`Contender`], the one interface the benchmarks drive them through.

use super::Item;
use lockfree_object_pool::{LinearObjectPool, SpinLockObjectPool};
use poolable::{Pool, Reset};
use std::cell::Cell;
use std::hint::black_box;
use std::marker::PhantomData;
use std::ptr;
use std::thread::LocalKey;

/// How one contender takes a value and gives it back, on one thread or
/// across a channel: all that differs between contenders. The benchmark
/// loops (`Contenders::run`, `Contenders::pipe`) are written once, generic
/// over this trait, so each contender's loop is compiled for its own type,
/// with no `dyn` call in it.
pub trait Contender<T: Item>: Sync {
    /// What a producer sends to its consumer: the value, its guard, or a key.
    type Sent<'a>: Send
    where
        Self: 'a;

    /// One op on this thread: take a value, let `f` use it, give it back.
    fn op(&self, f: impl FnOnce(&mut T));

    /// The producer's half of an op: take a value and let `fill` write it.
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_>;

    /// The consumer's half: let `read` see the value, then give it back.
    fn consume(&self, sent: Self::Sent<'_>, read: impl FnOnce(&T));
}

/// Raw single-slot floor: a `thread_local!` `Cell<*mut T>`, the same reset,
/// no size cap. Nothing can hand out and take back a value with less work.
pub struct Floor<T> {
    pub new: fn() -> T,
}

impl<T: Item> Contender<T> for Floor<T> {
    type Sent<'a> = Box<T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let slot = T::floor_slot();
        let mut v = floor_take(slot, self.new);
        f(&mut v);
        floor_put(slot, v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Box<T> {
        let mut v = floor_take(T::floor_slot(), self.new);
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Box<T>, read: impl FnOnce(&T)) {
        read(&v);
        floor_put(T::floor_slot(), v);
    }
}

/// A fresh value per operation, dropped at the end.
pub struct Plain<T> {
    pub new: fn() -> T,
}

impl<T: Item> Contender<T> for Plain<T> {
    type Sent<'a> = T;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = (self.new)();
        f(&mut v);
        drop(black_box(v));
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> T {
        let mut v = (self.new)();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: T, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// A fresh `Box::new` value per operation (the pools hand out boxed values
/// too).
pub struct Boxed<T> {
    pub new: fn() -> T,
}

impl<T: Item> Contender<T> for Boxed<T> {
    type Sent<'a> = Box<T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = Box::new((self.new)());
        f(&mut v);
        drop(black_box(v));
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Box<T> {
        let mut v = Box::new((self.new)());
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Box<T>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// Hand-written `thread_local!` single-slot cache doing the same reset and
/// size check: the baseline.
pub struct ThreadLocal<T> {
    pub new: fn() -> T,
    pub cap: usize,
}

impl<T: Item> ThreadLocal<T> {
    /// The slot's value, or a new one (the baseline's get).
    #[inline]
    fn take(&self, slot: &'static LocalKey<Cell<Option<Box<T>>>>) -> Box<T> {
        slot.with(Cell::take)
            .unwrap_or_else(|| Box::new((self.new)()))
    }
}

impl<T: Item> Contender<T> for ThreadLocal<T> {
    type Sent<'a> = Box<T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let slot = T::slot();
        let mut v = self.take(slot);
        f(&mut v);
        tls_put(slot, v, self.cap);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Box<T> {
        let mut v = self.take(T::slot());
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Box<T>, read: impl FnOnce(&T)) {
        read(&v);
        tls_put(T::slot(), v, self.cap);
    }
}

/// poolable: `T::pool()` for derived types, a `static Pool<Vec<u8>>` for
/// buffers.
pub struct Poolable<T: Item> {
    pub pool: &'static Pool<T>,
}

impl<T: Item> Contender<T> for Poolable<T> {
    type Sent<'a> = poolable::Pooled<'static, T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.get();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.get();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// object-pool 0.6 (`Mutex<Vec<T>>`, no reset hook: reset by hand).
///
/// `repr(C)`, the pool first: its lock is then at the contender's own
/// address. Laid out the other way round, the op's loop recomputes the
/// lock's address on each op (2 instructions more under callgrind), which
/// would charge the harness to object-pool.
#[repr(C)]
pub struct ObjectPool<T> {
    pub pool: object_pool::Pool<T>,
    pub new: fn() -> T,
}

impl<T: Item> Contender<T> for ObjectPool<T> {
    type Sent<'a> = object_pool::Reusable<'a, T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.pull(self.new);
        f(&mut v);
        Reset::reset(&mut *v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.pull(self.new);
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, mut v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
        Reset::reset(&mut *v);
    }
}

/// lockfree-object-pool 0.1 `LinearObjectPool`.
pub struct LfLinear<T> {
    pub pool: LinearObjectPool<T>,
}

impl<T: Item> Contender<T> for LfLinear<T> {
    type Sent<'a> = lockfree_object_pool::LinearReusable<'a, T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.pull();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.pull();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// lockfree-object-pool 0.1 `SpinLockObjectPool`.
pub struct LfSpinLock<T> {
    pub pool: SpinLockObjectPool<T>,
}

impl<T: Item> Contender<T> for LfSpinLock<T> {
    type Sent<'a> = lockfree_object_pool::SpinLockReusable<'a, T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.pull();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.pull();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// opool's allocator: constructor, the shared reset, and the size cap.
pub struct OpoolAlloc<T> {
    pub new: fn() -> T,
    pub cap: usize,
}

impl<T: Reset> opool::PoolAllocator<T> for OpoolAlloc<T> {
    #[inline]
    fn reset(&self, obj: &mut T) {
        Reset::reset(obj);
    }
    #[inline]
    fn allocate(&self) -> T {
        (self.new)()
    }
    #[inline]
    fn is_valid(&self, obj: &T) -> bool {
        obj.heap_bytes() <= self.cap
    }
}

/// opool 0.2 (`ArrayQueue`, reset on get, `is_valid` used as the size cap).
pub struct Opool<T: Reset> {
    pub pool: opool::Pool<OpoolAlloc<T>, T>,
}

impl<T: Item> Contender<T> for Opool<T> {
    type Sent<'a> = opool::RefGuard<'a, OpoolAlloc<T>, T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.get();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.get();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// sharded-slab 0.1 `Pool` (create, then `clear(key)`). Across threads the
/// producer sends the key, and the consumer looks the value up.
pub struct ShardedSlab<T: sharded_slab::Clear + Default> {
    pub pool: sharded_slab::Pool<T>,
}

impl<T: Item> Contender<T> for ShardedSlab<T> {
    type Sent<'a> = usize;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.create().expect("sharded-slab shard full");
        f(&mut v);
        let key = v.key();
        drop(v);
        self.pool.clear(key);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> usize {
        let mut v = self.pool.create().expect("sharded-slab shard full");
        fill(&mut v);
        v.key()
    }

    #[inline]
    fn consume(&self, key: usize, read: impl FnOnce(&T)) {
        read(&self.pool.get(key).expect("sharded-slab key vanished"));
        self.pool.clear(key);
    }
}

/// poolshark 0.2 `local::LPooled` (per-thread pools keyed by type).
pub struct PoolsharkLocal<T> {
    pub item: PhantomData<fn() -> T>,
}

impl<T: Item> Contender<T> for PoolsharkLocal<T> {
    type Sent<'a> = poolshark::local::LPooled<T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = poolshark::local::LPooled::<T>::take();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = poolshark::local::LPooled::<T>::take();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// poolshark 0.2 `global::Pool` (lock-free queue, values return to their
/// pool).
pub struct PoolsharkGlobal<T: poolshark::Poolable> {
    pub pool: poolshark::global::Pool<T>,
}

impl<T: Item> Contender<T> for PoolsharkGlobal<T> {
    type Sent<'a> = poolshark::global::GPooled<T>;

    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.take();
        f(&mut v);
    }

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.take();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// Take the floor's value, or make one (the floor's get).
#[inline]
fn floor_take<T: Item>(slot: &'static LocalKey<Cell<*mut T>>, new: fn() -> T) -> Box<T> {
    let p = slot.with(|s| s.replace(ptr::null_mut()));
    if p.is_null() {
        Box::new(new())
    } else {
        // SAFETY: a non-null pointer in the slot came from `Box::into_raw` in
        // `floor_put` and was owned by the slot; `replace` took it out, so
        // this is the only owner.
        unsafe { Box::from_raw(p) }
    }
}

/// Reset a value and leave it in the floor's slot (the floor's put).
#[inline]
fn floor_put<T: Item>(slot: &'static LocalKey<Cell<*mut T>>, mut v: Box<T>) {
    Reset::reset(&mut *v);
    let old = slot.with(|s| s.replace(Box::into_raw(v)));
    if !old.is_null() {
        // Only when values cross threads (producer/consumer): the slot held
        // one already.
        // SAFETY: as in `floor_take`: `old` came from `Box::into_raw` and the
        // slot owned it until `replace` took it out.
        drop(unsafe { Box::from_raw(old) });
    }
}

/// Give a value back to the thread-local slot (the baseline's put).
#[inline]
fn tls_put<T: Item>(slot: &'static LocalKey<Cell<Option<Box<T>>>>, mut v: Box<T>, cap: usize) {
    Reset::reset(&mut *v);
    if v.heap_bytes() <= cap {
        // A value already in the slot (only possible when a value crossed
        // threads) is dropped by `set`.
        slot.with(|s| s.set(Some(v)));
    }
}
