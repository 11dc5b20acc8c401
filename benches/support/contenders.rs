//! The contenders of workloads 1-7, every one for one item type: their
//! names ([`Kind`]), their types (one per allocation strategy, each with its
//! own pool), and [`Item`], what a pooled type needs so that all of them
//! can hold it.
//!
//! What each contender does with a value is in `run.rs` (one op on one
//! thread) and `pipe.rs` (a value handed from a producer to a consumer);
//! for most, taking a guard ([`Guarded`]) is all there is to it.
//! Include this module first, with `#[macro_use]`: the modules after it use
//! its macros.

use lockfree_object_pool::{LinearObjectPool, SpinLockObjectPool};
use poolable::{Pool, Reset};
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::DerefMut;
use std::thread::LocalKey;

/// The size cap used for every contender that has one: poolable's default.
pub const CAP: usize = poolable::DEFAULT_MAX_BYTES;
/// Retention bound of the peers that take one (opool, poolshark): poolable's
/// default on a 2-CPU machine.
pub const RETAIN: usize = 64;

// ---------------------------------------------------------------- items

/// What every pooled type needs so that all contenders can hold it: the
/// poolable reset, sharded-slab's `Clear`, poolshark's `IsoPoolable`, and the
/// thread-local slot of the hand-written baseline.
pub trait Item:
    Reset + Default + Send + Sync + 'static + sharded_slab::Clear + poolshark::IsoPoolable
{
    /// The thread-local single-slot cache of the baseline.
    fn slot() -> &'static LocalKey<Cell<Option<Box<Self>>>>;
}

/// `item!(Type)`: `Type` is an [`Item`] (its baseline slot). `item!(derived
/// Type)`, for a workload's derived type: also the peers' traits, whose
/// reset hooks call the same `Reset::reset` as poolable, so that every
/// contender does the same reset work.
macro_rules! item {
    ($ty:ty) => {
        impl $crate::support::contenders::Item for $ty {
            fn slot() -> &'static ::std::thread::LocalKey<::std::cell::Cell<Option<Box<Self>>>> {
                ::std::thread_local! {
                    static SLOT: ::std::cell::Cell<Option<Box<$ty>>> =
                        const { ::std::cell::Cell::new(None) };
                }
                &SLOT
            }
        }
    };
    (derived $ty:ty) => {
        item!($ty);
        impl sharded_slab::Clear for $ty {
            fn clear(&mut self) {
                ::poolable::Reset::reset(self);
            }
        }
        impl poolshark::Poolable for $ty {
            fn empty() -> Self {
                Self::default()
            }
            fn reset(&mut self) {
                ::poolable::Reset::reset(self);
            }
            // poolshark's global pool drops values whose capacity is 0, and
            // both pools drop values whose capacity exceeds their cap: report
            // the heap bytes, plus one so that a value is never 0.
            fn capacity(&self) -> usize {
                ::poolable::Reset::heap_bytes(self).saturating_add(1)
            }
        }
        // SAFETY: the discriminant is a location id unique to this impl, with
        // no type parameters, so no other type shares this type's local pool.
        unsafe impl poolshark::IsoPoolable for $ty {
            const DISCRIMINANT: Option<poolshark::Discriminant> =
                poolshark::Discriminant::new(poolshark::location_id!());
        }
    };
}
item!(Vec<u8>);

// ----------------------------------------------------------- contenders

/// A contender of workloads 1-7 by name: what the benches list and the
/// tables key on. Each names a type below, which says what it does.
/// Workload 0 has contenders of its own besides these (`obj.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// [`ThreadLocal`]: the baseline.
    ThreadLocal,
    /// [`Plain`].
    #[allow(
        dead_code,
        reason = "not in workload 0, so not in obj.rs nor instructions.rs"
    )]
    Plain,
    /// [`Poolable`].
    Poolable,
    /// [`ObjectPool`].
    ObjectPool,
    /// [`LfLinear`].
    LfLinear,
    /// [`LfSpinLock`].
    LfSpinLock,
    /// [`Opool`].
    Opool,
    /// [`ShardedSlab`].
    ShardedSlab,
    /// [`PoolsharkLocal`].
    PoolsharkLocal,
    /// [`PoolsharkGlobal`].
    PoolsharkGlobal,
}

impl Kind {
    /// The contenders of workloads 1-7, in table order.
    #[allow(
        dead_code,
        reason = "workload 0 (obj.rs, instructions.rs) lists its own, obj::ObjContender::ALL"
    )]
    pub const ALL: [Kind; 10] = [
        Kind::ThreadLocal,
        Kind::Plain,
        Kind::Poolable,
        Kind::ObjectPool,
        Kind::LfLinear,
        Kind::LfSpinLock,
        Kind::Opool,
        Kind::ShardedSlab,
        Kind::PoolsharkLocal,
        Kind::PoolsharkGlobal,
    ];

    /// The criterion function id (and the key `scripts/bench_table.py` knows).
    pub fn id(self) -> &'static str {
        match self {
            Kind::Plain => "plain",
            Kind::ThreadLocal => "thread_local",
            Kind::Poolable => "poolable",
            Kind::ObjectPool => "object-pool",
            Kind::LfLinear => "lockfree-linear",
            Kind::LfSpinLock => "lockfree-spinlock",
            Kind::Opool => "opool",
            Kind::ShardedSlab => "sharded-slab",
            Kind::PoolsharkLocal => "poolshark-local",
            Kind::PoolsharkGlobal => "poolshark-global",
        }
    }
}

/// A fresh value per operation, dropped at the end.
pub struct Plain<T> {
    pub new: fn() -> T,
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
    pub fn take(&self) -> Box<T> {
        T::slot()
            .with(Cell::take)
            .unwrap_or_else(|| Box::new((self.new)()))
    }

    /// Reset a value and leave it in the slot, if it is within the cap (the
    /// baseline's put).
    #[inline]
    pub fn put(&self, mut v: Box<T>) {
        Reset::reset(&mut *v);
        if v.heap_bytes() <= self.cap {
            // A value already in the slot (only possible when a value crossed
            // threads) is dropped by `set`.
            T::slot().with(|s| s.set(Some(v)));
        }
    }
}

/// poolable: `T::pool()` for derived types, a `static Pool<Vec<u8>>` for
/// buffers.
pub struct Poolable<T: Item> {
    pub pool: &'static Pool<T>,
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

/// lockfree-object-pool 0.1 `LinearObjectPool`.
pub struct LfLinear<T> {
    pub pool: LinearObjectPool<T>,
}

/// lockfree-object-pool 0.1 `SpinLockObjectPool`.
pub struct LfSpinLock<T> {
    pub pool: SpinLockObjectPool<T>,
}

/// opool's allocator: constructor, the shared reset, and the size cap.
pub struct OpoolAlloc<T> {
    new: fn() -> T,
    cap: usize,
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

/// sharded-slab 0.1 `Pool` (create, then `clear(key)`).
pub struct ShardedSlab<T: sharded_slab::Clear + Default> {
    pub pool: sharded_slab::Pool<T>,
}

/// poolshark 0.2 `local::LPooled` (per-thread pools keyed by type).
pub struct PoolsharkLocal<T> {
    pub item: PhantomData<fn() -> T>,
}

/// poolshark 0.2 `global::Pool` (lock-free queue, values return to their
/// pool).
pub struct PoolsharkGlobal<T: poolshark::Poolable> {
    pub pool: poolshark::global::Pool<T>,
}

/// A contender that hands out a guard, which gives the value back when it is
/// dropped: poolable and most peers. Each of these takes, uses and gives
/// back alike, on one thread or across two, so `run.rs` and `pipe.rs`
/// implement their traits once for all of them; the others have their own
/// impls.
pub trait Guarded {
    /// The type of the values.
    type Value;

    /// The guard: derefs to the value, and gives it back on drop.
    type Guard<'a>: DerefMut<Target = Self::Value> + Send
    where
        Self: 'a;

    /// Take a value.
    fn take(&self) -> Self::Guard<'_>;
}

impl<T: Item> Guarded for Poolable<T> {
    type Value = T;
    type Guard<'a> = poolable::Pooled<'static, T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        self.pool.get()
    }
}

impl<T: Item> Guarded for LfLinear<T> {
    type Value = T;
    type Guard<'a> = lockfree_object_pool::LinearReusable<'a, T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        self.pool.pull()
    }
}

impl<T: Item> Guarded for LfSpinLock<T> {
    type Value = T;
    type Guard<'a> = lockfree_object_pool::SpinLockReusable<'a, T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        self.pool.pull()
    }
}

impl<T: Item> Guarded for Opool<T> {
    type Value = T;
    type Guard<'a> = opool::RefGuard<'a, OpoolAlloc<T>, T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        self.pool.get()
    }
}

impl<T: Item> Guarded for PoolsharkLocal<T> {
    type Value = T;
    type Guard<'a> = poolshark::local::LPooled<T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        poolshark::local::LPooled::<T>::take()
    }
}

impl<T: Item> Guarded for PoolsharkGlobal<T> {
    type Value = T;
    type Guard<'a> = poolshark::global::GPooled<T>;

    #[inline]
    fn take(&self) -> Self::Guard<'_> {
        self.pool.take()
    }
}

/// Every contender of workloads 1-7 for one item type, each with its own
/// pool.
pub struct Contenders<T: Item> {
    pub plain: Plain<T>,
    pub thread_local: ThreadLocal<T>,
    pub poolable: Poolable<T>,
    pub object_pool: ObjectPool<T>,
    pub lf_linear: LfLinear<T>,
    pub lf_spin: LfSpinLock<T>,
    pub opool: Opool<T>,
    pub slab: ShardedSlab<T>,
    pub ps_local: PoolsharkLocal<T>,
    pub ps_global: PoolsharkGlobal<T>,
}

impl<T: Item> Contenders<T> {
    /// Fresh pools for every peer. `poolable` is the poolable pool to use (its
    /// cap is its own); `cap` is applied to the other contenders that have a
    /// cap (`NO_CAP` for none).
    pub fn new(poolable: &'static Pool<T>, new: fn() -> T, cap: usize) -> Self {
        // poolshark's local pools are per thread and keyed by type: this sets
        // the size of the pools created from now on, and drops this thread's.
        poolshark::local::set_size::<T>(RETAIN, cap);
        poolshark::local::clear_type::<T>();
        Contenders {
            plain: Plain { new },
            thread_local: ThreadLocal { new, cap },
            poolable: Poolable { pool: poolable },
            object_pool: ObjectPool {
                pool: object_pool::Pool::new(0, new),
                new,
            },
            lf_linear: LfLinear {
                pool: LinearObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            },
            lf_spin: LfSpinLock {
                pool: SpinLockObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            },
            opool: Opool {
                pool: opool::Pool::new(RETAIN, OpoolAlloc { new, cap }),
            },
            slab: ShardedSlab {
                pool: sharded_slab::Pool::new(),
            },
            ps_local: PoolsharkLocal { item: PhantomData },
            ps_global: PoolsharkGlobal {
                pool: poolshark::global::Pool::new(RETAIN, cap),
            },
        }
    }
}

/// `with_contender!(contenders, kind, |c| body)`: `body` with `c` bound to
/// the contender of `kind`, the one match from kinds to contenders. `body`
/// is compiled once for each contender type (a closure generic over the
/// contender), so every arm calls its own contender's code, with no `dyn`.
macro_rules! with_contender {
    ($contenders:expr, $kind:expr, |$c:ident| $body:expr) => {
        match $kind {
            Kind::Plain => {
                let $c = &$contenders.plain;
                $body
            }
            Kind::ThreadLocal => {
                let $c = &$contenders.thread_local;
                $body
            }
            Kind::Poolable => {
                let $c = &$contenders.poolable;
                $body
            }
            Kind::ObjectPool => {
                let $c = &$contenders.object_pool;
                $body
            }
            Kind::LfLinear => {
                let $c = &$contenders.lf_linear;
                $body
            }
            Kind::LfSpinLock => {
                let $c = &$contenders.lf_spin;
                $body
            }
            Kind::Opool => {
                let $c = &$contenders.opool;
                $body
            }
            Kind::ShardedSlab => {
                let $c = &$contenders.slab;
                $body
            }
            Kind::PoolsharkLocal => {
                let $c = &$contenders.ps_local;
                $body
            }
            Kind::PoolsharkGlobal => {
                let $c = &$contenders.ps_global;
                $body
            }
        }
    };
}
