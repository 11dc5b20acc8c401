//! Single-threaded criterion benches: every op on the bench's own thread,
//! timed by criterion's `iter_custom`.

use super::contenders::{Contenders, Item, Kind};
use std::time::{Duration, Instant};

/// Time `body` on the calling thread.
#[inline]
pub fn timed(body: impl FnOnce()) -> Duration {
    let start = Instant::now();
    body();
    start.elapsed()
}

/// Bench `kinds` of `c` in `group` under `BenchmarkId(kind.id(), param)`,
/// single-threaded.
pub fn bench_kinds<T: Item>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    param: &str,
    c: &Contenders<T>,
    kinds: &[Kind],
    f: impl Fn(&mut T, u64) + Copy,
) {
    for &kind in kinds {
        group.bench_function(criterion::BenchmarkId::new(kind.id(), param), |b| {
            b.iter_custom(|n| timed(|| c.run(kind, n, f)))
        });
    }
}
