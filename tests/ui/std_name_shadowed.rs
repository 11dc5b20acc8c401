use poolable::Poolable;

// A type of the crate's own that takes a std type's name: the derive, which
// sees only the spelling, takes the field for std's and writes no check for
// it. Without a `Reset` impl, it is an error all the same.
mod own {
    #[derive(Default)]
    pub struct String;
}
use own::String;

#[derive(Poolable, Default)]
struct Request {
    id: u64,
    name: String,
}

fn main() {}
