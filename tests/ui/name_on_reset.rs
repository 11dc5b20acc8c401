use poolable::Reset;

#[derive(Reset, Default)]
#[poolable(name = "uploads")]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
