//! A model of one thread's use of a `Pool`, checked against the real one
//! under random sequences of operations (proptest).
//!
//! Every value carries an id and reports its drop to a per-thread book, so
//! the test knows which values are alive, which a guard holds, and which
//! are idle in the pool. After every operation:
//! - the pool's counters balance (`Stats::is_balanced`) with the guards
//!   held and the values given from outside;
//! - the pool retains exactly the live values no guard holds, never more
//!   than its `max_retained` (one thread alone), each counted at its size;
//! - a get hands out a reset value that no other guard holds;
//! - a return within the size cap is kept exactly when the pool retains
//!   fewer than `max_retained` values, else dropped as full;
//! - a value returned over the size cap is dropped at once, or, under
//!   `Oversize::Shrink`, shrunk and then kept as any other;
//! - after `clear`, and after two trims in a row, nothing is idle, and no
//!   value idle before a `clear` is handed out after it.
//!
//! The unit tests pin each rule on one path; this checks that no sequence
//! of them (gets interleaved with returns, trims, clears, prefills, values
//! given and taken out) breaks one.

mod common {
    pub mod balance;
}

use common::balance::assert_balanced;
use poolable::{Oversize, Pool, Pooled, Reset};
use proptest::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Each value's bytes: the size cap counts `size_of::<Item>()` beside them.
const CAP: usize = 256;

#[derive(Debug)]
struct Item {
    id: u64,
    data: Vec<u8>,
}

#[derive(Default)]
struct Book {
    next_id: u64,
    live: BTreeSet<u64>,
}

thread_local! {
    static BOOK: RefCell<Book> = RefCell::default();
}

fn mint() -> Item {
    BOOK.with_borrow_mut(|book| {
        let id = book.next_id;
        book.next_id += 1;
        book.live.insert(id);
        Item {
            id,
            data: Vec::new(),
        }
    })
}

fn live() -> BTreeSet<u64> {
    BOOK.with_borrow(|book| book.live.clone())
}

impl Drop for Item {
    fn drop(&mut self) {
        BOOK.with_borrow_mut(|book| assert!(book.live.remove(&self.id), "dropped twice"));
    }
}

impl Reset for Item {
    fn reset(&mut self) {
        self.data.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.data.capacity()
    }
    fn is_reset(&self) -> bool {
        self.data.is_empty()
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        self.data.shrink_to(max_bytes);
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// Take a value and hold its guard.
    Get,
    /// Write `n` bytes into held guard `i % held` (a value over the cap is
    /// dropped on return).
    Write(usize, usize),
    /// Drop held guard `i % held`.
    Drop(usize),
    /// Take held guard `i % held`'s value out for good, and drop it.
    IntoInner(usize),
    /// Give the pool a value made outside it, with `n` bytes written.
    Put(usize),
    Reserve(usize),
    Trim,
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => Just(Op::Get),
        3 => (any::<usize>(), 0..400usize).prop_map(|(i, n)| Op::Write(i, n)),
        6 => any::<usize>().prop_map(Op::Drop),
        1 => any::<usize>().prop_map(Op::IntoInner),
        2 => (0..400usize).prop_map(Op::Put),
        1 => (0..24usize).prop_map(Op::Reserve),
        2 => Just(Op::Trim),
        1 => Just(Op::Clear),
    ]
}

/// The size the pool counts a value at (`Stats::retained_bytes`).
fn kept_size(item: &Item) -> usize {
    size_of::<Item>() + item.heap_bytes()
}

fn run(max_retained: usize, oversize: Oversize, ops: &[Op]) {
    let pool: Pool<Item> = Pool::with_new(mint)
        .max_retained(max_retained)
        .max_bytes(CAP)
        .oversize(oversize);
    let mut held: Vec<Pooled<'_, Item>> = Vec::new();
    let mut external = 0u64;
    // The values idle at the last `clear`: none may be handed out again.
    let mut cleared = BTreeSet::new();
    let mut trims_in_a_row = 0;
    for (step, op) in ops.iter().enumerate() {
        let at = format!("step {step}, {op:?}");
        let before = pool.stats();
        trims_in_a_row = if matches!(op, Op::Trim) {
            trims_in_a_row + 1
        } else {
            0
        };
        match *op {
            Op::Get => {
                let value = pool.get();
                assert!(value.is_reset(), "{at}: handed out dirty: {value:?}");
                assert!(
                    held.iter().all(|other| other.id != value.id),
                    "{at}: {} handed out twice",
                    value.id
                );
                assert!(
                    !cleared.contains(&value.id),
                    "{at}: {} survived a clear",
                    value.id
                );
                held.push(value);
            }
            Op::Write(i, n) if !held.is_empty() => {
                let k = i % held.len();
                held[k].data.extend(std::iter::repeat_n(7, n));
            }
            Op::Drop(i) if !held.is_empty() => {
                let value = held.swap_remove(i % held.len());
                let (id, size) = (value.id, kept_size(&value));
                drop(value);
                let stats = pool.stats();
                if size > CAP && oversize == Oversize::Drop {
                    assert!(
                        !live().contains(&id),
                        "{at}: {size} bytes kept over the cap"
                    );
                    assert_eq!(stats.dropped_oversize, before.dropped_oversize + 1, "{at}");
                } else if size > CAP {
                    // Shrunk to fit (a `Vec<u8>` can), then kept if there is room.
                    assert_eq!(stats.shrunk, before.shrunk + 1, "{at}: {stats}");
                    assert_eq!(stats.dropped_oversize, before.dropped_oversize, "{at}");
                }
                if size <= CAP || oversize == Oversize::Shrink {
                    let kept = live().contains(&id);
                    let full = stats.dropped_full - before.dropped_full;
                    assert_eq!(full, u64::from(!kept), "{at}: {stats}");
                    assert_eq!(
                        kept,
                        before.retained < max_retained,
                        "{at}: {before} then {stats}"
                    );
                }
            }
            Op::IntoInner(i) if !held.is_empty() => {
                let value = held.swap_remove(i % held.len());
                let item = Pooled::into_inner(value);
                assert!(live().contains(&item.id), "{at}");
                drop(item);
            }
            Op::Put(n) => {
                let mut item = mint();
                item.data.extend(std::iter::repeat_n(1, n));
                pool.put(item);
                external += 1;
            }
            Op::Reserve(n) => {
                let made = pool.reserve(n);
                assert!(made <= n, "{at}: {made} made");
            }
            Op::Trim => pool.trim(),
            Op::Clear => {
                cleared = idle(&held);
                pool.clear();
            }
            // Writes, drops and takes with no guard held.
            _ => {}
        }

        let stats = pool.stats();
        assert_balanced(stats, held.len() as u64, external);
        let idle = idle(&held);
        assert_eq!(
            stats.retained,
            idle.len(),
            "{at}: idle values {idle:?}, {stats}"
        );
        assert!(stats.retained <= max_retained, "{at}: {stats}");
        if matches!(op, Op::Clear) || trims_in_a_row >= 2 {
            assert!(idle.is_empty(), "{at}: still idle {idle:?}, {stats}");
        }
        // Every idle value is within the cap, so its size is the value's
        // own plus at most the cap's heap; each held value's size is its own.
        let most = idle.len() * CAP;
        assert!(
            (idle.len() * size_of::<Item>()..=most).contains(&stats.retained_bytes),
            "{at}: {stats}"
        );
    }
    drop(held);
    drop(pool);
    assert!(
        live().is_empty(),
        "values outlived their pool: {:?}",
        live()
    );
}

/// The live values no guard holds: those the pool keeps.
fn idle(held: &[Pooled<'_, Item>]) -> BTreeSet<u64> {
    let mut idle = live();
    for value in held {
        idle.remove(&value.id);
    }
    idle
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 3 } else { 256 },
        // Miri runs it too (CI), where no file of failures can be read.
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    #[test]
    fn one_threads_pool_follows_the_model(
        max_retained in prop_oneof![Just(0usize), Just(1), Just(3), Just(8), Just(9), Just(20)],
        shrink in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let oversize = if shrink { Oversize::Shrink } else { Oversize::Drop };
        run(max_retained, oversize, &ops);
    }
}
