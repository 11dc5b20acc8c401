//! The concurrency primitives of the storage, switched to loom's
//! model-checked versions under `--cfg poolable_loom` (the sharded-slab and
//! tokio pattern), so the code that runs is the code that is checked. The cfg
//! is this crate's own rather than the usual `loom`, so that a user crate
//! model-checking its own code with `--cfg loom` keeps a working poolable.
//!
//! Reference counting stays on `std::sync::Arc` in both builds: the pool needs
//! `Weak` for its global registry, which loom does not model, and the
//! interesting interleavings are in the mutexes, atomics and cells below.

#[cfg(poolable_loom)]
pub(crate) use loom::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, fence},
};

#[cfg(not(poolable_loom))]
pub(crate) use std::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, fence},
};

pub(crate) use core::sync::atomic::Ordering;
pub(crate) use std::sync::{Arc, Weak};

/// `loom::cell::UnsafeCell` under the model checker, which then checks every
/// access for a data race; a zero-cost wrapper with the same API otherwise.
#[cfg(poolable_loom)]
pub(crate) use loom::cell::UnsafeCell;

#[cfg(not(poolable_loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(poolable_loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        UnsafeCell(core::cell::UnsafeCell::new(value))
    }

    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// Lock a mutex, ignoring poison.
///
/// The storage never runs user code while it holds a lock (values are moved
/// out and dropped after the guard is gone), so a poisoned lock can only come
/// from a bug in this crate; the data under it is still a valid list of
/// reset values.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Lock a mutex if no one holds it (ignoring poison, as [`lock`] does).
pub(crate) fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// A `thread_local!` that is const-initialised in normal builds (no lazy-init
/// check on the hot path) and a loom thread-local under the model checker.
macro_rules! thread_local_const {
    ($(#[$attr:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        #[cfg(not(poolable_loom))]
        std::thread_local! { $(#[$attr])* static $name: $ty = const { $init }; }
        #[cfg(poolable_loom)]
        loom::thread_local! { $(#[$attr])* static $name: $ty = $init; }
    };
}
pub(crate) use thread_local_const;

/// Pads and aligns a value to its own cache line(s), so that two shards never
/// share one (crossbeam's `CachePadded`, reduced to what we need: 128 bytes
/// covers x86-64's adjacent-line prefetcher and aarch64's 128-byte lines).
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> core::ops::Deref for CachePadded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
