use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(crate = "not a path!")]
struct Request {
    body: String,
}

fn main() {}
