//! An open-loop load generator for `http_service`, as wrk2 does it: requests
//! are sent at a fixed rate on a schedule, and each one's latency is measured
//! from the time it was *scheduled*, so a server stall shows up in the
//! figures instead of silently delaying the next send (coordinated
//! omission). Latencies go into an HdrHistogram.
//!
//! ```sh
//! loadgen <addr> --rate 4000 --seconds 5 [--connections 32] [--json]
//! loadgen <addr> --smoke     # a few hundred requests, checked, for CI
//! loadgen <addr> --upload --rate 100 --seconds 5   # POST /upload instead
//! loadgen <addr> --count 1000 --rate 500           # 1000 requests, then stop
//! ```
//!
//! `--upload` sends `POST /upload` bodies of 16 KiB to 1 MiB instead of
//! orders, their sizes uniform and the same from run to run (a fixed seed);
//! the smoke check then checks the checksum. `--count N` sends the first `N`
//! requests of the schedule (`--seconds` is then `N / rate`).
//!
//! It prints p50, p90, p99, p99.9 and max, throughput and errors, and from
//! the server's `GET /stats` before and after the run, its allocations per
//! request and peak RSS.

use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use poolable_examples::{ServerStats, checksum, order_json, upload_bytes, upload_size};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::Instant;

type Sender = http1::SendRequest<Full<Bytes>>;

struct Args {
    addr: String,
    rate: f64,
    seconds: f64,
    connections: usize,
    json: bool,
    smoke: bool,
    upload: bool,
}

/// The longest run `--seconds` (or `--count` over `--rate`) may ask for.
const MAX_SECONDS: f64 = 1e6;

/// How long a request may take before it counts as an error and its
/// connection is replaced (a stalled server must not stall the run).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The arguments after the program's name.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        addr: args.next().ok_or(
            "usage: loadgen <addr> [--rate R] [--seconds S | --count N] [--connections C] [--upload] [--json] [--smoke]",
        )?,
        rate: 1000.0,
        seconds: 5.0,
        connections: 32,
        json: false,
        smoke: false,
        upload: false,
    };
    let mut count = None;
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--rate" => parsed.rate = number("--rate", args.next())?,
            "--seconds" => parsed.seconds = number("--seconds", args.next())?,
            "--connections" => parsed.connections = whole("--connections", args.next())?,
            "--count" => count = Some(whole("--count", args.next())?),
            "--json" => parsed.json = true,
            "--smoke" => parsed.smoke = true,
            "--upload" => parsed.upload = true,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if parsed.smoke {
        (parsed.rate, parsed.seconds, parsed.connections) = (200.0, 1.5, 4);
    }
    if let Some(count) = count {
        // Just under `count / rate`, so that request `count` is not sent.
        parsed.seconds = (count as f64 - 0.5) / parsed.rate;
    }
    if parsed.seconds > MAX_SECONDS {
        return Err(format!(
            "a run of {:.3e} s is longer than {MAX_SECONDS:.0e} s",
            parsed.seconds
        ));
    }
    Ok(parsed)
}

/// A flag's value: a finite number over 0.
fn number(name: &str, value: Option<String>) -> Result<f64, String> {
    value
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or(format!("{name} takes a positive number"))
}

/// A flag's value: a whole number of at least 1.
fn whole(name: &str, value: Option<String>) -> Result<usize, String> {
    value
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|v| *v > 0)
        .ok_or(format!("{name} takes a whole number of at least 1"))
}

/// When request `k` is due: `start + k / rate`; `None` past any `Instant`.
fn scheduled(start: Instant, k: usize, rate: f64) -> Option<Instant> {
    start.checked_add(Duration::try_from_secs_f64(k as f64 / rate).ok()?)
}

async fn connect(addr: &str) -> Result<Sender, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(conn);
    Ok(sender)
}

/// Send one request; the status and the body.
async fn send(
    sender: &mut Sender,
    request: Request<Full<Bytes>>,
) -> Result<(StatusCode, Bytes), String> {
    sender.ready().await.map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((status, body))
}

async fn server_stats(addr: &str) -> Result<ServerStats, String> {
    let mut sender = connect(addr).await?;
    let request = Request::get("/stats")
        .header("host", addr)
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    let (status, body) = send(&mut sender, request).await?;
    if status != StatusCode::OK {
        return Err(format!("/stats answered {status}"));
    }
    serde_json::from_slice(&body).map_err(|e| format!("/stats: {e}"))
}

/// What one connection saw.
struct Outcome {
    latencies: Histogram<u64>,
    ok: u64,
    errors: u64,
    /// The first response body and its request's index, for the smoke
    /// check.
    sample: Option<(u64, Bytes)>,
}

/// Connection `index` of `connections` sends requests `index`,
/// `index + connections`, ... of the schedule, each at `start + k / rate`.
async fn connection(
    addr: String,
    index: usize,
    connections: usize,
    rate: f64,
    start: Instant,
    end: Instant,
    uploads: Option<Bytes>,
) -> Result<Outcome, String> {
    // A connection lost (the server gone, a request timed out) is replaced
    // before the next request; while it cannot be, each request due is an
    // error, so the run still ends on schedule with what it measured.
    let mut sender = connect(&addr).await.ok();
    let mut outcome = Outcome {
        latencies: Histogram::new_with_bounds(1, 60_000_000, 3).map_err(|e| e.to_string())?,
        ok: 0,
        errors: 0,
        sample: None,
    };
    let mut body = String::new();
    for k in (index..).step_by(connections) {
        let Some(scheduled) = scheduled(start, k, rate).filter(|&at| at < end) else {
            break;
        };
        tokio::time::sleep_until(scheduled).await;
        let request = match &uploads {
            Some(bytes) => Request::post("/upload")
                .header("host", &addr)
                .header("content-type", "application/octet-stream")
                .body(Full::new(bytes.slice(..upload_size(k as u64)))),
            None => {
                order_json(&mut body, k as u64, 5);
                Request::post("/orders")
                    .header("host", &addr)
                    .header("content-type", "application/json")
                    .body(Full::new(Bytes::copy_from_slice(body.as_bytes())))
            }
        }
        .map_err(|e| e.to_string())?;
        if sender.is_none() {
            sender = connect(&addr).await.ok();
        }
        let answer = match sender.as_mut() {
            Some(sender) => tokio::time::timeout(REQUEST_TIMEOUT, send(sender, request))
                .await
                .unwrap_or_else(|_| Err("timed out".into())),
            None => Err("no connection".into()),
        };
        match answer {
            Ok((StatusCode::OK, body)) => {
                outcome.ok += 1;
                outcome.sample.get_or_insert((k as u64, body));
            }
            Ok(_) => outcome.errors += 1,
            Err(_) => {
                outcome.errors += 1;
                sender = None;
            }
        }
        // From the scheduled send, not the actual one (coordinated omission).
        let micros = scheduled.elapsed().as_micros().max(1) as u64;
        let _ = outcome.latencies.record(micros.min(60_000_000));
    }
    Ok(outcome)
}

async fn run(args: Args) -> Result<(), String> {
    let before = server_stats(&args.addr).await?;
    let start = Instant::now() + Duration::from_millis(50);
    let end = start + Duration::from_secs_f64(args.seconds);
    // Every upload body is a prefix of the same bytes (no copy per request).
    let uploads = args.upload.then(|| Bytes::from(upload_bytes(1)));
    let tasks: Vec<_> = (0..args.connections)
        .map(|i| {
            tokio::spawn(connection(
                args.addr.clone(),
                i,
                args.connections,
                args.rate,
                start,
                end,
                uploads.clone(),
            ))
        })
        .collect();
    let mut latencies =
        Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).map_err(|e| e.to_string())?;
    let (mut ok, mut errors, mut sample) = (0, 0, None);
    for task in tasks {
        let outcome = task.await.map_err(|e| e.to_string())??;
        latencies
            .add(&outcome.latencies)
            .map_err(|e| e.to_string())?;
        ok += outcome.ok;
        errors += outcome.errors;
        sample = sample.or(outcome.sample);
    }
    let elapsed = start.elapsed().as_secs_f64();
    // The server may be gone: the run's own figures are printed all the
    // same, then the error.
    let after = server_stats(&args.addr).await;
    let server = after.as_ref().ok();
    let allocs_per_request = server.map(|after| {
        let served = after.requests.saturating_sub(before.requests).max(1);
        after.allocations.saturating_sub(before.allocations) as f64 / served as f64
    });
    let q = |quantile: f64| latencies.value_at_quantile(quantile) as f64 / 1000.0;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "rate": args.rate,
                "seconds": args.seconds,
                "connections": args.connections,
                "ok": ok,
                "errors": errors,
                "throughput": ok as f64 / elapsed,
                "p50_ms": q(0.50),
                "p90_ms": q(0.90),
                "p99_ms": q(0.99),
                "p999_ms": q(0.999),
                "max_ms": latencies.max() as f64 / 1000.0,
                "allocs_per_request": allocs_per_request,
                "peak_rss_kib": server.map(|after| after.peak_rss_kib),
                "pooling": server.map(|after| after.pooling),
            })
        );
    } else {
        println!(
            "rate {:.0}/s for {:.1}s over {} connections: {ok} ok, {errors} errors, {:.0} req/s",
            args.rate,
            args.seconds,
            args.connections,
            ok as f64 / elapsed
        );
        println!(
            "latency (from the scheduled send): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, p99.9 {:.3} ms, max {:.3} ms",
            q(0.50),
            q(0.90),
            q(0.99),
            q(0.999),
            latencies.max() as f64 / 1000.0
        );
        if let (Some(after), Some(allocs)) = (server, allocs_per_request) {
            println!(
                "server: {allocs:.2} allocations per request, peak RSS {} KiB, pooling {}",
                after.peak_rss_kib,
                if after.pooling { "on" } else { "off" }
            );
        }
    }
    let after = after?;
    if args.smoke {
        smoke_check(ok, errors, sample.as_ref(), uploads.as_ref(), &after)?;
        println!("smoke: ok");
    }
    Ok(())
}

/// Every request answered, the receipt right (for an upload, its size and
/// checksum), every request and upload body buffer back in its pool, and
/// with pooling on, every pooled request struct and response buffer too.
fn smoke_check(
    ok: u64,
    errors: u64,
    sample: Option<&(u64, Bytes)>,
    uploads: Option<&Bytes>,
    after: &ServerStats,
) -> Result<(), String> {
    if errors > 0 || ok < 100 {
        return Err(format!("smoke: {ok} ok, {errors} errors"));
    }
    if after.buffers_held != 0 {
        return Err(format!(
            "smoke: {} request or upload body buffers not returned",
            after.buffers_held
        ));
    }
    let (k, sample) = sample.ok_or("smoke: no response")?;
    let receipt: serde_json::Value = serde_json::from_slice(sample).map_err(|e| e.to_string())?;
    if let Some(bytes) = uploads {
        let sent = &bytes[..upload_size(*k)];
        if receipt["bytes"] != sent.len() || receipt["checksum"] != checksum(sent) {
            return Err(format!("smoke: unexpected upload receipt {receipt}"));
        }
        if after.pooling && after.response_pool_puts < ok {
            return Err(format!("smoke: pooled values did not come back: {after:?}"));
        }
        return Ok(());
    }
    if receipt["items"] != 5
        || receipt["units"] != 1 + 2 + 3 + 4 + 1
        || receipt["path"] != "/orders"
    {
        return Err(format!("smoke: unexpected receipt {receipt}"));
    }
    if after.request_pool_gets != after.request_pool_puts {
        return Err(format!(
            "smoke: {} request structs out of {} not returned",
            after.request_pool_gets - after.request_pool_puts,
            after.request_pool_gets
        ));
    }
    if after.pooling && (after.request_pool_retained == 0 || after.response_pool_puts < ok) {
        return Err(format!("smoke: pooled values did not come back: {after:?}"));
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let result = match parse_args(std::env::args().skip(1)) {
        Ok(args) => run(args).await,
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        eprintln!("loadgen: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schedule past any `Instant` (`--rate 1e-300`) ends the run; it
    /// panicked in a worker.
    #[test]
    fn a_request_due_past_any_clock_is_not_scheduled() {
        let start = Instant::now();
        assert_eq!(scheduled(start, 0, 1e-300), Some(start));
        assert_eq!(scheduled(start, 1, 1e-300), None);
        assert_eq!(
            scheduled(start, 3, 2.0),
            Some(start + Duration::from_millis(1500))
        );
    }
}
