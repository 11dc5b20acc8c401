//! Workloads 2-4 on `Vec<u8>` buffers: a 2 KiB scratch buffer, a 4 KiB
//! builder, and a 1 KiB record encoded.

use super::scratch::{SCRATCH_LEN, touch};
use std::hint::black_box;
use std::io::{self, Write};

/// 2, pooled: a reset buffer made 2 KiB long (zeroed) and touched.
#[inline(never)]
pub fn scratch(v: &mut Vec<u8>, i: u64) {
    v.resize(SCRATCH_LEN, 0);
    touch(v, i);
}

/// 2, plain: `vec![0; 2048]` per op.
#[inline(never)]
pub fn scratch_fresh(i: u64) {
    let mut v = vec![0_u8; SCRATCH_LEN];
    touch(&mut v, i);
    drop(black_box(v));
}

/// 3: push "12345678" 512 times (4 KiB); a fresh buffer grows by doubling.
#[inline(never)]
pub fn build(v: &mut Vec<u8>, _i: u64) {
    for _ in 0..512 {
        v.extend_from_slice(b"12345678");
    }
    black_box(&v[..]);
}

pub static PAYLOAD: [u8; 1024] = [b'x'; 1024];

/// 4: encode `data=<1 KiB>\n` and write it to `io::sink()`.
#[inline(never)]
pub fn encode(v: &mut Vec<u8>, _i: u64) {
    v.extend_from_slice(b"data=");
    v.extend_from_slice(&PAYLOAD);
    v.push(b'\n');
    black_box(io::sink())
        .write_all(black_box(&v[..]))
        .expect("sink never fails");
}
