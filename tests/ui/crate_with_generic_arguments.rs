use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(crate = "poolable::<3>")]
struct Request {
    body: String,
}

fn main() {}
