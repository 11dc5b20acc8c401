//! Workload 5: a derived request struct filled like a parsed HTTP request,
//! in two shapes: `request` (headers in a `Vec<(String, String)>`, query in
//! an `Option<String>`: each reset frees the strings) and `recycled`
//! (`RecycleVec` and `RecycleOption`: each reset keeps them).

#[path = "support/mod.rs"]
pub mod support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use poolable::Poolable;
use support::{CAP, Contenders, Kind, RecycledRequest, Request, work};

fn request(c: &mut Criterion) {
    let peers = Contenders::new(Request::pool(), Request::default, CAP);
    let mut g = c.benchmark_group("5_request");
    g.throughput(Throughput::Elements(1));
    support::bench_kinds(&mut g, "request", &peers, &Kind::ALL, work::request);
    let recycled = Contenders::new(RecycledRequest::pool(), RecycledRequest::default, CAP);
    support::bench_kinds(
        &mut g,
        "recycled",
        &recycled,
        &Kind::ALL,
        work::request_recycled,
    );
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = request
}
criterion_main!(benches);
