//! A request pipeline: one thread reads raw requests into pooled byte
//! buffers and sends them through a channel to 4 worker threads, which parse
//! each into a pooled `Request`, build a pooled `Response`, render it into
//! another pooled buffer and "send" it. Every value comes from a pool and
//! goes back to one, often from another thread than the one that took it.
//!
//! At the end it prints the throughput and each pool's statistics, checks
//! the pools' accounting, and runs two trims to show idle decay.
//!
//! Run with `cargo run --release --example server` (debug builds work too,
//! more slowly).

use poolable::{Pool, Poolable, Pooled, RecycleVec, Stats, trim_all};
use std::io::Write;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

const REQUESTS: usize = 200_000;
const WORKERS: usize = 4;
/// Every this many requests is an upload with a large body.
const UPLOAD_EVERY: usize = 5_000;
const UPLOAD_BYTES: usize = 200 << 10;

/// Requests queued between the reader and the workers.
const QUEUE: usize = 256;

/// Raw request bytes and rendered responses. A buffer that grew to 64 KiB
/// (an upload; the cap counts the `Vec` itself too) is dropped when it comes
/// back. Up to `QUEUE` raw buffers wait
/// in the channel at once, and each in-flight one comes back from a worker,
/// so the pool keeps that many idle buffers (plus slack). The default bound
/// would grow to that by itself (it adapts, up to 8 × 4 × CPUs × 8); setting
/// it makes it a fixed ceiling sized to the queue.
static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes(64 << 10).max_retained(2 * QUEUE);

/// A parsed request. Its pool keeps requests up to 16 KiB of buffers; the
/// upload requests, whose `body` holds 200 KiB, are dropped on return.
#[derive(Poolable, Default)]
#[poolable(max_bytes = 16 << 10)]
struct Request {
    method: String,
    path: String,
    /// The reset keeps the header strings (emptied) for the next request,
    /// 16 at most; a request with more shrinks back.
    #[poolable(max_capacity = 16)]
    headers: RecycleVec<(String, String)>,
    /// The bearer token: wiped, spare capacity included, on every return.
    #[poolable(zeroize)]
    token: Vec<u8>,
    body: Vec<u8>,
}

#[derive(Poolable, Default)]
struct Response {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

/// The synthetic request number `i`, written into a pooled buffer.
fn read_request(i: usize) -> Pooled<'static, Vec<u8>> {
    let mut raw = BUFS.get();
    let upload = i % UPLOAD_EVERY == UPLOAD_EVERY - 1;
    let method = if upload { "POST" } else { "GET" };
    write!(
        raw,
        "{method} /items/{i} HTTP/1.1\r\nhost: example.org\r\nauthorization: Bearer tok-{i:08x}\r\naccept: */*\r\n\r\n"
    )
    .expect("writing to a Vec cannot fail");
    if upload {
        let head = raw.len(); // (no two-phase borrow through `DerefMut`)
        raw.resize(head + UPLOAD_BYTES, b'u');
    }
    raw
}

/// Parse raw bytes into a pooled `Request`.
fn parse(raw: &[u8]) -> Pooled<'static, Request> {
    let mut req = Request::pool().get();
    // Whatever the previous user of this value left is gone.
    debug_assert!(req.path.is_empty() && req.token.is_empty() && req.body.is_empty());

    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a request has a blank line");
    let head = std::str::from_utf8(&raw[..split]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let mut start = lines.next().expect("a request line").split(' ');
    req.method.push_str(start.next().expect("a method"));
    req.path.push_str(start.next().expect("a path"));
    for line in lines {
        let (name, value) = line.split_once(": ").expect("a header line");
        if name == "authorization" {
            let token = value.strip_prefix("Bearer ").unwrap_or(value);
            req.token.extend_from_slice(token.as_bytes());
        } else {
            let (kept_name, kept_value) = req.headers.push_reset();
            kept_name.push_str(name);
            kept_value.push_str(value);
        }
    }
    req.body.extend_from_slice(&raw[split + 4..]);
    req
}

fn handle(req: &Request) -> Pooled<'static, Response> {
    let mut resp = Response::pool().get();
    debug_assert!(resp.headers.is_empty() && resp.body.is_empty());
    if req.token.is_empty() {
        resp.status = 401;
        return resp;
    }
    resp.status = if req.method == "POST" { 201 } else { 200 };
    resp.headers.push(("content-type", "text/plain".to_owned()));
    resp.body.push_str("item ");
    resp.body
        .push_str(req.path.rsplit('/').next().unwrap_or(""));
    if !req.body.is_empty() {
        resp.body
            .push_str(&format!(" stored ({} bytes)", req.body.len()));
    }
    resp
}

/// Render a response into a pooled buffer; returns the bytes "sent".
fn send(resp: &Response) -> usize {
    let mut out = BUFS.get();
    write!(out, "HTTP/1.1 {}\r\n", resp.status).expect("in-memory write");
    for (name, value) in &resp.headers {
        write!(out, "{name}: {value}\r\n").expect("in-memory write");
    }
    write!(
        out,
        "content-length: {}\r\n\r\n{}",
        resp.body.len(),
        resp.body
    )
    .expect("in-memory write");
    out.len()
}

fn worker(queue: &Mutex<Receiver<Pooled<'static, Vec<u8>>>>) -> (usize, usize) {
    let (mut handled, mut bytes) = (0, 0);
    loop {
        // Hold the lock only to receive, not while handling.
        let received = queue.lock().expect("no worker panics").recv();
        let Ok(raw) = received else { break };
        let req = parse(&raw);
        drop(raw); // the raw buffer goes back as soon as it is parsed
        let resp = handle(&req);
        bytes += send(&resp);
        handled += 1;
    } // `req` and `resp` return to their pools at the end of each iteration
    (handled, bytes)
}

fn print_stats(name: &str, s: &Stats) {
    println!(
        "  {name:<9} gets={:>7} hit_rate={:>6.2}% misses={:>4} retained={:>3} ({:>6} B) \
         dropped: oversize={} full={} panic={} idle={}",
        s.gets,
        s.hit_rate() * 100.0,
        s.misses,
        s.retained,
        s.retained_bytes,
        s.dropped_oversize,
        s.dropped_full,
        s.dropped_panic,
        s.dropped_idle,
    );
}

/// Every value these pools created has ended somewhere: retained, or
/// dropped for a counted reason (none is held any more, none was detached).
fn check_accounting(name: &str, s: &Stats) {
    let ended = s.retained as u64
        + s.dropped_oversize
        + s.dropped_full
        + s.dropped_panic
        + s.dropped_idle
        + s.detached;
    assert_eq!(s.misses, ended, "{name}: accounting does not add up: {s}");
}

fn main() {
    let (tx, rx) = sync_channel::<Pooled<'static, Vec<u8>>>(QUEUE);
    let queue = Arc::new(Mutex::new(rx));
    let start = Instant::now();

    let workers: Vec<_> = (0..WORKERS)
        .map(|n| {
            let queue = Arc::clone(&queue);
            thread::Builder::new()
                .name(format!("worker-{n}"))
                .spawn(move || worker(&queue))
                .expect("spawn a worker")
        })
        .collect();

    // This thread is the reader: it takes buffers that the workers return.
    for i in 0..REQUESTS {
        tx.send(read_request(i)).expect("the workers are running");
    }
    drop(tx); // no more requests: the workers finish the queue and exit

    let (mut handled, mut bytes) = (0, 0);
    for w in workers {
        let (h, b) = w.join().expect("a worker panicked");
        handled += h;
        bytes += b;
    }
    let elapsed = start.elapsed();
    assert_eq!(handled, REQUESTS);

    println!(
        "{handled} requests by {WORKERS} workers in {:.1} ms: {:.0} requests/s, {} response bytes",
        elapsed.as_secs_f64() * 1e3,
        handled as f64 / elapsed.as_secs_f64(),
        bytes
    );

    let pools = [
        ("BUFS", BUFS.stats()),
        ("Request", Request::pool().stats()),
        ("Response", Response::pool().stats()),
    ];
    println!("pool stats after the run:");
    for (name, s) in &pools {
        print_stats(name, s);
        check_accounting(name, s);
    }
    let uploads = (REQUESTS / UPLOAD_EVERY) as u64;
    // Each upload's raw buffer and its parsed request were too large to keep.
    assert_eq!(pools[0].1.dropped_oversize, uploads);
    assert_eq!(pools[1].1.dropped_oversize, uploads);

    // Idle decay: two trims drop everything that stayed idle across both.
    trim_all();
    trim_all();
    println!("after two trims:");
    for (name, s) in [
        ("BUFS", BUFS.stats()),
        ("Request", Request::pool().stats()),
        ("Response", Response::pool().stats()),
    ] {
        print_stats(name, &s);
        check_accounting(name, &s);
        assert_eq!(s.retained, 0, "{name}: idle values survived two trims");
    }
}
