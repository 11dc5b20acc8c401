//! Panics in user code are survived: a panic while holding a guard, in a
//! constructor, in a `with` reset function, in `heap_bytes` during a
//! prefill, and in a field's `Drop` when the pool drops a value (oversize,
//! full, trim, clear). After each, the pool
//! keeps working, no value or byte leaks, and the counters still balance.
//!
//! Leaks are measured with a counting `#[global_allocator]` (live bytes per
//! thread, so tests running in parallel do not disturb each other:
//! `common/live_bytes.rs`) and a per-thread count of live `Job` instances.
//! Every test runs on one thread and uses its own pool.
//!
//! Under `panic = "abort"` none of this applies: the first panic ends the
//! process, no guard is dropped during unwinding, and `dropped_panic` stays 0.

mod common {
    pub mod balance;
    pub mod bomb;
    pub mod child_process;
    pub mod live_bytes;
    pub mod planned_panic;
}

use common::balance::assert_balanced;
use common::bomb::Bomb;
use common::child_process::in_child;
use common::live_bytes::live_bytes;
use common::planned_panic::{PLANNED, planned_panic, quiet_planned_panics};
use poolable::{Pool, Poolable, Pooled, Reset};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

// ---------------------------------------------------------------------------
// Per-thread counts: live `Job`s (live heap bytes: `common::live_bytes`), and
// the switches that arm the planned panics.

std::thread_local! {
    static LIVE_JOBS: Cell<isize> = const { Cell::new(0) };
    static ARM_NEW: Cell<bool> = const { Cell::new(false) };
    static ARM_RESET: Cell<bool> = const { Cell::new(false) };
    static ARM_MEASURE: Cell<bool> = const { Cell::new(false) };
}

fn live_jobs() -> isize {
    LIVE_JOBS.with(Cell::get)
}

// ---------------------------------------------------------------------------
// Planned panics (`common/planned_panic.rs`).

/// Run `f`, which must panic with the planned payload.
fn expect_planned_panic(f: impl FnOnce()) {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the planned panic did not happen");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&PLANNED));
}

// ---------------------------------------------------------------------------
// The pooled type.

/// Counts live `Job`s on this thread.
struct Live;

impl Live {
    fn new() -> Live {
        LIVE_JOBS.with(|n| n.set(n.get() + 1));
        Live
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = LIVE_JOBS.try_with(|n| n.set(n.get() - 1));
    }
}

/// The `with` reset of `Job::scratch`: panics when `ARM_RESET` is set.
fn clear_or_panic(scratch: &mut Vec<u8>) {
    if ARM_RESET.with(|armed| armed.replace(false)) {
        planned_panic();
    }
    scratch.clear();
}

#[derive(Reset)]
struct Job {
    #[poolable(skip)]
    _live: Live,
    // Before `secret`: a panic here leaves `secret` not yet reset.
    #[poolable(with = clear_or_panic)]
    scratch: Vec<u8>,
    secret: String,
    bomb: Bomb,
}

impl Job {
    fn new() -> Job {
        // Allocate before the panic: it must be freed by the unwinding.
        let secret = String::with_capacity(16);
        if ARM_NEW.with(|armed| armed.replace(false)) {
            planned_panic();
        }
        Job {
            _live: Live::new(),
            scratch: Vec::new(),
            secret,
            bomb: Bomb::default(),
        }
    }

    fn is_pristine(&self) -> bool {
        self.scratch.is_empty() && self.secret.is_empty() && !self.bomb.armed
    }

    fn dirty(&mut self) {
        self.scratch.extend_from_slice(b"scratch");
        self.secret.push_str("user=ada secret=hunter2");
    }
}

/// The derive's own pool with a custom `new`, for the constructor panic.
#[derive(Poolable)]
#[poolable(new = Fresh::new)]
struct Fresh {
    #[poolable(skip)]
    _live: Live,
    secret: String,
}

impl Fresh {
    fn new() -> Fresh {
        let secret = String::with_capacity(16);
        if ARM_NEW.with(|armed| armed.replace(false)) {
            planned_panic();
        }
        Fresh {
            _live: Live::new(),
            secret,
        }
    }
}

// ---------------------------------------------------------------------------
// Checks.

/// Live bytes and live `Job`s left behind by `scenario`, once the pool is
/// cleared. The scenario runs once first, so that one-time allocations (the
/// pool's shared state, this thread's cache, the registry) are not counted.
fn leaked_by<T: Reset + Send>(pool: &Pool<T>, scenario: impl Fn()) -> (isize, isize) {
    scenario();
    pool.clear();
    let (bytes, jobs) = (live_bytes(), live_jobs());
    scenario();
    pool.clear();
    (live_bytes() - bytes, live_jobs() - jobs)
}

fn assert_nothing_leaked<T: Reset + Send>(pool: &Pool<T>, scenario: impl Fn()) {
    let jobs_before = live_jobs();
    let (bytes, jobs) = leaked_by(pool, scenario);
    assert_eq!(bytes, 0, "heap bytes leaked by one run");
    assert_eq!(jobs, 0, "values leaked by one run");
    assert_eq!(live_jobs(), jobs_before, "values left alive after clear()");
    assert_eq!(pool.stats().retained, 0, "{}", pool.stats());
}

/// get / put / into_inner / trim / stats all still behave (one value is
/// detached and put back).
fn assert_pool_works(pool: &Pool<Job>, retains: bool) {
    let before = pool.stats();
    let mut job = pool.get();
    assert!(job.is_pristine(), "a dirty value was handed out");
    job.dirty();
    drop(job);
    let job = pool.get();
    assert!(job.is_pristine(), "a dirty value was handed out");
    let mut job = Pooled::into_inner(job);
    job.dirty();
    pool.put(job);
    let after = pool.stats();
    assert_eq!(after.gets, before.gets + 2, "{after}");
    assert_eq!(after.puts, before.puts + 2, "{after}");
    assert_eq!(after.detached, before.detached + 1, "{after}");
    if retains {
        assert!(after.retained >= 1, "{after}");
    }
    pool.trim();
    pool.trim();
    assert_eq!(pool.stats().retained, 0, "{}", pool.stats());
    assert!(pool.get().is_pristine());
}

// ---------------------------------------------------------------------------
// 1. A panic in user code while a guard is held.

fn panic_holding_a_guard(pool: &Pool<Job>) {
    expect_planned_panic(|| {
        let mut job = pool.get();
        job.dirty();
        planned_panic();
    });
}

#[test]
fn panic_while_holding_a_guard_drops_the_value_instead_of_returning_it() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    panic_holding_a_guard(&pool);
    let stats = pool.stats();
    assert_eq!((stats.dropped_panic, stats.puts, stats.retained), (1, 0, 0));
    assert_eq!(live_jobs(), 0);
    assert_balanced(stats, 0, 0);
}

#[test]
fn panic_while_holding_a_guard_leaks_nothing_and_pool_still_works() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || panic_holding_a_guard(&pool));
    assert_pool_works(&pool, true);
    assert_balanced(pool.stats(), 0, 1);
}

// ---------------------------------------------------------------------------
// 2. A panic in the constructor.

fn panic_in_new(pool: &Pool<Job>) {
    ARM_NEW.with(|armed| armed.set(true));
    expect_planned_panic(|| drop(pool.get()));
}

#[test]
fn panic_in_new_leaks_nothing_and_pool_still_works() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || panic_in_new(&pool));
    assert_pool_works(&pool, true);
}

#[test]
fn panic_in_derived_new_leaves_the_derived_pool_working() {
    quiet_planned_panics();
    let jobs = live_jobs();
    ARM_NEW.with(|armed| armed.set(true));
    expect_planned_panic(|| drop(Fresh::pool().get()));
    assert_eq!(live_jobs(), jobs);
    let mut fresh = Fresh::pool().get();
    assert!(fresh.secret.is_empty());
    fresh.secret.push_str("hunter2");
    drop(fresh);
    assert!(Fresh::pool().get().secret.is_empty());
    Fresh::pool().trim();
    Fresh::pool().trim();
    assert_eq!(Fresh::pool().stats().retained, 0);
    assert_eq!(live_jobs(), jobs);
}

#[test]
fn panic_in_new_keeps_the_counters_balanced() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    panic_in_new(&pool);
    assert_balanced(pool.stats(), 0, 0);
}

// ---------------------------------------------------------------------------
// 3. A panic in a `with` reset function.

fn panic_in_with_reset(pool: &Pool<Job>) {
    let mut job = pool.get();
    job.dirty();
    ARM_RESET.with(|armed| armed.set(true));
    expect_planned_panic(|| drop(job));
}

#[test]
fn panic_in_with_reset_never_hands_out_the_half_reset_value() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    panic_in_with_reset(&pool);
    assert_eq!(live_jobs(), 0, "the half-reset value was kept");
    assert_eq!(pool.stats().retained, 0, "{}", pool.stats());
    let job = pool.get();
    assert!(job.is_pristine(), "secret {:?} handed out", job.secret);
}

#[test]
fn panic_in_with_reset_leaks_nothing_and_pool_still_works() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || panic_in_with_reset(&pool));
    assert_pool_works(&pool, true);
}

#[test]
fn panic_in_with_reset_keeps_the_counters_balanced() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    panic_in_with_reset(&pool);
    assert_balanced(pool.stats(), 0, 0);
}

// ---------------------------------------------------------------------------
// 4. A panic in a field's `Drop`, when the pool drops the value on a normal
//    (not unwinding) path.

/// Return an armed value that the pool will drop on return.
fn bomb_on_return(pool: &Pool<Job>, oversize: bool) {
    let mut job = pool.get();
    job.dirty();
    if oversize {
        job.secret.reserve(4096);
    }
    job.bomb.armed = true;
    expect_planned_panic(|| drop(job));
}

#[test]
fn panic_in_field_drop_of_an_oversized_value_is_survived() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new).max_bytes(1024);
    assert_nothing_leaked(&pool, || bomb_on_return(&pool, true));
    let stats = pool.stats();
    assert_eq!(stats.dropped_oversize, 2, "{stats}");
    assert_balanced(stats, 0, 0);
    assert_pool_works(&pool, true);
    assert_balanced(pool.stats(), 0, 1);
}

#[test]
fn panic_in_field_drop_of_a_value_over_the_retention_bound_is_survived() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new).max_retained(0);
    assert_nothing_leaked(&pool, || bomb_on_return(&pool, false));
    let stats = pool.stats();
    assert_eq!(stats.dropped_full, 2, "{stats}");
    assert_balanced(stats, 0, 0);
    assert_pool_works(&pool, false);
    assert_balanced(pool.stats(), 0, 1);
}

/// Put nine values back, the first one armed: the thread cache (8) spills
/// its oldest half, armed value included, to the shards. Two trims drop it.
fn bomb_in_shards_then_trim(pool: &Pool<Job>) {
    let mut jobs: Vec<_> = (0..9).map(|_| pool.get()).collect();
    jobs[0].bomb.armed = true;
    for job in jobs {
        drop(job);
    }
    pool.trim();
    let panics = pool.stats().drop_panics;
    pool.trim(); // the panic is caught and counted, not raised here
    assert_eq!(pool.stats().drop_panics, panics + 1, "{}", pool.stats());
}

#[test]
fn panic_in_field_drop_during_trim_of_the_shards_is_survived() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || bomb_in_shards_then_trim(&pool));
    assert_balanced(pool.stats(), 0, 0);
    assert_pool_works(&pool, true);
    assert_balanced(pool.stats(), 0, 1);
}

/// An armed value in this thread's cache, dropped from there by `then`
/// (two trims, or a clear). The pool drops idle values one at a time under
/// `catch_unwind`, so the panic is counted in `drop_panics` instead of
/// escaping from `trim` or `clear`.
fn bomb_in_thread_cache(pool: &Pool<Job>, then: impl FnOnce()) {
    let mut job = pool.get();
    job.bomb.armed = true;
    drop(job);
    assert_eq!(pool.stats().retained, 1);
    let panics = pool.stats().drop_panics;
    then(); // the panic is caught and counted, not raised here
    assert_eq!(pool.stats().drop_panics, panics + 1, "{}", pool.stats());
}

/// Two trims: the first marks the cached value idle, the second drops it.
fn trim_twice(pool: &Pool<Job>) {
    pool.trim();
    pool.trim();
}

#[test]
fn panic_in_field_drop_during_trim_of_the_thread_cache_leaks_nothing() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || bomb_in_thread_cache(&pool, || trim_twice(&pool)));
    assert_pool_works(&pool, true);
}

#[test]
fn panic_in_field_drop_during_clear_of_the_thread_cache_leaks_nothing() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    assert_nothing_leaked(&pool, || bomb_in_thread_cache(&pool, || pool.clear()));
    assert_pool_works(&pool, true);
}

#[test]
fn panic_in_field_drop_during_trim_of_the_thread_cache_keeps_stats_exact() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    bomb_in_thread_cache(&pool, || trim_twice(&pool));
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    assert_balanced(stats, 0, 0);
}

#[test]
fn panic_in_field_drop_during_clear_of_the_thread_cache_keeps_stats_exact() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    bomb_in_thread_cache(&pool, || pool.clear());
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
    assert_balanced(stats, 0, 0);
}

#[test]
fn panic_in_field_drop_during_trim_of_the_thread_cache_keeps_retained_bytes_exact_afterwards() {
    quiet_planned_panics();
    let pool = Pool::with_new(Job::new);
    bomb_in_thread_cache(&pool, || trim_twice(&pool));
    let job = pool.get();
    let bytes = {
        let mut probe = Job::new();
        probe.reset();
        probe.heap_bytes() + size_of::<Job>()
    };
    drop(job);
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.retained_bytes),
        (1, bytes),
        "{stats}"
    );
}

// ---------------------------------------------------------------------------
// 5. A panic in `heap_bytes` while `reserve` measures a new value.

/// A buffer whose `heap_bytes` panics when `ARM_MEASURE` is set.
struct Measured(Vec<u8>);

impl Reset for Measured {
    fn reset(&mut self) {
        self.0.clear();
    }
    fn heap_bytes(&self) -> usize {
        if ARM_MEASURE.with(|armed| armed.replace(false)) {
            planned_panic();
        }
        self.0.capacity()
    }
}

/// The value the panic drops never was the pool's, as one whose
/// constructor panics: it was once counted as prefilled, and then nowhere.
#[test]
fn panic_in_heap_bytes_while_reserving_keeps_the_counters_balanced() {
    quiet_planned_panics();
    let pool = Pool::with_new(|| Measured(Vec::with_capacity(8)));
    ARM_MEASURE.with(|armed| armed.set(true));
    expect_planned_panic(|| {
        pool.reserve(2);
    });
    assert_balanced(pool.stats(), 0, 0);
    assert_eq!(pool.stats().prefilled, 0);
    assert_eq!(pool.reserve(1), 1);
    assert_balanced(pool.stats(), 0, 0);
}

// ---------------------------------------------------------------------------
// 6. A panic in a field's `Drop` when a thread exits with the value in its
//    cache. The cache is flushed by a thread-local destructor, and a panic in
//    a thread-local destructor aborts the process, so this runs in a child
//    process.

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn panic_in_field_drop_at_thread_exit_does_not_abort_the_process() {
    if in_child(
        "panic_in_field_drop_at_thread_exit_does_not_abort_the_process",
        &[],
    ) {
        quiet_planned_panics();
        // No room in the shards (`max_retained` below one cache), so the
        // exiting thread's cache drops the armed value itself.
        let pool: &'static Pool<Job> =
            Box::leak(Box::new(Pool::with_new(Job::new).max_retained(4)));
        let worker = std::thread::spawn(move || {
            let mut job = pool.get();
            job.bomb.armed = true;
        });
        worker.join().unwrap();
        // The value was dropped at the thread's exit (no room), and its
        // panic caught and counted.
        let stats = pool.stats();
        assert_eq!(
            (stats.drop_panics, stats.dropped_full, stats.retained),
            (1, 1, 0),
            "{stats}"
        );
        assert_balanced(stats, 0, 0);
    }
}

/// A pool can be used inside `catch_unwind` without `AssertUnwindSafe`, as
/// a `Mutex` can: a panic leaves it consistent (the tests above), so it is
/// `RefUnwindSafe`, and its guards are as unwind safe as the value.
#[test]
fn a_pool_is_unwind_safe() {
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<Pool<Vec<u8>>>();
    unwind_safe::<Pooled<'static, Vec<u8>>>();
    unwind_safe::<poolable::OwnedPooled<Vec<u8>>>();
    unwind_safe::<poolable::BufferPool>();
    unwind_safe::<poolable::PooledBuf<'static>>();

    let pool: Pool<Vec<u8>> = Pool::new();
    quiet_planned_panics();
    let caught = catch_unwind(|| {
        let mut buf = pool.get();
        buf.push(1);
        planned_panic();
    });
    assert!(caught.is_err());
    assert!(pool.get().is_empty());
    assert_balanced(pool.stats(), 0, 0);
}
