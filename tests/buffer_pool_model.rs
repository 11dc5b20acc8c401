//! A `BufferPool` under random sequences of operations (proptest), checked
//! after each against what it promises whatever the sequence:
//! - a get hands out an empty buffer of at least the capacity asked for,
//!   whose allocation no other guard holds;
//! - the counters of all classes together balance with the buffers held
//!   and those given from outside, however buffers moved between classes
//!   while they were out;
//! - the idle buffers are counted at their sizes, none over the ceiling;
//! - after `clear`, and after two trims in a row, no buffer is idle.
//!
//! Requests span the small classes, the large ones (over
//! `LOCAL_CACHE_MAX_BYTES`, with their margin of idle buffers) and sizes
//! over the ceiling; buffers grow in use, across classes and past it.

mod common {
    pub mod balance;
}

use common::balance::assert_balanced;
use poolable::{BufferPool, PooledBuf};
use proptest::prelude::*;

/// The pool's ceiling (`max_bytes`): a buffer over it is dropped on return.
const CEILING: usize = 256 << 10;
/// What the pool stores per buffer beside its heap.
const VEC: usize = size_of::<Vec<u8>>();

#[derive(Clone, Debug)]
enum Op {
    Get(usize),
    /// Write `n` bytes into held buffer `i % held`.
    Write(usize, usize),
    Drop(usize),
    /// Give the pool a buffer of this capacity, made outside it.
    Put(usize),
    Trim,
    Clear,
}

/// Sizes over the whole range: small classes, large ones, over the ceiling.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 0..4096usize,
        2 => 4096..(64usize << 10),
        2 => (64 << 10)..CEILING,
        1 => CEILING..(CEILING * 2),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => size().prop_map(Op::Get),
        2 => (any::<usize>(), 0..(96usize << 10)).prop_map(|(i, n)| Op::Write(i, n)),
        6 => any::<usize>().prop_map(Op::Drop),
        1 => size().prop_map(Op::Put),
        2 => Just(Op::Trim),
        1 => Just(Op::Clear),
    ]
}

fn run(ops: &[Op]) {
    let pool = BufferPool::new().max_bytes(CEILING);
    let mut held: Vec<PooledBuf<'_>> = Vec::new();
    let mut external = 0u64;
    let mut trims_in_a_row = 0;
    for (step, op) in ops.iter().enumerate() {
        let at = format!("step {step}, {op:?}");
        trims_in_a_row = if matches!(op, Op::Trim) {
            trims_in_a_row + 1
        } else {
            0
        };
        match *op {
            Op::Get(n) => {
                let buf = pool.get(n);
                assert!(buf.is_empty(), "{at}: handed out with {} bytes", buf.len());
                assert!(buf.capacity() >= n, "{at}: capacity {}", buf.capacity());
                if buf.capacity() > 0 {
                    let twice = held.iter().any(|other| other.as_ptr() == buf.as_ptr());
                    assert!(!twice, "{at}: an allocation handed out twice");
                }
                held.push(buf);
            }
            Op::Write(i, n) if !held.is_empty() => {
                let k = i % held.len();
                held[k].extend(std::iter::repeat_n(7, n));
            }
            Op::Drop(i) if !held.is_empty() => drop(held.swap_remove(i % held.len())),
            Op::Put(capacity) => {
                pool.put(Vec::with_capacity(capacity));
                external += 1;
            }
            Op::Trim => pool.trim(),
            Op::Clear => pool.clear(),
            // Writes and drops with no buffer held.
            _ => {}
        }

        let stats = pool.stats();
        assert_balanced(stats, held.len() as u64, external);
        let bytes = stats.retained_bytes;
        assert!(
            (stats.retained * VEC..=stats.retained * (CEILING + VEC)).contains(&bytes),
            "{at}: {stats}"
        );
        if matches!(op, Op::Clear) || trims_in_a_row >= 2 {
            assert_eq!((stats.retained, bytes), (0, 0), "{at}: {stats}");
        }
        let classes = pool.class_stats();
        let per_class: usize = classes.iter().map(|c| c.stats.retained).sum();
        assert_eq!(per_class, stats.retained, "{at}");
        for class in &classes {
            // A class keeps buffers from its capacity to just under the
            // next class's: never over the ceiling.
            let most = class.stats.retained * (class.capacity * 2 + VEC);
            assert!(class.stats.retained_bytes <= most, "{at}: {}", class.stats);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 1 } else { 128 },
        // Miri runs it too (CI), where no file of failures can be read.
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_buffer_pool_keeps_its_promises_under_any_sequence(
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        run(&ops);
    }
}
