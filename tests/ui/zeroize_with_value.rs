use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(zeroize = true)]
    secret: Vec<u8>,
}

fn main() {}
