//! [`RecycleVec`] and [`RecycleOption`]: containers whose reset keeps their
//! elements, reset, for the next use.
//!
//! The std impls of [`Reset`] keep a collection's *buffer* but drop its
//! *elements*: after a reset, a `Vec<String>` still has room for the strings,
//! but each string's own buffer is freed, and the next use allocates it
//! again. An `Option<String>` reset to `None` frees the string. For pooled
//! values made of nested data (headers, query parameters, rows), those inner
//! allocations are most of the cost.
//!
//! These two types keep them. Their reset calls [`Reset::reset`] on each
//! element in use and keeps the element as a *spare*; the next use takes
//! spares back ([`RecycleVec::push_reset`], [`RecycleOption::get_or_insert_reset`])
//! instead of allocating. Spares are invisible: no method, trait impl,
//! `Debug` output or serialization reaches them until they are taken again,
//! and by then they are reset.

use crate::{Reset, Shrink};
use core::fmt;
use core::hash::{Hash, Hasher};
use core::mem::{self, size_of};
use core::ops::{Deref, DerefMut};

/// A vector whose reset resets its elements and keeps them for the next use,
/// like protobuf's `RepeatedPtrField` or fasthttp's header reuse.
///
/// Every element it ever held stays allocated: the first [`len`](Self::len)
/// are *live* (what the vector contains, all that [`Deref`] to `[T]`,
/// iteration, comparison, `Debug` and serde see); the rest are *spares*,
/// already reset, waiting for [`push_reset`](Self::push_reset).
///
/// - [`Reset::reset`] (and [`clear`](Self::clear), [`truncate`](Self::truncate))
///   reset the live elements and keep them as spares. It touches only the
///   live elements: a use that filled `k` costs `O(k)`, however many spares
///   there are.
/// - [`push_reset`](Self::push_reset) hands back a spare (reset, with its
///   buffers) or a new `T::default()` when none is left. This is the call
///   that saves allocations.
/// - [`push`](Self::push) stores a value you built; a spare in its way is
///   dropped, so the number of elements never grows beyond the most the
///   vector has held at once.
/// - [`Reset::heap_bytes`] counts every element, live and spare, plus the
///   vector's own buffer, so the pool's `max_bytes` cap sees all of it.
/// - `#[poolable(max_capacity = N)]` ([`Shrink`]) bounds the elements kept
///   after a reset, live plus spare, to `N`.
///
/// What is not promised: a spare keeps whatever its own reset keeps. A reset
/// `String` still holds the old bytes in its spare capacity (unreachable
/// through safe code, as for any cleared `String`).
///
/// The methods that add or remove elements need `T: Reset`, as does the
/// reset itself: the vector keeps the heap bytes of its spares as a running
/// total (measured when each became spare), so that `heap_bytes` after a
/// reset costs `O(1)` too.
///
/// ```
/// use poolable::{RecycleVec, Reset};
///
/// let mut headers: RecycleVec<(String, String)> = RecycleVec::new();
/// let (name, value) = headers.push_reset();
/// name.push_str("authorization");
/// value.push_str("Bearer hunter2");
/// let buffer = headers[0].1.as_ptr();
///
/// headers.reset();
/// assert!(headers.is_empty());
/// assert_eq!(headers.spare_len(), 1);
///
/// let (name, value) = headers.push_reset(); // the same strings, reset
/// assert!(name.is_empty() && value.is_empty());
/// assert_eq!(value.as_ptr(), buffer); // no new allocation
/// ```
pub struct RecycleVec<T> {
    /// The live elements, then the spares. Every spare is reset.
    items: Vec<T>,
    /// How many of `items` are live; `len <= items.len()`.
    len: usize,
    /// `Reset::heap_bytes` summed over the spares, saturating: once at
    /// `usize::MAX` (a spare that cannot be measured says so) it has lost
    /// count, and a spare that leaves makes it summed again
    /// ([`spares_without`](Self::spares_without)).
    spare_bytes: usize,
}

impl<T> RecycleVec<T> {
    /// An empty vector; allocates nothing.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// static EMPTY: RecycleVec<String> = RecycleVec::new();
    /// assert!(EMPTY.is_empty() && EMPTY.spare_len() == 0);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        RecycleVec {
            items: Vec::new(),
            len: 0,
            spare_bytes: 0,
        }
    }

    /// The number of live elements.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let v: RecycleVec<u8> = [1, 2, 3].into_iter().collect();
    /// assert_eq!(v.len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no live elements (there may be spares).
    ///
    /// ```
    /// use poolable::{RecycleVec, Reset};
    ///
    /// let mut v: RecycleVec<String> = RecycleVec::new();
    /// v.push_reset().push_str("x");
    /// assert!(!v.is_empty());
    /// v.reset();
    /// assert!(v.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many reset elements are kept beyond [`len`](Self::len), ready
    /// for [`push_reset`](Self::push_reset).
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<String> = ["a", "b", "c"].map(String::from).into_iter().collect();
    /// v.truncate(1);
    /// assert_eq!((v.len(), v.spare_len()), (1, 2));
    /// v.push_reset();
    /// assert_eq!((v.len(), v.spare_len()), (2, 1));
    /// ```
    #[must_use]
    pub fn spare_len(&self) -> usize {
        self.items.len() - self.len
    }

    /// The live elements.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let v: RecycleVec<u8> = [1, 2].into_iter().collect();
    /// assert_eq!(v.as_slice(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }

    /// The live elements, mutably.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<u8> = [1, 2].into_iter().collect();
    /// v.as_mut_slice()[0] = 9;
    /// assert_eq!(v.as_slice(), &[9, 2]);
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..self.len]
    }
}

impl<T: Reset + Default> RecycleVec<T> {
    /// Append an element and return it: a spare if there is one (reset, its
    /// buffers kept), else a new `T::default()`.
    ///
    /// ```
    /// use poolable::{RecycleVec, Reset};
    ///
    /// let mut rows: RecycleVec<Vec<u32>> = RecycleVec::new();
    /// rows.push_reset().extend([1, 2, 3]);
    /// rows.reset();
    ///
    /// let row = rows.push_reset();
    /// assert!(row.is_empty() && row.capacity() >= 3);
    /// ```
    ///
    /// # Panics
    ///
    /// When `T::default` (on a push past the slots kept) or `T`'s
    /// `heap_bytes` panics. The vector is as it was.
    pub fn push_reset(&mut self) -> &mut T {
        if self.len == self.items.len() {
            self.items.push(T::default());
        } else {
            let spare = self.items[self.len].heap_bytes();
            self.spare_bytes = self.spares_without(self.len..self.len + 1, spare);
        }
        self.len += 1;
        &mut self.items[self.len - 1]
    }
}

impl<T: Reset> RecycleVec<T> {
    /// Append `value`.
    ///
    /// If there is a spare, `value` takes its place and the spare is dropped
    /// (with its allocations): keeping it too would let the element count
    /// grow with every `push`. To reuse spares, fill them with
    /// [`push_reset`](Self::push_reset) instead.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v = RecycleVec::new();
    /// v.push(String::from("a"));
    /// v.push(String::from("b"));
    /// assert_eq!(v.as_slice(), ["a", "b"]);
    /// ```
    pub fn push(&mut self, value: T) {
        if self.len == self.items.len() {
            self.items.push(value);
            self.len += 1;
        } else {
            let bytes = self.items[self.len].heap_bytes();
            let total = self.spares_without(self.len..self.len + 1, bytes);
            let spare = mem::replace(&mut self.items[self.len], value);
            self.len += 1;
            self.spare_bytes = total;
            // Dropped last: if its `Drop` panics, the vector is already whole.
            drop(spare);
        }
    }

    /// Keep the first `len` elements; reset the rest and keep them as spares.
    /// Does nothing if `len >= self.len()`.
    ///
    /// If an element's reset panics, that element and the ones after it that
    /// were not reset yet are dropped (not kept as spares), and the panic
    /// goes on; the vector holds the first `len` elements and the spares.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<String> = ["a", "b", "c"].map(String::from).into_iter().collect();
    /// v.truncate(1);
    /// assert_eq!(v.as_slice(), ["a"]);
    /// assert_eq!(v.spare_len(), 2);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let end = self.len;
        self.len = len;
        let mut tail = ResetTail {
            items: &mut self.items,
            next: len,
            end,
        };
        while tail.next < tail.end {
            let item = &mut tail.items[tail.next];
            item.reset();
            self.spare_bytes = self.spare_bytes.saturating_add(item.heap_bytes());
            tail.next += 1;
        }
    }

    /// Reset every live element and keep it as a spare; the same as
    /// [`Reset::reset`].
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
    /// v.clear();
    /// assert!(v.is_empty());
    /// assert_eq!(v.spare_len(), 2);
    /// ```
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// The spares' bytes once the spares at `gone`, `bytes` together, have
    /// left. Exact while the total has kept count; once it is saturated,
    /// summed again from the spares that stay (a slow path: it takes a
    /// spare that cannot be measured, and one leaving), so that the one
    /// that measured `usize::MAX` does not hide the others once it is gone.
    /// It changes nothing: if a `heap_bytes` panics, the vector is as it was.
    fn spares_without(&self, gone: core::ops::Range<usize>, bytes: usize) -> usize {
        if self.spare_bytes != usize::MAX {
            return self.spare_bytes.saturating_sub(bytes);
        }
        (self.len..self.items.len())
            .filter(|i| !gone.contains(i))
            .map(|i| self.items[i].heap_bytes())
            .fold(0, usize::saturating_add)
    }
}

/// Turns `items[next..end]` into spares, one reset at a time. If a reset
/// panics, `items[next..end]` are not (all) reset: dropping the guard during
/// the unwind removes them, so no spare keeps old data.
struct ResetTail<'a, T> {
    items: &'a mut Vec<T>,
    next: usize,
    end: usize,
}

impl<T> Drop for ResetTail<'_, T> {
    fn drop(&mut self) {
        if self.next < self.end {
            self.items.drain(self.next..self.end);
        }
    }
}

/// Resets the live elements and keeps them as spares; see [`RecycleVec`].
/// `heap_bytes` is the vector's buffer (capacity × element size) plus the
/// `heap_bytes` of every element, live and spare.
///
/// ```
/// use poolable::{RecycleVec, Reset};
///
/// let mut v: RecycleVec<String> = RecycleVec::new();
/// v.push_reset().push_str("a secret");
/// v.reset();
/// assert!(v.is_empty());
/// assert!(v.heap_bytes() >= "a secret".len());
/// ```
#[diagnostic::do_not_recommend]
impl<T: Reset> Reset for RecycleVec<T> {
    #[inline]
    fn reset(&mut self) {
        self.clear();
    }

    /// No live elements (the spares were reset when they were cleared).
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    fn heap_bytes(&self) -> usize {
        self.items
            .capacity()
            .saturating_mul(size_of::<T>())
            .saturating_add(self.spare_bytes)
            .saturating_add(self.as_slice().heap_bytes())
    }

    /// The live elements and what they use; spares are not in use.
    fn used_bytes(&self) -> usize {
        self.len
            .saturating_mul(size_of::<T>())
            .saturating_add(self.as_slice().used_bytes())
    }

    /// Drop spares (and shrink the buffer) until the whole fits; live
    /// elements are shrunk only when the spares are all gone.
    fn shrink_heap(&mut self, max_bytes: usize) {
        // First the buffer's slack, then half the spares at a time.
        let mut keep = self.items.len();
        while self.heap_bytes() > max_bytes {
            Shrink::shrink_to(self, keep);
            if keep == self.len {
                break;
            }
            keep = self.len.max(keep / 2);
        }
        if self.heap_bytes() > max_bytes {
            let buffer = self.items.capacity().saturating_mul(size_of::<T>());
            self.as_mut_slice()
                .shrink_heap(max_bytes.saturating_sub(buffer));
        }
    }
}

/// Drop spares until at most `capacity` elements are kept (live elements are
/// never dropped), then shrink the buffer; the rule behind
/// `#[poolable(max_capacity = N)]`. `N` counts elements, not the bytes inside
/// them: the elements' own buffers are left as they are.
///
/// ```
/// use poolable::{RecycleVec, Reset, Shrink};
///
/// let mut v: RecycleVec<String> = RecycleVec::new();
/// for _ in 0..100 {
///     v.push_reset().push_str("x");
/// }
/// v.reset();
/// Shrink::shrink_to(&mut v, 8);
/// assert_eq!(v.spare_len(), 8);
/// ```
impl<T: Reset> Shrink for RecycleVec<T> {
    fn shrink_to(&mut self, capacity: usize) {
        let keep = capacity.max(self.len);
        if self.items.len() > keep {
            let dropped = self.items[keep..]
                .iter()
                .map(T::heap_bytes)
                .fold(0, usize::saturating_add);
            self.spare_bytes = self.spares_without(keep..self.items.len(), dropped);
            self.items.truncate(keep);
        }
        if self.items.capacity() > capacity {
            self.items.shrink_to(capacity);
        }
    }
}

impl<T> Default for RecycleVec<T> {
    /// The same as [`RecycleVec::new`].
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let v: RecycleVec<String> = Default::default();
    /// assert!(v.is_empty());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deref for RecycleVec<T> {
    type Target = [T];

    /// The live elements, so slice methods, indexing and `iter()` see only them.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let v: RecycleVec<u8> = [3, 1, 2].into_iter().collect();
    /// assert_eq!(v[0], 3);
    /// assert_eq!(v.iter().max(), Some(&3));
    /// ```
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for RecycleVec<T> {
    /// The live elements, mutably.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<u8> = [3, 1, 2].into_iter().collect();
    /// v.sort();
    /// assert_eq!(v.as_slice(), &[1, 2, 3]);
    /// ```
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T> AsRef<[T]> for RecycleVec<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> AsMut<[T]> for RecycleVec<T> {
    fn as_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

/// Lists the live elements, as a `Vec` would; spares are not shown.
///
/// ```
/// use poolable::RecycleVec;
///
/// let mut v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
/// v.truncate(1);
/// assert_eq!(format!("{v:?}"), r#"["a"]"#);
/// ```
impl<T: fmt::Debug> fmt::Debug for RecycleVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// Clones the live elements only; the clone has no spares.
///
/// ```
/// use poolable::RecycleVec;
///
/// let mut v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
/// v.truncate(1);
/// let c = v.clone();
/// assert_eq!((c.len(), c.spare_len()), (1, 0));
/// ```
impl<T: Clone> Clone for RecycleVec<T> {
    fn clone(&self) -> Self {
        Self::from(self.as_slice().to_vec())
    }
}

/// Compares the live elements only, like slices.
///
/// ```
/// use poolable::RecycleVec;
///
/// let mut a: RecycleVec<u8> = [1, 2, 3].into_iter().collect();
/// let b: RecycleVec<u8> = [1].into_iter().collect();
/// a.truncate(1);
/// assert_eq!(a, b); // a's spares do not count
/// assert_eq!(a, [1]);
/// ```
impl<T: PartialEq<U>, U> PartialEq<RecycleVec<U>> for RecycleVec<T> {
    fn eq(&self, other: &RecycleVec<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for RecycleVec<T> {}

impl<T: PartialEq<U>, U> PartialEq<[U]> for RecycleVec<T> {
    fn eq(&self, other: &[U]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq<U>, U> PartialEq<&[U]> for RecycleVec<T> {
    fn eq(&self, other: &&[U]) -> bool {
        self.as_slice() == *other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U; N]> for RecycleVec<T> {
    fn eq(&self, other: &[U; N]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq<U>, U> PartialEq<Vec<U>> for RecycleVec<T> {
    fn eq(&self, other: &Vec<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// Hashes the live elements only, as their slice does (so as a `Vec` does).
///
/// ```
/// use poolable::RecycleVec;
/// use std::collections::HashSet;
///
/// let mut a: RecycleVec<u8> = [1, 2].into_iter().collect();
/// a.truncate(1);
/// let set: HashSet<RecycleVec<u8>> = [a].into_iter().collect();
/// assert!(set.contains(&[1].into_iter().collect::<RecycleVec<u8>>()));
/// ```
impl<T: Hash> Hash for RecycleVec<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

/// Pushes each item with [`push`](RecycleVec::push) (so spares in the way
/// are dropped).
///
/// ```
/// use poolable::RecycleVec;
///
/// let mut v: RecycleVec<u8> = RecycleVec::new();
/// v.extend([1, 2]);
/// assert_eq!(v, [1, 2]);
/// ```
impl<T: Reset> Extend<T> for RecycleVec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        let wanted = self.len.saturating_add(iter.size_hint().0);
        self.items.reserve(wanted.saturating_sub(self.items.len()));
        for value in iter {
            self.push(value);
        }
    }
}

/// A vector of the items, all live, no spares.
///
/// ```
/// use poolable::RecycleVec;
///
/// let v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
/// assert_eq!((v.len(), v.spare_len()), (2, 0));
/// ```
impl<T> FromIterator<T> for RecycleVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<T>>())
    }
}

/// A vector of the `Vec`'s elements, all live, no spares; no allocation.
///
/// ```
/// use poolable::RecycleVec;
///
/// let v = RecycleVec::from(vec![1, 2]);
/// assert_eq!(v, [1, 2]);
/// ```
impl<T> From<Vec<T>> for RecycleVec<T> {
    fn from(items: Vec<T>) -> Self {
        RecycleVec {
            len: items.len(),
            items,
            spare_bytes: 0,
        }
    }
}

/// The live elements; the spares are dropped.
///
/// ```
/// use poolable::RecycleVec;
///
/// let mut v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
/// v.truncate(1);
/// assert_eq!(Vec::from(v), ["a"]);
/// ```
impl<T> From<RecycleVec<T>> for Vec<T> {
    fn from(mut v: RecycleVec<T>) -> Self {
        v.items.truncate(v.len);
        v.items
    }
}

impl<'a, T> IntoIterator for &'a RecycleVec<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;

    /// Iterates over the live elements.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let v: RecycleVec<u8> = [1, 2].into_iter().collect();
    /// let mut sum = 0;
    /// for x in &v {
    ///     sum += x;
    /// }
    /// assert_eq!(sum, 3);
    /// ```
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T> IntoIterator for &'a mut RecycleVec<T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;

    /// Iterates mutably over the live elements.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<u8> = [1, 2].into_iter().collect();
    /// for x in &mut v {
    ///     *x *= 10;
    /// }
    /// assert_eq!(v, [10, 20]);
    /// ```
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

impl<T> IntoIterator for RecycleVec<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    /// Moves out the live elements; the spares are dropped.
    ///
    /// ```
    /// use poolable::RecycleVec;
    ///
    /// let mut v: RecycleVec<String> = ["a", "b"].map(String::from).into_iter().collect();
    /// v.truncate(1);
    /// assert_eq!(v.into_iter().collect::<Vec<_>>(), ["a"]);
    /// ```
    fn into_iter(self) -> Self::IntoIter {
        Vec::from(self).into_iter()
    }
}

/// An [`Option`] whose `None` keeps the reset value for the next use.
///
/// `Option<T>`'s reset sets it to `None` and drops the value with its
/// allocations. `RecycleOption<T>`'s reset resets the value and keeps it,
/// hidden; [`get_or_insert_reset`](Self::get_or_insert_reset) brings it back.
/// Empty, it behaves as `None` everywhere: [`get`](Self::get), comparison,
/// hashing, `Debug` (`None`) and serde never show the kept value.
///
/// [`insert`](Self::insert) and [`take`](Self::take) move whole values in and
/// out, as `Option`'s do; a kept value in the way is dropped.
///
/// ```
/// use poolable::{RecycleOption, Reset};
///
/// let mut query: RecycleOption<String> = RecycleOption::new();
/// query.get_or_insert_reset().push_str("user=ada&token=hunter2");
/// let buffer = query.get().map(|q| q.as_ptr());
///
/// query.reset();
/// assert_eq!(query.get(), None);
/// assert_eq!(format!("{query:?}"), "None");
///
/// let q = query.get_or_insert_reset(); // the same string, cleared
/// assert!(q.is_empty());
/// assert_eq!(Some(q.as_ptr()), buffer);
/// ```
pub struct RecycleOption<T> {
    /// The value, live or kept; `None` until the first one arrives.
    value: Option<T>,
    /// Whether `value` is live. When it is not, `value` is reset (or `None`).
    live: bool,
}

impl<T> RecycleOption<T> {
    /// An empty option with no kept value; allocates nothing.
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// static NONE: RecycleOption<String> = RecycleOption::new();
    /// assert!(NONE.is_none());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        RecycleOption {
            value: None,
            live: false,
        }
    }

    /// The value, if there is one (a kept value is not one).
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let q = RecycleOption::from(Some(7));
    /// assert_eq!(q.get(), Some(&7));
    /// ```
    #[must_use]
    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().filter(|_| self.live)
    }

    /// The value, mutably, if there is one.
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let mut q = RecycleOption::from(Some(7));
    /// if let Some(n) = q.get_mut() {
    ///     *n += 1;
    /// }
    /// assert_eq!(q.get(), Some(&8));
    /// ```
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.value.as_mut().filter(|_| self.live)
    }

    /// Whether there is a value.
    ///
    /// ```
    /// use poolable::{RecycleOption, Reset};
    ///
    /// let mut q = RecycleOption::from(Some(String::from("a")));
    /// assert!(q.is_some());
    /// q.reset(); // kept, but not a value any more
    /// assert!(!q.is_some());
    /// ```
    #[must_use]
    pub fn is_some(&self) -> bool {
        self.get().is_some()
    }

    /// Whether there is no value (there may be a kept one).
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// assert!(RecycleOption::<String>::new().is_none());
    /// ```
    #[must_use]
    pub fn is_none(&self) -> bool {
        !self.is_some()
    }

    /// Store `value` and return it; the old value, live or kept, is dropped.
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let mut q = RecycleOption::new();
    /// q.insert(String::from("a")).push('b');
    /// assert_eq!(q.get().map(String::as_str), Some("ab"));
    /// ```
    pub fn insert(&mut self, value: T) -> &mut T {
        let old = self.value.take();
        self.live = true;
        let slot = self.value.insert(value);
        // Dropped last: if its `Drop` panics, `self` already holds `value`.
        drop(old);
        slot
    }

    /// Move the value out, leaving nothing (no kept value either), as
    /// [`Option::take`] does.
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let mut q = RecycleOption::from(Some(5));
    /// assert_eq!(q.take(), Some(5));
    /// assert!(q.is_none());
    /// ```
    pub fn take(&mut self) -> Option<T> {
        if self.live {
            self.live = false;
            self.value.take()
        } else {
            // A kept value goes too, dropped in place.
            self.value = None;
            None
        }
    }
}

impl<T: Reset + Default> RecycleOption<T> {
    /// The value; if there is none, the kept value (reset, its buffers kept)
    /// or else a new `T::default()` becomes the value.
    ///
    /// ```
    /// use poolable::{RecycleOption, Reset};
    ///
    /// let mut q: RecycleOption<Vec<u8>> = RecycleOption::new();
    /// q.get_or_insert_reset().extend_from_slice(b"a=1");
    /// q.get_or_insert_reset().extend_from_slice(b"&b=2"); // the same value
    /// assert_eq!(q.get().map(Vec::as_slice), Some(&b"a=1&b=2"[..]));
    ///
    /// q.reset();
    /// let kept = q.get_or_insert_reset();
    /// assert!(kept.is_empty() && kept.capacity() >= 7);
    /// ```
    pub fn get_or_insert_reset(&mut self) -> &mut T {
        let value = self.value.get_or_insert_with(T::default);
        self.live = true;
        value
    }
}

impl<T: Reset> RecycleOption<T> {
    /// Reset the value and keep it, hidden; the same as [`Reset::reset`].
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let mut q = RecycleOption::from(Some(String::from("a")));
    /// q.clear();
    /// assert!(q.is_none());
    /// ```
    pub fn clear(&mut self) {
        if !self.live {
            return;
        }
        self.live = false;
        // The reset runs in place. If it panics, the value is dropped in
        // place in the unwind: nothing half-reset is kept, and its `Drop`
        // (the wipe of a `zeroize` field) reaches these bytes, not a copy
        // moved out of them.
        let on_panic = DropOnUnwind(&mut self.value);
        if let Some(value) = on_panic.0.as_mut() {
            value.reset();
        }
        mem::forget(on_panic);
    }
}

/// Drops the value in the slot, in place, if dropped: if a reset unwinds
/// past it.
struct DropOnUnwind<'a, T>(&'a mut Option<T>);

impl<T> Drop for DropOnUnwind<'_, T> {
    fn drop(&mut self) {
        *self.0 = None;
    }
}

/// Resets the value and keeps it, hidden; see [`RecycleOption`].
/// `heap_bytes` is the value's, live or kept.
///
/// ```
/// use poolable::{RecycleOption, Reset};
///
/// let mut q = RecycleOption::new();
/// q.insert(String::with_capacity(64));
/// q.reset();
/// assert!(q.is_none());
/// assert!(q.heap_bytes() >= 64);
/// ```
#[diagnostic::do_not_recommend]
impl<T: Reset> Reset for RecycleOption<T> {
    #[inline]
    fn reset(&mut self) {
        self.clear();
    }

    /// No live value.
    fn is_reset(&self) -> bool {
        self.is_none()
    }

    fn heap_bytes(&self) -> usize {
        self.value.as_ref().map_or(0, T::heap_bytes)
    }

    /// The live value's use; a kept one is not in use.
    fn used_bytes(&self) -> usize {
        match &self.value {
            Some(value) if self.live => value.used_bytes(),
            _ => 0,
        }
    }

    fn shrink_heap(&mut self, max_bytes: usize) {
        if let Some(value) = &mut self.value {
            value.shrink_heap(max_bytes);
        }
    }
}

/// Shrinks the value, live or kept, through its own [`Shrink`]; the rule
/// behind `#[poolable(max_capacity = N)]`, with `N` in the value's units.
///
/// ```
/// use poolable::{RecycleOption, Reset, Shrink};
///
/// let mut q = RecycleOption::new();
/// q.insert(String::with_capacity(4096));
/// q.reset();
/// Shrink::shrink_to(&mut q, 16);
/// assert!(q.heap_bytes() <= 16);
/// ```
impl<T: Shrink> Shrink for RecycleOption<T> {
    fn shrink_to(&mut self, capacity: usize) {
        if let Some(value) = &mut self.value {
            value.shrink_to(capacity);
        }
    }
}

impl<T> Default for RecycleOption<T> {
    /// The same as [`RecycleOption::new`].
    ///
    /// ```
    /// use poolable::RecycleOption;
    ///
    /// let q: RecycleOption<String> = Default::default();
    /// assert!(q.is_none());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

/// A value for `Some`, nothing for `None`.
///
/// ```
/// use poolable::RecycleOption;
///
/// assert!(RecycleOption::from(Some(1)).is_some());
/// assert!(RecycleOption::<u8>::from(None).is_none());
/// ```
impl<T> From<Option<T>> for RecycleOption<T> {
    fn from(value: Option<T>) -> Self {
        RecycleOption {
            live: value.is_some(),
            value,
        }
    }
}

/// The value, if there is one; a kept value is dropped.
///
/// ```
/// use poolable::RecycleOption;
///
/// assert_eq!(Option::from(RecycleOption::from(Some(1))), Some(1));
/// ```
impl<T> From<RecycleOption<T>> for Option<T> {
    fn from(mut value: RecycleOption<T>) -> Self {
        value.take()
    }
}

/// `Some(value)` or `None`, as [`Option`] prints; a kept value is not shown.
///
/// ```
/// use poolable::{RecycleOption, Reset};
///
/// let mut q = RecycleOption::from(Some(String::from("hunter2")));
/// assert_eq!(format!("{q:?}"), r#"Some("hunter2")"#);
/// q.reset();
/// assert_eq!(format!("{q:?}"), "None");
/// ```
impl<T: fmt::Debug> fmt::Debug for RecycleOption<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

/// Clones the value, if there is one; the clone keeps nothing else.
///
/// ```
/// use poolable::RecycleOption;
///
/// let q = RecycleOption::from(Some(String::from("a")));
/// assert_eq!(q.clone(), q);
/// ```
impl<T: Clone> Clone for RecycleOption<T> {
    fn clone(&self) -> Self {
        Self::from(self.get().cloned())
    }
}

/// Compares as `Option`s: kept values do not count.
///
/// ```
/// use poolable::{RecycleOption, Reset};
///
/// let mut q = RecycleOption::from(Some(String::from("a")));
/// q.reset();
/// assert_eq!(q, RecycleOption::new());
/// assert_eq!(q, None);
/// ```
impl<T: PartialEq> PartialEq for RecycleOption<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for RecycleOption<T> {}

impl<T: PartialEq> PartialEq<Option<T>> for RecycleOption<T> {
    fn eq(&self, other: &Option<T>) -> bool {
        self.get() == other.as_ref()
    }
}

/// Hashes as the `Option` would: kept values do not count.
///
/// ```
/// use poolable::RecycleOption;
/// use std::collections::HashSet;
///
/// let set: HashSet<RecycleOption<u8>> = [RecycleOption::from(Some(1))].into_iter().collect();
/// assert!(set.contains(&RecycleOption::from(Some(1))));
/// ```
impl<T: Hash> Hash for RecycleOption<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.get().hash(state);
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{RecycleOption, RecycleVec};
    use crate::Reset;
    use core::{fmt, mem};
    use serde::de::{DeserializeSeed, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Deserializes into the `T` it holds (`Deserialize::deserialize_in_place`).
    struct InPlace<'a, T>(&'a mut T);

    impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for InPlace<'_, T> {
        type Value = ();

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            T::deserialize_in_place(deserializer, self.0)
        }
    }

    /// A sequence of the live elements; spares are not written. Needs the
    /// `serde` feature.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use poolable::{RecycleVec, Reset};
    /// use serde::Serialize;
    /// use serde::de::value::{Error, SeqDeserializer};
    /// use serde::Deserialize;
    ///
    /// let mut v: RecycleVec<u32> = [1, 2, 3].into_iter().collect();
    /// v.truncate(1);
    /// let back = RecycleVec::<u32>::deserialize(SeqDeserializer::<_, Error>::new(
    ///     v.iter().copied(),
    /// ))
    /// .unwrap();
    /// assert_eq!(back, [1]);
    /// # fn is_serialize<S: Serialize>(_: &S) {}
    /// # is_serialize(&v);
    /// # }
    /// ```
    impl<T: Serialize> Serialize for RecycleVec<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.as_slice())
        }
    }

    /// From a sequence: every element live, no spares. Needs the `serde`
    /// feature.
    ///
    /// Deserialized in place (into a pooled guard's `&mut *guard`, say,
    /// through `T::deserialize_in_place`, as a derived struct's fields are
    /// with serde's `deserialize_in_place` feature), the elements are
    /// written into the live elements and then the spares, in place, so
    /// their buffers are reused; live elements past the sequence's end
    /// become spares, reset.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use poolable::RecycleVec;
    /// use serde::Deserialize;
    /// use serde::de::value::{Error, SeqDeserializer};
    ///
    /// let v = RecycleVec::<u8>::deserialize(SeqDeserializer::<_, Error>::new([4_u8, 5].into_iter()))
    ///     .unwrap();
    /// assert_eq!((v.len(), v.spare_len()), (2, 0));
    /// # }
    /// ```
    impl<'de, T: Deserialize<'de> + Reset> Deserialize<'de> for RecycleVec<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            Vec::<T>::deserialize(deserializer).map(Self::from)
        }

        fn deserialize_in_place<D: Deserializer<'de>>(
            deserializer: D,
            place: &mut Self,
        ) -> Result<(), D::Error> {
            deserializer.deserialize_seq(SeqInPlace(place))
        }
    }

    struct SeqInPlace<'a, T>(&'a mut RecycleVec<T>);

    impl<'de, T: Deserialize<'de> + Reset> Visitor<'de> for SeqInPlace<'_, T> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let v = self.0;
            // Over the live elements: an error leaves them written in part,
            // which an in-place deserialization may.
            let mut n = 0;
            while n < v.len {
                if seq.next_element_seed(InPlace(&mut v.items[n]))?.is_none() {
                    v.truncate(n);
                    return Ok(());
                }
                n += 1;
            }
            // Into the spares: each becomes live once written. One written
            // in part by an error, or by a panic, is dropped, as a spare
            // must be reset.
            while v.len < v.items.len() {
                let bytes = v.items[v.len].heap_bytes();
                let writing = SpareInWriting { v: &mut *v, bytes };
                let at = writing.v.len;
                let result = seq.next_element_seed(InPlace(&mut writing.v.items[at]));
                match result {
                    Ok(Some(())) => {
                        mem::forget(writing);
                        v.spare_bytes = v.spares_without(at..at + 1, bytes);
                        v.len += 1;
                    }
                    Ok(None) => {
                        mem::forget(writing);
                        return Ok(());
                    }
                    Err(error) => {
                        drop(writing);
                        return Err(error);
                    }
                }
            }
            while let Some(value) = seq.next_element()? {
                v.items.push(value);
                v.len += 1;
            }
            Ok(())
        }
    }

    /// The spare `v.items[v.len]` while an element is written into it. If
    /// the write fails, or unwinds past it, the spare, written in part, is
    /// dropped in place (not moved out first: its `Drop`, the wipe of a
    /// `zeroize` field, reaches the vector's buffer) and its bytes leave
    /// the spares' total.
    struct SpareInWriting<'a, T> {
        v: &'a mut RecycleVec<T>,
        bytes: usize,
    }

    impl<T> Drop for SpareInWriting<'_, T> {
        fn drop(&mut self) {
            let v = &mut *self.v;
            // A saturated total has lost count, and stays saturated: a
            // recount (`spares_without`) would run `heap_bytes`, user code,
            // in a drop that may be unwinding.
            if v.spare_bytes != usize::MAX {
                v.spare_bytes = v.spare_bytes.saturating_sub(self.bytes);
            }
            v.items.drain(v.len..=v.len);
        }
    }

    /// As the `Option` would: the value or none; a kept value is not
    /// written. Needs the `serde` feature.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use poolable::RecycleOption;
    /// use serde::Serialize;
    ///
    /// # fn is_serialize<S: Serialize>(_: &S) {}
    /// is_serialize(&RecycleOption::from(Some(1_u8)));
    /// # }
    /// ```
    impl<T: Serialize> Serialize for RecycleOption<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.get().serialize(serializer)
        }
    }

    /// As the `Option` would. Needs the `serde` feature.
    ///
    /// Deserialized in place, a value is written into the kept one (its
    /// buffers reused), and a none keeps the value, reset.
    ///
    /// ```
    /// # #[cfg(feature = "serde")] {
    /// use poolable::RecycleOption;
    /// use serde::Deserialize;
    /// use serde::de::value::{Error, UnitDeserializer};
    ///
    /// let none = RecycleOption::<u8>::deserialize(UnitDeserializer::<Error>::new()).unwrap();
    /// assert!(none.is_none());
    /// # }
    /// ```
    impl<'de, T: Deserialize<'de> + Reset> Deserialize<'de> for RecycleOption<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            Option::<T>::deserialize(deserializer).map(Self::from)
        }

        fn deserialize_in_place<D: Deserializer<'de>>(
            deserializer: D,
            place: &mut Self,
        ) -> Result<(), D::Error> {
            deserializer.deserialize_option(OptionInPlace(place))
        }
    }

    struct OptionInPlace<'a, T>(&'a mut RecycleOption<T>);

    impl<'de, T: Deserialize<'de> + Reset> Visitor<'de> for OptionInPlace<'_, T> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an option")
        }

        fn visit_none<E>(self) -> Result<(), E> {
            self.0.clear();
            Ok(())
        }

        fn visit_unit<E>(self) -> Result<(), E> {
            self.0.clear();
            Ok(())
        }

        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            let place = self.0;
            match place.value.as_mut() {
                Some(value) => {
                    // Live before it is written: an error may leave it
                    // written in part, and a kept value must be reset.
                    place.live = true;
                    T::deserialize_in_place(deserializer, value)
                }
                None => {
                    place.insert(T::deserialize(deserializer)?);
                    Ok(())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    /// Every spare, brought back with `push_reset` and truncated away again.
    fn spares_of<T: Reset + Default + Clone>(v: &mut RecycleVec<T>) -> Vec<T> {
        let live = v.len();
        let spares = v.spare_len();
        let out = (0..spares).map(|_| v.push_reset().clone()).collect();
        v.truncate(live);
        out
    }

    fn strings(words: &[&str]) -> RecycleVec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn reset_keeps_every_element_as_a_reset_spare() {
        let mut v = strings(&["a", "bb", "ccc"]);
        v.reset();
        assert_eq!((v.len(), v.spare_len()), (0, 3));
        assert_eq!(spares_of(&mut v), ["", "", ""]);
    }

    #[test]
    fn push_reset_takes_spares_in_order_then_makes_defaults() {
        let mut v: RecycleVec<String> = RecycleVec::new();
        v.push_reset().reserve(100);
        v.push_reset().reserve(200);
        let caps: Vec<usize> = v.iter().map(String::capacity).collect();
        v.reset();
        assert_eq!(v.push_reset().capacity(), caps[0]);
        assert_eq!(v.push_reset().capacity(), caps[1]);
        assert_eq!(v.push_reset().capacity(), 0);
        assert_eq!((v.len(), v.spare_len()), (3, 0));
    }

    #[test]
    fn push_over_a_spare_replaces_it_and_does_not_grow() {
        let mut v = strings(&["a", "b"]);
        v.reset();
        v.push("new".to_string());
        assert_eq!(v, ["new"]);
        assert_eq!((v.len(), v.spare_len()), (1, 1));
    }

    #[test]
    fn truncate_beyond_len_does_nothing() {
        let mut v = strings(&["a"]);
        v.truncate(5);
        assert_eq!((v.len(), v.spare_len()), (1, 0));
    }

    #[test]
    fn reset_touches_only_the_live_elements() {
        struct Counted<'a>(&'a core::cell::Cell<usize>);
        impl Reset for Counted<'_> {
            fn reset(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let resets = core::cell::Cell::new(0);
        let mut v = RecycleVec::new();
        for _ in 0..1000 {
            v.push(Counted(&resets));
        }
        v.reset();
        resets.set(0);
        // One use of two elements, with 998 spares behind them.
        v.truncate(0);
        v.push(Counted(&resets));
        v.push(Counted(&resets));
        v.reset();
        assert_eq!(resets.get(), 2);
    }

    #[test]
    fn heap_bytes_counts_the_buffer_and_every_element() {
        let mut v: RecycleVec<String> = RecycleVec::new();
        v.push_reset().reserve_exact(10);
        v.push_reset().reserve_exact(20);
        let elements: usize = v.iter().map(String::capacity).sum();
        let buffer = v.items.capacity() * size_of::<String>();
        assert_eq!(v.heap_bytes(), buffer + elements);
        v.truncate(1);
        assert_eq!(v.heap_bytes(), buffer + elements);
        v.reset();
        assert_eq!(v.heap_bytes(), buffer + elements);
        v.push_reset();
        v.push("x".repeat(5)); // replaces the spare of 20
        assert_eq!(
            v.heap_bytes(),
            buffer + v.iter().map(String::capacity).sum::<usize>()
        );
    }

    #[test]
    fn shrink_drops_spares_beyond_the_cap_and_keeps_live_elements() {
        let mut v = strings(&["a", "b", "c", "d", "e", "f"]);
        v.truncate(2);
        Shrink::shrink_to(&mut v, 4);
        assert_eq!((v.len(), v.spare_len()), (2, 2));
        assert!(v.items.capacity() <= 4);
        Shrink::shrink_to(&mut v, 0);
        assert_eq!(v, ["a", "b"]);
        assert_eq!(v.spare_len(), 0);
        let rest: usize = v.iter().map(String::capacity).sum();
        assert_eq!(
            v.heap_bytes(),
            v.items.capacity() * size_of::<String>() + rest
        );
    }

    /// A value whose `heap_bytes` says "cannot be measured" (`usize::MAX`,
    /// "too big to keep") when its flag is set.
    #[derive(Default)]
    struct Unmeasurable {
        buf: String,
        unmeasurable: bool,
    }

    impl Reset for Unmeasurable {
        fn reset(&mut self) {
            self.buf.clear();
        }
        fn heap_bytes(&self) -> usize {
            if self.unmeasurable {
                usize::MAX
            } else {
                self.buf.capacity()
            }
        }
    }

    /// A spare that cannot be measured (`heap_bytes` is `usize::MAX`, "too
    /// big to keep") does not hide the others: once it is gone, the total
    /// is what the spares left hold. Here the pool's `Oversize::Shrink`
    /// path drops it first, and must then see the 1 MiB spare beside it
    /// (which the total, saturated, had lost count of).
    #[test]
    fn an_unmeasurable_spare_leaving_does_not_hide_the_others() {
        let mut v: RecycleVec<Unmeasurable> = RecycleVec::new();
        v.push_reset().buf.reserve_exact(1 << 20);
        v.push_reset().unmeasurable = true;
        v.reset();
        assert_eq!(v.heap_bytes(), usize::MAX);
        v.shrink_heap(4096);
        let kept: usize = v.items.iter().map(|item| item.buf.capacity()).sum();
        assert_eq!(kept, 0, "a 1 MiB spare kept by a shrink to 4 KiB");
        assert!(v.heap_bytes() <= 4096);

        // The same through `push_reset` and `push`, which take spares out.
        let mut v: RecycleVec<Unmeasurable> = RecycleVec::new();
        v.push_reset().unmeasurable = true;
        v.push_reset().buf.reserve_exact(1 << 20);
        v.reset();
        v.push(Unmeasurable::default()); // in place of the unmeasurable spare
        v.reset();
        let heap = v.heap_bytes();
        assert!((1 << 20..usize::MAX).contains(&heap), "{heap}");
        let mut v: RecycleVec<Unmeasurable> = RecycleVec::new();
        v.push_reset().unmeasurable = true;
        v.push_reset().buf.reserve_exact(1 << 20);
        v.reset();
        v.push_reset().unmeasurable = false; // the unmeasurable spare, taken back
        let heap = v.heap_bytes();
        assert!((1 << 20..usize::MAX).contains(&heap), "{heap}");
    }

    /// Reset panics (after forgetting the flag, before clearing) when armed.
    #[derive(Default, Clone, Debug)]
    struct Fragile {
        secret: String,
        armed: bool,
    }

    impl Reset for Fragile {
        fn reset(&mut self) {
            if core::mem::take(&mut self.armed) {
                panic!("reset failed half way");
            }
            self.secret.clear();
        }
    }

    #[test]
    fn a_panicking_element_reset_drops_the_unreset_elements() {
        let mut v: RecycleVec<Fragile> = RecycleVec::new();
        for (i, armed) in [false, true, false].into_iter().enumerate() {
            let item = v.push_reset();
            item.secret = format!("secret {i}");
            item.armed = armed;
        }
        let unwound = catch_unwind(AssertUnwindSafe(|| v.reset()));
        assert!(unwound.is_err());
        assert_eq!((v.len(), v.spare_len()), (0, 1));
        assert!(spares_of(&mut v).iter().all(|f| f.secret.is_empty()));
    }

    #[test]
    fn a_panicking_option_reset_keeps_nothing() {
        let mut q = RecycleOption::from(Some(Fragile {
            secret: "hunter2".into(),
            armed: true,
        }));
        assert!(catch_unwind(AssertUnwindSafe(|| q.reset())).is_err());
        assert!(q.is_none());
        assert!(q.get_or_insert_reset().secret.is_empty());
    }

    #[test]
    fn option_reset_keeps_the_value_hidden() {
        let mut q = RecycleOption::from(Some(String::from("hunter2")));
        q.reset();
        assert_eq!((q.get(), q.is_some()), (None, false));
        assert_eq!(q.take(), None);
        assert_eq!(q.get_or_insert_reset(), "");
    }

    #[test]
    fn option_take_leaves_nothing_kept() {
        let mut q = RecycleOption::from(Some(String::with_capacity(8)));
        assert!(q.take().is_some());
        assert_eq!(q.heap_bytes(), 0);
    }

    /// `take` leaves "nothing (no kept value either)", also when there is
    /// no value to move out, only a kept one.
    #[test]
    fn option_take_of_a_kept_value_leaves_nothing_kept() {
        let mut q = RecycleOption::from(Some(String::with_capacity(8)));
        q.reset();
        assert_eq!(q.take(), None);
        assert_eq!(q.heap_bytes(), 0);
    }

    /// In-place deserialization into the spares, with an element that
    /// panics or fails *after* it has written itself.
    #[cfg(feature = "serde")]
    mod in_place {
        use super::*;
        use serde::de::value::{Error, SeqDeserializer};
        use serde::{Deserialize, Deserializer};

        /// A string that panics (on "... panic") or fails (on "... error")
        /// once written in place.
        #[derive(Default, Clone, Debug)]
        struct Written(String);

        std::thread_local! {
            /// Where the last `Written` of this thread was dropped.
            static DROPPED_AT: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
        }

        impl Drop for Written {
            fn drop(&mut self) {
                DROPPED_AT.set(core::ptr::from_ref(self) as usize);
            }
        }

        impl Reset for Written {
            fn reset(&mut self) {
                self.0.clear();
            }
            fn heap_bytes(&self) -> usize {
                self.0.capacity()
            }
        }

        /// A new value, written in place: the two test types' `deserialize`.
        fn into_default<'de, T, D>(deserializer: D) -> Result<T, D::Error>
        where
            T: Default + Deserialize<'de>,
            D: Deserializer<'de>,
        {
            let mut written = T::default();
            T::deserialize_in_place(deserializer, &mut written)?;
            Ok(written)
        }

        impl<'de> Deserialize<'de> for Written {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                into_default(deserializer)
            }

            fn deserialize_in_place<D: Deserializer<'de>>(
                deserializer: D,
                place: &mut Self,
            ) -> Result<(), D::Error> {
                String::deserialize_in_place(deserializer, &mut place.0)?;
                if place.0.ends_with("panic") {
                    panic!("failed after the write");
                }
                if place.0.ends_with("error") {
                    return Err(serde::de::Error::custom("failed after the write"));
                }
                Ok(())
            }
        }

        /// Four elements, one live, three spares, each with room for 32 bytes.
        fn one_live_three_spares() -> RecycleVec<Written> {
            let mut v: RecycleVec<Written> = RecycleVec::new();
            for _ in 0..4 {
                v.push_reset().0.reserve_exact(32);
            }
            v.truncate(1);
            v
        }

        fn in_place(v: &mut RecycleVec<Written>, words: &[&'static str]) -> Result<(), Error> {
            let seq = SeqDeserializer::<_, Error>::new(words.iter().copied());
            RecycleVec::deserialize_in_place(seq, v)
        }

        /// What `heap_bytes` must be: the buffer and every element.
        fn counted<T: Reset>(v: &RecycleVec<T>) -> usize {
            v.items.capacity() * size_of::<T>()
                + v.items.iter().map(Reset::heap_bytes).sum::<usize>()
        }

        /// Deserializing a string into it writes it, and then it can be
        /// measured; "fail" fails, after the write.
        impl<'de> Deserialize<'de> for Unmeasurable {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                into_default(deserializer)
            }
            fn deserialize_in_place<D: Deserializer<'de>>(
                deserializer: D,
                place: &mut Self,
            ) -> Result<(), D::Error> {
                String::deserialize_in_place(deserializer, &mut place.buf)?;
                if place.buf == "fail" {
                    return Err(serde::de::Error::custom("failed after the write"));
                }
                place.unmeasurable = false;
                Ok(())
            }
        }

        /// The spare that failed was the unmeasurable one: the total, which
        /// had lost count, does not fall to 0 and hide the 1 MiB spare left.
        #[test]
        fn a_failed_spare_that_cannot_be_measured_does_not_hide_the_others() {
            let mut v: RecycleVec<Unmeasurable> = RecycleVec::new();
            v.push_reset().unmeasurable = true;
            v.push_reset().buf.reserve_exact(1 << 20);
            v.clear();
            let seq = SeqDeserializer::<_, Error>::new(["fail"].into_iter());
            assert!(RecycleVec::deserialize_in_place(seq, &mut v).is_err());
            assert_eq!(v.spare_len(), 1);
            assert!(v.heap_bytes() >= 1 << 20, "{}", v.heap_bytes());
        }

        #[test]
        fn a_panic_writing_a_spare_keeps_no_half_written_spare() {
            let mut v = one_live_three_spares();
            let unwound = catch_unwind(AssertUnwindSafe(|| {
                in_place(&mut v, &["a", "b", "secret panic"])
            }));
            assert!(unwound.is_err());
            assert_eq!(
                v.iter().map(|w| w.0.as_str()).collect::<Vec<_>>(),
                ["a", "b"]
            );
            assert_eq!(v.heap_bytes(), counted(&v));
            let spares = spares_of(&mut v);
            assert!(spares.iter().all(|w| w.0.is_empty()), "{spares:?}");
            assert_eq!(spares.len(), 1);
        }

        /// A spare written in part is dropped where it is, so that its
        /// `Drop` (the wipe of a `zeroize` field) reaches the vector's
        /// buffer, not a copy moved out of it that leaves the bytes behind.
        #[test]
        fn a_spare_written_in_part_is_dropped_in_place() {
            let mut v = one_live_three_spares();
            let last = core::ptr::from_ref(&v.items[3]) as usize;
            assert!(in_place(&mut v, &["a", "b", "c", "secret error"]).is_err());
            assert_eq!(DROPPED_AT.get(), last);
            assert_eq!(v.len(), 3);
            assert_eq!(v.spare_len(), 0);
            assert_eq!(v.heap_bytes(), counted(&v));
        }

        /// Written into, a spare that could not be measured can be: the
        /// spares' total is summed again without it, not with it twice.
        #[test]
        fn a_spare_written_in_place_leaves_the_spares_total() {
            let mut v: RecycleVec<Unmeasurable> = RecycleVec::new();
            v.push_reset().unmeasurable = true;
            v.push_reset().buf.reserve_exact(1 << 20);
            v.clear();
            let seq = SeqDeserializer::<_, Error>::new(["x"].into_iter());
            RecycleVec::deserialize_in_place(seq, &mut v).unwrap();
            assert_eq!((v.len(), v.spare_len()), (1, 1));
            assert_eq!(v.heap_bytes(), counted(&v));
        }

        /// Input of another shape is an error that says what was expected.
        #[test]
        fn a_mismatch_names_what_was_expected() {
            use serde::de::value::StrDeserializer;
            let mut v: RecycleVec<Written> = RecycleVec::new();
            let error =
                RecycleVec::deserialize_in_place(StrDeserializer::<Error>::new("x"), &mut v)
                    .unwrap_err();
            assert!(
                error.to_string().ends_with("expected a sequence"),
                "{error}"
            );
            let mut q: RecycleOption<Written> = RecycleOption::new();
            let error =
                RecycleOption::deserialize_in_place(StrDeserializer::<Error>::new("x"), &mut q)
                    .unwrap_err();
            assert!(error.to_string().ends_with("expected an option"), "{error}");
        }

        /// A format whose none is a unit (`()`) clears the option in place.
        #[test]
        fn a_unit_clears_an_option_in_place() {
            struct Unit;
            impl<'de> Deserializer<'de> for Unit {
                type Error = Error;
                fn deserialize_any<V: serde::de::Visitor<'de>>(
                    self,
                    visitor: V,
                ) -> Result<V::Value, Error> {
                    visitor.visit_unit()
                }
                serde::forward_to_deserialize_any! {
                    bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                    bytes byte_buf option unit unit_struct newtype_struct seq tuple
                    tuple_struct map struct enum identifier ignored_any
                }
            }
            let mut q = RecycleOption::from(Some(Written("secret".into())));
            RecycleOption::deserialize_in_place(Unit, &mut q).unwrap();
            assert!(q.is_none());
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn deserialized_vectors_are_all_live() {
        use serde::Deserialize;
        use serde::de::value::{Error, SeqDeserializer};
        let v = RecycleVec::<u8>::deserialize(SeqDeserializer::<_, Error>::new(
            [1_u8, 2, 3].into_iter(),
        ))
        .unwrap();
        assert_eq!((v.len(), v.spare_len()), (3, 0));
    }
}
