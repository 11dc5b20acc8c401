//! An input with mistakes: the errors, then the fallback impls (with the
//! right signatures, so a use of `Bad::pool()` adds no error of its own).
use poolable::Poolable;
#[derive(Poolable, Default)]
#[poolable(max_byte = 10)]
pub struct Bad {
    #[poolable(zeroise)]
    pub token: Vec<u8>,
}
::core::compile_error! {
    "unknown poolable container attribute `max_byte`; did you mean `max_bytes`?"
}
::core::compile_error! {
    "unknown poolable field attribute `zeroise`; did you mean `zeroize`?"
}
#[doc(hidden)]
const _: () = {
    #[automatically_derived]
    impl ::poolable::Reset for Bad {
        fn reset(&mut self) {
            ::core::unreachable!()
        }
    }
    #[automatically_derived]
    impl ::poolable::Poolable for Bad
    where
        Bad: ::core::marker::Send + 'static,
    {
        fn pool() -> &'static ::poolable::Pool<Self> {
            ::core::unreachable!()
        }
    }
};
