//! Property tests of the derives: proptest generates dirty values, and a
//! reset must give the fresh value and keep what it should.
//!
//! One wide struct first (`State`, many field kinds at once, on proptest's
//! default configuration): from any state, a derived reset gives
//! `Default::default()` and no collection loses capacity, `heap_bytes`
//! counts the capacity kept, and a second reset changes nothing.
//!
//! Then the derive's input space, sampled (formerly `derive_fuzz.rs`): a
//! `macro_rules!` generator declares struct shapes with different field
//! mixes (scalars, strings, collections, options, boxes, tuples, arrays,
//! nested derived types, and the `skip`, `default`, `with`, `zeroize`,
//! `max_capacity` and `heap_bytes` attributes), plus a few hand-written
//! shapes the generator cannot express (tuple struct, unit struct, generic,
//! recursive, `Box<[u8]>`).
//!
//! For each shape, proptest generates dirty values and checks that
//! - `reset` gives exactly the expected fresh value, built field by field
//!   from the field's rule (`Default::default()` for a reset field, the dirty
//!   value for `skip`, the `with` function applied to the dirty value), not
//!   from the struct's own `Default`;
//! - `reset` is idempotent;
//! - `max_capacity` fields are shrunk to the bound;
//! - for `#[derive(Poolable)]` shapes, a dirty value `put` in the type's pool
//!   comes back from `get` in the same fresh state.

use poolable::{DEFAULT_MAX_BYTES, Poolable, Reset};
use proptest::collection::{btree_set, hash_map, vec, vec_deque};
use proptest::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::num::Wrapping;
use std::time::Duration;

// ===========================================================================
// One wide struct.

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

// ===========================================================================
// The derive's input space.

const CASES: u32 = 96;

/// `CASES` cases, and no regression files written next to the tests.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Field types and helpers.

/// A type without a `Reset` impl, for `#[poolable(default)]`.
#[derive(Clone, Debug, Default, PartialEq)]
enum Mode {
    #[default]
    Idle,
    Busy(u8),
    Named(String),
}

impl Arbitrary for Mode {
    type Parameters = ();
    type Strategy = BoxedStrategy<Mode>;
    fn arbitrary_with(_: ()) -> Self::Strategy {
        prop_oneof![
            Just(Mode::Idle),
            any::<u8>().prop_map(Mode::Busy),
            any::<String>().prop_map(Mode::Named),
        ]
        .boxed()
    }
}

/// Another type without a `Reset` impl.
#[derive(Clone, Debug, Default, PartialEq)]
struct Label(String);

impl Arbitrary for Label {
    type Parameters = ();
    type Strategy = BoxedStrategy<Label>;
    fn arbitrary_with(_: ()) -> Self::Strategy {
        any::<String>().prop_map(Label).boxed()
    }
}

/// A `with` rule whose result is not the default.
fn seven(x: &mut u32) {
    *x = 7;
}

fn keep_first_char(s: &mut String) {
    let first = s.chars().next();
    s.clear();
    s.extend(first);
}

fn wipe_mode(m: &mut Mode) {
    *m = Mode::Busy(0);
}

// What the three `with` functions above leave: their fields' reset state,
// for reset verification (the types' own `is_reset` expects zero / empty).
fn is_seven(x: &u32) -> bool {
    *x == 7
}

#[allow(clippy::ptr_arg)] // `check` takes a `fn(&FieldType) -> bool`
fn at_most_one_char(s: &String) -> bool {
    s.chars().count() <= 1
}

fn is_busy_zero(m: &Mode) -> bool {
    *m == Mode::Busy(0)
}

fn string_bytes(s: &String) -> usize {
    s.capacity()
}

/// Capacity, for the `max_capacity` check.
trait Capacity {
    fn cap(&self) -> usize;
}

impl<T> Capacity for Vec<T> {
    fn cap(&self) -> usize {
        self.capacity()
    }
}

impl Capacity for String {
    fn cap(&self) -> usize {
        self.capacity()
    }
}

impl<T> Capacity for VecDeque<T> {
    fn cap(&self) -> usize {
        self.capacity()
    }
}

impl<K, V> Capacity for HashMap<K, V> {
    fn cap(&self) -> usize {
        self.capacity()
    }
}

// ---------------------------------------------------------------------------
// Dirty-value strategies, kept small (a few elements per collection, short
// strings) so that the run stays fast in debug builds.

/// A strategy for arbitrary ("dirty") values of a field type.
trait Dirty: Sized + core::fmt::Debug + 'static {
    fn dirty() -> BoxedStrategy<Self>;
}

const MAX_LEN: usize = 6;

macro_rules! dirty_via_any {
    ($($ty:ty),* $(,)?) => {
        $(impl Dirty for $ty {
            fn dirty() -> BoxedStrategy<Self> {
                any::<$ty>().boxed()
            }
        })*
    };
}

dirty_via_any!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i32,
    i64,
    bool,
    char,
    (),
    Duration,
    Wrapping<u32>,
    Cell<u32>,
    Mode,
    Label,
    Tup,
);

impl Dirty for String {
    fn dirty() -> BoxedStrategy<Self> {
        prop::collection::vec(any::<char>(), 0..MAX_LEN)
            .prop_map(String::from_iter)
            .boxed()
    }
}

macro_rules! dirty_collection {
    ($($coll:ident<T> where [$($bound:tt)*] => $make:expr;)*) => {
        $(impl<T: Dirty $($bound)*> Dirty for $coll<T> {
            fn dirty() -> BoxedStrategy<Self> {
                $make.boxed()
            }
        })*
    };
}

dirty_collection! {
    Vec<T> where [] => prop::collection::vec(T::dirty(), 0..MAX_LEN);
    VecDeque<T> where [] => prop::collection::vec_deque(T::dirty(), 0..MAX_LEN);
    LinkedList<T> where [] => prop::collection::linked_list(T::dirty(), 0..MAX_LEN);
    BTreeSet<T> where [+ Ord] => prop::collection::btree_set(T::dirty(), 0..MAX_LEN);
    HashSet<T> where [+ Eq + core::hash::Hash] => prop::collection::hash_set(T::dirty(), 0..MAX_LEN);
    Option<T> where [] => prop::option::of(T::dirty());
    Box<T> where [] => T::dirty().prop_map(Box::new);
    RefCell<T> where [] => T::dirty().prop_map(RefCell::new);
}

impl<K: Dirty + Ord, V: Dirty> Dirty for BTreeMap<K, V> {
    fn dirty() -> BoxedStrategy<Self> {
        prop::collection::btree_map(K::dirty(), V::dirty(), 0..MAX_LEN).boxed()
    }
}

impl<K: Dirty + Eq + core::hash::Hash, V: Dirty> Dirty for HashMap<K, V> {
    fn dirty() -> BoxedStrategy<Self> {
        prop::collection::hash_map(K::dirty(), V::dirty(), 0..MAX_LEN).boxed()
    }
}

impl<T: Dirty, const N: usize> Dirty for [T; N] {
    fn dirty() -> BoxedStrategy<Self> {
        prop::array::uniform::<_, N>(T::dirty()).boxed()
    }
}

macro_rules! dirty_tuple {
    ($($t:ident),+) => {
        impl<$($t: Dirty),+> Dirty for ($($t,)+) {
            fn dirty() -> BoxedStrategy<Self> {
                ($($t::dirty(),)+).boxed()
            }
        }
    };
}

dirty_tuple!(A);
dirty_tuple!(A, B);
dirty_tuple!(A, B, C);

impl<A: Dirty, B: Dirty> Dirty for Pair<A, B> {
    fn dirty() -> BoxedStrategy<Self> {
        (A::dirty(), B::dirty())
            .prop_map(|(a, b)| Pair { a, b })
            .boxed()
    }
}

// ---------------------------------------------------------------------------
// The generator.

/// The expected fresh value of one field, from its rule.
macro_rules! expected {
    (fresh, [$($ty:tt)*], $dirty:expr) => {
        <$($ty)* as Default>::default()
    };
    (capped($n:expr), [$($ty:tt)*], $dirty:expr) => {
        <$($ty)* as Default>::default()
    };
    (keep, [$($ty:tt)*], $dirty:expr) => {
        $dirty.clone()
    };
    (with($f:path), [$($ty:tt)*], $dirty:expr) => {{
        let mut value: $($ty)* = $dirty.clone();
        $f(&mut value);
        value
    }};
}

/// Extra checks of one field after the reset.
macro_rules! check_field {
    (capped($n:expr), $value:expr) => {
        prop_assert!(
            Capacity::cap(&$value) <= $n,
            "capacity {} over {}",
            Capacity::cap(&$value),
            $n
        );
    };
    ($rule:ident $(($($arg:tt)*))?, $value:expr) => {};
}

/// The pool round trip, for `#[derive(Poolable)]` shapes.
macro_rules! round_trip {
    ((Poolable), $name:ident, $dirty:expr, $expected:expr) => {{
        let pool = <$name as Poolable>::pool();
        let mut probe = $dirty.clone();
        Reset::reset(&mut probe);
        // An oversized value is dropped, and `get` would build a new one.
        if Reset::heap_bytes(&probe) <= DEFAULT_MAX_BYTES {
            // Empty the pool first: once it is full, a returned value is
            // dropped and `get` would hand out an older one.
            pool.clear();
            pool.put($dirty.clone());
            let got = pool.get();
            prop_assert_eq!(&*got, &$expected);
        }
    }};
    ((Reset), $name:ident, $dirty:expr, $expected:expr) => {};
}

/// Declare a shape and its property test:
///
/// ```text
/// shape!(module #[derive(Poolable | Reset)] Name {
///     #[poolable(...)] field: [Type] => rule,
///     ...
/// });
/// ```
///
/// `rule` says how the expected value of the field is built: `fresh`
/// (`Default::default()`), `capped(N)` (fresh, and capacity at most N),
/// `keep` (the dirty value) or `with(f)` (`f` applied to the dirty value).
///
/// The derive attribute and the field types are passed in as plain token
/// trees, and re-emitted as they are. Written in the macro body, or captured
/// as `meta` / `ty` fragments, they would reach the derive with the macro's
/// hygiene while `with = path` keeps the caller's, and the generated
/// `self.field` would not resolve (E0424; see the reliability report).
macro_rules! shape {
    ($m:ident #[$derive:ident $list:tt] $name:ident {
        $( $(#[$($attr:tt)*])* $field:ident : [$($ty:tt)*] => $rule:ident $(($($arg:tt)*))? ),+ $(,)?
    }) => {
        #[$derive $list]
        #[derive(Default, Clone, Debug, PartialEq)]
        struct $name {
            $( $(#[$($attr)*])* $field: $($ty)*, )+
        }

        impl Dirty for $name {
            fn dirty() -> BoxedStrategy<$name> {
                ( $( <$($ty)* as Dirty>::dirty(), )+ )
                    .prop_map(|( $( $field, )+ )| $name { $( $field, )+ })
                    .boxed()
            }
        }

        mod $m {
            use super::*;

            #[allow(unused_variables)]
            fn expected(dirty: &$name) -> $name {
                $name {
                    $( $field: expected!($rule $(($($arg)*))?, [$($ty)*], dirty.$field), )+
                }
            }

            proptest! {
                #![proptest_config(config())]

                #[test]
                fn reset_gives_the_fresh_state(dirty in <$name as Dirty>::dirty()) {
                    let expected = expected(&dirty);
                    let mut value = dirty.clone();
                    Reset::reset(&mut value);
                    prop_assert_eq!(&value, &expected);
                    $( check_field!($rule $(($($arg)*))?, value.$field); )+
                    Reset::reset(&mut value);
                    prop_assert_eq!(&value, &expected, "reset is not idempotent");
                    round_trip!($list, $name, dirty, expected);
                }
            }
        }
    };
}

// ---------------------------------------------------------------------------
// Generated shapes.

shape!(s01_scalars #[derive(Poolable)] S01 {
    a: [u8] => fresh,
    b: [i64] => fresh,
    c: [bool] => fresh,
    d: [char] => fresh,
    e: [u128] => fresh,
    f: [usize] => fresh,
    g: [i8] => fresh,
});

shape!(s02_buffers #[derive(Reset)] S02 {
    s: [String] => fresh,
    v: [Vec<u8>] => fresh,
    vs: [Vec<String>] => fresh,
});

shape!(s03_options #[derive(Poolable)] S03 {
    o1: [Option<u32>] => fresh,
    o2: [Option<String>] => fresh,
    o3: [Option<Box<S02>>] => fresh,
    o4: [Option<Vec<u8>>] => fresh,
    o5: [Option<Option<bool>>] => fresh,
});

shape!(s04_tuples #[derive(Reset)] S04 {
    t1: [(String,)] => fresh,
    t2: [(u8, String)] => fresh,
    t3: [(Vec<u8>, Option<u16>, bool)] => fresh,
    unit: [()] => fresh,
});

shape!(s05_arrays #[derive(Poolable)] S05 {
    bytes: [[u8; 16]] => fresh,
    strings: [[String; 3]] => fresh,
    pairs: [[(u8, Option<u8>); 2]] => fresh,
    grid: [[[u16; 4]; 4]] => fresh,
});

shape!(s06_collections #[derive(Reset)] S06 {
    hm: [HashMap<String, u32>] => fresh,
    bm: [BTreeMap<u8, String>] => fresh,
    hs: [HashSet<u64>] => fresh,
    bs: [BTreeSet<String>] => fresh,
    vd: [VecDeque<u16>] => fresh,
    ll: [LinkedList<u8>] => fresh,
});

shape!(s07_nested #[derive(Poolable)] S07 {
    inner: [S02] => fresh,
    tuple: [S04] => fresh,
    boxed: [Box<S01>] => fresh,
    opt: [Option<Box<S05>>] => fresh,
});

shape!(s08_skip #[derive(Poolable)] S08 {
    #[poolable(skip)]
    id: [u64] => keep,
    #[poolable(skip)]
    name: [String] => keep,
    data: [Vec<u8>] => fresh,
    #[poolable(skip)]
    nested: [S02] => keep,
});

shape!(s09_default #[derive(Reset)] S09 {
    #[poolable(default)]
    mode: [Mode] => fresh,
    #[poolable(default)]
    label: [Label] => fresh,
    #[poolable(default)]
    name: [String] => fresh,
    n: [u32] => fresh,
});

shape!(s10_with #[derive(Poolable)] S10 {
    #[poolable(with = seven, check = is_seven)]
    x: [u32] => with(seven),
    #[poolable(with = keep_first_char, check = at_most_one_char)]
    s: [String] => with(keep_first_char),
    #[poolable(with = wipe_mode, check = is_busy_zero)]
    mode: [Mode] => with(wipe_mode),
    y: [i8] => fresh,
});

shape!(s11_zeroize #[derive(Poolable)] S11 {
    #[poolable(zeroize)]
    v: [Vec<u8>] => fresh,
    #[poolable(zeroize)]
    s: [String] => fresh,
    #[poolable(zeroize)]
    key: [[u8; 32]] => fresh,
    plain: [Vec<u8>] => fresh,
});

shape!(s12_max_capacity #[derive(Reset)] S12 {
    #[poolable(max_capacity = 4)]
    v: [Vec<u32>] => capped(4),
    #[poolable(max_capacity = 8)]
    s: [String] => capped(8),
    #[poolable(max_capacity = 2)]
    m: [HashMap<u8, u8>] => capped(2),
    #[poolable(max_capacity = 3)]
    d: [VecDeque<u8>] => capped(3),
});

shape!(s13_zeroize_and_cap #[derive(Poolable)] S13 {
    #[poolable(zeroize, max_capacity = 16)]
    buf: [Vec<u8>] => capped(16),
    #[poolable(max_capacity = 0)]
    none: [Vec<String>] => capped(0),
    #[poolable(zeroize, max_capacity = 5)]
    text: [String] => capped(5),
});

shape!(s14_heap_bytes #[derive(Reset)] S14 {
    #[poolable(heap_bytes = string_bytes)]
    s: [String] => fresh,
    #[poolable(skip, heap_bytes = string_bytes)]
    kept: [String] => keep,
    w: [Wrapping<u32>] => fresh,
    d: [Duration] => fresh,
});

shape!(s15_everything #[derive(Poolable)] S15 {
    #[poolable(skip)]
    id: [u32] => keep,
    #[poolable(default)]
    mode: [Mode] => fresh,
    #[poolable(with = seven, check = is_seven)]
    x: [u32] => with(seven),
    #[poolable(zeroize)]
    secret: [Vec<u8>] => fresh,
    nested: [S09] => fresh,
    boxed: [Option<Box<S10>>] => fresh,
    headers: [Vec<(String, String)>] => fresh,
});

shape!(s16_deep #[derive(Reset)] S16 {
    vv: [Vec<Vec<String>>] => fresh,
    oo: [Option<Option<u8>>] => fresh,
    bob: [Box<Option<Box<String>>>] => fresh,
    pair: [(S01, S02)] => fresh,
    bx: [Box<S08>] => with(reset_s08),
});

/// `Box<S08>` resets in place, so its `skip` fields stay.
fn reset_s08(b: &mut Box<S08>) {
    b.data.clear();
}

shape!(s17_cells #[derive(Poolable)] S17 {
    c: [Cell<u32>] => fresh,
    r: [RefCell<Vec<u8>>] => fresh,
    n: [u16] => fresh,
});

shape!(s18_generic_fields #[derive(Reset)] S18 {
    p1: [Pair<String, Vec<u8>>] => fresh,
    p2: [Pair<u8, Option<String>>] => fresh,
    t: [Tup] => with(reset_tup),
});

shape!(s19_vec_of_nested #[derive(Poolable)] S19 {
    many: [Vec<S01>] => fresh,
    tagged: [Vec<(String, S04)>] => fresh,
    opt: [Option<Box<S03>>] => fresh,
});

shape!(s20_ten_fields #[derive(Reset)] S20 {
    a: [u8] => fresh,
    b: [u16] => fresh,
    c: [u32] => fresh,
    d: [u64] => fresh,
    e: [String] => fresh,
    f: [Vec<u8>] => fresh,
    g: [Option<u8>] => fresh,
    h: [(bool, char)] => fresh,
    i: [[i32; 3]] => fresh,
    j: [BTreeMap<String, Vec<u8>>] => fresh,
});

shape!(s21_only_skip #[derive(Poolable)] S21 {
    #[poolable(skip)]
    a: [String] => keep,
    #[poolable(skip)]
    b: [Vec<u8>] => keep,
});

shape!(s22_one_field #[derive(Reset)] S22 {
    headers: [Vec<(String, String)>] => fresh,
});

shape!(s23_nested_skip #[derive(Poolable)] S23 {
    inner: [S08] => with(reset_s08_in_place),
    outer: [S21] => keep,
    count: [u64] => fresh,
});

/// A nested `S08` is reset field by field: its `skip` fields stay.
fn reset_s08_in_place(s: &mut S08) {
    s.data.clear();
}

shape!(s24_defaults_everywhere #[derive(Reset)] S24 {
    #[poolable(default)]
    v: [Vec<u8>] => fresh,
    #[poolable(default)]
    o: [Option<Label>] => fresh,
    #[poolable(default)]
    t: [(Mode, Label)] => fresh,
    #[poolable(default)]
    nested: [S02] => fresh,
});

// ---------------------------------------------------------------------------
// Hand-written shapes.

/// A generic derived type, used as a field type above.
#[derive(Reset, Default, Clone, Debug, PartialEq)]
struct Pair<A, B> {
    a: A,
    b: B,
}

/// A tuple struct with a `skip` field.
#[derive(Reset, Default, Clone, Debug, PartialEq)]
struct Tup(String, #[poolable(skip)] u32, Option<u8>);

fn reset_tup(t: &mut Tup) {
    t.0.clear();
    t.2 = None;
}

impl Arbitrary for Tup {
    type Parameters = ();
    type Strategy = BoxedStrategy<Self>;
    fn arbitrary_with(_: ()) -> Self::Strategy {
        (any::<String>(), any::<u32>(), any::<Option<u8>>())
            .prop_map(|(a, b, c)| Tup(a, b, c))
            .boxed()
    }
}

/// A generic type with its own pool (one per instantiation, from the registry).
#[derive(Poolable, Default, Clone, Debug, PartialEq)]
struct Generic<T: Send + 'static> {
    items: Vec<T>,
    #[poolable(skip)]
    tag: u8,
}

/// A recursive type.
#[derive(Poolable, Default, Clone, Debug, PartialEq)]
struct Tree {
    value: u32,
    children: Vec<Tree>,
    next: Option<Box<Tree>>,
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = any::<u32>().prop_map(|value| Tree {
        value,
        ..Tree::default()
    });
    leaf.prop_recursive(4, 32, 4, |inner| {
        (
            any::<u32>(),
            prop::collection::vec(inner.clone(), 0..4),
            prop::option::of(inner.prop_map(Box::new)),
        )
            .prop_map(|(value, children, next)| Tree {
                value,
                children,
                next,
            })
    })
}

/// `Box<[u8]>` with `zeroize`: the box keeps its length, every byte zero.
#[derive(Poolable, Clone, Debug, PartialEq)]
#[poolable(new = Keys::new)]
struct Keys {
    #[poolable(zeroize)]
    key: Box<[u8]>,
    #[poolable(zeroize)]
    iv: [u8; 12],
}

impl Keys {
    fn new() -> Keys {
        Keys {
            key: vec![0; 32].into_boxed_slice(),
            iv: [0; 12],
        }
    }
}

/// A unit struct and an empty struct.
#[derive(Poolable, Default, Clone, Debug, PartialEq)]
struct Unit;

#[derive(Reset, Default, Clone, Debug, PartialEq)]
struct Empty {}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tuple_struct_reset_keeps_only_the_skip_field(dirty in any::<Tup>()) {
        let mut value = dirty.clone();
        value.reset();
        prop_assert_eq!(value, Tup(String::new(), dirty.1, None));
    }

    #[test]
    fn generic_type_resets_in_each_instantiation(
        strings in any::<Vec<String>>(),
        numbers in any::<Vec<u64>>(),
        tag in any::<u8>(),
    ) {
        let a = Generic { items: strings, tag };
        let b = Generic { items: numbers, tag };
        Generic::<String>::pool().clear();
        Generic::<u64>::pool().clear();
        Generic::<String>::pool().put(a);
        Generic::<u64>::pool().put(b);
        let (a, b) = (Generic::<String>::pool().get(), Generic::<u64>::pool().get());
        prop_assert_eq!(&*a, &Generic { items: Vec::new(), tag });
        prop_assert_eq!(&*b, &Generic { items: Vec::new(), tag });
    }

    #[test]
    fn recursive_type_resets_to_default(dirty in tree()) {
        let mut value = dirty.clone();
        value.reset();
        prop_assert_eq!(&value, &Tree::default());
        Tree::pool().clear();
        Tree::pool().put(dirty);
        prop_assert_eq!(&*Tree::pool().get(), &Tree::default());
    }

    #[test]
    fn zeroized_boxed_slice_keeps_its_length_and_is_all_zeros(
        key in prop::collection::vec(any::<u8>(), 0..64),
        iv in any::<[u8; 12]>(),
    ) {
        let len = key.len();
        Keys::pool().clear();
        Keys::pool().put(Keys { key: key.into_boxed_slice(), iv });
        let got = Keys::pool().get();
        prop_assert_eq!(&*got, &Keys { key: vec![0; len].into_boxed_slice(), iv: [0; 12] });
    }
}

#[test]
fn unit_and_empty_structs_reset_and_pool() {
    let mut unit = Unit;
    unit.reset();
    assert_eq!(unit.heap_bytes(), 0);
    drop(Unit::pool().get());
    assert_eq!(*Unit::pool().get(), Unit);
    let mut empty = Empty {};
    empty.reset();
    assert_eq!(empty, Empty::default());
}
