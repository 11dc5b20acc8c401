//! A small JSON API on hyper 1 and tokio, with its per-request data pooled:
//!
//! - the request body is read into a pooled buffer;
//! - the method, path, headers and the JSON order are parsed into a pooled
//!   `#[derive(Poolable)]` struct whose nested strings and lists keep their
//!   allocations (`RecycleVec`), with serde's seeds writing in place;
//! - the JSON response is written into a pooled buffer that is the response
//!   body itself (`PooledBody`, feature `http-body`): it goes back to its
//!   pool once hyper has written it.
//!
//! `POST /upload` reads a large body (16 KiB to 1 MiB) into a buffer from a
//! size-classed `BufferPool` and answers with its checksum.
//!
//! `POOLABLE=off` turns pooling off (every get constructs, every return is
//! dropped), so the same binary allocates fresh through the pool's get and
//! return paths. Built with the `no-pool` feature, the same handlers take
//! plain values instead (`Default::default()`, `Vec::with_capacity`): the
//! baseline without the pool at all. A counting allocator and `GET /stats`
//! report allocations and peak RSS for the load generator (`loadgen`).
//! Build with `--features mimalloc` or `--features jemalloc` for mimalloc or
//! jemalloc instead of the system allocator (with both, mimalloc).
//!
//! ```sh
//! cargo run --release -p poolable-examples --bin http_service -- 127.0.0.1:8080
//! ```

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use poolable::{RecycleVec, Reset};
use poolable_examples::{ServerStats, UPLOAD_MAX, checksum};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::alloc::{GlobalAlloc, Layout};
use std::convert::Infallible;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

// ------------------------------------------------------- counting allocator

#[cfg(feature = "mimalloc")]
static INNER: mimalloc::MiMalloc = mimalloc::MiMalloc;
// mimalloc takes precedence when both features are on (`--all-features`).
#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
static INNER: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
#[cfg(not(any(feature = "mimalloc", feature = "jemalloc")))]
static INNER: std::alloc::System = std::alloc::System;

/// Counts allocations (a `realloc` is one too) for `GET /stats`.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the inner allocator; the
// counter is only observed.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { INNER.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { INNER.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { INNER.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { INNER.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ------------------------------------------------------------ pooled types

/// The request as the handler sees it. Pooled, every nested buffer keeps
/// its allocation from one request to the next.
#[derive(Default)]
#[cfg_attr(not(feature = "no-pool"), derive(poolable::Poolable))]
#[cfg_attr(not(feature = "no-pool"), poolable(name = "api-requests"))]
struct ApiRequest {
    method: String,
    path: String,
    headers: RecycleVec<Header>,
    order: Order,
}

#[derive(Reset, Default)]
struct Header {
    name: String,
    value: String,
}

#[derive(Reset, Default)]
struct Order {
    user: String,
    note: String,
    items: RecycleVec<Item>,
}

#[derive(Reset, Default)]
struct Item {
    sku: String,
    qty: u32,
    price_cents: u64,
}

static REQUESTS: AtomicU64 = AtomicU64::new(0);

// ------------------------------------- from the pools, or fresh (`no-pool`)

/// Where the handlers get their request struct and buffers: from the pools,
/// or, built with `no-pool`, plain values that are dropped after the
/// request. The handlers are the same code either way.
#[cfg(not(feature = "no-pool"))]
mod values {
    use super::ApiRequest;
    use poolable::{BufferPool, Pool, Pooled, PooledBody, PooledBuf};

    /// Request bodies, read from the connection.
    static BODIES: Pool<Vec<u8>> = Pool::new().name("request-bodies");
    /// Response bodies: handed to hyper, back when written.
    static RESPONSES: Pool<Vec<u8>> = Pool::new().name("response-bodies");
    /// `POST /upload` bodies, by size class up to 1 MiB.
    static UPLOADS: BufferPool = BufferPool::new().max_bytes(1 << 20).name("uploads");

    pub type Buf = Pooled<'static, Vec<u8>>;
    pub type Body = PooledBody<&'static Pool<Vec<u8>>>;

    pub fn request() -> Pooled<'static, ApiRequest> {
        ApiRequest::pool().get()
    }
    pub fn body_buf() -> Buf {
        BODIES.get()
    }
    pub fn upload_buf(len: usize) -> PooledBuf<'static> {
        UPLOADS.get(len)
    }
    pub fn response_buf() -> Buf {
        RESPONSES.get()
    }
    /// The response buffer as the body: back in its pool once written.
    pub fn body(out: Buf) -> Body {
        PooledBody::from(out)
    }
    /// The request struct pool's gets, puts and idle values, the
    /// response pool's puts, and the request and upload body buffers out
    /// of their pools.
    pub fn pool_counts() -> [u64; 5] {
        let requests = ApiRequest::pool().stats();
        let responses = RESPONSES.stats();
        [
            requests.gets,
            requests.puts,
            requests.retained as u64,
            responses.puts,
            BODIES.stats().held() + UPLOADS.stats().held(),
        ]
    }
    pub const BUILT: bool = true;
}

#[cfg(feature = "no-pool")]
mod values {
    use super::ApiRequest;
    use http_body_util::Full;
    use std::collections::VecDeque;

    pub type Buf = Vec<u8>;
    /// `VecDeque::from(Vec)` takes the buffer as it is: no copy, no
    /// allocation.
    pub type Body = Full<VecDeque<u8>>;

    pub fn request() -> ApiRequest {
        ApiRequest::default()
    }
    pub fn body_buf() -> Buf {
        Vec::new()
    }
    pub fn upload_buf(len: usize) -> Buf {
        Vec::with_capacity(len)
    }
    pub fn response_buf() -> Buf {
        Vec::new()
    }
    pub fn body(out: Buf) -> Body {
        Full::new(VecDeque::from(out))
    }
    pub fn pool_counts() -> [u64; 5] {
        [0; 5]
    }
    pub const BUILT: bool = false;
}

use values::{Body, Buf, body, body_buf, request, response_buf, upload_buf};

// ------------------------------------------- JSON parsed in place (serde seeds)

/// Appends a JSON string to a `String` (no allocation when it has room).
struct StrInto<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for StrInto<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for StrInto<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum OrderField {
    User,
    Note,
    Items,
    #[serde(other)]
    Other,
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum ItemField {
    Sku,
    Qty,
    PriceCents,
    #[serde(other)]
    Other,
}

/// The keys of one JSON object seen so far, one bit each (no allocation:
/// the server counts them per request).
#[derive(Default)]
struct Seen(u8);

impl Seen {
    /// `Ok` the first time key number `bit` is seen, `duplicate_field`
    /// after.
    fn first<E: de::Error>(&mut self, bit: u8, key: &'static str) -> Result<(), E> {
        if self.0 & (1 << bit) != 0 {
            return Err(E::duplicate_field(key));
        }
        self.0 |= 1 << bit;
        Ok(())
    }
}

/// An order, parsed into the pooled `Order`.
struct OrderInto<'a>(&'a mut Order);

impl<'de> DeserializeSeed<'de> for OrderInto<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OrderInto<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an order")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // A key given twice is an error, as `#[derive(Deserialize)]` makes
        // it: parsed in place, its values would be appended.
        let mut seen = Seen::default();
        while let Some(field) = map.next_key::<OrderField>()? {
            match field {
                OrderField::User => {
                    seen.first(0, "user")?;
                    map.next_value_seed(StrInto(&mut self.0.user))?
                }
                OrderField::Note => {
                    seen.first(1, "note")?;
                    map.next_value_seed(StrInto(&mut self.0.note))?
                }
                OrderField::Items => {
                    seen.first(2, "items")?;
                    map.next_value_seed(ItemsInto(&mut self.0.items))?
                }
                OrderField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The item list, each element parsed into a recycled `Item`.
struct ItemsInto<'a>(&'a mut RecycleVec<Item>);

impl<'de> DeserializeSeed<'de> for ItemsInto<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsInto<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of items")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(ItemInto(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

struct ItemInto<'a>(&'a mut RecycleVec<Item>);

impl<'de> DeserializeSeed<'de> for ItemInto<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(ItemVisitor(self.0.push_reset()))
    }
}

struct ItemVisitor<'a>(&'a mut Item);

impl<'de> Visitor<'de> for ItemVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an item")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = Seen::default();
        while let Some(field) = map.next_key::<ItemField>()? {
            match field {
                ItemField::Sku => {
                    seen.first(0, "sku")?;
                    map.next_value_seed(StrInto(&mut self.0.sku))?
                }
                ItemField::Qty => {
                    seen.first(1, "qty")?;
                    self.0.qty = map.next_value()?
                }
                ItemField::PriceCents => {
                    seen.first(2, "price_cents")?;
                    self.0.price_cents = map.next_value()?
                }
                ItemField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- handlers

/// The response to an order, serialized from borrowed fields.
#[derive(serde::Serialize)]
struct Receipt<'a> {
    user: &'a str,
    path: &'a str,
    items: usize,
    units: u64,
    total_cents: u64,
    largest_sku: &'a str,
    headers: usize,
}

fn respond(status: StatusCode, out: Buf) -> Response<Body> {
    let mut response = Response::new(body(out));
    *response.status_mut() = status;
    response
}

/// `value` as JSON, appended to `out`.
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(out, value);
}

/// Appends the request body to `into`; an error if the connection fails or
/// the body grows past `limit`.
async fn read_body(incoming: &mut Incoming, into: &mut Vec<u8>, limit: usize) -> Result<(), ()> {
    while let Some(frame) = incoming.frame().await {
        let frame = frame.map_err(|_| ())?;
        if let Some(data) = frame.data_ref() {
            if into.len() + data.len() > limit {
                return Err(());
            }
            into.extend_from_slice(data);
        }
    }
    Ok(())
}

async fn order(req: Request<Incoming>) -> Response<Body> {
    let (parts, mut incoming) = req.into_parts();
    let mut api = request();
    api.method.push_str(parts.method.as_str());
    api.path.push_str(parts.uri.path());
    for (name, value) in &parts.headers {
        let header = api.headers.push_reset();
        header.name.push_str(name.as_str());
        header.value.push_str(value.to_str().unwrap_or_default());
    }
    let mut body = body_buf();
    if read_body(&mut incoming, &mut body, UPLOAD_MAX)
        .await
        .is_err()
    {
        return respond(StatusCode::BAD_REQUEST, response_buf());
    }
    let mut out = response_buf();
    let mut json = serde_json::Deserializer::from_slice(&body);
    if let Err(e) = OrderInto(&mut api.order).deserialize(&mut json) {
        write_json(&mut out, &format!("bad order: {e}"));
        return respond(StatusCode::BAD_REQUEST, out);
    }
    // A little work: totals, and the largest line.
    let items = api.order.items.as_slice();
    let units = items.iter().map(|i| u64::from(i.qty)).sum();
    let total_cents = items.iter().map(|i| u64::from(i.qty) * i.price_cents).sum();
    let largest_sku = items
        .iter()
        .max_by_key(|i| u64::from(i.qty) * i.price_cents)
        .map_or("", |i| i.sku.as_str());
    let receipt = Receipt {
        user: &api.order.user,
        path: &api.path,
        items: items.len(),
        units,
        total_cents,
        largest_sku,
        headers: api.headers.len(),
    };
    write_json(&mut out, &receipt);
    REQUESTS.fetch_add(1, Relaxed);
    respond(StatusCode::OK, out)
}

/// The response to an upload.
#[derive(serde::Serialize)]
struct UploadReceipt {
    bytes: usize,
    checksum: u64,
}

/// `POST /upload`: the body (at most 1 MiB), read into a buffer sized from
/// its `content-length`, and its checksum.
async fn upload(req: Request<Incoming>) -> Response<Body> {
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        .unwrap_or(0);
    if declared > UPLOAD_MAX {
        return respond(StatusCode::PAYLOAD_TOO_LARGE, response_buf());
    }
    let mut data = upload_buf(declared);
    let mut incoming = req.into_body();
    if read_body(&mut incoming, &mut data, UPLOAD_MAX)
        .await
        .is_err()
    {
        return respond(StatusCode::BAD_REQUEST, response_buf());
    }
    let receipt = UploadReceipt {
        bytes: data.len(),
        checksum: checksum(&data),
    };
    drop(data);
    let mut out = response_buf();
    write_json(&mut out, &receipt);
    REQUESTS.fetch_add(1, Relaxed);
    respond(StatusCode::OK, out)
}

fn stats() -> Response<Body> {
    let [gets, puts, retained, response_puts, buffers_held] = values::pool_counts();
    let report = ServerStats {
        requests: REQUESTS.load(Relaxed),
        allocations: ALLOCATIONS.load(Relaxed),
        peak_rss_kib: peak_rss_kib(),
        pooling: values::BUILT && std::env::var("POOLABLE").map_or(true, |v| v != "off"),
        pool_built: values::BUILT,
        request_pool_gets: gets,
        request_pool_puts: puts,
        request_pool_retained: retained,
        response_pool_puts: response_puts,
        buffers_held,
    };
    let mut out = response_buf();
    write_json(&mut out, &report);
    respond(StatusCode::OK, out)
}

/// `VmHWM` from `/proc/self/status`, in KiB (0 where there is none).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

async fn handle(req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    Ok(match (req.method(), req.uri().path()) {
        (&Method::POST, "/orders") => order(req).await,
        (&Method::POST, "/upload") => upload(req).await,
        (&Method::GET, "/stats") => stats(),
        _ => respond(StatusCode::NOT_FOUND, response_buf()),
    })
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    // The load generator and the scripts read the address from this line.
    println!("listening on {}", listener.local_addr()?);
    loop {
        // An accept can fail for the process, not the connection (out of
        // file descriptors, `EMFILE`): log it, wait for connections to
        // close, and go on serving.
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(handle))
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Order, String> {
        let mut order = Order::default();
        OrderInto(&mut order)
            .deserialize(&mut serde_json::Deserializer::from_str(json))
            .map_err(|e| e.to_string())?;
        Ok(order)
    }

    #[test]
    fn a_key_given_twice_is_an_error() {
        let order = parse(r#"{"user":"alice","items":[{"sku":"A","qty":1,"price_cents":5}]}"#)
            .expect("a good order");
        assert_eq!(order.user, "alice");
        let error = parse(r#"{"user":"alice","user":"mallory"}"#).err();
        assert!(error.is_some_and(|e| e.contains("duplicate field `user`")));
        let error = parse(r#"{"items":[{"sku":"B","sku":"C"}]}"#).err();
        assert!(error.is_some_and(|e| e.contains("duplicate field `sku`")));
        assert!(parse(r#"{"items":[],"items":[]}"#).is_err());
    }
}
