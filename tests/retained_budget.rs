//! `set_retained_budget`: a process-wide cap on the bytes every pool's
//! shared tier holds. Its own binary: the budget is global.

mod common {
    pub mod serial;
}

use common::serial::alone;
use poolable::{Pool, set_retained_budget, shared_retained_bytes, trim_all};

const CAPACITY: usize = 4000;
/// What one value counts: its buffer plus the pool's own storage of it.
const VALUE: usize = CAPACITY + size_of::<Vec<u8>>();

fn sized() -> Vec<u8> {
    Vec::with_capacity(CAPACITY)
}

/// `n` values returned to `pool` by a thread that then exits, so they all
/// go to the shared tier.
fn return_from_a_thread(pool: &Pool<Vec<u8>>, n: usize) {
    std::thread::scope(|s| {
        // `join`, not the end of the scope: it waits for the thread's
        // destructors, which hand its cache to the shards.
        s.spawn(|| {
            let held: Vec<_> = (0..n).map(|_| pool.get()).collect();
            drop(held);
        })
        .join()
        .unwrap();
    });
}

#[test]
fn many_pools_stay_within_the_budget() {
    let _alone = alone();
    let budget = 10 * VALUE;
    set_retained_budget(Some(budget));
    let pools: Vec<Pool<Vec<u8>>> = (0..20).map(|_| Pool::with_new(sized)).collect();
    for pool in &pools {
        return_from_a_thread(pool, 30);
        assert!(
            shared_retained_bytes() <= budget + VALUE,
            "{}",
            shared_retained_bytes()
        );
    }
    let kept: usize = pools.iter().map(|p| p.stats().retained_bytes).sum();
    assert_eq!(kept, shared_retained_bytes());
    let dropped: u64 = pools.iter().map(|p| p.stats().dropped_full).sum();
    assert!(dropped >= (20 * 30 - 11) as u64, "{dropped}");
    assert!(pools.iter().all(|p| p.stats().is_balanced()));

    set_retained_budget(None);
    drop(pools);
    assert_eq!(
        shared_retained_bytes(),
        0,
        "every dropped pool released its bytes"
    );
}

#[test]
fn lowering_the_budget_sheds_the_oldest_idle_values_first() {
    let _alone = alone();
    set_retained_budget(None);
    let old = Pool::with_new(sized);
    let new = Pool::with_new(sized);
    return_from_a_thread(&old, 10);
    trim_all(); // `old`'s values are now idle across one trim
    return_from_a_thread(&new, 10);
    assert_eq!(shared_retained_bytes(), 20 * VALUE);

    set_retained_budget(Some(12 * VALUE));
    let (old_stats, new_stats) = (old.stats(), new.stats());
    assert_eq!(
        (old_stats.retained, old_stats.dropped_idle),
        (2, 8),
        "{old_stats}"
    );
    assert_eq!(
        (new_stats.retained, new_stats.dropped_idle),
        (10, 0),
        "{new_stats}"
    );
    assert_eq!(shared_retained_bytes(), 12 * VALUE);

    set_retained_budget(Some(5 * VALUE));
    assert_eq!(old.stats().retained, 0);
    assert_eq!(new.stats().retained, 5);
    set_retained_budget(None);
}

/// Values kept in the caches of threads that stay alive and idle: 4 threads
/// fill their caches of each of 4 pools (8 values each, under
/// `LOCAL_CACHE_MAX_BYTES`), then wait while the main thread trims.
#[test]
fn after_a_trim_the_budget_holds_for_thread_caches_too() {
    let _alone = alone();
    set_retained_budget(None);
    let pools: Vec<Pool<Vec<u8>>> = (0..4).map(|_| Pool::with_new(sized)).collect();
    let per_pool = 4 * poolable::LOCAL_CACHE_SIZE * VALUE;
    let filled = std::sync::Barrier::new(5);
    let measured = std::sync::Barrier::new(5);
    let budget = 2 * per_pool + per_pool / 2;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for pool in &pools {
                    let held: Vec<_> = (0..poolable::LOCAL_CACHE_SIZE)
                        .map(|_| pool.get())
                        .collect();
                    drop(held);
                }
                filled.wait();
                measured.wait();
            });
        }
        filled.wait();
        let cached = poolable::retained_bytes();
        assert_eq!(cached, 4 * per_pool, "every value is in a thread cache");
        assert_eq!(shared_retained_bytes(), 0);

        set_retained_budget(Some(budget));
        let after_set = poolable::retained_bytes();
        trim_all();
        let after_trim = poolable::retained_bytes();
        let kept: usize = pools.iter().map(|p| p.stats().retained_bytes).sum();
        // Before the threads go on: their exit flushes their caches, which
        // would race the counters read here.
        let balanced = pools.iter().all(|p| p.stats().is_balanced());
        measured.wait();

        assert!(after_set <= budget, "{after_set} > {budget}");
        assert!(after_trim <= budget, "{after_trim} > {budget}");
        assert_eq!(kept, after_trim);
        // The caches of the pools that hold the most go, as few as cover
        // the excess: two of the four here, the other two keep theirs.
        assert_eq!(after_trim, 2 * per_pool);
        assert!(balanced);
    });
    set_retained_budget(None);
}

#[test]
fn the_count_follows_batches_both_ways_even_past_a_large_value() {
    let _alone = alone();
    set_retained_budget(None);
    let pool: Pool<Vec<u8>> = Pool::with_new(sized).max_bytes(1 << 20);
    // Every fifth value is over `LOCAL_CACHE_MAX_BYTES`: it skips the
    // thread caches, and a refill stops after it, in the middle of a batch.
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut held: Vec<_> = (0..40).map(|_| pool.get()).collect();
            for (i, value) in held.iter_mut().enumerate() {
                if i % 5 == 0 {
                    value.reserve(poolable::LOCAL_CACHE_MAX_BYTES + 1);
                }
            }
            drop(held);
        })
        .join()
        .unwrap();
    });
    let shared = shared_retained_bytes();
    assert_eq!(pool.stats().retained_bytes, shared);
    assert!(shared >= 40 * VALUE, "{shared}");

    // Gets on this thread refill its cache from the shards in batches. A
    // refill stops at a large value and hands it out: none stays in this
    // thread's cache, which holds the small ones only.
    let mut held = Vec::new();
    for _ in 0..40 {
        held.push(pool.get());
        let cached = pool.stats().retained_bytes - shared_retained_bytes();
        assert!(
            cached <= poolable::LOCAL_CACHE_SIZE * VALUE,
            "{cached} bytes in this thread's cache"
        );
    }
    assert_eq!(pool.stats().misses, 40, "the first thread's gets, no more");
    assert_eq!(shared_retained_bytes(), 0, "every value left the count");
    drop(held);
    drop(pool);
    assert_eq!(shared_retained_bytes(), 0);
}

/// A value that measures `usize::MAX`, as a `Mutex` locked at its return
/// does (`Reset::heap_bytes`), which a pool whose cap is off keeps.
#[derive(Default)]
struct Huge;

impl poolable::Reset for Huge {
    fn reset(&mut self) {}

    fn heap_bytes(&self) -> usize {
        usize::MAX
    }
}

/// The count adds each entry's bytes as it comes in (wrapping), and took
/// a list's bytes out as their saturating sum: two entries of `usize::MAX`
/// left it one byte short, reading `usize::MAX` for good, after a clear
/// and after the pool's drop alike.
#[test]
fn values_that_measure_usize_max_leave_no_bytes_in_the_count() {
    let _alone = alone();
    set_retained_budget(None);
    assert_eq!(shared_retained_bytes(), 0);
    let pool: Pool<Huge> = Pool::new().max_bytes(usize::MAX);
    let fill = |pool: &Pool<Huge>| {
        let held: Vec<_> = (0..2).map(|_| pool.get()).collect();
        drop(held);
        assert_eq!(pool.stats().retained, 2, "{}", pool.stats());
    };
    fill(&pool);
    pool.clear();
    assert_eq!(shared_retained_bytes(), 0, "after a clear");
    fill(&pool);
    drop(pool);
    assert_eq!(shared_retained_bytes(), 0, "after the pool's drop");
}
