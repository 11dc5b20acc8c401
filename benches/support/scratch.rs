//! A 2 KiB scratch buffer, touched once per cache line: workload 2's
//! buffer, and workload 7's usual one.

use std::hint::black_box;

pub const SCRATCH_LEN: usize = 2048;

/// Write to every 64th byte (one per cache line).
#[inline]
pub fn touch(buf: &mut [u8], i: u64) {
    for b in buf.iter_mut().step_by(64) {
        *b = b.wrapping_add(i as u8);
    }
    black_box(buf);
}
