use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_retained = "10")]
struct Request {
    body: String,
}

fn main() {}
