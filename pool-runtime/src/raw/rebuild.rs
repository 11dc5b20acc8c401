//! Rebuild a `Mutex`, `RwLock` or `RefCell` around its own contents.
//!
//! `mem::forget` on a guard is safe code, and it leaves the lock locked (or
//! the cell borrowed) for good: the next `lock()` blocks forever, the next
//! `borrow()` panics. Through `&mut` no guard can be live, so a leaked one
//! is the only way the lock can be held; the reset then rebuilds the lock
//! around its contents, which drops the leaked state (and any poison) and
//! keeps the contents' allocations.
//!
//! Safe code cannot move a value out of a `&mut T` without leaving another
//! `T` behind, and a lock's contents need not have a cheap placeholder
//! (`Default`). So the value is read out with `ptr::read` and the rebuilt
//! one written back with `ptr::write`, with nothing that can unwind in
//! between.

use core::{mem, ptr};
use std::cell::RefCell;
use std::sync::{Mutex, PoisonError, RwLock};

/// Replace `*slot` with `rebuild(*slot)`, moving the value out and back.
///
/// Between the read and the write, `*slot` is a bitwise copy of a value now
/// owned by `rebuild`: an unwind out of `rebuild` would let the caller's
/// owner drop that copy a second time. The callers below pass conversions
/// that cannot panic; the guard turns a broken promise into an abort rather
/// than a double drop.
fn rebuild_in_place<T>(slot: &mut T, rebuild: impl FnOnce(T) -> T) {
    let abort_on_unwind = AbortOnUnwind;
    // SAFETY: `slot` comes from a `&mut T`, so it is aligned, initialised and
    // valid for reads. The read makes a second owner of the value; the first
    // one (`*slot`) is not used again before the write below overwrites it:
    // we hold the only borrow of `slot`, and an unwind from `rebuild` aborts
    // (the guard) instead of letting anyone drop `*slot`.
    let value = unsafe { ptr::read(slot) };
    let rebuilt = rebuild(value);
    // SAFETY: `slot` is aligned and valid for writes (it comes from a
    // `&mut T`). Its old contents were moved out by the read above and
    // consumed by `rebuild`, so overwriting them without a drop is exactly
    // right: `ptr::write` drops nothing.
    unsafe { ptr::write(slot, rebuilt) };
    mem::forget(abort_on_unwind);
}

/// Aborts the process if dropped, that is, if an unwind passes through the
/// scope that owns it before it is forgotten.
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        std::process::abort();
    }
}

/// Replace `mutex` with a new, unlocked and unpoisoned one holding the same
/// value.
pub(crate) fn mutex<T>(mutex: &mut Mutex<T>) {
    // `into_inner` ignores the lock state (a guard cannot be live, we hold
    // `&mut`), and neither it, `PoisonError::into_inner` nor `Mutex::new`
    // can panic.
    rebuild_in_place(mutex, |m| {
        Mutex::new(m.into_inner().unwrap_or_else(PoisonError::into_inner))
    });
}

/// Replace `lock` with a new, unlocked and unpoisoned one holding the same
/// value.
pub(crate) fn rw_lock<T>(lock: &mut RwLock<T>) {
    // As for `mutex`: none of these calls can panic.
    rebuild_in_place(lock, |l| {
        RwLock::new(l.into_inner().unwrap_or_else(PoisonError::into_inner))
    });
}

/// Replace `cell` with a new, unborrowed one holding the same value.
pub(crate) fn ref_cell<T>(cell: &mut RefCell<T>) {
    // `RefCell::into_inner` ignores the borrow flag, and `RefCell::new`
    // cannot panic.
    rebuild_in_place(cell, |c| RefCell::new(c.into_inner()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn mutex_is_unlocked_after_a_forgotten_guard_and_keeps_its_value() {
        let mut m = Mutex::new(vec![1_u8, 2, 3]);
        mem::forget(m.lock().unwrap());
        assert!(m.try_lock().is_err(), "test setup: the lock must be held");
        mutex(&mut m);
        assert_eq!(*m.try_lock().expect("unlocked"), [1, 2, 3]);
    }

    #[test]
    fn mutex_poison_is_cleared() {
        let m = Mutex::new(String::from("x"));
        let _ = std::panic::catch_unwind(|| {
            let _guard = m.lock().unwrap();
            panic!("poison it");
        });
        let mut m = m;
        assert!(m.is_poisoned(), "test setup: the lock must be poisoned");
        mutex(&mut m);
        assert!(!m.is_poisoned());
        assert_eq!(*m.lock().unwrap(), "x");
    }

    #[test]
    fn rw_lock_is_unlocked_after_forgotten_guards() {
        let mut l = RwLock::new(String::from("kept"));
        mem::forget(l.write().unwrap());
        rw_lock(&mut l);
        mem::forget(l.read().unwrap());
        assert!(
            l.try_write().is_err(),
            "test setup: a reader must be leaked"
        );
        rw_lock(&mut l);
        assert_eq!(*l.try_write().expect("unlocked"), "kept");
    }

    #[test]
    fn ref_cell_is_unborrowed_after_forgotten_borrows() {
        let mut c = RefCell::new(vec![7_u32]);
        mem::forget(c.borrow_mut());
        ref_cell(&mut c);
        mem::forget(c.borrow());
        assert!(
            c.try_borrow_mut().is_err(),
            "test setup: a borrow must be leaked"
        );
        ref_cell(&mut c);
        assert_eq!(*c.try_borrow_mut().expect("unborrowed"), [7]);
    }

    /// The value is moved, not copied and dropped: exactly one owner is left.
    #[test]
    fn the_value_is_neither_dropped_nor_duplicated() {
        let shared = Rc::new(());
        let mut c = RefCell::new(Rc::clone(&shared));
        let mut m = Mutex::new(vec![Rc::clone(&shared)]);
        ref_cell(&mut c);
        mutex(&mut m);
        assert_eq!(Rc::strong_count(&shared), 3);
        drop((c, m));
        assert_eq!(Rc::strong_count(&shared), 1);
    }

    /// A move out and back of a value that points into the heap keeps the
    /// allocation (Miri checks the provenance of the pointer that survives).
    #[test]
    fn the_allocation_is_kept() {
        let mut m = Mutex::new(Vec::<u64>::with_capacity(64));
        let before = m.get_mut().unwrap().as_ptr();
        mem::forget(m.lock().unwrap());
        mutex(&mut m);
        let inner = m.get_mut().unwrap();
        inner.push(1);
        assert_eq!((inner.as_ptr(), inner.capacity()), (before, 64));
    }
}
