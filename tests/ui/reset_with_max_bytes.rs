use poolable::Reset;

#[derive(Reset, Default)]
#[poolable(max_bytes = 4096)]
struct Headers {
    names: Vec<String>,
}

fn main() {}
