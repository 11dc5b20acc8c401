// `Pool<T>` is invariant in `T`: a pool of values holding functions for any
// lifetime cannot be taken as a pool of values holding `'static`-only ones,
// whose `put` would let such a value in for the first pool's gets.
use poolable::{Pool, Reset};

#[derive(Default)]
pub struct Callback<F>(Option<F>);

impl<F> Reset for Callback<F> {
    fn reset(&mut self) {
        self.0 = None;
    }
}

fn widen<'p>(
    pool: &'p Pool<Callback<for<'a> fn(&'a str)>>,
) -> &'p Pool<Callback<fn(&'static str)>> {
    pool
}

fn main() {}
