//! Workload 0, the headline: get, push one byte into the `Vec<u8>`
//! of a derived `Obj`, drop. Its contenders: those of workloads 1-7 on `Obj`
//! but `plain`, and five of its own, the raw floor, `Box::new` per op, and
//! the two other ways to use poolable (a static pool of a type without a
//! derive, a generic derived type).

use super::contenders::{CAP, Contenders, Kind};
use super::run::{Contender, run_on};
use poolable::{Pool, Poolable, Reset};
use std::cell::Cell;
use std::hint::black_box;
use std::ptr;

/// The derived struct around one buffer.
#[derive(Poolable, Default)]
pub struct Obj {
    pub buf: Vec<u8>,
}

item!(derived Obj);

/// Workload 0 on a generic derived type (`Wrapper<()>`): its pool is looked
/// up per type at run time, which `Obj`'s static pool does not need. With
/// `()` it has `Obj`'s layout, so the ratio to `Obj` is the lookup's cost.
/// (`Wrapper<u8>` was 1.7-2.2x `Obj`'s time while a get and a return moved
/// the value, as was a non-generic `Obj` with a `u8` beside the `Vec`: the
/// return copied the value right after the reset wrote the byte, and the
/// copy's 16-byte load waited for that store.)
#[derive(Poolable, Default)]
pub struct Wrapper<T: Reset + Default + Send + 'static> {
    pub buf: Vec<u8>,
    pub tag: T,
}

/// The static pool of the "static pool without a derive" contender.
static OBJ_BUFS: Pool<Vec<u8>> = Pool::new();

/// The work: push one byte (into `Obj::buf`, or the `Vec` itself).
#[inline(never)]
pub fn push_byte(buf: &mut Vec<u8>, i: u64) {
    buf.push(i as u8);
    black_box(buf);
}

// ----------------------------------------------------- its own contenders

thread_local! {
    /// The floor's slot: null or a pointer from `Box::into_raw` owned by the
    /// slot. No destructor, so no lazy registration on access; a value still
    /// in it when its thread exits is leaked (one per thread, in a
    /// benchmark).
    static FLOOR: Cell<*mut Obj> = const { Cell::new(ptr::null_mut()) };
}

/// Raw single-slot floor: a `thread_local!` `Cell<*mut Obj>`, the same
/// reset, no size cap. Nothing can hand out and take back a value with less
/// work.
pub struct Floor {
    new: fn() -> Obj,
}

impl Floor {
    /// Take the slot's value, or make one (the floor's get).
    #[inline]
    fn take(&self) -> Box<Obj> {
        let p = FLOOR.with(|s| s.replace(ptr::null_mut()));
        if p.is_null() {
            Box::new((self.new)())
        } else {
            // SAFETY: a non-null pointer in the slot came from `Box::into_raw`
            // in `put` and was owned by the slot; `replace` took it out, so
            // this is the only owner.
            unsafe { Box::from_raw(p) }
        }
    }

    /// Reset a value and leave it in the slot (the floor's put).
    #[inline]
    fn put(&self, mut v: Box<Obj>) {
        Reset::reset(&mut *v);
        let old = FLOOR.with(|s| s.replace(Box::into_raw(v)));
        if !old.is_null() {
            // Only if the slot held one already (values never cross
            // threads here, so never).
            // SAFETY: as in `take`: `old` came from `Box::into_raw` and the
            // slot owned it until `replace` took it out.
            drop(unsafe { Box::from_raw(old) });
        }
    }
}

impl Contender<Obj> for Floor {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut Obj)) {
        let mut v = self.take();
        f(&mut v);
        self.put(v);
    }
}

/// A fresh `Box::new` value per operation (the pools hand out boxed values
/// too).
pub struct Boxed {
    new: fn() -> Obj,
}

impl Contender<Obj> for Boxed {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut Obj)) {
        let mut v = Box::new((self.new)());
        f(&mut v);
        drop(black_box(v));
    }
}

/// A contender of workload 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjContender {
    /// [`Floor`].
    Floor,
    /// [`Boxed`].
    Boxed,
    /// A contender of workloads 1-7 on `Obj` (poolable: `Obj::pool()` per
    /// op).
    On(Kind),
    /// A `static Pool<Vec<u8>>` of a type without a derive, the same work
    /// on the `Vec` itself.
    StaticPool,
    /// The generic derived `Wrapper<()>` (`Wrapper::<()>::pool()` per op).
    Generic,
}

impl ObjContender {
    /// Every contender of workload 0, in table order.
    pub const ALL: [ObjContender; 13] = [
        ObjContender::Floor,
        ObjContender::On(Kind::ThreadLocal),
        ObjContender::Boxed,
        ObjContender::On(Kind::Poolable),
        ObjContender::StaticPool,
        ObjContender::Generic,
        ObjContender::On(Kind::ObjectPool),
        ObjContender::On(Kind::LfLinear),
        ObjContender::On(Kind::LfSpinLock),
        ObjContender::On(Kind::Opool),
        ObjContender::On(Kind::ShardedSlab),
        ObjContender::On(Kind::PoolsharkLocal),
        ObjContender::On(Kind::PoolsharkGlobal),
    ];

    /// The criterion function id (and the key `scripts/bench_table.py` knows).
    pub fn id(self) -> &'static str {
        match self {
            ObjContender::Floor => "floor",
            ObjContender::Boxed => "box-new",
            ObjContender::On(kind) => kind.id(),
            ObjContender::StaticPool => "static-pool",
            ObjContender::Generic => "generic",
        }
    }
}

/// Workload 0: every contender's pool.
pub struct ObjContenders {
    floor: Floor,
    boxed: Boxed,
    obj: Contenders<Obj>,
}

impl Default for ObjContenders {
    fn default() -> Self {
        ObjContenders {
            floor: Floor { new: Obj::default },
            boxed: Boxed { new: Obj::default },
            obj: Contenders::new(Obj::pool(), Obj::default, CAP),
        }
    }
}

impl ObjContenders {
    /// `n` ops of workload 0 on this thread: get, push one byte, drop.
    #[inline(never)]
    pub fn run(&self, c: ObjContender, n: u64) {
        let push = |o: &mut Obj, i| push_byte(&mut o.buf, i);
        match c {
            ObjContender::Floor => run_on(&self.floor, n, &push),
            ObjContender::Boxed => run_on(&self.boxed, n, &push),
            ObjContender::On(Kind::Poolable) => {
                for i in 0..n {
                    push_byte(&mut Obj::pool().get().buf, i);
                }
            }
            ObjContender::On(kind) => self.obj.run(kind, n, push),
            ObjContender::StaticPool => {
                for i in 0..n {
                    push_byte(&mut OBJ_BUFS.get(), i);
                }
            }
            ObjContender::Generic => {
                for i in 0..n {
                    push_byte(&mut Wrapper::<()>::pool().get().buf, i);
                }
            }
        }
    }
}
