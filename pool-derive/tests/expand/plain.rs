//! A plain struct: each field reset by its type's `Reset` impl.
use poolable::Poolable;

#[derive(Poolable, Default)]
pub struct Request {
    pub id: u64,
    pub path: String,
    pub headers: Vec<(String, String)>,
}

/// A tuple struct, reset only (no pool).
#[derive(poolable::Reset, Default)]
pub struct Pair(Vec<u8>, Option<u32>);
