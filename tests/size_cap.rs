//! The size cap's two options: what happens to a value over it
//! (`Oversize::Drop` or `Oversize::Shrink`), and a cap that calibrates
//! itself from the sizes returned (`max_bytes_auto`).

use poolable::{AUTO_CAP_FLOOR, AUTO_CAP_WINDOW, Oversize, Pool, Poolable, Reset};

#[test]
fn by_default_a_value_over_the_cap_is_dropped() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(4096);
    pool.get().reserve(1 << 20);
    let stats = pool.stats();
    assert_eq!(
        (stats.dropped_oversize, stats.shrunk, stats.retained),
        (1, 0, 0)
    );
}

#[test]
fn shrink_keeps_a_value_over_the_cap_once_it_fits() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(4096).oversize(Oversize::Shrink);
    pool.get().reserve(1 << 20);
    let stats = pool.stats();
    assert_eq!(
        (stats.puts, stats.shrunk, stats.dropped_oversize),
        (1, 1, 0)
    );
    assert_eq!(stats.retained, 1);
    assert!(stats.retained_bytes <= 4096, "{stats}");
    assert!(stats.is_balanced(), "{stats}");
    let buf = pool.get();
    assert!(buf.is_empty() && buf.capacity() <= 4096 - size_of::<Vec<u8>>());
    assert_eq!(pool.stats().misses, 1, "the shrunk value was reused");
}

#[test]
fn shrink_drops_a_value_that_cannot_shrink() {
    /// Its heap cannot be given back.
    #[derive(Default)]
    struct Stubborn(Vec<u8>);
    impl Reset for Stubborn {
        fn reset(&mut self) {
            self.0.clear();
        }
        fn heap_bytes(&self) -> usize {
            self.0.capacity()
        }
    }
    let pool: Pool<Stubborn> = Pool::new().max_bytes(4096).oversize(Oversize::Shrink);
    pool.get().0.reserve(1 << 20);
    let stats = pool.stats();
    assert_eq!(
        (stats.shrunk, stats.dropped_oversize, stats.retained),
        (0, 1, 0)
    );
    assert!(stats.is_balanced(), "{stats}");
}

#[derive(Poolable, Default)]
#[poolable(max_bytes = 8192, oversize = "shrink")]
struct Upload {
    name: String,
    headers: Vec<(u32, u32)>,
    body: Vec<u8>,
    id: u64,
}

#[test]
fn a_derived_struct_shrinks_its_largest_field_and_keeps_the_small_ones() {
    let mut upload = Upload::pool().get();
    upload.name.reserve(300);
    upload.headers.reserve(100);
    upload.body.reserve(1 << 20);
    let (name, headers) = (upload.name.as_ptr(), upload.headers.as_ptr());
    drop(upload);
    let stats = Upload::pool().stats();
    assert_eq!((stats.shrunk, stats.dropped_oversize), (1, 0), "{stats}");

    let upload = Upload::pool().get();
    assert!(upload.heap_bytes() + size_of::<Upload>() <= 8192);
    // The small fields kept their allocations; only the body was cut.
    assert_eq!(
        (upload.name.as_ptr(), upload.headers.as_ptr()),
        (name, headers)
    );
    assert!(upload.name.capacity() >= 300 && upload.headers.capacity() >= 100);
    assert!(upload.body.capacity() < 8192);
}

/// A field with `check = path` is still reset by its own `Reset` impl, so it
/// is shrunk with the plain fields (here it is the one to cut).
#[derive(Poolable, Default)]
#[poolable(max_bytes = 8192, oversize = "shrink")]
struct CheckedUpload {
    name: String,
    #[poolable(check = Vec::is_empty)]
    body: Vec<u8>,
}

#[test]
fn a_field_with_a_check_is_shrunk_too() {
    let mut upload = CheckedUpload::pool().get();
    upload.name.reserve(300);
    upload.body.reserve(1 << 20);
    drop(upload);
    let stats = CheckedUpload::pool().stats();
    assert_eq!((stats.shrunk, stats.dropped_oversize), (1, 0), "{stats}");
    let upload = CheckedUpload::pool().get();
    assert!(upload.name.capacity() >= 300 && upload.body.capacity() < 8192);
}

/// A `with` field is invisible to the cap, unless `heap_bytes = path`
/// measures it; the attribute table says so.
#[derive(Poolable, Default)]
#[poolable(max_bytes = 4096)]
struct Unmeasured {
    #[poolable(with = Vec::clear)]
    table: Vec<u8>,
}

#[derive(Poolable, Default)]
#[poolable(max_bytes = 4096)]
struct Measured {
    #[poolable(with = Vec::clear, heap_bytes = Vec::capacity)]
    table: Vec<u8>,
}

#[test]
fn the_cap_sees_a_with_field_only_through_heap_bytes() {
    Unmeasured::pool().get().table.reserve(1 << 20);
    let stats = Unmeasured::pool().stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (0, 1), "{stats}");

    Measured::pool().get().table.reserve(1 << 20);
    let stats = Measured::pool().stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (1, 0), "{stats}");
}

#[test]
fn shrink_heap_of_std_types_fits_the_cap() {
    let mut s = String::with_capacity(10_000);
    s.shrink_heap(100);
    assert!(s.heap_bytes() <= 100);
    let mut pair = (vec![0_u64; 0], String::with_capacity(50));
    pair.0.reserve(1000);
    pair.shrink_heap(1000);
    assert!(pair.heap_bytes() <= 1000);
    assert!(pair.1.capacity() >= 50, "the small part is kept");
    let mut boxed: Box<[Vec<u8>; 3]> = Box::new([vec![], vec![], vec![]]);
    boxed.iter_mut().for_each(|v| v.reserve(5000));
    boxed.shrink_heap(3000);
    assert!(boxed.heap_bytes() <= 3000);
}

/// A hash table over the cap under `Oversize::Shrink` is shrunk and kept:
/// std's tables once kept the trait's default `shrink_heap` (nothing given
/// back), so the pool dropped them. (Each type's `shrink_heap` and
/// `used_bytes`: `reset.rs`'s and `integrations.rs`'s unit tests.)
#[test]
fn a_hash_table_over_the_cap_is_shrunk_and_kept() {
    use std::collections::HashMap;

    let pool: Pool<HashMap<u64, u64>> = Pool::new().max_bytes(4096).oversize(Oversize::Shrink);
    pool.get().reserve(10_000);
    let stats = pool.stats();
    assert_eq!((stats.shrunk, stats.dropped_oversize), (1, 0), "{stats}");
}

/// Return `n` buffers after using `bytes` of each, `batch` out at once.
fn cycle(pool: &Pool<Vec<u8>>, n: u64, bytes: usize, batch: usize) {
    let mut out = Vec::with_capacity(batch);
    for _ in 0..n / batch as u64 {
        for _ in 0..batch {
            let mut buf = pool.get();
            buf.resize(bytes, 7);
            out.push(buf);
        }
        out.clear();
    }
}

#[test]
fn the_auto_cap_follows_a_shifting_size_distribution() {
    const CEILING: usize = 1 << 20;
    let pool: Pool<Vec<u8>> = Pool::new()
        .max_bytes_auto()
        .max_bytes(CEILING)
        .max_retained(32);
    assert_eq!(pool.max_bytes_now(), CEILING, "uncalibrated: the ceiling");
    let bound = |pool: &Pool<Vec<u8>>| {
        // Everything retained fits the ceiling, at every step.
        let stats = pool.stats();
        assert!(stats.retained_bytes <= stats.retained * CEILING, "{stats}");
    };

    // Small: 1 KiB buffers. One window calibrates the cap down to the floor.
    for _ in 0..2 {
        cycle(&pool, AUTO_CAP_WINDOW, 1000, 16);
        bound(&pool);
    }
    assert_eq!(pool.max_bytes_now(), AUTO_CAP_FLOOR);

    // Large: 100 KiB. The cap rises within one window...
    cycle(&pool, AUTO_CAP_WINDOW, 100_000, 16);
    bound(&pool);
    let large = pool.max_bytes_now();
    // Twice the class of the 100 KiB uses: room for a buffer grown by doubling.
    assert_eq!(large, (1 << 18) - 1);
    // ...and then large buffers are kept again.
    let before = pool.stats();
    cycle(&pool, AUTO_CAP_WINDOW / 2, 100_000, 16);
    let after = pool.stats();
    assert!(after.dropped_oversize == before.dropped_oversize, "{after}");

    // Small again: one window is not enough to lower it (hysteresis)...
    cycle(&pool, AUTO_CAP_WINDOW / 2, 1000, 16);
    assert_eq!(pool.max_bytes_now(), large);
    // ...two are.
    cycle(&pool, 2 * AUTO_CAP_WINDOW, 1000, 16);
    bound(&pool);
    assert_eq!(pool.max_bytes_now(), AUTO_CAP_FLOOR);
    // The large buffers left were dropped as they came back: what stays
    // idle now fits the lowered cap.
    cycle(&pool, 64, 1000, 16);
    let stats = pool.stats();
    assert!(
        stats.retained_bytes <= stats.retained * AUTO_CAP_FLOOR,
        "{stats}"
    );
    assert!(stats.is_balanced(), "{stats}");
}

#[test]
fn an_auto_capped_pool_constructs_values_at_the_common_size() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes_auto().max_retained(0);
    // Nothing is retained, so every get constructs; after a window of 3000
    // byte uses, new buffers start with room for them.
    cycle(&pool, AUTO_CAP_WINDOW, 3000, 1);
    let fresh = pool.get();
    assert!(fresh.capacity() >= 3000, "{}", fresh.capacity());
}

/// A prefill of an auto-capped pool makes its values as a miss does, at
/// the common size: `reserve` called the bare constructor, so after a
/// window of 10,000-byte uses a get that took a prefilled buffer found it
/// empty (capacity 0) and grew it again, where a miss got 16 KiB.
#[test]
fn an_auto_capped_pool_prefills_values_at_the_common_size() {
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes_auto().max_bytes(1 << 20);
    cycle(&pool, AUTO_CAP_WINDOW, 10_000, 1);
    pool.clear();
    assert_eq!(pool.reserve(2), 2);
    let misses = pool.stats().misses;
    let prefilled = pool.get();
    assert_eq!(pool.stats().misses, misses, "a prefilled value");
    assert!(prefilled.capacity() >= 10_000, "{}", prefilled.capacity());
}

#[derive(Poolable, Default)]
#[poolable(max_bytes = "auto", max_bytes = 1 << 16)]
struct Frame {
    bytes: Vec<u8>,
}

#[test]
fn the_derive_takes_an_auto_cap_under_a_ceiling() {
    assert_eq!(Frame::pool().max_bytes_now(), 1 << 16);
    for _ in 0..AUTO_CAP_WINDOW {
        Frame::pool().get().bytes.extend_from_slice(&[1; 100]);
    }
    assert_eq!(Frame::pool().max_bytes_now(), AUTO_CAP_FLOOR);
}

#[test]
fn a_recycle_vec_sheds_spares_until_it_fits() {
    use poolable::RecycleVec;
    let mut v: RecycleVec<String> = RecycleVec::new();
    for _ in 0..64 {
        v.push_reset().push_str(&"x".repeat(1000));
    }
    assert!(v.used_bytes() >= 64_000);
    v.reset();
    assert_eq!(v.used_bytes(), 0, "spares are not in use");
    v.shrink_heap(10_000);
    assert!(v.heap_bytes() <= 10_000, "{}", v.heap_bytes());
    assert!(v.spare_len() > 0, "it keeps what fits");
}

/// A value that measures near `usize::MAX`: what a `Mutex` locked or a
/// `RefCell` borrowed at its return measures (`usize::MAX`), or a
/// hand-written `heap_bytes` that says so.
struct Huge;

impl Reset for Huge {
    fn reset(&mut self) {}
    fn heap_bytes(&self) -> usize {
        usize::MAX / 2 + 1
    }
}

/// With the cap disabled the pool keeps such values, and the sums of their
/// sizes (stats, `retained_bytes`, trims, `advice`) saturate instead of
/// overflowing: they once panicked in a debug build ("attempt to add with
/// overflow"), and `Pool::drop` aborted the process on the way out.
#[test]
fn values_measured_near_usize_max_are_summed_without_overflow() {
    let pool: Pool<Huge> = Pool::with_new(|| Huge).max_bytes(usize::MAX);
    drop((pool.get(), pool.get(), pool.get()));
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (3, usize::MAX));
    assert!(poolable::retained_bytes() > 0);
    let _ = poolable::advice();
    pool.trim();
    pool.clear();
    assert_eq!(pool.stats().retained, 0);
    assert!(stats.is_balanced());
}
