use poolable::Poolable;

const RETAINED: u32 = 16;

#[derive(Poolable, Default)]
#[poolable(max_retained = RETAINED)]
struct Request {
    body: String,
}

fn main() {}
