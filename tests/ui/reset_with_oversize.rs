use poolable::Reset;

#[derive(Reset)]
#[poolable(oversize = "shrink")]
struct Upload {
    body: Vec<u8>,
}

fn main() {}
