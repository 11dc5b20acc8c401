//! Regression tests for the reliability review (issue 12): decay and the
//! stats identity survive panicking `Drop`s, `clear` and two trims reach
//! every thread's cache, idle threads do not break the memory bound, and
//! large inline values are measured.
//!
//! Each test failed on the runtime before the fix (the first version's
//! `main`); the comment above it says how.

mod common {
    pub mod bomb;
    pub mod child_process;
    pub mod planned_panic;
    pub mod serial;
}

use common::bomb::Bomb;
use common::child_process::in_child;
use common::planned_panic::quiet_planned_panics;
use common::serial::alone;
use poolable::Pool;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::sync::{Arc, Barrier, mpsc};
use std::thread;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Helpers.

/// Tracks the live bytes of allocations of exactly `MARK` bytes, so the
/// tests of this binary running in parallel do not disturb the count.
struct MarkedAlloc;

const MARK: usize = 60_000;
static MARKED_LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to `System`, only counting.
unsafe impl GlobalAlloc for MarkedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() == MARK {
            MARKED_LIVE.fetch_add(MARK as isize, Relaxed);
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() == MARK {
            MARKED_LIVE.fetch_sub(MARK as isize, Relaxed);
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: MarkedAlloc = MarkedAlloc;

/// A buffer with an allocation of exactly `MARK` bytes.
fn marked() -> Vec<u8> {
    Vec::with_capacity(MARK)
}

/// Return an armed bomb to `pool` from this thread.
fn leave_armed(pool: &Pool<Bomb>) {
    let mut bomb = pool.get();
    bomb.armed = true;
    drop(bomb);
}

/// Wait (up to a minute) until `done` holds; false if it never did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        thread::sleep(Duration::from_millis(5));
    }
    false
}

// ---------------------------------------------------------------------------
// Finding 1: one panicking `Drop` stopped all decay, for every pool.
// Before: the panic came out of `trim_all`, which skipped every pool after
// the one that panicked, and killed the trimmer thread.

static BOMBS: Pool<Bomb> = Pool::new();
static BUFS: Pool<Vec<u8>> = Pool::new();

#[test]
fn a_panicking_drop_in_one_pool_neither_stops_the_others_decay_nor_the_trimmer() {
    quiet_planned_panics();
    let _alone = alone();
    // BOMBS registers first, so `trim_all` meets it before BUFS.
    leave_armed(&BOMBS);
    let fill = || (0..8).for_each(|_| BUFS.put(marked()));
    fill();
    assert_eq!(BUFS.stats().retained, 8);

    poolable::trim_all();
    poolable::trim_all(); // drops the armed bomb: counted, not raised
    assert_eq!(BOMBS.stats().drop_panics, 1, "{}", BOMBS.stats());
    assert_eq!(BUFS.stats().retained, 0, "{}", BUFS.stats());

    // The trimmer meets another armed bomb and keeps decaying BUFS after it.
    leave_armed(&BOMBS);
    let trimmer = poolable::trimmer::spawn(Duration::from_millis(5)).unwrap();
    assert!(
        eventually(|| BOMBS.stats().drop_panics == 2),
        "{}",
        BOMBS.stats()
    );
    fill();
    assert!(
        eventually(|| BUFS.stats().retained == 0),
        "{}",
        BUFS.stats()
    );
    trimmer.stop();
    assert_eq!(BOMBS.stats().unaccounted(0, 0), 0, "{}", BOMBS.stats());
}

// ---------------------------------------------------------------------------
// Finding 2: two panicking `Drop`s in one batch aborted the process (a
// panic while a batch was unwinding). Each case runs in a child process,
// since an abort would take the test binary down with it.

/// Two armed bombs idle in this thread's cache.
fn two_armed(pool: &Pool<Bomb>) {
    let mut a = pool.get();
    let mut b = pool.get();
    a.armed = true;
    b.armed = true;
    drop((a, b));
    assert_eq!(pool.stats().retained, 2);
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn two_panicking_drops_in_one_trim_do_not_abort() {
    if in_child("two_panicking_drops_in_one_trim_do_not_abort", &[]) {
        quiet_planned_panics();
        let pool = Pool::<Bomb>::new();
        two_armed(&pool);
        pool.trim();
        pool.trim();
        let stats = pool.stats();
        assert_eq!((stats.drop_panics, stats.retained), (2, 0), "{stats}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn two_panicking_drops_in_one_clear_do_not_abort() {
    if in_child("two_panicking_drops_in_one_clear_do_not_abort", &[]) {
        quiet_planned_panics();
        let pool = Pool::<Bomb>::new();
        two_armed(&pool);
        pool.clear();
        let stats = pool.stats();
        assert_eq!((stats.drop_panics, stats.retained), (2, 0), "{stats}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn two_panicking_drops_at_thread_exit_do_not_abort() {
    if in_child("two_panicking_drops_at_thread_exit_do_not_abort", &[]) {
        quiet_planned_panics();
        // No room in the shards (`max_retained` below one cache), so the
        // exiting thread's cache drops both itself.
        let pool: &'static Pool<Bomb> = Box::leak(Box::new(Pool::new().max_retained(4)));
        thread::spawn(|| two_armed(pool)).join().unwrap();
        let stats = pool.stats();
        assert_eq!(stats.drop_panics, 2, "{stats}");
        assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
    }
}

// ---------------------------------------------------------------------------
// Finding 3: a panic during aging came out of an unrelated `drop(guard)`.
// Before: a trim only bumped a generation; the owner aged its cache at its
// next return, after taking the returned value, so the bomb's panic escaped
// from `drop(guard)` and the returned value was lost from the stats.

#[test]
fn a_panic_while_aging_never_escapes_from_an_unrelated_return() {
    let _alone = alone();
    quiet_planned_panics();
    let pool = Arc::new(Pool::<Bomb>::new());
    let (armed_tx, armed_rx) = mpsc::channel();
    let (trimmed_tx, trimmed_rx) = mpsc::channel::<()>();
    let owner = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || {
            let held = pool.get();
            leave_armed(&pool);
            armed_tx.send(()).unwrap();
            trimmed_rx.recv().unwrap();
            drop(held); // an unrelated return: must not panic
        })
    };
    armed_rx.recv().unwrap();
    pool.trim();
    pool.trim();
    trimmed_tx.send(()).unwrap();
    owner.join().expect("the return panicked");
    let stats = pool.stats();
    assert_eq!(stats.drop_panics, 1, "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

// ---------------------------------------------------------------------------
// Finding 4: `clear()` did not reach another thread's `get`.
// Before: the other thread's next `get` returned the buffer its cache held
// before the clear. Likewise after two trims.

/// A thread returns a marked buffer to `pool`, `between` runs on this
/// thread, then the same thread gets again: true if it got the old buffer.
fn other_thread_gets_its_old_buffer(pool: &Arc<Pool<Vec<u8>>>, between: impl FnOnce()) -> bool {
    let (returned_tx, returned_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let other = {
        let pool = Arc::clone(pool);
        thread::spawn(move || {
            pool.put(marked());
            returned_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            pool.get().capacity() == MARK
        })
    };
    returned_rx.recv().unwrap();
    between();
    go_tx.send(()).unwrap();
    other.join().unwrap()
}

#[test]
fn clear_reaches_another_threads_next_get() {
    let _alone = alone();
    let pool = Arc::new(Pool::new());
    assert!(!other_thread_gets_its_old_buffer(&pool, || pool.clear()));
    assert_eq!(pool.stats().dropped_idle, 1, "{}", pool.stats());
}

#[test]
fn two_trims_reach_another_threads_next_get() {
    let _alone = alone();
    let pool = Arc::new(Pool::new());
    assert!(!other_thread_gets_its_old_buffer(&pool, || {
        pool.trim();
        pool.trim();
    }));
}

#[test]
fn one_trim_keeps_another_threads_buffer() {
    // The two tests above would pass if the other thread's cache were
    // never used; one trim must leave its buffer in place.
    let _alone = alone();
    let pool = Arc::new(Pool::new());
    assert!(other_thread_gets_its_old_buffer(&pool, || pool.trim()));
}

// ---------------------------------------------------------------------------
// Finding 5: idle threads broke the memory bound.
// Before: 200 threads that used a pool once and stayed alive kept their
// caches through any number of trims and clears.

#[test]
fn two_hundred_idle_threads_hold_nothing_after_two_trims() {
    let _alone = alone();
    const THREADS: usize = 200;
    let pool = Arc::new(Pool::<Vec<u8>>::new());
    let before = MARKED_LIVE.load(Relaxed);
    let filled = Arc::new(Barrier::new(THREADS + 1));
    let release = Arc::new(Barrier::new(THREADS + 1));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (pool, filled, release) =
                (Arc::clone(&pool), Arc::clone(&filled), Arc::clone(&release));
            thread::Builder::new()
                .stack_size(64 << 10)
                .spawn(move || {
                    for _ in 0..poolable::LOCAL_CACHE_SIZE {
                        pool.put(marked());
                    }
                    filled.wait();
                    release.wait(); // idle, alive, never touching the pool
                })
                .unwrap()
        })
        .collect();
    filled.wait();
    let held = MARKED_LIVE.load(Relaxed) - before;
    assert!(
        held >= (THREADS * poolable::LOCAL_CACHE_SIZE * MARK) as isize,
        "{held}"
    );

    pool.trim();
    pool.trim();
    let stats = pool.stats();
    let kept = MARKED_LIVE.load(Relaxed) - before;
    let bound = (64 * poolable::DEFAULT_MAX_BYTES) as isize; // 64 = max_retained on 2 CPUs at least
    assert!(kept <= bound, "{kept} bytes kept by idle threads; {stats}");
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    assert_eq!(kept, 0, "{stats}");

    release.wait();
    for thread in threads {
        thread.join().unwrap();
    }
}

// ---------------------------------------------------------------------------
// Finding 6: large inline types were not measured.
// Before: `Pool<[u64; 131072]>` kept 64 values (64 MiB) with
// `retained_bytes = 0` and `dropped_oversize = 0`.

#[test]
fn a_large_inline_value_counts_toward_the_cap() {
    type Big = [u64; 131_072]; // 1 MiB, over the default 64 KiB cap
    let _alone = alone();
    // A big stack: the values are 1 MiB each.
    thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let pool = Pool::<Big>::with_new(|| [0; 131_072]);
            for _ in 0..64 {
                pool.put([0; 131_072]);
            }
            let stats = pool.stats();
            assert_eq!(stats.dropped_oversize, 64, "{stats}");
            assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");

            let roomy = Pool::<Big>::with_new(|| [0; 131_072]).max_bytes(2 << 20);
            roomy.put([0; 131_072]);
            let stats = roomy.stats();
            assert_eq!(stats.retained_bytes, size_of::<Big>(), "{stats}");
        })
        .unwrap()
        .join()
        .unwrap();
}
