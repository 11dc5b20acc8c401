// Each way a closure starts (`|..|`, `move`, `async`) is read as one,
// however many commas its arguments hold, and the mistake written after it
// is reported too.
use poolable::Poolable;
use std::collections::HashMap;

#[derive(Poolable, Default)]
struct Request {
    #[poolable(with = |m: &mut HashMap<u8, u8>| m.clear(), zeroise)]
    headers: HashMap<u8, u8>,
    #[poolable(check = move |v| v.is_empty())]
    body: Vec<u8>,
    #[poolable(heap_bytes = async |v| 0)]
    tail: Vec<u8>,
}

fn main() {}
