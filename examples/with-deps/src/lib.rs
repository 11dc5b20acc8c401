//! What the server and the load generator share: the server's report.

use serde::{Deserialize, Serialize};

/// `GET /stats`: the server's counters since it started.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, Default)]
pub struct ServerStats {
    /// `POST /orders` and `POST /upload` requests served.
    pub requests: u64,
    /// Heap allocations (and reallocations) by the whole process.
    pub allocations: u64,
    /// Peak resident set (`VmHWM` of `/proc/self/status`), in KiB; 0 where
    /// it cannot be read.
    pub peak_rss_kib: u64,
    /// Whether pooling is on (`POOLABLE` is not `off`, and the server was
    /// not built with the `no-pool` feature).
    pub pooling: bool,
    /// Whether the server was built with the pool (not `no-pool`).
    #[serde(default)]
    pub pool_built: bool,
    /// The request struct pool's gets and puts (equal when every pooled
    /// request came back) and its idle values.
    pub request_pool_gets: u64,
    pub request_pool_puts: u64,
    pub request_pool_retained: u64,
    /// The response buffer pool's puts: a response body comes back once
    /// hyper has written it.
    pub response_pool_puts: u64,
    /// Request and upload body buffers out of their pools now: 0 once
    /// every request has been answered.
    #[serde(default)]
    pub buffers_held: u64,
}

/// The body of one `POST /orders` request: `user`, then `items` lines.
pub fn order_json(out: &mut String, user: u64, items: usize) {
    use std::fmt::Write;
    out.clear();
    let _ = write!(
        out,
        r#"{{"user":"user-{user}","note":"deliver to the back door","items":["#
    );
    for i in 0..items {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"sku":"SKU-{:05}","qty":{},"price_cents":{}}}"#,
            (user as usize * 7 + i) % 100_000,
            1 + i % 4,
            199 + 100 * i
        );
    }
    out.push_str("]}");
}

/// The smallest and largest `POST /upload` body the load generator sends.
pub const UPLOAD_MIN: usize = 16 << 10;
pub const UPLOAD_MAX: usize = 1 << 20;

/// The checksum `POST /upload` answers with: FNV-1a (64-bit) over the body
/// in 8-byte little-endian words, the last word zero-padded, then the
/// length. A word at a time, so that it does not dwarf the rest of the
/// request.
pub fn checksum(bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        hash = (hash ^ word).wrapping_mul(PRIME);
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = (hash ^ u64::from_le_bytes(last)).wrapping_mul(PRIME);
    (hash ^ bytes.len() as u64).wrapping_mul(PRIME)
}

/// A small, seeded pseudo-random generator (xorshift64*), so that the load
/// generator's upload sizes and bytes are the same from run to run.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..=hi` (the modulo bias is negligible here).
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
}

/// `UPLOAD_MAX` seeded pseudo-random bytes: every upload body is a prefix.
pub fn upload_bytes(seed: u64) -> Vec<u8> {
    let mut rng = XorShift::new(seed);
    let mut out = Vec::with_capacity(UPLOAD_MAX);
    while out.len() < UPLOAD_MAX {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out
}

/// The size of upload `k` of a run: uniform in `UPLOAD_MIN..=UPLOAD_MAX`,
/// the same for the same `k` in every run.
pub fn upload_size(k: u64) -> usize {
    XorShift::new(0x5eed_u64 ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .between(UPLOAD_MIN, UPLOAD_MAX)
}
