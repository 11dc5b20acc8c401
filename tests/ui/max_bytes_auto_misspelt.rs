use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_bytes = "adaptive")]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
