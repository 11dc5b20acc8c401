use poolable::Poolable;

fn make() -> String {
    String::with_capacity(1024)
}

#[derive(Poolable, Default)]
struct Request {
    #[poolable(new = make)]
    body: String,
}

fn main() {}
