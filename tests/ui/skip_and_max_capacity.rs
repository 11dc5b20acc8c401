use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(skip)]
    #[poolable(max_capacity = 1024)]
    body: Vec<u8>,
}

fn main() {}
