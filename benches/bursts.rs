//! Workload 8: bursts on two pools at once. Each of two persistent threads
//! takes 32 values of its own pool's type, pushes a byte into each and
//! drops them all, round after round, so every round spills its thread
//! cache into the shards and refills it from them: poolable's slow paths,
//! on two pools that share nothing but the runtime's globals (the retained
//! budget's count). Time per get + push + drop, over both threads.
//!
//! `benches/instructions.rs burst` counts the same rounds
//! (`support/burst.rs`) on one thread; an atomic read-modify-write counts
//! there as one instruction however long it takes, so this bench times them.

mod support {
    pub mod burst;
    pub mod harness;
    pub mod threads;
    pub mod workers;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poolable::Poolable;
use support::burst::rounds;
use support::threads::bench_workers;
use support::workers::{Body, share};

#[derive(Poolable, Default)]
struct Left {
    buf: Vec<u8>,
}

#[derive(Poolable, Default)]
struct Right {
    buf: Vec<u8>,
}

fn bursts(c: &mut Criterion) {
    let mut g = c.benchmark_group("8_bursts_two_pools");
    g.throughput(Throughput::Elements(1));
    let bodies: Vec<Body<'_>> = vec![
        Box::new(|total| rounds::<Left>(share(total, 2, 0), |v, r| v.buf.push(r as u8))),
        Box::new(|total| rounds::<Right>(share(total, 2, 1), |v, r| v.buf.push(r as u8))),
    ];
    bench_workers(&mut g, BenchmarkId::new("poolable", "2 threads"), bodies);
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = bursts
}
criterion_main!(benches);
