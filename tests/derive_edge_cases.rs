//! The derive on what users write outside the common case: `Self` in the
//! pool's attributes, attribute values passed through `macro_rules!`
//! fragments, constant expressions syn reads only with its `full` feature,
//! fields of associated types, user functions named like the derive's
//! locals, deprecated structs, and `#[repr(C)]` ones. The derived code adds
//! no warning to the user's crate (`unused_parens` from `max_retained = (8)`,
//! `deprecated` from a deprecated struct's own derive).
#![deny(unused, deprecated)]
// The measures are `fn(&Vec<u8>)`, as the fields' type says.
#![allow(clippy::ptr_arg)]

use poolable::{Poolable, Reset};

// --- `Self` in the pool's attributes (the pool is a `static`, an item of
// its own, where `Self` is not the struct).

#[derive(Poolable)]
#[poolable(new = Self::with_room, max_bytes = Self::CAP, max_retained = Self::KEEP)]
struct Presized {
    buf: Vec<u8>,
}

impl Presized {
    const CAP: usize = 4096;
    const KEEP: usize = 4;

    fn with_room() -> Self {
        Presized {
            buf: Vec::with_capacity(64),
        }
    }
}

#[test]
fn self_in_new_and_max_bytes_names_the_struct() {
    let mut buf = Presized::pool().get();
    assert!(buf.buf.capacity() >= 64);
    buf.buf.reserve(10_000); // over `Self::CAP`
    drop(buf);
    assert_eq!(Presized::pool().stats().dropped_oversize, 1);
}

// --- Values through `macro_rules!` fragments, which arrive in invisible
// groups.

fn clear_and_mark(v: &mut Vec<u8>) {
    v.clear();
}

fn with_room() -> Fragments {
    Fragments {
        a: Vec::with_capacity(32),
        b: String::new(),
    }
}

macro_rules! pooled {
    ($name:ident, $label:literal, $oversize:expr, $new:path, $cap:expr, $with:path, $keep:literal) => {
        #[derive(Poolable)]
        #[poolable(name = $label, oversize = $oversize, new = $new, max_bytes = $cap, max_retained = $keep)]
        struct $name {
            #[poolable(with = $with)]
            a: Vec<u8>,
            b: String,
        }
    };
}

pooled!(
    Fragments,
    "derive-edge-fragments",
    "shrink",
    with_room,
    1 << 12,
    clear_and_mark,
    8
);

#[test]
fn attribute_values_may_be_macro_fragments() {
    let mut value = Fragments::pool().get();
    assert!(value.a.capacity() >= 32); // `new = $new`
    value.b.reserve(10_000); // over `max_bytes = $cap`: shrunk (`oversize = $oversize`)
    value.a.push(1);
    drop(value);
    let stats = Fragments::pool().stats();
    assert_eq!((stats.shrunk, stats.retained), (1, 1));
    let value = Fragments::pool().get();
    assert!(value.a.is_empty() && value.b.capacity() < 10_000);
    assert!(
        poolable::pools()
            .iter()
            .any(|p| p.name() == "derive-edge-fragments")
    );
}

// --- Constant expressions syn parses only with `full` (`if`, `match`, a
// block), and parenthesised ones.

const SMALL: bool = true;

#[derive(Poolable, Default)]
#[poolable(
    max_bytes = if SMALL { 1 << 12 } else { 1 << 20 },
    max_retained = (8)
)]
struct Expressions {
    #[poolable(max_capacity = match SMALL { true => 16, false => 1024 })]
    a: Vec<u8>,
    #[poolable(max_capacity = { 8 })]
    b: Vec<u8>,
}

#[test]
fn attribute_values_may_be_any_constant_expression() {
    let mut value = Expressions::pool().get();
    value.a.reserve(100);
    value.b.reserve(100);
    drop(value);
    let value = Expressions::pool().get();
    assert!(value.a.capacity() <= 16 && value.b.capacity() <= 8);
    drop(value);
    let mut big = Expressions::pool().get();
    big.a.resize(1 << 13, 0); // over `max_capacity`: shrunk first, then kept
    drop(big);
    assert_eq!(Expressions::pool().stats().dropped_oversize, 0);
}

// --- Fields of associated types: `Vec<C::Item>` needs `C::Item: Reset`
// (here, not even that), not `C: Reset`.

trait Codec {
    type Item;
}

struct Json;

impl Codec for Json {
    type Item = String;
}

#[derive(Reset)]
struct Buffered<C: Codec> {
    items: Vec<C::Item>,
}

#[derive(Reset)]
struct Paired<C: Codec> {
    pair: (C::Item, u8),
    other: Option<<C as Codec>::Item>,
}

#[derive(Poolable)]
struct Batch<C: Codec + 'static> {
    items: Vec<C::Item>,
}

impl<C: Codec> Default for Batch<C> {
    fn default() -> Self {
        Batch { items: Vec::new() }
    }
}

#[test]
fn fields_of_associated_types_are_bounded_as_such() {
    // `Json` has no `Reset` impl, and needs none.
    let mut buffered = Buffered::<Json> {
        items: vec!["a".into()],
    };
    buffered.reset();
    assert!(buffered.items.is_empty());

    let mut paired = Paired::<Json> {
        pair: ("a".into(), 7),
        other: Some("b".into()),
    };
    paired.reset();
    assert_eq!(paired.pair, (String::new(), 0));
    assert!(paired.other.is_none());

    let mut batch = Batch::<Json>::pool().get();
    batch.items.push("x".into());
    drop(batch);
    assert!(Batch::<Json>::pool().get().items.is_empty());
}

// --- User functions named like the derive's locals (`this`, `field`,
// `what`, `total`, `max_bytes`) are the user's, not shadowed.

fn field(v: &mut Vec<u8>) {
    v.clear();
    v.shrink_to(4);
}

fn this(v: &Vec<u8>) -> bool {
    v.is_empty()
}

fn what(v: &Vec<u8>) -> usize {
    v.capacity()
}

fn total(v: &Vec<u8>) -> usize {
    v.capacity()
}

fn max_bytes(v: &Vec<u8>) -> usize {
    v.capacity()
}

#[derive(Poolable, Default)]
#[poolable(oversize = "shrink", max_bytes = 4096)]
struct Shadows {
    #[poolable(with = field)]
    a: Vec<u8>,
    #[poolable(check = this, heap_bytes = what)]
    b: Vec<u8>,
    #[poolable(heap_bytes = total)]
    c: Vec<u8>,
    #[poolable(heap_bytes = max_bytes)]
    d: Vec<u8>,
    e: Vec<u8>,
}

#[derive(Reset, Default)]
struct ShadowsGeneric<T> {
    #[poolable(with = field)]
    a: Vec<u8>,
    #[poolable(check = this, heap_bytes = what)]
    b: Vec<u8>,
    t: Vec<T>,
}

#[test]
fn user_functions_named_like_the_derives_locals_are_called() {
    let mut value = Shadows::pool().get();
    value.a.reserve(100);
    value.b.reserve(100);
    value.c.reserve(100);
    value.d.reserve(100);
    value.e.reserve(100);
    // `b`, `c`, `d` by the user's functions, `e` by its own impl; `a`,
    // reset `with` a function and given no `heap_bytes`, counts 0.
    let expected = [&value.b, &value.c, &value.d, &value.e].map(|v| v.capacity());
    assert_eq!(value.heap_bytes(), expected.iter().sum::<usize>());
    drop(value);
    assert!(Shadows::pool().get().a.capacity() <= 4); // `field` ran

    let mut generic = ShadowsGeneric::<u8> {
        a: vec![1; 100],
        b: Vec::with_capacity(50),
        t: vec![2],
    };
    let expected = generic.b.capacity() + generic.t.capacity();
    assert_eq!(generic.heap_bytes(), expected);
    generic.reset();
    assert!(generic.a.capacity() <= 4 && generic.is_reset());
}

// --- A deprecated struct: its derive adds no `deprecated` warning.

#[deprecated = "use `Request2`"]
#[derive(Poolable, Default)]
struct Request {
    body: String,
}

#[deprecated = "use `Wrapped2`"]
#[derive(Poolable, Default)]
struct Wrapped<T: Send + 'static> {
    items: Vec<T>,
}

#[test]
#[allow(deprecated)]
fn a_deprecated_struct_derives_without_warnings() {
    Request::pool().get().body.push('x');
    assert!(Request::pool().get().body.is_empty());
    Wrapped::<u8>::pool().get().items.push(1);
    assert!(Wrapped::<u8>::pool().get().items.is_empty());
}

// --- A `#[repr(..)]` other than `packed` is no reason to refuse a struct.

#[derive(Poolable, Default)]
#[repr(C, align(8))]
struct Laid {
    id: u32,
    body: Vec<u8>,
}

#[test]
fn a_struct_with_repr_c_or_align_derives() {
    let mut value = Laid::pool().get();
    value.id = 7;
    value.body.push(1);
    drop(value);
    let value = Laid::pool().get();
    assert!(value.id == 0 && value.body.is_empty());
}
