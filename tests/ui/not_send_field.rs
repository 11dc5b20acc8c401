use poolable::Poolable;
use std::rc::Rc;

#[derive(Poolable, Default)]
struct Request {
    body: String,
    shared: Rc<Vec<u8>>,
}

fn main() {}
