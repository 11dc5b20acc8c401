//! One test at a time, for the tests of a binary that trim every pool of the
//! process or set a process-wide limit, which would disturb the others.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Held by each test that must run alone in its binary (a panicking test
/// does not block the others: the lock's poison is ignored).
pub fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}
