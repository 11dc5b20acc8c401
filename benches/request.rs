//! Workload 5: a derived request struct filled like a parsed HTTP request,
//! in two shapes: `request` (headers in a `Vec<(String, String)>`, query in
//! an `Option<String>`: each reset frees the strings) and `recycled`
//! (`RecycleVec` and `RecycleOption`: each reset keeps them).

mod support {
    #[macro_use]
    pub mod contenders;
    pub mod harness;
    pub mod request;
    pub mod run;
    pub mod timing;
}

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use support::contenders::{CAP, Contenders, Kind};
use support::request::{RecycledRequest, Request, request, request_recycled};
use support::timing::bench_kinds;

fn requests(c: &mut Criterion) {
    let peers = Contenders::new(Request::pool(), Request::default, CAP);
    let mut g = c.benchmark_group("5_request");
    g.throughput(Throughput::Elements(1));
    bench_kinds(&mut g, "request", &peers, &Kind::ALL, request);
    let recycled = Contenders::new(RecycledRequest::pool(), RecycledRequest::default, CAP);
    bench_kinds(&mut g, "recycled", &recycled, &Kind::ALL, request_recycled);
    g.finish();
}

criterion_group! {
    name = benches;
    config = support::harness::criterion();
    targets = requests
}
criterion_main!(benches);
