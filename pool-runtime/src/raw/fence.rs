//! Asymmetric fences: a nearly free one for the thread that owns a cache, an
//! expensive one for the rare thread that reclaims it.
//!
//! The thread tier's owner/reclaimer protocol (`owned.rs`) is Dekker's: each
//! side stores its own flag, fences, then loads the other's. A full fence on
//! the owner's side would cost every get and every return about as much as
//! the rest of the operation. On Linux, `membarrier(2)` with
//! `MEMBARRIER_CMD_PRIVATE_EXPEDITED` makes every running thread of the
//! process execute a full barrier, so the owner needs only a compiler fence
//! ([`light`]) and the reclaimer pays one system call per batch of
//! requests ([`heavy`]): a trim of every pool makes one, however many
//! threads and pools there are (`owned.rs`).
//! This is the pairing of Linux's `smp_mb()`/`barrier()` under membarrier,
//! and of folly's `asymmetricLightBarrier`/`asymmetricHeavyBarrier`.
//!
//! Where membarrier is not available (another OS, a kernel before 4.14, a
//! seccomp filter that refuses it, Miri, loom), both sides use a sequentially
//! consistent fence: correct everywhere, and slower only on the fast path.
//! The choice is made once, before the first pool allocates its storage.

use crate::sync::{Ordering, fence};

#[cfg(all(target_os = "linux", not(miri), not(poolable_loom)))]
mod mode {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};

    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    /// Whether [`super::heavy`] is a membarrier. Written once, by `init`,
    /// before any thread cache exists; read on every fast-path operation.
    static ASYMMETRIC: AtomicBool = AtomicBool::new(false);

    fn membarrier(cmd: libc::c_int) -> bool {
        // SAFETY: membarrier takes two integer arguments and touches no
        // memory of ours; an unknown or refused command returns -1.
        unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint) == 0 }
    }

    pub(super) fn init() {
        static ONCE: OnceLock<()> = OnceLock::new();
        ONCE.get_or_init(|| {
            if membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) {
                ASYMMETRIC.store(true, Ordering::Relaxed);
            }
        });
    }

    #[inline(always)]
    pub(super) fn asymmetric() -> bool {
        ASYMMETRIC.load(Ordering::Relaxed)
    }

    pub(super) fn heavy() -> bool {
        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
    }
}

#[cfg(not(all(target_os = "linux", not(miri), not(poolable_loom))))]
mod mode {
    pub(super) fn init() {}

    #[inline(always)]
    pub(super) fn asymmetric() -> bool {
        false
    }

    pub(super) fn heavy() -> bool {
        false
    }
}

/// Choose the fence pair for this process. Must run before the first thread
/// cache is created (the pool calls it when it allocates its storage, which
/// every thread cache's creation follows).
pub(crate) fn init() {
    mode::init();
}

/// Whether [`heavy`] is a membarrier, so that [`light`] may be a compiler
/// fence. Fixed by [`init`]; a thread cache reads it once, when it is made,
/// and keeps it in its mark (`owned.rs`): no load of its own per
/// operation.
pub(crate) fn asymmetric() -> bool {
    mode::asymmetric()
}

/// The owner's side: a compiler fence when [`heavy`] is a membarrier
/// (`asymmetric`, from [`asymmetric()`]), a full fence otherwise.
#[inline(always)]
pub(crate) fn light(asymmetric: bool) {
    if asymmetric {
        core::sync::atomic::compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
}

/// The reclaimer's side. When it returns true, every owner either has made
/// its busy mark (`owned.rs`) visible to this thread, or will see this
/// thread's earlier stores in its next operation. False (a registered membarrier that failed,
/// which the kernel documents no reason for) means nothing is known: the
/// caller must then leave every thread cache to its owner.
#[must_use]
pub(crate) fn heavy() -> bool {
    #[cfg(all(test, not(poolable_loom)))]
    tests::HEAVY_HERE.with(|n| n.set(n.get() + 1));
    if mode::asymmetric() {
        mode::heavy()
    } else {
        fence(Ordering::SeqCst);
        true
    }
}

#[cfg(all(test, not(poolable_loom)))]
pub(crate) mod tests {
    use std::cell::Cell;

    std::thread_local! {
        /// Heavy fences run by this thread (tests only).
        pub(crate) static HEAVY_HERE: Cell<u64> = const { Cell::new(0) };
    }

    /// How many heavy fences `f` runs on the calling thread.
    pub(crate) fn heavy_fences_of(f: impl FnOnce()) -> u64 {
        let before = HEAVY_HERE.with(Cell::get);
        f();
        HEAVY_HERE.with(Cell::get) - before
    }
}
