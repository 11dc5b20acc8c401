use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_bytes = 100_000_000_000_000_000_000)]
struct Request {
    body: String,
}

fn main() {}
