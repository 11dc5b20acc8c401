//! [`BufferPool`]: byte buffers by size class, one [`Pool<Vec<u8>>`](Pool)
//! per power-of-two capacity, so small requests get small buffers and a
//! buffer that grew moves up a class instead of bloating the small ones.

use crate::guard::{PoolGuard, sealed};
use crate::pool::Pool;
use crate::stats::{Event, Stats};
use core::fmt;

/// The most classes a [`BufferPool`] has: enough for any `min_bytes` ..
/// `max_bytes` range up to 2^40 bytes apart.
const MAX_CLASSES: usize = 41;

/// What the pool itself stores per buffer, which counts toward the size cap
/// as it does for every [`Pool`].
const VEC_SIZE: usize = size_of::<Vec<u8>>();

/// Byte buffers sorted by capacity into power-of-two classes, from
/// [`min_bytes`](BufferPool::min_bytes) (default 64) up to
/// [`max_bytes`](BufferPool::max_bytes) (default 64 KiB).
///
/// A single `Pool<Vec<u8>>` serving mixed sizes ends up holding only large
/// buffers: each one grows to the largest request it has seen. Here
/// [`get(n)`](BufferPool::get) takes from the smallest class whose buffers
/// hold `n` bytes, and a returned buffer goes to the class its capacity fits
/// *then*: one that grew moves up, and one past `max_bytes` is dropped. Each
/// class is a [`Pool`], with the same thread-local fast path, retention
/// bound and decay.
///
/// ```
/// use poolable::BufferPool;
/// use std::io::Write;
///
/// static BUFS: BufferPool = BufferPool::new();
///
/// let mut small = BUFS.get(100);
/// assert!(small.is_empty() && small.capacity() >= 100);
/// write!(small, "GET /items/{} HTTP/1.1\r\n", 7).unwrap();
/// drop(small); // cleared, back in the 128-byte class
///
/// let big = BUFS.get(10_000); // the 16 KiB class: the small buffer stays small
/// assert!(big.capacity() >= 10_000);
/// drop(big);
/// assert_eq!(BUFS.stats().retained, 2);
/// ```
///
/// # Stats
///
/// [`stats`](BufferPool::stats) adds up the classes, and the identity of
/// [`Stats`] holds for the totals. [`class_stats`](BufferPool::class_stats)
/// shows each class: a get is counted in the class it took from and a return
/// in the class it went to, so a buffer that grew shows in two classes and
/// the identity holds only for the totals. A buffer taken out with
/// [`into_inner`](PoolGuard::into_inner) or dropped in a panic, and a get
/// over the largest class, are counted in the largest class.
pub struct BufferPool {
    classes: [Pool<Vec<u8>>; MAX_CLASSES],
    /// log2 of the smallest class's capacity.
    min_shift: u32,
    /// How many classes are in use.
    len: usize,
    /// What `pools()` calls it (its classes are `name[capacity]`).
    name: &'static str,
}

/// A buffer from a [`BufferPool`]: derefs to `Vec<u8>`, implements
/// [`io::Write`](std::io::Write), and goes back to the class that fits its
/// capacity when dropped. It is the same guard as [`Pooled`](crate::Pooled),
/// so [`into_inner`](PoolGuard::into_inner) and a drop during a panic
/// behave alike.
pub type PooledBuf<'a> = PoolGuard<Vec<u8>, &'a BufferPool>;

/// One class of a [`BufferPool`]: the capacity of its buffers and its
/// counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClassStats {
    /// The capacity every buffer of this class has at least (and less than
    /// twice of, except in the largest class, which is capped at it).
    pub capacity: usize,
    /// The class's counters.
    pub stats: Stats,
}

impl BufferPool {
    /// Classes of 64 bytes to 64 KiB (11 classes).
    #[must_use]
    pub const fn new() -> Self {
        BufferPool {
            classes: [const { Pool::new() }; MAX_CLASSES],
            min_shift: 0,
            len: 0,
            name: "BufferPool",
        }
        .classes_for(64, crate::DEFAULT_MAX_BYTES)
    }

    /// The largest class, and the size cap: a buffer whose capacity is over
    /// it is dropped on return. Rounded up to a power of two, and to
    /// `min_bytes`; at most 2^40 times `min_bytes`.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new().max_bytes(1 << 20);
    /// assert_eq!(BUFS.class_stats().last().unwrap().capacity, 1 << 20);
    /// ```
    #[must_use]
    pub const fn max_bytes(self, bytes: usize) -> Self {
        let min = self.min_capacity();
        self.classes_for(min, bytes)
    }

    /// The smallest class: every buffer has at least this capacity. Rounded
    /// up to a power of two (at least 1); `max_bytes` is raised to it if it
    /// was below.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new().min_bytes(1024);
    /// assert!(BUFS.get(1).capacity() >= 1024);
    /// ```
    #[must_use]
    pub const fn min_bytes(self, bytes: usize) -> Self {
        let max = self.max_capacity();
        self.classes_for(bytes, max)
    }

    /// Set the classes to cover `min ..= max` (see the setters' rounding).
    const fn classes_for(mut self, min: usize, max: usize) -> Self {
        let min_shift = ceil_log2(min);
        let max_shift = {
            let shift = ceil_log2(max);
            let top = min_shift + (MAX_CLASSES as u32 - 1);
            if shift < min_shift {
                min_shift
            } else if shift > top {
                top
            } else {
                shift
            }
        };
        self.min_shift = min_shift;
        self.len = (max_shift - min_shift) as usize + 1;
        // One cap for every class: only the largest class ever sees a
        // buffer over it (returns go to the class their capacity fits).
        let cap = (1usize << max_shift).saturating_add(VEC_SIZE);
        self.name_classes();
        let mut i = 0;
        while i < MAX_CLASSES {
            self.classes[i].set_max_bytes(cap);
            i += 1;
        }
        self
    }

    /// The name [`pools`](crate::pools) shows for each class, followed by
    /// the class's capacity in brackets (`"uploads[4096]"`); by default
    /// `"BufferPool"`.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BODIES: BufferPool = BufferPool::new().name("bodies");
    /// drop(BODIES.get(3000));
    /// assert!(poolable::pools().iter().any(|p| p.name() == "bodies[4096]"));
    /// ```
    #[must_use]
    pub const fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self.name_classes();
        self
    }

    const fn name_classes(&mut self) {
        let mut i = 0;
        while i < MAX_CLASSES {
            let capacity = if i < self.len {
                self.class_capacity(i)
            } else {
                0
            };
            self.classes[i].set_class_name(self.name, capacity);
            i += 1;
        }
    }

    const fn min_capacity(&self) -> usize {
        1 << self.min_shift
    }

    const fn max_capacity(&self) -> usize {
        1 << (self.min_shift + self.len as u32 - 1)
    }

    /// The capacity of class `i`.
    const fn class_capacity(&self, i: usize) -> usize {
        1 << (self.min_shift + i as u32)
    }

    /// An empty buffer with `capacity() >= min_capacity`, from the smallest
    /// class that holds that much. Above `max_bytes` it is a fresh buffer
    /// (dropped on return).
    ///
    /// # Panics
    ///
    /// As [`Vec::with_capacity`] does, if `min_capacity` is over
    /// `isize::MAX`. The get is counted (a get and a miss in the largest
    /// class) and so is the buffer it did not hand out (a `dropped_panic`),
    /// so the books still balance.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new();
    ///
    /// let mut buf = BUFS.get(3000); // from the 4 KiB class
    /// assert!(buf.is_empty() && buf.capacity() >= 3000);
    /// buf.extend_from_slice(&[1; 3000]);
    /// drop(buf);
    /// assert!(BUFS.get(3000).is_empty());
    /// ```
    #[inline]
    pub fn get(&self, min_capacity: usize) -> PooledBuf<'_> {
        let mut guard = PoolGuard::empty(self);
        let slot = guard.slot();
        let class = self.class_to_take(min_capacity);
        match class {
            Some(class) => {
                self.classes[class].take_into(slot);
                let want = self.class_capacity(class);
                if let Some(buf) = slot
                    && buf.capacity() < want
                {
                    buf.reserve_exact(want);
                }
            }
            None => self.fresh(slot, min_capacity),
        }
        guard
    }

    /// A get over the largest class: counted there as a miss, and made
    /// fresh. The empty buffer is in the guard's slot before it allocates:
    /// if that panics (`min_capacity` over `isize::MAX`), the guard drops
    /// it as a `dropped_panic`, so the counted miss is balanced as
    /// [`Pool`]'s panicking constructors are.
    #[cold]
    #[inline(never)]
    fn fresh(&self, slot: &mut Option<Vec<u8>>, min_capacity: usize) {
        self.classes[self.len - 1].count_fresh();
        slot.insert(Vec::new()).reserve_exact(min_capacity);
    }

    /// Reset `buf` and keep it in the class its capacity fits, or drop it if
    /// it is over `max_bytes`. Dropping a [`PooledBuf`] does the same.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// bufs.put(Vec::with_capacity(500)); // into the 256-byte class
    /// assert_eq!(bufs.stats().retained, 1);
    /// assert!(bufs.get(200).capacity() >= 500);
    /// ```
    pub fn put(&self, buf: Vec<u8>) {
        self.home(buf.capacity()).put(buf);
    }

    /// The smallest class whose buffers hold `n` bytes; `None` above them all.
    fn class_to_take(&self, n: usize) -> Option<usize> {
        let class = (ceil_log2(n).saturating_sub(self.min_shift)) as usize;
        (class < self.len).then_some(class)
    }

    /// The class a buffer of `capacity` goes back to: the largest whose
    /// capacity it has (the smallest if it has less than them all; the
    /// largest, which drops it, if it is over them all).
    fn class_to_keep(&self, capacity: usize) -> usize {
        let class = floor_log2(capacity).saturating_sub(self.min_shift) as usize;
        class.min(self.len - 1)
    }

    /// The pool of the class a buffer of `capacity` belongs to.
    fn home(&self, capacity: usize) -> &Pool<Vec<u8>> {
        &self.classes[self.class_to_keep(capacity)]
    }

    fn classes(&self) -> &[Pool<Vec<u8>>] {
        &self.classes[..self.len]
    }

    /// The counters of every class added up.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// drop((bufs.get(10), bufs.get(10_000)));
    /// let stats = bufs.stats();
    /// assert_eq!((stats.gets, stats.misses, stats.retained), (2, 2, 2));
    /// ```
    pub fn stats(&self) -> Stats {
        let mut total = Stats::default();
        for class in self.classes() {
            total.add(&class.stats());
        }
        total
    }

    /// Each class, smallest first, with its capacity and counters.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// drop(bufs.get(100));
    /// let classes = bufs.class_stats();
    /// assert_eq!(classes.len(), 11); // 64 B .. 64 KiB
    /// assert_eq!((classes[1].capacity, classes[1].stats.retained), (128, 1));
    /// ```
    pub fn class_stats(&self) -> Vec<ClassStats> {
        self.classes()
            .iter()
            .enumerate()
            .map(|(i, class)| ClassStats {
                capacity: self.class_capacity(i),
                stats: class.stats(),
            })
            .collect()
    }

    /// One decay step on every class (see [`Pool::trim`]). `trim_all` and
    /// the trimmer reach the classes too.
    pub fn trim(&self) {
        self.classes().iter().for_each(Pool::trim);
    }

    /// Drop every idle buffer of every class (see [`Pool::clear`]).
    pub fn clear(&self) {
        self.classes().iter().for_each(Pool::clear);
    }
}

impl Default for BufferPool {
    /// Same as [`BufferPool::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferPool")
            .field("min_bytes", &self.min_capacity())
            .field("max_bytes", &self.max_capacity())
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl sealed::Home<Vec<u8>> for &BufferPool {
    #[inline]
    fn put_from(&self, slot: &mut Option<Vec<u8>>) {
        if let Some(buf) = slot {
            self.home(buf.capacity()).put_from(slot);
        }
    }

    fn count_detached(&self) {
        self.classes[self.len - 1].count_unreturned(Event::Detached);
    }

    fn count_panicked(&self) {
        self.classes[self.len - 1].count_unreturned(Event::DroppedPanic);
    }
}

/// The exponent of the smallest power of two `>= n` (0 for 0 and 1).
const fn ceil_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// The exponent of the largest power of two `<= n` (0 for 0 and 1).
const fn floor_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - 1 - n.leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs() {
        assert_eq!([0, 1, 2, 3, 4, 1024].map(ceil_log2), [0, 0, 1, 2, 2, 10]);
        assert_eq!([0, 1, 2, 3, 4, 1025].map(floor_log2), [0, 0, 1, 1, 2, 10]);
        assert_eq!(ceil_log2(usize::MAX), usize::BITS);
    }

    #[test]
    fn classes_round_and_clamp() {
        let p = BufferPool::new();
        assert_eq!((p.min_capacity(), p.max_capacity(), p.len), (64, 65536, 11));
        let p = BufferPool::new().min_bytes(100).max_bytes(1000);
        assert_eq!((p.min_capacity(), p.max_capacity()), (128, 1024));
        let p = BufferPool::new().min_bytes(0).max_bytes(0);
        assert_eq!((p.min_capacity(), p.max_capacity(), p.len), (1, 1, 1));
        let p = BufferPool::new().min_bytes(4096).max_bytes(10);
        assert_eq!((p.min_capacity(), p.max_capacity()), (4096, 4096));
        let p = BufferPool::new().max_bytes(usize::MAX);
        assert_eq!(p.len, MAX_CLASSES);
    }

    #[test]
    fn gets_and_returns_pick_classes_by_capacity() {
        let p = BufferPool::new();
        assert_eq!(p.class_to_take(0), Some(0));
        assert_eq!(p.class_to_take(64), Some(0));
        assert_eq!(p.class_to_take(65), Some(1));
        assert_eq!(p.class_to_take(65536), Some(10));
        assert_eq!(p.class_to_take(65537), None);
        assert_eq!(p.class_to_keep(0), 0);
        assert_eq!(p.class_to_keep(127), 0);
        assert_eq!(p.class_to_keep(128), 1);
        assert_eq!(p.class_to_keep(1 << 30), 10);
    }
}
