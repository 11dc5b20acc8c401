//! After an error, the derive's stand-in impls name the runtime where
//! `crate = "..."` says it is: here a stand-in of its own, so a stand-in
//! impl of `::poolable`'s traits would leave `shim::Reset` unimplemented
//! and add an error at the use below.

mod shim {
    pub trait Reset {
        fn reset(&mut self);
    }
    pub trait Poolable: Sized {
        fn pool() -> &'static Pool<Self>;
    }
    pub struct Pool<T>(T);
}

#[derive(poolable::Poolable, Default)]
#[poolable(crate = "shim")]
struct Upload {
    #[poolable(zeroise)]
    body: Vec<u8>,
}

fn reset_and_pool<T: shim::Reset + shim::Poolable>() {}

fn main() {
    // One error, at the misspelt key.
    reset_and_pool::<Upload>();
}
