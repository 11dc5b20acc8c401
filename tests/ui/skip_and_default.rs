use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(skip, default)]
    config: u32,
}

fn main() {}
