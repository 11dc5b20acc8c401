//! Behaviour tests of the pool runtime on one thread, through the facade
//! crate: reset, reuse, exclusivity, size cap, retention bound, idle decay,
//! stats accounting, panic safety, generic derived types, static and heap
//! pools. One behaviour per test.
//!
//! `trim_all` and the background trimmer age every pool of the process, so
//! the tests that use them hold [`exclusive_gate`] and run alone; every other
//! test holds [`shared_gate`]. Each test uses pools (and derived types) of its
//! own, so tests running in parallel never share a pool.

mod common {
    pub mod balance;
}

use common::balance::assert_balanced;
use poolable::{DEFAULT_MAX_BYTES, LOCAL_CACHE_SIZE, Pool, Poolable, Pooled, Reset};
use std::cell::Cell;
use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

static TRIM_GATE: RwLock<()> = RwLock::new(());

/// Held by every test that no process-wide trim may disturb.
fn shared_gate() -> RwLockReadGuard<'static, ()> {
    TRIM_GATE.read().unwrap_or_else(PoisonError::into_inner)
}

/// Held by the tests that trim every pool of the process.
fn exclusive_gate() -> RwLockWriteGuard<'static, ()> {
    TRIM_GATE.write().unwrap_or_else(PoisonError::into_inner)
}

// ---------------------------------------------------------------------------
// Reset: exactly once, before reuse.

thread_local! {
    static RESETS: Cell<u64> = const { Cell::new(0) };
}

/// A `with` reset that counts its calls on the calling thread.
fn count_reset(data: &mut Vec<u8>) {
    RESETS.with(|r| r.set(r.get() + 1));
    data.clear();
}

fn resets() -> u64 {
    RESETS.with(Cell::get)
}

#[test]
fn dropping_a_guard_resets_exactly_once_before_reuse() {
    #[derive(Poolable, Default)]
    struct Counted {
        #[poolable(with = count_reset)]
        data: Vec<u8>,
    }
    let _gate = shared_gate();
    let start = resets();

    let mut guard = Counted::pool().get();
    guard.data.extend_from_slice(b"user=ada secret=hunter2");
    let buffer = guard.data.as_ptr();
    drop(guard);
    assert_eq!(resets() - start, 1, "dropping the guard resets once");

    let guard = Counted::pool().get();
    assert_eq!(guard.data.as_ptr(), buffer, "the returned value is reused");
    assert!(guard.data.is_empty(), "the reused value was reset");
    assert_eq!(
        resets() - start,
        1,
        "getting a returned value does not reset it again"
    );
    drop(guard);
    assert_eq!(resets() - start, 2);
    assert_eq!(Counted::pool().stats().misses, 1);
}

#[test]
fn put_resets_exactly_once_before_reuse() {
    #[derive(Poolable, Default)]
    struct Counted {
        #[poolable(with = count_reset)]
        data: Vec<u8>,
    }
    let _gate = shared_gate();
    let start = resets();

    Counted::pool().put(Counted {
        data: b"left over".to_vec(),
    });
    assert_eq!(resets() - start, 1, "put resets once");

    let guard = Counted::pool().get();
    assert!(guard.data.is_empty(), "the put value was reset");
    assert!(guard.data.capacity() >= 9, "and kept its buffer");
    assert_eq!(resets() - start, 1, "get does not reset again");
    assert_eq!(
        Counted::pool().stats().misses,
        0,
        "the get reused the put value"
    );
}

#[test]
fn get_of_a_new_value_does_not_reset() {
    #[derive(Poolable, Default)]
    struct Counted {
        #[poolable(with = count_reset)]
        data: Vec<u8>,
    }
    let _gate = shared_gate();
    let start = resets();

    let guard = Counted::pool().get();
    assert_eq!(Counted::pool().stats().misses, 1, "the value is new");
    assert_eq!(resets() - start, 0, "a new value is not reset");
    drop(guard);
    assert_eq!(resets() - start, 1);
}

#[test]
fn into_inner_does_not_reset() {
    #[derive(Poolable, Default)]
    struct Counted {
        #[poolable(with = count_reset)]
        data: Vec<u8>,
    }
    let _gate = shared_gate();
    let start = resets();

    let mut guard = Counted::pool().get();
    guard.data.extend_from_slice(b"keep me");
    let owned = Pooled::into_inner(guard);
    assert_eq!(resets() - start, 0, "into_inner does not reset");
    assert_eq!(owned.data, b"keep me", "the detached value is untouched");
    let stats = Counted::pool().stats();
    assert_eq!((stats.detached, stats.puts, stats.retained), (1, 0, 0));
    drop(owned);
    assert_eq!(
        resets() - start,
        0,
        "dropping the detached value does not reset"
    );
}

// ---------------------------------------------------------------------------
// Reuse and exclusivity.

#[test]
fn the_same_allocation_comes_back_after_drop_and_get() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new();
    let mut buf = pool.get();
    buf.extend_from_slice(&[7; 100]);
    let (ptr, cap) = (buf.as_ptr(), buf.capacity());
    drop(buf);
    for round in 0..10 {
        let mut buf = pool.get();
        assert_eq!(buf.as_ptr(), ptr, "round {round}: same allocation");
        assert_eq!(buf.capacity(), cap, "round {round}: capacity kept");
        assert!(buf.is_empty(), "round {round}: reset");
        buf.extend_from_slice(&[round; 50]);
    }
    let stats = pool.stats();
    assert_eq!((stats.gets, stats.misses), (11, 1));
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

#[derive(Poolable)]
#[poolable(new = Tagged::fresh)]
struct Tagged {
    /// Set once at construction; a value keeps its id for life.
    #[poolable(skip)]
    id: u64,
    buf: Vec<u8>,
}

impl Tagged {
    fn fresh() -> Tagged {
        Tagged {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            buf: Vec::new(),
        }
    }
}

#[test]
fn a_value_is_never_handed_to_two_holders() {
    let _gate = shared_gate();
    // Sizes below, at and above a thread cache, and above the retention bound.
    for n in [3, LOCAL_CACHE_SIZE, 3 * LOCAL_CACHE_SIZE, 200] {
        let held: Vec<_> = (0..n).map(|_| Tagged::pool().get()).collect();
        let ids: HashSet<u64> = held.iter().map(|g| g.id).collect();
        assert_eq!(
            ids.len(),
            n,
            "{n} guards held at once hold {n} distinct values"
        );
        let values: HashSet<*const Tagged> = held.iter().map(|g| &**g as *const Tagged).collect();
        assert_eq!(values.len(), n);
        drop(held);
    }
    let stats = Tagged::pool().stats();
    assert!(
        stats.gets > stats.misses,
        "the later rounds reused values: {stats}"
    );
}

// ---------------------------------------------------------------------------
// Size cap.

/// A `Vec<u8>` whose capacity is exactly `n` bytes (checked, since `std`
/// only promises "at least").
/// The pool's own storage of a `Vec<u8>`, which counts toward the cap.
const SLOT: usize = size_of::<Vec<u8>>();

fn exact(n: usize) -> Vec<u8> {
    let v = Vec::with_capacity(n);
    assert_eq!(v.capacity(), n, "precondition: exact capacity");
    v
}

#[test]
fn a_value_over_max_bytes_is_dropped_on_return() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(1024);
    pool.put(exact(1025));
    let stats = pool.stats();
    assert_eq!(
        (stats.puts, stats.dropped_oversize, stats.retained),
        (1, 1, 0)
    );

    let mut guard = pool.get();
    guard.reserve_exact(4096);
    drop(guard);
    let stats = pool.stats();
    assert_eq!(
        (stats.puts, stats.dropped_oversize, stats.retained),
        (2, 2, 0)
    );
    assert_eq!(stats.retained_bytes, 0);
}

#[test]
fn a_value_at_or_under_max_bytes_is_kept() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(1024);
    // A value's size is its heap bytes plus the pool's own slot for it.
    pool.put(exact(512));
    pool.put(exact(1024 - SLOT));
    let stats = pool.stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (0, 2));
    assert_eq!(stats.retained_bytes, 512 + SLOT + 1024);
}

#[test]
fn the_default_size_cap_is_64_kib() {
    let _gate = shared_gate();
    assert_eq!(DEFAULT_MAX_BYTES, 64 * 1024);
    let pool: Pool<Vec<u8>> = Pool::new();
    pool.put(exact(DEFAULT_MAX_BYTES - SLOT));
    assert_eq!(pool.stats().retained, 1, "exactly at the default cap: kept");
    assert_eq!(pool.stats().dropped_oversize, 0);
    pool.put(exact(DEFAULT_MAX_BYTES - SLOT + 1));
    assert_eq!(pool.stats().retained, 1, "one byte over: not kept");
    assert_eq!(pool.stats().dropped_oversize, 1);
}

#[test]
fn max_bytes_usize_max_disables_the_cap() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(usize::MAX);
    pool.put(exact(4 << 20));
    let stats = pool.stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (0, 1));
    assert_eq!(stats.retained_bytes, (4 << 20) + SLOT);
    assert_eq!(pool.get().capacity(), 4 << 20);
}

#[test]
fn the_derived_max_bytes_attribute_sets_the_cap() {
    #[derive(Poolable, Default)]
    #[poolable(max_bytes = 1024)]
    struct Capped {
        buf: Vec<u8>,
    }
    let _gate = shared_gate();
    let mut guard = Capped::pool().get();
    guard.buf.reserve_exact(2048);
    drop(guard);
    let stats = Capped::pool().stats();
    assert_eq!(
        (stats.dropped_oversize, stats.retained),
        (1, 0),
        "2 KiB > 1 KiB: dropped"
    );

    let mut guard = Capped::pool().get();
    guard.buf.reserve_exact(512);
    drop(guard);
    let stats = Capped::pool().stats();
    assert_eq!(
        (stats.dropped_oversize, stats.retained),
        (1, 1),
        "512 B: kept"
    );
    // 2 KiB is under the default cap, so the attribute is what dropped it.
    const { assert!(2048 < DEFAULT_MAX_BYTES) };
}

#[test]
fn max_capacity_shrinks_a_big_buffer_so_it_is_retained() {
    #[derive(Poolable, Default)]
    struct Shrunk {
        #[poolable(max_capacity = 256)]
        buf: Vec<u8>,
    }
    let _gate = shared_gate();
    let mut guard = Shrunk::pool().get();
    guard.buf.resize(1 << 20, 1);
    drop(guard);
    let stats = Shrunk::pool().stats();
    assert_eq!((stats.dropped_oversize, stats.retained), (0, 1), "{stats}");
    assert!(stats.retained_bytes <= 256 + size_of::<Shrunk>(), "{stats}");

    let guard = Shrunk::pool().get();
    assert!(guard.buf.is_empty());
    assert!(
        guard.buf.capacity() <= 256,
        "shrunk to {}",
        guard.buf.capacity()
    );
    assert_eq!(
        Shrunk::pool().stats().misses,
        1,
        "the shrunk value was reused"
    );
}

// ---------------------------------------------------------------------------
// Bounded retention.

#[test]
fn one_thread_retains_at_most_max_retained() {
    let _gate = shared_gate();
    // Below a thread cache, one cache, and caches plus shards.
    for n in [1, 5, LOCAL_CACHE_SIZE, 20, 100] {
        let pool: Pool<Vec<u8>> = Pool::new().max_retained(n);
        let held: Vec<_> = (0..3 * n).map(|_| pool.get()).collect();
        drop(held);
        let stats = pool.stats();
        assert_eq!(stats.retained, n, "max_retained({n}): {stats}");
        assert_eq!(
            stats.dropped_full,
            2 * n as u64,
            "max_retained({n}): {stats}"
        );
        assert_eq!(stats.puts, 3 * n as u64);
    }
}

#[test]
fn max_retained_zero_retains_nothing() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(0);
    let held: Vec<_> = (0..10).map(|_| pool.get()).collect();
    drop(held);
    pool.put(Vec::new());
    drop(pool.get());
    let stats = pool.stats();
    assert_eq!(stats.retained, 0, "{stats}");
    assert_eq!(stats.dropped_full, 12, "{stats}");
    assert_eq!(stats.misses, 11, "nothing was ever reused: {stats}");
}

// ---------------------------------------------------------------------------
// Idle decay.

#[test]
fn a_burst_idle_across_two_trims_is_dropped() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(1000);
    let held: Vec<_> = (0..1000)
        .map(|_| {
            let mut buf = pool.get();
            buf.push(1); // 8 bytes of capacity each
            buf
        })
        .collect();
    drop(held);
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.retained_bytes),
        (1000, 1000 * (8 + SLOT)),
        "{stats}"
    );

    pool.trim();
    pool.trim();
    let stats = pool.stats();
    assert_eq!(stats.retained, 0, "{stats}");
    assert_eq!(stats.retained_bytes, 0, "{stats}");
    assert_eq!(stats.dropped_idle, 1000, "{stats}");
    assert_eq!(stats.dropped_full + stats.dropped_oversize, 0, "{stats}");
    assert_balanced(stats, 0, 0);
}

#[test]
fn a_value_idle_across_one_trim_is_kept() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(64);
    let held: Vec<_> = (0..20).map(|_| pool.get()).collect();
    drop(held);
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (20, 0), "{stats}");
}

#[test]
fn a_value_idle_across_one_trim_is_kept_when_the_pool_is_full() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(16);
    let held: Vec<_> = (0..16).map(|_| pool.get()).collect();
    drop(held);
    assert_eq!(pool.stats().retained, 16);
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (16, 0), "{stats}");
}

#[test]
fn a_value_used_between_two_trims_survives_them() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new();
    let warm: Vec<_> = (0..4).map(|_| pool.get()).collect();
    drop(warm);
    pool.trim();
    let used: Vec<_> = (0..4).map(|_| pool.get()).collect();
    drop(used);
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (4, 0), "{stats}");
    assert_eq!(stats.misses, 4, "the second round reused the values");

    // Now idle across two trims: gone.
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 4), "{stats}");
}

static TRIM_ALL_BUFS: Pool<Vec<u8>> = Pool::new();
static TRIM_ALL_NAMES: Pool<String> = Pool::new();

#[test]
fn trim_all_decays_every_static_pool() {
    let _gate = exclusive_gate();
    // More than a thread cache, so some sit in the shards.
    let bufs: Vec<_> = (0..12).map(|_| TRIM_ALL_BUFS.get()).collect();
    let names: Vec<_> = (0..12).map(|_| TRIM_ALL_NAMES.get()).collect();
    drop((bufs, names));
    assert_eq!(TRIM_ALL_BUFS.stats().retained, 12);
    assert_eq!(TRIM_ALL_NAMES.stats().retained, 12);

    poolable::trim_all();
    assert_eq!(TRIM_ALL_BUFS.stats().retained, 12, "one trim: kept");
    assert_eq!(TRIM_ALL_NAMES.stats().retained, 12, "one trim: kept");

    poolable::trim_all();
    for stats in [TRIM_ALL_BUFS.stats(), TRIM_ALL_NAMES.stats()] {
        assert_eq!((stats.retained, stats.dropped_idle), (0, 12), "{stats}");
    }
}

#[test]
fn clear_drops_every_idle_value() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new();
    let held: Vec<_> = (0..20)
        .map(|_| {
            let mut buf = pool.get();
            buf.push(1);
            buf
        })
        .collect();
    drop(held);
    assert_eq!(pool.stats().retained, 20);
    pool.clear();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    assert_eq!(stats.dropped_idle, 20, "{stats}");
    drop(pool.get());
    assert_eq!(pool.stats().misses, 21, "nothing survived the clear");
}

static TRIMMED: Pool<Vec<u8>> = Pool::new();

#[test]
fn the_background_trimmer_decays_a_static_pool() {
    let _gate = exclusive_gate();
    // Fill the pool from a thread that then exits: its cache is flushed to
    // the shards, which the trimmer reaches. (A trim cannot reach into a
    // live thread's cache; that thread ages it on its next use.)
    std::thread::spawn(|| {
        let held: Vec<_> = (0..20)
            .map(|_| {
                let mut buf = TRIMMED.get();
                buf.push(1);
                buf
            })
            .collect();
        drop(held);
    })
    .join()
    .expect("filler thread");
    assert_eq!(TRIMMED.stats().retained, 20);

    let trimmer = poolable::trimmer::spawn(Duration::from_millis(5)).expect("spawn the trimmer");
    // Generous, and only a ceiling: the loop ends as soon as the pool is empty.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut stats = TRIMMED.stats();
    while stats.retained > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
        stats = TRIMMED.stats();
    }
    trimmer.stop();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    assert_eq!(TRIMMED.stats().dropped_idle, 20);
}

// ---------------------------------------------------------------------------
// Stats.

#[test]
fn stats_accounting_balances_after_a_mixed_sequence() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(4).max_bytes(1024);
    let mut gets = 0;

    // New values, some retained and some over the retention bound.
    let held: Vec<_> = (0..6).map(|_| pool.get()).collect();
    gets += 6;
    drop(held);
    // Reuse, then oversize.
    let mut big = pool.get();
    gets += 1;
    big.reserve_exact(4096);
    drop(big);
    // Detach.
    let _owned = Pooled::into_inner(pool.get());
    gets += 1;
    // Panic.
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        let _guard = pool.get();
        panic!("mid-use");
    }));
    gets += 1;
    assert!(caught.is_err());
    // Idle decay of whatever is left.
    pool.trim();
    pool.trim();
    // Values still held at the end.
    let still_held = [pool.get(), pool.get(), pool.get()];
    gets += 3;

    let stats = pool.stats();
    assert_eq!(stats.gets, gets);
    assert!(
        stats.dropped_full > 0
            && stats.dropped_oversize > 0
            && stats.detached > 0
            && stats.dropped_panic > 0
            && stats.dropped_idle > 0,
        "the sequence exercises every term: {stats}"
    );
    assert_balanced(stats, still_held.len() as u64, 0);
    drop(still_held);
    let stats = pool.stats();
    assert_balanced(stats, 0, 0);
}

#[test]
fn stats_display_is_one_line() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new().max_bytes(64);
    drop(pool.get());
    pool.get().reserve_exact(64);
    let line = pool.stats().to_string();
    assert!(!line.is_empty());
    assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
    assert!(line.contains("gets=2"), "{line:?}");
    assert!(line.contains("oversize=1"), "{line:?}");
}

/// A pool's `Debug` shows its name (the type's by default), its type and
/// its configured bounds, and no counts (those are `stats()`). Nothing
/// read it: an empty output passed every test.
#[test]
fn a_pools_debug_shows_its_name_type_and_bounds() {
    let _gate = shared_gate();
    let ty = std::any::type_name::<Vec<u8>>();
    let named: Pool<Vec<u8>> = Pool::new().name("uploads").max_retained(4).max_bytes(1024);
    assert_eq!(
        format!("{named:?}"),
        format!(
            "Pool {{ name: \"uploads\", type: {ty:?}, max_retained: Some(4), max_bytes: 1024, .. }}"
        )
    );
    let plain: Pool<Vec<u8>> = Pool::new();
    assert_eq!(
        format!("{plain:?}"),
        format!(
            "Pool {{ name: {ty:?}, type: {ty:?}, max_retained: None, max_bytes: {DEFAULT_MAX_BYTES}, .. }}"
        )
    );
}

// ---------------------------------------------------------------------------
// Panic safety.

#[test]
fn a_guard_dropped_during_a_panic_is_dropped_not_returned() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::new();
    let warm: Vec<_> = (0..2).map(|_| pool.get()).collect();
    drop(warm);
    assert_eq!(pool.stats().retained, 2);

    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut guard = pool.get();
        guard.extend_from_slice(b"half-writ");
        panic!("mid-use");
    }));
    assert!(caught.is_err());
    let stats = pool.stats();
    assert_eq!(stats.dropped_panic, 1, "{stats}");
    assert_eq!(stats.retained, 1, "not returned: {stats}");
    assert_eq!(stats.puts, 2, "no put was counted: {stats}");
    assert_balanced(stats, 0, 0);
}

thread_local! {
    static FAIL_NEW: Cell<bool> = const { Cell::new(false) };
    static FAIL_RESET: Cell<bool> = const { Cell::new(false) };
}

fn flaky_new() -> Vec<u8> {
    if FAIL_NEW.with(Cell::get) {
        panic!("new failed");
    }
    Vec::with_capacity(16)
}

#[test]
fn a_panicking_new_leaves_the_pool_usable() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u8>> = Pool::with_new(flaky_new);
    FAIL_NEW.with(|f| f.set(true));
    let caught = panic::catch_unwind(AssertUnwindSafe(|| drop(pool.get())));
    FAIL_NEW.with(|f| f.set(false));
    assert!(caught.is_err(), "the panic propagates to the caller of get");

    let mut guard = pool.get();
    guard.push(1);
    let ptr = guard.as_ptr();
    drop(guard);
    pool.put(vec![2, 3]);
    let (a, b) = (pool.get(), pool.get());
    assert!(a.is_empty() && b.is_empty());
    assert!(
        a.as_ptr() == ptr || b.as_ptr() == ptr,
        "the pool reuses again"
    );
    drop((a, b));
    let stats = pool.stats();
    assert_eq!(stats.retained, 2, "{stats}");
    assert_eq!(stats.puts, 4, "{stats}");
}

fn fragile_reset(data: &mut Vec<u8>) {
    if FAIL_RESET.with(Cell::get) {
        panic!("reset failed");
    }
    data.clear();
}

#[derive(Poolable, Default)]
struct Fragile {
    #[poolable(with = fragile_reset)]
    data: Vec<u8>,
}

#[test]
fn a_panicking_reset_propagates_and_the_pool_stays_usable() {
    let _gate = shared_gate();
    let pool = Fragile::pool();
    let mut guard = pool.get();
    guard.data.push(1);

    FAIL_RESET.with(|f| f.set(true));
    let from_drop = panic::catch_unwind(AssertUnwindSafe(|| drop(guard)));
    let from_put = panic::catch_unwind(AssertUnwindSafe(|| pool.put(Fragile::default())));
    FAIL_RESET.with(|f| f.set(false));
    assert!(
        from_drop.is_err(),
        "a reset panic in a guard's drop propagates"
    );
    assert!(from_put.is_err(), "a reset panic in put propagates");

    // Not poisoned: get, put and stats all work, and values are reused.
    let mut guard = pool.get();
    guard.data.extend_from_slice(b"again");
    let ptr = guard.data.as_ptr();
    drop(guard);
    pool.put(Fragile::default());
    let stats = pool.stats();
    assert_eq!(stats.retained, 2, "{stats}");
    let (a, b) = (pool.get(), pool.get());
    assert!(a.data.is_empty() && b.data.is_empty());
    assert!(a.data.as_ptr() == ptr || b.data.as_ptr() == ptr);
}

#[test]
fn stats_accounting_balances_after_a_panicking_reset() {
    #[derive(Poolable, Default)]
    struct Fragile2 {
        #[poolable(with = fragile_reset)]
        data: Vec<u8>,
    }
    let _gate = shared_gate();
    let guard = Fragile2::pool().get();
    FAIL_RESET.with(|f| f.set(true));
    let caught = panic::catch_unwind(AssertUnwindSafe(|| drop(guard)));
    FAIL_RESET.with(|f| f.set(false));
    assert!(caught.is_err());
    let stats = Fragile2::pool().stats();
    assert_balanced(stats, 0, 0);
}

// ---------------------------------------------------------------------------
// Generic derived types, static and heap pools.

#[derive(Poolable, Default)]
struct Twice {
    data: Vec<u8>,
}

/// A derived type's static pool and other pools of the same type, used in
/// turn on one thread (and on fresh threads, which link them in either
/// order): each keeps its own values and its own books. Their thread caches
/// are told apart by the pools' keys, not by the type: a lookup keyed by
/// type would hand one pool's value out of the other.
#[test]
fn pools_of_one_derived_type_keep_their_own_values() {
    let _gate = shared_gate();
    let (other, third) = (Pool::<Twice>::new(), Pool::<Twice>::new());
    let check = |first: &Pool<Twice>, second: &Pool<Twice>| {
        for round in 0..3 {
            let mut a = first.get();
            a.data.extend_from_slice(b"first");
            let a_ptr = a.data.as_ptr();
            let mut b = second.get();
            b.data.extend_from_slice(b"second");
            let b_ptr = b.data.as_ptr();
            drop((a, b));
            let (a, b) = (first.get(), second.get());
            assert_eq!(a.data.as_ptr(), a_ptr, "round {round}: first pool's value");
            assert_eq!(b.data.as_ptr(), b_ptr, "round {round}: second pool's value");
        }
    };
    check(Twice::pool(), &other);
    check(&third, Twice::pool());
    std::thread::spawn(move || {
        check(&other, Twice::pool());
        check(Twice::pool(), &third);
        drop((other, third));
    })
    .join()
    .unwrap();
    assert_balanced(Twice::pool().stats(), 0, 0);
}

#[derive(Poolable, Default)]
struct Wrapper<T> {
    items: Vec<T>,
}

#[test]
fn each_instantiation_of_a_generic_derived_type_has_its_own_pool() {
    let _gate = shared_gate();
    let bytes: &'static Pool<Wrapper<u8>> = Wrapper::<u8>::pool();
    let strings: &'static Pool<Wrapper<String>> = Wrapper::<String>::pool();
    assert!(
        !std::ptr::eq(
            (bytes as *const Pool<Wrapper<u8>>).cast::<()>(),
            (strings as *const Pool<Wrapper<String>>).cast::<()>()
        ),
        "distinct pools"
    );
    assert!(std::ptr::eq(bytes, Wrapper::<u8>::pool()), "stable pointer");
    assert!(
        std::ptr::eq(strings, Wrapper::<String>::pool()),
        "stable pointer"
    );

    let mut b = Wrapper::<u8>::pool().get();
    b.items.extend_from_slice(b"abc");
    let ptr = b.items.as_ptr();
    drop(b);
    let mut s = Wrapper::<String>::pool().get();
    s.items.push("x".into());
    drop(s);

    let b = Wrapper::<u8>::pool().get();
    assert!(b.items.is_empty());
    assert_eq!(b.items.as_ptr(), ptr, "reused in its own pool");
    let s = Wrapper::<String>::pool().get();
    assert!(s.items.is_empty());
    for stats in [bytes.stats(), strings.stats()] {
        assert_eq!((stats.gets, stats.misses, stats.puts), (2, 1, 1), "{stats}");
    }
}

static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes(64 << 10);

#[test]
fn a_static_pool_of_a_std_type_works() {
    let _gate = shared_gate();
    let mut buf = BUFS.get();
    buf.extend_from_slice(b"scratch");
    let ptr = buf.as_ptr();
    drop(buf);
    let buf = BUFS.get();
    assert!(buf.is_empty());
    assert_eq!(buf.as_ptr(), ptr);
    drop(buf);
    BUFS.get().reserve_exact(128 << 10);
    let stats = BUFS.stats();
    assert_eq!((stats.misses, stats.dropped_oversize), (1, 1), "{stats}");
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// A value that counts how many of its kind are alive.
struct Tracked {
    buf: Vec<u8>,
}

impl Default for Tracked {
    fn default() -> Self {
        LIVE.fetch_add(1, Ordering::Relaxed);
        Tracked { buf: Vec::new() }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Reset for Tracked {
    fn reset(&mut self) {
        self.buf.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.buf.capacity()
    }
}

#[test]
fn dropped_pools_free_their_idle_values() {
    let _gate = shared_gate();
    for i in 0..1000 {
        let pool: Pool<Tracked> = Pool::new();
        let held: Vec<_> = (0..1 + i % 12).map(|_| pool.get()).collect();
        drop(held);
        drop(pool);
    }
    // The last pool's thread cache is freed when this thread next creates a
    // cache or exits; every earlier pool's values are gone.
    let live = LIVE.load(Ordering::Relaxed);
    assert!(
        live <= LOCAL_CACHE_SIZE,
        "{live} values of dropped pools alive"
    );
    let pool: Pool<Tracked> = Pool::new();
    let guard = pool.get();
    assert_eq!(
        LIVE.load(Ordering::Relaxed),
        1,
        "only the new value is alive once the thread's caches are swept"
    );
    drop(guard);
}

/// Resident set size in bytes (Linux only).
fn rss() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
#[cfg_attr(miri, ignore = "reads /proc/self/statm, which Miri blocks")]
fn many_short_lived_pools_do_not_grow_memory() {
    // Alone, so that no other test's allocations move the RSS.
    let _gate = exclusive_gate();
    let before = rss();
    for _ in 0..1000 {
        let pool: Pool<Vec<u8>> = Pool::new();
        let mut buf = pool.get();
        buf.resize(48 << 10, 7); // touch 48 KiB: 47 MiB in all if leaked
        drop(buf);
        assert_eq!(pool.stats().retained, 1);
    }
    if let (Some(before), Some(after)) = (before, rss()) {
        let grown = after.saturating_sub(before);
        assert!(grown < 16 << 20, "RSS grew by {} KiB", grown >> 10);
    }
}

// ---------------------------------------------------------------------------
// Values of every size, in their thread cache's slots or not.

/// A zero-sized type gets no slots in the thread caches (they would all have
/// one address, `raw/lease.rs`): its values go through the shards, and each
/// one is still handed out, returned and counted once.
#[test]
fn a_pool_of_a_zero_sized_type_keeps_its_books() {
    let _gate = shared_gate();
    #[derive(Default)]
    struct Unit;
    impl Reset for Unit {
        fn reset(&mut self) {}
    }
    let pool: Pool<Unit> = Pool::new();
    for _ in 0..10 {
        let held: Vec<_> = (0..3 * LOCAL_CACHE_SIZE).map(|_| pool.get()).collect();
        drop(held);
    }
    let unit = Pooled::into_inner(pool.get());
    pool.put(unit);
    let stats = pool.stats();
    assert_eq!((stats.gets, stats.puts), (241, 241), "{stats}");
    assert!(stats.misses <= 3 * LOCAL_CACHE_SIZE as u64, "{stats}");
    assert_balanced(stats, 0, 1);
}

/// Values held past a thread cache's idle values (a burst) come back to
/// it, the leased ones in their slots and the others moved in: every value
/// is reused, whole, and none is counted twice.
#[test]
fn a_burst_past_the_thread_cache_reuses_every_value() {
    let _gate = shared_gate();
    let pool: Pool<Vec<u64>> = Pool::new();
    for round in 0..20_u64 {
        let mut held: Vec<_> = (0..40).map(|_| pool.get()).collect();
        for (i, v) in held.iter_mut().enumerate() {
            assert!(v.is_empty(), "handed out without a reset");
            v.extend([round, i as u64]);
        }
        // Dropped oldest first: the first ones fill the cache.
        drop(held);
    }
    let stats = pool.stats();
    assert_eq!(
        stats.misses, 40,
        "every round after the first reuses all: {stats}"
    );
    assert_balanced(stats, 0, 0);
}

// ---------------------------------------------------------------------------
// A guard forwards to its value.

/// A guard does what its value does, through its own impls: debug
/// formatting, `io::Write` and `io::Read`, `fmt::Write`.
#[test]
fn a_guard_formats_writes_and_reads_as_its_value() {
    use std::collections::VecDeque;
    use std::fmt;
    use std::io::{self, IoSlice, IoSliceMut, Read as _};
    let _gate = shared_gate();

    let bufs: Pool<Vec<u8>> = Pool::new();
    let mut buf = bufs.get();
    assert_eq!(io::Write::write(&mut buf, b"ab").unwrap(), 2);
    let parts = [IoSlice::new(b"cd"), IoSlice::new(b"e")];
    assert_eq!(io::Write::write_vectored(&mut buf, &parts).unwrap(), 3);
    io::Write::write_all(&mut buf, b"f").unwrap();
    io::Write::flush(&mut buf).unwrap();
    assert_eq!(&buf[..], b"abcdef");
    assert_eq!(format!("{buf:?}"), format!("{:?}", b"abcdef".to_vec()));

    /// A writer whose `flush` does something (a `Vec`'s does nothing).
    #[derive(Default)]
    struct Flushed(bool);
    impl Reset for Flushed {
        fn reset(&mut self) {
            self.0 = false;
        }
    }
    impl io::Write for Flushed {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.0 = true;
            Ok(())
        }
    }
    let writers: Pool<Flushed> = Pool::new();
    let mut writer = writers.get();
    io::Write::flush(&mut writer).unwrap();
    assert!(writer.0, "flushed through the guard");

    let queues: Pool<VecDeque<u8>> = Pool::new();
    let mut queue = queues.get();
    queue.extend(b"0123456789");
    let mut two = [0; 2];
    assert_eq!(queue.read(&mut two).unwrap(), 2);
    let (mut three, mut more) = ([0; 3], [0; 1]);
    let mut parts = [IoSliceMut::new(&mut three), IoSliceMut::new(&mut more)];
    assert_eq!(queue.read_vectored(&mut parts).unwrap(), 3);
    let mut exact = [0; 2];
    queue.read_exact(&mut exact).unwrap();
    let mut rest = Vec::new();
    assert_eq!(queue.read_to_end(&mut rest).unwrap(), 3);
    assert_eq!(
        (two, three, exact, &rest[..]),
        (*b"01", *b"234", *b"56", &b"789"[..])
    );
    queue.extend(b"xyz");
    let mut text = String::new();
    assert_eq!(queue.read_to_string(&mut text).unwrap(), 3);
    assert_eq!(text, "xyz");

    let lines: Pool<String> = Pool::new();
    let mut line = lines.get();
    fmt::Write::write_str(&mut line, "ab").unwrap();
    fmt::Write::write_char(&mut line, 'c').unwrap();
    fmt::Write::write_fmt(&mut line, format_args!("{}", 1)).unwrap();
    assert_eq!(*line, "abc1");
}
