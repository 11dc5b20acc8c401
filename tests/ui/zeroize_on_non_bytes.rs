use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(zeroize)]
    ids: Vec<u32>,
}

fn main() {}
