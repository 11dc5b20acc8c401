//! Workload 1: get + drop of a small derived struct, on 1 and 2 persistent
//! threads (wall time / all ops; per-thread time is `threads ×` that).

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod harness;
    pub mod run;
    pub mod small;
    pub mod threads;
    pub mod workers;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use support::contenders::{CAP, Contenders, Kind};
use support::small::{Small, small};
use support::threads::{bench_workers, split};

fn small_get_drop(c: &mut Criterion) {
    let peers = Contenders::new(Small::pool(), Small::default, CAP);
    let mut g = c.benchmark_group("1_small_get_drop");
    g.throughput(Throughput::Elements(1));
    for (threads, param) in [(1, "1 thread"), (2, "2 threads")] {
        for kind in Kind::ALL {
            let op = |n| peers.run(kind, n, small);
            bench_workers(
                &mut g,
                BenchmarkId::new(kind.id(), param),
                split(threads, &op),
            );
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = small_get_drop
}
criterion_main!(benches);
