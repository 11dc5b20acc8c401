//! A background thread that calls [`trim_all`](crate::trim_all) on an
//! interval: Go-like idle decay for servers, without writing a timer.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Start a thread that calls [`trim_all`](crate::trim_all) every `interval`
/// (at least [`MIN_INTERVAL`]).
///
/// A value idle across two trims is dropped, so an idle value lives between
/// one and two intervals. The thread stops when the returned [`Trimmer`] is
/// dropped (or [`stop`](Trimmer::stop)ped); [`Trimmer::detach`] keeps it
/// running for the life of the process.
///
/// A trim reaches every thread's cache too, so threads that stay alive but
/// stop using a pool hold nothing of it after two intervals.
///
/// A panic in an idle value's `Drop` is caught and counted
/// (`Stats::drop_panics`) by the trim itself; the thread also catches any
/// other panic of a trim, so it keeps running whatever a trim meets.
///
/// # Errors
///
/// Returns the I/O error from [`std::thread::Builder::spawn`] if the
/// operating system cannot start a thread.
///
/// ```
/// use std::time::Duration;
///
/// let trimmer = poolable::trimmer::spawn(Duration::from_secs(30)).expect("spawn the trimmer");
/// // ... serve requests ...
/// trimmer.stop();
/// ```
pub fn spawn(interval: Duration) -> std::io::Result<Trimmer> {
    builder().interval(interval).spawn()
}

/// A [`Builder`] for a trimmer with more than an interval.
///
/// ```
/// use std::time::Duration;
///
/// let trimmer = poolable::trimmer::builder()
///     .interval(Duration::from_secs(10))
///     .on_memory_pressure(poolable::trimmer::system_memory_pressure)
///     .spawn()
///     .expect("spawn the trimmer");
/// trimmer.stop();
/// ```
pub fn builder() -> Builder {
    Builder {
        interval: Duration::from_secs(30),
        pressure: None,
    }
}

/// How much memory pressure the process is under, graded as .NET's
/// `ArrayPool` grades it before each trim (it releases more buffers per
/// stack, sooner, as the level rises, and everything when it is high). A
/// trimmer tick does, at each level:
///
/// - `Low`: one decay step (a value idle across two ticks is dropped);
/// - `Medium`: the shared shards of every pool let go of all their idle
///   values (most of a pool's idle memory), while thread caches, a few
///   hot values per thread, take one decay step;
/// - `High`: every idle value of every pool is dropped ([`clear_all`](crate::clear_all)).
///
/// [`system_memory_pressure_level`] reads it from the process's cgroup or
/// PSI; [`Builder::on_memory_pressure_level`] takes any source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum MemoryPressure {
    /// No pressure: trim as usual.
    Low,
    /// Memory is getting short: empty the shared tier.
    Medium,
    /// Near the limit: drop everything idle.
    High,
}

/// The shortest interval a trimmer takes ([`Builder::interval`]).
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);

/// How a trimmer tells memory pressure: called once per interval.
type Pressure = Box<dyn Fn() -> MemoryPressure + Send>;

/// Configures a trimmer: the interval (30 s by default) and what it does
/// under memory pressure.
pub struct Builder {
    interval: Duration,
    pressure: Option<Pressure>,
}

impl Builder {
    /// Trim every `interval`: a value idle across two trims is dropped.
    /// An interval under [`MIN_INTERVAL`] (1 ms) is taken as `MIN_INTERVAL`:
    /// a zero interval would trim in a busy loop, one core's worth of work
    /// for pools that keep nothing.
    #[must_use]
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval.max(MIN_INTERVAL);
        self
    }

    /// At each interval, ask `pressure` first: when it says `true`, drop
    /// every idle value of every pool ([`clear_all`](crate::clear_all))
    /// instead of one decay step. [`system_memory_pressure`] reads the
    /// process's cgroup limit, or PSI where there is none (Linux); any
    /// `Fn() -> bool` works, such as a
    /// test's switch or a signal from the service's own accounting. For
    /// three levels, see [`on_memory_pressure_level`](Builder::on_memory_pressure_level).
    #[must_use]
    pub fn on_memory_pressure(self, pressure: impl Fn() -> bool + Send + 'static) -> Self {
        self.on_memory_pressure_level(move || {
            if pressure() {
                MemoryPressure::High
            } else {
                MemoryPressure::Low
            }
        })
    }

    /// At each interval, ask `pressure` for the level first, and trim as
    /// [`MemoryPressure`] says: one decay step, the shared tier emptied, or
    /// everything idle dropped. [`system_memory_pressure_level`] reads it
    /// from the process's cgroup or PSI (Linux).
    ///
    /// ```
    /// use poolable::trimmer::{self, MemoryPressure};
    ///
    /// let trimmer = trimmer::builder()
    ///     .on_memory_pressure_level(|| MemoryPressure::Medium)
    ///     .spawn()
    ///     .unwrap();
    /// trimmer.stop();
    /// ```
    #[must_use]
    pub fn on_memory_pressure_level(
        mut self,
        pressure: impl Fn() -> MemoryPressure + Send + 'static,
    ) -> Self {
        self.pressure = Some(Box::new(pressure));
        self
    }

    /// Start the thread.
    ///
    /// # Errors
    ///
    /// Returns the I/O error from [`std::thread::Builder::spawn`] if the
    /// operating system cannot start a thread.
    pub fn spawn(self) -> std::io::Result<Trimmer> {
        let Builder { interval, pressure } = self;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("poolable-trimmer".into())
            .spawn(move || {
                // A message or a dropped sender both mean "stop".
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    // The trims already survive panicking `Drop`s; this keeps
                    // the thread alive through anything else, a panicking
                    // pressure check included.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        match pressure
                            .as_ref()
                            .map_or(MemoryPressure::Low, |level| level())
                        {
                            MemoryPressure::Low => crate::trim_all(),
                            MemoryPressure::Medium => {
                                crate::registry::step_all(crate::decay::Steps::SHARED)
                            }
                            MemoryPressure::High => crate::clear_all(),
                        }
                    }));
                }
            })?;
        Ok(Trimmer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl core::fmt::Debug for Builder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Builder")
            .field("interval", &self.interval)
            .field("on_memory_pressure", &self.pressure.is_some())
            .finish()
    }
}

/// Whether the process is near its memory limit, for
/// [`Builder::on_memory_pressure`]: [`system_memory_pressure_level`] is
/// [`MemoryPressure::High`].
///
/// ```
/// # #[cfg(not(miri))] { // (reads files, which Miri's isolation forbids)
/// let _under_pressure: bool = poolable::trimmer::system_memory_pressure();
/// # }
/// ```
pub fn system_memory_pressure() -> bool {
    system_memory_pressure_level() == MemoryPressure::High
}

/// The process's memory pressure, for [`Builder::on_memory_pressure_level`],
/// with .NET's thresholds: on Linux, from the cgroup v2 `memory.current`
/// against `memory.max` (`High` from 90%, `Medium` from 70%), or, without a
/// cgroup limit, from `/proc/pressure/memory`'s `some avg10` (`High` from
/// 10%, `Medium` from 1%: some task stalled on memory in the last ten
/// seconds). Elsewhere, and when neither file can be read, `Low`.
///
/// ```
/// # #[cfg(not(miri))] { // (reads files, which Miri's isolation forbids)
/// use poolable::trimmer::MemoryPressure;
/// let level = poolable::trimmer::system_memory_pressure_level();
/// assert!(level >= MemoryPressure::Low);
/// # }
/// ```
pub fn system_memory_pressure_level() -> MemoryPressure {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let cgroup = read("/sys/fs/cgroup/memory.current")
        .zip(read("/sys/fs/cgroup/memory.max"))
        .and_then(|(current, max)| cgroup_level(&current, &max));
    if let Some(level) = cgroup {
        return level;
    }
    read("/proc/pressure/memory")
        .and_then(|psi| psi_level(&psi))
        .unwrap_or(MemoryPressure::Low)
}

/// The level of `current` against `max`; `None` when there is no limit
/// (`max`) or the files do not parse.
fn cgroup_level(current: &str, max: &str) -> Option<MemoryPressure> {
    let max: u64 = max.trim().parse().ok()?;
    let current: u64 = current.trim().parse().ok()?;
    let percent = |p: u64| current.saturating_mul(100) >= max.saturating_mul(p);
    Some(if percent(90) {
        MemoryPressure::High
    } else if percent(70) {
        MemoryPressure::Medium
    } else {
        MemoryPressure::Low
    })
}

/// The level of a PSI file (`/proc/pressure/memory`) by the `avg10` of
/// its `some` line, the share of the last ten seconds in which some task
/// stalled on memory: `High` from 10%, `Medium` from 1%; `None` when the
/// file does not parse.
fn psi_level(psi: &str) -> Option<MemoryPressure> {
    let some = psi.lines().find(|line| line.starts_with("some "))?;
    let avg: f64 = some
        .split_whitespace()
        .find_map(|field| field.strip_prefix("avg10="))?
        .parse()
        .ok()?;
    Some(if avg >= 10.0 {
        MemoryPressure::High
    } else if avg >= 1.0 {
        MemoryPressure::Medium
    } else {
        MemoryPressure::Low
    })
}

/// The handle of a background trimmer; dropping it stops the thread and
/// waits for it to end, unless it is dropped on that thread itself (by the
/// pressure check, or a pooled value's `Drop` during a trim), which then
/// ends when that code returns.
///
/// ```
/// let trimmer = poolable::trimmer::spawn(std::time::Duration::from_millis(10)).unwrap();
/// drop(trimmer); // stops and joins the thread
/// ```
#[derive(Debug)]
#[must_use = "dropping the `Trimmer` stops its thread: keep it, or call `detach`"]
pub struct Trimmer {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Trimmer {
    /// Stop the thread and wait for it to finish its current trim.
    ///
    /// ```
    /// let trimmer = poolable::trimmer::spawn(std::time::Duration::from_secs(1)).unwrap();
    /// trimmer.stop();
    /// ```
    pub fn stop(self) {
        drop(self);
    }

    /// Let the thread run until the process exits.
    ///
    /// ```no_run
    /// poolable::trimmer::spawn(std::time::Duration::from_secs(30)).unwrap().detach();
    /// ```
    pub fn detach(mut self) {
        // Forget the sender without sending: the thread never sees a stop.
        core::mem::forget(self.stop.take());
        self.thread.take();
    }
}

impl Drop for Trimmer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // Dropped on the trimmer's own thread, by user code it runs (the
            // pressure check, a pooled value's `Drop`): that thread ends
            // when the code returns, having seen the stop; it cannot wait
            // for itself.
            if thread.thread().id() == std::thread::current().id() {
                return;
            }
            // The thread's loop catches every panic, so it cannot end in one.
            let joined = thread.join();
            debug_assert!(joined.is_ok(), "the trimmer thread ended in a panic");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_under_the_minimum_is_the_minimum() {
        assert_eq!(builder().interval(Duration::ZERO).interval, MIN_INTERVAL);
        assert_eq!(
            builder().interval(Duration::from_nanos(10)).interval,
            MIN_INTERVAL
        );
        let second = Duration::from_secs(1);
        assert_eq!(builder().interval(second).interval, second);
    }

    #[test]
    fn cgroup_limits_grade() {
        assert_eq!(cgroup_level("950\n", "1000\n"), Some(MemoryPressure::High));
        assert_eq!(cgroup_level("900", "1000"), Some(MemoryPressure::High));
        assert_eq!(cgroup_level("899", "1000"), Some(MemoryPressure::Medium));
        assert_eq!(cgroup_level("700", "1000"), Some(MemoryPressure::Medium));
        assert_eq!(cgroup_level("699", "1000"), Some(MemoryPressure::Low));
        assert_eq!(cgroup_level("5", "max\n"), None);
        assert_eq!(cgroup_level("junk", "1000"), None);
    }

    /// The thresholds of `psi_level`, on each side, read from the `some`
    /// line only.
    #[test]
    fn psi_grades_its_some_line() {
        let psi = |some: &str| {
            format!(
                "some avg10={some} avg60=3.00 avg300=1.00 total=123\nfull avg10=50.00 avg60=0.00 avg300=0.00 total=0\n"
            )
        };
        assert_eq!(psi_level(&psi("12.50")), Some(MemoryPressure::High));
        assert_eq!(psi_level(&psi("10.00")), Some(MemoryPressure::High));
        assert_eq!(psi_level(&psi("9.99")), Some(MemoryPressure::Medium));
        assert_eq!(psi_level(&psi("1.00")), Some(MemoryPressure::Medium));
        assert_eq!(psi_level(&psi("0.99")), Some(MemoryPressure::Low));
        assert_eq!(psi_level(&psi("0.00")), Some(MemoryPressure::Low));
        assert_eq!(psi_level("full avg10=50.00"), None);
        assert_eq!(psi_level("some avg10=junk"), None);
    }

    #[test]
    fn a_builder_debugs_as_its_interval_and_whether_it_checks_pressure() {
        assert_eq!(
            format!("{:?}", builder()),
            "Builder { interval: 30s, on_memory_pressure: false }"
        );
        let checked = builder()
            .interval(Duration::from_millis(5))
            .on_memory_pressure(|| false);
        assert_eq!(
            format!("{checked:?}"),
            "Builder { interval: 5ms, on_memory_pressure: true }"
        );
    }

    /// The `bool` reading is the level's `High`, read between two readings
    /// of the level that agree (the host's pressure may change meanwhile).
    #[test]
    #[cfg_attr(miri, ignore = "reads files, which Miri's isolation forbids")]
    fn system_memory_pressure_is_the_high_level() {
        loop {
            let level = system_memory_pressure_level();
            let high = system_memory_pressure();
            if system_memory_pressure_level() == level {
                assert_eq!(high, level == MemoryPressure::High, "{level:?}");
                return;
            }
        }
    }
}
