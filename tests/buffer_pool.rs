//! `BufferPool`: byte buffers by power-of-two size class.

use poolable::{BufferPool, PooledBuf};
use std::io::Write;

#[test]
fn a_get_is_empty_and_holds_what_was_asked() {
    let bufs = BufferPool::new();
    for n in [
        0,
        1,
        63,
        64,
        65,
        1000,
        4096,
        65_535,
        65_536,
        65_537,
        1 << 20,
    ] {
        let mut buf = bufs.get(n);
        assert!(buf.is_empty() && buf.capacity() >= n, "get({n})");
        buf.extend(std::iter::repeat_n(7, n));
    }
    // Every one came back reset, or was dropped when over the cap.
    for n in [0, 1000, 65_536] {
        assert!(bufs.get(n).is_empty());
    }
    let stats = bufs.stats();
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_small_get_takes_from_a_small_class() {
    let bufs = BufferPool::new();
    drop(bufs.get(60_000));
    // The 64 KiB buffer waits in its class; a small get does not take it.
    let small = bufs.get(100);
    assert!(small.capacity() < 1024, "{}", small.capacity());
    assert_eq!(bufs.stats().misses, 2);
}

#[test]
fn a_buffer_that_grew_moves_up_a_class() {
    let bufs = BufferPool::new();
    let mut buf = bufs.get(100); // 128-byte class
    buf.extend_from_slice(&[1; 5000]);
    let capacity = buf.capacity();
    drop(buf);
    let classes = bufs.class_stats();
    let home = classes
        .iter()
        .rposition(|c| c.capacity <= capacity)
        .unwrap();
    assert_eq!(classes[home].stats.retained, 1, "{classes:?}");
    assert_eq!(classes[1].stats.retained, 0, "{classes:?}");
    // Each class's buffers hold at least the class's capacity.
    assert!(classes[home].capacity >= 4096);
    // The next small get is a fresh small buffer, not the grown one.
    assert!(bufs.get(100).capacity() < 1024);
}

#[test]
fn a_buffer_over_max_bytes_is_dropped_on_return() {
    let bufs = BufferPool::new().max_bytes(4096);
    let mut buf = bufs.get(100);
    buf.extend_from_slice(&[1; 10_000]);
    drop(buf);
    let stats = bufs.stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (1, 0), "{stats}");

    // A get over the largest class still gets a buffer, fresh, dropped too.
    let big = bufs.get(1 << 20);
    assert!(big.capacity() >= 1 << 20);
    drop(big);
    let stats = bufs.stats();
    assert_eq!(
        (stats.gets, stats.misses, stats.dropped_oversize),
        (2, 2, 2),
        "{stats}"
    );
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_buffer_of_exactly_max_bytes_is_kept() {
    let bufs = BufferPool::new().max_bytes(4096);
    drop(bufs.get(4096));
    assert_eq!(bufs.stats().retained, 1, "{}", bufs.stats());
}

static BUFS: BufferPool = BufferPool::new().min_bytes(128).max_bytes(1 << 20);

#[test]
fn a_static_pool_with_const_setters() {
    let classes = BUFS.class_stats();
    assert_eq!(classes.first().unwrap().capacity, 128);
    assert_eq!(classes.last().unwrap().capacity, 1 << 20);
    assert_eq!(classes.len(), 14);
    assert!(BUFS.get(1).capacity() >= 128);
}

#[test]
fn the_guard_writes_and_forwards_like_a_pooled_vec() {
    let bufs = BufferPool::new();
    let mut buf: PooledBuf<'_> = bufs.get(64);
    write!(buf, "HTTP/1.1 {} OK\r\n", 200).unwrap();
    assert_eq!(&buf[..], b"HTTP/1.1 200 OK\r\n");
    assert!(buf == b"HTTP/1.1 200 OK\r\n".to_vec());
    let owned: Vec<u8> = PooledBuf::into_inner(buf);
    assert_eq!(owned.len(), 17);
    let stats = bufs.stats();
    assert_eq!(stats.detached, 1, "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_get_and_its_return_reuse_one_buffer_on_one_thread() {
    let bufs = BufferPool::new();
    let first = bufs.get(3000).as_ptr();
    for _ in 0..1000 {
        let mut buf = bufs.get(3000);
        assert_eq!(buf.as_ptr(), first);
        buf.extend_from_slice(&[1; 3000]);
    }
    let stats = bufs.stats();
    assert_eq!(
        (stats.gets, stats.misses, stats.retained),
        (1001, 1, 1),
        "{stats}"
    );
}

#[test]
fn trims_and_clear_reach_every_class() {
    let bufs = BufferPool::new();
    drop((bufs.get(10), bufs.get(1000), bufs.get(50_000)));
    assert_eq!(bufs.stats().retained, 3);
    bufs.trim();
    bufs.trim();
    assert_eq!(bufs.stats().retained, 0);
    drop((bufs.get(10), bufs.get(1000)));
    bufs.clear();
    let stats = bufs.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 5), "{stats}");
}

#[test]
fn a_guard_dropped_in_a_panic_is_counted_and_dropped() {
    let bufs = std::sync::Arc::new(BufferPool::new());
    let there = std::sync::Arc::clone(&bufs);
    let result = std::thread::spawn(move || {
        let _buf = there.get(100);
        panic!("while holding a buffer");
    })
    .join();
    assert!(result.is_err());
    let stats = bufs.stats();
    assert_eq!((stats.dropped_panic, stats.retained), (1, 0), "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn a_get_that_panics_on_an_impossible_capacity_leaves_the_books_balanced() {
    static BUFS: BufferPool = BufferPool::new();
    // Over `isize::MAX`: `Vec` cannot hold it, so the get panics (documented).
    let result = std::panic::catch_unwind(|| drop(BUFS.get(usize::MAX)));
    assert!(result.is_err());
    let stats = BUFS.stats();
    // The get and its miss were counted, and so is the buffer it lost.
    assert_eq!(
        (stats.gets, stats.misses, stats.dropped_panic),
        (1, 1, 1),
        "{stats}"
    );
    assert_eq!(stats.held(), 0, "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
    // The pool still serves.
    assert!(BUFS.get(100).capacity() >= 100);
}
