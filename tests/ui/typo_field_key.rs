use poolable::Poolable;

#[derive(Poolable, Default)]
struct Session {
    #[poolable(zeroise)]
    password: Vec<u8>,
}

fn main() {}
