use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(with = 1)]
    count: u32,
}

fn main() {}
