//! Criterion benches on persistent worker threads (`workers.rs`).

use super::workers::{Body, share, with_workers};

/// Bench `bodies` under `id` on persistent workers (one per body): each
/// criterion iteration is one op of the run's total, so criterion's figure
/// is wall time / all ops of all threads.
pub fn bench_workers(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: criterion::BenchmarkId,
    bodies: Vec<Body<'_>>,
) {
    with_workers(bodies, |w| {
        group.bench_function(id, |b| b.iter_custom(|n| w.run(n)));
    });
}

/// `threads` worker bodies that each run their share of `op(n)` (`n` ops on
/// the calling thread).
#[allow(
    dead_code,
    reason = "obj.rs and small.rs; pipe.rs brings bodies of its own"
)]
pub fn split<'a>(threads: usize, op: &'a (dyn Fn(u64) + Sync)) -> Vec<Body<'a>> {
    (0..threads)
        .map(|t| Box::new(move |total| op(share(total, threads, t))) as Body<'a>)
        .collect()
}
