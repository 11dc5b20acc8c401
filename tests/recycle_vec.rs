//! `RecycleVec` and `RecycleOption` through the facade: what the last use
//! wrote is never visible again, inner allocations come back, `max_capacity`
//! and `max_bytes` bound what is kept, a panicking element reset exposes
//! nothing, and a model check against `Vec`.

use poolable::{Poolable, RecycleOption, RecycleVec, Reset, Shrink};
use proptest::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};

const SECRET: &str = "hunter2";

/// A vector with `SECRET` in every element, live and (after `truncate`) spare.
fn with_secrets(live: usize, spare: usize) -> RecycleVec<(String, String)> {
    let mut v: RecycleVec<(String, String)> = RecycleVec::new();
    for i in 0..live + spare {
        let (name, value) = v.push_reset();
        name.push_str(&format!("header-{i}"));
        value.push_str(SECRET);
    }
    v.truncate(live);
    v
}

/// Bring every spare back with `push_reset`, check it is reset, and return
/// the vector to its length.
fn assert_spares_are_reset(v: &mut RecycleVec<(String, String)>) {
    let live = v.len();
    for _ in 0..v.spare_len() {
        let (name, value) = v.push_reset();
        assert!(name.is_empty() && value.is_empty(), "{name:?} {value:?}");
    }
    v.truncate(live);
}

fn shows_secret(v: &RecycleVec<(String, String)>) -> bool {
    format!("{v:?}{v:#?}").contains(SECRET)
}

#[test]
fn a_reset_vector_shows_nothing_through_slices_iter_or_debug() {
    let mut v = with_secrets(3, 0);
    assert!(!v.is_reset());
    v.reset();
    assert!(v.is_empty() && v.is_reset());
    assert_eq!(v.len(), 0);
    assert!(v.as_slice().is_empty() && v[..].is_empty());
    assert_eq!(v.iter().count(), 0);
    assert_eq!((&v).into_iter().count(), 0);
    assert_eq!(v.first(), None);
    assert_eq!(v.get(..1), None);
    assert_eq!(format!("{v:?}"), "[]");
    assert!(!shows_secret(&v));
    assert_eq!(v.spare_len(), 3);
}

#[test]
fn truncated_elements_are_invisible_and_come_back_reset() {
    let mut v = with_secrets(1, 4);
    assert_eq!((v.len(), v.spare_len()), (1, 4));
    assert_eq!(v.iter().filter(|(_, value)| value == SECRET).count(), 1);
    assert_eq!(v.get(1), None);
    assert_eq!(format!("{v:?}"), r#"[("header-0", "hunter2")]"#);

    // Take the spares back one at a time, interleaved with truncations.
    v.push_reset();
    assert_spares_are_reset(&mut v);
    v.truncate(1);
    assert_spares_are_reset(&mut v);
    v.clear();
    assert!(!shows_secret(&v));
    assert_spares_are_reset(&mut v);
    for _ in 0..5 {
        let (name, value) = v.push_reset();
        assert!(name.is_empty() && value.is_empty());
    }
    assert_eq!((v.len(), v.spare_len()), (5, 0));
}

#[test]
fn an_element_written_through_deref_mut_is_reset_too() {
    let mut v = with_secrets(2, 0);
    for (_, value) in &mut v {
        value.push_str("-more");
    }
    v[1].0.push_str("-renamed");
    v.reset();
    assert_spares_are_reset(&mut v);
}

#[test]
fn a_reset_option_shows_nothing() {
    let mut q = RecycleOption::from(Some(SECRET.to_string()));
    q.reset();
    assert!(q.is_none() && !q.is_some());
    assert_eq!(q.get(), None);
    assert_eq!(q.get_mut(), None);
    assert_eq!(q, None);
    assert_eq!(q, RecycleOption::new());
    assert_eq!(format!("{q:?}{q:#?}"), "NoneNone");
    assert_eq!(q.clone().get_or_insert_reset(), "");
    assert_eq!(q.take(), None);
    assert_eq!(Option::<String>::from(q), None);
}

/// Measured as the trait's default does: its used bytes are its heap bytes,
/// also once reset.
#[derive(Default)]
struct Held(String);

impl Reset for Held {
    fn reset(&mut self) {
        self.0.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.0.capacity()
    }
}

#[test]
fn an_option_tells_measures_and_shrinks_what_it_holds() {
    let mut q = RecycleOption::from(Some(String::with_capacity(4096)));
    q.get_mut().expect("a live value").push_str("abc");
    assert!(q.is_some() && !q.is_none() && !q.is_reset());
    assert_eq!(q.used_bytes(), 3);
    q.reset();
    assert!(q.is_none() && q.is_reset());
    assert_eq!(q.used_bytes(), 0);
    assert!(q.heap_bytes() >= 4096, "the buffer is kept");
    q.shrink_heap(64);
    assert!(q.heap_bytes() <= 64, "{}", q.heap_bytes());

    let mut q = RecycleOption::from(Some(Vec::<u8>::with_capacity(4096)));
    Shrink::shrink_to(&mut q, 10);
    assert!(q.get().expect("a live value").capacity() <= 10);

    // A value kept after a reset is not in use, whatever it measures.
    let mut held = RecycleOption::from(Some(Held(String::with_capacity(64))));
    assert_eq!(held.used_bytes(), 64);
    held.clear();
    assert_eq!(held.used_bytes(), 0);
}

#[test]
fn a_vector_shrinks_its_live_elements_when_dropping_spares_is_not_enough() {
    let mut v: RecycleVec<Vec<u8>> = RecycleVec::new();
    v.push(Vec::with_capacity(1 << 20));
    v.shrink_heap(4096);
    assert_eq!(v.len(), 1);
    assert!(v.heap_bytes() <= 4096, "{}", v.heap_bytes());
}

#[test]
fn a_vector_at_its_cap_keeps_its_spares() {
    let mut v = with_secrets(1, 3);
    let (bytes, spares) = (v.heap_bytes(), v.spare_len());
    v.shrink_heap(bytes);
    assert_eq!((v.heap_bytes(), v.spare_len()), (bytes, spares));
}

#[test]
fn a_string_buffer_comes_back_after_reset_and_push_reset() {
    let mut v: RecycleVec<String> = RecycleVec::new();
    v.push_reset().push_str("first value");
    v.push_reset().push_str("second value");
    let buffers: Vec<(*const u8, usize)> = v.iter().map(|s| (s.as_ptr(), s.capacity())).collect();
    v.reset();
    let again: Vec<(*const u8, usize)> = (0..2)
        .map(|_| {
            let s = v.push_reset();
            (s.as_ptr(), s.capacity())
        })
        .collect();
    assert_eq!(again, buffers);
}

#[test]
fn an_option_string_buffer_comes_back_after_reset() {
    let mut q: RecycleOption<String> = RecycleOption::new();
    q.get_or_insert_reset().push_str("user=ada&page=2");
    let buffer = q.get().map(|s| s.as_ptr());
    q.reset();
    assert_eq!(Some(q.get_or_insert_reset().as_ptr()), buffer);
}

#[derive(Poolable, Default)]
struct Request {
    headers: RecycleVec<(String, String)>,
    query: RecycleOption<String>,
    body: String,
}

#[test]
fn a_pooled_struct_gets_its_inner_buffers_back() {
    let mut req = Request::pool().get();
    let (name, value) = req.headers.push_reset();
    name.push_str("authorization");
    value.push_str(SECRET);
    req.query.get_or_insert_reset().push_str("token=hunter2");
    req.body.push_str(SECRET);
    let header = req.headers[0].1.as_ptr();
    let query = req.query.get().map(|q| q.as_ptr());
    drop(req);

    let mut req = Request::pool().get();
    assert!(req.headers.is_empty() && req.query.is_none() && req.body.is_empty());
    assert_eq!(req.headers.spare_len(), 1);
    assert_eq!(req.headers.push_reset().1.as_ptr(), header);
    assert_eq!(Some(req.query.get_or_insert_reset().as_ptr()), query);
    assert_eq!(Request::pool().stats().misses, 1);
}

#[derive(Poolable, Default)]
struct Bounded {
    #[poolable(max_capacity = 4)]
    rows: RecycleVec<String>,
}

#[test]
fn max_capacity_bounds_live_plus_spare_elements() {
    let mut b = Bounded::default();
    for i in 0..10 {
        b.rows.push_reset().push_str(&i.to_string());
    }
    b.reset();
    assert_eq!((b.rows.len(), b.rows.spare_len()), (0, 4));

    b.rows.push_reset();
    b.rows.reset();
    assert_eq!(b.rows.spare_len(), 4, "fewer than the cap: all kept");
}

#[test]
fn max_capacity_applies_when_the_pool_takes_a_value_back() {
    let mut b = Bounded::pool().get();
    for _ in 0..100 {
        b.rows.push_reset().push_str("row");
    }
    drop(b);
    let b = Bounded::pool().get();
    assert_eq!((b.rows.len(), b.rows.spare_len()), (0, 4));
    assert!(b.heap_bytes() <= 4 * (size_of::<String>() + "row".len().max(8)));
}

#[derive(Poolable, Default)]
#[poolable(max_bytes = 1024)]
struct Small {
    rows: RecycleVec<String>,
}

#[test]
fn spares_count_toward_max_bytes() {
    let mut s = Small::pool().get();
    for _ in 0..10 {
        s.rows.push_reset().push_str(&"x".repeat(200));
    }
    drop(s); // 10 spares of 200 bytes each: over the 1 KiB cap
    assert_eq!(Small::pool().stats().dropped_oversize, 1);
}

#[test]
fn push_over_spares_replaces_them_and_never_grows_the_element_count() {
    let mut v = with_secrets(0, 3);
    for round in 0..10 {
        v.extend([round.to_string(), String::new()].map(|s| (s, String::new())));
        assert_eq!(v.len() + v.spare_len(), 3);
        v.reset();
    }
    assert_spares_are_reset(&mut v);
}

#[test]
fn clone_eq_and_hash_see_only_live_elements() {
    fn hash_of<T: Hash>(value: &T) -> u64 {
        let mut h = DefaultHasher::new();
        value.hash(&mut h);
        h.finish()
    }
    let mut a: RecycleVec<String> = ["x", "secret", "secret"]
        .map(String::from)
        .into_iter()
        .collect();
    a.truncate(1);
    let b: RecycleVec<String> = ["x"].map(String::from).into_iter().collect();
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    assert_eq!(hash_of(&a), hash_of(&vec![String::from("x")]));
    let c = a.clone();
    assert_eq!((c.len(), c.spare_len()), (1, 0));
    assert_eq!(c, ["x"]);
    assert_eq!(Vec::from(a), ["x"]);
}

/// Each comparison tells equal live elements from different ones; the
/// slice views show the live elements; an option hashes as its `Option`.
#[test]
fn comparisons_views_and_option_hash_see_the_live_values() {
    let mut v: RecycleVec<u8> = [1_u8, 2, 3, 9].into_iter().collect();
    v.truncate(3);
    let same: RecycleVec<u8> = [1_u8, 2, 3].into_iter().collect();
    let other: RecycleVec<u8> = [1_u8, 2].into_iter().collect();
    assert!(v == same && v != other);
    assert!(v == [1_u8, 2, 3][..] && v != [1_u8, 2, 9][..]);
    let (slice, other_slice): (&[u8], &[u8]) = (&[1, 2, 3], &[1, 2, 9]);
    assert!(v == slice && v != other_slice);
    assert!(v == [1_u8, 2, 3] && v != [1_u8, 2, 9]);
    assert!(v == vec![1_u8, 2, 3] && v != vec![1_u8, 2, 3, 9]);
    assert_eq!(AsRef::<[u8]>::as_ref(&v), [1, 2, 3]);
    AsMut::<[u8]>::as_mut(&mut v)[0] = 7;
    assert_eq!(v, [7, 2, 3]);

    let one = RecycleOption::from(Some(1_u8));
    let (one_again, two) = (
        RecycleOption::from(Some(1_u8)),
        RecycleOption::from(Some(2_u8)),
    );
    assert!(one == one_again && one != two);
    assert!(one == Some(1) && one != Some(2));
    let hash_of = |value: &dyn Fn(&mut DefaultHasher)| {
        let mut h = DefaultHasher::new();
        value(&mut h);
        h.finish()
    };
    assert_eq!(hash_of(&|h| one.hash(h)), hash_of(&|h| Some(1_u8).hash(h)));
}

#[test]
fn iterators_and_extend_work_on_the_live_elements() {
    let mut v: RecycleVec<u32> = (1..=4).collect();
    v.truncate(2);
    assert_eq!((&v).into_iter().sum::<u32>(), 3);
    for x in &mut v {
        *x *= 10;
    }
    v.extend([5, 6, 7]);
    assert_eq!(v, [10, 20, 5, 6, 7]);
    assert_eq!(v.into_iter().collect::<Vec<_>>(), [10, 20, 5, 6, 7]);
}

/// Panics from its reset, when armed, before clearing anything: it is left
/// holding its secret.
#[derive(Default, Debug, Clone)]
struct Tripwire {
    secret: String,
    armed: bool,
}

impl Reset for Tripwire {
    fn reset(&mut self) {
        if self.armed {
            panic!("reset failed");
        }
        self.secret.clear();
    }
}

fn tripwires(armed: &[bool], spares: usize) -> RecycleVec<Tripwire> {
    let mut v: RecycleVec<Tripwire> = RecycleVec::new();
    for _ in 0..armed.len() + spares {
        v.push_reset().secret.push_str(SECRET);
    }
    v.truncate(armed.len());
    for (item, &armed) in v.iter_mut().zip(armed) {
        item.armed = armed;
    }
    v
}

/// Bring every spare back with `push_reset` and check it is reset.
fn assert_tripwire_spares_are_reset(v: &mut RecycleVec<Tripwire>) {
    let live = v.len();
    for _ in 0..v.spare_len() {
        let t = v.push_reset();
        assert!(t.secret.is_empty() && !t.armed, "an unreset spare: {t:?}");
    }
    v.truncate(live);
}

#[test]
fn a_panicking_element_reset_leaves_a_valid_vector_that_exposes_nothing() {
    let mut v = tripwires(&[false, true, false], 2);
    let unwound = catch_unwind(AssertUnwindSafe(|| v.reset()));
    assert!(unwound.is_err());
    assert!(v.is_empty());
    assert_eq!(format!("{v:?}"), "[]");
    // The element before the panic was reset and kept; the panicking one and
    // the one after it were dropped; the old spares are still there.
    assert_eq!(v.spare_len(), 3);
    assert_tripwire_spares_are_reset(&mut v);
    v.push_reset().secret.push_str("next use");
    v.reset();
    assert_eq!(v.spare_len(), 3);
}

#[test]
fn a_panicking_reset_in_truncate_keeps_the_live_prefix() {
    let mut v = tripwires(&[false, false, true, false], 0);
    v[0].secret.replace_range(.., "kept");
    let unwound = catch_unwind(AssertUnwindSafe(|| v.truncate(1)));
    assert!(unwound.is_err());
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].secret, "kept");
    assert!(!format!("{v:?}").contains(SECRET));
    assert_eq!(v.spare_len(), 1);
    assert_tripwire_spares_are_reset(&mut v);
}

#[test]
fn a_panicking_option_reset_keeps_nothing() {
    let mut q = RecycleOption::from(Some(Tripwire {
        secret: SECRET.into(),
        armed: true,
    }));
    assert!(catch_unwind(AssertUnwindSafe(|| q.reset())).is_err());
    assert!(q.is_none());
    assert!(q.get_or_insert_reset().secret.is_empty());
}

#[cfg(feature = "serde")]
mod serde_output {
    use super::*;

    #[test]
    fn serde_writes_only_the_live_elements() {
        let mut v = with_secrets(1, 2);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"[["header-0","hunter2"]]"#
        );
        v.reset();
        assert_eq!(serde_json::to_string(&v).unwrap(), "[]");
    }

    #[test]
    fn serde_writes_a_reset_option_as_none() {
        let mut q = RecycleOption::from(Some(SECRET.to_string()));
        assert_eq!(serde_json::to_string(&q).unwrap(), r#""hunter2""#);
        q.reset();
        assert_eq!(serde_json::to_string(&q).unwrap(), "null");
    }

    #[test]
    fn serde_round_trips_the_live_elements() {
        let v: RecycleVec<String> = serde_json::from_str(r#"["a","b"]"#).unwrap();
        assert_eq!((v.len(), v.spare_len()), (2, 0));
        assert_eq!(v, ["a", "b"]);
        let q: RecycleOption<u8> = serde_json::from_str("7").unwrap();
        assert_eq!(q, Some(7));
        let q: RecycleOption<u8> = serde_json::from_str("null").unwrap();
        assert!(q.is_none());
    }

    /// `T::deserialize_in_place` into `place`, from JSON.
    fn in_place<'de, T: serde::Deserialize<'de>>(
        json: &'de str,
        place: &mut T,
    ) -> serde_json::Result<()> {
        T::deserialize_in_place(&mut serde_json::Deserializer::from_str(json), place)
    }

    /// What the integration docs advise (deserialize into `&mut *guard`)
    /// reuses the buffers a `RecycleVec` keeps: written into the live
    /// elements, then the spares, in place; live ones past the end become
    /// spares.
    #[test]
    fn deserialized_in_place_the_live_elements_and_spares_are_reused() {
        let mut v: RecycleVec<String> = RecycleVec::new();
        for _ in 0..4 {
            v.push_reset().reserve(64);
        }
        v.truncate(0);
        let buffers: Vec<*const u8> = (0..4).map(|_| v.push_reset().as_ptr()).collect();
        v.truncate(1); // one live, three spares
        let bytes = v.heap_bytes();
        in_place(r#"["a","b","c"]"#, &mut v).unwrap();
        assert_eq!(v, ["a", "b", "c"]);
        assert_eq!(v.spare_len(), 1);
        let now: Vec<*const u8> = v.iter().map(|s| s.as_ptr()).collect();
        assert_eq!(now, buffers[..3]);

        in_place(r#"["x"]"#, &mut v).unwrap();
        assert_eq!((v.len(), v.spare_len()), (1, 3));
        assert_spare_strings_reset(&mut v);
        assert_eq!(v.heap_bytes(), bytes); // every buffer kept, none added

        in_place(r#"["1","2","3","4","5"]"#, &mut v).unwrap();
        assert_eq!(v, ["1", "2", "3", "4", "5"]);
        assert_eq!(v.spare_len(), 0);
    }

    /// An error in a spare's element drops that spare (written in part, it
    /// is not reset) and keeps the others.
    #[test]
    fn an_error_in_place_keeps_no_half_written_spare() {
        let mut v: RecycleVec<String> = RecycleVec::new();
        for _ in 0..3 {
            v.push_reset().push_str("secret");
        }
        v.truncate(0);
        assert!(in_place(r#"["a", 7]"#, &mut v).is_err());
        assert_eq!(v, ["a"]);
        assert_spare_strings_reset(&mut v);
        assert_eq!(v.spare_len(), 1);
    }

    #[test]
    fn an_option_deserialized_in_place_reuses_its_kept_value() {
        let mut q = RecycleOption::from(Some(String::with_capacity(64)));
        q.reset();
        let buffer = q.get_or_insert_reset().as_ptr();
        q.reset();
        in_place(r#""query""#, &mut q).unwrap();
        assert_eq!(q.get().map(|s| s.as_ptr()), Some(buffer));
        assert_eq!(q.get().map(String::as_str), Some("query"));
        in_place("null", &mut q).unwrap();
        assert!(q.is_none());
        assert_eq!(q.heap_bytes(), 64); // kept, reset
        assert!(q.get_or_insert_reset().is_empty());
    }

    /// Every spare string, brought back and checked empty, then truncated
    /// away again.
    fn assert_spare_strings_reset(v: &mut RecycleVec<String>) {
        let live = v.len();
        for _ in 0..v.spare_len() {
            assert!(v.push_reset().is_empty());
        }
        v.truncate(live);
    }
}

/// One step of the model check.
#[derive(Debug, Clone)]
enum Op {
    Push(String),
    PushReset(String),
    Write(usize, String),
    Truncate(usize),
    Clear,
    Reset,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => "[a-z]{0,12}".prop_map(Op::Push),
        4 => "[a-z]{0,12}".prop_map(Op::PushReset),
        2 => (0_usize..12, "[a-z]{0,12}").prop_map(|(i, s)| Op::Write(i, s)),
        2 => (0_usize..12).prop_map(Op::Truncate),
        1 => Just(Op::Clear),
        1 => Just(Op::Reset),
    ]
}

proptest! {
    /// `RecycleVec<String>` behaves as a `Vec<String>` for its live elements,
    /// keeps exactly the elements a reset freed, hands them back reset, and
    /// counts every one of them in `heap_bytes`.
    #[test]
    fn recycle_vec_matches_a_vec_model(ops in proptest::collection::vec(op(), 0..64)) {
        let mut v: RecycleVec<String> = RecycleVec::new();
        let mut model: Vec<String> = Vec::new();
        let mut spares = 0_usize;
        for op in ops {
            match op {
                Op::Push(s) => {
                    v.push(s.clone());
                    model.push(s);
                    spares = spares.saturating_sub(1);
                }
                Op::PushReset(s) => {
                    let item = v.push_reset();
                    prop_assert_eq!(item.as_str(), "");
                    item.push_str(&s);
                    model.push(s);
                    spares = spares.saturating_sub(1);
                }
                Op::Write(i, s) => {
                    if let Some(item) = v.get_mut(i) {
                        item.push_str(&s);
                        model[i].push_str(&s);
                    }
                }
                Op::Truncate(n) => {
                    spares += model.len().saturating_sub(n);
                    v.truncate(n);
                    model.truncate(n);
                }
                Op::Clear => {
                    spares += model.len();
                    v.clear();
                    model.clear();
                }
                Op::Reset => {
                    spares += model.len();
                    v.reset();
                    model.reset();
                }
            }
            prop_assert_eq!(v.as_slice(), model.as_slice());
            prop_assert_eq!(v.len(), model.len());
            prop_assert_eq!(v.is_empty(), model.is_empty());
            prop_assert_eq!(v.spare_len(), spares);
            prop_assert_eq!(format!("{v:?}"), format!("{model:?}"));
        }
        // Taking every spare back moves its bytes from the spare total to
        // the live elements: `heap_bytes` must not change, and must then be
        // the buffer plus the strings.
        let before = v.heap_bytes();
        for _ in 0..spares {
            prop_assert_eq!(v.push_reset().as_str(), "");
        }
        prop_assert_eq!(v.spare_len(), 0);
        prop_assert_eq!(v.heap_bytes(), before);
        let strings: usize = v.iter().map(String::capacity).sum();
        let buffer = Vec::from(v).heap_bytes(); // no spares: the same buffer
        prop_assert_eq!(before, buffer + strings);
    }
}
