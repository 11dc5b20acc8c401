//! Workload 7: mixed sizes. Each request takes a buffer and makes it 2 KiB,
//! except one in 100 that grows it to 1 MiB; with the size cap on (64 KiB,
//! for the contenders that have one) and off. Memory figures come from
//! `alloc_count`. `buffer-pool` is a `BufferPool` asked for the length each
//! request needs (64 KiB classes at most with the cap on, 1 MiB with it off).
//! `auto-cap` is a `Pool<Vec<u8>>` with an adaptive cap under a 1 MiB
//! ceiling (`max_bytes_auto`), in the capped column: it must find a cap
//! that drops the big buffers by itself.

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod harness;
    pub mod mixed;
    pub mod run;
    pub mod scratch;
    pub mod timing;
}

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use poolable::{BufferPool, Pool};
use support::contenders::{CAP, Contenders, Kind};
use support::mixed::{BIG_LEN, NO_CAP, mixed, mixed_len};
use support::timing::{bench_kinds, timed};

static CAPPED: Pool<Vec<u8>> = Pool::new();
static UNCAPPED: Pool<Vec<u8>> = Pool::new().max_bytes(NO_CAP);
static CLASSES_CAPPED: BufferPool = BufferPool::new();
static CLASSES_UNCAPPED: BufferPool = BufferPool::new().max_bytes(BIG_LEN);
static AUTO: Pool<Vec<u8>> = Pool::new().max_bytes_auto().max_bytes(BIG_LEN);

/// Bench the `BufferPool` contender under `param`.
fn buffer_pool(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    param: &str,
    bufs: &'static BufferPool,
) {
    g.bench_function(criterion::BenchmarkId::new("buffer-pool", param), |b| {
        b.iter_custom(|n| {
            timed(|| {
                for i in 0..n {
                    mixed(&mut bufs.get(mixed_len(i)), i);
                }
            })
        })
    });
}

fn mixed_sizes(c: &mut Criterion) {
    let mut g = c.benchmark_group("7_mixed_sizes");
    g.throughput(Throughput::Elements(1));
    {
        let peers = Contenders::new(&CAPPED, Vec::new, CAP);
        let kinds: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|&k| k.has_cap() || k == Kind::Plain)
            .collect();
        bench_kinds(&mut g, "cap 64 KiB", &peers, &kinds, mixed);
        buffer_pool(&mut g, "cap 64 KiB", &CLASSES_CAPPED);
        g.bench_function(criterion::BenchmarkId::new("auto-cap", "cap 64 KiB"), |b| {
            b.iter_custom(|n| {
                timed(|| {
                    for i in 0..n {
                        mixed(&mut AUTO.get(), i);
                    }
                })
            })
        });
    }
    {
        let peers = Contenders::new(&UNCAPPED, Vec::new, NO_CAP);
        bench_kinds(&mut g, "cap off", &peers, &Kind::ALL, mixed);
        buffer_pool(&mut g, "cap off", &CLASSES_UNCAPPED);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = mixed_sizes
}
criterion_main!(benches);
