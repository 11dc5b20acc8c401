//! No value is ever live in two guards at once, and no value is lost, under
//! heavy contention: 4 threads mix get / drop / put / trim / clear /
//! into_inner and hand guards to each other.
//!
//! Each value carries an id and an "in use" flag that the reset leaves alone
//! (`#[poolable(skip)]`). Taking a value sets the flag and inserts the id in a
//! global set of live ids; giving it back clears both. A get that finds the
//! flag already set or the id already live is a double handout. Every value
//! is counted when constructed and when dropped, so at the end (nothing held)
//! the live instances equal `retained`, and after `clear()` they are zero.
//!
//! Two pools are exercised: a derived type's own pool (thread caches in the
//! derive's `thread_local!`) and a `static Pool` of a `#[derive(Reset)]` type
//! (thread caches in the generic per-thread table).

mod common {
    pub mod balance;
}

use common::balance::assert_balanced;
use poolable::{Pool, Poolable, Pooled, Reset};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::thread;
use std::time::Instant;

const THREADS: usize = 4;
const OPS: usize = 50_000;
const MAX_HELD: usize = 24;

/// Per-type bookkeeping.
struct Track {
    created: AtomicU64,
    dropped: AtomicU64,
    next_id: AtomicU64,
    live: Mutex<BTreeSet<u64>>,
    violations: AtomicU64,
    first_violation: Mutex<Option<String>>,
}

impl Track {
    const fn new() -> Self {
        Track {
            created: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            next_id: AtomicU64::new(0),
            live: Mutex::new(BTreeSet::new()),
            violations: AtomicU64::new(0),
            first_violation: Mutex::new(None),
        }
    }

    fn violation(&self, what: String) {
        self.violations.fetch_add(1, SeqCst);
        self.first_violation.lock().unwrap().get_or_insert(what);
    }
}

trait Item: Reset + Send + Sized + 'static {
    fn pool() -> &'static Pool<Self>;
    fn track() -> &'static Track;
    fn id(&self) -> u64;
    fn in_use(&self) -> &AtomicBool;
    fn data(&mut self) -> &mut Vec<u64>;
    fn owner(&mut self) -> &mut Option<usize>;
}

// Each arm writes its derive attribute next to the fields: a derive passed
// in from elsewhere (a `$(#[$meta])*` fragment, or tokens forwarded to
// another arm) does not compile (E0424 "expected value, found module
// `self`"; see the reliability report).
macro_rules! item {
    (poolable $name:ident, $track:ident) => {
        #[derive(Poolable)]
        #[poolable(new = $name::fresh, max_retained = 16)]
        struct $name {
            #[poolable(skip)]
            id: u64,
            #[poolable(skip)]
            in_use: Box<AtomicBool>,
            data: Vec<u64>,
            owner: Option<usize>,
        }
        item!(@impls $name, $track, <$name as Poolable>::pool());
    };
    (reset $name:ident, $track:ident, $pool:expr) => {
        #[derive(Reset)]
        struct $name {
            #[poolable(skip)]
            id: u64,
            #[poolable(skip)]
            in_use: Box<AtomicBool>,
            data: Vec<u64>,
            owner: Option<usize>,
        }
        item!(@impls $name, $track, $pool);
    };
    (@impls $name:ident, $track:ident, $pool:expr) => {
        static $track: Track = Track::new();

        impl $name {
            fn fresh() -> Self {
                $track.created.fetch_add(1, SeqCst);
                $name {
                    id: $track.next_id.fetch_add(1, SeqCst),
                    in_use: Box::new(AtomicBool::new(false)),
                    data: Vec::new(),
                    owner: None,
                }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                $track.dropped.fetch_add(1, SeqCst);
            }
        }

        impl Item for $name {
            fn pool() -> &'static Pool<Self> {
                $pool
            }
            fn track() -> &'static Track {
                &$track
            }
            fn id(&self) -> u64 {
                self.id
            }
            fn in_use(&self) -> &AtomicBool {
                &self.in_use
            }
            fn data(&mut self) -> &mut Vec<u64> {
                &mut self.data
            }
            fn owner(&mut self) -> &mut Option<usize> {
                &mut self.owner
            }
        }
    };
}

item!(poolable Derived, DERIVED);

static PLAIN_POOL: Pool<Plain> = Pool::with_new(Plain::fresh).max_retained(16);
item!(reset Plain, PLAIN, &PLAIN_POOL);

/// Mark a value taken; report it if it is already live elsewhere or dirty.
fn acquire<T: Item>(value: &mut T, tid: usize, op: usize) {
    let track = T::track();
    if value.in_use().swap(true, SeqCst) {
        track.violation(format!("value {} handed out while in use", value.id()));
    }
    if !track.live.lock().unwrap().insert(value.id()) {
        track.violation(format!("value {} handed out while live", value.id()));
    }
    if !value.data().is_empty() || value.owner().is_some() {
        track.violation(format!("value {} handed out dirty", value.id()));
    }
    value.data().extend([tid as u64, op as u64]);
    *value.owner() = Some(tid);
}

/// Mark a value given back (call before it returns to the pool or is dropped).
fn release<T: Item>(value: &T) {
    let track = T::track();
    if !value.in_use().swap(false, SeqCst) {
        track.violation(format!("value {} released twice", value.id()));
    }
    if !track.live.lock().unwrap().remove(&value.id()) {
        track.violation(format!("value {} was not live", value.id()));
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

#[derive(Default)]
struct Done {
    gets: AtomicU64,
    put_back: AtomicU64,
}

fn worker<T: Item>(tid: usize, exchange: &Mutex<Vec<Pooled<'static, T>>>, done: &Done) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((tid as u64 + 1) * 0x1234_5678_9ABC_DEF1));
    let mut held: Vec<Pooled<'static, T>> = Vec::new();
    for op in 0..OPS {
        match rng.below(1000) {
            0..400 => {
                let mut guard = T::pool().get();
                done.gets.fetch_add(1, SeqCst);
                acquire(&mut *guard, tid, op);
                held.push(guard);
                if held.len() > MAX_HELD {
                    let guard = held.remove(0);
                    release(&*guard);
                    drop(guard);
                }
            }
            400..580 => {
                if !held.is_empty() {
                    let guard = held.swap_remove(rng.below(held.len()));
                    release(&*guard);
                    drop(guard);
                }
            }
            580..680 => {
                if !held.is_empty() {
                    let guard = held.swap_remove(rng.below(held.len()));
                    release(&*guard);
                    let mut value = Pooled::into_inner(guard);
                    value.data().push(u64::MAX);
                    done.put_back.fetch_add(1, SeqCst);
                    T::pool().put(value);
                }
            }
            680..760 => {
                if !held.is_empty() {
                    let guard = held.swap_remove(rng.below(held.len()));
                    release(&*guard);
                    drop(Pooled::into_inner(guard));
                }
            }
            760..770 => T::pool().trim(),
            770..772 => T::pool().clear(),
            772..870 => {
                if !held.is_empty() {
                    let guard = held.swap_remove(rng.below(held.len()));
                    exchange.lock().unwrap().push(guard);
                }
            }
            _ => {
                let taken = exchange.lock().unwrap().pop();
                if let Some(guard) = taken {
                    held.push(guard);
                }
            }
        }
    }
    for guard in held {
        release(&*guard);
        drop(guard);
    }
}

fn contend<T: Item>() {
    let start = Instant::now();
    let exchange: Mutex<Vec<Pooled<'static, T>>> = Mutex::new(Vec::new());
    let done = Done::default();
    thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|tid| {
                let (exchange, done) = (&exchange, &done);
                s.spawn(move || worker::<T>(tid, exchange, done))
            })
            .collect();
        // Explicit joins: a thread's cache is flushed by its thread-local
        // destructor, which has run once `join` returns.
        for h in handles {
            h.join().unwrap();
        }
    });
    for guard in exchange.into_inner().unwrap() {
        release(&*guard);
        drop(guard);
    }

    let track = T::track();
    let stats = T::pool().stats();
    eprintln!(
        "{THREADS} threads x {OPS} ops in {:?}: {stats}",
        start.elapsed()
    );
    assert_eq!(
        track.violations.load(SeqCst),
        0,
        "first: {:?}",
        track.first_violation.lock().unwrap()
    );
    assert!(track.live.lock().unwrap().is_empty());

    let created = track.created.load(SeqCst);
    let dropped = track.dropped.load(SeqCst);
    let put_back = done.put_back.load(SeqCst);
    assert_eq!(stats.gets, done.gets.load(SeqCst), "{stats}");
    assert_eq!(
        stats.misses, created,
        "every miss constructs one value: {stats}"
    );
    assert_eq!(
        created - dropped,
        stats.retained as u64,
        "values alive = values retained (nothing is held): {stats}"
    );
    // Every value ends in exactly one place; nothing is held.
    assert_balanced(stats, 0, put_back);

    // No value is stranded anywhere: after a clear, none is alive.
    T::pool().clear();
    assert_eq!(T::pool().stats().retained, 0);
    assert_eq!(
        track.created.load(SeqCst),
        track.dropped.load(SeqCst),
        "values leaked"
    );
}

#[test]
fn derived_pool_never_hands_out_a_live_value_nor_loses_one() {
    contend::<Derived>();
}

#[test]
fn static_pool_never_hands_out_a_live_value_nor_loses_one() {
    contend::<Plain>();
}
