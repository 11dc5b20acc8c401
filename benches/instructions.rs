//! Instructions per get+drop of workload 0 (get, push one byte, drop), for
//! one contender, counted under callgrind:
//!
//! ```sh
//! cargo bench -p poolable-benches --no-run   # builds target/release/deps/instructions-<hash>
//! valgrind --tool=callgrind --toggle-collect='*measured_ops*' \
//!     target/release/deps/instructions-<hash> poolable 100000
//! ```
//!
//! Instructions collected / N is the figure; `scripts/bench_table.py
//! --instructions` runs every contender and writes the table into RESULTS.md.
//! Without collection toggling, the difference of the totals of an N and a
//! 2N run, divided by N, gives the same figure. The ops run on the main
//! thread after a warm-up, so every cache is in its steady state.
//!
//! `burst` in place of a contender counts poolable's slow paths instead:
//! rounds of 32 gets of workload 0's `Obj`, a byte pushed into each, then
//! 32 drops, so a thread cache (8 values) spills half of itself to the
//! shards on returns and refills from them on gets. The figure is again per
//! get + push + drop; it is not one of RESULTS.md's rows.
//!
//! `buffer` counts workload 0's op through a `BufferPool` instead: get a
//! 512-byte buffer from its class, push one byte, drop. Also not a row.
//!
//! `far` counts workload 0's op on a pool made after 64 others are in use,
//! so that its key is past the per-thread mirror of the table
//! (`raw/table.rs`, `NEAR_LEN`): the path of a program with more pools in
//! use than that (a `BufferPool` takes one per class used). Also not a row.
//!
//! `large` counts a get, push one byte and drop from a pool whose one value
//! holds 1 MiB, more than a thread cache keeps: every get takes it from the
//! shards (directly, once a refill has found such a value) and every return
//! gives it back to them (workload 7's path with the cap off). Also not a
//! row.
//!
//! `handoff` counts a value taken on one thread and returned on another, as
//! in a producer/consumer pipeline (workload 6): this thread takes 64 of
//! workload 0's `Obj`, pushes a byte into each and sends them to a
//! persistent thread, which drops them; the next batch waits for that. The
//! gets lease the values in the producer's slots; the consumer hands each
//! one back to its slot (another thread's lease, so off the fast path),
//! and the producer's next get that finds its list empty takes up a
//! cache's worth of them, with no shard in between. Both threads' measured
//! functions are collected; the figure is per value, the channel's two
//! messages per batch included. Also not a row.
//!
//! `stream` counts the same handoff as workload 6 makes it: this thread
//! takes one `Obj` at a time, pushes a byte into it and sends it through a
//! channel of workload 6's bound (16) to a persistent thread, which drops
//! it. Per value, both sides and the channel included. Also not a row.
//!
//! `dyn-<contender>` counts a contender's op as the outside harness of issue
//! #25 times it: each op a call through `&dyn Fn()` of a closure that runs
//! one op (so the harness's own call, dispatch and stack frame are in every
//! figure, the same for each contender). Also not a row.
//!
//! Under `cargo bench` (no arguments but `--bench`) it only says how to use it.

mod support {
    pub mod burst;
    #[macro_use]
    pub mod contenders;
    pub mod obj;
    pub mod run;
}

use poolable::{BufferPool, Pool, Pooled};
use std::hint::black_box;
use std::sync::mpsc;
use support::burst::rounds;
use support::obj::{Obj, ObjContender, ObjContenders, push_byte};

/// Ops before the measured ones: fills the caches and finishes lazy set-up.
const WARM: u64 = 1_000;

/// The measured ops, in a function of their own so that callgrind can
/// collect exactly them (`--toggle-collect='*measured_ops*'`).
#[inline(never)]
fn measured_ops(contenders: &ObjContenders, contender: ObjContender, n: u64) {
    contenders.run(contender, n);
}

/// Rounds of `burst` (`support/burst.rs`) for `n` gets + pushes + drops.
#[inline(never)]
fn burst(n: u64) {
    rounds::<Obj>(n, |o, round| push_byte(&mut o.buf, round));
}

/// The measured rounds of `burst`, collected as `measured_ops` is.
#[inline(never)]
fn measured_ops_burst(n: u64) {
    burst(n);
}

/// The pool of `buffer`.
static BUFFERS: BufferPool = BufferPool::new();

/// `n` gets of a 512-byte buffer from [`BUFFERS`], a byte pushed into each.
#[inline(never)]
fn buffer(n: u64) {
    for i in 0..n {
        push_byte(&mut BUFFERS.get(512), i);
    }
}

/// The measured ops of `buffer`, collected as `measured_ops` is.
#[inline(never)]
fn measured_ops_buffer(n: u64) {
    buffer(n);
}

/// The pool of `large`: a size cap of 4 MiB, over what a thread cache
/// keeps (`LOCAL_CACHE_MAX_BYTES`).
static LARGE: Pool<Vec<u8>> = Pool::new().max_bytes(4 << 20);

/// `n` gets from [`LARGE`], whose one value holds 1 MiB (reserved on the
/// first get), a byte pushed into each: every get refills from the shards
/// and every return goes to them, as workload 7's large buffer does with
/// the cap off.
#[inline(never)]
fn large(n: u64) {
    for i in 0..n {
        let mut value = LARGE.get();
        value.reserve(1 << 20);
        push_byte(&mut value, i);
    }
}

/// The measured ops of `large`, collected as `measured_ops` is.
#[inline(never)]
fn measured_ops_large(n: u64) {
    large(n);
}

/// The pool of `far`: made, and used, after 64 others are (kept alive,
/// used once each), so that its key is past the table's mirror.
fn far_pool() -> &'static Pool<Obj> {
    static FAR: std::sync::OnceLock<Pool<Obj>> = std::sync::OnceLock::new();
    FAR.get_or_init(|| {
        let near: &'static [Pool<u8>] = Vec::leak((0..64).map(|_| Pool::new()).collect());
        for pool in near {
            drop(pool.get());
        }
        Pool::new()
    })
}

/// `n` gets of workload 0's `Obj` from [`far_pool`], a byte pushed into each.
#[inline(never)]
fn far(n: u64) {
    let pool = far_pool();
    for i in 0..n {
        push_byte(&mut pool.get().buf, i);
    }
}

/// The measured ops of `far`, collected as `measured_ops` is.
#[inline(never)]
fn measured_ops_far(n: u64) {
    far(n);
}

/// Values a `handoff` batch sends at once.
const HANDOFF_BATCH: u64 = 64;

/// A batch of `handoff`: guards of workload 0's `Obj`, sent to another thread.
type Batch = Vec<Pooled<'static, Obj>>;

/// [`WARM`] values, then `n` more (whole batches), taken here and returned
/// on a thread of their own (see `handoff` in the crate's docs): one
/// consumer for both, so the measured values meet its cache in its steady
/// state.
fn handoff(n: u64) {
    let (to, batches) = mpsc::sync_channel::<Batch>(1);
    let (done, acks) = mpsc::sync_channel::<()>(1);
    let consumer = std::thread::spawn(move || {
        for batch in batches {
            measured_ops_handoff_return(batch);
            if done.send(()).is_err() {
                break;
            }
        }
    });
    let batch = |_| {
        let taken = (0..HANDOFF_BATCH).map(|i| {
            let mut obj = Obj::pool().get();
            push_byte(&mut obj.buf, i);
            obj
        });
        to.send(taken.collect())
            .expect("the consumer runs until the sender is dropped");
        acks.recv().expect("the consumer acknowledges each batch");
    };
    (0..WARM.div_ceil(HANDOFF_BATCH)).for_each(batch);
    measured_ops_handoff_take(n.div_ceil(HANDOFF_BATCH), batch);
    drop(to);
    consumer.join().expect("the consumer does not panic");
}

/// Workload 6's channel bound (`benches/support/pipe.rs`).
const STREAM_BOUND: usize = 16;

/// [`WARM`] values, then `n` more, taken here one at a time and sent
/// through a channel of [`STREAM_BOUND`] to a thread that returns them.
fn stream(n: u64) {
    let (to, values) = mpsc::sync_channel::<Pooled<'static, Obj>>(STREAM_BOUND);
    let consumer =
        std::thread::spawn(move || values.into_iter().for_each(measured_ops_stream_return));
    let send = |i| {
        let mut obj = Obj::pool().get();
        push_byte(&mut obj.buf, i);
        to.send(obj)
            .expect("the consumer runs until the sender is dropped");
    };
    (0..WARM).for_each(send);
    measured_ops_stream_take(n, send);
    drop(to);
    consumer.join().expect("the consumer does not panic");
}

/// The measured values of `stream` on the producer's side.
#[inline(never)]
fn measured_ops_stream_take(n: u64, send: impl FnMut(u64)) {
    (0..n).for_each(send);
}

/// One return of `stream` on the consumer's thread (the warm-up's too, as
/// in `handoff`).
#[inline(never)]
fn measured_ops_stream_return(value: Pooled<'static, Obj>) {
    drop(value);
}

/// The measured batches of `handoff` on the producer's side.
#[inline(never)]
fn measured_ops_handoff_take(batches: u64, batch: impl FnMut(u64)) {
    (0..batches).for_each(batch);
}

/// One batch's returns on the consumer's thread, collected as
/// `measured_ops` is (the warm-up's too: a 2N and an N run differ by N
/// values' returns).
#[inline(never)]
fn measured_ops_handoff_return(batch: Batch) {
    drop(batch);
}

/// `n` calls of `op` through a reference the compiler cannot see through,
/// collected as `measured_ops` is.
#[inline(never)]
fn measured_ops_dyn(op: &dyn Fn(), n: u64) {
    for _ in 0..n {
        black_box(op)();
    }
}

/// `n` ops of one mode.
type Ops = fn(u64);

/// The mode of poolable's own with this id, other than workload 0: its
/// ops, and the same collected as `measured_ops` is.
fn poolable_mode(id: &str) -> Option<(Ops, Ops)> {
    match id {
        "burst" => Some((burst, measured_ops_burst)),
        "buffer" => Some((buffer, measured_ops_buffer)),
        "far" => Some((far, measured_ops_far)),
        "large" => Some((large, measured_ops_large)),
        // Its warm-up runs in `handoff`, on the consumer that the measured
        // values then meet.
        "handoff" => Some((|_| {}, handoff)),
        "stream" => Some((|_| {}, stream)),
        _ => None,
    }
}

/// The contender with this id.
fn from_id(id: &str) -> Option<ObjContender> {
    ObjContender::ALL.into_iter().find(|c| c.id() == id)
}

fn usage() -> String {
    let ids: Vec<_> = ObjContender::ALL.iter().map(|c| c.id()).collect();
    format!(
        "usage: instructions <contender | dyn-<contender> | burst | buffer | far | large | handoff | stream> <n>   (contenders: {})\n\
         runs {WARM} warm-up ops, then n ops of workload 0 in `measured_ops`; \
         see scripts/bench_table.py --instructions",
        ids.join(", ")
    )
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [] => println!("{}", usage()),
        [list] if list == "--list" => {
            for c in ObjContender::ALL {
                println!("{}", c.id());
            }
        }
        [id, n] if let Some((warm, measured)) = poolable_mode(id) => {
            let Ok(n) = n.parse::<u64>() else {
                eprintln!("{}", usage());
                std::process::exit(2);
            };
            warm(WARM);
            measured(n);
        }
        [id, n] if let Some(id) = id.strip_prefix("dyn-") => {
            let (Some(contender), Ok(n)) = (from_id(id), n.parse::<u64>()) else {
                eprintln!("{}", usage());
                std::process::exit(2);
            };
            let contenders = ObjContenders::default();
            let op = || contenders.run(contender, 1);
            for _ in 0..WARM {
                black_box(&op as &dyn Fn())();
            }
            measured_ops_dyn(&op, n);
        }
        [id, n] => {
            let (Some(contender), Ok(n)) = (from_id(id), n.parse::<u64>()) else {
                eprintln!("{}", usage());
                std::process::exit(2);
            };
            let contenders = ObjContenders::default();
            contenders.run(contender, WARM);
            measured_ops(&contenders, contender, n);
        }
        _ => {
            eprintln!("{}", usage());
            std::process::exit(2);
        }
    }
}
