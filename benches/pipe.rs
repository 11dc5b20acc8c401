//! Workload 6: producer/consumer. Producers take a buffer, write a 256-byte
//! message and send it through a bounded channel; consumers read and drop it.
//! 1 producer -> 1 consumer, and 2 such pairs at once, on persistent threads
//! (spawned once per benchmark function). Time per message.

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod harness;
    pub mod pipe;
    pub mod threads;
    pub mod workers;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poolable::Pool;
use support::contenders::{CAP, Contenders, Kind};
use support::pipe::{consume, message};
use support::threads::bench_workers;

static MESSAGES: Pool<Vec<u8>> = Pool::new();

fn pipe(c: &mut Criterion) {
    let peers = Contenders::new(&MESSAGES, Vec::new, CAP);
    let mut g = c.benchmark_group("6_producer_consumer");
    g.throughput(Throughput::Elements(1));
    let read = |v: &Vec<u8>| consume(v);
    for (pairs, param) in [(1, "1-to-1"), (2, "2-to-2")] {
        for kind in Kind::ALL {
            bench_workers(
                &mut g,
                BenchmarkId::new(kind.id(), param),
                peers.pipe(kind, pairs, &message, &read),
            );
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = pipe
}
criterion_main!(benches);
