use poolable::Poolable;

#[derive(Poolable, Default)]
#[poolable(bound = "T Default")]
struct Wrapper<T> {
    value: Vec<T>,
}

fn main() {}
