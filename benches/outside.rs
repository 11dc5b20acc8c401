//! The outside harness of issue #25, item 3, rebuilt from its description
//! and sharing no workload code, pool or state with the other benches (of
//! `support/` only where its JSON goes): each peer is set up as its README
//! shows, each with a bare `clear()` as the reset, in a pool of its own that
//! no other workload has touched.
//!
//! The op is workload 0's: get an `Obj { buf: Vec<u8> }`, push one byte,
//! drop. For 1 and 2 threads, each round runs every contender once, in an
//! order that rotates from round to round, on persistent threads:
//!
//! - each thread runs 1,000 warm-up ops, then waits at a barrier;
//! - the barrier releases all of them at once, each runs 2 million ops,
//!   each a call through `&dyn Fn()`, and a second barrier ends the timing;
//! - the figure is the wall time between the two barriers ÷ all ops of all
//!   threads, and the table shows the median of 7 rounds, with the range.
//!
//! ```sh
//! cargo bench -p poolable-benches --bench outside
//! ```
//!
//! Go's `sync.Pool` on the same op is `benches/go` (`BenchmarkObj`), run
//! beside it by `scripts/bench_table.py --go`. Writes
//! `target/criterion/outside.json`, which `scripts/bench_table.py` puts in
//! RESULTS.md beside Go's figures.

mod support {
    pub mod output;
}

use poolable::Poolable;
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, LazyLock, Mutex};
use std::time::Instant;

#[derive(Poolable, Default)]
struct Obj {
    buf: Vec<u8>,
}

const WARM_UP: u64 = 1_000;
const OPS: u64 = 2_000_000;
const ROUNDS: usize = 7;

/// The work each contender does with its value.
#[inline(never)]
fn push_byte(buf: &mut Vec<u8>) {
    buf.push(1);
    black_box(buf);
}

thread_local! {
    /// The floor's slot: null, or a value from `Box::into_raw` that the slot
    /// owns (left to leak when the thread exits: one per thread).
    static FLOOR: Cell<*mut Obj> = const { Cell::new(std::ptr::null_mut()) };
}

/// A `thread_local!` slot: take the pointer out, use the value, clear it,
/// put the pointer back. Nothing hands a value out and back with less work.
fn floor() {
    let mut value = FLOOR.with(|slot| slot.replace(std::ptr::null_mut()));
    if value.is_null() {
        value = Box::into_raw(Box::default());
    }
    // SAFETY: `value` came from `Box::into_raw` and only this thread has it:
    // it was taken out of this thread's slot, or just made.
    let obj = unsafe { &mut *value };
    push_byte(&mut obj.buf);
    obj.buf.clear();
    let old = FLOOR.with(|slot| slot.replace(value));
    if !old.is_null() {
        // SAFETY: `old` was put in the slot by this function, from `Box::into_raw`.
        drop(unsafe { Box::from_raw(old) });
    }
}

fn poolable() {
    push_byte(&mut Obj::pool().get().buf);
}

static LINEAR: LazyLock<lockfree_object_pool::LinearObjectPool<Obj>> = LazyLock::new(|| {
    lockfree_object_pool::LinearObjectPool::new(Obj::default, |o: &mut Obj| o.buf.clear())
});

fn linear() {
    push_byte(&mut LINEAR.pull().buf);
}

struct OpoolAlloc;

impl opool::PoolAllocator<Obj> for OpoolAlloc {
    fn allocate(&self) -> Obj {
        Obj::default()
    }
    fn reset(&self, obj: &mut Obj) {
        obj.buf.clear();
    }
}

static OPOOL: LazyLock<opool::Pool<OpoolAlloc, Obj>> =
    LazyLock::new(|| opool::Pool::new(64, OpoolAlloc));

fn opool() {
    push_byte(&mut OPOOL.get().buf);
}

static OBJECT_POOL: LazyLock<object_pool::Pool<Obj>> =
    LazyLock::new(|| object_pool::Pool::new(64, Obj::default));

/// object-pool has no reset hook: its README clears after `pull`.
fn object_pool() {
    let mut obj = OBJECT_POOL.pull(Obj::default);
    obj.buf.clear();
    push_byte(&mut obj.buf);
}

impl poolshark::Poolable for Obj {
    fn empty() -> Self {
        Obj::default()
    }
    fn reset(&mut self) {
        self.buf.clear();
    }
    fn capacity(&self) -> usize {
        self.buf.capacity() + 1
    }
}

// SAFETY: the discriminant is a location id unique to this impl, and `Obj`
// has no type parameters, so no other type shares its local pool.
unsafe impl poolshark::IsoPoolable for Obj {
    const DISCRIMINANT: Option<poolshark::Discriminant> =
        poolshark::Discriminant::new(poolshark::location_id!());
}

fn poolshark_local() {
    push_byte(&mut poolshark::local::LPooled::<Obj>::take().buf);
}

/// Where poolable and Linear are in [`CONTENDERS`], for the ratio printed.
const POOLABLE_AT: usize = 1;
const LINEAR_AT: usize = 2;

const CONTENDERS: [(&str, fn()); 6] = [
    ("thread_local! slot (floor)", floor),
    ("poolable", poolable),
    ("lockfree-object-pool Linear", linear),
    ("opool", opool),
    ("object-pool", object_pool),
    ("poolshark local", poolshark_local),
];

/// Runs `ops` calls of `op` through `&dyn Fn()`, opaque to the optimiser.
#[inline(never)]
fn run(op: &dyn Fn(), ops: u64) {
    let op = black_box(op);
    for _ in 0..ops {
        op();
    }
}

/// Persistent workers: the contender to run next (an index into
/// `CONTENDERS`; `usize::MAX` stops them), the barrier they meet at three
/// times a run, and when each of them started and ended its timed ops.
struct Workers {
    threads: usize,
    next: Arc<AtomicUsize>,
    barrier: Arc<Barrier>,
    spans: Arc<Mutex<Vec<(Instant, Instant)>>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Workers {
    fn start(threads: usize) -> Workers {
        let next = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(threads + 1));
        let spans = Arc::new(Mutex::new(Vec::new()));
        let handles = (0..threads)
            .map(|_| {
                let (next, barrier, spans) =
                    (Arc::clone(&next), Arc::clone(&barrier), Arc::clone(&spans));
                std::thread::spawn(move || {
                    loop {
                        barrier.wait(); // a contender is chosen
                        let Some(&(_, op)) = CONTENDERS.get(next.load(Ordering::Acquire)) else {
                            return;
                        };
                        let op: &dyn Fn() = &op;
                        run(op, WARM_UP);
                        barrier.wait(); // released together
                        let start = Instant::now();
                        run(op, OPS);
                        let end = Instant::now();
                        spans.lock().unwrap().push((start, end));
                        barrier.wait(); // all done
                    }
                })
            })
            .collect();
        Workers {
            threads,
            next,
            barrier,
            spans,
            handles,
        }
    }

    /// Nanoseconds per op of one run of contender `index`: wall time from
    /// the first worker's start to the last one's end, as the workers read
    /// their clocks (not this thread, which may wait for a core), ÷ the ops
    /// of all threads.
    fn time(&self, index: usize) -> f64 {
        self.next.store(index, Ordering::Release);
        self.barrier.wait();
        self.barrier.wait();
        self.barrier.wait();
        let spans = std::mem::take(&mut *self.spans.lock().unwrap());
        let start = spans.iter().map(|s| s.0).min().expect("a span per worker");
        let end = spans.iter().map(|s| s.1).max().expect("a span per worker");
        (end - start).as_nanos() as f64 / (OPS * self.threads as u64) as f64
    }

    fn stop(self) {
        self.next.store(usize::MAX, Ordering::Release);
        self.barrier.wait();
        for handle in self.handles {
            handle.join().expect("a worker panicked");
        }
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let threads = [1, 2];
    let mut times = vec![vec![Vec::new(); CONTENDERS.len()]; threads.len()];
    for (t, &n) in threads.iter().enumerate() {
        let workers = Workers::start(n);
        for round in 0..ROUNDS {
            for k in 0..CONTENDERS.len() {
                let index = (k + round) % CONTENDERS.len();
                times[t][index].push(workers.time(index));
            }
        }
        workers.stop();
    }

    println!("| contender | 1 thread | 2 threads |");
    println!("|---|---|---|");
    for (index, (name, _)) in CONTENDERS.iter().enumerate() {
        let cells: Vec<String> = times
            .iter()
            .map(|per_contender| {
                let xs = &per_contender[index];
                let (lo, hi) = xs
                    .iter()
                    .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                format!("{:.1} ns ({lo:.1}-{hi:.1})", median(xs.clone()))
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    let linear_over_poolable =
        |t: usize| median(times[t][LINEAR_AT].clone()) / median(times[t][POOLABLE_AT].clone());
    println!(
        "\nLinear ÷ poolable: {:.2}× on 1 thread, {:.2}× on 2 (medians of {ROUNDS} rounds, {OPS} ops per thread)",
        linear_over_poolable(0),
        linear_over_poolable(1)
    );

    let rows: Vec<String> = CONTENDERS
        .iter()
        .enumerate()
        .flat_map(|(index, (name, _))| {
            threads.iter().zip(&times).map(move |(n, per_contender)| {
                let runs: Vec<String> = per_contender[index].iter().map(|x| format!("{x:.3}")).collect();
                format!(
                    "{{\"contender\": \"{name}\", \"threads\": {n}, \"median_ns\": {:.3}, \"runs_ns\": [{}]}}",
                    median(per_contender[index].clone()),
                    runs.join(", ")
                )
            })
        })
        .collect();
    let json = format!(
        "{{\"rounds\": {ROUNDS}, \"ops_per_thread\": {OPS}, \"warm_up\": {WARM_UP}, \"rows\": [\n  {}\n]}}\n",
        rows.join(",\n  ")
    );
    support::output::write_json("outside.json", &json);
}
