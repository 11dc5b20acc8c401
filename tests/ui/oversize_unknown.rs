use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(oversize = "truncate")]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
