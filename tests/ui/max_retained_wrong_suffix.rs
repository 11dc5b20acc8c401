use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_retained = 10u8)]
struct Request {
    body: String,
}

fn main() {}
