//! A pooled struct of nested data (a `RecycleVec` of header pairs, a
//! `RecycleOption` string) allocates nothing in steady state, where the same
//! struct with `Vec` and `Option` allocates on every request. Its own test
//! binary, because it installs a counting `#[global_allocator]`.

mod common {
    pub mod counting_alloc;
}

use common::counting_alloc::count_allocs;
use poolable::{Poolable, RecycleOption, RecycleVec};
use std::hint::black_box;

const HEADERS: [(&str, &str); 8] = [
    ("host", "example.org"),
    ("user-agent", "poolable-test/1.0"),
    ("accept", "text/html,application/json"),
    ("accept-language", "en-GB,en;q=0.9"),
    ("authorization", "Bearer hunter2hunter2"),
    ("cookie", "session=0123456789abcdef"),
    ("content-type", "application/json"),
    ("x-request-id", "7f3c2a1b-9d4e"),
];
const QUERY: &str = "user=ada&page=2&sort=name";
const BODY: &str = r#"{"name":"ada","roles":["admin","ops"]}"#;

const WARM_UP_OPS: usize = 1_000;
const MEASURED_OPS: usize = 50_000;

#[derive(Poolable, Default)]
struct Request {
    headers: RecycleVec<(String, String)>,
    query: RecycleOption<String>,
    body: String,
}

/// Request `i` of a steady load: between 1 and 8 headers, a query on every
/// other request, so that spares are taken and left in varying numbers.
fn fill(req: &mut Request, i: usize) {
    for (name, value) in &HEADERS[..1 + i % HEADERS.len()] {
        let (n, v) = req.headers.push_reset();
        n.push_str(name);
        v.push_str(value);
    }
    if i.is_multiple_of(2) {
        req.query.get_or_insert_reset().push_str(QUERY);
    }
    req.body.push_str(BODY);
}

#[test]
fn the_counting_allocator_counts() {
    let (boxed, allocs, size) = count_allocs(|| black_box(Box::new(7_u64)));
    assert_eq!((allocs, size), (1, 8));
    drop(boxed);
    let ((), allocs, _) = count_allocs(|| ());
    assert_eq!(allocs, 0);
}

#[test]
fn nested_recycled_fields_allocate_nothing_in_steady_state() {
    let once = |i| {
        let mut req = Request::pool().get();
        assert!(req.headers.is_empty() && req.query.is_none() && req.body.is_empty());
        fill(&mut req, i);
        black_box(&*req);
    };
    // Every header count, so every pair and string reaches its full size.
    for i in 0..WARM_UP_OPS {
        once(i);
    }
    let ((), allocs, last) = count_allocs(|| {
        for i in 0..MEASURED_OPS {
            once(i);
        }
    });
    assert_eq!(
        allocs, 0,
        "{allocs} allocations (the last of {last} B) in {MEASURED_OPS} requests"
    );
    let stats = Request::pool().stats();
    assert_eq!(stats.misses, 1, "{stats}");
}

#[derive(Poolable, Default)]
struct PlainRequest {
    headers: Vec<(String, String)>,
    query: Option<String>,
    body: String,
}

/// The control: with `Vec` and `Option` the pool keeps the vector's buffer
/// and the body, but every header string and every query is allocated anew.
#[test]
fn plain_vec_and_option_fields_allocate_on_every_request() {
    let once = |i: usize| {
        let mut req = PlainRequest::pool().get();
        for (name, value) in &HEADERS[..1 + i % HEADERS.len()] {
            req.headers.push((name.to_string(), value.to_string()));
        }
        if i.is_multiple_of(2) {
            req.query = Some(QUERY.to_string());
        }
        req.body.push_str(BODY);
        black_box(&*req);
    };
    for i in 0..WARM_UP_OPS {
        once(i);
    }
    let ((), allocs, _) = count_allocs(|| {
        for i in 0..MEASURED_OPS {
            once(i);
        }
    });
    assert!(
        allocs >= MEASURED_OPS as u64 * 2,
        "{allocs} allocations in {MEASURED_OPS} requests"
    );
}
