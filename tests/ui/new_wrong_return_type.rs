use poolable::Poolable;

fn make() -> String {
    String::with_capacity(1024)
}

#[derive(Poolable)]
#[poolable(new = make)]
struct Request {
    body: String,
}

fn main() {}
