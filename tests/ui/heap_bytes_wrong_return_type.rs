use poolable::Poolable;

fn size(body: &Vec<u8>) -> u32 {
    body.capacity() as u32
}

#[derive(Poolable, Default)]
struct Request {
    #[poolable(heap_bytes = size)]
    body: Vec<u8>,
}

fn main() {}
