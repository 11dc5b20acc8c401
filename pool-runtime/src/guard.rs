//! [`PoolGuard`], the RAII guard that makes use-after-put impossible, over
//! [`PoolRef`], what a guard asks of its pool; the pool implements it
//! (`pool.rs`, with the guards [`Pooled`](crate::Pooled) and
//! [`OwnedPooled`](crate::OwnedPooled)).

use crate::Reset;
use crate::raw::lease::Lease;
use core::fmt;
use core::mem::ManuallyDrop;
use core::ops::{Deref, DerefMut};

/// How a [`PoolGuard`] reaches the pool its value returns to: `&Pool<T>`,
/// `Arc<Pool<T>>` or `&BufferPool`. Sealed: the crate implements it.
pub trait PoolRef<T>: sealed::Home<T> {}

impl<T: Reset + Send + 'static, H: sealed::Home<T>> PoolRef<T> for H {}

pub(crate) mod sealed {
    use crate::raw::lease::Lease;

    /// What a guard asks of its pool.
    pub trait Home<T> {
        /// Reset and keep (or drop) the value in `slot`, leaving `None`,
        /// also when it unwinds.
        fn put_from(&self, slot: &mut Option<T>);
        /// The same for a value that stayed in its thread cache's slot.
        fn put_lease(&self, lease: Lease<T>);
        /// Count a value taken out for good (`into_inner`).
        fn count_detached(&self);
        /// Count a value dropped because its guard was dropped in a panic.
        fn count_panicked(&self);
    }
}

/// The guard behind [`Pooled`](crate::Pooled) (a borrowed pool, from
/// [`Pool::get`](crate::Pool::get)), [`OwnedPooled`](crate::OwnedPooled) (a
/// shared pool, from [`Pool::get_owned`](crate::Pool::get_owned)) and
/// [`PooledBuf`](crate::PooledBuf) (a [`BufferPool`](crate::BufferPool)'s
/// buffer); `P` is how it reaches the pool its value returns to. Everything
/// a guard does is written once, here, for all of them.
///
/// A guard given to [`mem::forget`](core::mem::forget) leaks its value, as
/// forgetting any value does: it never goes back, the stats count it as
/// held, and a value leased in a thread cache's slot keeps that cache's
/// slots (about 2 KiB) allocated after the thread exits. Safe, never
/// undefined behaviour; take a value out for good with
/// [`into_inner`](PoolGuard::into_inner) instead.
pub struct PoolGuard<T: Reset + Send + 'static, P: PoolRef<T>> {
    pub(crate) pool: P,
    // The value is in one of two places from the moment `Pool::get`
    // returns the guard until `drop` or `into_inner` takes it out: in its
    // thread cache's slot, leased (a get that found an idle value there,
    // `raw/lease.rs`), or else here, inline. A large `T` is cheaper pooled
    // as `Box<T>` (the guide's "Values inline, or in a `Box`").
    // `ManuallyDrop`: the guard's `Drop` always empties both (`put_from`
    // leaves `None`, also when it unwinds), so the compiler adds no second
    // check after the return.
    value: ManuallyDrop<Option<T>>,
    lease: ManuallyDrop<Option<Lease<T>>>,
}

impl<T: Reset + Send + 'static, P: PoolRef<T>> PoolGuard<T, P> {
    /// A guard with no value yet, for a get to fill in place (through
    /// [`slot`](Self::slot)): a `BufferPool`'s fresh buffer, which the
    /// guard holds before it allocates, so that a failed allocation is
    /// counted as the guard's `dropped_panic`.
    #[inline(always)]
    pub(crate) fn empty(pool: P) -> Self {
        PoolGuard {
            pool,
            value: ManuallyDrop::new(None),
            lease: ManuallyDrop::new(None),
        }
    }

    #[inline(always)]
    pub(crate) fn slot(&mut self) -> &mut Option<T> {
        &mut self.value
    }

    /// A guard holding `lease`: the value stays in its thread cache's slot.
    #[inline(always)]
    pub(crate) fn leased(pool: P, lease: Lease<T>) -> Self {
        PoolGuard {
            pool,
            value: ManuallyDrop::new(None),
            lease: ManuallyDrop::new(Some(lease)),
        }
    }

    /// A guard holding `value` inline.
    #[inline(always)]
    pub(crate) fn inline(pool: P, value: T) -> Self {
        PoolGuard {
            pool,
            value: ManuallyDrop::new(Some(value)),
            lease: ManuallyDrop::new(None),
        }
    }

    /// Take the value out for good: it will not return to the pool
    /// (`Stats::detached`).
    ///
    /// The value is moved to you and is yours from then on. A struct with
    /// `zeroize` fields still wipes them when you drop it (its generated
    /// `Drop`), but no pool can wipe what a move leaves behind, and a move
    /// copies an inline secret (`[u8; N]`): out of the guard here (this
    /// leaves a copy only in this call's stack frame; a value the guard
    /// held in its thread cache's slot leaves the slot wiped), and out of a `Box`,
    /// a `Vec` or a task that holds the guard (`into_inner(*boxed)` frees
    /// the box with the guard's bytes in it). A secret that must leave its
    /// guard belongs in a heap buffer (`Vec<u8>`, `Box<[u8]>`), whose move
    /// copies only the pointer; or wipe it before you detach the value.
    ///
    /// ```
    /// use poolable::{Pool, Pooled};
    ///
    /// static BUFS: Pool<Vec<u8>> = Pool::new();
    ///
    /// let mut buf = BUFS.get();
    /// buf.push(7);
    /// let owned: Vec<u8> = Pooled::into_inner(buf);
    /// assert_eq!(owned, [7]);
    /// assert_eq!(BUFS.stats().detached, 1);
    /// ```
    pub fn into_inner(mut this: Self) -> T {
        this.pool.count_detached();
        match this.lease.take() {
            Some(lease) => lease.detach(),
            None => match this.value.take() {
                Some(value) => value,
                None => unreachable!("a Pooled guard holds its value until it is consumed"),
            },
        }
    }
}

impl<T: Reset + Send + 'static, P: PoolRef<T>> Deref for PoolGuard<T, P> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match (&*self.lease, &*self.value) {
            (Some(lease), _) => lease.get(),
            (None, Some(value)) => value,
            (None, None) => unreachable!("a Pooled guard holds its value until it is consumed"),
        }
    }
}

impl<T: Reset + Send + 'static, P: PoolRef<T>> DerefMut for PoolGuard<T, P> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        match (&mut *self.lease, &mut *self.value) {
            (Some(lease), _) => lease.get_mut(),
            (None, Some(value)) => value,
            (None, None) => unreachable!("a Pooled guard holds its value until it is consumed"),
        }
    }
}

impl<T: Reset + Send + 'static, P: PoolRef<T>> Drop for PoolGuard<T, P> {
    // Each branch ends in a call of its own. `panicking()` calls out of
    // line once any thread has panicked, and when the return's code
    // followed that call in this function, every drop saved and restored
    // registers for it: a stack frame, 4 more instructions per get, push
    // and drop (`benches/instructions.rs`). A loop of drops pays the call
    // to `put_back` instead: 3.5 more per op in its `burst` mode.
    #[inline(always)]
    fn drop(&mut self) {
        if std::thread::panicking() {
            return self.drop_in_panic();
        }
        self.put_back();
    }
}

impl<T: Reset + Send + 'static, P: PoolRef<T>> PoolGuard<T, P> {
    /// The return of a guard dropped outside a panic: reached by a jump
    /// from `drop`, with no stack frame.
    #[inline(never)]
    fn put_back(&mut self) {
        match self.lease.take() {
            Some(lease) => self.pool.put_lease(lease),
            None => self.put_inline(),
        }
    }

    /// The return of a value held inline. A function of its own: in
    /// `put_back`, its registers cost the leased path a stack frame.
    #[inline(never)]
    fn put_inline(&mut self) {
        // `put_from` empties the slot, also when it unwinds.
        self.pool.put_from(&mut self.value);
    }

    /// Dropped while the thread panics: the value may be half-written, so
    /// it is dropped, not returned.
    ///
    /// In place: assigning `None` runs the value's `Drop` (the generated
    /// wipe of its `zeroize` fields) where the guard holds it. `take()`
    /// would move it out first and wipe only the copy, leaving an inline
    /// secret in the guard's memory, which a boxed guard then frees.
    #[cold]
    #[inline(never)]
    #[allow(clippy::redundant_pattern_matching)] // `is_some`: one more function per type
    fn drop_in_panic(&mut self) {
        if let Some(lease) = self.lease.take() {
            self.pool.count_panicked();
            // Dropped in its slot, which is then returned.
            let _dropped = lease;
        } else if let Some(_) = &*self.value {
            self.pool.count_panicked();
            *self.value = None;
        }
    }
}

impl<T: Reset + Send + 'static + fmt::Debug, P: PoolRef<T>> fmt::Debug for PoolGuard<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

// ---------------------------------------------------------------------------
// Trait forwards: a guard behaves like the value it holds, so it can be passed
// where a `T` is expected by reference, compared, hashed, printed, written to
// and read from. Each forward goes through `Deref`/`DerefMut`.
// ---------------------------------------------------------------------------

/// Borrow the pooled value, like `&*guard`.
///
/// ```
/// use poolable::Pool;
///
/// fn len_of(v: impl AsRef<Vec<u8>>) -> usize {
///     v.as_ref().len()
/// }
///
/// let pool: Pool<Vec<u8>> = Pool::new();
/// let mut buf = pool.get();
/// buf.extend_from_slice(b"abc");
/// assert_eq!(len_of(&buf), 3); // the guard itself, no `*` needed
/// assert_eq!(len_of(buf), 3);
/// ```
impl<T: Reset + Send + 'static, P: PoolRef<T>> AsRef<T> for PoolGuard<T, P> {
    #[inline]
    fn as_ref(&self) -> &T {
        self
    }
}

/// Borrow the pooled value mutably, like `&mut *guard`.
///
/// ```
/// use poolable::Pool;
///
/// fn fill(mut v: impl AsMut<Vec<u8>>) {
///     v.as_mut().extend_from_slice(b"filled");
/// }
///
/// let pool: Pool<Vec<u8>> = Pool::new();
/// let mut buf = pool.get();
/// fill(&mut buf);
/// assert_eq!(&buf[..], b"filled");
/// ```
impl<T: Reset + Send + 'static, P: PoolRef<T>> AsMut<T> for PoolGuard<T, P> {
    #[inline]
    fn as_mut(&mut self) -> &mut T {
        self
    }
}

/// Borrow the pooled value; `Eq`, `Ord` and `Hash` forward to `T`, so the
/// guard hashes and compares exactly as the value does.
///
/// ```
/// use poolable::{Pool, Pooled};
/// use std::borrow::Borrow;
///
/// let pool: Pool<String> = Pool::new();
/// let mut name = pool.get();
/// name.push_str("ada");
/// let value: &String = name.borrow();
/// assert_eq!(value, "ada");
/// ```
impl<T: Reset + Send + 'static, P: PoolRef<T>> core::borrow::Borrow<T> for PoolGuard<T, P> {
    #[inline]
    fn borrow(&self) -> &T {
        self
    }
}

/// Borrow the pooled value mutably.
///
/// ```
/// use poolable::Pool;
/// use std::borrow::BorrowMut;
///
/// let pool: Pool<String> = Pool::new();
/// let mut name = pool.get();
/// let value: &mut String = name.borrow_mut();
/// value.push_str("ada");
/// assert_eq!(*name, "ada");
/// ```
impl<T: Reset + Send + 'static, P: PoolRef<T>> core::borrow::BorrowMut<T> for PoolGuard<T, P> {
    #[inline]
    fn borrow_mut(&mut self) -> &mut T {
        self
    }
}

/// Display the pooled value.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<String> = Pool::new();
/// let mut greeting = pool.get();
/// greeting.push_str("hello");
/// assert_eq!(format!("{greeting}!"), "hello!");
/// ```
impl<T: Reset + Send + 'static + fmt::Display, P: PoolRef<T>> fmt::Display for PoolGuard<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// Compare the pooled value with a plain `T`.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<Vec<u8>> = Pool::new();
/// let mut buf = pool.get();
/// buf.push(1);
/// assert!(buf == vec![1]);
/// assert!(buf != vec![2]);
/// ```
impl<T: Reset + Send + 'static + PartialEq, P: PoolRef<T>> PartialEq<T> for PoolGuard<T, P> {
    #[inline]
    fn eq(&self, other: &T) -> bool {
        **self == *other
    }
}

/// Compare the values of two guards (from the same pool or not).
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<String> = Pool::new();
/// let (mut a, mut b) = (pool.get(), pool.get());
/// a.push_str("x");
/// b.push_str("x");
/// assert!(a == b);
/// b.push_str("y");
/// assert!(a != b);
/// ```
impl<T, U, P, Q> PartialEq<PoolGuard<U, Q>> for PoolGuard<T, P>
where
    T: Reset + Send + 'static + PartialEq<U>,
    U: Reset + Send + 'static,
    P: PoolRef<T>,
    Q: PoolRef<U>,
{
    #[inline]
    fn eq(&self, other: &PoolGuard<U, Q>) -> bool {
        **self == **other
    }
}

/// Guards are `Eq` when their values are.
///
/// ```
/// use poolable::Pool;
///
/// fn assert_eq_trait<E: Eq>(_: &E) {}
///
/// let pool: Pool<u64> = Pool::new();
/// let id = pool.get();
/// assert_eq_trait(&id);
/// assert!(id == pool.get());
/// ```
impl<T: Reset + Send + 'static + Eq, P: PoolRef<T>> Eq for PoolGuard<T, P> {}

/// Order the pooled value against a plain `T`.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<u32> = Pool::new();
/// let mut n = pool.get();
/// *n = 5;
/// assert!(n > 3);
/// assert!(n < 9);
/// ```
impl<T: Reset + Send + 'static + PartialOrd, P: PoolRef<T>> PartialOrd<T> for PoolGuard<T, P> {
    #[inline]
    fn partial_cmp(&self, other: &T) -> Option<core::cmp::Ordering> {
        (**self).partial_cmp(other)
    }
}

/// Order the values of two guards.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<String> = Pool::new();
/// let (mut a, mut b) = (pool.get(), pool.get());
/// a.push_str("apple");
/// b.push_str("banana");
/// assert!(a < b);
/// ```
impl<T, U, P, Q> PartialOrd<PoolGuard<U, Q>> for PoolGuard<T, P>
where
    T: Reset + Send + 'static + PartialOrd<U>,
    U: Reset + Send + 'static,
    P: PoolRef<T>,
    Q: PoolRef<U>,
{
    #[inline]
    fn partial_cmp(&self, other: &PoolGuard<U, Q>) -> Option<core::cmp::Ordering> {
        (**self).partial_cmp(&**other)
    }
}

/// Order guards by their values, e.g. to sort a `Vec` of guards.
///
/// ```
/// use poolable::Pool;
///
/// let pool: Pool<String> = Pool::new();
/// let mut words: Vec<_> = ["pear", "fig", "apple"]
///     .into_iter()
///     .map(|w| {
///         let mut s = pool.get();
///         s.push_str(w);
///         s
///     })
///     .collect();
/// words.sort();
/// let sorted: Vec<&str> = words.iter().map(|w| w.as_str()).collect();
/// assert_eq!(sorted, ["apple", "fig", "pear"]);
/// ```
impl<T: Reset + Send + 'static + Ord, P: PoolRef<T>> Ord for PoolGuard<T, P> {
    #[inline]
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

/// Hash the pooled value: a guard hashes exactly as its value does, so it
/// can be looked up in a map keyed by `T` (through [`Borrow`](core::borrow::Borrow)).
///
/// ```
/// use poolable::Pool;
/// use std::collections::HashSet;
///
/// let pool: Pool<String> = Pool::new();
/// let mut key = pool.get();
/// key.push_str("ada");
///
/// let mut seen = HashSet::new();
/// seen.insert(key);
/// assert!(seen.contains(&String::from("ada")));
/// ```
impl<T: Reset + Send + 'static + core::hash::Hash, P: PoolRef<T>> core::hash::Hash
    for PoolGuard<T, P>
{
    #[inline]
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

/// Write into the pooled value, e.g. a `Vec<u8>` buffer.
///
/// ```
/// use poolable::Pool;
/// use std::io::Write;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// fn render(out: &mut impl Write, id: u32) -> std::io::Result<()> {
///     write!(out, "id={id}")
/// }
///
/// let mut buf = BUFS.get();
/// render(&mut buf, 7)?;
/// buf.flush()?;
/// assert_eq!(&buf[..], b"id=7");
/// # Ok::<(), std::io::Error>(())
/// ```
impl<T: Reset + Send + 'static + std::io::Write, P: PoolRef<T>> std::io::Write for PoolGuard<T, P> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        (**self).write(buf)
    }

    #[inline]
    fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        (**self).write_vectored(bufs)
    }

    #[inline]
    fn flush(&mut self) -> std::io::Result<()> {
        (**self).flush()
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        (**self).write_all(buf)
    }

    #[inline]
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> std::io::Result<()> {
        (**self).write_fmt(args)
    }
}

/// Read from the pooled value, e.g. a `VecDeque<u8>` used as a byte queue.
///
/// ```
/// use poolable::Pool;
/// use std::collections::VecDeque;
/// use std::io::Read;
///
/// let pool: Pool<VecDeque<u8>> = Pool::new();
/// let mut queue = pool.get();
/// queue.extend(b"hello");
///
/// let mut out = String::new();
/// queue.read_to_string(&mut out)?;
/// assert_eq!(out, "hello");
/// assert!(queue.is_empty());
/// # Ok::<(), std::io::Error>(())
/// ```
impl<T: Reset + Send + 'static + std::io::Read, P: PoolRef<T>> std::io::Read for PoolGuard<T, P> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        (**self).read(buf)
    }

    #[inline]
    fn read_vectored(&mut self, bufs: &mut [std::io::IoSliceMut<'_>]) -> std::io::Result<usize> {
        (**self).read_vectored(bufs)
    }

    #[inline]
    fn read_to_end(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        (**self).read_to_end(buf)
    }

    #[inline]
    fn read_to_string(&mut self, buf: &mut String) -> std::io::Result<usize> {
        (**self).read_to_string(buf)
    }

    #[inline]
    fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        (**self).read_exact(buf)
    }
}

/// Format into the pooled value, e.g. a `String`.
///
/// ```
/// use poolable::Pool;
/// use std::fmt::Write;
///
/// static LINES: Pool<String> = Pool::new();
///
/// let mut line = LINES.get();
/// write!(line, "{}+{}={}", 2, 2, 4)?;
/// line.write_char('!')?;
/// assert_eq!(*line, "2+2=4!");
/// # Ok::<(), std::fmt::Error>(())
/// ```
impl<T: Reset + Send + 'static + fmt::Write, P: PoolRef<T>> fmt::Write for PoolGuard<T, P> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        (**self).write_str(s)
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        (**self).write_char(c)
    }

    #[inline]
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> fmt::Result {
        (**self).write_fmt(args)
    }
}
