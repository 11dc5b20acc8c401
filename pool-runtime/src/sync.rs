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
/// access for a data race; a zero-cost wrapper of core's otherwise.
#[derive(Debug)]
pub(crate) struct UnsafeCell<T> {
    #[cfg(not(poolable_loom))]
    cell: core::cell::UnsafeCell<T>,
    #[cfg(poolable_loom)]
    cell: loom::cell::UnsafeCell<T>,
}

impl<T> UnsafeCell<T> {
    pub(crate) fn new(value: T) -> Self {
        UnsafeCell {
            #[cfg(not(poolable_loom))]
            cell: core::cell::UnsafeCell::new(value),
            #[cfg(poolable_loom)]
            cell: loom::cell::UnsafeCell::new(value),
        }
    }

    /// A mutable access to the value, for as long as the returned
    /// [`Access`] lives (loom checks it against every other access). Not a
    /// closure, as loom's `with_mut` takes: that would be one more function
    /// per caller and pooled type in a debug build.
    #[inline(always)]
    pub(crate) fn get_mut(&self) -> Access<T> {
        Access {
            #[cfg(not(poolable_loom))]
            ptr: self.cell.get(),
            #[cfg(poolable_loom)]
            ptr: self.cell.get_mut(),
        }
    }
}

/// An access to an [`UnsafeCell`]'s value ([`UnsafeCell::get_mut`]).
pub(crate) struct Access<T> {
    #[cfg(not(poolable_loom))]
    ptr: *mut T,
    #[cfg(poolable_loom)]
    ptr: loom::cell::MutPtr<T>,
}

impl<T> Access<T> {
    /// The value's pointer, valid while `self` lives. Dereferencing it is
    /// the caller's `unsafe` (in `raw/`).
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *mut T {
        #[cfg(not(poolable_loom))]
        {
            self.ptr
        }
        #[cfg(poolable_loom)]
        {
            self.ptr.with(|ptr| ptr)
        }
    }
}

/// Lock a mutex, ignoring poison.
///
/// The storage never runs user code while it holds a lock (values are moved
/// out and dropped after the guard is gone), so a poisoned lock can only come
/// from a bug in this crate; the data under it is still a valid list of
/// reset values.
///
/// A `match` rather than `unwrap_or_else`: it is generic over the locked
/// type, and a debug build of every pooled type would compile that adapter
/// and its call shim again.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
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
