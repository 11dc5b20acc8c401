use poolable::Poolable;
use std::time::Instant;

#[derive(Poolable, Default)]
struct Request {
    body: String,
    started: Instant,
}

fn main() {}
