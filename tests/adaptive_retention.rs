//! The default retention bound adapts to the working set: a producer ->
//! channel(128) -> consumer pipeline whose consumer (or producer) stalls now
//! and then has about 128 buffers out at once, then gets them back in a
//! burst. With a fixed bound of 4 caches per CPU, most of that burst was
//! dropped (`dropped_full`) and the next burst missed: 67% hits. Now the
//! shards grow on demand up to `ADAPTIVE_RETAINED_FACTOR` times the default,
//! and trims shrink them back.

use poolable::{
    ADAPTIVE_RETAINED_FACTOR, DEFAULT_MAX_BYTES, DEFAULT_RETAINED_PER_CPU, LOCAL_CACHE_SIZE, Pool,
    Stats,
};
use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::thread;
use std::time::Duration;

const MESSAGES: usize = 20_000;
const CHANNEL: usize = 128;
const STALL_EVERY: usize = 500;
const STALL: Duration = Duration::from_millis(2);
const RUNS: usize = 10;

/// The most a default pool may retain with the producer's and the
/// consumer's thread caches: the grown shards plus two caches.
fn bound() -> usize {
    let cpus = thread::available_parallelism().map_or(1, usize::from);
    let default = cpus * DEFAULT_RETAINED_PER_CPU;
    (default - LOCAL_CACHE_SIZE) * ADAPTIVE_RETAINED_FACTOR + 2 * LOCAL_CACHE_SIZE
}

/// One run of the pipeline on a fresh default pool; which side stalls is
/// `slow_consumer`. Checks the bound every `STALL_EVERY` messages.
fn pipeline(slow_consumer: bool) -> Stats {
    let pool = Arc::new(Pool::<Vec<u8>>::new());
    let (tx, rx) = sync_channel(CHANNEL);
    let producer = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || {
            for i in 0..MESSAGES {
                if !slow_consumer && i % STALL_EVERY == 0 {
                    thread::sleep(STALL);
                }
                let mut buf = pool.get_owned();
                buf.extend_from_slice(&[i as u8; 256]);
                tx.send(buf).unwrap();
            }
        })
    };
    for (i, buf) in rx.iter().enumerate() {
        assert_eq!(buf.len(), 256);
        drop(buf);
        if i % STALL_EVERY == 0 {
            let stats = pool.stats();
            assert!(stats.retained <= bound(), "over the bound: {stats}");
            assert!(
                stats.retained_bytes <= bound() * DEFAULT_MAX_BYTES,
                "{stats}"
            );
            if slow_consumer {
                thread::sleep(STALL);
            }
        }
    }
    producer.join().unwrap();
    pool.stats()
}

fn ten_runs(slow_consumer: bool) {
    for run in 0..RUNS {
        let stats = pipeline(slow_consumer);
        assert!(
            stats.hit_rate() >= 0.95,
            "run {run} (slow consumer: {slow_consumer}): {:.1}% hits; {stats}",
            stats.hit_rate() * 100.0
        );
        assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
    }
}

#[test]
fn a_pipeline_with_a_slow_consumer_hits_95_percent_by_default() {
    ten_runs(true);
}

#[test]
fn a_pipeline_with_a_slow_producer_hits_95_percent_by_default() {
    ten_runs(false);
}

#[test]
fn a_grown_bound_does_not_pin_memory_past_two_trims() {
    let pool = Pool::<Vec<u8>>::new();
    let cpus = thread::available_parallelism().map_or(1, usize::from);
    let default = cpus * DEFAULT_RETAINED_PER_CPU;
    // One thread returns a burst of 4x the default: the shards grow for it.
    let burst: Vec<_> = (0..4 * default).map(|_| pool.get()).collect();
    drop(burst);
    let grown = pool.stats();
    assert_eq!(
        (grown.retained, grown.dropped_full),
        (4 * default, 0),
        "{grown}"
    );
    pool.trim();
    pool.trim();
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.retained_bytes), (0, 0), "{stats}");
}

#[test]
fn an_explicit_bound_does_not_grow() {
    let pool = Pool::<Vec<u8>>::new().max_retained(16);
    let burst: Vec<_> = (0..100).map(|_| pool.get()).collect();
    drop(burst);
    let stats = pool.stats();
    assert_eq!((stats.retained, stats.dropped_full), (16, 84), "{stats}");
}
