//! Workload 8: bursts on two pools at once. Each of two persistent threads
//! takes 32 values of its own pool's type, pushes a byte into each and
//! drops them all, round after round, so every round spills its thread
//! cache into the shards and refills it from them: poolable's slow paths,
//! on two pools that share nothing but the runtime's globals (the retained
//! budget's count). Time per get + push + drop, over both threads.
//!
//! `benches/instructions.rs burst` counts the same rounds' instructions on
//! one thread; an atomic read-modify-write counts there as one instruction
//! however long it takes, so this bench times them.

mod support {
    pub mod harness;
    pub mod threads;
    pub mod workers;
}

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poolable::Poolable;
use support::threads::bench_workers;
use support::workers::{Body, share};

/// Values a round holds at once: four thread caches' worth.
const BURST: u64 = 32;

#[derive(Poolable, Default)]
struct Left {
    buf: Vec<u8>,
}

#[derive(Poolable, Default)]
struct Right {
    buf: Vec<u8>,
}

/// `n` gets + pushes + drops of `T`, in rounds of `BURST`.
fn rounds<T: Poolable + Default>(n: u64, buf: fn(&mut T) -> &mut Vec<u8>) {
    let mut held = Vec::with_capacity(BURST as usize);
    for round in 0..n.div_ceil(BURST) {
        held.extend((0..BURST).map(|_| T::pool().get()));
        for guard in &mut held {
            buf(guard).push(round as u8);
        }
        held.clear();
    }
}

fn bursts(c: &mut Criterion) {
    let mut g = c.benchmark_group("8_bursts_two_pools");
    g.throughput(Throughput::Elements(1));
    let bodies: Vec<Body<'_>> = vec![
        Box::new(|total| rounds::<Left>(share(total, 2, 0), |v| &mut v.buf)),
        Box::new(|total| rounds::<Right>(share(total, 2, 1), |v| &mut v.buf)),
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
