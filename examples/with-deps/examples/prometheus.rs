//! Serve every pool's stats on a Prometheus endpoint: the `metrics` feature
//! exports them through the `metrics` facade, and `metrics-exporter-prometheus`
//! renders the text format. The example serves one scrape, fetches it
//! itself, prints the poolable lines, and exits.
//!
//! Run with `cargo run -p poolable-examples --example prometheus`.

use metrics_exporter_prometheus::PrometheusBuilder;
use poolable::{BufferPool, Pool, Poolable};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

#[derive(Poolable, Default)]
#[poolable(name = "requests")]
struct Request {
    path: String,
    body: Vec<u8>,
}

static SCRATCH: Pool<Vec<u8>> = Pool::new().name("scratch");
static BODIES: BufferPool = BufferPool::new().name("bodies");

fn main() -> std::io::Result<()> {
    let handle = PrometheusBuilder::new()
        .install_recorder()
        .expect("no other recorder is installed");

    // Some traffic.
    for i in 0..1000_usize {
        let mut req = Request::pool().get();
        req.path.push_str("/items");
        req.body.extend_from_slice(&i.to_le_bytes());
        SCRATCH.get().extend_from_slice(b"scratch");
        drop(BODIES.get(if i % 10 == 0 { 20_000 } else { 300 }));
    }

    // The endpoint: export on each scrape (pull-based, off the pools' paths).
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let server = std::thread::spawn(move || -> std::io::Result<()> {
        let (mut stream, _) = listener.accept()?;
        let mut request_line = String::new();
        BufReader::new(&mut stream).read_line(&mut request_line)?;
        poolable::export_metrics();
        let body = handle.render();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    });

    // A scrape.
    let mut client = TcpStream::connect(addr)?;
    client.write_all(b"GET /metrics HTTP/1.1\r\nhost: localhost\r\n\r\n")?;
    let mut response = String::new();
    client.read_to_string(&mut response)?;
    server.join().expect("the server thread")?;

    let lines: Vec<&str> = response
        .lines()
        .filter(|line| {
            line.starts_with("poolable_gets_total") || line.starts_with("poolable_retained{")
        })
        .collect();
    for line in &lines {
        println!("{line}");
    }
    assert!(lines.iter().any(|l| l.contains("pool=\"requests\"")));
    assert!(lines.iter().any(|l| l.contains("pool=\"bodies[512]\"")));
    Ok(())
}
