// A packed struct's fields cannot be borrowed, and a reset borrows each:
// one error, at `packed`.
use poolable::Poolable;

#[derive(Poolable, Default)]
#[repr(C, packed)]
pub struct Header {
    kind: u8,
    len: u32,
}

fn main() {}
