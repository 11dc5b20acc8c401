//! Workload 1: get + drop of a small derived struct, on 1 and 2 threads
//! (time per op per thread).

#[path = "support/mod.rs"]
pub mod support;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use poolable::Poolable;
use support::{CAP, Contenders, Kind, Small, work};

fn small(c: &mut Criterion) {
    let peers = Contenders::new(Small::pool(), Small::default, CAP);
    let mut g = c.benchmark_group("1_small_get_drop");
    g.throughput(Throughput::Elements(1));
    support::bench_kinds(&mut g, "1 thread", &peers, &Kind::ALL, work::small);
    // Each sample spawns two threads: flat sampling keeps every sample long.
    g.sampling_mode(SamplingMode::Flat);
    for kind in Kind::ALL {
        g.bench_function(BenchmarkId::new(kind.id(), "2 threads"), |b| {
            b.iter_custom(|n| peers.run_threads(kind, 2, n, work::small))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = small
}
criterion_main!(benches);
