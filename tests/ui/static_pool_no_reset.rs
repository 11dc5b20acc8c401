use poolable::Pool;

#[derive(Default)]
struct Scratch {
    buf: Vec<u8>,
}

static SCRATCH: Pool<Scratch> = Pool::new();

fn main() {}
