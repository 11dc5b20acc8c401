use poolable::Poolable;
use std::rc::Rc;

#[derive(Poolable, Default)]
struct Wrapper<T> {
    value: Option<T>,
}

fn main() {
    let _ = Wrapper::<Rc<u8>>::pool().get();
}
