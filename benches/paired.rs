//! Paired ratios for the speed issue's single-thread targets: two contenders
//! on one workload, timed in alternation in one process.
//!
//! Criterion times each contender once, one after the other, for about two
//! seconds each. On a shared machine the speed changes between those
//! windows, and a ratio of two of them moves with it: poolable ÷ baseline of
//! workload 0 read 1.71×, 1.71× and 2.09× in three full runs of one day, and
//! workload 5 read 1.2–1.35× where callgrind counts 4% more instructions.
//! Here each round times a block of one contender and then a block of the
//! other (the order alternates between rounds), and the figure is the median
//! over the rounds of the ratio within a round: a slow phase of the host
//! slows both sides of the same round.
//!
//! Workload 0 on one thread is also paired against every peer pool
//! (peer ÷ poolable), for the "best Rust peer" target; against the fastest
//! of them, `LinearObjectPool`, again with each op a call through
//! `&dyn Fn()` (as the outside harness of issue #25 times it), and with
//! poolable's values boxed.
//!
//! The same pairing measures what storing values inline costs against
//! pooling `Box<T>` (the other half of target 8), for types of several sizes
//! and shapes: the guide's advice on when to pool `Box<T>` rests on it.
//!
//! Writes `target/criterion/paired.json`; `scripts/bench_table.py` puts each
//! ratio beside criterion's in the targets section of `RESULTS.md`, and the
//! inline/boxed pairs in a table of their own.

#[allow(
    dead_code,
    reason = "a few contenders of each workload's files: the other benches report what none uses"
)]
mod support {
    #[macro_use]
    pub mod contenders;
    pub mod buffers;
    pub mod obj;
    pub mod output;
    pub mod request;
    pub mod run;
    pub mod scratch;
    pub mod small;
}

use poolable::{Pool, Poolable, Reset};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};
use support::buffers::{build, encode, scratch};
use support::contenders::{CAP, Contenders, Item, Kind};
use support::obj::{Obj, ObjContender, ObjContenders, push_byte};
use support::request::{RecycledRequest, Request, request, request_recycled};
use support::small::{Small, small};

/// The group of the pair of workload 0 pooled as `Box<Obj>` against
/// lockfree-object-pool's `LinearObjectPool`.
const BOXED_GROUP: &str = "8_boxed_vs_linear";

/// The group of workload 0's pair of `LinearObjectPool` and poolable with
/// one op per call through `&dyn Fn()`.
const DYN_GROUP: &str = "0_obj_dyn_call";

/// `n` ops, each a call of `op` through a reference the compiler cannot
/// see through.
fn one_call_per_op(op: &dyn Fn()) -> impl FnMut(u64) + '_ {
    move |n| {
        for _ in 0..n {
            black_box(op)();
        }
    }
}

/// Rounds per pair; the figure is their median.
const ROUNDS: usize = 21;
/// About how long one contender's block of one round runs.
const BLOCK: Duration = Duration::from_millis(20);

static SCRATCH: Pool<Vec<u8>> = Pool::new();
static BUILDER: Pool<Vec<u8>> = Pool::new();
static RECORD: Pool<Vec<u8>> = Pool::new();

/// `$name { buf: Vec<u8>, meta: [u64; $n] }`: a buffer and `$n` words of
/// plain data, `size_of` = 24 + 8 × `$n`.
macro_rules! sized {
    ($name:ident, $n:literal) => {
        #[derive(Poolable)]
        struct $name {
            buf: Vec<u8>,
            meta: [u64; $n],
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    buf: Vec::new(),
                    meta: [0; $n],
                }
            }
        }

        impl Touch for $name {
            fn touch(&mut self, i: u64) {
                push_byte(&mut self.buf, i);
                self.meta[i as usize % $n] = i;
                black_box(&mut *self);
            }
        }
    };
}

/// The work of an inline/boxed pair on its type.
trait Touch {
    fn touch(&mut self, i: u64);
}

sized!(Words64, 5);
sized!(Words256, 29);
sized!(Words1k, 125);

/// One pair's figures: medians over the rounds.
struct Paired {
    /// The criterion group and parameter the pair's contenders are in.
    group: &'static str,
    param: &'static str,
    /// Numerator and denominator: criterion function ids.
    num: &'static str,
    den: &'static str,
    ratio: f64,
    num_ns: f64,
    den_ns: f64,
}

/// Nanoseconds per op of `n` ops of `ops`.
fn ns_per_op(ops: &mut impl FnMut(u64), n: u64) -> f64 {
    let start = Instant::now();
    ops(n);
    start.elapsed().as_nanos() as f64 / n as f64
}

/// How many ops of `ops` take about [`BLOCK`] (after a warm-up).
fn block_ops(ops: &mut impl FnMut(u64)) -> u64 {
    let mut n = 1_000;
    loop {
        let start = Instant::now();
        ops(n);
        let took = start.elapsed();
        if took >= BLOCK / 4 {
            let per_op = took.as_secs_f64() / n as f64;
            return ((BLOCK.as_secs_f64() / per_op) as u64).max(1);
        }
        n *= 4;
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `num` against `den` (each runs `n` ops when called with `n`), in
/// [`ROUNDS`] rounds.
fn pair(
    (group, param): (&'static str, &'static str),
    (num, mut num_ops): (&'static str, impl FnMut(u64)),
    (den, mut den_ops): (&'static str, impl FnMut(u64)),
) -> Paired {
    let (n_num, n_den) = (block_ops(&mut num_ops), block_ops(&mut den_ops));
    let (mut ratios, mut nums, mut dens) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (a, b) = if round % 2 == 0 {
            let a = ns_per_op(&mut num_ops, n_num);
            (a, ns_per_op(&mut den_ops, n_den))
        } else {
            let b = ns_per_op(&mut den_ops, n_den);
            (ns_per_op(&mut num_ops, n_num), b)
        };
        ratios.push(a / b);
        nums.push(a);
        dens.push(b);
    }
    let p = Paired {
        group,
        param,
        num,
        den,
        ratio: median(ratios),
        num_ns: median(nums),
        den_ns: median(dens),
    };
    println!(
        "{group:<20} {param:<14} {num:>17} ÷ {den:<12} {:6.3}×   ({:.1} ns ÷ {:.1} ns)",
        p.ratio, p.num_ns, p.den_ns
    );
    p
}

/// poolable ÷ the baseline on workload `group`, run by `c` with `f`.
fn against_baseline<T: Item>(
    at: (&'static str, &'static str),
    c: &Contenders<T>,
    f: impl Fn(&mut T, u64) + Copy,
) -> Paired {
    pair(
        at,
        (Kind::Poolable.id(), |n| c.run(Kind::Poolable, n, f)),
        (Kind::ThreadLocal.id(), |n| c.run(Kind::ThreadLocal, n, f)),
    )
}

fn main() {
    // `cargo bench` passes `--bench`; a name filter is not supported.
    let obj = &ObjContenders::default();
    let w0 = ("0_obj_get_push_drop", "1 thread");
    let run = |c: ObjContender| (c.id(), move |n| obj.run(c, n));
    let poolable = ObjContender::On(Kind::Poolable);
    let mut pairs = vec![
        pair(w0, run(poolable), run(ObjContender::On(Kind::ThreadLocal))),
        pair(w0, run(poolable), run(ObjContender::Floor)),
        pair(w0, run(ObjContender::StaticPool), run(poolable)),
        pair(w0, run(ObjContender::Generic), run(poolable)),
    ];
    // Every Rust peer against poolable on one thread: criterion's windows
    // once put lockfree-object-pool's `LinearObjectPool` at 4.4× the
    // baseline where callgrind counts it at 59 instructions per op against
    // poolable's 120 (issue #25, item 3); alternation settles which is
    // faster.
    for peer in ObjContender::ALL {
        if let ObjContender::On(kind) = peer
            && !matches!(kind, Kind::Poolable | Kind::ThreadLocal | Kind::Plain)
        {
            pairs.push(pair(w0, run(peer), run(poolable)));
        }
    }

    // The same pair with each op a call through `&dyn Fn()`, as the
    // outside harness of issue #25 times it: no loop for the compiler to
    // work across.
    let linear_op = || obj.run(ObjContender::On(Kind::LfLinear), 1);
    let poolable_op = || obj.run(poolable, 1);
    pairs.push(pair(
        (DYN_GROUP, "Obj (1 thread)"),
        ("lockfree-linear", one_call_per_op(&linear_op)),
        ("poolable", one_call_per_op(&poolable_op)),
    ));

    let scratch_c = Contenders::new(&SCRATCH, Vec::new, CAP);
    pairs.push(against_baseline(
        ("2_scratch_2k", "2 KiB"),
        &scratch_c,
        scratch,
    ));
    let builder_c = Contenders::new(&BUILDER, Vec::new, CAP);
    pairs.push(against_baseline(
        ("3_builder_4k", "4 KiB"),
        &builder_c,
        build,
    ));
    let record_c = Contenders::new(&RECORD, Vec::new, CAP);
    pairs.push(against_baseline(
        ("4_record_encode", "1 KiB record"),
        &record_c,
        encode,
    ));
    let request_c = Contenders::new(Request::pool(), Request::default, CAP);
    pairs.push(against_baseline(
        ("5_request", "request"),
        &request_c,
        request,
    ));
    let recycled_c = Contenders::new(RecycledRequest::pool(), RecycledRequest::default, CAP);
    pairs.push(against_baseline(
        ("5_request", "recycled"),
        &recycled_c,
        request_recycled,
    ));

    pairs.push(inline_vs_boxed::<Obj>("Obj", |o, i| {
        push_byte(&mut o.buf, i)
    }));
    // Workload 0 with poolable's values boxed against the fastest peer on
    // one thread, which also hands out a pointer to a value that stays put:
    // what storing values inline costs against that peer (issue #25, item 3).
    let boxed_obj: Pool<Box<Obj>> = Pool::new();
    pairs.push(pair(
        (BOXED_GROUP, "Obj (1 thread)"),
        run(ObjContender::On(Kind::LfLinear)),
        ("poolable-boxed", |n| {
            for i in 0..n {
                push_byte(&mut boxed_obj.get().buf, i);
            }
        }),
    ));
    pairs.push(inline_vs_boxed::<Small>("Small", small));
    pairs.push(inline_vs_boxed::<Words64>("Words64", Touch::touch));
    pairs.push(inline_vs_boxed::<Request>("Request", request));
    pairs.push(inline_vs_boxed::<RecycledRequest>(
        "RecycledRequest",
        request_recycled,
    ));
    pairs.push(inline_vs_boxed::<Words256>("Words256", Touch::touch));
    pairs.push(inline_vs_boxed::<Words1k>("Words1k", Touch::touch));

    write_json(&pairs);
}

/// A derived type pooled as it is (stored inline: moved in and out of the
/// thread cache) against the same type pooled as `Box<T>` (a pointer moves),
/// `f` on it per op. The parameter is `name (size_of::<T>() B)`.
fn inline_vs_boxed<T: Poolable + Reset + Default + Send + 'static>(
    name: &str,
    f: fn(&mut T, u64),
) -> Paired {
    let param = Box::leak(format!("{name} ({} B)", size_of::<T>()).into_boxed_str());
    let boxed: &'static Pool<Box<T>> = Box::leak(Box::new(Pool::new()));
    pair(
        ("8_inline_vs_box", param),
        ("inline", |n| {
            for i in 0..n {
                f(&mut T::pool().get(), i);
            }
        }),
        ("boxed", |n| {
            for i in 0..n {
                f(&mut boxed.get(), i);
            }
        }),
    )
}

fn write_json(pairs: &[Paired]) {
    let mut json = format!(
        "{{\n  \"rounds\": {ROUNDS},\n  \"block_ms\": {},\n  \"pairs\": [\n",
        BLOCK.as_millis()
    );
    for (i, p) in pairs.iter().enumerate() {
        let comma = if i + 1 < pairs.len() { "," } else { "" };
        let _ = writeln!(
            json,
            "    {{\"group\": \"{}\", \"param\": \"{}\", \"num\": \"{}\", \"den\": \"{}\", \
             \"ratio\": {:.4}, \"num_ns\": {:.3}, \"den_ns\": {:.3}}}{comma}",
            p.group, p.param, p.num, p.den, p.ratio, p.num_ns, p.den_ns
        );
    }
    json.push_str("  ]\n}\n");
    support::output::write_json("paired.json", &json);
}
