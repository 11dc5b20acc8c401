use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_bytes = -1)]
struct Request {
    body: String,
}

fn main() {}
