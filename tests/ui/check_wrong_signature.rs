use poolable::Poolable;

#[derive(Poolable, Default)]
struct Upload {
    #[poolable(check = Vec::len)]
    body: Vec<u8>,
}

fn main() {}
