use poolable::Poolable;

#[derive(Poolable, Default)]
struct Session {
    #[poolable(zeroize)]
    token: Vec<u8>,
}

impl Drop for Session {
    fn drop(&mut self) {}
}

fn main() {}
