use poolable::Poolable;

#[derive(Poolable, Default)]
struct Request<'a> {
    path: &'a str,
}

fn main() {}
