//! Each container attribute.
use poolable::Poolable;

#[derive(Poolable)]
#[poolable(
    new = Upload::with_capacity,
    max_retained = 64,
    max_bytes = 1 << 20,
    oversize = "shrink",
    name = "uploads"
)]
pub struct Upload {
    pub data: Vec<u8>,
}

#[derive(Poolable, Default)]
#[poolable(max_bytes = "auto", max_bytes = 4 << 20)]
pub struct Body {
    pub chunks: Vec<Vec<u8>>,
}

#[derive(Poolable, Default)]
#[poolable(crate = "my_crate::poolable")]
pub struct Renamed {
    pub buf: String,
}
