//! Behaviour of the std `Reset` impls (the table in `pool-runtime/src/reset.rs`),
//! of `Shrink::shrink_to` and of `Zeroize::zeroize`.
//!
//! Every reset test dirties a value, checks that it differs from a freshly
//! created one, resets it and checks that it equals the fresh one; collections
//! also check that their capacity survived.

use poolable::{Reset, Shrink, Zeroize};
use std::cell::{Cell, RefCell};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::fmt::Debug;
use std::hash::{BuildHasher, Hasher};
use std::marker::PhantomData;
use std::mem::size_of;
use std::num::Wrapping;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{self, Ordering::SeqCst};
use std::sync::{Mutex, RwLock};
use std::time::Duration;

/// Reset `dirty` and check it now looks like `fresh` (through `view`).
/// Returns the reset value for further checks.
#[track_caller]
fn check<T: Reset, V: PartialEq + Debug>(mut dirty: T, fresh: &T, view: impl Fn(&T) -> V) -> T {
    let fresh_view = view(fresh);
    assert_ne!(
        view(&dirty),
        fresh_view,
        "test setup: the dirty value must differ from a fresh one"
    );
    dirty.reset();
    assert_eq!(view(&dirty), fresh_view, "reset must give a fresh value");
    dirty
}

/// `check`, and the capacity (as read by `capacity`) is unchanged by the reset.
#[track_caller]
fn check_keeps_capacity<T: Reset, V: PartialEq + Debug>(
    dirty: T,
    fresh: &T,
    view: impl Fn(&T) -> V,
    capacity: impl Fn(&T) -> usize,
) -> T {
    let before = capacity(&dirty);
    assert!(before > 0, "test setup: the dirty value must have capacity");
    let after = check(dirty, fresh, view);
    assert_eq!(capacity(&after), before, "reset must keep the capacity");
    after
}

/// Panic while holding the lock, so it is poisoned.
fn poison_mutex<T>(m: &Mutex<T>, dirty: impl FnOnce(&mut T)) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut guard = m.lock().unwrap();
        dirty(&mut guard);
        panic!("intentional panic to poison the mutex");
    }));
    assert!(result.is_err());
    assert!(m.is_poisoned(), "test setup: the mutex must be poisoned");
}

fn poison_rwlock<T>(l: &RwLock<T>, dirty: impl FnOnce(&mut T)) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut guard = l.write().unwrap();
        dirty(&mut guard);
        panic!("intentional panic to poison the rwlock");
    }));
    assert!(result.is_err());
    assert!(l.is_poisoned(), "test setup: the rwlock must be poisoned");
}

/// A hasher with state and no `Default`: `Reset` must work for any `S`.
#[derive(Clone, Debug, PartialEq)]
struct Seeded(u64);

impl BuildHasher for Seeded {
    type Hasher = DefaultHasher;
    fn build_hasher(&self) -> DefaultHasher {
        let mut h = DefaultHasher::new();
        h.write_u64(self.0);
        h
    }
}

// ---------------------------------------------------------------- scalars

macro_rules! scalar_resets_to_default {
    ($($name:ident: $ty:ty = $dirty:expr;)*) => {$(
        #[test]
        fn $name() {
            let v = check::<$ty, _>($dirty, &<$ty>::default(), |v| *v);
            assert_eq!(v.heap_bytes(), 0);
        }
    )*};
}

scalar_resets_to_default! {
    u8_resets_to_zero: u8 = u8::MAX;
    u16_resets_to_zero: u16 = u16::MAX;
    u32_resets_to_zero: u32 = u32::MAX;
    u64_resets_to_zero: u64 = u64::MAX;
    u128_resets_to_zero: u128 = u128::MAX;
    usize_resets_to_zero: usize = usize::MAX;
    i8_resets_to_zero: i8 = i8::MIN;
    i16_resets_to_zero: i16 = i16::MIN;
    i32_resets_to_zero: i32 = -1;
    i64_resets_to_zero: i64 = i64::MIN;
    i128_resets_to_zero: i128 = i128::MAX;
    isize_resets_to_zero: isize = isize::MIN;
    bool_resets_to_false: bool = true;
    char_resets_to_nul: char = 'λ';
    duration_resets_to_zero: Duration = Duration::new(3, 7);
    wrapping_u32_resets_to_zero: Wrapping<u32> = Wrapping(7);
    wrapping_i64_resets_to_zero: Wrapping<i64> = Wrapping(-7);
}

macro_rules! float_resets_to_positive_zero {
    ($($name:ident: $ty:ident;)*) => {$(
        #[test]
        fn $name() {
            let dirty: [$ty; 5] = [-1.5, -0.0, $ty::NAN, $ty::INFINITY, $ty::MIN_POSITIVE];
            for d in dirty {
                // Compare bits: `-0.0 == 0.0` and `NaN != NaN` would hide a bad reset.
                let v = check(d, &<$ty>::default(), |v| v.to_bits());
                assert_eq!(v.to_bits(), (0.0 as $ty).to_bits());
                assert_eq!(v.heap_bytes(), 0);
            }
        }
    )*};
}

float_resets_to_positive_zero! {
    f32_resets_to_positive_zero: f32;
    f64_resets_to_positive_zero: f64;
}

#[test]
fn unit_reset_is_a_no_op() {
    let mut v = ();
    v.reset();
    assert_eq!(v, ());
    assert_eq!(v.heap_bytes(), 0);
}

#[test]
fn phantom_data_reset_is_a_no_op() {
    // `PhantomData<str>`: the impl is for `T: ?Sized` too.
    let mut v: PhantomData<str> = PhantomData;
    v.reset();
    assert_eq!(v, PhantomData);
    assert_eq!(v.heap_bytes(), 0);
}

// ---------------------------------------------------------------- atomics

macro_rules! atomic_resets_to_zero {
    ($($name:ident: $atomic:ident = $dirty:expr;)*) => {$(
        #[test]
        fn $name() {
            let v = check(
                atomic::$atomic::new($dirty),
                &atomic::$atomic::default(),
                |a| a.load(SeqCst),
            );
            assert_eq!(v.heap_bytes(), 0);
        }
    )*};
}

atomic_resets_to_zero! {
    atomic_bool_resets_to_false: AtomicBool = true;
    atomic_u8_resets_to_zero: AtomicU8 = u8::MAX;
    atomic_u16_resets_to_zero: AtomicU16 = u16::MAX;
    atomic_u32_resets_to_zero: AtomicU32 = u32::MAX;
    atomic_u64_resets_to_zero: AtomicU64 = u64::MAX;
    atomic_usize_resets_to_zero: AtomicUsize = usize::MAX;
    atomic_i8_resets_to_zero: AtomicI8 = i8::MIN;
    atomic_i16_resets_to_zero: AtomicI16 = i16::MIN;
    atomic_i32_resets_to_zero: AtomicI32 = i32::MIN;
    atomic_i64_resets_to_zero: AtomicI64 = i64::MIN;
    atomic_isize_resets_to_zero: AtomicIsize = isize::MIN;
}

#[test]
fn atomic_ptr_resets_to_null() {
    let mut target = 5_u32;
    let v = check(
        atomic::AtomicPtr::new(&mut target as *mut u32),
        &atomic::AtomicPtr::default(),
        |a| a.load(SeqCst),
    );
    assert!(v.load(SeqCst).is_null());
    assert_eq!(v.heap_bytes(), 0);
}

/// Each impl with an `is_reset` of its own tells a dirty value from a
/// reset one (a pool asks it after every reset in debug builds).
#[test]
fn std_values_tell_whether_they_are_reset() {
    #[track_caller]
    fn tells<T: Reset>(mut dirty: T) {
        let name = std::any::type_name::<T>();
        assert!(!dirty.is_reset(), "{name}: dirty");
        dirty.reset();
        assert!(dirty.is_reset(), "{name}: reset");
    }
    tells(String::from("x"));
    tells(vec![1_u8]);
    tells(VecDeque::from([1_u8]));
    tells(BinaryHeap::from([1_u8]));
    tells(HashMap::from([(1_u8, 1_u8)]));
    tells(HashSet::from([1_u8]));
    tells(BTreeMap::from([(1_u8, 1_u8)]));
    tells(BTreeSet::from([1_u8]));
    tells(LinkedList::from([1_u8]));
    tells(Some(1_u8));
    tells(Box::new(1_u8));
    tells([0_u8, 1]);
    tells(Wrapping(vec![1_u8]));
    let mut target = 5_u32;
    tells(atomic::AtomicPtr::new(&mut target as *mut u32));
}

/// The contents a value holds now, before its reset, through the impls
/// that measure their own (a `Box` counts the value it holds, as its heap).
#[test]
fn std_values_measure_what_they_use() {
    assert_eq!(BinaryHeap::from([1_u32, 2, 3]).used_bytes(), 3 * 4);
    let boxed = Box::new(vec![1_u8, 2, 3]);
    assert_eq!(boxed.used_bytes(), size_of::<Vec<u8>>() + 3);
    assert_eq!([vec![1_u8, 2], vec![3]].used_bytes(), 3);
}

#[test]
fn wrapping_reserves_through_its_value() {
    let mut wrapped = Wrapping(Vec::<u8>::new());
    wrapped.reserve_heap(100);
    assert!(wrapped.0.capacity() >= 100, "{}", wrapped.0.capacity());
}

// ---------------------------------------------------------------- collections

#[test]
fn string_clears_and_keeps_capacity() {
    let mut s = String::with_capacity(32);
    s.push_str("user=ada secret=hunter2");
    check_keeps_capacity(s, &String::new(), String::clone, String::capacity);
}

#[test]
fn vec_clears_and_keeps_capacity() {
    let mut v: Vec<u64> = Vec::with_capacity(16);
    v.extend([1, 2, 3]);
    check_keeps_capacity(v, &Vec::new(), Vec::clone, Vec::capacity);
}

#[test]
fn vec_of_strings_drops_the_elements_and_keeps_capacity() {
    let v = vec!["a".to_owned(), "b".repeat(100)];
    check_keeps_capacity(v, &Vec::new(), Vec::clone, Vec::capacity);
}

#[test]
fn vec_deque_clears_and_keeps_capacity() {
    let mut d: VecDeque<u32> = VecDeque::with_capacity(8);
    // Wrap around the ring buffer.
    d.extend([1, 2, 3, 4, 5, 6]);
    d.drain(..4);
    d.extend([7, 8, 9, 10]);
    check_keeps_capacity(d, &VecDeque::new(), VecDeque::clone, VecDeque::capacity);
}

#[test]
fn binary_heap_clears_and_keeps_capacity() {
    let mut h: BinaryHeap<u16> = BinaryHeap::with_capacity(10);
    h.extend([5, 1, 9]);
    check_keeps_capacity(
        h,
        &BinaryHeap::new(),
        |h| h.clone().into_sorted_vec(),
        BinaryHeap::capacity,
    );
}

#[test]
fn hash_map_clears_and_keeps_capacity() {
    let m: HashMap<String, u32> = (0..20).map(|i| (i.to_string(), i)).collect();
    check_keeps_capacity(m, &HashMap::new(), HashMap::clone, HashMap::capacity);
}

#[test]
fn hash_map_with_custom_hasher_clears_keeps_capacity_and_hasher() {
    let mut m: HashMap<u32, String, Seeded> = HashMap::with_hasher(Seeded(7));
    m.extend((0..20).map(|i| (i, i.to_string())));
    let m = check_keeps_capacity(
        m,
        &HashMap::with_hasher(Seeded(7)),
        HashMap::clone,
        HashMap::capacity,
    );
    assert_eq!(m.hasher(), &Seeded(7));
}

#[test]
fn hash_set_clears_and_keeps_capacity() {
    let s: HashSet<u64> = (0..20).collect();
    check_keeps_capacity(s, &HashSet::new(), HashSet::clone, HashSet::capacity);
}

#[test]
fn hash_set_with_custom_hasher_clears_keeps_capacity_and_hasher() {
    let mut s: HashSet<String, Seeded> = HashSet::with_hasher(Seeded(9));
    s.extend((0..20).map(|i| i.to_string()));
    let s = check_keeps_capacity(
        s,
        &HashSet::with_hasher(Seeded(9)),
        HashSet::clone,
        HashSet::capacity,
    );
    assert_eq!(s.hasher(), &Seeded(9));
}

#[test]
fn btree_map_clears() {
    let m: BTreeMap<u8, String> = [(1, "a".into()), (2, "b".into())].into();
    let m = check(m, &BTreeMap::new(), BTreeMap::clone);
    assert_eq!(m.heap_bytes(), 0);
}

#[test]
fn btree_set_clears() {
    let s: BTreeSet<u8> = [1, 2, 3].into();
    let s = check(s, &BTreeSet::new(), BTreeSet::clone);
    assert_eq!(s.heap_bytes(), 0);
}

#[test]
fn linked_list_clears() {
    let l: LinkedList<String> = ["a".to_owned(), "b".to_owned()].into();
    let l = check(l, &LinkedList::new(), LinkedList::clone);
    assert_eq!(l.heap_bytes(), 0);
}

#[test]
fn option_resets_to_none() {
    let v = check(Some("secret".to_owned()), &None, Option::clone);
    assert_eq!(v.heap_bytes(), 0);
}

#[test]
fn option_of_scalar_resets_to_none() {
    check(Some(0_u8), &None, |v| *v);
}

// ---------------------------------------------------------------- boxes, arrays, tuples

#[test]
fn box_resets_in_place_and_keeps_the_box() {
    let mut b: Box<Vec<u64>> = Box::new(Vec::with_capacity(4));
    b.extend([1, 2]);
    let addr = &*b as *const Vec<u64>;
    let b = check_keeps_capacity(b, &Box::default(), Box::clone, |b| b.capacity());
    assert_eq!(&*b as *const Vec<u64>, addr, "the box allocation is kept");
}

#[test]
fn box_of_scalar_resets_to_zero() {
    check(Box::new(42_u32), &Box::new(0), Box::clone);
}

#[test]
fn boxed_slice_resets_each_element_and_keeps_length() {
    let b: Box<[u64]> = vec![1, 2, 3].into_boxed_slice();
    let addr = b.as_ptr();
    let b = check(b, &vec![0; 3].into_boxed_slice(), Box::clone);
    assert_eq!(b.as_ptr(), addr, "the allocation is kept");
}

#[test]
fn boxed_slice_of_strings_clears_each_keeping_capacity() {
    let b: Box<[String]> = vec!["abc".to_owned(), "defgh".to_owned()].into_boxed_slice();
    let caps: Vec<usize> = b.iter().map(String::capacity).collect();
    let b = check(b, &vec![String::new(), String::new()].into(), Box::clone);
    assert_eq!(b.iter().map(String::capacity).collect::<Vec<_>>(), caps);
}

#[test]
fn array_resets_each_element() {
    check([1_u32, 2, 3, 4], &[0; 4], |a| *a);
}

#[test]
fn array_of_vecs_clears_each_keeping_capacity() {
    let a: [Vec<u8>; 3] = [vec![1; 5], vec![2; 7], Vec::with_capacity(3)];
    let caps = a.each_ref().map(Vec::capacity);
    let a = check(a, &Default::default(), <[Vec<u8>; 3]>::clone);
    assert_eq!(a.each_ref().map(Vec::capacity), caps);
}

#[test]
fn tuple_of_one_resets_its_element() {
    let mut s = String::with_capacity(16);
    s.push_str("dirty");
    let t = check_keeps_capacity((s,), &(String::new(),), <(String,)>::clone, |t| {
        t.0.capacity()
    });
    assert_eq!(t.0, "");
}

type Twelve = (
    u8,
    i16,
    u32,
    f64,
    bool,
    char,
    String,
    Vec<u8>,
    Option<u8>,
    Duration,
    [u8; 2],
    (u8, String),
);

#[test]
fn tuple_of_twelve_resets_every_element() {
    let dirty: Twelve = (
        1,
        -2,
        3,
        4.5,
        true,
        'x',
        "six".into(),
        vec![7; 7],
        Some(8),
        Duration::from_secs(9),
        [10, 10],
        (11, "eleven".into()),
    );
    let caps = (
        dirty.6.capacity(),
        dirty.7.capacity(),
        dirty.11.1.capacity(),
    );
    let t = check(dirty, &Twelve::default(), Twelve::clone);
    assert_eq!(
        (t.6.capacity(), t.7.capacity(), t.11.1.capacity()),
        caps,
        "capacities of the tuple's buffers are kept"
    );
}

// ---------------------------------------------------------------- cells and locks

#[test]
fn cell_resets_to_default() {
    let v = check(Cell::new(9_u32), &Cell::default(), Cell::get);
    assert_eq!(v.heap_bytes(), 0);
}

#[test]
fn cell_of_bool_resets_to_false() {
    check(Cell::new(true), &Cell::default(), Cell::get);
}

#[test]
fn ref_cell_resets_inner_keeping_capacity() {
    let c = RefCell::new(vec![1_u8, 2, 3]);
    check_keeps_capacity(
        c,
        &RefCell::default(),
        |c| c.borrow().clone(),
        |c| c.borrow().capacity(),
    );
}

#[test]
fn mutex_resets_inner_keeping_capacity() {
    let m = Mutex::new(vec![1_u32, 2, 3]);
    let m = check_keeps_capacity(
        m,
        &Mutex::default(),
        |m| m.lock().unwrap().clone(),
        |m| m.lock().unwrap().capacity(),
    );
    assert!(!m.is_poisoned());
}

#[test]
fn poisoned_mutex_reset_clears_poison_and_inner() {
    let m = Mutex::new(String::with_capacity(32));
    poison_mutex(&m, |s| s.push_str("half-written secret"));
    let mut m = m;
    m.reset();
    assert!(!m.is_poisoned(), "reset must clear the poison");
    let inner = m.lock().expect("not poisoned after reset");
    assert_eq!(*inner, "");
    assert_eq!(inner.capacity(), 32, "capacity kept");
}

#[test]
fn rw_lock_resets_inner_keeping_capacity() {
    let l = RwLock::new("dirty".to_owned());
    let l = check_keeps_capacity(
        l,
        &RwLock::default(),
        |l| l.read().unwrap().clone(),
        |l| l.read().unwrap().capacity(),
    );
    assert!(!l.is_poisoned());
}

#[test]
fn poisoned_rw_lock_reset_clears_poison_and_inner() {
    let l = RwLock::new(Vec::<u8>::with_capacity(16));
    poison_rwlock(&l, |v| v.extend_from_slice(b"secret"));
    let mut l = l;
    l.reset();
    assert!(!l.is_poisoned(), "reset must clear the poison");
    let inner = l.read().expect("not poisoned after reset");
    assert!(inner.is_empty());
    assert_eq!(inner.capacity(), 16, "capacity kept");
}

// ---------------------------------------------------------------- heap_bytes after reset

/// Dirty `v`, reset it, return `heap_bytes`.
fn heap_bytes_after_reset<T: Reset>(mut v: T, dirty: impl FnOnce(&mut T)) -> usize {
    dirty(&mut v);
    v.reset();
    v.heap_bytes()
}

#[test]
fn vec_heap_bytes_is_capacity_times_element_size() {
    let hb = heap_bytes_after_reset(Vec::<u64>::with_capacity(16), |v| v.push(1));
    assert_eq!(hb, 128);
}

#[test]
fn string_heap_bytes_is_capacity() {
    let hb = heap_bytes_after_reset(String::with_capacity(10), |s| s.push_str("hi"));
    assert_eq!(hb, 10);
}

#[test]
fn vec_deque_heap_bytes_is_capacity_times_element_size() {
    let mut d = VecDeque::<u32>::with_capacity(8);
    d.push_back(1);
    let cap = d.capacity();
    assert!(cap >= 8);
    d.reset();
    assert_eq!(d.heap_bytes(), cap * 4);
}

#[test]
fn binary_heap_heap_bytes_is_capacity_times_element_size() {
    let hb = heap_bytes_after_reset(BinaryHeap::<u16>::with_capacity(5), |h| h.push(3));
    assert_eq!(hb, 10);
}

#[test]
fn hash_map_heap_bytes_covers_its_entries() {
    let mut m: HashMap<u64, u64> = HashMap::with_capacity(100);
    m.insert(1, 1);
    m.reset();
    let cap = m.capacity();
    assert!(cap >= 100);
    let hb = m.heap_bytes();
    assert!(
        hb >= cap * 16,
        "heap_bytes {hb} < {cap} entries of 16 bytes"
    );
    assert!(
        hb <= cap * 32,
        "heap_bytes {hb} far above {cap} entries of 16 bytes"
    );
}

#[test]
fn hash_set_heap_bytes_covers_its_entries() {
    let mut s: HashSet<u32, Seeded> = HashSet::with_capacity_and_hasher(100, Seeded(1));
    s.insert(1);
    s.reset();
    let cap = s.capacity();
    assert!(cap >= 100);
    let hb = s.heap_bytes();
    assert!(hb >= cap * 4, "heap_bytes {hb} < {cap} entries of 4 bytes");
    assert!(
        hb <= cap * 8,
        "heap_bytes {hb} far above {cap} entries of 4 bytes"
    );
}

#[test]
fn empty_hash_map_heap_bytes_is_zero() {
    assert_eq!(HashMap::<u64, u64>::new().heap_bytes(), 0);
}

#[test]
fn box_heap_bytes_is_box_size_plus_inner_bytes() {
    let hb = heap_bytes_after_reset(Box::new(Vec::<u64>::with_capacity(4)), |b| b.push(1));
    assert_eq!(hb, size_of::<Vec<u64>>() + 32);
}

#[test]
fn boxed_slice_heap_bytes_is_slice_size() {
    let hb = heap_bytes_after_reset(vec![1_u64; 4].into_boxed_slice(), |_| {});
    assert_eq!(hb, 32);
}

#[test]
fn array_heap_bytes_is_sum_of_elements() {
    let a: [Vec<u8>; 2] = [Vec::with_capacity(8), Vec::with_capacity(5)];
    assert_eq!(heap_bytes_after_reset(a, |a| a[0].push(1)), 13);
}

#[test]
fn tuple_heap_bytes_is_sum_of_elements() {
    let t = (Vec::<u32>::with_capacity(3), String::with_capacity(5), 7_u8);
    assert_eq!(heap_bytes_after_reset(t, |t| t.1.push('x')), 17);
}

#[test]
fn ref_cell_mutex_rw_lock_heap_bytes_are_inner_bytes() {
    let c = RefCell::new(Vec::<u32>::with_capacity(4));
    let m = Mutex::new(Vec::<u32>::with_capacity(5));
    let l = RwLock::new(Vec::<u32>::with_capacity(6));
    assert_eq!(heap_bytes_after_reset(c, |c| c.get_mut().push(1)), 16);
    assert_eq!(
        heap_bytes_after_reset(m, |m| m.get_mut().unwrap().push(1)),
        20
    );
    assert_eq!(
        heap_bytes_after_reset(l, |l| l.get_mut().unwrap().push(1)),
        24
    );
}

#[test]
fn poisoned_mutex_heap_bytes_reports_inner_bytes() {
    let m = Mutex::new(Vec::<u32>::with_capacity(4));
    poison_mutex(&m, |v| v.push(1));
    assert_eq!(m.heap_bytes(), 16);
}

// A value that cannot be measured counts as too big: reporting 0 would let
// any buffer, however large, past the size cap.

#[test]
fn mutably_borrowed_ref_cell_heap_bytes_is_max_not_a_panic() {
    let c = RefCell::new(Vec::<u32>::with_capacity(4));
    let _borrow = c.borrow_mut();
    assert_eq!(c.heap_bytes(), usize::MAX);
}

#[test]
fn locked_mutex_heap_bytes_is_max_not_a_deadlock() {
    let m = Mutex::new(Vec::<u32>::with_capacity(4));
    let _guard = m.lock().unwrap();
    assert_eq!(m.heap_bytes(), usize::MAX);
}

#[test]
fn write_locked_rw_lock_heap_bytes_is_max_not_a_deadlock() {
    let l = RwLock::new(Vec::<u32>::with_capacity(4));
    let _guard = l.write().unwrap();
    assert_eq!(l.heap_bytes(), usize::MAX);
}

// ---------------------------------------------------------------- leaked guards

// `mem::forget` on a guard is safe code, and leaves the lock held (or the
// cell borrowed) for good. The reset must hand the next user a usable lock,
// with the reset contents, and the size cap must then see those contents.

#[test]
fn mutex_reset_releases_a_forgotten_guard() {
    let mut m = Mutex::new(Vec::<u8>::with_capacity(16));
    let mut guard = m.lock().unwrap();
    guard.extend_from_slice(b"secret");
    std::mem::forget(guard);
    m.reset();
    let inner = m.try_lock().expect("the lock is free after the reset");
    assert!(inner.is_empty());
    assert_eq!(inner.capacity(), 16, "capacity kept");
}

#[test]
fn mutex_heap_bytes_after_a_forgotten_guard_is_the_inner_bytes() {
    let mut m = Mutex::new(Vec::<u8>::new());
    let mut guard = m.lock().unwrap();
    guard.reserve_exact(1 << 20);
    std::mem::forget(guard);
    m.reset();
    assert_eq!(m.heap_bytes(), 1 << 20);
}

#[test]
fn rw_lock_reset_releases_a_forgotten_write_guard() {
    let mut l = RwLock::new(String::with_capacity(16));
    let mut guard = l.write().unwrap();
    guard.push_str("secret");
    std::mem::forget(guard);
    l.reset();
    let inner = l.try_write().expect("the lock is free after the reset");
    assert_eq!((inner.as_str(), inner.capacity()), ("", 16));
}

#[test]
fn rw_lock_reset_releases_a_forgotten_read_guard() {
    let mut l = RwLock::new(vec![1_u8, 2, 3]);
    std::mem::forget(l.read().unwrap());
    l.reset();
    assert!(l.try_write().expect("writable after the reset").is_empty());
}

#[test]
fn ref_cell_reset_releases_a_forgotten_mutable_borrow() {
    let mut c = RefCell::new(vec![1_u8, 2, 3]);
    std::mem::forget(c.borrow_mut());
    c.reset();
    assert!(
        c.try_borrow()
            .expect("borrowable after the reset")
            .is_empty()
    );
}

#[test]
fn ref_cell_reset_releases_a_forgotten_shared_borrow() {
    let mut c = RefCell::new(vec![1_u8, 2, 3]);
    std::mem::forget(c.borrow());
    c.reset();
    assert!(
        c.try_borrow_mut()
            .expect("mutably borrowable after the reset")
            .is_empty()
    );
}

#[test]
fn option_heap_bytes_after_reset_is_zero() {
    let hb = heap_bytes_after_reset(Some(Vec::<u8>::with_capacity(64)), |_| {});
    assert_eq!(hb, 0);
}

// ---------------------------------------------------------------- Shrink

/// Build a value with a large capacity, shrink it to `n`, and check the
/// capacity is at most `n` and the contents are kept.
#[track_caller]
fn check_shrinks<T: Shrink + PartialEq + Debug + Clone>(
    mut big: T,
    n: usize,
    capacity: impl Fn(&T) -> usize,
) {
    let contents = big.clone();
    assert!(
        capacity(&big) > 4 * n,
        "test setup: start with a large capacity"
    );
    Shrink::shrink_to(&mut big, n);
    assert!(
        capacity(&big) <= n,
        "capacity {} above the limit {n}",
        capacity(&big)
    );
    assert_eq!(big, contents, "shrinking must keep the contents");
}

#[test]
fn shrink_string_to_at_most_n() {
    let mut s = String::with_capacity(1000);
    s.push_str("abc");
    check_shrinks(s, 10, String::capacity);
}

#[test]
fn shrink_vec_to_at_most_n() {
    let mut v = Vec::<u32>::with_capacity(1000);
    v.extend([1, 2, 3]);
    check_shrinks(v, 10, Vec::capacity);
}

#[test]
fn shrink_vec_deque_to_at_most_n() {
    let mut d = VecDeque::<u32>::with_capacity(1000);
    d.extend([1, 2, 3]);
    check_shrinks(d, 10, VecDeque::capacity);
}

#[test]
fn shrink_binary_heap_to_at_most_n() {
    let mut h = BinaryHeap::<u32>::with_capacity(1000);
    h.extend([1, 2, 3]);
    let before: Vec<u32> = h.clone().into_sorted_vec();
    Shrink::shrink_to(&mut h, 10);
    assert!(h.capacity() <= 10, "capacity {} above 10", h.capacity());
    assert_eq!(h.into_sorted_vec(), before);
}

#[test]
fn shrink_hash_map_to_at_most_n() {
    let mut m = HashMap::<u32, u32>::with_capacity(1000);
    m.extend([(1, 1), (2, 2), (3, 3)]);
    check_shrinks(m, 10, HashMap::capacity);
}

#[test]
fn shrink_hash_set_to_at_most_n() {
    let mut s = HashSet::<u32>::with_capacity(1000);
    s.extend([1, 2, 3]);
    check_shrinks(s, 10, HashSet::capacity);
}

#[test]
fn shrink_hash_map_gives_back_most_of_a_large_capacity() {
    // What the hash impls do guarantee today: the big table is released.
    let mut m = HashMap::<u32, u32, Seeded>::with_capacity_and_hasher(1000, Seeded(3));
    m.extend([(1, 1), (2, 2), (3, 3)]);
    Shrink::shrink_to(&mut m, 10);
    assert!(m.capacity() < 100, "capacity {} not shrunk", m.capacity());
    assert_eq!(m.len(), 3);
    let mut s = HashSet::<u32>::with_capacity(1000);
    s.extend([1, 2, 3]);
    Shrink::shrink_to(&mut s, 10);
    assert!(s.capacity() < 100, "capacity {} not shrunk", s.capacity());
    assert_eq!(s.len(), 3);
}

#[test]
fn shrink_leaves_a_smaller_capacity_alone() {
    let mut v = Vec::<u8>::with_capacity(4);
    v.push(1);
    Shrink::shrink_to(&mut v, 64);
    assert_eq!(v.capacity(), 4);
    let mut s = String::with_capacity(4);
    Shrink::shrink_to(&mut s, 64);
    assert_eq!(s.capacity(), 4);
}

#[test]
fn shrink_leaves_a_hash_table_at_the_limit_alone() {
    let mut m = HashMap::<u32, u32>::with_capacity(100);
    m.insert(1, 1);
    let cap = m.capacity();
    Shrink::shrink_to(&mut m, cap);
    assert_eq!(m.capacity(), cap);
    let mut s = HashSet::<u32>::with_capacity(100);
    s.insert(1);
    let cap = s.capacity();
    Shrink::shrink_to(&mut s, cap);
    assert_eq!(s.capacity(), cap);
}

/// A hash table's heap counts a control byte beside each entry: in what
/// it measures, and in what it keeps when shrunk to a cap.
#[test]
fn hash_tables_count_a_control_byte_per_entry() {
    let m = HashMap::<u64, u32>::with_capacity(100);
    assert_eq!(m.heap_bytes(), m.capacity() * (16 + 1));
    let s = HashSet::<u16>::with_capacity(100);
    assert_eq!(s.heap_bytes(), s.capacity() * (2 + 1));
    // 900 bytes: 52 entries of 17 bytes, which the table's capacities
    // (7/8 of a power of two buckets: 28, 56, ...) round down to 28; a
    // table of 56 would not fit.
    let mut m = HashMap::<u64, u64>::with_capacity(4096);
    m.shrink_heap(900);
    assert!(m.heap_bytes() <= 900, "{}", m.heap_bytes());
}

#[test]
fn a_binary_heap_shrinks_to_its_cap() {
    let mut h = BinaryHeap::<u32>::with_capacity(1000);
    h.shrink_heap(40);
    assert!(h.heap_bytes() <= 40, "{}", h.heap_bytes());
}

#[test]
fn shrink_below_length_keeps_every_element() {
    let mut v: Vec<u8> = Vec::with_capacity(100);
    v.extend(1..=20);
    Shrink::shrink_to(&mut v, 5);
    assert_eq!(v, (1..=20).collect::<Vec<u8>>());
    assert!(v.capacity() < 100);
}

// ---------------------------------------------------------------- Zeroize

#[test]
fn zeroize_vec_u8_empties_and_keeps_capacity() {
    let mut v: Vec<u8> = Vec::with_capacity(64);
    v.extend_from_slice(b"hunter2");
    let cap = v.capacity();
    v.zeroize();
    assert!(v.is_empty());
    assert_eq!(v.capacity(), cap);
    // The bytes in the spare capacity cannot be read without `unsafe`.
}

#[test]
fn zeroize_string_empties_and_keeps_capacity() {
    let mut s = String::with_capacity(64);
    s.push_str("user=ada secret=hunter2");
    let (cap, ptr) = (s.capacity(), s.as_ptr());
    s.zeroize();
    assert!(s.is_empty());
    assert_eq!(s.capacity(), cap);
    assert_eq!(s.as_ptr(), ptr, "the allocation is kept");
}

#[test]
fn zeroize_boxed_slice_writes_zeros_and_keeps_length() {
    let mut b: Box<[u8]> = b"secret key".to_vec().into_boxed_slice();
    let ptr = b.as_ptr();
    b.zeroize();
    assert_eq!(&*b, &[0_u8; 10]);
    assert_eq!(b.as_ptr(), ptr, "the allocation is kept");
}

#[test]
fn zeroize_array_writes_zeros() {
    let mut a = [0xAB_u8; 32];
    a.zeroize();
    assert_eq!(a, [0; 32]);
}

#[test]
fn zeroize_empty_vec_is_fine() {
    let mut v: Vec<u8> = Vec::new();
    v.zeroize();
    assert!(v.is_empty());
    assert_eq!(v.capacity(), 0);
}
