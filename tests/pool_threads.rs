//! Behaviour tests of the pool runtime across threads, through the facade
//! crate: guards move between threads, thread caches are flushed at thread
//! exit, stats are exact after a join, and no value is ever in two guards.
//! Nothing here trims, so tests running in parallel cannot disturb each
//! other; each uses pools (and derived types) of its own.

use poolable::{LOCAL_CACHE_SIZE, Pool, Poolable, Pooled};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;

fn assert_send<T: Send>(_: &T) {}

static SENT: Pool<Vec<u8>> = Pool::new();

#[test]
fn a_guard_taken_on_one_thread_can_be_returned_from_another() {
    let mut guard = SENT.get();
    assert_send(&guard);
    guard.extend_from_slice(b"from main");
    let buffer = guard.as_ptr() as usize;
    thread::spawn(move || {
        assert_eq!(&guard[..], b"from main");
        drop(guard);
    })
    .join()
    .expect("returning thread");
    let stats = SENT.stats();
    assert_eq!((stats.gets, stats.puts), (1, 1), "{stats}");
    // The other thread's cache was flushed to the shards when it exited.
    assert_eq!(stats.retained, 1, "{stats}");
    let guard = SENT.get();
    assert!(guard.is_empty());
    assert_eq!(guard.as_ptr() as usize, buffer, "the same value came back");
}

/// Guards in flight in the channel, at most.
const CHANNEL_CAP: usize = 16;
const WARM_UP_OPS: usize = 10_000;
const MEASURED_OPS: usize = 100_000;

/// The most misses the producer can ever have, warm-up included.
///
/// Only the producer takes values out of the shards, and nothing is dropped,
/// so every miss adds one value for good. A miss needs the producer's cache
/// empty and every shard empty when the producer scans it; a shard it has
/// scanned can refill behind it, but a shard it has not scanned yet cannot
/// lose values, so at the first scan every value was outside the shards: in
/// the channel (`CHANNEL_CAP`), in the consumer's thread cache
/// (`LOCAL_CACHE_SIZE`, a spill moves values under the shard lock) or in its
/// hand (1). So a get can miss only while at most `CHANNEL_CAP +
/// LOCAL_CACHE_SIZE + 1` values exist, and the misses stop at one more,
/// however the threads are scheduled.
const MISS_BOUND: u64 = (CHANNEL_CAP + LOCAL_CACHE_SIZE + 2) as u64;

#[test]
fn a_producer_reuses_the_values_a_consumer_returns() {
    // Room for everything, so nothing is dropped and every miss is a new value.
    let pool: Pool<Vec<u8>> = Pool::new().max_retained(1024);
    let (tx, rx) = mpsc::sync_channel::<Pooled<'_, Vec<u8>>>(CHANNEL_CAP);
    let (warm_misses, measured_misses) = thread::scope(|s| {
        let consumer = s.spawn(move || rx.into_iter().for_each(drop));
        let producer = s.spawn(|| {
            let mut send = |i: usize| {
                let mut guard = pool.get();
                guard.push(i as u8);
                tx.send(guard).expect("consumer alive");
            };
            (0..WARM_UP_OPS).for_each(&mut send);
            // The producer's own counters: exact on its own thread, and only
            // the producer gets.
            let warm = pool.stats().misses;
            (0..MEASURED_OPS).for_each(&mut send);
            let measured = pool.stats().misses - warm;
            drop(tx);
            (warm, measured)
        });
        let misses = producer.join().expect("producer");
        consumer.join().expect("consumer");
        misses
    });
    let stats = pool.stats();
    eprintln!(
        "producer/consumer: {warm_misses} misses in {WARM_UP_OPS} warm-up ops, \
         {measured_misses} in {MEASURED_OPS} measured ops (bound {MISS_BOUND})"
    );
    assert_eq!(stats.dropped_on_return(), 0, "{stats}");
    assert!(
        warm_misses + measured_misses <= MISS_BOUND,
        "misses keep growing: {warm_misses} warm-up + {measured_misses} measured; {stats}"
    );
}

#[derive(Poolable, Default)]
struct ExitFlushed {
    buf: Vec<u8>,
}

#[test]
fn an_exiting_thread_hands_its_cache_to_the_shards() {
    thread::spawn(|| {
        let held: Vec<_> = (0..8)
            .map(|_| {
                let mut guard = ExitFlushed::pool().get();
                guard.buf.push(1);
                guard
            })
            .collect();
        drop(held);
        assert_eq!(ExitFlushed::pool().stats().retained, 8);
    })
    .join()
    .expect("worker");
    let stats = ExitFlushed::pool().stats();
    assert_eq!((stats.retained, stats.dropped_full), (8, 0), "{stats}");

    let guard = ExitFlushed::pool().get();
    assert!(guard.buf.is_empty() && guard.buf.capacity() > 0);
    let stats = ExitFlushed::pool().stats();
    assert_eq!(
        (stats.gets, stats.misses),
        (9, 8),
        "the get on main is a hit: {stats}"
    );
}

#[derive(Poolable, Default)]
struct Counted {
    buf: Vec<u8>,
}

#[test]
fn stats_are_exact_for_joined_threads() {
    const THREADS: u64 = 4;
    const OPS: u64 = 10_000;
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            thread::spawn(move || {
                for i in 0..OPS {
                    let mut guard = Counted::pool().get();
                    guard.buf.push((t + i) as u8);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker");
    }
    let stats = Counted::pool().stats();
    assert_eq!(stats.gets, THREADS * OPS, "{stats}");
    assert_eq!(stats.puts, THREADS * OPS, "{stats}");
    assert_eq!(stats.dropped_on_return(), 0, "{stats}");
}

#[derive(Poolable, Default)]
struct Exclusive {
    /// Not reset: it follows the value, set while a guard holds it.
    #[poolable(skip)]
    in_use: Box<AtomicBool>,
    scratch: Vec<u8>,
}

#[test]
fn no_value_is_in_two_guards_under_contention() {
    const THREADS: usize = 4;
    const GETS: usize = 50_000;
    static VIOLATIONS: AtomicU64 = AtomicU64::new(0);
    thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                let mut held = Vec::with_capacity(12);
                let mut gets = 0;
                let mut round = t;
                while gets < GETS {
                    // 1 to 12 guards at once: below and above a thread
                    // cache, so values move through the shards and are stolen.
                    let batch = (round % 12 + 1).min(GETS - gets);
                    round += 1;
                    for _ in 0..batch {
                        let mut guard = Exclusive::pool().get();
                        if guard.in_use.swap(true, Ordering::Relaxed) {
                            VIOLATIONS.fetch_add(1, Ordering::Relaxed);
                        }
                        guard.scratch.push(t as u8);
                        held.push(guard);
                    }
                    gets += batch;
                    for guard in held.drain(..) {
                        guard.in_use.store(false, Ordering::Relaxed);
                        drop(guard);
                    }
                }
            });
        }
    });
    assert_eq!(VIOLATIONS.load(Ordering::Relaxed), 0);
    let stats = Exclusive::pool().stats();
    assert_eq!(stats.gets, (THREADS * GETS) as u64, "{stats}");
    assert!(
        stats.gets > 10 * stats.misses,
        "values were reused: {stats}"
    );
}
