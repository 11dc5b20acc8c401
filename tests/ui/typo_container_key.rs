use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_byte = 1024)]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
