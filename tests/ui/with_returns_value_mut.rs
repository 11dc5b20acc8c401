use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(with = Vec::pop)]
    ids: Vec<u32>,
}

fn main() {}
