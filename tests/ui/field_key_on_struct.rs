use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(skip)]
struct Request {
    body: String,
}

fn main() {}
