use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_retained = 10)]
#[poolable(max_retained = 20)]
struct Request {
    body: String,
}

fn main() {}
