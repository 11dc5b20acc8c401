//! Workload 1: get + drop of a small derived struct, on 1 and 2 persistent
//! threads (wall time / all ops; per-thread time is `threads ×` that).

#[path = "support/mod.rs"]
pub mod support;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poolable::Poolable;
use support::{CAP, Contenders, Kind, Small, work};

fn small(c: &mut Criterion) {
    let peers = Contenders::new(Small::pool(), Small::default, CAP);
    let mut g = c.benchmark_group("1_small_get_drop");
    g.throughput(Throughput::Elements(1));
    for (threads, param) in [(1, "1 thread"), (2, "2 threads")] {
        for kind in Kind::ALL {
            let op = |n| peers.run(kind, n, work::small);
            support::bench_workers(
                &mut g,
                BenchmarkId::new(kind.id(), param),
                support::split(threads, &op),
            );
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = small
}
criterion_main!(benches);
