use poolable::{Poolable, Reset};

#[derive(Poolable, Default)]
#[poolable(max_bytes = "lots")]
struct Upload {
    body: Vec<u8>,
}

fn main() {
    // One error, at the attribute: no "no function `pool`" on top of it.
    let mut upload = Upload::pool().get();
    upload.body.push(1);
    upload.reset();
}
