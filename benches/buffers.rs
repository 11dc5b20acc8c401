//! Workloads 2-4 on `Vec<u8>` buffers: a 2 KiB scratch buffer, a 4 KiB
//! builder, and a 1 KiB record encoded under the 64 KiB size cap.

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod buffers;
    pub mod harness;
    pub mod run;
    pub mod scratch;
    pub mod timing;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poolable::Pool;
use support::buffers::{build, encode, scratch, scratch_fresh};
use support::contenders::{CAP, Contenders, Kind};
use support::timing::{bench_kinds, timed};

static SCRATCH: Pool<Vec<u8>> = Pool::new();
static BUILDER: Pool<Vec<u8>> = Pool::new();
// The default cap, 64 KiB, is in force.
static RECORD: Pool<Vec<u8>> = Pool::new();

fn pooled_kinds() -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|&k| k != Kind::Plain)
        .collect()
}

fn scratch_2k(c: &mut Criterion) {
    let peers = Contenders::new(&SCRATCH, Vec::new, CAP);
    let mut g = c.benchmark_group("2_scratch_2k");
    g.throughput(Throughput::Elements(1));
    // Plain is `vec![0; 2048]` per op, not a resize of an empty Vec.
    g.bench_function(BenchmarkId::new(Kind::Plain.id(), "2 KiB"), |b| {
        b.iter_custom(|n| {
            timed(|| {
                for i in 0..n {
                    scratch_fresh(i);
                }
            })
        })
    });
    bench_kinds(&mut g, "2 KiB", &peers, &pooled_kinds(), scratch);
    g.finish();
}

fn builder_4k(c: &mut Criterion) {
    let peers = Contenders::new(&BUILDER, Vec::new, CAP);
    let mut g = c.benchmark_group("3_builder_4k");
    g.throughput(Throughput::Elements(1));
    bench_kinds(&mut g, "4 KiB", &peers, &Kind::ALL, build);
    g.finish();
}

fn record_encode(c: &mut Criterion) {
    let peers = Contenders::new(&RECORD, Vec::new, CAP);
    let mut g = c.benchmark_group("4_record_encode");
    g.throughput(Throughput::Elements(1));
    bench_kinds(&mut g, "1 KiB record", &peers, &Kind::ALL, encode);
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = scratch_2k, builder_4k, record_encode
}
criterion_main!(benches);
