//! `Pool::reserve` (prefill) and `Pool::from_fn` (constructors that capture).

use poolable::{Pool, Poolable};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[test]
fn a_prefilled_pool_serves_the_first_burst_without_misses() {
    let pool = Arc::new(Pool::<Vec<u8>>::from_fn(|| Vec::with_capacity(1024)));
    assert_eq!(pool.reserve(16), 16);
    let stats = pool.stats();
    assert_eq!(
        (stats.prefilled, stats.retained, stats.misses),
        (16, 16, 0),
        "{stats}"
    );

    // Another thread's first burst finds them too.
    let there = Arc::clone(&pool);
    std::thread::spawn(move || {
        let burst: Vec<_> = (0..16).map(|_| there.get()).collect();
        assert!(burst.iter().all(|b| b.capacity() >= 1024));
    })
    .join()
    .unwrap();
    let stats = pool.stats();
    assert_eq!((stats.gets, stats.misses), (16, 0), "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
    assert_eq!(stats.hit_rate(), 1.0);
}

#[test]
fn a_prefill_stops_at_the_retention_bound() {
    // 16 in all: 8 for a thread cache, 8 in the shards.
    let pool = Pool::<Vec<u8>>::new().max_retained(16);
    assert_eq!(pool.reserve(100), 8);
    let stats = pool.stats();
    assert_eq!(
        (stats.prefilled, stats.retained, stats.dropped_full),
        (8, 8, 0),
        "{stats}"
    );
    assert_eq!(pool.reserve(1), 0, "full: nothing constructed");
    assert_eq!(pool.stats().prefilled, 8);
}

#[test]
fn a_prefilled_value_over_the_cap_is_dropped_and_ends_the_prefill() {
    let pool = Pool::<Vec<u8>>::from_fn(|| Vec::with_capacity(1 << 20));
    assert_eq!(pool.reserve(4), 0);
    let stats = pool.stats();
    assert_eq!(
        (stats.prefilled, stats.dropped_oversize, stats.retained),
        (1, 1, 0),
        "{stats}"
    );
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

/// The cap is inclusive for a prefill as for a return: a value whose heap
/// bytes plus its own size are exactly `max_bytes` is kept, not dropped
/// (a prefill that dropped it, and stopped, passed every other test).
#[test]
fn a_prefilled_value_exactly_at_the_cap_is_kept() {
    let heap = Vec::<u8>::with_capacity(4000).capacity();
    let cap = heap + size_of::<Vec<u8>>();
    let pool = Pool::<Vec<u8>>::from_fn(move || Vec::with_capacity(heap)).max_bytes(cap);
    assert_eq!(pool.reserve(4), 4);
    let stats = pool.stats();
    assert_eq!(
        (stats.prefilled, stats.dropped_oversize, stats.retained),
        (4, 0, 4),
        "{stats}"
    );
    assert_eq!(stats.retained_bytes, 4 * cap, "{stats}");
}

#[test]
fn prefilled_values_decay_like_idle_ones() {
    let pool = Pool::<String>::new();
    pool.reserve(4);
    pool.trim();
    assert_eq!(pool.stats().retained, 4);
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 4), "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_panicking_constructor_keeps_what_was_made_before_it() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let pool = Pool::<Vec<u8>>::from_fn(move || {
        if counted.fetch_add(1, Relaxed) == 2 {
            panic!("the third value cannot be made");
        }
        Vec::new()
    });
    let result = catch_unwind(AssertUnwindSafe(|| pool.reserve(10)));
    assert!(result.is_err());
    let stats = pool.stats();
    assert_eq!((stats.prefilled, stats.retained), (2, 2), "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_closure_constructor_captures_and_runs_only_on_a_miss() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (counted, size) = (Arc::clone(&calls), 3000);
    let pool = Pool::from_fn(move || {
        counted.fetch_add(1, Relaxed);
        Vec::<u8>::with_capacity(size)
    });
    for _ in 0..100 {
        let buf = pool.get();
        assert!(buf.capacity() >= 3000);
    }
    assert_eq!(calls.load(Relaxed), 1);
    assert_eq!(pool.stats().misses, 1);
}

#[derive(Poolable, Default)]
struct Request {
    path: String,
    body: Vec<u8>,
}

#[test]
fn a_derived_pool_can_be_prefilled() {
    let kept = Request::pool().reserve(4);
    assert_eq!(kept, 4);
    let before = Request::pool().stats().misses;
    let burst: Vec<_> = (0..4).map(|_| Request::pool().get()).collect();
    assert!(burst.iter().all(|r| r.path.is_empty() && r.body.is_empty()));
    assert_eq!(Request::pool().stats().misses, before);
}
