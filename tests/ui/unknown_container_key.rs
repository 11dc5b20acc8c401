use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_retain = 10)]
struct Request {
    body: String,
}

fn main() {}
