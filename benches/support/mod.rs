//! Shared code of the benchmark suite: the workload types, every contender
//! behind one interface, and the timing helpers.
//!
//! Each bench binary includes this file with
//! `#[path = "support/mod.rs"] pub mod support;` and uses a different part of
//! it. The module is `pub` because it is shared code, like a library: an item
//! one binary leaves unused is not dead code. (Dead code is code that every
//! binary leaves unused; to find it, make the module private in each bench and
//! look for items warned about in all of them.)

pub mod contender;

use contender::{
    Boxed, Contender, Floor, LfLinear, LfSpinLock, ObjectPool, Opool, OpoolAlloc, Plain,
    PoolsharkGlobal, PoolsharkLocal, ShardedSlab, ThreadLocal,
};
use lockfree_object_pool::{LinearObjectPool, SpinLockObjectPool};
use poolable::{Pool, Poolable, RecycleOption, RecycleVec, Reset};
use std::cell::Cell;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::sync_channel;
use std::thread::LocalKey;
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ settings

/// Criterion settings of the suite (see `benches/RESULTS.md`). They are set on
/// the `Criterion` value rather than on each group so that the command-line
/// flags (`-- --warm-up-time 0.2 --measurement-time 0.5`) still override them
/// for a quick run.
pub const WARM_UP: Duration = Duration::from_millis(500);
pub const MEASUREMENT: Duration = Duration::from_millis(1500);
pub const SAMPLES: usize = 20;
pub const RESAMPLES: usize = 10_000;

/// The size cap used for every contender that has one: poolable's default.
pub const CAP: usize = poolable::DEFAULT_MAX_BYTES;
/// "No cap".
pub const NO_CAP: usize = usize::MAX;
/// Retention bound of the peers that take one (opool, poolshark): poolable's
/// default on a 2-CPU machine.
pub const RETAIN: usize = 64;
/// Bound of the producer/consumer channels.
pub const CHANNEL_BOUND: usize = 16;

// ------------------------------------------------------------ workload types

/// Workload 0, the issue's headline: a derived struct around one buffer.
#[derive(Poolable, Default)]
pub struct Obj {
    pub buf: Vec<u8>,
}

/// Workload 0 on a generic derived type (`Wrapper<u8>`): its pool is looked
/// up per type at run time, which `Obj`'s static pool does not need.
#[derive(Poolable, Default)]
pub struct Wrapper<T: Reset + Default + Send + 'static> {
    pub buf: Vec<u8>,
    pub tag: T,
}

/// Workload 1: a small derived struct.
#[derive(Poolable, Default)]
pub struct Small {
    pub id: u64,
    pub flags: u32,
    pub name: String,
}

/// Workload 5: a parsed HTTP request.
#[derive(Poolable, Default)]
pub struct Request {
    pub id: u64,
    pub body: String,
    pub headers: Vec<(String, String)>,
    pub query: Option<String>,
}

/// Workload 5, recycled: the same request, with headers whose strings and a
/// query whose buffer survive the reset (`RecycleVec`, `RecycleOption`).
#[derive(Poolable, Default)]
pub struct RecycledRequest {
    pub id: u64,
    pub body: String,
    pub headers: RecycleVec<(String, String)>,
    pub query: RecycleOption<String>,
}

/// What every pooled type needs so that all contenders can hold it: the
/// poolable reset, sharded-slab's `Clear`, poolshark's `IsoPoolable`, and the
/// thread-local slots of the hand-written baseline and of the floor.
pub trait Item:
    Reset + Default + Send + Sync + 'static + sharded_slab::Clear + poolshark::IsoPoolable
{
    /// The thread-local single-slot cache of the baseline.
    fn slot() -> &'static LocalKey<Cell<Option<Box<Self>>>>;
    /// The raw single-slot cache of the floor: null or a pointer from
    /// `Box::into_raw` owned by the slot. No destructor, so no lazy
    /// registration on access; a value still in it when its thread exits
    /// is leaked (one per thread and type, in a benchmark).
    fn floor_slot() -> &'static LocalKey<Cell<*mut Self>>;
}

macro_rules! item {
    ($ty:ty) => {
        impl Item for $ty {
            fn slot() -> &'static LocalKey<Cell<Option<Box<Self>>>> {
                thread_local! {
                    static SLOT: Cell<Option<Box<$ty>>> = const { Cell::new(None) };
                }
                &SLOT
            }
            fn floor_slot() -> &'static LocalKey<Cell<*mut Self>> {
                thread_local! {
                    static FLOOR: Cell<*mut $ty> = const { Cell::new(ptr::null_mut()) };
                }
                &FLOOR
            }
        }
    };
}
item!(Vec<u8>);
item!(Obj);
item!(Small);
item!(Request);
item!(RecycledRequest);

/// The peers' reset hooks call the same `Reset::reset` as poolable, so every
/// contender does the same reset work.
macro_rules! peer_traits {
    ($ty:ty) => {
        impl sharded_slab::Clear for $ty {
            fn clear(&mut self) {
                Reset::reset(self);
            }
        }
        impl poolshark::Poolable for $ty {
            fn empty() -> Self {
                Self::default()
            }
            fn reset(&mut self) {
                Reset::reset(self);
            }
            // poolshark's global pool drops values whose capacity is 0, and
            // both pools drop values whose capacity exceeds their cap: report
            // the heap bytes, plus one so that a value is never 0.
            fn capacity(&self) -> usize {
                self.heap_bytes().saturating_add(1)
            }
        }
        // SAFETY: the discriminant is a location id unique to this impl, with
        // no type parameters, so no other type shares this type's local pool.
        unsafe impl poolshark::IsoPoolable for $ty {
            const DISCRIMINANT: Option<poolshark::Discriminant> =
                poolshark::Discriminant::new(poolshark::location_id!());
        }
    };
}
peer_traits!(Obj);
peer_traits!(Small);
peer_traits!(Request);
peer_traits!(RecycledRequest);

// --------------------------------------------------------------- contenders

/// One contender (an allocation strategy) by name: what the benches list and
/// the tables key on. Each is a type in [`contender`], which says what it
/// does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// [`Floor`]: the raw single-slot floor; workload 0 only.
    Floor,
    /// [`Plain`]: a fresh value per operation.
    Plain,
    /// [`Boxed`]: a fresh `Box::new` value per operation; workload 0 only.
    Boxed,
    /// [`ThreadLocal`]: the hand-written single-slot cache, the baseline.
    ThreadLocal,
    /// [`contender::Poolable`].
    Poolable,
    /// [`ObjectPool`].
    ObjectPool,
    /// [`LfLinear`].
    LfLinear,
    /// [`LfSpinLock`].
    LfSpinLock,
    /// [`Opool`].
    Opool,
    /// [`ShardedSlab`].
    ShardedSlab,
    /// [`PoolsharkLocal`].
    PoolsharkLocal,
    /// [`PoolsharkGlobal`].
    PoolsharkGlobal,
}

impl Kind {
    /// The contenders of workloads 1-7, in table order.
    pub const ALL: [Kind; 10] = [
        Kind::ThreadLocal,
        Kind::Plain,
        Kind::Poolable,
        Kind::ObjectPool,
        Kind::LfLinear,
        Kind::LfSpinLock,
        Kind::Opool,
        Kind::ShardedSlab,
        Kind::PoolsharkLocal,
        Kind::PoolsharkGlobal,
    ];

    /// The criterion function id (and the key `scripts/bench_table.py` knows).
    pub fn id(self) -> &'static str {
        match self {
            Kind::Floor => "floor",
            Kind::Plain => "plain",
            Kind::Boxed => "box-new",
            Kind::ThreadLocal => "thread_local",
            Kind::Poolable => "poolable",
            Kind::ObjectPool => "object-pool",
            Kind::LfLinear => "lockfree-linear",
            Kind::LfSpinLock => "lockfree-spinlock",
            Kind::Opool => "opool",
            Kind::ShardedSlab => "sharded-slab",
            Kind::PoolsharkLocal => "poolshark-local",
            Kind::PoolsharkGlobal => "poolshark-global",
        }
    }

    /// Whether the contender can enforce a size cap on returned values.
    pub fn has_cap(self) -> bool {
        matches!(
            self,
            Kind::ThreadLocal
                | Kind::Poolable
                | Kind::Opool
                | Kind::PoolsharkLocal
                | Kind::PoolsharkGlobal
        )
    }
}

/// Every contender for one item type, each with its own pool.
pub struct Contenders<T: Item> {
    floor: Floor<T>,
    plain: Plain<T>,
    boxed: Boxed<T>,
    thread_local: ThreadLocal<T>,
    poolable: contender::Poolable<T>,
    object_pool: ObjectPool<T>,
    lf_linear: LfLinear<T>,
    lf_spin: LfSpinLock<T>,
    opool: Opool<T>,
    slab: ShardedSlab<T>,
    ps_local: PoolsharkLocal<T>,
    ps_global: PoolsharkGlobal<T>,
}

/// `$body` with `$c` bound to the contender of `$kind` in `$contenders`: the
/// one match from kinds to contenders. `$body` is compiled once per
/// contender type (a closure generic over [`Contender`]), so each arm calls
/// its contender's methods directly.
macro_rules! with_contender {
    ($contenders:expr, $kind:expr, |$c:ident| $body:expr) => {
        match $kind {
            Kind::Floor => {
                let $c = &$contenders.floor;
                $body
            }
            Kind::Plain => {
                let $c = &$contenders.plain;
                $body
            }
            Kind::Boxed => {
                let $c = &$contenders.boxed;
                $body
            }
            Kind::ThreadLocal => {
                let $c = &$contenders.thread_local;
                $body
            }
            Kind::Poolable => {
                let $c = &$contenders.poolable;
                $body
            }
            Kind::ObjectPool => {
                let $c = &$contenders.object_pool;
                $body
            }
            Kind::LfLinear => {
                let $c = &$contenders.lf_linear;
                $body
            }
            Kind::LfSpinLock => {
                let $c = &$contenders.lf_spin;
                $body
            }
            Kind::Opool => {
                let $c = &$contenders.opool;
                $body
            }
            Kind::ShardedSlab => {
                let $c = &$contenders.slab;
                $body
            }
            Kind::PoolsharkLocal => {
                let $c = &$contenders.ps_local;
                $body
            }
            Kind::PoolsharkGlobal => {
                let $c = &$contenders.ps_global;
                $body
            }
        }
    };
}

impl<T: Item> Contenders<T> {
    /// Fresh pools for every peer. `poolable` is the poolable pool to use (its
    /// cap is its own); `cap` is applied to the other contenders that have a
    /// cap (`NO_CAP` for none).
    pub fn new(poolable: &'static Pool<T>, new: fn() -> T, cap: usize) -> Self {
        // poolshark's local pools are per thread and keyed by type: this sets
        // the size of the pools created from now on, and drops this thread's.
        poolshark::local::set_size::<T>(RETAIN, cap);
        poolshark::local::clear_type::<T>();
        Contenders {
            floor: Floor { new },
            plain: Plain { new },
            boxed: Boxed { new },
            thread_local: ThreadLocal { new, cap },
            poolable: contender::Poolable { pool: poolable },
            object_pool: ObjectPool {
                pool: object_pool::Pool::new(0, new),
                new,
            },
            lf_linear: LfLinear {
                pool: LinearObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            },
            lf_spin: LfSpinLock {
                pool: SpinLockObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            },
            opool: Opool {
                pool: opool::Pool::new(RETAIN, OpoolAlloc { new, cap }),
            },
            slab: ShardedSlab {
                pool: sharded_slab::Pool::new(),
            },
            ps_local: PoolsharkLocal { item: PhantomData },
            ps_global: PoolsharkGlobal {
                pool: poolshark::global::Pool::new(RETAIN, cap),
            },
        }
    }

    /// `n` operations on this thread: take a value, `f(value, i)`, give it back.
    pub fn run(&self, kind: Kind, n: u64, f: impl Fn(&mut T, u64)) {
        with_contender!(self, kind, |c| run_on(c, n, &f))
    }

    /// Producer/consumer, as worker bodies for [`with_workers`]: `pairs`
    /// producers each take values, `fill` them and send them through their
    /// own bounded channel to a consumer that `read`s and drops them. Bodies
    /// come in pairs (producer, consumer); a run of `total` messages splits
    /// them over the pairs. The channels live as long as the bodies.
    pub fn pipe<'a, F, R>(
        &'a self,
        kind: Kind,
        pairs: usize,
        fill: &'a F,
        read: &'a R,
    ) -> Vec<Body<'a>>
    where
        F: Fn(&mut T, u64) + Sync,
        R: Fn(&T) + Sync,
    {
        with_contender!(self, kind, |c| pipe_bodies(
            pairs,
            move |i| c.produce(|v| fill(v, i)),
            move |sent| c.consume(sent, read),
        ))
    }
}

// ------------------------------------------------- workload 0's contenders

/// The static pool of the "static pool without a derive" contender.
static OBJ_BUFS: Pool<Vec<u8>> = Pool::new();

/// A contender of workload 0: a [`Kind`] on `Obj`, or one of the two other
/// ways to use poolable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjContender {
    /// `Kind` on `Obj` (poolable: `Obj::pool()` per op).
    On(Kind),
    /// A `static Pool<Vec<u8>>` of a type without a derive, the same work
    /// on the `Vec` itself.
    StaticPool,
    /// The generic derived `Wrapper<u8>` (`Wrapper::<u8>::pool()` per op).
    Generic,
}

impl ObjContender {
    /// Every contender of workload 0, in table order.
    pub const ALL: [ObjContender; 13] = [
        ObjContender::On(Kind::Floor),
        ObjContender::On(Kind::ThreadLocal),
        ObjContender::On(Kind::Boxed),
        ObjContender::On(Kind::Poolable),
        ObjContender::StaticPool,
        ObjContender::Generic,
        ObjContender::On(Kind::ObjectPool),
        ObjContender::On(Kind::LfLinear),
        ObjContender::On(Kind::LfSpinLock),
        ObjContender::On(Kind::Opool),
        ObjContender::On(Kind::ShardedSlab),
        ObjContender::On(Kind::PoolsharkLocal),
        ObjContender::On(Kind::PoolsharkGlobal),
    ];

    /// The criterion function id (and the key `scripts/bench_table.py` knows).
    pub fn id(self) -> &'static str {
        match self {
            ObjContender::On(kind) => kind.id(),
            ObjContender::StaticPool => "static-pool",
            ObjContender::Generic => "generic",
        }
    }

    /// The contender with this id.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// Workload 0: every contender's pool.
pub struct ObjContenders {
    obj: Contenders<Obj>,
}

impl Default for ObjContenders {
    fn default() -> Self {
        ObjContenders {
            obj: Contenders::new(Obj::pool(), Obj::default, CAP),
        }
    }
}

impl ObjContenders {
    /// `n` ops of workload 0 on this thread: get, push one byte, drop.
    #[inline(never)]
    pub fn run(&self, c: ObjContender, n: u64) {
        match c {
            ObjContender::On(Kind::Poolable) => {
                for i in 0..n {
                    work::push_byte(&mut Obj::pool().get().buf, i);
                }
            }
            ObjContender::On(kind) => self.obj.run(kind, n, |o, i| work::push_byte(&mut o.buf, i)),
            ObjContender::StaticPool => {
                for i in 0..n {
                    work::push_byte(&mut OBJ_BUFS.get(), i);
                }
            }
            ObjContender::Generic => {
                for i in 0..n {
                    work::push_byte(&mut Wrapper::<u8>::pool().get().buf, i);
                }
            }
        }
    }
}

/// `n` operations of `contender` on this thread: a function of its own for
/// each contender, whose loop is the contender's alone.
#[inline(never)]
fn run_on<T: Item, C: Contender<T>>(contender: &C, n: u64, f: &impl Fn(&mut T, u64)) {
    for i in 0..n {
        contender.op(|v| f(v, i));
    }
}

/// The producer and consumer bodies of `pairs` channels.
fn pipe_bodies<'a, G: Send + 'a>(
    pairs: usize,
    make: impl Fn(u64) -> G + Send + Copy + 'a,
    consume: impl Fn(G) + Send + Copy + 'a,
) -> Vec<Body<'a>> {
    let pairs = pairs.max(1);
    let mut bodies: Vec<Body<'a>> = Vec::with_capacity(2 * pairs);
    for pair in 0..pairs {
        let (tx, rx) = sync_channel::<G>(CHANNEL_BOUND);
        bodies.push(Box::new(move |total| {
            for i in 0..share(total, pairs, pair) {
                tx.send(make(i)).expect("consumer gone");
            }
        }));
        bodies.push(Box::new(move |total| {
            for _ in 0..share(total, pairs, pair) {
                consume(rx.recv().expect("producer gone"));
            }
        }));
    }
    bodies
}

// ------------------------------------------------------------------ timing

/// Time `body` on the calling thread.
#[inline]
pub fn timed(body: impl FnOnce()) -> Duration {
    let start = Instant::now();
    body();
    start.elapsed()
}

// --------------------------------------------------- persistent worker threads
//
// Go's `RunParallel` convention: the worker threads of a benchmark function
// are spawned once and kept across its samples, so thread start and exit and
// cold thread caches are not part of any sample. Each run releases every
// worker at once; a run of `total` ops is split between them, and its time is
// the wall time from the release to the last worker finishing. Per op that is
// wall / total (criterion's per-iteration figure); per thread it is
// wall / (ops of one thread) = threads × that.

/// What one persistent worker does in a run: called with the run's total op
/// count, it does its own share (see [`share`]).
pub type Body<'a> = Box<dyn FnMut(u64) + Send + 'a>;

/// Part `index` of `total` split over `parts` (the first `total % parts`
/// parts get one more).
pub fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts.max(1) as u64;
    total / parts + u64::from((index as u64) < total % parts)
}

/// `threads` worker bodies that each run their share of `op(n)` (`n` ops on
/// the calling thread).
pub fn split<'a>(threads: usize, op: &'a (dyn Fn(u64) + Sync)) -> Vec<Body<'a>> {
    (0..threads)
        .map(|t| Box::new(move |total| op(share(total, threads, t))) as Body<'a>)
        .collect()
}

/// State shared by the calling thread and the workers. Values are stored
/// before a barrier and read after it, which orders them.
struct Control {
    /// Every worker and the calling thread meet here to start a run (or
    /// to exit, when `stop` is set).
    start: Barrier,
    /// ... and here when every worker is done.
    done: Barrier,
    total: AtomicU64,
    stop: AtomicBool,
    panicked: AtomicBool,
    epoch: Instant,
    /// Nanoseconds since `epoch`: the release, and the last worker's end.
    released: AtomicU64,
    finished: AtomicU64,
}

impl Control {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Wait for the release. The barrier's leader is the last thread to
    /// arrive, which returns at once while the others wake: its clock is the
    /// release time.
    fn wait_start(&self) {
        if self.start.wait().is_leader() {
            self.released.store(self.now(), Relaxed);
        }
    }

    fn serve(&self, body: &mut Body<'_>) {
        loop {
            self.wait_start();
            if self.stop.load(Relaxed) {
                return;
            }
            let total = self.total.load(Relaxed);
            // A panicking body must still reach `done`, or every other
            // thread waits there forever; the calling thread re-raises it.
            if catch_unwind(AssertUnwindSafe(|| body(total))).is_err() {
                self.panicked.store(true, Relaxed);
            }
            self.finished.fetch_max(self.now(), Relaxed);
            self.done.wait();
        }
    }
}

/// Handle on the workers of [`with_workers`].
pub struct Workers<'c> {
    control: &'c Control,
}

impl Workers<'_> {
    /// One run of `total` ops in all: the wall time from the release of the
    /// workers to the last one finishing.
    pub fn run(&self, total: u64) -> Duration {
        let c = self.control;
        c.total.store(total, Relaxed);
        c.finished.store(0, Relaxed);
        c.wait_start();
        c.done.wait();
        assert!(!c.panicked.load(Relaxed), "a bench worker panicked");
        let (released, finished) = (c.released.load(Relaxed), c.finished.load(Relaxed));
        Duration::from_nanos(finished.saturating_sub(released))
    }
}

impl Drop for Workers<'_> {
    /// Release the workers to exit (also when a bench panics, so that the
    /// thread scope can end).
    fn drop(&mut self) {
        self.control.stop.store(true, Relaxed);
        self.control.start.wait();
    }
}

/// Spawn one persistent worker per body, call `f` with their handle, and
/// let the workers exit (flushing their thread caches) after `f` returns.
pub fn with_workers<R>(bodies: Vec<Body<'_>>, f: impl FnOnce(&Workers<'_>) -> R) -> R {
    let control = Control {
        start: Barrier::new(bodies.len() + 1),
        done: Barrier::new(bodies.len() + 1),
        total: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
        epoch: Instant::now(),
        released: AtomicU64::new(0),
        finished: AtomicU64::new(0),
    };
    std::thread::scope(|s| {
        for mut body in bodies {
            let control = &control;
            s.spawn(move || control.serve(&mut body));
        }
        let workers = Workers { control: &control };
        f(&workers)
    })
}

// --------------------------------------------------------------- criterion

/// The suite's `Criterion` configuration.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .without_plots()
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT)
        .sample_size(SAMPLES)
        .nresamples(RESAMPLES)
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

// ---------------------------------------------------------------- workloads

/// The workloads, shared by the criterion benches and `alloc_count`.
pub mod work {
    use super::{RecycledRequest, Request, Small};
    use std::hint::black_box;
    use std::io::{self, Write};

    /// 0: push one byte (into `Obj::buf`, or the `Vec` itself).
    #[inline(never)]
    pub fn push_byte(buf: &mut Vec<u8>, i: u64) {
        buf.push(i as u8);
        black_box(buf);
    }

    /// 1: fill a `Small` (its name needs a heap buffer when fresh).
    #[inline(never)]
    pub fn small(s: &mut Small, i: u64) {
        s.id = i;
        s.flags = i as u32 | 1;
        s.name.push_str("conn-42");
        black_box(&mut *s);
    }

    /// Write to every 64th byte (one per cache line).
    #[inline]
    pub fn touch(buf: &mut [u8], i: u64) {
        for b in buf.iter_mut().step_by(64) {
            *b = b.wrapping_add(i as u8);
        }
        black_box(buf);
    }

    pub const SCRATCH_LEN: usize = 2048;

    /// 2, pooled: a reset buffer made 2 KiB long (zeroed) and touched.
    #[inline(never)]
    pub fn scratch(v: &mut Vec<u8>, i: u64) {
        v.resize(SCRATCH_LEN, 0);
        touch(v, i);
    }

    /// 2, plain: `vec![0; 2048]` per op.
    #[inline(never)]
    pub fn scratch_fresh(i: u64) {
        let mut v = vec![0_u8; SCRATCH_LEN];
        touch(&mut v, i);
        drop(black_box(v));
    }

    /// 3: push "12345678" 512 times (4 KiB); a fresh buffer grows by doubling.
    #[inline(never)]
    pub fn build(v: &mut Vec<u8>, _i: u64) {
        for _ in 0..512 {
            v.extend_from_slice(b"12345678");
        }
        black_box(&v[..]);
    }

    pub static PAYLOAD: [u8; 1024] = [b'x'; 1024];

    /// 4: encode `data=<1 KiB>\n` and write it to `io::sink()`.
    #[inline(never)]
    pub fn encode(v: &mut Vec<u8>, _i: u64) {
        v.extend_from_slice(b"data=");
        v.extend_from_slice(&PAYLOAD);
        v.push(b'\n');
        black_box(io::sink())
            .write_all(black_box(&v[..]))
            .expect("sink never fails");
    }

    pub const BODY: &str = r#"{"user":"ada","action":"checkout","cart":[{"sku":"A-1001","qty":2},{"sku":"B-2002","qty":1},{"sku":"C-3003","qty":5}],"coupon":null,"note":"leave at the door, ring twice","ts":1767225600}"#;
    pub const HEADERS: [(&str, &str); 6] = [
        ("host", "api.example.com"),
        ("user-agent", "bench-client/1.0"),
        ("accept", "application/json"),
        ("content-type", "application/json"),
        ("content-length", "196"),
        ("x-request-id", "7f3c2a9e-5b1d-4c8e-9a0f-2d6b8e1c4f7a"),
    ];

    /// 5: fill a `Request` as an HTTP parser would.
    #[inline(never)]
    pub fn request(r: &mut Request, i: u64) {
        r.id = i;
        r.body.push_str(BODY);
        r.headers
            .extend(HEADERS.iter().map(|&(k, v)| (k.to_owned(), v.to_owned())));
        r.query = Some("page=2&sort=asc".to_owned());
        black_box(&*r);
    }

    /// 5, recycled: the same fields filled into the elements the previous
    /// request left (a fresh one allocates as `request` does).
    #[inline(never)]
    pub fn request_recycled(r: &mut RecycledRequest, i: u64) {
        r.id = i;
        r.body.push_str(BODY);
        for &(k, v) in &HEADERS {
            let (name, value) = r.headers.push_reset();
            name.push_str(k);
            value.push_str(v);
        }
        r.query.get_or_insert_reset().push_str("page=2&sort=asc");
        black_box(&*r);
    }

    pub const MESSAGE_LEN: usize = 256;

    /// 6, producer side: write a 256-byte message.
    #[inline(never)]
    pub fn message(v: &mut Vec<u8>, i: u64) {
        v.extend_from_slice(&PAYLOAD[..MESSAGE_LEN]);
        v[0] = i as u8;
    }

    /// 6, consumer side: read the message.
    #[inline(never)]
    pub fn consume(v: &[u8]) {
        black_box(v.len() + usize::from(v[0]));
    }

    pub const BIG_LEN: usize = 1 << 20;

    /// 7: the length request `i` needs (what a `BufferPool` is asked for).
    pub fn mixed_len(i: u64) -> usize {
        if i % 100 == 50 { BIG_LEN } else { SCRATCH_LEN }
    }

    /// 7: a 2 KiB request, except one in 100 (the 51st of each hundred, so a
    /// run of whole hundreds ends on a small one) that grows its buffer to 1 MiB.
    #[inline(never)]
    pub fn mixed(v: &mut Vec<u8>, i: u64) {
        v.resize(mixed_len(i), 0);
        touch(v, i);
    }
}
