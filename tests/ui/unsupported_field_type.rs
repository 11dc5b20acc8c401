use poolable::Poolable;
use std::time::Instant;

#[derive(Poolable)]
#[poolable(new = Request::new)]
struct Request {
    body: String,
    started: Instant,
}

impl Request {
    fn new() -> Self {
        Request {
            body: String::new(),
            started: Instant::now(),
        }
    }
}

fn main() {}
