use poolable::Poolable;

#[derive(Poolable)]
struct Request {
    body: String,
}

fn main() {}
