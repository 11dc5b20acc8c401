use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(skipp)]
    body: String,
}

fn main() {}
