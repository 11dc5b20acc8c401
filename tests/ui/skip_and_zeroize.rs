use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(skip, zeroize)]
    secret: Vec<u8>,
}

fn main() {}
