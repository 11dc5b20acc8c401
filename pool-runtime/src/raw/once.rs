//! [`OnceArc`]: a cell that is set once with an `Arc<T>`, by a race (the
//! losers' values are dropped), and read with one load: what a pool keeps
//! its storage in. `once_cell::race::OnceBox<Arc<T>>` does the same, but
//! its atomics and its race are generic: a debug build compiled some
//! fifteen functions of it for every pooled type. Here the race is one
//! function, compiled once.

use core::marker::PhantomData;
use core::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

pub(crate) struct OnceArc<T> {
    /// Null, or a `Box<Arc<T>>` from [`set`](OnceArc::set), freed by the
    /// cell's drop.
    value: AtomicPtr<()>,
    /// It owns an `Arc<T>` (for `Send`, `Sync` and the drop check).
    _owns: PhantomData<Arc<T>>,
}

impl<T> OnceArc<T> {
    pub(crate) const fn new() -> Self {
        OnceArc {
            value: AtomicPtr::new(ptr::null_mut()),
            _owns: PhantomData,
        }
    }

    /// The value, if the cell is set.
    #[inline]
    pub(crate) fn get(&self) -> Option<&Arc<T>> {
        // SAFETY: null, or a `Box<Arc<T>>` that `set` published with a
        // release (this acquire pairs with it) and that only the cell's
        // drop frees, which `&self` excludes.
        unsafe { self.value.load(Ordering::Acquire).cast::<Arc<T>>().as_ref() }
    }

    /// Set the cell to `value` unless another thread set it first (then
    /// `value` is dropped); the value the cell holds.
    pub(crate) fn set(&self, value: Arc<T>) -> &Arc<T> {
        let new = Box::into_raw(Box::new(value)).cast::<()>();
        let held = install(&self.value, new);
        if held != new {
            // SAFETY: `new` came from `Box::into_raw` above and was not
            // published: this is its only owner.
            drop(unsafe { Box::from_raw(new.cast::<Arc<T>>()) });
        }
        // SAFETY: `held` is the cell's value, a `Box<Arc<T>>` published
        // by this call or by the one that won the race, freed only by the
        // cell's drop (see `get`).
        unsafe { &*held.cast::<Arc<T>>() }
    }
}

/// Publish `new` in `cell` if it is null; the value the cell holds after
/// (`new`, or the value another thread published first).
fn install(cell: &AtomicPtr<()>, new: *mut ()) -> *mut () {
    match cell.compare_exchange(ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => new,
        Err(held) => held,
    }
}

impl<T> Drop for OnceArc<T> {
    fn drop(&mut self) {
        let value = *self.value.get_mut();
        if !value.is_null() {
            // SAFETY: a `Box<Arc<T>>` from `set`, owned by the cell, which
            // nothing else uses now (`&mut self`).
            drop(unsafe { Box::from_raw(value.cast::<Arc<T>>()) });
        }
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_first_value_set_stays_and_the_others_are_dropped() {
        let cell = OnceArc::new();
        assert!(cell.get().is_none());
        let (first, second) = (Arc::new(1), Arc::new(2));
        assert_eq!(**cell.set(Arc::clone(&first)), 1);
        assert_eq!(**cell.set(Arc::clone(&second)), 1);
        assert_eq!(
            Arc::strong_count(&second),
            1,
            "the loser's value is dropped"
        );
        assert_eq!(Arc::strong_count(&first), 2);
        drop(cell);
        assert_eq!(Arc::strong_count(&first), 1, "the cell's drop frees it");
    }

    #[test]
    fn racing_threads_all_read_the_winner() {
        let cell = OnceArc::new();
        let seen: Vec<i32> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..4)
                .map(|i| {
                    let cell = &cell;
                    s.spawn(move || **cell.set(Arc::new(i)))
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert!(seen.iter().all(|&v| v == seen[0]));
        assert_eq!(cell.get().map(|v| **v), Some(seen[0]));
    }
}
