//! Workload 6: producer/consumer. Producers take a buffer, write a 256-byte
//! message and send it through a bounded channel; consumers read and drop it.
//! 1 producer -> 1 consumer, and 2 such pairs at once. Time per message.

#[path = "support/mod.rs"]
pub mod support;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use poolable::Pool;
use support::{CAP, Contenders, Kind, work};

static MESSAGES: Pool<Vec<u8>> = Pool::new();

/// Messages per pair sent before the clock starts in each sample.
const WARM: u64 = 256;

fn pipe(c: &mut Criterion) {
    let peers = Contenders::new(&MESSAGES, Vec::new, CAP);
    let mut g = c.benchmark_group("6_producer_consumer");
    g.throughput(Throughput::Elements(1));
    g.sampling_mode(SamplingMode::Flat);
    for (pairs, param) in [(1, "1-to-1"), (2, "2-to-2")] {
        for kind in Kind::ALL {
            g.bench_function(BenchmarkId::new(kind.id(), param), |b| {
                b.iter_custom(|n| {
                    peers.pipe(
                        kind,
                        pairs,
                        WARM,
                        n,
                        work::message,
                        |v| work::consume(v),
                        || {},
                        || {},
                    )
                })
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = pipe
}
criterion_main!(benches);
