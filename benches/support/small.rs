//! Workload 1: get + drop of a small derived struct, filled.

use poolable::Poolable;
use std::hint::black_box;

/// A small derived struct.
#[derive(Poolable, Default)]
pub struct Small {
    pub id: u64,
    pub flags: u32,
    pub name: String,
}

item!(derived Small);

/// Fill a `Small` (its name needs a heap buffer when fresh).
#[inline(never)]
pub fn small(s: &mut Small, i: u64) {
    s.id = i;
    s.flags = i as u32 | 1;
    s.name.push_str("conn-42");
    black_box(&mut *s);
}
