use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(crate = poolable)]
struct Request {
    body: String,
}

fn main() {}
