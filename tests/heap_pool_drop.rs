//! A dropped heap pool frees everything it allocated, even while the thread
//! that used it lives on: the thread's cache and the pool's shared storage
//! refer to each other, and that cycle must be broken when the pool goes.
//!
//! Measured with a counting `#[global_allocator]` (live bytes allocated by
//! the current thread, `common/live_bytes.rs`).

mod common {
    pub mod live_bytes;
}

use common::live_bytes::live_bytes;
use poolable::Pool;

/// Make a heap pool, use it on this thread (which links a thread cache for
/// it), drop it, then use another pool (which sweeps the dropped one's entry
/// from this thread's table).
fn use_and_drop_a_heap_pool() {
    let pool: Pool<Vec<u8>> = Pool::new();
    pool.get().extend_from_slice(b"scratch");
    drop(pool);
    let next: Pool<Vec<u8>> = Pool::new();
    drop(next.get());
}

#[test]
fn a_dropped_heap_pool_leaks_nothing_while_its_thread_lives() {
    // The first rounds grow this thread's table to its size for good.
    use_and_drop_a_heap_pool();
    use_and_drop_a_heap_pool();
    let before = live_bytes();
    for _ in 0..100 {
        use_and_drop_a_heap_pool();
    }
    assert_eq!(
        live_bytes() - before,
        0,
        "bytes leaked by 100 dropped pools"
    );
}
