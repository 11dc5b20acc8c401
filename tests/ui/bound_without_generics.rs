// `bound` on a struct with no generic parameters would be ignored: an
// error at the key instead.
use poolable::Reset;

#[derive(Reset, Default)]
#[poolable(bound = "String: Copy")]
pub struct Plain {
    name: String,
}

fn main() {}
