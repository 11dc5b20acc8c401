use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(default = 7)]
    retries: u32,
}

fn main() {}
