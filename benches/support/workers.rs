//! Persistent worker threads, Go's `RunParallel` convention: the worker
//! threads of a benchmark function are spawned once and kept across its
//! samples, so thread start and exit and cold thread caches are not part of
//! any sample. Each run releases every worker at once; a run of `total` ops
//! is split between them, and its time is the wall time from the release to
//! the last worker finishing. Per op that is wall / total (criterion's
//! per-iteration figure); per thread it is wall / (ops of one thread) =
//! threads × that.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// What one persistent worker does in a run: called with the run's total op
/// count, it does its own share (see [`share`]).
pub type Body<'a> = Box<dyn FnMut(u64) + Send + 'a>;

/// Part `index` of `total` split over `parts` (the first `total % parts`
/// parts get one more).
pub fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts.max(1) as u64;
    total / parts + u64::from((index as u64) < total % parts)
}

/// State shared by the calling thread and the workers. Values are stored
/// before a barrier and read after it, which orders them.
struct Control {
    /// Every worker and the calling thread meet here to start a run (or
    /// to exit, when `stop` is set).
    start: Barrier,
    /// ... and here when every worker is done.
    done: Barrier,
    total: AtomicU64,
    stop: AtomicBool,
    panicked: AtomicBool,
    epoch: Instant,
    /// Nanoseconds since `epoch`: the release, and the last worker's end.
    released: AtomicU64,
    finished: AtomicU64,
}

impl Control {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Wait for the release. The barrier's leader is the last thread to
    /// arrive, which returns at once while the others wake: its clock is the
    /// release time.
    fn wait_start(&self) {
        if self.start.wait().is_leader() {
            self.released.store(self.now(), Relaxed);
        }
    }

    fn serve(&self, body: &mut Body<'_>) {
        loop {
            self.wait_start();
            if self.stop.load(Relaxed) {
                return;
            }
            let total = self.total.load(Relaxed);
            // A panicking body must still reach `done`, or every other
            // thread waits there forever; the calling thread re-raises it.
            if catch_unwind(AssertUnwindSafe(|| body(total))).is_err() {
                self.panicked.store(true, Relaxed);
            }
            self.finished.fetch_max(self.now(), Relaxed);
            self.done.wait();
        }
    }
}

/// Handle on the workers of [`with_workers`].
pub struct Workers<'c> {
    control: &'c Control,
}

impl Workers<'_> {
    /// One run of `total` ops in all: the wall time from the release of the
    /// workers to the last one finishing.
    pub fn run(&self, total: u64) -> Duration {
        let c = self.control;
        c.total.store(total, Relaxed);
        c.finished.store(0, Relaxed);
        c.wait_start();
        c.done.wait();
        assert!(!c.panicked.load(Relaxed), "a bench worker panicked");
        let (released, finished) = (c.released.load(Relaxed), c.finished.load(Relaxed));
        Duration::from_nanos(finished.saturating_sub(released))
    }
}

impl Drop for Workers<'_> {
    /// Release the workers to exit (also when a bench panics, so that the
    /// thread scope can end).
    fn drop(&mut self) {
        self.control.stop.store(true, Relaxed);
        self.control.start.wait();
    }
}

/// Spawn one persistent worker per body, call `f` with their handle, and
/// let the workers exit (flushing their thread caches) after `f` returns.
pub fn with_workers<R>(bodies: Vec<Body<'_>>, f: impl FnOnce(&Workers<'_>) -> R) -> R {
    let control = Control {
        start: Barrier::new(bodies.len() + 1),
        done: Barrier::new(bodies.len() + 1),
        total: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
        epoch: Instant::now(),
        released: AtomicU64::new(0),
        finished: AtomicU64::new(0),
    };
    std::thread::scope(|s| {
        for mut body in bodies {
            let control = &control;
            s.spawn(move || control.serve(&mut body));
        }
        let workers = Workers { control: &control };
        f(&workers)
    })
}
