//! A thread cache keeps its newest idle value in a hot slot apart from its
//! list (`pool-runtime/src/raw/lease.rs`, `Ledger::take_hot`), which a get
//! that hits and a return on the same thread use first. The value there is
//! one of the cache's like any other: it counts toward the cap, decays, and
//! leaves with its thread.

use poolable::Pool;
use std::thread;

/// A value taken from the cache (so leased in its slot) and given back
/// goes to the hot slot: counted as retained, with its bytes.
#[test]
fn a_value_in_the_hot_slot_is_counted_with_its_bytes() {
    let pool = Pool::<Vec<u8>>::new();
    drop(pool.get());
    let mut value = pool.get();
    value.reserve_exact(100);
    let capacity = value.capacity();
    drop(value);
    let stats = pool.stats();
    assert_eq!((stats.gets, stats.misses), (2, 1), "{stats}");
    assert_eq!(stats.retained, 1, "{stats}");
    assert_eq!(stats.retained_bytes, size_of::<Vec<u8>>() + capacity);
}

/// Values given back that were not leased from this thread's cache (put,
/// or held inline) fill the cache to its cap too: the list to one below
/// it, then the hot slot. Each is counted with its bytes, the newest comes
/// out first, and one more spills the oldest half to the shards.
#[test]
fn values_not_leased_here_take_the_hot_slot_last() {
    let pool = Pool::<Vec<u8>>::new();
    let cap = poolable::LOCAL_CACHE_SIZE;
    let mut bytes = 0;
    for i in 1..=cap + 1 {
        let value = Vec::<u8>::with_capacity(8 * i);
        bytes += size_of::<Vec<u8>>() + value.capacity();
        pool.put(value);
        let stats = pool.stats();
        assert_eq!(
            (stats.retained, stats.retained_bytes),
            (i, bytes),
            "{stats}"
        );
    }
    let newest = pool.get();
    assert_eq!(newest.capacity(), 8 * (cap + 1), "the newest first");
    assert_eq!(pool.get().capacity(), 8 * cap);
    drop(newest);
    let stats = pool.stats();
    assert_eq!((stats.puts, stats.misses), (cap as u64 + 3, 0), "{stats}");
    assert_eq!(stats.retained, cap + 1, "{stats}");
}

/// A value that sits in the hot slot decays as the list's do: kept across
/// one trim, dropped at the second.
#[test]
fn a_value_idle_in_the_hot_slot_is_dropped_at_the_second_trim() {
    let pool = Pool::<Vec<u8>>::new();
    drop(pool.get());
    drop(pool.get());
    pool.trim();
    assert_eq!(pool.stats().retained, 1, "idle across one trim: kept");
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    // Taken and given back between two trims, it survives them.
    drop(pool.get());
    drop(pool.get());
    pool.trim();
    drop(pool.get());
    pool.trim();
    assert_eq!(pool.stats().retained, 1);
}

/// A cache at its cap takes no value into its hot slot: a return of a
/// value leased before the cache filled up goes the slow way, which makes
/// room first. Else the pool would keep one value more than
/// `max_retained`.
#[test]
fn a_cache_at_its_cap_keeps_no_value_past_it_in_its_hot_slot() {
    // `max_retained` 4: a thread cache of 4.
    let pool = Pool::<Vec<u8>>::new().max_retained(4);
    drop(pool.get());
    let leased = pool.get();
    let fresh: Vec<_> = (0..4).map(|_| pool.get()).collect();
    drop(fresh);
    assert_eq!(pool.stats().retained, 4, "the cache is full");
    drop(leased);
    let stats = pool.stats();
    assert_eq!((stats.misses, stats.puts), (5, 6), "{stats}");
    assert_eq!(stats.retained, 4, "at most max_retained: {stats}");
    assert_eq!(stats.dropped_full, 1, "the one past it: {stats}");
}

/// A thread that exits with a value in its hot slot hands it to the
/// shards, as the rest of its cache: another thread's get finds it.
#[test]
fn a_value_in_the_hot_slot_leaves_with_its_thread_for_the_shards() {
    static POOL: Pool<Vec<u8>> = Pool::new();
    let pool = &POOL;
    // `join`, not a scope: it waits for the thread's exit, thread-locals'
    // destructors included (a scope's end may come before them).
    thread::spawn(|| {
        drop(POOL.get());
        drop(POOL.get());
    })
    .join()
    .unwrap();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.misses), (1, 1), "{stats}");
    drop(pool.get());
    assert_eq!(pool.stats().misses, 1, "a hit: the value was in the shards");
}
