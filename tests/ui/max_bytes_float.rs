use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_bytes = 1.5)]
struct Request {
    body: String,
}

fn main() {}
