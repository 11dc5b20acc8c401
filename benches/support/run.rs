//! One op on one thread: [`Contender`], how each contender takes a value,
//! lets the workload use it and gives it back, and
//! [`Contenders::run`](super::contenders::Contenders::run), the benchmark
//! loop written once over it.

use super::contenders::{
    Contenders, Guarded, Item, Kind, ObjectPool, Plain, ShardedSlab, ThreadLocal,
};
use poolable::Reset;
use std::hint::black_box;

/// How one contender does one op on this thread: all that differs between
/// contenders in a single-threaded loop. The loop itself ([`run_on`]) is
/// generic over this trait, so each contender's loop is compiled for its
/// own type, with no `dyn` call in it.
pub trait Contender<T> {
    /// Take a value, let `f` use it, give it back.
    fn op(&self, f: impl FnOnce(&mut T));
}

/// `n` operations of `contender` on this thread: take a value,
/// `f(value, i)`, give it back. A function of its own for each contender,
/// whose loop is the contender's alone.
#[inline(never)]
pub fn run_on<T, C: Contender<T>>(contender: &C, n: u64, f: &impl Fn(&mut T, u64)) {
    for i in 0..n {
        contender.op(|v| f(v, i));
    }
}

impl<T: Item> Contenders<T> {
    /// `n` operations of `kind` on this thread: take a value, `f(value, i)`,
    /// give it back.
    pub fn run(&self, kind: Kind, n: u64, f: impl Fn(&mut T, u64)) {
        with_contender!(self, kind, |c| run_on(c, n, &f))
    }
}

/// poolable and the peers that hand out a guard: the guard's drop gives the
/// value back.
impl<G: Guarded> Contender<G::Value> for G {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut G::Value)) {
        let mut v = self.take();
        f(&mut v);
    }
}

impl<T: Item> Contender<T> for Plain<T> {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = (self.new)();
        f(&mut v);
        drop(black_box(v));
    }
}

impl<T: Item> Contender<T> for ThreadLocal<T> {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.take();
        f(&mut v);
        self.put(v);
    }
}

impl<T: Item> Contender<T> for ObjectPool<T> {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.pull(self.new);
        f(&mut v);
        Reset::reset(&mut *v);
    }
}

impl<T: Item> Contender<T> for ShardedSlab<T> {
    #[inline]
    fn op(&self, f: impl FnOnce(&mut T)) {
        let mut v = self.pool.create().expect("sharded-slab shard full");
        f(&mut v);
        let key = v.key();
        drop(v);
        self.pool.clear(key);
    }
}
