//! Shared code of the benchmark suite: the workload types, every contender
//! behind one interface, and the timing helpers.
//!
//! Each bench binary includes this file with
//! `#[path = "support/mod.rs"] pub mod support;` and uses a different part of
//! it. The module is `pub` because it is shared code, like a library: an item
//! one binary leaves unused is not dead code. (Dead code is code that every
//! binary leaves unused; to find it, make the module private in each bench and
//! look for items warned about in all of them.)

use lockfree_object_pool::{LinearObjectPool, SpinLockObjectPool};
use poolable::{Pool, Poolable, Reset};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::Barrier;
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

/// What every pooled type needs so that all contenders can hold it: the
/// poolable reset, sharded-slab's `Clear`, poolshark's `IsoPoolable`, and a
/// thread-local slot for the hand-written baseline.
pub trait Item:
    Reset + Default + Send + Sync + 'static + sharded_slab::Clear + poolshark::IsoPoolable
{
    /// The thread-local single-slot cache of the baseline.
    fn slot() -> &'static LocalKey<Cell<Option<Box<Self>>>>;
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
        }
    };
}
item!(Vec<u8>);
item!(Small);
item!(Request);

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
peer_traits!(Small);
peer_traits!(Request);

// --------------------------------------------------------------- contenders

/// One contender: an allocation strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A fresh value per operation, dropped at the end.
    Plain,
    /// Hand-written `thread_local!` single-slot cache doing the same reset:
    /// the physical baseline.
    ThreadLocal,
    /// poolable: `T::pool()` for derived types, a `static Pool<Vec<u8>>` for buffers.
    Poolable,
    /// object-pool 0.6 (`Mutex<Vec<T>>`, no reset hook: reset by hand).
    ObjectPool,
    /// lockfree-object-pool 0.1 `LinearObjectPool`.
    LfLinear,
    /// lockfree-object-pool 0.1 `SpinLockObjectPool`.
    LfSpinLock,
    /// opool 0.2 (`ArrayQueue`, reset on get, `is_valid` used as the size cap).
    Opool,
    /// sharded-slab 0.1 `Pool` (create, then `clear(key)`).
    ShardedSlab,
    /// poolshark 0.2 `local::LPooled` (per-thread pools keyed by type).
    PoolsharkLocal,
    /// poolshark 0.2 `global::Pool` (lock-free queue, values return to their pool).
    PoolsharkGlobal,
}

impl Kind {
    /// Every contender, in table order.
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
            Kind::Plain => "plain",
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

/// opool's allocator: constructor, the shared reset, and the size cap.
pub struct OpoolAlloc<T> {
    new: fn() -> T,
    cap: usize,
}

impl<T: Reset> opool::PoolAllocator<T> for OpoolAlloc<T> {
    #[inline]
    fn reset(&self, obj: &mut T) {
        Reset::reset(obj);
    }
    #[inline]
    fn allocate(&self) -> T {
        (self.new)()
    }
    #[inline]
    fn is_valid(&self, obj: &T) -> bool {
        obj.heap_bytes() <= self.cap
    }
}

/// Every contender for one item type, each with its own pool.
pub struct Contenders<T: Item> {
    new: fn() -> T,
    cap: usize,
    poolable: &'static Pool<T>,
    object_pool: object_pool::Pool<T>,
    lf_linear: LinearObjectPool<T>,
    lf_spin: SpinLockObjectPool<T>,
    opool: opool::Pool<OpoolAlloc<T>, T>,
    slab: sharded_slab::Pool<T>,
    ps_global: poolshark::global::Pool<T>,
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
            new,
            cap,
            poolable,
            object_pool: object_pool::Pool::new(0, new),
            lf_linear: LinearObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            lf_spin: SpinLockObjectPool::new(new, |v: &mut T| Reset::reset(v)),
            opool: opool::Pool::new(RETAIN, OpoolAlloc { new, cap }),
            slab: sharded_slab::Pool::new(),
            ps_global: poolshark::global::Pool::new(RETAIN, cap),
        }
    }

    /// `n` operations on this thread: take a value, `f(value, i)`, give it back.
    #[inline(never)]
    pub fn run(&self, kind: Kind, n: u64, f: impl Fn(&mut T, u64)) {
        match kind {
            Kind::Plain => {
                for i in 0..n {
                    let mut v = (self.new)();
                    f(&mut v, i);
                    drop(black_box(v));
                }
            }
            Kind::ThreadLocal => {
                let slot = T::slot();
                for i in 0..n {
                    let mut v = slot
                        .with(Cell::take)
                        .unwrap_or_else(|| Box::new((self.new)()));
                    f(&mut v, i);
                    tls_put(slot, v, self.cap);
                }
            }
            Kind::Poolable => {
                for i in 0..n {
                    let mut v = self.poolable.get();
                    f(&mut v, i);
                }
            }
            Kind::ObjectPool => {
                for i in 0..n {
                    let mut v = self.object_pool.pull(self.new);
                    f(&mut v, i);
                    Reset::reset(&mut *v);
                }
            }
            Kind::LfLinear => {
                for i in 0..n {
                    let mut v = self.lf_linear.pull();
                    f(&mut v, i);
                }
            }
            Kind::LfSpinLock => {
                for i in 0..n {
                    let mut v = self.lf_spin.pull();
                    f(&mut v, i);
                }
            }
            Kind::Opool => {
                for i in 0..n {
                    let mut v = self.opool.get();
                    f(&mut v, i);
                }
            }
            Kind::ShardedSlab => {
                for i in 0..n {
                    let mut v = self.slab.create().expect("sharded-slab shard full");
                    f(&mut v, i);
                    let key = v.key();
                    drop(v);
                    self.slab.clear(key);
                }
            }
            Kind::PoolsharkLocal => {
                for i in 0..n {
                    let mut v = poolshark::local::LPooled::<T>::take();
                    f(&mut v, i);
                }
            }
            Kind::PoolsharkGlobal => {
                for i in 0..n {
                    let mut v = self.ps_global.take();
                    f(&mut v, i);
                }
            }
        }
    }

    /// `n` operations on each of `threads` threads at once; the wall time of
    /// the slowest thread, so `elapsed / n` is the time per op per thread.
    pub fn run_threads(
        &self,
        kind: Kind,
        threads: usize,
        n: u64,
        f: impl Fn(&mut T, u64) + Sync,
    ) -> Duration {
        parallel(threads, |_| self.run(kind, n, &f))
    }

    /// Producer/consumer: `pairs` producers each take values, `fill` them and
    /// send them through their own bounded channel to a consumer that `read`s
    /// and drops them. `msgs` messages in all (split over the pairs), after
    /// `warm` per pair. `at_start` and `at_end` run on the calling thread
    /// while every worker is parked at a barrier just before / after the
    /// measured phase. Returns the measured wall time.
    #[allow(clippy::too_many_arguments)]
    pub fn pipe(
        &self,
        kind: Kind,
        pairs: usize,
        warm: u64,
        msgs: u64,
        fill: impl Fn(&mut T, u64) + Sync,
        read: impl Fn(&T) + Sync,
        at_start: impl FnOnce(),
        at_end: impl FnOnce(),
    ) -> Duration {
        let p = Phases {
            pairs,
            warm,
            msgs,
            at_start,
            at_end,
        };
        match kind {
            Kind::Plain => p.run(
                |i| {
                    let mut v = (self.new)();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::ThreadLocal => {
                let slot = T::slot();
                p.run(
                    |i| {
                        let mut v = slot
                            .with(Cell::take)
                            .unwrap_or_else(|| Box::new((self.new)()));
                        fill(&mut v, i);
                        v
                    },
                    |v| {
                        read(&v);
                        tls_put(slot, v, self.cap);
                    },
                )
            }
            Kind::Poolable => p.run(
                |i| {
                    let mut v = self.poolable.get();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::ObjectPool => p.run(
                |i| {
                    let mut v = self.object_pool.pull(self.new);
                    fill(&mut v, i);
                    v
                },
                |mut v| {
                    read(&v);
                    Reset::reset(&mut *v);
                },
            ),
            Kind::LfLinear => p.run(
                |i| {
                    let mut v = self.lf_linear.pull();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::LfSpinLock => p.run(
                |i| {
                    let mut v = self.lf_spin.pull();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::Opool => p.run(
                |i| {
                    let mut v = self.opool.get();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::ShardedSlab => p.run(
                |i| {
                    let mut v = self.slab.create().expect("sharded-slab shard full");
                    fill(&mut v, i);
                    v.key()
                },
                |key| {
                    read(&self.slab.get(key).expect("sharded-slab key vanished"));
                    self.slab.clear(key);
                },
            ),
            Kind::PoolsharkLocal => p.run(
                |i| {
                    let mut v = poolshark::local::LPooled::<T>::take();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
            Kind::PoolsharkGlobal => p.run(
                |i| {
                    let mut v = self.ps_global.take();
                    fill(&mut v, i);
                    v
                },
                |v| read(&v),
            ),
        }
    }
}

/// Give a value back to the thread-local slot (the baseline's put).
#[inline]
fn tls_put<T: Item>(slot: &'static LocalKey<Cell<Option<Box<T>>>>, mut v: Box<T>, cap: usize) {
    Reset::reset(&mut *v);
    if v.heap_bytes() <= cap {
        // A value already in the slot (only possible when a value crossed
        // threads) is dropped by `set`.
        slot.with(|s| s.set(Some(v)));
    }
}

// ------------------------------------------------------------------ timing

/// Time `body` on the calling thread.
#[inline]
pub fn timed(body: impl FnOnce()) -> Duration {
    let start = Instant::now();
    body();
    start.elapsed()
}

/// Run `body(t)` on `threads` scoped threads released together by a barrier;
/// the longest per-thread time (each thread starts its clock at the barrier).
pub fn parallel(threads: usize, body: impl Fn(usize) + Sync) -> Duration {
    let barrier = Barrier::new(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (barrier, body) = (&barrier, &body);
                s.spawn(move || {
                    barrier.wait();
                    timed(|| body(t))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread panicked"))
            .max()
            .unwrap_or_default()
    })
}

struct Phases<S, E> {
    pairs: usize,
    warm: u64,
    msgs: u64,
    at_start: S,
    at_end: E,
}

impl<S: FnOnce(), E: FnOnce()> Phases<S, E> {
    fn run<G: Send>(self, make: impl Fn(u64) -> G + Sync, consume: impl Fn(G) + Sync) -> Duration {
        let pairs = self.pairs.max(1);
        let warm = self.warm;
        // Workers and the calling thread meet at four barriers: warmed up,
        // start, done, and released to exit.
        let barrier = Barrier::new(2 * pairs + 1);
        std::thread::scope(|s| {
            for pair in 0..pairs {
                let share =
                    self.msgs / pairs as u64 + u64::from((pair as u64) < self.msgs % pairs as u64);
                let (tx, rx) = sync_channel::<G>(CHANNEL_BOUND);
                let (barrier, make, consume) = (&barrier, &make, &consume);
                s.spawn(move || {
                    for i in 0..warm {
                        tx.send(make(i)).expect("consumer gone");
                    }
                    barrier.wait();
                    barrier.wait();
                    for i in 0..share {
                        tx.send(make(i)).expect("consumer gone");
                    }
                    barrier.wait();
                    barrier.wait();
                });
                s.spawn(move || {
                    for _ in 0..warm {
                        consume(rx.recv().expect("producer gone"));
                    }
                    barrier.wait();
                    barrier.wait();
                    for _ in 0..share {
                        consume(rx.recv().expect("producer gone"));
                    }
                    barrier.wait();
                    barrier.wait();
                });
            }
            barrier.wait();
            (self.at_start)();
            barrier.wait();
            let start = Instant::now();
            barrier.wait();
            let elapsed = start.elapsed();
            (self.at_end)();
            // Workers exit (and flush their thread caches) only after `at_end`.
            barrier.wait();
            elapsed
        })
    }
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

// ---------------------------------------------------------------- workloads

/// The workloads, shared by the criterion benches and `alloc_count`.
pub mod work {
    use super::{Request, Small};
    use std::hint::black_box;
    use std::io::{self, Write};

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

    /// 7: a 2 KiB request, except one in 100 (the 51st of each hundred, so a
    /// run of whole hundreds ends on a small one) that grows its buffer to 1 MiB.
    #[inline(never)]
    pub fn mixed(v: &mut Vec<u8>, i: u64) {
        let len = if i % 100 == 50 { BIG_LEN } else { SCRATCH_LEN };
        v.resize(len, 0);
        touch(v, i);
    }
}
