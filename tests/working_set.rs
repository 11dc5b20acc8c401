//! A `BufferPool`'s memory follows the working set (issue 23): the
//! pipeline of `benches/rss_pipeline.rs` (a producer thread sends 20,000
//! buffers of 100 B to 1 MiB, uniform, from a fixed seed, to a consumer
//! thread that drops them), with a fixed schedule instead of the
//! scheduler's, so that every count is the same in every run. The two
//! threads take turns: the producer makes a buffer and hands it over, and
//! the consumer drops the oldest ones until the number in flight is down to
//! the schedule's. That is two most of the time (it keeps up), and 8 to 64,
//! a different depth each time, in a stall every 1,000 buffers.
//!
//! The measure is the peak of the process's live heap bytes (a counting
//! allocator: capacity, an upper bound of what would be resident) with the
//! pool against plain `Vec`s on the same schedule.
//!
//! Its own test binary, because it installs a `#[global_allocator]`.

mod common {
    pub mod pipeline_sizes;
    pub mod process_live_bytes;
}

use common::pipeline_sizes::sizes;
use common::process_live_bytes::{live_bytes, reset_peak};
use poolable::BufferPool;
use std::collections::VecDeque;
use std::sync::mpsc::{channel, sync_channel};
use std::thread;

const MESSAGES: usize = 20_000;
const MIN: usize = 100;
const MAX: usize = 1 << 20;
const STALL_EVERY: usize = 1_000;
const KEEPING_UP: usize = 2;

/// How many buffers the consumer leaves in flight after buffer `i`.
fn in_flight(i: usize) -> usize {
    let stall = 8 + (i / STALL_EVERY * 23) % 57;
    if i % STALL_EVERY < stall {
        stall + KEEPING_UP
    } else {
        KEEPING_UP
    }
}

/// Run the schedule with `make` producing each buffer (of at least the
/// size asked; only capacity counts here, so none is filled) on the
/// producer thread; returns the peak of the process's live heap bytes over
/// the run, above where it started.
fn pipeline<B: Send + 'static>(make: impl Fn(usize) -> B + Send + 'static) -> isize {
    let (to_consumer, buffers) = sync_channel::<(usize, B)>(0);
    let (done, turns) = channel::<()>();
    let consumer = thread::spawn(move || {
        let mut queue = VecDeque::new();
        for (i, buf) in buffers {
            queue.push_back(buf);
            while queue.len() > in_flight(i) {
                drop(queue.pop_front());
            }
            done.send(()).unwrap();
        }
    });
    let base = live_bytes();
    reset_peak();
    for (i, n) in sizes(MESSAGES, MIN, MAX).enumerate() {
        to_consumer.send((i, make(n))).unwrap();
        turns.recv().unwrap();
    }
    drop(to_consumer);
    consumer.join().unwrap();
    reset_peak() - base
}

#[test]
fn a_buffer_pool_holds_at_most_a_third_more_than_plain_allocation_at_90_percent_hits() {
    let plain = pipeline(Vec::<u8>::with_capacity);
    static BUFS: BufferPool = BufferPool::new().max_bytes(MAX);
    let pooled = pipeline(|n| BUFS.get(n));
    let stats = BUFS.stats();
    let ratio = pooled as f64 / plain as f64;
    eprintln!(
        "plain {} KiB, pool {} KiB ({ratio:.2}x), {stats}",
        plain >> 10,
        pooled >> 10
    );
    assert!(stats.hit_rate() >= 0.90, "{stats}");
    assert!(
        ratio <= 1.33,
        "pool {pooled} B against plain {plain} B: {ratio:.2}x"
    );
}
