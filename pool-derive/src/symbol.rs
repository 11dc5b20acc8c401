//! The `#[poolable(...)]` keys as typed constants, compared with a parsed
//! path (`meta.path == MAX_BYTES`), after serde_derive's `symbol.rs`. Each
//! key is spelled once, here.

use std::fmt::{self, Display};
use syn::Path;

#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Symbol(&'static str);

impl Symbol {
    pub const fn name(self) -> &'static str {
        self.0
    }
}

// Container keys.
pub const NEW: Symbol = Symbol("new");
pub const MAX_RETAINED: Symbol = Symbol("max_retained");
pub const MAX_BYTES: Symbol = Symbol("max_bytes");
pub const OVERSIZE: Symbol = Symbol("oversize");
pub const NAME: Symbol = Symbol("name");
pub const CRATE: Symbol = Symbol("crate");
pub const BOUND: Symbol = Symbol("bound");

// Field keys.
pub const SKIP: Symbol = Symbol("skip");
pub const DEFAULT: Symbol = Symbol("default");
pub const WITH: Symbol = Symbol("with");
pub const MAX_CAPACITY: Symbol = Symbol("max_capacity");
pub const ZEROIZE: Symbol = Symbol("zeroize");
pub const HEAP_BYTES: Symbol = Symbol("heap_bytes");
pub const CHECK: Symbol = Symbol("check");

pub const CONTAINER_KEYS: &[Symbol] = &[NEW, MAX_RETAINED, MAX_BYTES, OVERSIZE, NAME, CRATE, BOUND];
pub const FIELD_KEYS: &[Symbol] = &[
    SKIP,
    DEFAULT,
    WITH,
    MAX_CAPACITY,
    ZEROIZE,
    HEAP_BYTES,
    CHECK,
];

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
