use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(max_capacity = 16)]
    count: u32,
}

fn main() {}
