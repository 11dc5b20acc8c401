//! Rounds of bursts: take `BURST` values of a derived type's pool, do the
//! work on each, then drop them all. A thread cache holds 8 values, so every
//! round spills half of it to the shards on returns and refills it from them
//! on gets: poolable's slow paths. `instructions.rs burst` counts them on one
//! thread; `bursts.rs` times them on two threads, one pool each.

use poolable::Poolable;

/// Values a round holds at once: four thread caches' worth.
pub const BURST: u64 = 32;

/// `n` gets + works + drops of `T` (rounded up to whole rounds); `work` is
/// given the value and its round's number.
#[inline(always)]
pub fn rounds<T: Poolable>(n: u64, work: impl Fn(&mut T, u64)) {
    let mut held = Vec::with_capacity(BURST as usize);
    for round in 0..n.div_ceil(BURST) {
        held.extend((0..BURST).map(|_| T::pool().get()));
        for guard in &mut held {
            work(guard, round);
        }
        held.clear();
    }
}
