//! The [`Reset`] trait, its std impls, and the two helper traits behind the
//! `max_capacity` and `zeroize` field attributes.

use core::cell::{Cell, RefCell};
use core::hash::BuildHasher;
use core::marker::PhantomData;
use core::mem::size_of;
use core::num::Wrapping;
use core::sync::atomic;
use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::sync::{Mutex, RwLock};

/// Make a value indistinguishable from a freshly created one, keeping the
/// allocations that make reuse cheap.
///
/// `#[derive(Poolable)]` and `#[derive(Reset)]` implement it field by field;
/// the impls below cover the std types. The pool calls [`reset`](Reset::reset)
/// exactly once before a value can be handed out again, so no state crosses
/// from one user to the next.
///
/// [`heap_bytes`](Reset::heap_bytes) reports how many heap bytes the value
/// keeps *after* a reset (the capacity of its buffers). The pool compares it,
/// plus `size_of::<T>()`, with its `max_bytes` cap to drop oversized values
/// instead of retaining them. It defaults to 0, so a hand-written impl that
/// does not override it is dropped for its size only when `T` itself is
/// larger than the cap.
///
/// # What the std impls do
///
/// The last column says which allocations survive a reset, for the next use
/// to reuse. A collection keeps its own buffer but drops its *elements*, and
/// with them the elements' allocations: after a reset a `Vec<String>` has
/// room for the strings but no string buffers. [`RecycleVec`](crate::RecycleVec)
/// and [`RecycleOption`](crate::RecycleOption) keep those too.
///
/// | type | `reset` | `heap_bytes` after reset | allocations kept |
/// | --- | --- | --- | --- |
/// | integers, floats, `bool`, `char`, `Duration`, `Wrapping<T>`, atomics | zero / `false` / `'\0'` | 0 | none (nothing on the heap) |
/// | `()`, `PhantomData<T>` | nothing | 0 | none |
/// | `String` | `clear()`, capacity kept | capacity | its buffer |
/// | `Vec<T>`, `VecDeque<T>`, `BinaryHeap<T>` | `clear()`, capacity kept | capacity × element size | the buffer; elements dropped with their allocations |
/// | `HashMap<K, V, S>`, `HashSet<T, S>` (any hasher) | `clear()`, capacity kept | capacity × entry size (approximate) | the table; entries dropped with their allocations |
/// | `BTreeMap`, `BTreeSet`, `LinkedList` | `clear()` (they keep no capacity) | 0 | none: nodes and elements dropped |
/// | `Option<T>` | `None` | 0 | none: the value is dropped |
/// | `Box<T>` (also `Box<[T]>` via `[T]`) | reset in place, the box is kept | box size + inner bytes | the box and whatever `T`'s reset keeps |
/// | `[T; N]`, `[T]`, tuples up to 12 | each element | sum | whatever each element's reset keeps |
/// | `Cell<T: Copy + Default>` | `T::default()` | 0 | none |
/// | `RefCell<T>`, `Mutex<T>`, `RwLock<T>` | reset the inner value through `get_mut`, then rebuild the lock or cell around it: unlocked, unborrowed and unpoisoned even after a `mem::forget` on a guard | inner bytes; `usize::MAX` (too big to keep) if locked or mutably borrowed at that moment | whatever `T`'s reset keeps |
/// | `bytes::BytesMut` (feature `bytes`) | `clear()`, then take back the whole allocation if no other handle shares it, or let go of it if one does (a split or `advance` hides part of it from `capacity`) | capacity, which after the reset is the whole allocation kept | the allocation, when not shared |
/// | [`RecycleVec<T>`](crate::RecycleVec) | reset the live elements, keep them as spares | buffer + every element's bytes, live and spare | the buffer and every element, reset, with their allocations |
/// | [`RecycleOption<T>`](crate::RecycleOption) | reset the value, keep it hidden: reads as `None` | the value's bytes | the value, reset, with its allocations |
///
/// `usize::MAX` means "cannot measure": the pool then treats the value as
/// too big and drops it (unless its cap is `usize::MAX` too).
///
/// # Example
///
/// ```
/// use poolable::Reset;
///
/// let mut body = String::with_capacity(64);
/// body.push_str("user=ada secret=hunter2");
/// body.reset();
/// assert!(body.is_empty());
/// assert!(body.capacity() >= 64);
/// assert_eq!(body.heap_bytes(), body.capacity());
/// ```
///
/// A hand-written impl, for a type the derive cannot see into:
///
/// ```
/// use poolable::Reset;
///
/// struct Scratch { buf: Vec<u8>, hits: u32 }
///
/// impl Reset for Scratch {
///     fn reset(&mut self) {
///         self.buf.clear();
///         self.hits = 0;
///     }
///     fn heap_bytes(&self) -> usize {
///         self.buf.capacity()
///     }
/// }
/// # let mut s = Scratch { buf: vec![1, 2], hits: 3 };
/// # s.reset();
/// # assert!(s.buf.is_empty() && s.hits == 0);
/// ```
// The diagnostic fits both places a missing impl is found: a pool of the
// type (`static P: Pool<T>`) and a field of a derived struct. Every impl of
// the runtime is `do_not_recommend`, so the error does not end in a list of
// them ("() (A, B) (A, B, C) ... and 54 others"), none of which helps a type
// that has no impl. The cost: an error in a container (`Box<T>`, a tuple)
// names the container, not `T`; the last note says why.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no reset rule, so a pool cannot reset it for reuse",
    label = "`{Self}` does not implement `Reset`",
    note = "for a type of your own: `#[derive(Reset)]` (or `#[derive(Poolable)]`) on it writes the rule, or implement `poolable::Reset` for it by hand",
    note = "for a field of a derived struct, whatever its type (one of another crate too): give the field a rule, `#[poolable(skip)]` (keep the value), `#[poolable(with = path)]` (call a `fn(&mut {Self})`) or `#[poolable(default)]` (assign `Default::default()`, for a type with `Default`)",
    note = "a `Box`, tuple, array, `RefCell`, `Mutex` or `RwLock` has a rule when each value it holds has one"
)]
pub trait Reset {
    /// Return the value to its freshly created state, keeping reusable allocations.
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let mut ids = vec![1_u32, 2, 3];
    /// ids.reset();
    /// assert!(ids.is_empty() && ids.capacity() >= 3);
    /// ```
    fn reset(&mut self);

    /// The heap bytes this value keeps, measured after [`reset`](Reset::reset).
    ///
    /// The pool drops a returned value whose `heap_bytes` plus
    /// `size_of::<T>()` exceeds the pool's `max_bytes`. The default is 0 (no
    /// heap: only a `T` larger than the cap is too large).
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let buf: Vec<u64> = Vec::with_capacity(16);
    /// assert_eq!(buf.heap_bytes(), 16 * 8);
    /// assert_eq!(Some(5_u8).heap_bytes(), 0);
    /// ```
    fn heap_bytes(&self) -> usize {
        self.__measure(Measure::Heap).unwrap_or(0)
    }

    /// Whether the value is in its reset state: empty collections, `None`,
    /// zero numbers, and so on down its fields. The pool checks it after
    /// every reset in debug builds and under `POOLABLE=chaos`, and panics
    /// (naming the type) if it is false: a `with` function or a
    /// hand-written `reset` that leaves state behind is caught in tests,
    /// not found as one user's data in the next user's value. In release
    /// builds without chaos it is never called.
    ///
    /// The derive writes it field by field (see `#[poolable(check = path)]`
    /// in the crate docs); the std impls check what their reset does. The
    /// default says `true`: a hand-written impl that wants checking writes
    /// its own, and a reset that forgets a field then shows up.
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let mut ids = vec![1, 2, 3];
    /// assert!(!ids.is_reset());
    /// ids.reset();
    /// assert!(ids.is_reset());
    /// assert!(None::<u8>.is_reset() && 0_u32.is_reset() && !1.5_f64.is_reset());
    /// ```
    fn is_reset(&self) -> bool {
        // A match, not `is_none_or` and a closure: two functions less per
        // type in a debug build.
        match self.__measure(Measure::IsReset) {
            Some(reset) => reset != 0,
            None => true,
        }
    }

    /// The heap bytes this value's contents use now, measured *before* the
    /// reset: its lengths, where [`heap_bytes`](Reset::heap_bytes) counts
    /// capacities. A pool with an adaptive cap ([`Pool::max_bytes_auto`](crate::Pool::max_bytes_auto))
    /// calibrates from it, so a buffer that grew once for a large use and
    /// now serves small ones is seen as small. The default is
    /// [`heap_bytes`](Reset::heap_bytes).
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let mut buf: Vec<u8> = Vec::with_capacity(4096);
    /// buf.extend_from_slice(b"hello");
    /// assert_eq!((buf.used_bytes(), buf.heap_bytes()), (5, 4096));
    /// ```
    fn used_bytes(&self) -> usize {
        match self.__measure(Measure::Used) {
            Some(used) => used,
            None => self.heap_bytes(),
        }
    }

    /// The derive's one method for the three measures: `heap_bytes`,
    /// `used_bytes` and `is_reset` (as 0 or 1), `None` where the impl does
    /// not measure (then the defaults above hold). One method, not three,
    /// is less for rustc to build for each derived type.
    #[doc(hidden)]
    #[inline]
    fn __measure(&self, what: Measure) -> Option<usize> {
        let _ = what;
        None
    }

    /// Give back heap memory until [`heap_bytes`](Reset::heap_bytes) is at
    /// most `max_bytes`, where the value can. A pool whose policy is
    /// [`Oversize::Shrink`](crate::Oversize::Shrink) calls it, after the
    /// reset, on a returned value over its size cap, and keeps the value if
    /// it then fits. The default does nothing: such a value is dropped, as
    /// under `Oversize::Drop`.
    ///
    /// The std collections shrink their buffers ([`Shrink`]). A derived
    /// struct, a tuple or an array shrinks its largest parts first: every
    /// part is cut to one common level, chosen so that the whole fits, and
    /// parts already under it keep all they have.
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    /// buf.shrink_heap(4096);
    /// assert!(buf.heap_bytes() <= 4096);
    /// ```
    fn shrink_heap(&mut self, max_bytes: usize) {
        let _ = max_bytes;
    }

    /// Make room for about `bytes` heap bytes, where the value can: a pool
    /// with an adaptive cap ([`Pool::max_bytes_auto`](crate::Pool::max_bytes_auto))
    /// calls it on each value it constructs, with the size most returned
    /// values had, so a new buffer does not grow step by step to it. The
    /// std buffers (`Vec`, `String`, `VecDeque`) reserve; the default does
    /// nothing.
    ///
    /// ```
    /// use poolable::Reset;
    ///
    /// let mut buf = String::new();
    /// buf.reserve_heap(2048);
    /// assert!(buf.capacity() >= 2048);
    /// ```
    fn reserve_heap(&mut self, bytes: usize) {
        let _ = bytes;
    }
}

/// Which measure [`Reset::__measure`] is asked for (derive support).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// [`Reset::heap_bytes`].
    Heap,
    /// [`Reset::used_bytes`].
    Used,
    /// [`Reset::is_reset`], as 0 or 1.
    IsReset,
}

/// How far each part of a whole must shrink for the whole (`total` heap
/// bytes, of which `parts` can shrink) to keep at most `max_bytes`: the
/// largest level `L` with `sum(min(part, L))` within what the parts that
/// cannot shrink leave. Parts under `L` keep all they have, so a struct's
/// small buffers survive and only the large one is cut (max-min fairness).
/// Used by the derived and the composite [`Reset::shrink_heap`] impls.
#[doc(hidden)]
pub fn shrink_level(total: usize, parts: &[usize], max_bytes: usize) -> usize {
    shrink_level_by(total, max_bytes, |f| parts.iter().for_each(|&part| f(part)))
}

/// [`shrink_level`] over parts that `parts` visits (as often as it needs).
pub(crate) fn shrink_level_by(
    total: usize,
    max_bytes: usize,
    parts: impl Fn(&mut dyn FnMut(usize)),
) -> usize {
    let (mut shrinkable, mut largest) = (0_usize, 0);
    parts(&mut |part| {
        shrinkable = shrinkable.saturating_add(part);
        largest = largest.max(part);
    });
    let budget = max_bytes.saturating_sub(total.saturating_sub(shrinkable));
    let kept = |level: usize| {
        let mut sum = 0_usize;
        parts(&mut |part| sum = sum.saturating_add(part.min(level)));
        sum
    };
    let (mut low, mut high) = (0, largest);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if kept(mid) <= budget {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

/// Shrink a collection of `item_bytes`-sized slots to at most `max_bytes`.
pub(crate) fn shrink_items<C: Shrink + ?Sized>(
    collection: &mut C,
    item_bytes: usize,
    max_bytes: usize,
) {
    collection.shrink_to(max_bytes / item_bytes.max(1));
}

macro_rules! reset_to {
    ($value:expr => $($ty:ty),* $(,)?) => {
        $(#[diagnostic::do_not_recommend]
        impl Reset for $ty {
            #[inline]
            fn reset(&mut self) {
                *self = $value;
            }
            fn is_reset(&self) -> bool {
                *self == $value
            }
        })*
    };
}

reset_to!(0 => u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
reset_to!(0.0 => f32, f64);
reset_to!(false => bool);
reset_to!('\0' => char);
reset_to!(Duration::ZERO => Duration);

#[diagnostic::do_not_recommend]
impl Reset for () {
    #[inline]
    fn reset(&mut self) {}
}

#[diagnostic::do_not_recommend]
impl<T: ?Sized> Reset for PhantomData<T> {
    #[inline]
    fn reset(&mut self) {}
}

#[diagnostic::do_not_recommend]
impl<T: Reset> Reset for Wrapping<T> {
    #[inline]
    fn reset(&mut self) {
        self.0.reset();
    }
    fn is_reset(&self) -> bool {
        self.0.is_reset()
    }
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
    fn used_bytes(&self) -> usize {
        self.0.used_bytes()
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        self.0.shrink_heap(max_bytes);
    }
    fn reserve_heap(&mut self, bytes: usize) {
        self.0.reserve_heap(bytes);
    }
}

macro_rules! reset_atomic {
    ($($atomic:ident = $zero:expr),* $(,)?) => {
        $(#[diagnostic::do_not_recommend]
        impl Reset for atomic::$atomic {
            #[inline]
            fn reset(&mut self) {
                *self.get_mut() = $zero;
            }
            fn is_reset(&self) -> bool {
                self.load(atomic::Ordering::Relaxed) == $zero
            }
        })*
    };
}

reset_atomic!(
    AtomicBool = false,
    AtomicU8 = 0,
    AtomicU16 = 0,
    AtomicU32 = 0,
    AtomicU64 = 0,
    AtomicUsize = 0,
    AtomicI8 = 0,
    AtomicI16 = 0,
    AtomicI32 = 0,
    AtomicI64 = 0,
    AtomicIsize = 0,
);

#[diagnostic::do_not_recommend]
impl<T> Reset for atomic::AtomicPtr<T> {
    #[inline]
    fn reset(&mut self) {
        *self.get_mut() = core::ptr::null_mut();
    }
    fn is_reset(&self) -> bool {
        self.load(atomic::Ordering::Relaxed).is_null()
    }
}

#[diagnostic::do_not_recommend]
impl Reset for String {
    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
    fn used_bytes(&self) -> usize {
        self.len()
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        shrink_items(self, 1, max_bytes);
    }
    fn reserve_heap(&mut self, bytes: usize) {
        let _ = self.try_reserve(bytes);
    }
}

// `Vec` and `VecDeque`: the same rules, through their same-named methods.
macro_rules! reset_sequence {
    ($($ty:ident),*) => {
        $(#[diagnostic::do_not_recommend]
        impl<T> Reset for $ty<T> {
            #[inline]
            fn reset(&mut self) {
                self.clear();
            }
            fn is_reset(&self) -> bool {
                self.is_empty()
            }
            #[inline]
            fn heap_bytes(&self) -> usize {
                self.capacity().saturating_mul(size_of::<T>())
            }
            fn used_bytes(&self) -> usize {
                self.len().saturating_mul(size_of::<T>())
            }
            fn shrink_heap(&mut self, max_bytes: usize) {
                shrink_items(self, size_of::<T>(), max_bytes);
            }
            fn reserve_heap(&mut self, bytes: usize) {
                // `try_`: a size the allocator refuses leaves the value as it is.
                let _ = self.try_reserve(bytes / size_of::<T>().max(1));
            }
        })*
    };
}

reset_sequence!(Vec, VecDeque);

#[diagnostic::do_not_recommend]
impl<T> Reset for BinaryHeap<T> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<T>())
    }
    fn used_bytes(&self) -> usize {
        self.len().saturating_mul(size_of::<T>())
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        shrink_items(self, size_of::<T>(), max_bytes);
    }
}

// hashbrown stores one control byte per bucket beside each entry. `Eq +
// Hash` for `shrink_to` (a map without them can hold nothing anyway).
#[diagnostic::do_not_recommend]
impl<K: Eq + core::hash::Hash, V, S: BuildHasher> Reset for HashMap<K, V, S> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<(K, V)>() + 1)
    }
    fn used_bytes(&self) -> usize {
        self.len().saturating_mul(size_of::<(K, V)>() + 1)
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        shrink_items(self, size_of::<(K, V)>() + 1, max_bytes);
    }
}

#[diagnostic::do_not_recommend]
impl<T: Eq + core::hash::Hash, S: BuildHasher> Reset for HashSet<T, S> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<T>() + 1)
    }
    fn used_bytes(&self) -> usize {
        self.len().saturating_mul(size_of::<T>() + 1)
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        shrink_items(self, size_of::<T>() + 1, max_bytes);
    }
}

#[diagnostic::do_not_recommend]
impl<K, V> Reset for BTreeMap<K, V> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
}

#[diagnostic::do_not_recommend]
impl<T> Reset for BTreeSet<T> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
}

#[diagnostic::do_not_recommend]
impl<T> Reset for LinkedList<T> {
    fn reset(&mut self) {
        self.clear();
    }
    fn is_reset(&self) -> bool {
        self.is_empty()
    }
}

#[diagnostic::do_not_recommend]
impl<T> Reset for Option<T> {
    #[inline]
    fn reset(&mut self) {
        *self = None;
    }
    fn is_reset(&self) -> bool {
        self.is_none()
    }
}

#[diagnostic::do_not_recommend]
impl<T: Reset + ?Sized> Reset for Box<T> {
    #[inline]
    fn reset(&mut self) {
        (**self).reset();
    }
    fn is_reset(&self) -> bool {
        (**self).is_reset()
    }
    fn heap_bytes(&self) -> usize {
        core::mem::size_of_val::<T>(self).saturating_add((**self).heap_bytes())
    }
    fn used_bytes(&self) -> usize {
        core::mem::size_of_val::<T>(self).saturating_add((**self).used_bytes())
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        let own = core::mem::size_of_val::<T>(self);
        (**self).shrink_heap(max_bytes.saturating_sub(own));
    }
}

#[diagnostic::do_not_recommend]
impl<T: Reset> Reset for [T] {
    fn reset(&mut self) {
        self.iter_mut().for_each(T::reset);
    }
    fn is_reset(&self) -> bool {
        self.iter().all(T::is_reset)
    }
    fn heap_bytes(&self) -> usize {
        self.iter()
            .map(T::heap_bytes)
            .fold(0, usize::saturating_add)
    }
    fn used_bytes(&self) -> usize {
        self.iter()
            .map(T::used_bytes)
            .fold(0, usize::saturating_add)
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        let parts: Vec<usize> = self.iter().map(T::heap_bytes).collect();
        let level = shrink_level(self.heap_bytes(), &parts, max_bytes);
        self.iter_mut().for_each(|item| item.shrink_heap(level));
    }
}

#[diagnostic::do_not_recommend]
impl<T: Reset, const N: usize> Reset for [T; N] {
    #[inline]
    fn reset(&mut self) {
        self.as_mut_slice().reset();
    }
    fn is_reset(&self) -> bool {
        self.as_slice().is_reset()
    }
    fn heap_bytes(&self) -> usize {
        self.as_slice().heap_bytes()
    }
    fn used_bytes(&self) -> usize {
        self.as_slice().used_bytes()
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        self.as_mut_slice().shrink_heap(max_bytes);
    }
}

macro_rules! reset_tuple {
    ($($name:ident . $idx:tt),+) => {
        #[diagnostic::do_not_recommend]
        impl<$($name: Reset),+> Reset for ($($name,)+) {
            #[inline]
            fn reset(&mut self) {
                $(self.$idx.reset();)+
            }
            fn is_reset(&self) -> bool {
                true $(&& self.$idx.is_reset())+
            }
            fn heap_bytes(&self) -> usize {
                0_usize $(.saturating_add(self.$idx.heap_bytes()))+
            }
            fn used_bytes(&self) -> usize {
                0_usize $(.saturating_add(self.$idx.used_bytes()))+
            }
            fn shrink_heap(&mut self, max_bytes: usize) {
                let parts = [$(self.$idx.heap_bytes()),+];
                let level = shrink_level(self.heap_bytes(), &parts, max_bytes);
                $(self.$idx.shrink_heap(level);)+
            }
        }
    };
}

/// `$m!` for each tuple arity from 1 to 12 (the std's own limit for its
/// trait impls), with the element types and indexes: `$m!(A.0, B.1)`.
macro_rules! for_each_tuple {
    ($m:ident) => {
        $m!(A.0);
        $m!(A.0, B.1);
        $m!(A.0, B.1, C.2);
        $m!(A.0, B.1, C.2, D.3);
        $m!(A.0, B.1, C.2, D.3, E.4);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10);
        $m!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11);
    };
}
pub(crate) use for_each_tuple;

for_each_tuple!(reset_tuple);

#[diagnostic::do_not_recommend]
impl<T: Copy + Default> Reset for Cell<T> {
    #[inline]
    fn reset(&mut self) {
        *self.get_mut() = T::default();
    }
}

// A guard leaked with `mem::forget` keeps a lock locked (a cell borrowed)
// for good, and `get_mut` does not see it: the reset rebuilds the lock around
// the reset contents (`raw::rebuild`), so the next user can lock it and the
// size cap can measure it. Measuring takes the lock without waiting; a lock
// held at that moment cannot be measured, and counts as too big to keep.

/// What the `Reset` impls of a cell or a lock need of it: a look at the
/// contents without waiting, `held` if they cannot be looked into (a cell
/// borrowed, a lock held elsewhere; a poisoned lock is looked into), and
/// the contents through `&mut`, which needs no borrow or lock (a leaked one
/// does not stop it).
trait Guarded<T> {
    fn look<R>(&self, f: impl FnOnce(&T) -> R, held: R) -> R;
    fn inner_mut(&mut self) -> &mut T;
}

impl<T> Guarded<T> for RefCell<T> {
    fn look<R>(&self, f: impl FnOnce(&T) -> R, held: R) -> R {
        self.try_borrow().map_or(held, |inner| f(&inner))
    }
    fn inner_mut(&mut self) -> &mut T {
        self.get_mut()
    }
}

macro_rules! guarded_lock {
    ($($lock:ident, $try_lock:ident;)*) => {$(
        impl<T> Guarded<T> for $lock<T> {
            fn look<R>(&self, f: impl FnOnce(&T) -> R, held: R) -> R {
                match self.$try_lock() {
                    Ok(inner) => f(&inner),
                    Err(std::sync::TryLockError::Poisoned(p)) => f(&p.into_inner()),
                    Err(std::sync::TryLockError::WouldBlock) => held,
                }
            }
            fn inner_mut(&mut self) -> &mut T {
                self.get_mut()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
            }
        }
    )*};
}

guarded_lock! {
    Mutex, try_lock;
    RwLock, try_read;
}

// One set of rules for the cell and the locks (see above): what cannot be
// looked into is taken as over any cap, and as reset.
macro_rules! reset_guarded {
    ($($ty:ident => $rebuild:ident;)*) => {$(
        #[diagnostic::do_not_recommend]
        impl<T: Reset> Reset for $ty<T> {
            fn reset(&mut self) {
                self.inner_mut().reset();
                crate::raw::rebuild::$rebuild(self);
            }
            fn heap_bytes(&self) -> usize {
                self.look(T::heap_bytes, usize::MAX)
            }
            fn used_bytes(&self) -> usize {
                self.look(T::used_bytes, usize::MAX)
            }
            fn is_reset(&self) -> bool {
                self.look(T::is_reset, true)
            }
            fn shrink_heap(&mut self, max_bytes: usize) {
                self.inner_mut().shrink_heap(max_bytes);
            }
            fn reserve_heap(&mut self, bytes: usize) {
                self.inner_mut().reserve_heap(bytes);
            }
        }
    )*};
}

reset_guarded! {
    RefCell => ref_cell;
    Mutex => mutex;
    RwLock => rw_lock;
}

/// Give back capacity above a limit: the rule behind `#[poolable(max_capacity = N)]`.
///
/// After a field is reset, the derive calls `shrink_to(N)` on it, so one huge
/// request does not keep a huge buffer resident in the pool. `N` counts
/// elements (bytes for `String`), as the std `shrink_to` methods do; for a
/// [`RecycleVec`](crate::RecycleVec) it bounds the elements kept, live plus
/// spare, and for a [`RecycleOption`](crate::RecycleOption) it applies to the
/// value inside. The capacity afterwards is at most `N` (hash tables, which
/// grow in steps, end at the largest step that fits), unless the value holds
/// more than `N` elements, which are never dropped.
///
/// ```
/// use poolable::Shrink;
///
/// let mut v: Vec<u8> = Vec::with_capacity(1 << 20);
/// Shrink::shrink_to(&mut v, 4096);
/// assert!(v.capacity() <= 4096);
/// ```
#[diagnostic::on_unimplemented(
    message = "`max_capacity` needs a collection with spare capacity; `{Self}` has none",
    label = "`{Self}` does not implement `poolable::Shrink`",
    note = "`max_capacity` works on `Vec`, `String`, `VecDeque`, `HashMap`, `HashSet`, `BinaryHeap`, `RecycleVec` and `RecycleOption`, or any type that implements `poolable::Shrink`"
)]
pub trait Shrink {
    /// Reduce the capacity to at most `capacity` (elements), if it is larger.
    ///
    /// ```
    /// use poolable::Shrink;
    ///
    /// let mut s = String::with_capacity(1000);
    /// Shrink::shrink_to(&mut s, 10);
    /// assert!(s.capacity() <= 10);
    /// ```
    fn shrink_to(&mut self, capacity: usize);
}

macro_rules! shrink_via_std {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {
        $(impl<$($gen)*> Shrink for $ty {
            #[inline]
            fn shrink_to(&mut self, capacity: usize) {
                if self.capacity() > capacity {
                    <$ty>::shrink_to(self, capacity);
                }
            }
        })*
    };
}

shrink_via_std! {
    impl[] String;
    impl[T] Vec<T>;
    impl[T] VecDeque<T>;
    impl[T] BinaryHeap<T>;
}

// Hash tables grow in steps (3, 7, 14, 28, ... entries), and the std
// `shrink_to(n)` rounds *up* to the next step. Halve the request until the
// table fits under `capacity` (or cannot shrink further without losing
// entries), so `max_capacity = N` really is an upper bound.
macro_rules! shrink_table {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {
        $(impl<$($gen)*> Shrink for $ty {
            fn shrink_to(&mut self, capacity: usize) {
                shrink_table(self, capacity, <$ty>::len, <$ty>::capacity, <$ty>::shrink_to);
            }
        })*
    };
}

/// The body of every hash table's [`Shrink`] (std's and hashbrown's, which
/// round capacities up alike): ask for `capacity`, then for half as much,
/// until the table fits under it or cannot shrink without losing entries.
pub(crate) fn shrink_table<T>(
    table: &mut T,
    capacity: usize,
    len: fn(&T) -> usize,
    current: fn(&T) -> usize,
    shrink_to: fn(&mut T, usize),
) {
    let mut target = capacity;
    while current(table) > capacity {
        shrink_to(table, target);
        if target <= len(table) {
            break;
        }
        target = (target / 2).max(len(table));
    }
}

shrink_table! {
    impl[K: Eq + core::hash::Hash, V, S: BuildHasher] HashMap<K, V, S>;
    impl[T: Eq + core::hash::Hash, S: BuildHasher] HashSet<T, S>;
}

/// Overwrite a buffer's whole allocation with zeros and empty it: the rule
/// behind `#[poolable(zeroize)]`.
///
/// `clear()` only forgets the length, so the bytes of the last secret stay in
/// the spare capacity, where `unsafe` code, a `set_len`, or a memory dump can
/// still read them. `zeroize` writes zeros over every byte up to the capacity
/// before the value goes back to the pool. The writes come from the
/// [`zeroize`](https://docs.rs/zeroize) crate (volatile writes or an
/// optimisation barrier the compiler cannot see through), so they are not
/// removed as dead stores. The capacity is kept.
///
/// A struct deriving `Poolable` or `Reset` with a `zeroize` field also wipes
/// the field when it is dropped; see the crate guide for what no wipe can
/// cover (a reallocation on growth, a detached value).
///
/// ```
/// use poolable::Zeroize;
///
/// let mut secret = String::from("user=ada secret=hunter2");
/// let cap = secret.capacity();
/// secret.zeroize();
/// assert!(secret.is_empty());
/// assert_eq!(secret.capacity(), cap);
/// ```
#[diagnostic::on_unimplemented(
    message = "`zeroize` wipes byte buffers; `{Self}` is not one",
    label = "`{Self}` does not implement `poolable::Zeroize`",
    note = "`zeroize` works on `Vec<u8>`, `String`, `Box<[u8]>` and `[u8; N]`, or any type that implements `poolable::Zeroize`"
)]
pub trait Zeroize {
    /// Write zeros over the whole allocation, then empty the value.
    ///
    /// ```
    /// use poolable::Zeroize;
    ///
    /// let mut key = [0xAB_u8; 32];
    /// key.zeroize();
    /// assert_eq!(key, [0; 32]);
    /// ```
    fn zeroize(&mut self);
}

impl Zeroize for Vec<u8> {
    fn zeroize(&mut self) {
        // Both halves in bulk; the `zeroize` crate's own `Vec` impl writes
        // the initialised part one element at a time.
        zeroize::zeroize_bytes(self);
        zeroize::Zeroize::zeroize(self.spare_capacity_mut());
        self.clear();
    }
}

impl Zeroize for String {
    fn zeroize(&mut self) {
        let mut bytes = core::mem::take(self).into_bytes();
        bytes.zeroize();
        // An empty buffer is valid UTF-8, so this keeps the allocation.
        *self = String::from_utf8(bytes).unwrap_or_default();
    }
}

impl Zeroize for Box<[u8]> {
    fn zeroize(&mut self) {
        zeroize::zeroize_bytes(self);
    }
}

impl<const N: usize> Zeroize for [u8; N] {
    fn zeroize(&mut self) {
        zeroize::zeroize_bytes(self);
    }
}

/// Reset verification failed: `value.is_reset()` is false after its reset,
/// for a value whose type is `type_name`. Raised in debug builds and under
/// `POOLABLE=chaos`; the caller has made sure the value is dropped and
/// counted (`dropped_panic`).
#[cold]
#[inline(never)]
pub(crate) fn not_reset_named(type_name: &str) -> ! {
    panic!(
        "poolable: a `{}` came back to its pool still holding state: `Reset::is_reset` is false \
         after `Reset::reset`, so the next user would see this user's data. A `with = path` \
         function or a hand-written `reset` leaves something behind. If that state is \
         intended (a `with` function that resets to a non-empty value), say what reset means \
         with `#[poolable(check = path)]` or `Reset::is_reset`. (Checked in debug builds and \
         under POOLABLE=chaos; the value was dropped.)",
        type_name
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `value` (with `used` bytes of contents) measures them in
    /// `used_bytes`, and once reset `shrink_heap(max)` brings it under
    /// `max`, still reset.
    pub(crate) fn measures_and_shrinks<T: Reset>(mut value: T, used: usize, max: usize) {
        let name = core::any::type_name::<T>();
        assert_eq!(value.used_bytes(), used, "{name}");
        value.reset();
        assert!(value.heap_bytes() > max, "{name}: over the cap at first");
        value.shrink_heap(max);
        let bytes = value.heap_bytes();
        assert!(bytes <= max, "{name}: {bytes} bytes");
        assert!(value.is_reset(), "{name}");
    }

    fn hello() -> Vec<u8> {
        let mut v = Vec::with_capacity(4096);
        v.extend_from_slice(b"hello");
        v
    }

    /// Every std type that holds a buffer: the hash tables, the cells and
    /// locks, and `Wrapping` once had the trait's defaults (nothing given
    /// back; the capacity taken for the contents).
    #[test]
    fn std_types_that_hold_buffers_measure_their_contents_and_shrink() {
        let mut map = HashMap::<u64, u64>::with_capacity(1000);
        map.insert(1, 2);
        measures_and_shrinks(map, size_of::<(u64, u64)>() + 1, 1000);
        let mut set = HashSet::<u64>::with_capacity(1000);
        set.insert(1);
        measures_and_shrinks(set, size_of::<u64>() + 1, 1000);
        measures_and_shrinks(RefCell::new(hello()), 5, 100);
        measures_and_shrinks(Mutex::new(hello()), 5, 100);
        measures_and_shrinks(RwLock::new(hello()), 5, 100);
        measures_and_shrinks(Wrapping(hello()), 5, 100);
    }
}
