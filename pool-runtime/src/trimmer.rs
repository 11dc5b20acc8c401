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
/// Threads that stay alive but stop using a pool keep their private cache
/// (at most `LOCAL_CACHE_SIZE` values per pool) until they use the pool again
/// or exit: a trim cannot reach into another thread's cache.
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
                crate::trim_all();
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
            // A panic in the trimmer thread (a value's `Drop` panicked during a
            // trim) has already been reported by the panic hook.
            let _ = thread.join();
        }
    }
}
