//! A `static` pool of byte buffers used through `std::io::Write`, with the
//! size cap at work: the one oversized buffer is dropped on return instead of
//! staying resident.
//!
//! Run with `cargo run --example std_buffers`.

use poolable::Pool;
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// Scratch buffers for rendering responses. A buffer that has grown to
/// 64 KiB (its capacity plus the `Vec` itself over the cap) is dropped when
/// it comes back, so one huge response cannot keep a huge allocation in the
/// pool.
static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes(64 << 10);

/// Log lines, formatted with `std::fmt::Write`.
static LINES: Pool<String> = Pool::new();

/// Any `io::Write` will do: a file, a socket, a `Vec<u8>`, or a pooled guard.
fn render(out: &mut impl Write, id: usize, items: &[&str]) -> io::Result<()> {
    write!(out, "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")?;
    writeln!(out, "order {id}")?;
    for item in items {
        writeln!(out, "- {item}")?;
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let mut sink = io::sink(); // stands in for a socket
    let mut sent = 0_usize;

    // 1. Many small responses, each rendered into a pooled buffer.
    for id in 0..10_000 {
        let mut buf = BUFS.get();
        render(&mut buf, id, &["apple", "fig"])?; // `Pooled<Vec<u8>>: io::Write`
        sink.write_all(&buf)?;
        sent += buf.len();
    } // each buffer is cleared (capacity kept) and returned here

    // 2. Fill a buffer from a reader: `io::copy` writes into the guard.
    {
        let mut buf = BUFS.get();
        let copied = io::copy(&mut io::repeat(b'x').take(4096), &mut buf)?;
        assert_eq!(copied, 4096);
        sent += buf.len();
    }

    // 3. One large response: a small header buffer and a 1 MiB body buffer.
    let big_capacity = {
        let mut head = BUFS.get();
        let mut body = BUFS.get();
        io::copy(&mut io::repeat(b'z').take(1 << 20), &mut body)?;
        write!(
            head,
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )?;
        sink.write_all(&head)?;
        sink.write_all(&body)?;
        sent += head.len() + body.len();
        body.capacity()
    }; // `head` is kept; `body` grew past the cap and is dropped, not retained.

    // 4. Log lines through `fmt::Write`.
    let mut line = LINES.get();
    write!(line, "sent {sent} bytes").map_err(io::Error::other)?; // `Pooled<String>: fmt::Write`
    println!("{}", *line);
    drop(line);

    let stats = BUFS.stats();
    println!("BUFS  {stats}");
    println!("LINES {}", LINES.stats());
    println!(
        "the 1 MiB buffer (capacity {big_capacity}) was dropped on return: dropped_oversize = {}",
        stats.dropped_oversize
    );
    println!(
        "retained: {} buffer(s), {} bytes (at most 64 KiB each)",
        stats.retained, stats.retained_bytes
    );

    assert_eq!(
        stats.dropped_oversize, 1,
        "the 1 MiB buffer must be dropped"
    );
    assert!(stats.retained >= 1, "the small buffers stay pooled");
    assert!(
        stats.hit_rate() > 0.99,
        "small buffers must be reused: {stats}"
    );
    // Nothing larger than the cap is kept.
    assert!(BUFS.get().capacity() <= 64 << 10);
    Ok(())
}
