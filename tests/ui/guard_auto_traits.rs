//! A guard lends its value out: it is `Sync` only when the value is (a
//! `&Pooled<Cell<u8>>` on two threads would share the `Cell`), and a pool
//! holds no `!Send` value at all (it hands its values from thread to
//! thread, and a guard can carry one to another).
use poolable::{OwnedPooled, Pool, Pooled, Reset};
use std::cell::Cell;
use std::rc::Rc;

fn shared<T: Sync>() {}

#[derive(Default)]
struct NotSend(Rc<u8>);

impl Reset for NotSend {
    fn reset(&mut self) {}
}

fn main() {
    shared::<Pooled<'static, Cell<u8>>>();
    shared::<OwnedPooled<Cell<u8>>>();
    let _: Pool<NotSend> = Pool::new();
}
