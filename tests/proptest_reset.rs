//! Property: from any state, a derived reset gives `Default::default()` and
//! no collection loses capacity.

use poolable::Reset;
use proptest::collection::{btree_set, hash_map, vec, vec_deque};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap, VecDeque};

#[derive(Reset, Debug, Default, PartialEq, Clone)]
struct Inner {
    id: u64,
    label: String,
    tags: Vec<u8>,
}

#[derive(Reset, Debug, Default, PartialEq)]
struct State {
    small: u8,
    signed: i64,
    wide: u128,
    single: f32,
    double: f64,
    flag: bool,
    letter: char,
    text: String,
    nums: Vec<u32>,
    words: Vec<String>,
    maybe: Option<String>,
    map: HashMap<String, u32>,
    set: BTreeSet<u8>,
    deque: VecDeque<u8>,
    bytes: [u8; 8],
    pair: (u16, String),
    inner: Inner,
    boxed: Option<Box<Inner>>,
}

/// The capacities a reset must keep.
#[derive(Debug, PartialEq)]
struct Capacities {
    text: usize,
    nums: usize,
    words: usize,
    map: usize,
    deque: usize,
    pair: usize,
    inner_label: usize,
    inner_tags: usize,
}

impl Capacities {
    fn of(s: &State) -> Self {
        Capacities {
            text: s.text.capacity(),
            nums: s.nums.capacity(),
            words: s.words.capacity(),
            map: s.map.capacity(),
            deque: s.deque.capacity(),
            pair: s.pair.1.capacity(),
            inner_label: s.inner.label.capacity(),
            inner_tags: s.inner.tags.capacity(),
        }
    }
}

/// Spare capacity on top of the contents, so a reset that reallocates to fit
/// would be caught.
fn spare() -> impl Strategy<Value = usize> {
    0_usize..32
}

prop_compose! {
    fn arb_inner()(
        id in any::<u64>(),
        label in ".{0,12}",
        tags in vec(any::<u8>(), 0..12),
        extra in spare(),
    ) -> Inner {
        let mut tags = tags;
        tags.reserve(extra);
        Inner { id, label, tags }
    }
}

prop_compose! {
    fn arb_scalars()(
        small in any::<u8>(),
        signed in any::<i64>(),
        wide in any::<u128>(),
        single in any::<f32>(),
        double in any::<f64>(),
        flag in any::<bool>(),
        letter in any::<char>(),
        bytes in any::<[u8; 8]>(),
    ) -> (u8, i64, u128, f32, f64, bool, char, [u8; 8]) {
        (small, signed, wide, single, double, flag, letter, bytes)
    }
}

prop_compose! {
    fn arb_collections()(
        text in ".{0,24}",
        nums in vec(any::<u32>(), 0..24),
        words in vec(".{0,8}", 0..8),
        maybe in proptest::option::of(".{0,8}"),
        map in hash_map(".{0,6}", any::<u32>(), 0..12),
        set in btree_set(any::<u8>(), 0..12),
        deque in vec_deque(any::<u8>(), 0..24),
        pair in (any::<u16>(), ".{0,8}"),
        extra in spare(),
    ) -> (String, Vec<u32>, Vec<String>, Option<String>, HashMap<String, u32>,
          BTreeSet<u8>, VecDeque<u8>, (u16, String), usize) {
        (text, nums, words, maybe, map, set, deque, pair, extra)
    }
}

prop_compose! {
    fn arb_state()(
        scalars in arb_scalars(),
        collections in arb_collections(),
        inner in arb_inner(),
        boxed in proptest::option::of(arb_inner().prop_map(Box::new)),
    ) -> State {
        let (small, signed, wide, single, double, flag, letter, bytes) = scalars;
        let (mut text, mut nums, words, maybe, map, set, mut deque, pair, extra) = collections;
        text.reserve(extra);
        nums.reserve(extra);
        deque.reserve(extra);
        State {
            small, signed, wide, single, double, flag, letter,
            text, nums, words, maybe, map, set, deque, bytes, pair, inner, boxed,
        }
    }
}

proptest! {
    #[test]
    fn derived_reset_gives_default_and_keeps_capacity(state in arb_state()) {
        let mut state = state;
        let before = Capacities::of(&state);
        state.reset();

        // Floats are reset to +0.0; compare bits so -0.0 would be caught.
        prop_assert_eq!(state.single.to_bits(), 0.0_f32.to_bits());
        prop_assert_eq!(state.double.to_bits(), 0.0_f64.to_bits());
        prop_assert_eq!(&state, &State::default());

        let after = Capacities::of(&state);
        prop_assert!(after.text >= before.text, "text {:?} -> {:?}", before, after);
        prop_assert!(after.nums >= before.nums, "nums {:?} -> {:?}", before, after);
        prop_assert!(after.words >= before.words, "words {:?} -> {:?}", before, after);
        prop_assert!(after.map >= before.map, "map {:?} -> {:?}", before, after);
        prop_assert!(after.deque >= before.deque, "deque {:?} -> {:?}", before, after);
        prop_assert!(after.pair >= before.pair, "pair {:?} -> {:?}", before, after);
        prop_assert!(after.inner_label >= before.inner_label, "label {:?} -> {:?}", before, after);
        prop_assert!(after.inner_tags >= before.inner_tags, "tags {:?} -> {:?}", before, after);
    }

    #[test]
    fn derived_heap_bytes_after_reset_counts_kept_capacity(state in arb_state()) {
        let mut state = state;
        state.reset();
        let floor = state.text.capacity()
            + state.nums.capacity() * 4
            + state.words.capacity() * std::mem::size_of::<String>()
            + state.deque.capacity()
            + state.pair.1.capacity()
            + state.inner.label.capacity()
            + state.inner.tags.capacity();
        let map_bytes = state.map.capacity() * std::mem::size_of::<(String, u32)>();
        prop_assert!(state.heap_bytes() >= floor + map_bytes,
            "heap_bytes {} < kept capacity {}", state.heap_bytes(), floor + map_bytes);
    }

    #[test]
    fn reset_is_idempotent(state in arb_state()) {
        let mut state = state;
        state.reset();
        let caps = Capacities::of(&state);
        let bytes = state.heap_bytes();
        state.reset();
        prop_assert_eq!(&state, &State::default());
        prop_assert_eq!(Capacities::of(&state), caps);
        prop_assert_eq!(state.heap_bytes(), bytes);
    }
}
