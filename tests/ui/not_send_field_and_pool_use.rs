use poolable::Poolable;
use std::rc::Rc;

#[derive(Poolable, Default)]
struct Session {
    user: String,
    shared: Rc<String>,
}

fn main() {
    // One error, at the field: no "`Session` cannot be sent between
    // threads safely" at this use on top of it.
    let mut session = Session::pool().get();
    session.user.push_str("ada");
}
