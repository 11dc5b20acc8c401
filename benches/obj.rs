//! Workload 0, the headline: get, push one byte into the `Vec<u8>`
//! of `#[derive(Poolable, Default)] struct Obj { buf: Vec<u8> }`, drop; on 1
//! and 2 persistent threads (wall time / all ops; per-thread time is
//! `threads ×` that). Beside poolable's derived pool: a static pool of a type
//! without a derive, a generic derived type, the `thread_local!` baseline,
//! the raw single-slot floor, `Box::new` per op and the peers.

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod harness;
    pub mod obj;
    pub mod run;
    pub mod threads;
    pub mod workers;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use support::obj::{ObjContender, ObjContenders};
use support::threads::{bench_workers, split};

fn obj(c: &mut Criterion) {
    let contenders = ObjContenders::default();
    let mut g = c.benchmark_group("0_obj_get_push_drop");
    g.throughput(Throughput::Elements(1));
    for (threads, param) in [(1, "1 thread"), (2, "2 threads")] {
        for contender in ObjContender::ALL {
            let op = |n| contenders.run(contender, n);
            bench_workers(
                &mut g,
                BenchmarkId::new(contender.id(), param),
                split(threads, &op),
            );
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = obj
}
criterion_main!(benches);
