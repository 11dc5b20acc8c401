//! A counting `#[global_allocator]` of the live heap bytes of the whole
//! process, and their peak since the last [`reset_peak`]. Including this
//! module installs it in the test binary, so give such tests a binary of
//! their own, with one test in it (every thread's allocations count).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: both methods forward to `System` unchanged and only add
// bookkeeping that does not allocate; `realloc` and `alloc_zeroed` keep
// their default implementations, which call these two.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size() as isize, Relaxed) + layout.size() as isize;
            PEAK.fetch_max(live, Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The heap bytes the process has allocated and not freed.
pub fn live_bytes() -> isize {
    LIVE.load(Relaxed)
}

/// The most [`live_bytes`] there were since the last call, which starts the
/// next peak from now.
pub fn reset_peak() -> isize {
    PEAK.swap(LIVE.load(Relaxed), Relaxed)
}
