use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(skip, skip)]
    config: u32,
}

fn main() {}
