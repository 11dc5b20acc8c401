//! [`Pooled`], the RAII guard that makes use-after-put impossible.

use crate::Reset;
use crate::pool::Pool;
use crate::stats::Event;
use core::fmt;
use core::ops::{Deref, DerefMut};

/// A value borrowed from a [`Pool`]; dropping it resets the value and returns
/// it to the pool.
///
/// The guard is the only way to reach the value, and the borrow checker ends
/// every reference into it before the guard is dropped, so no slice or
/// reference taken from a pooled value can outlive its return: the
/// use-after-put bug of Go's `sync.Pool` does not compile.
///
/// ```compile_fail
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// let mut buf = BUFS.get();
/// buf.extend_from_slice(b"user=bob");
/// let name: &[u8] = &buf[5..];
/// drop(buf); // error: cannot move out of `buf` because it is borrowed
/// println!("{name:?}");
/// ```
///
/// If the guard is dropped while its thread is panicking, the value is
/// dropped instead of returned (`Stats::dropped_panic`): the panic may have
/// left it half-written. A guard is `Send` when `T` is, so a value may be
/// taken on one thread and returned from another.
///
/// ```
/// use poolable::Pool;
///
/// static BUFS: Pool<Vec<u8>> = Pool::new();
///
/// let mut buf = BUFS.get();
/// buf.extend_from_slice(b"hello");
/// std::thread::spawn(move || assert_eq!(&buf[..], b"hello")).join().unwrap();
/// assert_eq!(BUFS.stats().puts, 1);
/// ```
pub struct Pooled<'a, T: Reset + Send + 'static> {
    pool: &'a Pool<T>,
    // Always `Some` until `drop` or `into_inner` takes it out.
    value: Option<T>,
}

impl<'a, T: Reset + Send + 'static> Pooled<'a, T> {
    pub(crate) fn new(pool: &'a Pool<T>, value: T) -> Self {
        Pooled {
            pool,
            value: Some(value),
        }
    }

    /// Take the value out for good: it will not return to the pool
    /// (`Stats::detached`).
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
        this.pool.count_unreturned(Event::Detached);
        match this.value.take() {
            Some(value) => value,
            None => unreachable!("a Pooled guard holds its value until it is consumed"),
        }
    }

    /// The pool this value returns to.
    ///
    /// ```
    /// use poolable::{Pool, Pooled};
    ///
    /// static BUFS: Pool<Vec<u8>> = Pool::new();
    ///
    /// let buf = BUFS.get();
    /// assert!(std::ptr::eq(Pooled::pool(&buf), &BUFS));
    /// ```
    pub fn pool(this: &Self) -> &'a Pool<T> {
        this.pool
    }
}

impl<T: Reset + Send + 'static> Deref for Pooled<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match &self.value {
            Some(value) => value,
            None => unreachable!("a Pooled guard holds its value until it is consumed"),
        }
    }
}

impl<T: Reset + Send + 'static> DerefMut for Pooled<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.value {
            Some(value) => value,
            None => unreachable!("a Pooled guard holds its value until it is consumed"),
        }
    }
}

impl<T: Reset + Send + 'static> Drop for Pooled<'_, T> {
    #[inline]
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            if std::thread::panicking() {
                self.pool.count_unreturned(Event::DroppedPanic);
                drop(value);
            } else {
                self.pool.put(value);
            }
        }
    }
}

impl<T: Reset + Send + 'static + fmt::Debug> fmt::Debug for Pooled<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
