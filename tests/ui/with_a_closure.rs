use poolable::Poolable;

// A closure where a path to a function goes: one error each, and the key
// after it is still read (`check` too takes a path).
#[derive(Poolable, Default)]
#[poolable(new = || Request::default())]
struct Request {
    #[poolable(with = |v: &mut Vec<u8>| v.clear(), check = 1)]
    body: Vec<u8>,
}

fn main() {}
