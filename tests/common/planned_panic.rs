//! Panics that tests raise on purpose, and a panic hook that silences them
//! (and only them).

use std::panic;
use std::sync::Once;

/// The payload of every panic a test raises on purpose.
pub const PLANNED: &str = "planned panic";

/// Silence the planned panics, and only those (a failing assertion still
/// prints). The hook is installed once per process; a test that measures
/// allocations calls this before it measures, so that the hook's own
/// allocation is not counted.
pub fn quiet_planned_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&PLANNED) {
                default(info);
            }
        }));
    });
}

/// Panic with the planned payload.
pub fn planned_panic() -> ! {
    panic::panic_any(PLANNED)
}
