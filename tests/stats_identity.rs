//! `Stats::held` and `Stats::is_balanced` through every path a value can
//! take: hits and misses, returns, external puts, detaching, panics, the
//! size cap, the retention bound, decay and prefill.

use poolable::{BufferPool, Pool, Pooled, Stats};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn check(stats: Stats, held: usize) {
    assert_eq!(stats.held(), held as u64, "held: {stats}");
    assert!(stats.is_balanced(), "unbalanced: {stats}");
}

#[test]
fn held_and_the_identity_follow_every_path() {
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(16).max_bytes(1024);
    check(pool.stats(), 0);

    let mut out: Vec<Pooled<'_, Vec<u8>>> = (0..30).map(|_| pool.get()).collect();
    check(pool.stats(), 30);
    out.truncate(10); // 20 returns: 16 kept, 4 over the bound
    check(pool.stats(), 10);

    pool.put(Vec::with_capacity(8)); // external
    pool.put(Vec::with_capacity(1 << 20)); // external, over the cap
    check(pool.stats(), 10);

    let detached = Pooled::into_inner(out.pop().unwrap());
    check(pool.stats(), 9);
    drop(detached);

    let mut big = out.pop().unwrap();
    big.reserve(1 << 20); // dropped on return: over the cap
    drop(big);
    check(pool.stats(), 8);

    let guard = out.pop().unwrap();
    let panicked = catch_unwind(AssertUnwindSafe(move || {
        let _guard = guard;
        panic!("while holding a guard");
    }));
    assert!(panicked.is_err());
    check(pool.stats(), 7);

    pool.reserve(4);
    check(pool.stats(), 7);
    pool.trim();
    pool.trim();
    check(pool.stats(), 7);
    pool.clear();
    drop(out);
    check(pool.stats(), 0);
    let stats = pool.stats();
    assert_eq!(stats.external, 2, "{stats}");
}

#[test]
fn a_buffer_pool_balances_in_total_when_buffers_change_class() {
    let bufs = BufferPool::new();
    let mut grown = bufs.get(100);
    grown.extend_from_slice(&[7; 10_000]); // returns to a larger class
    let held = bufs.get(50_000);
    check(bufs.stats(), 2);
    drop(grown);
    bufs.put(Vec::with_capacity(300));
    check(bufs.stats(), 1);
    drop(held);
    check(bufs.stats(), 0);
}
