//! Workload 5: a derived request struct filled like a parsed HTTP request,
//! in two shapes: `Request` (headers in a `Vec<(String, String)>`, query in
//! an `Option<String>`: each reset frees the strings) and `RecycledRequest`
//! (`RecycleVec` and `RecycleOption`: each reset keeps them).

use poolable::{Poolable, RecycleOption, RecycleVec};
use std::hint::black_box;

/// A parsed HTTP request.
#[derive(Poolable, Default)]
pub struct Request {
    pub id: u64,
    pub body: String,
    pub headers: Vec<(String, String)>,
    pub query: Option<String>,
}

item!(derived Request);

/// The same request, with headers whose strings and a query whose buffer
/// survive the reset (`RecycleVec`, `RecycleOption`).
#[derive(Poolable, Default)]
pub struct RecycledRequest {
    pub id: u64,
    pub body: String,
    pub headers: RecycleVec<(String, String)>,
    pub query: RecycleOption<String>,
}

item!(derived RecycledRequest);

const BODY: &str = r#"{"user":"ada","action":"checkout","cart":[{"sku":"A-1001","qty":2},{"sku":"B-2002","qty":1},{"sku":"C-3003","qty":5}],"coupon":null,"note":"leave at the door, ring twice","ts":1767225600}"#;
const HEADERS: [(&str, &str); 6] = [
    ("host", "api.example.com"),
    ("user-agent", "bench-client/1.0"),
    ("accept", "application/json"),
    ("content-type", "application/json"),
    ("content-length", "196"),
    ("x-request-id", "7f3c2a9e-5b1d-4c8e-9a0f-2d6b8e1c4f7a"),
];

/// 5: fill a `Request` as an HTTP parser would.
#[inline(never)]
pub fn request(r: &mut Request, i: u64) {
    r.id = i;
    r.body.push_str(BODY);
    r.headers
        .extend(HEADERS.iter().map(|&(k, v)| (k.to_owned(), v.to_owned())));
    r.query = Some("page=2&sort=asc".to_owned());
    black_box(&*r);
}

/// 5, recycled: the same fields filled into the elements the previous
/// request left (a fresh one allocates as `request` does).
#[inline(never)]
pub fn request_recycled(r: &mut RecycledRequest, i: u64) {
    r.id = i;
    r.body.push_str(BODY);
    for &(k, v) in &HEADERS {
        let (name, value) = r.headers.push_reset();
        name.push_str(k);
        value.push_str(v);
    }
    r.query.get_or_insert_reset().push_str("page=2&sort=asc");
    black_box(&*r);
}
