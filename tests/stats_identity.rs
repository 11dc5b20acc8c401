//! `Stats::held` and `Stats::is_balanced` through every path a value can
//! take: hits and misses, returns, external puts, detaching, panics, the
//! size cap, the retention bound, decay and prefill.

mod common {
    pub mod balance;
}

use common::balance::assert_balanced;
use poolable::{BufferPool, Pool, Pooled};
use std::panic::{AssertUnwindSafe, catch_unwind};

#[test]
fn held_and_the_identity_follow_every_path() {
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(16).max_bytes(1024);
    assert_balanced(pool.stats(), 0, 0);

    let mut out: Vec<Pooled<'_, Vec<u8>>> = (0..30).map(|_| pool.get()).collect();
    assert_balanced(pool.stats(), 30, 0);
    out.truncate(10); // 20 returns: 16 kept, 4 over the bound
    assert_balanced(pool.stats(), 10, 0);

    pool.put(Vec::with_capacity(8)); // external
    pool.put(Vec::with_capacity(1 << 20)); // external, over the cap
    assert_balanced(pool.stats(), 10, 2);

    let detached = Pooled::into_inner(out.pop().unwrap());
    assert_balanced(pool.stats(), 9, 2);
    drop(detached);

    let mut big = out.pop().unwrap();
    big.reserve(1 << 20); // dropped on return: over the cap
    drop(big);
    assert_balanced(pool.stats(), 8, 2);

    let guard = out.pop().unwrap();
    let panicked = catch_unwind(AssertUnwindSafe(move || {
        let _guard = guard;
        panic!("while holding a guard");
    }));
    assert!(panicked.is_err());
    assert_balanced(pool.stats(), 7, 2);

    pool.reserve(4);
    assert_balanced(pool.stats(), 7, 2);
    pool.trim();
    pool.trim();
    assert_balanced(pool.stats(), 7, 2);
    pool.clear();
    drop(out);
    assert_balanced(pool.stats(), 0, 2);
    let stats = pool.stats();
    assert_eq!(stats.external, 2, "{stats}");
}

#[test]
fn a_buffer_pool_balances_in_total_when_buffers_change_class() {
    let bufs = BufferPool::new();
    let mut grown = bufs.get(100);
    grown.extend_from_slice(&[7; 10_000]); // returns to a larger class
    let held = bufs.get(50_000);
    assert_balanced(bufs.stats(), 2, 0);
    drop(grown);
    bufs.put(Vec::with_capacity(300));
    assert_balanced(bufs.stats(), 1, 1);
    drop(held);
    assert_balanced(bufs.stats(), 0, 1);
}
