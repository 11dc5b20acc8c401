//! Generic structs: inferred bounds (`T: Reset` for the parameters a reset
//! field uses, none for `PhantomData<T>`), and the pool from the runtime's
//! per-type registry instead of a `static`.
use poolable::Poolable;
use std::marker::PhantomData;

#[derive(Poolable, Default)]
pub struct Wrapper<T> {
    pub items: Vec<T>,
}

#[derive(Poolable)]
#[poolable(new = Tagged::new)]
pub struct Tagged<U: Send + 'static> {
    pub bytes: Vec<u8>,
    pub unit: PhantomData<U>,
}

#[derive(poolable::Reset)]
#[poolable(bound = "T: poolable::Reset + Clone")]
pub struct Bounded<'a, T> {
    pub borrowed: &'a mut T,
}
