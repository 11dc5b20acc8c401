use poolable::Reset;

#[derive(Reset, Default)]
#[poolable(new = Headers::default)]
struct Headers {
    names: Vec<String>,
}

fn main() {}
