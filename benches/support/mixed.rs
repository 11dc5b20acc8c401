//! Workload 7: mixed sizes. Each request takes a buffer and makes it 2 KiB,
//! except one in 100 that grows it to 1 MiB; with the size cap on (for the
//! contenders that have one) and off.

use super::contenders::Kind;
use super::scratch::{SCRATCH_LEN, touch};

/// "No cap".
pub const NO_CAP: usize = usize::MAX;

pub const BIG_LEN: usize = 1 << 20;

impl Kind {
    /// Whether the contender can enforce a size cap on returned values.
    pub fn has_cap(self) -> bool {
        matches!(
            self,
            Kind::ThreadLocal
                | Kind::Poolable
                | Kind::Opool
                | Kind::PoolsharkLocal
                | Kind::PoolsharkGlobal
        )
    }
}

/// The length request `i` needs (what a `BufferPool` is asked for).
pub fn mixed_len(i: u64) -> usize {
    if i % 100 == 50 { BIG_LEN } else { SCRATCH_LEN }
}

/// A 2 KiB request, except one in 100 (the 51st of each hundred, so a run
/// of whole hundreds ends on a small one) that grows its buffer to 1 MiB.
#[inline(never)]
pub fn mixed(v: &mut Vec<u8>, i: u64) {
    v.resize(mixed_len(i), 0);
    touch(v, i);
}
