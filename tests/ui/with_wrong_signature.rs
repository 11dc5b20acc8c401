use poolable::Poolable;

fn clear(body: String) -> String {
    body
}

#[derive(Poolable, Default)]
struct Request {
    #[poolable(with = clear)]
    body: String,
}

fn main() {}
