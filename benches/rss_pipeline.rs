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
//! Each prints one line: the mode, the peak RSS in KiB, and for the pool its
//! hit rate and what it retained at the end. `scripts/rss_pipeline.py` runs
//! both modes several times and prints the ratio of the medians.

use poolable::BufferPool;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::sync_channel;
use std::thread;

const MESSAGES: usize = 20_000;
const CHANNEL: usize = 64;
const MIN: usize = 100;
const MAX: usize = 1 << 20;

/// Buffers sent and not yet read, and the most there were at once.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

fn sent() {
    let now = IN_FLIGHT.fetch_add(1, Relaxed) + 1;
    MOST_IN_FLIGHT.fetch_max(now, Relaxed);
}

static BUFS: BufferPool = BufferPool::new().max_bytes(MAX).name("pipeline");

/// The request sizes, uniform in `MIN..=MAX`, the same in every run.
fn sizes() -> impl Iterator<Item = usize> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..MESSAGES).map(move |_| {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        MIN + (r % (MAX - MIN + 1) as u64) as usize
    })
}

/// The bytes a consumer reads of a buffer (every page, so that each is
/// touched as a real reader would).
fn read(buf: &[u8]) -> u64 {
    IN_FLIGHT.fetch_sub(1, Relaxed);
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

fn plain() -> u64 {
    let (tx, rx) = sync_channel::<Vec<u8>>(CHANNEL);
    let producer = thread::spawn(move || {
        for (i, n) in sizes().enumerate() {
            let mut buf = Vec::with_capacity(n);
            buf.resize(n, i as u8);
            sent();
            tx.send(buf).unwrap();
        }
    });
    let sum = rx.iter().map(|buf| read(&buf)).sum();
    producer.join().unwrap();
    sum
}

fn pooled() -> u64 {
    let (tx, rx) = sync_channel(CHANNEL);
    let producer = thread::spawn(move || {
        for (i, n) in sizes().enumerate() {
            let mut buf = BUFS.get(n);
            buf.resize(n, i as u8);
            sent();
            tx.send(buf).unwrap();
        }
    });
    let sum = rx.iter().map(|buf| read(&buf)).sum();
    producer.join().unwrap();
    sum
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
            "mode=plain peak_kib={peak} most_in_flight={}",
            MOST_IN_FLIGHT.load(Relaxed)
        );
    } else {
        let stats = BUFS.stats();
        println!(
            "mode=pool peak_kib={peak} most_in_flight={} hit_rate={:.3} retained={} retained_kib={}",
            MOST_IN_FLIGHT.load(Relaxed),
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
