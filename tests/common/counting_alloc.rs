//! A counting `#[global_allocator]` for zero-allocation tests. Including this
//! module installs it in the test binary, so give such tests a binary of
//! their own.
//!
//! It counts only on threads that opted in, and only inside a measured
//! window ([`count_allocs`]), so the test harness and other tests running in
//! parallel do not disturb the counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // `const`-initialised and without a destructor: reachable from the
    // allocator at any time, and accessing them never allocates.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    /// The size of the last counted allocation, for failure messages.
    static LAST_SIZE: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(size: usize) {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        let _ = LAST_SIZE.try_with(|s| s.set(size));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments; the
// counting touches only the thread-locals above and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Run `f` and count the allocations (and reallocations) it makes on this
/// thread; also the size of the last one, for the failure message.
pub fn count_allocs<R>(f: impl FnOnce() -> R) -> (R, u64, usize) {
    ALLOCS.with(|n| n.set(0));
    LAST_SIZE.with(|s| s.set(0));
    COUNTING.with(|c| c.set(true));
    let result = f();
    COUNTING.with(|c| c.set(false));
    (result, ALLOCS.with(Cell::get), LAST_SIZE.with(Cell::get))
}
