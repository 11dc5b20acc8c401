use poolable::Poolable;

#[derive(Poolable)]
struct Request {
    retries: u32 = 3,
}

fn main() {}
