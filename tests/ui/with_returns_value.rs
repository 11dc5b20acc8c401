use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(with = Vec::len)]
    ids: Vec<u32>,
}

fn main() {}
