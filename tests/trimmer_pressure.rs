//! The trimmer under memory pressure drops every idle value at once; under
//! medium pressure, every idle value of the shared tier; without it, one
//! decay step per interval. The pressure check is a test switch that also
//! holds the trimmer at its second tick while the test looks.

mod common {
    pub mod serial;
}

use common::serial::alone;
use poolable::trimmer::MemoryPressure;
use poolable::{LOCAL_CACHE_SIZE, Pool, Stats};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Start a trimmer whose pressure check answers `pressure` (through the
/// `bool` form of the check when `as_bool`: `true` for `High`), and wait
/// until its first tick is done: the check of the second tick reports in,
/// then waits for the returned sender to be dropped.
fn after_one_tick(
    pressure: MemoryPressure,
    as_bool: bool,
) -> (poolable::trimmer::Trimmer, SyncSender<()>) {
    let (ticked, tick) = sync_channel::<()>(0);
    let (release, released) = sync_channel::<()>(0);
    let released = Mutex::new(released);
    let calls = Mutex::new(0_u32);
    let check = move || {
        let mut calls = calls.lock().unwrap();
        *calls += 1;
        if *calls == 2 {
            let _ = ticked.send(());
            // Hold the second tick until the test has looked.
            let _ = released.lock().unwrap().recv();
        }
        pressure
    };
    let builder = poolable::trimmer::builder().interval(Duration::from_millis(5));
    let builder = if as_bool {
        builder.on_memory_pressure(move || check() == MemoryPressure::High)
    } else {
        builder.on_memory_pressure_level(check)
    };
    let trimmer = builder.spawn().unwrap();
    tick.recv().unwrap();
    (trimmer, release)
}

/// Three idle values, then one tick at `pressure` (through the `bool` form
/// of the check when `as_bool`): the pool's stats.
fn three_idle_after_one_tick(pressure: MemoryPressure, as_bool: bool) -> Stats {
    let pool = Pool::<Vec<u8>>::new();
    drop((pool.get(), pool.get(), pool.get()));
    let (trimmer, release) = after_one_tick(pressure, as_bool);
    let stats = pool.stats();
    drop(release);
    trimmer.stop();
    stats
}

#[test]
fn under_pressure_one_tick_drops_everything_idle() {
    let _alone = alone();
    for as_bool in [true, false] {
        let stats = three_idle_after_one_tick(MemoryPressure::High, as_bool);
        assert_eq!((stats.retained, stats.dropped_idle), (0, 3), "{stats}");
    }
}

#[test]
fn without_pressure_one_tick_only_ages() {
    let _alone = alone();
    for as_bool in [true, false] {
        let stats = three_idle_after_one_tick(MemoryPressure::Low, as_bool);
        assert_eq!((stats.retained, stats.dropped_idle), (3, 0), "{stats}");
    }
}

#[test]
fn under_medium_pressure_one_tick_empties_the_shards_and_ages_the_caches() {
    let _alone = alone();
    let pool = Pool::<Vec<u8>>::new();
    // 12 returns on this thread: its cache fills (8), spills its 4 oldest to
    // the shards, and fills again.
    let out: Vec<_> = (0..LOCAL_CACHE_SIZE + 4).map(|_| pool.get()).collect();
    drop(out);
    assert_eq!(pool.stats().retained, LOCAL_CACHE_SIZE + 4);
    let (trimmer, release) = after_one_tick(MemoryPressure::Medium, false);
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.dropped_idle),
        (LOCAL_CACHE_SIZE, 4),
        "{stats}"
    );
    // The cache was aged: the next tick (medium again) drops it.
    drop(release);
    trimmer.stop();
    let (trimmer, release) = after_one_tick(MemoryPressure::Medium, false);
    assert_eq!(pool.stats().retained, 0);
    drop(release);
    trimmer.stop();
}

/// The trimmer's thread runs user code (the pressure check here, a pooled
/// value's `Drop` in a trim), which may drop the `Trimmer` itself: that
/// stops the thread without joining it from itself, which once panicked
/// inside the library ("failed to join thread: Resource deadlock avoided").
#[test]
fn a_trimmer_dropped_on_its_own_thread_stops_without_a_panic() {
    let _alone = alone();
    static TRIMMER: Mutex<Option<poolable::trimmer::Trimmer>> = Mutex::new(None);
    let (done, dropped) = sync_channel::<std::thread::Result<()>>(1);
    let trimmer = poolable::trimmer::builder()
        .interval(Duration::from_millis(1))
        .on_memory_pressure(move || {
            if let Some(trimmer) = TRIMMER.lock().unwrap().take() {
                let drop_it = std::panic::AssertUnwindSafe(|| drop(trimmer));
                let _ = done.send(std::panic::catch_unwind(drop_it));
            }
            false
        })
        .spawn()
        .unwrap();
    *TRIMMER.lock().unwrap() = Some(trimmer);
    let dropped = dropped.recv_timeout(Duration::from_secs(20));
    assert!(
        matches!(dropped, Ok(Ok(()))),
        "Trimmer::drop panicked or did not run"
    );
}

/// `stop` waits for the thread to end: for the tick under way (here, a
/// pressure check that takes its time), then for the thread's state, the
/// check itself included, to be dropped.
#[test]
fn stop_returns_once_the_thread_has_ended() {
    let _alone = alone();
    /// Set when the check, which owns it, is dropped with the thread.
    struct SetOnDrop(Arc<AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let ended = Arc::new(AtomicBool::new(false));
    let owned = SetOnDrop(Arc::clone(&ended));
    let (entered, enter) = sync_channel::<()>(1);
    // Never sent on: the check waits out its timeout.
    let (_never, never) = sync_channel::<()>(0);
    let trimmer = poolable::trimmer::builder()
        .interval(Duration::from_millis(1))
        .on_memory_pressure(move || {
            let _owned = &owned;
            let _ = entered.try_send(());
            let _ = never.recv_timeout(Duration::from_millis(200));
            false
        })
        .spawn()
        .unwrap();
    enter.recv().unwrap();
    // The check is under way: `stop` waits for it, then for the thread.
    trimmer.stop();
    assert!(
        ended.load(Ordering::SeqCst),
        "stop returned before the trimmer's thread ended"
    );
}

/// A detached trimmer keeps running without its handle. Its pressure
/// check reports the first tick, then holds the thread for good: no trim
/// ever runs, so the other tests' pools are left alone.
#[test]
fn a_detached_trimmer_keeps_running() {
    let _alone = alone();
    let (ticked, tick) = sync_channel::<()>(0);
    poolable::trimmer::builder()
        .interval(Duration::from_millis(20))
        .on_memory_pressure(move || {
            let _ = ticked.send(());
            loop {
                std::thread::park();
            }
        })
        .spawn()
        .unwrap()
        .detach();
    // A stopped thread would drop the check, and its sender with it.
    assert!(
        tick.recv().is_ok(),
        "the trimmer's thread ended when its handle was detached"
    );
}
