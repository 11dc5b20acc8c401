//! The adaptive size cap of [`Pool::max_bytes_auto`](crate::Pool::max_bytes_auto),
//! after valyala/bytebufferpool's calibration: count what each returned
//! value's contents used ([`Reset::used_bytes`](crate::Reset::used_bytes), before the reset) in
//! power-of-two classes, and every [`AUTO_CAP_WINDOW`] returns set the cap
//! from the smallest class that covers 95% of them, within
//! `[AUTO_CAP_FLOOR, max_bytes]`. The most common class also becomes the
//! capacity reserved in newly constructed values ([`Reset::reserve_heap`]).
//! Measuring use rather than capacity is what lets the cap fall: a buffer
//! that grew once for a large request and now serves small ones counts as
//! small, and is dropped (or shrunk) when it comes back over the cap.
//!
//! bytebufferpool#15 reports its calibration settling far below the sizes
//! actually used (128 B against 1–2 KiB), so that most returns were then
//! dropped and the pool stopped helping. Three guards against that here:
//! - headroom: the cap is twice the largest use in the covering class, so a
//!   buffer that grew by doubling to hold a common use is kept;
//! - a floor: the cap never goes below [`AUTO_CAP_FLOOR`];
//! - hysteresis: the cap rises at once (a window wanting more), but lowers
//!   only when two windows in a row want less, and then to the larger of
//!   their two answers. (The first calibration sets it directly, from the
//!   ceiling it starts at.)
//!
//! Only pools that opted in pay for it: their returns take the pool's cold
//! return path (`Pool::put_measured`), which records the size with two
//! relaxed atomic adds. Other pools pay one predictable branch.
//!
//! [`Reset::reserve_heap`]: crate::Reset::reserve_heap

use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering::Relaxed};

/// Returns between two calibrations of an adaptive size cap. The cap
/// follows a shift in sizes within one window when it must rise, and within
/// two when it may fall.
///
/// ```
/// assert_eq!(poolable::AUTO_CAP_WINDOW, 1024);
/// ```
pub const AUTO_CAP_WINDOW: u64 = 1024;

/// The lowest size cap calibration may choose (or `max_bytes`, if lower).
///
/// ```
/// assert_eq!(poolable::AUTO_CAP_FLOOR, 4096);
/// ```
pub const AUTO_CAP_FLOOR: usize = 4096;

/// The share of returns the calibrated cap covers, in percent.
const PERCENTILE: u64 = 95;

/// Size classes: class `k` holds sizes in `[2^(k-1), 2^k)`, class 0 the size 0.
const CLASSES: usize = usize::BITS as usize + 1;

pub(crate) struct AutoCap {
    classes: [AtomicU64; CLASSES],
    returns: AtomicU64,
    cap: AtomicUsize,
    /// The lower cap the previous window asked for (0: it did not).
    lower: AtomicUsize,
    /// The capacity to reserve in a new value (0: not learned yet).
    common: AtomicUsize,
    /// Whether a calibration has set the cap yet (the first one sets it
    /// directly: there is no earlier answer to be cautious about).
    calibrated: AtomicBool,
    /// One calibration at a time; a return that finds it busy skips it.
    calibrating: Mutex<()>,
    floor: usize,
    ceiling: usize,
}

/// The size class of `bytes`.
fn class_of(bytes: usize) -> usize {
    (usize::BITS - bytes.leading_zeros()) as usize
}

/// The smallest cap that keeps every size of class `k`.
fn class_cap(k: usize) -> usize {
    match k {
        0 => 0,
        k if k >= usize::BITS as usize => usize::MAX,
        k => (1 << k) - 1,
    }
}

impl AutoCap {
    /// Starts at `ceiling` (the pool's `max_bytes`), so nothing is dropped
    /// for its size before the first calibration.
    pub(crate) fn new(ceiling: usize) -> Self {
        AutoCap {
            classes: core::array::from_fn(|_| AtomicU64::new(0)),
            returns: AtomicU64::new(0),
            cap: AtomicUsize::new(ceiling),
            lower: AtomicUsize::new(0),
            common: AtomicUsize::new(0),
            calibrated: AtomicBool::new(false),
            calibrating: Mutex::new(()),
            floor: AUTO_CAP_FLOOR.min(ceiling),
            ceiling,
        }
    }

    /// The cap now.
    pub(crate) fn cap(&self) -> usize {
        self.cap.load(Relaxed)
    }

    /// The capacity to reserve in a newly constructed value, once learned.
    pub(crate) fn common(&self) -> usize {
        self.common.load(Relaxed)
    }

    /// Count a returned value whose contents used `bytes` (with its own
    /// size), calibrate at the end of a window, and return the cap to hold
    /// the value to.
    pub(crate) fn record(&self, bytes: usize) -> usize {
        if let Some(class) = self.classes.get(class_of(bytes)) {
            class.fetch_add(1, Relaxed);
        }
        if self.returns.fetch_add(1, Relaxed).wrapping_add(1) % AUTO_CAP_WINDOW == 0 {
            self.calibrate();
        }
        self.cap()
    }

    fn calibrate(&self) {
        let Some(_one) = crate::sync::try_lock(&self.calibrating) else {
            return;
        };
        let counts: [u64; CLASSES] = core::array::from_fn(|k| self.classes[k].swap(0, Relaxed));
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return;
        }
        let need = total.saturating_mul(PERCENTILE).div_ceil(100);
        let mut seen = 0;
        let covering = counts
            .iter()
            .position(|&n| {
                seen += n;
                seen >= need
            })
            .unwrap_or(CLASSES - 1);
        let target = class_cap(covering)
            .saturating_mul(2)
            .saturating_add(1)
            .clamp(self.floor, self.ceiling);
        // The most common class (the largest of equals) sizes new values.
        let common = (0..CLASSES).max_by_key(|&k| (counts[k], k)).unwrap_or(0);
        self.common.store(class_cap(common).min(target), Relaxed);
        let cap = self.cap();
        // Marked calibrated whichever way this window goes: a first window
        // that asks for the ceiling is the first calibration too.
        let first = !self.calibrated.swap(true, Relaxed);
        if target >= cap || first {
            self.cap.store(target, Relaxed);
            self.lower.store(0, Relaxed);
        } else {
            let before = self.lower.swap(target, Relaxed);
            if before != 0 {
                self.cap.store(target.max(before), Relaxed);
                self.lower.store(0, Relaxed);
            }
        }
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    fn windows(auto: &AutoCap, sizes: &[usize], windows: u64) {
        for i in 0..AUTO_CAP_WINDOW * windows {
            auto.record(sizes[i as usize % sizes.len()]);
        }
    }

    #[test]
    fn the_cap_covers_the_95th_percentile_class_and_rises_at_once() {
        let auto = AutoCap::new(1 << 20);
        assert_eq!(auto.cap(), 1 << 20);
        // 96 of 100 returns near 10 KiB, 4 near 500 KiB.
        let mut sizes = vec![10_000; 96];
        sizes.extend([500_000; 4]);
        windows(&auto, &sizes, 2);
        assert_eq!(auto.cap(), (1 << 15) - 1);
        windows(&auto, &[500_000], 1);
        assert_eq!(auto.cap(), (1 << 20) - 1);
    }

    #[test]
    fn the_cap_lowers_only_after_two_windows_and_never_below_the_floor() {
        let auto = AutoCap::new(1 << 20);
        windows(&auto, &[100_000], 1);
        assert_eq!(auto.cap(), (1 << 18) - 1);
        windows(&auto, &[10], 1);
        assert_eq!(
            auto.cap(),
            (1 << 18) - 1,
            "one small window does not lower it"
        );
        windows(&auto, &[10], 1);
        assert_eq!(auto.cap(), AUTO_CAP_FLOOR);
        assert_eq!(auto.common(), 15);
    }

    /// A first window that asks for the ceiling itself is a calibration
    /// too: the next window that asks for less is only the first of the
    /// two a lowering needs.
    #[test]
    fn a_first_window_at_the_ceiling_still_needs_two_windows_to_lower() {
        let auto = AutoCap::new(1 << 20);
        windows(&auto, &[600_000], 1);
        assert_eq!(auto.cap(), 1 << 20);
        windows(&auto, &[10], 1);
        assert_eq!(auto.cap(), 1 << 20, "one small window does not lower it");
        windows(&auto, &[10], 1);
        assert_eq!(auto.cap(), AUTO_CAP_FLOOR);
    }

    /// A value may measure up to `usize::MAX` (`Reset::heap_bytes` of a
    /// locked `Mutex`, which `used_bytes` falls back to): such sizes are
    /// counted, in the top class, and a window of them raises the cap to
    /// the ceiling at once, as any larger size does.
    #[test]
    fn sizes_near_usize_max_are_counted_in_the_top_class() {
        let auto = AutoCap::new(1 << 20);
        windows(&auto, &[10], 1);
        assert_eq!(auto.cap(), AUTO_CAP_FLOOR);
        windows(&auto, &[usize::MAX, (1 << (usize::BITS - 1)) + 1], 1);
        assert_eq!(auto.cap(), 1 << 20);
        assert_eq!(auto.common(), 1 << 20);
    }

    #[test]
    fn a_small_window_between_large_ones_keeps_the_cap() {
        let auto = AutoCap::new(1 << 20);
        windows(&auto, &[100_000], 1);
        windows(&auto, &[10], 1);
        windows(&auto, &[100_000], 1);
        windows(&auto, &[10], 1);
        assert_eq!(auto.cap(), (1 << 18) - 1);
    }
}
