//! An input with mistakes: the errors, then the fallback impls (with the
//! right signatures, so a use of `Bad::pool()` adds no error of its own).
use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(max_byte = 10)]
pub struct Bad {
    #[poolable(zeroise)]
    pub token: Vec<u8>,
}
