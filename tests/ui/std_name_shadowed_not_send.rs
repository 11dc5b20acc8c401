use poolable::{Poolable, Reset};
use std::rc::Rc;

// A type of the crate's own named as a std one, with a `Reset` impl but not
// `Send`: the derive writes no check for it (the spelling is std's), and
// the pool's static is the error.
mod own {
    #[derive(Default)]
    pub struct String(pub std::rc::Rc<u8>);
}
use own::String;

impl Reset for String {
    fn reset(&mut self) {
        self.0 = Rc::new(0);
    }
}

#[derive(Poolable, Default)]
struct Request {
    name: String,
}

fn main() {}
