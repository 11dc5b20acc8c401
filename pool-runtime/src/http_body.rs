//! A pooled byte buffer as an HTTP body (feature `http-body`): a handler
//! writes its response into a pooled `Vec<u8>` and hands the guard to hyper
//! as the body, with no copy into `Bytes`. The body yields the buffer as its
//! one data frame; once hyper has written it and drops the frame, the guard
//! drops and the buffer goes back to its pool, reset.

use crate::guard::{PoolGuard, PoolRef};
use core::convert::Infallible;
use core::pin::Pin;
use core::task::{Context, Poll};
use http_body::{Body, Frame, SizeHint};

/// A pooled `Vec<u8>` as an [`http_body::Body`]: one data frame, the buffer
/// itself. Any `'static` guard works: a static pool's (`Pooled<'static,
/// Vec<u8>>`), an owned one ([`OwnedPooled`](crate::OwnedPooled)), or a
/// `'static` [`BufferPool`](crate::BufferPool)'s.
///
/// ```
/// use http_body::Body;
/// use poolable::{Pool, PooledBody};
///
/// static RESPONSES: Pool<Vec<u8>> = Pool::new();
///
/// let mut buf = RESPONSES.get();
/// buf.extend_from_slice(br#"{"ok":true}"#);
/// let body = PooledBody::from(buf); // e.g. `hyper::Response::new(body)`
/// assert_eq!(body.size_hint().exact(), Some(11));
/// drop(body);
/// assert_eq!(RESPONSES.stats().puts, 1); // back in the pool
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "http-body")))]
pub struct PooledBody<P: PoolRef<Vec<u8>>> {
    buf: Option<PoolGuard<Vec<u8>, P>>,
}

impl<P: PoolRef<Vec<u8>>> From<PoolGuard<Vec<u8>, P>> for PooledBody<P> {
    fn from(buf: PoolGuard<Vec<u8>, P>) -> Self {
        PooledBody { buf: Some(buf) }
    }
}

impl<P: PoolRef<Vec<u8>>> core::fmt::Debug for PooledBody<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PooledBody")
            .field("len", &self.buf.as_ref().map_or(0, |buf| buf.len()))
            .finish()
    }
}

impl<P: PoolRef<Vec<u8>> + Unpin> Body for PooledBody<P> {
    type Data = PooledChunk<P>;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Infallible>>> {
        let chunk = self
            .buf
            .take()
            .filter(|buf| !buf.is_empty())
            .map(|buf| Ok(Frame::data(PooledChunk { buf, read: 0 })));
        Poll::Ready(chunk)
    }

    fn is_end_stream(&self) -> bool {
        self.buf.as_ref().is_none_or(|buf| buf.is_empty())
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.buf.as_ref().map_or(0, |buf| buf.len() as u64))
    }
}

/// The data frame of a [`PooledBody`]: the pooled buffer, read in place
/// ([`bytes::Buf`]). Dropping it returns the buffer to its pool.
#[cfg_attr(docsrs, doc(cfg(feature = "http-body")))]
pub struct PooledChunk<P: PoolRef<Vec<u8>>> {
    buf: PoolGuard<Vec<u8>, P>,
    read: usize,
}

impl<P: PoolRef<Vec<u8>>> core::fmt::Debug for PooledChunk<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PooledChunk")
            .field("len", &self.buf.len())
            .field("read", &self.read)
            .finish()
    }
}

impl<P: PoolRef<Vec<u8>>> bytes::Buf for PooledChunk<P> {
    fn remaining(&self) -> usize {
        self.buf.len() - self.read
    }

    fn chunk(&self) -> &[u8] {
        self.buf.get(self.read..).unwrap_or_default()
    }

    /// Past the end, it stops at the end (where `Buf` allows a panic).
    fn advance(&mut self, cnt: usize) {
        self.read = self.read.saturating_add(cnt).min(self.buf.len());
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use crate::Pool;
    use bytes::Buf;
    use std::sync::Arc;
    use std::task::Waker;

    fn poll<B: Body + Unpin>(body: &mut B) -> Option<Result<Frame<B::Data>, B::Error>> {
        let mut cx = Context::from_waker(Waker::noop());
        match Pin::new(body).poll_frame(&mut cx) {
            Poll::Ready(frame) => frame,
            Poll::Pending => panic!("a pooled body is always ready"),
        }
    }

    #[test]
    fn the_buffer_is_the_one_frame_and_returns_reset_when_it_is_written() {
        let pool = Arc::new(Pool::<Vec<u8>>::new());
        let mut buf = pool.get_owned();
        buf.extend_from_slice(b"hello, world");
        let address = buf.as_ptr();
        let mut body = PooledBody::from(buf);
        assert!(!body.is_end_stream());
        let mut chunk = poll(&mut body).unwrap().unwrap().into_data().unwrap();
        assert!(body.is_end_stream() && poll(&mut body).is_none());
        // Read in place: the same allocation, no copy.
        assert_eq!((chunk.chunk().as_ptr(), chunk.remaining()), (address, 12));
        chunk.advance(7);
        assert_eq!(chunk.chunk(), b"world");
        chunk.advance(100);
        assert_eq!(chunk.remaining(), 0);
        assert_eq!(pool.stats().puts, 0, "still out while the frame is alive");
        drop(chunk); // hyper has written it
        let stats = pool.stats();
        assert_eq!((stats.puts, stats.retained), (1, 1));
        let again = pool.get_owned();
        assert!(
            again.is_empty() && again.as_ptr() == address,
            "reused, reset"
        );
    }

    #[test]
    fn an_empty_or_unpolled_body_still_returns_its_buffer() {
        static POOL: Pool<Vec<u8>> = Pool::new();
        let mut empty = PooledBody::from(POOL.get());
        assert!(empty.is_end_stream() && poll(&mut empty).is_none());
        drop(PooledBody::from(POOL.get()));
        assert_eq!(POOL.stats().puts, 2);
    }
}
