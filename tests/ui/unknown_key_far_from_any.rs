use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(frobnicate = 3)]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
