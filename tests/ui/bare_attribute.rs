use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable]
    body: String,
}

fn main() {}
