//! Workload 7: mixed sizes. Each request takes a buffer and makes it 2 KiB,
//! except one in 100 that grows it to 1 MiB; with the size cap on (64 KiB,
//! for the contenders that have one) and off. Memory figures come from
//! `alloc_count`. `buffer-pool` is a `BufferPool` asked for the length each
//! request needs (64 KiB classes at most with the cap on, 1 MiB with it off).
//! `auto-cap` is a `Pool<Vec<u8>>` with an adaptive cap under a 1 MiB
//! ceiling (`max_bytes_auto`), in the capped column: it must find a cap
//! that drops the big buffers by itself.

#[path = "support/mod.rs"]
pub mod support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use poolable::{BufferPool, Pool};
use support::{CAP, Contenders, Kind, NO_CAP, work};

static CAPPED: Pool<Vec<u8>> = Pool::new();
static UNCAPPED: Pool<Vec<u8>> = Pool::new().max_bytes(NO_CAP);
static CLASSES_CAPPED: BufferPool = BufferPool::new();
static CLASSES_UNCAPPED: BufferPool = BufferPool::new().max_bytes(work::BIG_LEN);
static AUTO: Pool<Vec<u8>> = Pool::new().max_bytes_auto().max_bytes(work::BIG_LEN);

/// Bench the `BufferPool` contender under `param`.
fn buffer_pool(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    param: &str,
    bufs: &'static BufferPool,
) {
    g.bench_function(criterion::BenchmarkId::new("buffer-pool", param), |b| {
        b.iter_custom(|n| {
            support::timed(|| {
                for i in 0..n {
                    work::mixed(&mut bufs.get(work::mixed_len(i)), i);
                }
            })
        })
    });
}

fn mixed(c: &mut Criterion) {
    let mut g = c.benchmark_group("7_mixed_sizes");
    g.throughput(Throughput::Elements(1));
    {
        let peers = Contenders::new(&CAPPED, Vec::new, CAP);
        let kinds: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|&k| k.has_cap() || k == Kind::Plain)
            .collect();
        support::bench_kinds(&mut g, "cap 64 KiB", &peers, &kinds, work::mixed);
        buffer_pool(&mut g, "cap 64 KiB", &CLASSES_CAPPED);
        g.bench_function(criterion::BenchmarkId::new("auto-cap", "cap 64 KiB"), |b| {
            b.iter_custom(|n| {
                support::timed(|| {
                    for i in 0..n {
                        work::mixed(&mut AUTO.get(), i);
                    }
                })
            })
        });
    }
    {
        let peers = Contenders::new(&UNCAPPED, Vec::new, NO_CAP);
        support::bench_kinds(&mut g, "cap off", &peers, &Kind::ALL, work::mixed);
        buffer_pool(&mut g, "cap off", &CLASSES_UNCAPPED);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = mixed
}
criterion_main!(benches);
