// An attribute value must be a constant expression, for a generic struct
// as for a plain one: the generic one's pool is built at run time, on first
// use, and took any expression there, so making a struct generic (or not)
// changed which values compiled.
use poolable::Poolable;

fn retained_from_config() -> usize {
    16
}

#[derive(Poolable, Default)]
#[poolable(max_retained = retained_from_config())]
struct Plain {
    body: String,
}

#[derive(Poolable, Default)]
#[poolable(max_retained = retained_from_config())]
struct Generic<T: Send + 'static> {
    body: Vec<T>,
}

fn main() {}
