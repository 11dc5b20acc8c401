//! Peak memory of a buffer pipeline (issue 23): a producer sends 20,000 byte
//! buffers of 100 B to 1 MiB (uniform, from a fixed seed) over
//! `sync_channel(64)` to a consumer that reads and drops them. Run one mode
//! per process, so that each peak RSS (`VmHWM`) is its own:
//!
//! ```text
//! cargo bench -p poolable-benches --bench rss_pipeline -- plain
//! cargo bench -p poolable-benches --bench rss_pipeline -- pool
//! ```
//!
//! Each prints one line: the mode, the peak RSS in KiB, the most buffers in
//! flight at once (sent and not yet read: the channel's 64, plus one at
//! each end, when the consumer falls behind) and the most bytes (a lower
//! bound of the peak RSS, whatever the pool keeps), and for the pool its hit
//! rate and what it retained at the end. `scripts/rss_pipeline.py` runs
//! both modes several times and prints the ratio of the medians.

// The size sequence, shared with `tests/working_set.rs`.
#[path = "../tests/common/pipeline_sizes.rs"]
mod pipeline_sizes;

use pipeline_sizes::sizes;
use poolable::BufferPool;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::sync_channel;
use std::thread;

const MESSAGES: usize = 20_000;
const CHANNEL: usize = 64;
const MIN: usize = 100;
const MAX: usize = 1 << 20;

/// Buffers sent and not yet read, their bytes, and the most of each at
/// once: a lower bound of any mode's peak RSS.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static IN_FLIGHT_BYTES: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT_BYTES: AtomicUsize = AtomicUsize::new(0);

fn sent(bytes: usize) {
    let now = IN_FLIGHT.fetch_add(1, Relaxed) + 1;
    MOST_IN_FLIGHT.fetch_max(now, Relaxed);
    let now = IN_FLIGHT_BYTES.fetch_add(bytes, Relaxed) + bytes;
    MOST_IN_FLIGHT_BYTES.fetch_max(now, Relaxed);
}

static BUFS: BufferPool = BufferPool::new().max_bytes(MAX).name("pipeline");

/// The bytes a consumer reads of a buffer (every page, so that each is
/// touched as a real reader would).
fn read(buf: &[u8]) -> u64 {
    IN_FLIGHT.fetch_sub(1, Relaxed);
    IN_FLIGHT_BYTES.fetch_sub(buf.len(), Relaxed);
    buf.iter().step_by(4096).map(|&b| u64::from(b)).sum()
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The pipeline: the producer makes each buffer with `make(n, fill)` (`n`
/// bytes, all `fill`) and sends it; the consumer reads and drops it.
fn pipeline<B: AsRef<Vec<u8>> + Send + 'static>(
    make: impl Fn(usize, u8) -> B + Send + 'static,
) -> u64 {
    let (tx, rx) = sync_channel::<B>(CHANNEL);
    let producer = thread::spawn(move || {
        for (i, n) in sizes(MESSAGES, MIN, MAX).enumerate() {
            let buf = make(n, i as u8);
            sent(n);
            tx.send(buf).unwrap();
        }
    });
    let sum = rx.iter().map(|buf| read(buf.as_ref())).sum();
    producer.join().unwrap();
    sum
}

fn plain() -> u64 {
    pipeline(|n, fill| {
        let mut buf = Vec::with_capacity(n);
        buf.resize(n, fill);
        buf
    })
}

fn pooled() -> u64 {
    pipeline(|n, fill| {
        let mut buf = BUFS.get(n);
        buf.resize(n, fill);
        buf
    })
}

fn main() {
    let mode = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .unwrap_or_else(|| "pool".into());
    let sum = match mode.as_str() {
        "plain" => plain(),
        "pool" => pooled(),
        other => {
            eprintln!("rss_pipeline: unknown mode {other:?} (plain or pool)");
            std::process::exit(2);
        }
    };
    std::hint::black_box(sum);
    let peak = peak_rss_kib();
    if mode == "plain" {
        println!(
            "mode=plain peak_kib={peak} most_in_flight={} most_in_flight_kib={}",
            MOST_IN_FLIGHT.load(Relaxed),
            MOST_IN_FLIGHT_BYTES.load(Relaxed) / 1024
        );
    } else {
        let stats = BUFS.stats();
        println!(
            "mode=pool peak_kib={peak} most_in_flight={} most_in_flight_kib={} hit_rate={:.3} retained={} retained_kib={}",
            MOST_IN_FLIGHT.load(Relaxed),
            MOST_IN_FLIGHT_BYTES.load(Relaxed) / 1024,
            stats.hit_rate(),
            stats.retained,
            stats.retained_bytes / 1024
        );
        if std::env::var_os("RSS_CLASSES").is_some() {
            for class in BUFS.class_stats() {
                println!("{} {}", class.capacity, class.stats);
            }
        }
    }
}
