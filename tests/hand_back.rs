//! A value leased from one thread's cache and dropped on another is handed
//! back to the first thread's slots, reset and in place
//! (`pool-runtime/src/raw/lease.rs`, `RawLease::hand_back`): the thread that
//! took it finds it again at its next get that leaves the fast path, not in
//! the other thread's cache or the shards. Until then it counts as retained,
//! a clear drops it, and decay and the owner's exit reach it.
//!
//! The other threads are joined with `JoinHandle::join`, which waits for
//! their thread-locals (and so their caches' flush) to be gone, as the end
//! of a `thread::scope` does not; so each test's pool is a `static`.

use poolable::{LOCAL_CACHE_SIZE, Pool, Pooled};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::{self, JoinHandle};

/// Guards sent to another thread at once.
type Batch = Vec<Pooled<'static, Vec<u8>>>;

/// A thread that drops the guards it is sent and acknowledges each batch,
/// until the channel closes: it stays alive (its own cache, if any, with
/// it) between batches.
fn dropper() -> (Sender<Batch>, Receiver<()>, JoinHandle<()>) {
    let (to, batches) = channel::<Batch>();
    let (done, acks) = channel();
    let thread = thread::spawn(move || {
        for batch in batches {
            drop(batch);
            done.send(()).expect("the test waits for each batch");
        }
    });
    (to, acks, thread)
}

/// Fails before hand-back: the value went into the dropping thread's
/// cache, which this thread cannot reach while that thread lives.
#[test]
fn a_value_returned_on_another_thread_goes_back_to_the_thread_that_took_it() {
    static POOL: Pool<Vec<u8>> = Pool::new();
    let pool = &POOL;
    let mut first = pool.get();
    first.reserve_exact(64);
    drop(first);
    let value = pool.get();
    let at = value.as_ptr().addr();
    let (to, acks, dropper) = dropper();
    to.send(vec![value]).unwrap();
    acks.recv().unwrap();
    let stats = pool.stats();
    assert_eq!(
        (stats.gets, stats.puts, stats.retained),
        (2, 2, 1),
        "{stats}"
    );
    let again = pool.get();
    assert_eq!(again.as_ptr().addr(), at, "the same buffer, back here");
    let stats = pool.stats();
    assert_eq!((stats.misses, stats.retained), (1, 0), "{stats}");
    drop(to);
    dropper.join().unwrap();
}

/// A value handed back before a trim is idle across it, as one returned to
/// its own thread's cache is: the next trim drops it (the two-trim rule),
/// though its thread never took it up. A clear drops it at once.
#[test]
fn trims_and_clears_reach_values_handed_back() {
    static POOL: Pool<Vec<u8>> = Pool::new();
    let pool = &POOL;
    drop(pool.get());
    let (to, acks, dropper) = dropper();
    let hand_back = || {
        to.send(vec![pool.get()]).unwrap();
        acks.recv().unwrap();
    };
    hand_back();
    for retained in [1, 0] {
        pool.trim();
        let stats = pool.stats();
        assert_eq!(stats.retained, retained, "{stats}");
    }
    assert_eq!(pool.stats().dropped_idle, 1);
    hand_back();
    assert_eq!(pool.stats().retained, 1);
    pool.clear();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 2), "{stats}");
    drop(to);
    dropper.join().unwrap();
}

/// At a trim, values handed back that the cache has no room to list go to
/// the shards: every one stays counted and within reach.
#[test]
fn a_trim_moves_what_the_cache_cannot_list_to_the_shards() {
    static POOL: Pool<Vec<u8>> = Pool::new();
    let pool = &POOL;
    let n = 3 * LOCAL_CACHE_SIZE;
    let values: Vec<_> = (0..n).map(|_| pool.get()).collect();
    drop(values);
    let values: Vec<_> = (0..n).map(|_| pool.get()).collect();
    let (to, acks, dropper) = dropper();
    to.send(values).unwrap();
    acks.recv().unwrap();
    // Its cache (the values a refill handed out whole, not leased) goes to
    // the shards as it exits.
    drop(to);
    dropper.join().unwrap();
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (n, 0), "{stats}");
    // Another thread, with no cache of its own yet, reaches them too.
    let other = thread::spawn(move || {
        let _held: Vec<_> = (0..n - LOCAL_CACHE_SIZE).map(|_| pool.get()).collect();
        assert_eq!(pool.stats().misses, n as u64);
    });
    other.join().unwrap();
}

/// The thread that took the values exits after they were handed back: they
/// go to the shards with its cache. A value it took that is returned after
/// it exited stays with the thread that returns it.
#[test]
fn an_exiting_thread_leaves_its_values_handed_back_in_the_shards() {
    static POOL: Pool<Vec<u8>> = Pool::new();
    let pool = &POOL;
    let (to, values) = channel::<Batch>();
    let (done, returned) = channel();
    let taker = thread::spawn(move || {
        let mut taken: Vec<_> = (0..5).map(|_| pool.get()).collect();
        let kept = taken.pop().expect("five");
        to.send(taken).unwrap();
        returned.recv().unwrap();
        kept
    });
    drop(values.recv().unwrap());
    done.send(()).unwrap();
    let kept = taker.join().unwrap();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.misses), (4, 5), "{stats}");
    drop(kept);
    let values: Vec<_> = (0..5).map(|_| pool.get()).collect();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.misses), (0, 5), "{stats}");
    drop(values);
}
