//! What the server and the load generator share: the server's report.

use serde::{Deserialize, Serialize};

/// `GET /stats`: the server's counters since it started.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, Default)]
pub struct ServerStats {
    /// `POST /orders` requests served.
    pub requests: u64,
    /// Heap allocations (and reallocations) by the whole process.
    pub allocations: u64,
    /// Peak resident set (`VmHWM` of `/proc/self/status`), in KiB; 0 where
    /// it cannot be read.
    pub peak_rss_kib: u64,
    /// Whether pooling is on (`POOLABLE` is not `off`).
    pub pooling: bool,
    /// The request struct pool's gets and puts (equal when every pooled
    /// request came back) and its idle values.
    pub request_pool_gets: u64,
    pub request_pool_puts: u64,
    pub request_pool_retained: u64,
    /// The response buffer pool's puts: a response body comes back once
    /// hyper has written it.
    pub response_pool_puts: u64,
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
