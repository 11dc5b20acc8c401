//! Optional integrations with other crates, each behind a cargo feature of
//! the same name (forwarded by the `poolable` crate):
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `serde` | `Serialize` for [`Pooled<T>`](crate::Pooled): serializes the value; `Serialize` and `Deserialize` for [`RecycleVec`](crate::RecycleVec) and [`RecycleOption`](crate::RecycleOption) (in `recycle.rs`) |
//! | `bytes` | [`Reset`] and [`Zeroize`] for `bytes::BytesMut` (the reset takes back an allocation hidden by a split) |
//! | `smallvec` | [`Reset`], [`Shrink`] and [`Zeroize`] (for `u8` items) for `smallvec::SmallVec` (1.x) |
//! | `indexmap` | [`Reset`] and [`Shrink`] for `indexmap::{IndexMap, IndexSet}` (2.x) |
//! | `hashbrown` | [`Reset`] and [`Shrink`] for `hashbrown::{HashMap, HashSet}` (0.17) |
//!
//! Every `Reset` impl here clears the collection and keeps its allocation,
//! like the std impls, and reports the kept allocation through
//! [`Reset::heap_bytes`] so the pool's `max_bytes` cap applies to it.
//!
//! The `Shrink` impls are `#[diagnostic::do_not_recommend]`: the "other types
//! implement `Shrink`" list in a `max_capacity` error then names the std
//! collections only, whichever features some dependency turned on, so the
//! error (and its compile-fail snapshot) does not change with features. The
//! `Reset` impls are too, as every `Reset` impl of the runtime is: a type
//! with no `Reset` is reported without a list of the types that have one.

#[allow(unused_imports)] // which ones are used depends on the features
use crate::{Reset, Shrink, Zeroize};
#[allow(unused_imports)]
use core::mem::size_of;

// ---------------------------------------------------------------------------
// serde
// ---------------------------------------------------------------------------

/// Serialize the pooled value, exactly as `T` serializes. Needs the `serde`
/// feature.
///
/// A guard cannot be *deserialized* (it needs a pool to come from): take a
/// guard and deserialize into `&mut *guard`, or deserialize a plain `T`.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use poolable::Pool;
/// use serde::Serialize;
/// use std::fmt;
///
/// // serde's `Serializer` impl for `fmt::Formatter` prints scalars and strings.
/// struct Shown<'a, S>(&'a S);
/// impl<S: Serialize> fmt::Display for Shown<'_, S> {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         self.0.serialize(f)
///     }
/// }
///
/// let pool: Pool<String> = Pool::new();
/// let mut name = pool.get();
/// name.push_str("ada");
/// assert_eq!(Shown(&name).to_string(), "ada");
/// # }
/// ```
#[cfg(feature = "serde")]
impl<T, P> serde::Serialize for crate::PoolGuard<T, P>
where
    T: Reset + Send + 'static + serde::Serialize,
    P: crate::guard::PoolRef<T>,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

// ---------------------------------------------------------------------------
// bytes
// ---------------------------------------------------------------------------

/// `clear()`, then make the handle the only owner of its whole allocation,
/// or of none; `heap_bytes` is then the capacity, exactly what it keeps.
/// Needs the `bytes` feature.
///
/// A `BytesMut` shows only part of its allocation after `split_to`,
/// `split_off`, `split` or `advance`, yet keeps all of it alive: a 10 MiB
/// buffer with all but 1 KiB split off reports a capacity of 1 KiB. The
/// reset takes the allocation back:
///
/// - if no other handle (`BytesMut` or `Bytes`) shares it, the whole
///   allocation becomes this handle's capacity again, so the pool's size
///   cap sees its real size (and drops it if it is too big);
/// - if another handle still shares it (a frame split off and sent on), this
///   handle lets go of its share and comes back empty, with no allocation:
///   the buffer is freed when the last of the other handles is dropped.
///
/// An unshared buffer is kept in place, without copying or allocating.
///
/// ```
/// # #[cfg(feature = "bytes")] {
/// use bytes::{BufMut, BytesMut};
/// use poolable::{Pool, Reset};
///
/// static FRAMES: Pool<BytesMut> = Pool::new();
///
/// let mut frame = FRAMES.get();
/// frame.put_slice(b"GET / HTTP/1.1\r\n");
/// drop(frame);
///
/// let frame = FRAMES.get();
/// assert!(frame.is_empty());
/// assert!(frame.capacity() >= 16); // the allocation was kept
///
/// // A split hides most of the allocation from `capacity`; the reset
/// // brings it back into view.
/// let mut buf = BytesMut::with_capacity(1 << 20);
/// buf.resize(1 << 20, 0);
/// drop(buf.split_to((1 << 20) - 1024));
/// assert_eq!(buf.capacity(), 1024);
/// buf.reset();
/// assert!(buf.heap_bytes() >= 1 << 20);
/// # }
/// ```
#[cfg(feature = "bytes")]
#[diagnostic::do_not_recommend]
impl Reset for bytes::BytesMut {
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
        own_whole_allocation(self);
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
    fn used_bytes(&self) -> usize {
        self.len()
    }
    /// A `BytesMut` cannot give part of its allocation back: one that
    /// fits in `max_bytes` moves its contents to a new allocation that size.
    fn shrink_heap(&mut self, max_bytes: usize) {
        if self.capacity() > max_bytes && self.len() <= max_bytes {
            let mut smaller = bytes::BytesMut::with_capacity(max_bytes);
            smaller.extend_from_slice(self);
            *self = smaller;
        }
    }
}

/// Make the (empty) `buf` the only owner of its whole allocation, or of none.
///
/// `Vec::from(BytesMut)` hands over the whole allocation, whatever part of
/// it the handle shows, when the handle is its only owner, and otherwise
/// copies the contents (none) and releases the handle's share. Collecting
/// the `Vec` back reuses its allocation (std collects a `vec::IntoIter`
/// in place), and a `BytesMut` made from a `Vec` has the `Vec`'s capacity.
#[cfg(feature = "bytes")]
fn own_whole_allocation(buf: &mut bytes::BytesMut) {
    let whole: Vec<u8> = core::mem::take(buf).into();
    *buf = whole.into_iter().collect();
}

/// Zeros over the whole allocation, then empty, keeping the allocation; the
/// rule behind `#[poolable(zeroize)]`. Needs the `bytes` feature.
///
/// The bytes a split or `advance` hid from this handle are wiped too, when
/// no other handle shares the allocation (the allocation is taken back, as
/// the reset does). While another handle shares it, only this handle's own
/// part is wiped, and the handle then lets go of the allocation: the rest
/// belongs to the other handles.
///
/// ```
/// # #[cfg(feature = "bytes")] {
/// use bytes::BytesMut;
/// use poolable::Poolable;
///
/// #[derive(Poolable, Default)]
/// struct Session {
///     #[poolable(zeroize)]
///     token: BytesMut,
/// }
///
/// let mut s = Session::pool().get();
/// s.token.extend_from_slice(b"hunter2");
/// drop(s);
/// assert!(Session::pool().get().token.is_empty());
/// # }
/// ```
#[cfg(feature = "bytes")]
impl Zeroize for bytes::BytesMut {
    fn zeroize(&mut self) {
        // This handle's part first: ours to write even while shared.
        let shown = self.capacity();
        zeroize::zeroize_bytes(self);
        zeroize::Zeroize::zeroize(self.spare_capacity_mut());
        self.clear();
        let mut whole: Vec<u8> = core::mem::take(self).into();
        // A larger allocation came back: the part hidden before or after
        // the handle's view, not wiped yet.
        if whole.capacity() > shown {
            whole.zeroize();
        }
        *self = whole.into_iter().collect();
    }
}

// ---------------------------------------------------------------------------
// smallvec
// ---------------------------------------------------------------------------

/// `clear()`, capacity kept. `heap_bytes` is the spilled allocation
/// (capacity × item size) and 0 while the items fit inline. Needs the
/// `smallvec` feature.
///
/// ```
/// # #[cfg(feature = "smallvec")] {
/// use poolable::{Pool, Reset};
/// use smallvec::SmallVec;
///
/// static IDS: Pool<SmallVec<[u32; 4]>> = Pool::new();
///
/// let mut ids = IDS.get();
/// ids.extend([1, 2, 3]);
/// assert_eq!(ids.heap_bytes(), 0); // inline: nothing on the heap
/// ids.extend([4, 5]);
/// assert!(ids.spilled() && ids.heap_bytes() >= 5 * 4);
/// drop(ids);
/// assert!(IDS.get().is_empty());
/// # }
/// ```
#[cfg(feature = "smallvec")]
#[diagnostic::do_not_recommend]
impl<A: smallvec::Array> Reset for smallvec::SmallVec<A> {
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    #[inline]
    fn heap_bytes(&self) -> usize {
        if self.spilled() {
            self.capacity().saturating_mul(size_of::<A::Item>())
        } else {
            0
        }
    }
    fn used_bytes(&self) -> usize {
        if self.spilled() {
            self.len().saturating_mul(size_of::<A::Item>())
        } else {
            0
        }
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        crate::reset::shrink_items(self, size_of::<A::Item>(), max_bytes);
    }
}

/// Shrink the spilled allocation to at most `capacity` items (moving back
/// inline when `capacity` fits the inline size), through `SmallVec::grow`;
/// the rule behind `#[poolable(max_capacity = N)]`. Never drops items: the
/// capacity stays at least the length. Needs the `smallvec` feature.
///
/// ```
/// # #[cfg(feature = "smallvec")] {
/// use poolable::Shrink;
/// use smallvec::SmallVec;
///
/// let mut v: SmallVec<[u8; 8]> = SmallVec::with_capacity(4096);
/// Shrink::shrink_to(&mut v, 100);
/// assert!(v.capacity() <= 100);
/// Shrink::shrink_to(&mut v, 0);
/// assert!(!v.spilled()); // back to the inline buffer
/// # }
/// ```
#[cfg(feature = "smallvec")]
#[diagnostic::do_not_recommend]
impl<A: smallvec::Array> Shrink for smallvec::SmallVec<A> {
    fn shrink_to(&mut self, capacity: usize) {
        if self.capacity() > capacity {
            self.grow(capacity.max(self.len()));
        }
    }
}

/// Zeros over the whole buffer (inline or spilled), then empty; the rule
/// behind `#[poolable(zeroize)]`. Needs the `smallvec` feature.
///
/// ```
/// # #[cfg(feature = "smallvec")] {
/// use poolable::Zeroize;
/// use smallvec::SmallVec;
///
/// let mut key: SmallVec<[u8; 32]> = SmallVec::from_slice(b"hunter2");
/// key.zeroize();
/// assert!(key.is_empty());
/// # }
/// ```
#[cfg(feature = "smallvec")]
impl<A: smallvec::Array<Item = u8>> Zeroize for smallvec::SmallVec<A> {
    fn zeroize(&mut self) {
        // `resize` makes the spare capacity initialised bytes (its own writes
        // may be elided); the wipe over all of them is what counts.
        self.resize(self.capacity(), 0);
        zeroize::zeroize_bytes(self);
        self.clear();
    }
}

// ---------------------------------------------------------------------------
// indexmap
// ---------------------------------------------------------------------------

/// `clear()`, capacity kept. `heap_bytes` approximates the entry vector and
/// the index table: capacity × (entry + hash + index + control byte). Needs
/// the `indexmap` feature.
///
/// ```
/// # #[cfg(feature = "indexmap")] {
/// use indexmap::IndexMap;
/// use poolable::Pool;
///
/// static HEADERS: Pool<IndexMap<String, String>> = Pool::new();
///
/// let mut h = HEADERS.get();
/// h.insert("host".into(), "example.org".into());
/// drop(h);
///
/// let h = HEADERS.get();
/// assert!(h.is_empty() && h.capacity() >= 1);
/// # }
/// ```
/// What an `IndexMap` or `IndexSet` keeps per slot: the `entry` (with its
/// hash) in its vector, and the entry's index and control byte in the table.
#[cfg(feature = "indexmap")]
const fn index_entry_bytes(entry: usize) -> usize {
    entry + size_of::<usize>() + 1
}

#[cfg(feature = "indexmap")]
#[diagnostic::do_not_recommend]
impl<K, V, S> Reset for indexmap::IndexMap<K, V, S> {
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.capacity()
            .saturating_mul(index_entry_bytes(size_of::<(usize, K, V)>()))
    }
    fn used_bytes(&self) -> usize {
        self.len()
            .saturating_mul(index_entry_bytes(size_of::<(usize, K, V)>()))
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        crate::reset::shrink_items(
            self,
            index_entry_bytes(size_of::<(usize, K, V)>()),
            max_bytes,
        );
    }
}

/// `clear()`, capacity kept. `heap_bytes` as for `IndexMap`. Needs the
/// `indexmap` feature.
///
/// ```
/// # #[cfg(feature = "indexmap")] {
/// use indexmap::IndexSet;
/// use poolable::Reset;
///
/// let mut seen: IndexSet<u64> = (0..100).collect();
/// seen.reset();
/// assert!(seen.is_empty() && seen.capacity() >= 100);
/// assert!(seen.heap_bytes() >= 100 * 8);
/// # }
/// ```
#[cfg(feature = "indexmap")]
#[diagnostic::do_not_recommend]
impl<T, S> Reset for indexmap::IndexSet<T, S> {
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.capacity()
            .saturating_mul(index_entry_bytes(size_of::<(usize, T)>()))
    }
    fn used_bytes(&self) -> usize {
        self.len()
            .saturating_mul(index_entry_bytes(size_of::<(usize, T)>()))
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        crate::reset::shrink_items(self, index_entry_bytes(size_of::<(usize, T)>()), max_bytes);
    }
}

/// `IndexMap::shrink_to`; the rule behind `#[poolable(max_capacity = N)]`.
/// Needs the `indexmap` feature.
///
/// ```
/// # #[cfg(feature = "indexmap")] {
/// use indexmap::IndexMap;
/// use poolable::Shrink;
///
/// let mut m: IndexMap<u32, u32> = IndexMap::with_capacity(1000);
/// Shrink::shrink_to(&mut m, 16);
/// assert!(m.capacity() < 1000);
/// # }
/// ```
#[cfg(feature = "indexmap")]
#[diagnostic::do_not_recommend]
impl<K, V, S> Shrink for indexmap::IndexMap<K, V, S> {
    fn shrink_to(&mut self, capacity: usize) {
        if self.capacity() > capacity {
            indexmap::IndexMap::shrink_to(self, capacity);
        }
    }
}

/// `IndexSet::shrink_to`; the rule behind `#[poolable(max_capacity = N)]`.
/// Needs the `indexmap` feature.
///
/// ```
/// # #[cfg(feature = "indexmap")] {
/// use indexmap::IndexSet;
/// use poolable::Shrink;
///
/// let mut s: IndexSet<u32> = IndexSet::with_capacity(1000);
/// Shrink::shrink_to(&mut s, 16);
/// assert!(s.capacity() < 1000);
/// # }
/// ```
#[cfg(feature = "indexmap")]
#[diagnostic::do_not_recommend]
impl<T, S> Shrink for indexmap::IndexSet<T, S> {
    fn shrink_to(&mut self, capacity: usize) {
        if self.capacity() > capacity {
            indexmap::IndexSet::shrink_to(self, capacity);
        }
    }
}

// ---------------------------------------------------------------------------
// hashbrown
// ---------------------------------------------------------------------------

/// `clear()`, capacity kept; `heap_bytes` is capacity × (entry + control
/// byte), as for std's `HashMap`. For the default allocator. Needs the
/// `hashbrown` feature.
///
/// ```
/// # #[cfg(feature = "hashbrown")] {
/// use hashbrown::HashMap;
/// use poolable::Poolable;
///
/// #[derive(Poolable, Default)]
/// struct Query {
///     #[poolable(max_capacity = 64)]
///     params: HashMap<String, String>,
/// }
///
/// let mut q = Query::pool().get();
/// q.params.insert("page".into(), "2".into());
/// drop(q);
/// assert!(Query::pool().get().params.is_empty());
/// # }
/// ```
#[cfg(feature = "hashbrown")]
#[diagnostic::do_not_recommend]
impl<K: Eq + core::hash::Hash, V, S: core::hash::BuildHasher> Reset
    for hashbrown::HashMap<K, V, S>
{
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<(K, V)>() + 1)
    }
    fn used_bytes(&self) -> usize {
        self.len().saturating_mul(size_of::<(K, V)>() + 1)
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        crate::reset::shrink_items(self, size_of::<(K, V)>() + 1, max_bytes);
    }
}

/// `clear()`, capacity kept; `heap_bytes` is capacity × (item + control
/// byte). Needs the `hashbrown` feature.
///
/// ```
/// # #[cfg(feature = "hashbrown")] {
/// use hashbrown::HashSet;
/// use poolable::Reset;
///
/// let mut seen: HashSet<u64> = (0..100).collect();
/// seen.reset();
/// assert!(seen.is_empty() && seen.capacity() >= 100);
/// assert_eq!(seen.heap_bytes(), seen.capacity() * 9);
/// # }
/// ```
#[cfg(feature = "hashbrown")]
#[diagnostic::do_not_recommend]
impl<T: Eq + core::hash::Hash, S: core::hash::BuildHasher> Reset for hashbrown::HashSet<T, S> {
    fn is_reset(&self) -> bool {
        self.is_empty()
    }

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
    fn heap_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<T>() + 1)
    }
    fn used_bytes(&self) -> usize {
        self.len().saturating_mul(size_of::<T>() + 1)
    }
    fn shrink_heap(&mut self, max_bytes: usize) {
        crate::reset::shrink_items(self, size_of::<T>() + 1, max_bytes);
    }
}

/// `HashMap::shrink_to`; the rule behind `#[poolable(max_capacity = N)]`.
/// Needs the `hashbrown` feature.
///
/// ```
/// # #[cfg(feature = "hashbrown")] {
/// use hashbrown::HashMap;
/// use poolable::Shrink;
///
/// let mut m: HashMap<u32, u32> = HashMap::with_capacity(1000);
/// Shrink::shrink_to(&mut m, 16);
/// assert!(m.capacity() < 1000);
/// # }
/// ```
#[cfg(feature = "hashbrown")]
#[diagnostic::do_not_recommend]
impl<K, V, S> Shrink for hashbrown::HashMap<K, V, S>
where
    K: Eq + core::hash::Hash,
    S: core::hash::BuildHasher,
{
    /// Halving, as std's tables do: hashbrown rounds capacities up too.
    fn shrink_to(&mut self, capacity: usize) {
        crate::reset::shrink_table(
            self,
            capacity,
            Self::len,
            Self::capacity,
            hashbrown::HashMap::shrink_to,
        );
    }
}

/// `HashSet::shrink_to`; the rule behind `#[poolable(max_capacity = N)]`.
/// Needs the `hashbrown` feature.
///
/// ```
/// # #[cfg(feature = "hashbrown")] {
/// use hashbrown::HashSet;
/// use poolable::Shrink;
///
/// let mut s: HashSet<u32> = HashSet::with_capacity(1000);
/// Shrink::shrink_to(&mut s, 16);
/// assert!(s.capacity() < 1000);
/// # }
/// ```
#[cfg(feature = "hashbrown")]
#[diagnostic::do_not_recommend]
impl<T, S> Shrink for hashbrown::HashSet<T, S>
where
    T: Eq + core::hash::Hash,
    S: core::hash::BuildHasher,
{
    /// Halving, as std's tables do: hashbrown rounds capacities up too.
    fn shrink_to(&mut self, capacity: usize) {
        crate::reset::shrink_table(
            self,
            capacity,
            Self::len,
            Self::capacity,
            hashbrown::HashSet::shrink_to,
        );
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)] // each use is behind a feature
    use crate::reset::tests::measures_and_shrinks;
    #[allow(unused_imports)]
    use crate::{Pool, Reset, Shrink, Zeroize};

    /// Tests that `reset` empties a collection and keeps its capacity.
    #[allow(unused_macros)] // each use is behind a feature
    macro_rules! reset_keeps_capacity {
        ($($name:ident: $ty:ty = $make:expr;)*) => {$(
            #[test]
            fn $name() {
                let mut c: $ty = $make;
                let cap = c.capacity();
                assert!(!c.is_reset());
                c.reset();
                assert!(c.is_empty() && c.is_reset());
                assert_eq!(c.capacity(), cap);
            }
        )*};
    }

    #[cfg(feature = "serde")]
    mod serde_forward {
        use crate::Pool;
        use core::fmt;
        use serde::Serialize;

        /// Serialize through serde's `fmt::Formatter` serializer (scalars and strings).
        struct Shown<'a, S>(&'a S);
        impl<S: Serialize> fmt::Display for Shown<'_, S> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.serialize(f)
            }
        }

        #[test]
        fn guard_serializes_as_its_string() {
            let pool: Pool<String> = Pool::new();
            let mut s = pool.get();
            s.push_str("user=ada");
            assert_eq!(Shown(&s).to_string(), Shown(&*s).to_string());
            assert_eq!(Shown(&s).to_string(), "user=ada");
        }

        #[test]
        fn guard_serializes_as_its_number() {
            let pool: Pool<u64> = Pool::new();
            let mut n = pool.get();
            *n = 42;
            assert_eq!(Shown(&n).to_string(), "42");
        }
    }

    #[cfg(feature = "bytes")]
    mod bytes_mut {
        use super::*;
        use bytes::{BufMut, BytesMut};

        #[test]
        fn reset_clears_and_keeps_capacity() {
            let mut b = BytesMut::with_capacity(256);
            b.put_slice(b"secret");
            let cap = b.capacity();
            assert!(!b.is_reset());
            b.reset();
            assert!(b.is_empty() && b.is_reset());
            assert_eq!(b.capacity(), cap);
        }

        #[test]
        fn shrink_heap_leaves_a_buffer_that_fits_alone() {
            let mut b = BytesMut::with_capacity(64);
            b.put_slice(b"data");
            let (cap, ptr) = (b.capacity(), b.as_ptr());
            b.shrink_heap(4096);
            assert_eq!((b.capacity(), b.as_ptr()), (cap, ptr));
        }

        #[test]
        fn heap_bytes_is_capacity() {
            let b = BytesMut::with_capacity(300);
            assert_eq!(b.heap_bytes(), b.capacity());
            assert!(b.heap_bytes() >= 300);
        }

        #[test]
        fn pool_drops_oversized_bytes_mut() {
            let pool: Pool<BytesMut> = Pool::new().max_bytes(1024);
            pool.get().reserve(4096);
            drop(pool.get()); // a fresh, empty one fits
            let stats = pool.stats();
            assert_eq!(stats.dropped_oversize, 1);
            assert_eq!(stats.retained, 1);
        }

        /// A 1 MiB buffer, filled, with all but its last KiB split off and
        /// dropped: the handle left shows 1 KiB of capacity and keeps the
        /// whole MiB alive.
        fn split_leaving_one_kib() -> BytesMut {
            let mut b = BytesMut::with_capacity(1 << 20);
            b.resize(1 << 20, 7);
            drop(b.split_to((1 << 20) - 1024));
            assert_eq!(b.capacity(), 1024, "test setup");
            b
        }

        #[test]
        fn heap_bytes_after_split_to_counts_the_whole_allocation() {
            let mut b = split_leaving_one_kib();
            b.reset();
            assert!(b.heap_bytes() >= 1 << 20, "{}", b.heap_bytes());
            assert_eq!(b.heap_bytes(), b.capacity());
        }

        #[test]
        fn heap_bytes_after_advance_counts_the_whole_allocation() {
            use bytes::Buf;
            let mut b = BytesMut::with_capacity(1 << 20);
            b.resize(1 << 20, 7);
            b.advance((1 << 20) - 1024);
            b.reset();
            assert!(b.heap_bytes() >= 1 << 20, "{}", b.heap_bytes());
        }

        #[test]
        fn reset_stops_sharing_with_a_split_off_frame() {
            let mut b = BytesMut::with_capacity(4096);
            b.put_slice(b"frame one|rest");
            let frame = b.split_to(9).freeze();
            assert!(!frame.is_unique(), "test setup");
            b.reset();
            assert!(
                frame.is_unique(),
                "the pooled handle still shares the frame's buffer"
            );
            assert_eq!(b.heap_bytes(), b.capacity());
        }

        #[test]
        fn reset_keeps_an_unshared_allocation_in_place() {
            let mut b = BytesMut::with_capacity(4096);
            b.put_slice(b"data");
            let ptr = b.as_ptr();
            b.reset();
            assert!(b.is_empty());
            assert_eq!((b.as_ptr(), b.capacity()), (ptr, 4096));
        }

        #[test]
        fn pool_drops_split_bytes_mut_that_keep_large_allocations() {
            let pool: Pool<BytesMut> = Pool::new();
            let held: Vec<_> = (0..8)
                .map(|_| {
                    let mut b = pool.get();
                    *b = split_leaving_one_kib();
                    b
                })
                .collect();
            drop(held);
            let stats = pool.stats();
            assert_eq!(stats.dropped_oversize, 8, "{stats}");
            assert_eq!(stats.retained_bytes, 0, "{stats}");
        }

        #[test]
        fn zeroize_empties_and_keeps_capacity() {
            let mut b = BytesMut::with_capacity(64);
            b.put_slice(b"hunter2");
            let (cap, ptr) = (b.capacity(), b.as_ptr());
            b.zeroize();
            assert!(b.is_empty());
            assert_eq!((b.capacity(), b.as_ptr()), (cap, ptr));
        }
    }

    #[cfg(feature = "smallvec")]
    mod small_vec {
        use super::*;
        use smallvec::SmallVec;

        #[test]
        fn reset_clears_and_keeps_spilled_capacity() {
            let mut v: SmallVec<[u32; 2]> = (0..100).collect();
            let cap = v.capacity();
            assert!(!v.is_reset());
            v.reset();
            assert!(v.is_empty() && v.is_reset());
            assert_eq!(v.capacity(), cap);
            assert!(v.spilled());
        }

        #[test]
        fn heap_bytes_is_zero_inline_and_capacity_when_spilled() {
            let mut v: SmallVec<[u64; 4]> = SmallVec::new();
            v.extend([1, 2, 3, 4]);
            assert_eq!(v.heap_bytes(), 0);
            v.push(5);
            assert_eq!(v.heap_bytes(), v.capacity() * 8);
        }

        #[test]
        fn shrink_to_reduces_spilled_capacity() {
            let mut v: SmallVec<[u8; 8]> = SmallVec::with_capacity(1000);
            Shrink::shrink_to(&mut v, 64);
            assert!(v.spilled());
            assert_eq!(v.capacity(), 64);
        }

        #[test]
        fn shrink_to_inline_size_unspills() {
            let mut v: SmallVec<[u8; 8]> = SmallVec::with_capacity(1000);
            Shrink::shrink_to(&mut v, 8);
            assert!(!v.spilled());
            assert_eq!(v.heap_bytes(), 0);
        }

        #[test]
        fn shrink_to_keeps_every_item() {
            let mut v: SmallVec<[u8; 2]> = (0..50).collect();
            v.reserve(1000);
            Shrink::shrink_to(&mut v, 10);
            assert_eq!(v.len(), 50);
            assert!(v.capacity() >= 50 && v.capacity() < 1000);
            assert!(v.iter().copied().eq(0..50));
        }

        #[test]
        fn zeroize_empties_inline_and_spilled() {
            let mut inline: SmallVec<[u8; 16]> = SmallVec::from_slice(b"key");
            inline.zeroize();
            assert!(inline.is_empty() && !inline.spilled());

            let mut spilled: SmallVec<[u8; 4]> = SmallVec::from_slice(b"a longer secret");
            let cap = spilled.capacity();
            spilled.zeroize();
            assert!(spilled.is_empty());
            assert_eq!(spilled.capacity(), cap);
        }
    }

    #[cfg(feature = "indexmap")]
    mod index_map {
        use super::*;
        use indexmap::{IndexMap, IndexSet};

        reset_keeps_capacity! {
            map_reset_clears_and_keeps_capacity: IndexMap<String, u32> = (0..50).map(|i| (i.to_string(), i)).collect();
            set_reset_clears_and_keeps_capacity: IndexSet<u32> = (0..50).collect();
        }

        #[test]
        fn heap_bytes_grows_with_capacity() {
            let small: IndexMap<u64, u64> = IndexMap::with_capacity(4);
            let large: IndexMap<u64, u64> = IndexMap::with_capacity(4000);
            // Entry (hash, key, value) = 24 bytes, plus an index and a control byte.
            assert!(large.heap_bytes() >= 4000 * (24 + 8 + 1));
            assert!(small.heap_bytes() < large.heap_bytes());
            let empty: IndexSet<u64> = IndexSet::new();
            assert_eq!(empty.heap_bytes(), 0);
        }

        #[test]
        fn shrink_to_reduces_capacity() {
            let mut m: IndexMap<u32, u32> = IndexMap::with_capacity(1000);
            m.insert(1, 1);
            Shrink::shrink_to(&mut m, 10);
            assert!((1..=10).contains(&m.capacity()), "{}", m.capacity());
            assert_eq!(m.get(&1), Some(&1));

            let mut s: IndexSet<u32> = IndexSet::with_capacity(1000);
            Shrink::shrink_to(&mut s, 10);
            assert!(s.capacity() < 1000);
        }

        #[test]
        fn pool_drops_oversized_index_map() {
            let pool: Pool<IndexMap<u64, u64>> = Pool::new().max_bytes(4096);
            pool.get().reserve(10_000);
            assert_eq!(pool.stats().dropped_oversize, 1);
            assert_eq!(pool.stats().retained, 0);
        }
    }

    #[cfg(feature = "hashbrown")]
    mod hash_brown {
        use super::*;
        use hashbrown::{HashMap, HashSet};

        reset_keeps_capacity! {
            map_reset_clears_and_keeps_capacity: HashMap<String, u32> = (0..50).map(|i| (i.to_string(), i)).collect();
            set_reset_clears_and_keeps_capacity: HashSet<u32> = (0..50).collect();
        }

        /// hashbrown rounds a requested capacity up (to 7/8 of a power of
        /// two buckets): a single `shrink_to(10)` leaves 14. The halving
        /// loop makes `max_capacity = N` an upper bound.
        #[test]
        fn shrink_to_is_an_upper_bound() {
            for n in [1, 3, 10, 13, 100] {
                let mut m: HashMap<u32, u32> = (0..1000).map(|i| (i, i)).collect();
                m.clear();
                Shrink::shrink_to(&mut m, n);
                assert!(m.capacity() <= n, "map: asked {n}, got {}", m.capacity());
                let mut s: HashSet<u32> = (0..1000).collect();
                s.clear();
                Shrink::shrink_to(&mut s, n);
                assert!(s.capacity() <= n, "set: asked {n}, got {}", s.capacity());
            }
        }

        #[test]
        fn heap_bytes_counts_entries_and_control_bytes() {
            let m: HashMap<u64, u32> = HashMap::with_capacity(100);
            assert_eq!(m.heap_bytes(), m.capacity() * (16 + 1));
            let s: HashSet<u16> = HashSet::with_capacity(100);
            assert_eq!(s.heap_bytes(), s.capacity() * (2 + 1));
        }

        #[test]
        fn shrink_to_reduces_capacity() {
            let mut m: HashMap<u32, u32> = HashMap::with_capacity(1000);
            m.insert(1, 1);
            Shrink::shrink_to(&mut m, 10);
            assert!((1..=10).contains(&m.capacity()), "{}", m.capacity());
            assert_eq!(m.get(&1), Some(&1));

            let mut s: HashSet<u32> = HashSet::with_capacity(1000);
            Shrink::shrink_to(&mut s, 10);
            assert!(s.capacity() < 1000);
        }
    }

    #[cfg(feature = "bytes")]
    #[test]
    fn bytes_mut_measures_and_shrinks() {
        let mut buf = bytes::BytesMut::with_capacity(4096);
        buf.extend_from_slice(b"hello");
        measures_and_shrinks(buf, 5, 100);
    }

    #[cfg(feature = "smallvec")]
    #[test]
    fn small_vec_measures_and_shrinks() {
        let mut v = smallvec::SmallVec::<[u8; 4]>::with_capacity(4096);
        v.extend_from_slice(b"hello");
        measures_and_shrinks(v, 5, 100);
    }

    #[cfg(feature = "indexmap")]
    #[test]
    fn index_map_and_set_measure_and_shrink() {
        let mut map = indexmap::IndexMap::<u64, u64>::with_capacity(4096);
        map.insert(1, 2);
        let entry = size_of::<(usize, u64, u64)>() + size_of::<usize>() + 1;
        measures_and_shrinks(map, entry, 1000);
        let mut set = indexmap::IndexSet::<u64>::with_capacity(4096);
        set.insert(1);
        let entry = size_of::<(usize, u64)>() + size_of::<usize>() + 1;
        measures_and_shrinks(set, entry, 1000);
    }

    #[cfg(feature = "hashbrown")]
    #[test]
    fn hashbrown_map_and_set_measure_and_shrink() {
        let mut map = hashbrown::HashMap::<u64, u64>::with_capacity(4096);
        map.insert(1, 2);
        measures_and_shrinks(map, size_of::<(u64, u64)>() + 1, 1000);
        // A cap that a table of 56 entries (64 buckets) passes only when
        // each entry counts its control byte: it must shrink to 28.
        let mut map = hashbrown::HashMap::<u64, u64>::with_capacity(4096);
        map.insert(1, 2);
        measures_and_shrinks(map, size_of::<(u64, u64)>() + 1, 900);
        let mut set = hashbrown::HashSet::<u64>::with_capacity(4096);
        set.insert(1);
        measures_and_shrinks(set, size_of::<u64>() + 1, 1000);
    }
}
