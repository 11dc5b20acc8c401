//! A value whose `Drop` raises a planned panic. Include it with
//! `planned_panic.rs`.

use super::planned_panic::planned_panic;
use poolable::Reset;

/// A value whose `Drop` panics once when armed (never while unwinding,
/// which would abort). Its reset keeps it armed, so a pool holds it armed,
/// and drops it armed. Pooled on its own, or a field of a pooled type.
#[derive(Default)]
pub struct Bomb {
    pub armed: bool,
}

impl Reset for Bomb {
    fn reset(&mut self) {}
}

impl Drop for Bomb {
    fn drop(&mut self) {
        if std::mem::take(&mut self.armed) && !std::thread::panicking() {
            planned_panic();
        }
    }
}
