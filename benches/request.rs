//! Workload 5: a derived request struct filled like a parsed HTTP request.

#[path = "support/mod.rs"]
pub mod support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use poolable::Poolable;
use support::{CAP, Contenders, Kind, Request, work};

fn request(c: &mut Criterion) {
    let peers = Contenders::new(Request::pool(), Request::default, CAP);
    let mut g = c.benchmark_group("5_request");
    g.throughput(Throughput::Elements(1));
    support::bench_kinds(&mut g, "request", &peers, &Kind::ALL, work::request);
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = request
}
criterion_main!(benches);
