//! The pool's memory stays bounded: a burst does not stay resident past two
//! trims, and oversized values are never retained.
//!
//! Single-threaded on purpose: a trim ages the calling thread's own cache at
//! once, so two trims empty the pool completely.

use poolable::{Pool, Poolable, Pooled, Reset};
use std::sync::Mutex;

const BURST: usize = 100_000;
const STREAM: usize = 10_000;
const CAP: usize = 1024;
const MAX_RETAINED: usize = 32;
/// The pool's own storage of a `Vec<u8>`, which counts toward the cap.
const SLOT: usize = size_of::<Vec<u8>>();

#[derive(Poolable, Default)]
#[poolable(max_retained = 64)]
struct Burst {
    payload: Vec<u8>,
    label: String,
}

#[test]
fn a_burst_of_100k_values_is_gone_after_two_trims() {
    let pool = Burst::pool();
    let mut held: Vec<Pooled<'static, Burst>> = Vec::with_capacity(BURST);
    for i in 0..BURST {
        let mut value = pool.get();
        value.payload.extend_from_slice(&i.to_le_bytes());
        value.label.push_str("burst");
        held.push(value);
    }
    let stats = pool.stats();
    assert_eq!((stats.gets, stats.misses), (BURST as u64, BURST as u64));
    drop(held);

    let stats = pool.stats();
    assert_eq!(stats.puts, BURST as u64, "{stats}");
    assert!(stats.retained <= 64, "more than max_retained kept: {stats}");
    assert_eq!(
        stats.dropped_full,
        (BURST - stats.retained) as u64,
        "{stats}"
    );
    assert!(stats.retained_bytes > 0, "{stats}");
    let kept = stats.retained;

    pool.trim();
    let stats = pool.stats();
    assert_eq!(
        stats.retained, kept,
        "idle across one trim is kept: {stats}"
    );
    pool.trim();
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.retained_bytes),
        (0, 0),
        "idle across two trims is dropped: {stats}"
    );
    assert_eq!(stats.dropped_idle, kept as u64, "{stats}");
}

/// A value that keeps `bytes` of heap after its reset.
fn sized(bytes: usize) -> Vec<u8> {
    Vec::with_capacity(bytes)
}

#[test]
fn a_stream_of_10k_oversized_values_is_never_retained() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(CAP).max_retained(MAX_RETAINED);
    for i in 0..STREAM {
        let bytes = CAP + 1 + i % 4096;
        if i % 2 == 0 {
            let mut value = pool.get();
            value.reserve_exact(bytes);
            value.extend_from_slice(b"user=ada secret=hunter2");
            drop(value);
        } else {
            pool.put(sized(bytes));
        }
        let stats = pool.stats();
        assert!(
            stats.retained_bytes <= CAP * MAX_RETAINED,
            "after put {i}: {stats}"
        );
        assert_eq!(stats.retained, 0, "after put {i}: {stats}");
        assert_eq!(
            stats.dropped_oversize,
            i as u64 + 1,
            "after put {i}: {stats}"
        );
    }
}

#[test]
fn a_mixed_stream_never_retains_more_than_the_cap_times_max_retained() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(CAP).max_retained(MAX_RETAINED);
    let mut held = Vec::new();
    let mut oversize = 0;
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    for i in 0..STREAM {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // Exactly at the cap is allowed; one byte over is not.
        let bytes = match seed % 4 {
            0 => CAP,
            1 => CAP + 1,
            _ => (seed >> 8) as usize % (2 * CAP),
        };
        // Hold a few values at a time so that returns come in bursts.
        let mut value = pool.get();
        value.reserve_exact(bytes);
        if value.capacity() + SLOT > CAP {
            oversize += 1;
        }
        held.push(value);
        if held.len() > (seed >> 40) as usize % 48 {
            held.clear();
        }
        let stats = pool.stats();
        assert!(stats.retained <= MAX_RETAINED, "after op {i}: {stats}");
        assert!(
            stats.retained_bytes <= CAP * MAX_RETAINED,
            "after op {i}: {stats}"
        );
    }
    drop(held);
    let stats = pool.stats();
    assert!(stats.retained_bytes <= CAP * MAX_RETAINED, "{stats}");
    assert_eq!(stats.dropped_oversize, oversize, "{stats}");
    pool.trim();
    pool.trim();
    assert_eq!(pool.stats().retained_bytes, 0);
}

#[test]
fn a_retained_value_reports_its_heap_bytes() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(CAP);
    let value = sized(CAP - SLOT);
    let bytes = {
        let mut probe = sized(CAP - SLOT);
        probe.reset();
        probe.heap_bytes()
    };
    pool.put(value);
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.retained_bytes),
        (1, bytes + SLOT),
        "{stats}"
    );
}

#[derive(Poolable, Default)]
struct Locked {
    buf: Mutex<Vec<u8>>,
}

/// `mem::forget` on a lock guard must not hide a buffer from the size cap.
#[test]
fn a_forgotten_lock_guard_does_not_hide_a_50_mib_buffer() {
    let pool = Locked::pool();
    let value = pool.get();
    let mut guard = value.buf.lock().unwrap();
    guard.resize(50 << 20, 0);
    std::mem::forget(guard);
    drop(value);

    let stats = pool.stats();
    assert_eq!(stats.dropped_oversize, 1, "{stats}");
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
}

/// A value over `LOCAL_CACHE_MAX_BYTES` skips the thread caches: returned
/// by a thread that stays alive, it is in the shared tier, where another
/// thread's get finds it. Before, each thread's cache kept up to
/// `LOCAL_CACHE_SIZE` of them, so in a producer/consumer pair of large
/// buffers the producer missed while the consumer's cache held them (the
/// memory issue's pipeline retained 147-158 buffers for a working set of a
/// handful).
#[test]
fn a_large_value_is_not_stranded_in_a_live_threads_cache() {
    use poolable::LOCAL_CACHE_MAX_BYTES;
    use std::sync::mpsc::channel;
    static LARGE: Pool<Vec<u8>> = Pool::new().max_bytes(1 << 20);
    let (returned, wait_returned) = channel();
    let (done, wait_done) = channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut value = LARGE.get();
            *value = Vec::with_capacity(2 * LOCAL_CACHE_MAX_BYTES);
            drop(value);
            returned.send(()).unwrap();
            // Stay alive (with a thread cache for the pool) until checked.
            wait_done.recv().unwrap();
        });
        wait_returned.recv().unwrap();
        let value = LARGE.get();
        let capacity = value.capacity();
        drop(value);
        let stats = LARGE.stats();
        done.send(()).unwrap();
        assert!(
            capacity >= 2 * LOCAL_CACHE_MAX_BYTES,
            "a new value: {stats}"
        );
        assert_eq!((stats.gets, stats.misses), (2, 1), "{stats}");
    });
}

/// One thread alone keeps at most `max_retained` values, its cache and the
/// shards, even when a spill of aged values fills a shard and goes on into
/// the next: a shard takes no more than its room.
#[test]
fn a_spill_over_full_shards_keeps_one_thread_within_max_retained() {
    let shards = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(64);
    let max_retained = poolable::LOCAL_CACHE_SIZE + 2 * shards; // two per shard
    let pool = Pool::<Vec<u8>>::new().max_retained(max_retained);
    let cycle = |n: usize| drop((0..n).map(|_| pool.get()).collect::<Vec<_>>());
    cycle(poolable::LOCAL_CACHE_SIZE);
    pool.trim(); // the cache's values are aged
    // Two aged values at the bottom of the cache, the next spill's first.
    cycle(poolable::LOCAL_CACHE_SIZE - 2);
    for _ in 0..2 * max_retained {
        pool.put(Vec::new());
        let stats = pool.stats();
        assert!(stats.retained <= max_retained, "{stats}");
    }
    let stats = pool.stats();
    assert_eq!(stats.retained, max_retained, "{stats}");
    assert!(stats.is_balanced(), "{stats}");
}

/// A thread whose gets keep finding values over `LOCAL_CACHE_MAX_BYTES`
/// takes the next one from the shards directly, beside its empty cache
/// (`refill` in `tier/thread.rs`). The counts, the reuse and decay are those
/// of the cache's path; and a small value found that way sends the thread's
/// gets back through its cache, which keeps small values again.
#[test]
fn gets_of_large_values_from_the_shards_keep_counts_reuse_and_decay() {
    use poolable::LOCAL_CACHE_MAX_BYTES;
    static LARGE: Pool<Vec<u8>> = Pool::new().max_bytes(1 << 20);
    let counts = || {
        let stats = LARGE.stats();
        (stats.gets, stats.misses, stats.puts, stats.retained)
    };
    let mut value = LARGE.get();
    value.reserve(4 * LOCAL_CACHE_MAX_BYTES);
    let first = value.as_ptr();
    drop(value);
    for _ in 0..10 {
        let mut value = LARGE.get();
        assert_eq!(value.as_ptr(), first, "the idle value, reused");
        value.push(1);
    }
    assert_eq!(counts(), (11, 1, 11, 1), "{}", LARGE.stats());
    let stats = LARGE.stats();
    assert!(stats.retained_bytes > 4 * LOCAL_CACHE_MAX_BYTES, "{stats}");
    assert!(stats.is_balanced(), "{stats}");

    // None left: a miss, counted.
    let large = LARGE.get();
    let fresh = LARGE.get();
    assert_eq!(fresh.capacity(), 0, "a new value");
    assert_eq!(LARGE.stats().misses, 2, "{}", LARGE.stats());

    // A small value in the shards, left there by an exiting thread.
    std::thread::spawn(|| drop(LARGE.get())).join().unwrap();
    let small = LARGE.get();
    assert_eq!(
        LARGE.stats().misses,
        3,
        "the other thread's value: {}",
        LARGE.stats()
    );
    drop((small, fresh, large));
    // The small ones stay in this thread's cache; the large one went to
    // the shards, and is found there.
    let got = [LARGE.get(), LARGE.get(), LARGE.get()];
    let capacities = got.each_ref().map(|value| value.capacity());
    assert_eq!(capacities[..2], [0, 0]);
    assert_eq!(got[2].as_ptr(), first);
    drop(got);
    assert_eq!(counts(), (18, 3, 18, 3), "{}", LARGE.stats());

    // Two trims drop them all, in the shards and in the cache.
    LARGE.trim();
    assert_eq!(LARGE.stats().retained, 3, "{}", LARGE.stats());
    LARGE.trim();
    let stats = LARGE.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 3), "{stats}");
    assert!(stats.is_balanced(), "{stats}");
}
