use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(max_capacity = "4096")]
    body: String,
}

fn main() {}
