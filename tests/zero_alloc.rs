//! Steady-state pooling allocates nothing. Its own test binary, because it
//! installs a counting `#[global_allocator]` (`common/counting_alloc.rs`).

mod common {
    pub mod counting_alloc;
}

use common::counting_alloc::count_allocs;
use poolable::{LOCAL_CACHE_SIZE, Poolable, Pooled};
use std::hint::black_box;
use std::sync::mpsc;
use std::thread;

const NAME: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const BODY: [u8; 256] = [0xA5; 256];

/// How much the warm-up writes, and (less) how much the measured loop writes.
const WARM_NAME: usize = 32;
const WARM_BODY: usize = 256;
const HOT_NAME: usize = 16;
const HOT_BODY: usize = 128;

const WARM_UP_OPS: usize = 10_000;
const MEASURED_OPS: usize = 100_000;

fn fill(name: &mut String, body: &mut Vec<u8>, name_len: usize, body_len: usize) {
    name.push_str(&NAME[..name_len]);
    body.extend_from_slice(&BODY[..body_len]);
}

#[test]
fn the_counting_allocator_counts() {
    let (boxed, allocs, _) = count_allocs(|| black_box(Box::new(7_u64)));
    assert_eq!(allocs, 1);
    drop(boxed);
    let (_, allocs, _) = count_allocs(|| black_box(vec![1_u8; 100]));
    assert_eq!(allocs, 1);
    let ((), allocs, _) = count_allocs(|| ());
    assert_eq!(allocs, 0);
}

#[derive(Poolable, Default)]
struct Message {
    name: String,
    body: Vec<u8>,
}

#[test]
fn single_thread_steady_state_does_not_allocate() {
    let once = |name_len, body_len| {
        let mut msg = Message::pool().get();
        assert!(msg.name.is_empty() && msg.body.is_empty());
        let Message { name, body } = &mut *msg;
        fill(name, body, name_len, body_len);
        black_box(&*msg);
    };
    for _ in 0..WARM_UP_OPS {
        once(WARM_NAME, WARM_BODY);
    }
    let ((), allocs, _) = count_allocs(|| {
        for _ in 0..MEASURED_OPS {
            once(HOT_NAME, HOT_BODY);
        }
    });
    assert_eq!(allocs, 0, "{allocs} allocations in {MEASURED_OPS} get/drop");
    let stats = Message::pool().stats();
    assert_eq!(stats.misses, 1, "{stats}");
}

static BUFS: poolable::BufferPool = poolable::BufferPool::new();

#[test]
fn buffer_pool_steady_state_does_not_allocate() {
    // Mixed sizes, each class warmed once: every get takes from its class.
    let sizes = [100, 3000, 40_000, 200];
    let once = |i: usize| {
        let n = sizes[i % sizes.len()];
        let mut buf = BUFS.get(n);
        assert!(buf.is_empty());
        buf.extend_from_slice(&BODY[..n.min(BODY.len())]);
        black_box(&*buf);
    };
    for i in 0..WARM_UP_OPS {
        once(i);
    }
    let ((), allocs, _) = count_allocs(|| (0..MEASURED_OPS).for_each(once));
    assert_eq!(allocs, 0, "{allocs} allocations in {MEASURED_OPS} get/drop");
    let stats = BUFS.stats();
    assert_eq!(stats.misses, sizes.len() as u64, "{stats}");
}

/// The retention bound of `Envelope`'s pool (the attribute below takes a literal).
const MAX_RETAINED: usize = 40;

#[derive(Poolable, Default)]
#[poolable(max_retained = 40)]
struct Envelope {
    name: String,
    body: Vec<u8>,
}

/// Guards in flight in the channel, at most.
const CHANNEL_CAP: usize = 16;

/// The values left after the prefill: the shards full, `MAX_RETAINED` minus
/// one thread cache (the prefill thread's cache finds no room at exit).
const PREFILLED: usize = MAX_RETAINED - LOCAL_CACHE_SIZE;

// With this many warm values no get by the producer can miss: a miss needs
// every value out of its reach, in the channel, the consumer's thread cache
// or the consumer's hand (`pool_threads` checks this bound).
const _: () = assert!(PREFILLED >= CHANNEL_CAP + LOCAL_CACHE_SIZE + 2);

#[test]
fn producer_consumer_steady_state_does_not_allocate() {
    // Fill the pool to its bound from a thread that then exits, so that
    // every shard holds as many values as it ever can. The shards' lists grow
    // on demand, so without this a shard that first sees its high-water mark
    // inside the measured window reallocates its list once: 1 allocation of
    // 1792 B (32 entries) in about 1 run in 25 under heavy load.
    thread::spawn(|| {
        let warm: Vec<_> = (0..MAX_RETAINED)
            .map(|_| {
                let mut msg = Envelope::pool().get();
                let Envelope { name, body } = &mut *msg;
                fill(name, body, WARM_NAME, WARM_BODY);
                msg
            })
            .collect();
        drop(warm);
    })
    .join()
    .expect("prefill");
    let prefilled = Envelope::pool().stats();
    assert_eq!(prefilled.retained, PREFILLED, "{prefilled}");

    let (tx, rx) = mpsc::sync_channel::<Pooled<'static, Envelope>>(CHANNEL_CAP);
    let send = move |name_len, body_len| {
        let mut msg = Envelope::pool().get();
        assert!(msg.name.is_empty() && msg.body.is_empty());
        let Envelope { name, body } = &mut *msg;
        fill(name, body, name_len, body_len);
        tx.send(msg).expect("consumer alive");
    };
    let producer = thread::spawn(move || {
        for _ in 0..WARM_UP_OPS {
            send(WARM_NAME, WARM_BODY);
        }
        let ((), allocs, last_size) = count_allocs(|| {
            for _ in 0..MEASURED_OPS {
                send(HOT_NAME, HOT_BODY);
            }
        });
        (allocs, last_size)
    });
    let consumer = thread::spawn(move || {
        for _ in 0..WARM_UP_OPS {
            drop(rx.recv().expect("producer alive"));
        }
        let ((), allocs, last_size) = count_allocs(|| {
            for _ in 0..MEASURED_OPS {
                drop(rx.recv().expect("producer alive"));
            }
        });
        (allocs, last_size)
    });
    let produced = producer.join().expect("producer");
    let consumed = consumer.join().expect("consumer");
    let stats = Envelope::pool().stats();
    assert_eq!(
        stats.misses, prefilled.misses,
        "no get missed after the prefill: {stats}"
    );
    assert_eq!(
        stats.dropped_full, prefilled.dropped_full,
        "nothing dropped: {stats}"
    );
    eprintln!(
        "producer/consumer: {produced:?} allocations (count, last size) on the producer, \
         {consumed:?} on the consumer in {MEASURED_OPS} ops; {stats}"
    );
    assert_eq!(
        (produced.0, consumed.0),
        (0, 0),
        "allocations in {MEASURED_OPS} measured ops (producer, consumer)"
    );
}
