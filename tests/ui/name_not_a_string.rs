use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(name = uploads)]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
