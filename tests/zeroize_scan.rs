//! No path frees the bytes of a `#[poolable(zeroize)]` field unwiped.
//!
//! The global allocator of this test binary scans every block it frees for
//! `SECRET` and counts the blocks that still hold it. Each test writes the
//! secret into a zeroize field (pre-sized, so no reallocation frees an
//! unwiped copy: that path is documented as one no pool can cover), sends
//! the value down one discard path, and checks that no freed block held it.
//!
//! Its own test binary, because it needs a `#[global_allocator]`.

use poolable::{Poolable, Pooled, RecycleOption, Reset};
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::catch_unwind;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// 16 bytes that nothing else in this process writes to the heap.
const SECRET: &[u8; 16] = b"\x8f\xa3SECRET-2c9e7\x11\xd7";

struct Scanning;

/// Freed blocks that held `SECRET`.
static UNWIPED_FREES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the same arguments;
// `dealloc` only reads the block before freeing it.
unsafe impl GlobalAlloc for Scanning {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Zeroed, so every byte a block ever holds is initialised and the
        // scan in `dealloc` reads no uninitialised memory.
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller hands over a live block of `layout.size()`
        // bytes, all initialised (see `alloc`), which nothing else uses now.
        let block = unsafe { std::slice::from_raw_parts(ptr, layout.size()) };
        if block.windows(SECRET.len()).any(|w| w == SECRET) {
            UNWIPED_FREES.fetch_add(1, SeqCst);
        }
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Scanning = Scanning;

/// The tests run one at a time, so a count belongs to the test that reads it.
static SERIAL: Mutex<()> = Mutex::new(());

/// Run `discard` alone and return how many freed blocks held the secret.
fn unwiped_frees(discard: impl FnOnce()) -> usize {
    let _serial: MutexGuard<'_, ()> = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let before = UNWIPED_FREES.load(SeqCst);
    discard();
    UNWIPED_FREES.load(SeqCst) - before
}

/// A buffer holding the secret, with room to spare so nothing reallocates.
fn secret_buffer() -> Vec<u8> {
    let mut buf = Vec::with_capacity(64);
    buf.extend_from_slice(SECRET);
    buf
}

#[test]
fn the_scan_sees_an_unwiped_free() {
    assert_eq!(unwiped_frees(|| drop(secret_buffer())), 1);
}

// ---------------------------------------------------------------- a guard dropped during a panic

#[derive(Poolable, Default)]
struct Session {
    user: String,
    #[poolable(zeroize)]
    token: Vec<u8>,
}

#[test]
fn a_guard_dropped_during_a_panic_is_wiped_before_it_is_freed() {
    let unwiped = unwiped_frees(|| {
        let result = catch_unwind(|| {
            let mut session = Session::pool().get();
            session.user.push_str("ada");
            session.token = secret_buffer();
            panic!("intentional panic while the guard is held");
        });
        assert!(result.is_err());
    });
    assert_eq!(Session::pool().stats().dropped_panic, 1);
    assert_eq!(unwiped, 0);
}

// ---------------------------------------------------------------- an inline secret in a boxed guard

/// A secret stored inline: its bytes live wherever the value does, in the
/// guard's own memory, so a move out of the guard leaves a copy behind.
#[derive(Poolable, Default)]
struct InlineSession {
    user: String,
    #[poolable(zeroize)]
    key: [u8; 16],
}

#[test]
fn a_boxed_guard_dropped_during_a_panic_wipes_an_inline_secret_in_place() {
    let unwiped = unwiped_frees(|| {
        let result = catch_unwind(|| {
            // The guard lives in a `Box`, as it would in a `Vec` or an async
            // task: its memory goes back to the allocator after the drop.
            let mut session = Box::new(InlineSession::pool().get());
            session.user.push_str("ada");
            session.key = *SECRET;
            panic!("intentional panic while the boxed guard is held");
        });
        assert!(result.is_err());
    });
    assert_eq!(InlineSession::pool().stats().dropped_panic, 1);
    assert_eq!(unwiped, 0);
}

/// `into_inner` hands the value over whole: no heap copy is left behind by
/// the detach itself, and the value still wipes its secret when dropped.
/// (Moves the caller makes, a guard moved out of a `Box` say, are the
/// caller's: see `Pooled::into_inner`.)
#[test]
fn a_detached_value_wipes_its_inline_secret_when_it_is_dropped() {
    let unwiped = unwiped_frees(|| {
        let mut session = InlineSession::pool().get();
        session.key = *SECRET;
        let detached = Box::new(Pooled::into_inner(session));
        drop(detached);
    });
    assert_eq!(InlineSession::pool().stats().detached, 1);
    assert_eq!(unwiped, 0);
}

// ---------------------------------------------------------------- a panicking `with` reset

fn failing_reset(_: &mut u64) {
    panic!("intentional panic in a with = reset");
}

#[derive(Poolable, Default)]
struct Keyed {
    #[poolable(with = failing_reset)]
    id: u64,
    #[poolable(zeroize)]
    key: Vec<u8>,
}

#[test]
fn a_panicking_with_reset_does_not_leave_a_later_zeroize_field_unwiped() {
    let unwiped = unwiped_frees(|| {
        let result = catch_unwind(|| {
            let mut keyed = Keyed::pool().get();
            keyed.key = secret_buffer();
            drop(keyed);
        });
        assert!(result.is_err());
    });
    assert_eq!(unwiped, 0);
}

/// The wipe lives one level down, in a field's type, so the outer reset's
/// panic (on `id`) comes before it: the value is discarded unreset.
#[derive(Reset, Default)]
struct InlineKey {
    #[poolable(zeroize)]
    bytes: [u8; 16],
}

#[derive(Poolable, Default)]
struct Vault {
    #[poolable(with = failing_reset)]
    id: u64,
    key: InlineKey,
}

#[test]
fn a_panicking_reset_discards_a_boxed_guards_inline_secret_in_place() {
    let unwiped = unwiped_frees(|| {
        let result = catch_unwind(|| {
            let mut vault = Box::new(Vault::pool().get());
            vault.key.bytes = *SECRET;
            drop(vault);
        });
        assert!(result.is_err());
    });
    assert_eq!(Vault::pool().stats().dropped_panic, 1);
    assert_eq!(unwiped, 0);
}

// ---------------------------------------------------------------- where a discarded value is dropped

// The two scans above catch the copy a move leaves behind in optimised
// builds, where `Option::take` writes only `None`'s tag over the slot
// (`cargo test --config 'profile.dev.package.poolable-tests.opt-level=2'
// -p poolable-tests --test zeroize_scan`). Unoptimised, it copies a whole
// stack temporary over the slot, which hides the copy from the scan; these
// two catch the move itself, at any optimisation level: a value discarded
// on a panic path is dropped where its guard holds it.

/// The address of the last `DropSite` dropped.
static DROPPED_AT: AtomicUsize = AtomicUsize::new(0);

/// Records where it is dropped; one byte, so that it has an address of its
/// own inside the struct that holds it.
#[derive(Default)]
struct DropSite(#[allow(dead_code)] u8);

impl Drop for DropSite {
    fn drop(&mut self) {
        DROPPED_AT.store(std::ptr::from_mut(self) as usize, SeqCst);
    }
}

#[derive(Poolable, Default)]
struct Sited {
    #[poolable(skip)]
    site: DropSite,
}

#[derive(Poolable, Default)]
struct SitedFailing {
    #[poolable(with = failing_reset)]
    id: u64,
    #[poolable(skip)]
    site: DropSite,
}

#[test]
fn a_guard_dropped_during_a_panic_drops_its_value_in_place() {
    let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let held_at = AtomicUsize::new(0);
    let result = catch_unwind(|| {
        let sited = Box::new(Sited::pool().get());
        held_at.store(std::ptr::from_ref(&sited.site) as usize, SeqCst);
        panic!("intentional panic while the boxed guard is held");
    });
    assert!(result.is_err());
    assert_eq!(Sited::pool().stats().dropped_panic, 1);
    assert_eq!(DROPPED_AT.load(SeqCst), held_at.load(SeqCst));
}

#[test]
fn a_panicking_reset_drops_the_value_in_place() {
    let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let held_at = AtomicUsize::new(0);
    let result = catch_unwind(|| {
        let sited = Box::new(SitedFailing::pool().get());
        held_at.store(std::ptr::from_ref(&sited.site) as usize, SeqCst);
        drop(sited);
    });
    assert!(result.is_err());
    assert_eq!(SitedFailing::pool().stats().dropped_panic, 1);
    assert_eq!(DROPPED_AT.load(SeqCst), held_at.load(SeqCst));
}

// ---------------------------------------------------------------- a `RecycleOption` whose value's reset panics

/// Wipes its key, then panics in the reset of `id`.
#[derive(Reset, Default)]
struct FailingKey {
    #[poolable(zeroize)]
    bytes: [u8; 16],
    #[poolable(with = failing_reset)]
    id: u64,
    #[poolable(skip)]
    site: DropSite,
}

#[derive(Poolable, Default)]
struct Recycled {
    key: RecycleOption<FailingKey>,
}

/// The same as `Recycled`, with a pool of its own for the drop-site test.
#[derive(Poolable, Default)]
struct RecycledSited {
    key: RecycleOption<FailingKey>,
}

#[test]
fn a_recycle_option_whose_reset_panics_leaves_no_inline_secret_behind() {
    let unwiped = unwiped_frees(|| {
        let result = catch_unwind(|| {
            let mut recycled = Box::new(Recycled::pool().get());
            recycled.key.get_or_insert_reset().bytes = *SECRET;
            drop(recycled);
        });
        assert!(result.is_err());
    });
    assert_eq!(Recycled::pool().stats().dropped_panic, 1);
    assert_eq!(unwiped, 0);
}

#[test]
fn a_recycle_option_whose_reset_panics_drops_its_value_in_place() {
    let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let held_at = AtomicUsize::new(0);
    let result = catch_unwind(|| {
        let mut recycled = Box::new(RecycledSited::pool().get());
        let key = recycled.key.get_or_insert_reset();
        held_at.store(std::ptr::from_ref(&key.site) as usize, SeqCst);
        drop(recycled);
    });
    assert!(result.is_err());
    assert_eq!(RecycledSited::pool().stats().dropped_panic, 1);
    assert_eq!(DROPPED_AT.load(SeqCst), held_at.load(SeqCst));
}

// ---------------------------------------------------------------- containers that drop on reset

#[derive(Reset, Default)]
struct Credentials {
    #[poolable(zeroize)]
    password: Vec<u8>,
}

impl Credentials {
    fn holding_secret() -> Self {
        Credentials {
            password: secret_buffer(),
        }
    }
}

#[derive(Poolable, Default)]
struct Login {
    credentials: Option<Credentials>,
}

#[derive(Poolable, Default)]
struct Batch {
    credentials: Vec<Credentials>,
}

#[derive(Poolable, Default)]
struct Replaced {
    #[poolable(default)]
    credentials: Credentials,
}

#[test]
fn a_zeroize_field_in_an_option_is_wiped_when_the_reset_drops_it() {
    let unwiped = unwiped_frees(|| {
        let mut login = Login::pool().get();
        login.credentials = Some(Credentials::holding_secret());
        drop(login);
    });
    assert_eq!(unwiped, 0);
}

#[test]
fn a_zeroize_field_in_a_vec_is_wiped_when_the_reset_clears_it() {
    let unwiped = unwiped_frees(|| {
        let mut batch = Batch::pool().get();
        batch.credentials.reserve(4);
        batch.credentials.push(Credentials::holding_secret());
        drop(batch);
    });
    assert_eq!(unwiped, 0);
}

#[test]
fn a_zeroize_field_in_a_default_field_is_wiped_when_the_reset_replaces_it() {
    let unwiped = unwiped_frees(|| {
        let mut replaced = Replaced::pool().get();
        replaced.credentials = Credentials::holding_secret();
        drop(replaced);
    });
    assert_eq!(unwiped, 0);
}

#[test]
fn a_zeroize_struct_dropped_outside_any_pool_is_wiped() {
    assert_eq!(unwiped_frees(|| drop(Credentials::holding_secret())), 0);
}

// ---------------------------------------------------------------- BytesMut split

#[cfg(feature = "bytes")]
mod bytes_mut {
    use super::*;
    use bytes::BytesMut;

    #[derive(Poolable, Default)]
    struct Frame {
        #[poolable(zeroize)]
        buf: BytesMut,
    }

    /// The secret split off and dropped still sits in the allocation the
    /// pooled handle keeps; the wipe must reach it.
    #[test]
    fn a_split_off_secret_is_wiped_before_the_buffer_is_freed() {
        let unwiped = unwiped_frees(|| {
            let mut frame = Frame::pool().get();
            frame.buf.reserve(64);
            frame.buf.extend_from_slice(SECRET);
            frame.buf.extend_from_slice(b"rest of the stream");
            drop(frame.buf.split_to(SECRET.len()));
            drop(frame);
            Frame::pool().clear();
        });
        assert_eq!(unwiped, 0);
    }

    /// Nor does the secret wait in the pool, in a buffer returned after the
    /// split, for whoever gets it next.
    #[test]
    fn a_split_off_secret_does_not_wait_in_the_pool() {
        let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let mut frame = Frame::pool().get();
        frame.buf.reserve(64);
        frame.buf.extend_from_slice(SECRET);
        frame.buf.extend_from_slice(b"rest of the stream");
        drop(frame.buf.split_to(SECRET.len()));
        drop(frame);

        let mut next = Frame::pool().get();
        assert!(
            next.buf.capacity() >= 64,
            "test setup: the buffer is reused"
        );
        let spare = next.buf.spare_capacity_mut();
        // SAFETY: the allocator zeroes every block it hands out, so all of
        // the spare capacity is initialised bytes.
        let spare = unsafe { std::slice::from_raw_parts(spare.as_ptr().cast::<u8>(), spare.len()) };
        assert!(!spare.windows(SECRET.len()).any(|w| w == SECRET));
    }
}
