//! The dirty-object trap of Go's `sync.Pool`, made impossible.
//!
//! In Go, a pooled request that is not reset by hand carries the previous
//! user's data into the next request (`user=ada secret=hunter2`). Here the
//! reset is derived, exhaustive, and runs every time a value goes back.
//!
//! Run with `cargo run --example quickstart`.

use poolable::{Poolable, Pooled, RecycleVec};

#[derive(Poolable, Default, Debug)]
#[poolable(max_bytes = 64 << 10)]
struct Request {
    user: String,
    #[poolable(zeroize)]
    secret: Vec<u8>,
    /// Reset keeps the header strings, emptied, for the next request.
    headers: RecycleVec<(String, String)>,
    trace_id: Option<u64>,
    retries: u8,
}

fn handle(user: &str, secret: Option<&str>) -> (usize, String) {
    let mut req = Request::pool().get();
    // Whatever the previous user left is gone before we see the value.
    assert!(req.user.is_empty() && req.secret.is_empty() && req.headers.is_empty());
    assert_eq!((req.trace_id, req.retries), (None, 0));

    req.user.push_str(user);
    if let Some(secret) = secret {
        req.secret.extend_from_slice(secret.as_bytes());
    }
    let (name, value) = req.headers.push_reset();
    name.push_str("x-user");
    value.push_str(user);
    req.trace_id = Some(42);
    let line = format!(
        "user={} secret={}",
        req.user,
        String::from_utf8_lossy(&req.secret)
    );
    let buffer = req.user.as_ptr() as usize;
    drop(req); // reset (the secret's whole buffer zeroed) and returned to the pool
    (buffer, line)
}

fn main() {
    let (first_buf, first) = handle("ada", Some("hunter2"));
    let (second_buf, second) = handle("bob", None);
    println!("request 1: {first}");
    println!("request 2: {second}");
    assert_eq!(
        second, "user=bob secret=",
        "the second request saw the first one's secret"
    );

    println!(
        "same `user` buffer reused: {}",
        if first_buf == second_buf { "yes" } else { "no" }
    );

    // A value taken out for good never returns to the pool.
    let kept = Pooled::into_inner(Request::pool().get());
    drop(kept);

    println!("pool stats: {}", Request::pool().stats());
}
