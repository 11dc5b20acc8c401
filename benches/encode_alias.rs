//! Workload 4's encode (`support::buffers::encode`) timed on 512 buffers
//! wherever the allocator puts them: the same copy of the same 1 KiB runs
//! at different speeds at different buffer addresses.
//!
//! A load whose address matches an earlier store's in its low 12 bits waits
//! for that store (the CPU compares those bits first), so the copy slows
//! when the buffer sits at some distances, modulo 4 KiB, from the payload
//! it copies or from the `Vec`'s own header, which the next `push` reads.
//! Which distance a contender's buffer gets is the allocator's doing, the
//! same for a pool as for the baseline's slot, so workload 4's row moves
//! between runs and builds. For each buffer this takes the best of 5 blocks
//! of 20,000 ops, then prints the fastest and the median, and every buffer
//! over 1.3x the fastest with its two distances:
//!
//! ```sh
//! cargo bench -p poolable-benches --bench encode_alias
//! ```

#[allow(dead_code, reason = "workload 4's encode is all this uses of the file")]
mod support {
    pub mod buffers;
    pub mod scratch;
}

use std::time::Instant;
use support::buffers::{PAYLOAD, encode};

/// The best time per op of workload 4's encode on `v`, in ns.
fn best_ns(v: &mut Vec<u8>) -> f64 {
    const OPS: u32 = 20_000;
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for i in 0..OPS {
                v.clear();
                encode(v, u64::from(i));
            }
            start.elapsed().as_secs_f64() * 1e9 / f64::from(OPS)
        })
        .fold(f64::INFINITY, f64::min)
}

/// How far `to` is past `from`, modulo 4 KiB.
fn distance(from: usize, to: usize) -> usize {
    to.wrapping_sub(from) % 4096
}

fn main() {
    let mut buffers: Vec<Vec<u8>> = (0..512)
        .map(|_| Vec::with_capacity(2 * PAYLOAD.len()))
        .collect();
    let mut times: Vec<(f64, usize, usize)> = buffers
        .iter_mut()
        .map(|v| {
            // Where the payload lands: after "data=".
            let copy_to = v.as_ptr().addr() + 5;
            let payload = distance(PAYLOAD.as_ptr().addr(), copy_to);
            let header = distance(core::ptr::from_ref(v).addr(), copy_to);
            (best_ns(v), payload, header)
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (fastest, median) = (times[0].0, times[times.len() / 2].0);
    let mut slow: Vec<_> = times.iter().filter(|(t, ..)| *t > 1.3 * fastest).collect();
    println!(
        "workload 4's encode on {} buffers: fastest {fastest:.1} ns, median {median:.1} ns, \
         slowest {:.1} ns; {} over 1.3x the fastest",
        times.len(),
        times[times.len() - 1].0,
        slow.len()
    );
    slow.sort_by_key(|&&(_, payload, header)| (header, payload));
    for (t, payload, header) in slow {
        println!(
            "  {t:.1} ns: the copy starts {payload} B past the payload, {header} B past the Vec's header (mod 4 KiB)"
        );
    }
}
