//! A background thread that calls [`trim_all`](crate::trim_all) on an
//! interval: Go-like idle decay for servers, without writing a timer.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Start a thread that calls [`trim_all`](crate::trim_all) every `interval`.
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
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("poolable-trimmer".into())
        .spawn(move || {
            // A message or a dropped sender both mean "stop".
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                // `trim_all` already survives panicking `Drop`s; this keeps
                // the thread alive through anything else a trim might meet.
                let _ = std::panic::catch_unwind(crate::trim_all);
            }
        })?;
    Ok(Trimmer {
        stop: Some(stop),
        thread: Some(thread),
    })
}

/// The handle of a background trimmer; dropping it stops the thread.
///
/// ```
/// let trimmer = poolable::trimmer::spawn(std::time::Duration::from_millis(10)).unwrap();
/// drop(trimmer); // stops and joins the thread
/// ```
#[derive(Debug)]
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
            // The thread's loop catches every panic, so it cannot end in one.
            let joined = thread.join();
            debug_assert!(joined.is_ok(), "the trimmer thread ended in a panic");
        }
    }
}
