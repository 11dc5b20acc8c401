//! The trimmer under memory pressure drops every idle value at once; without
//! it, one decay step per interval. The pressure check is a test switch that
//! also holds the trimmer at its second tick while the test looks.

use poolable::Pool;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The tests trim every pool of the process: one at a time.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Start a trimmer whose pressure check answers `pressure`, and wait until
/// its first tick is done: the check of the second tick reports in, then
/// waits for the returned sender to be dropped.
fn after_one_tick(pressure: bool) -> (poolable::trimmer::Trimmer, SyncSender<()>) {
    let (ticked, tick) = sync_channel::<()>(0);
    let (release, released) = sync_channel::<()>(0);
    let released = Mutex::new(released);
    let calls = Mutex::new(0_u32);
    let trimmer = poolable::trimmer::builder()
        .interval(Duration::from_millis(5))
        .on_memory_pressure(move || {
            let mut calls = calls.lock().unwrap();
            *calls += 1;
            if *calls == 2 {
                let _ = ticked.send(());
                // Hold the second tick until the test has looked.
                let _ = released.lock().unwrap().recv();
            }
            pressure
        })
        .spawn()
        .unwrap();
    tick.recv().unwrap();
    (trimmer, release)
}

#[test]
fn under_pressure_one_tick_drops_everything_idle() {
    let _alone = alone();
    let pool = Pool::<Vec<u8>>::new();
    drop((pool.get(), pool.get(), pool.get()));
    let (trimmer, release) = after_one_tick(true);
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (0, 3), "{stats}");
    drop(release);
    trimmer.stop();
}

#[test]
fn without_pressure_one_tick_only_ages() {
    let _alone = alone();
    let pool = Pool::<Vec<u8>>::new();
    drop((pool.get(), pool.get(), pool.get()));
    let (trimmer, release) = after_one_tick(false);
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_idle), (3, 0), "{stats}");
    drop(release);
    trimmer.stop();
}
