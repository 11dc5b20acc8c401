//! The derive works on structs that a `macro_rules!` defines, including
//! attributes passed through as `meta` fragments.

use poolable::Reset;

fn clear_twice(s: &mut String) {
    s.clear();
    s.clear();
}

macro_rules! define {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$m])*
        struct $name { $($(#[$fm])* $field: $ty),* }
    };
}

define! {
    #[derive(Reset, Default)]
    Plain { a: String, b: Vec<u8> }
}

define! {
    #[derive(poolable::Poolable, Default)]
    WithAttributes {
        #[poolable(with = clear_twice)] name: String,
        #[poolable(skip)] config: u32,
        #[poolable(heap_bytes = Vec::capacity)] raw: Vec<u8>,
    }
}

#[test]
fn a_struct_defined_by_macro_rules_resets() {
    let mut plain = Plain {
        a: "x".into(),
        b: vec![1],
    };
    plain.reset();
    assert!(plain.a.is_empty() && plain.b.is_empty());
}

#[test]
fn attributes_passed_through_macro_rules_apply() {
    let mut value = WithAttributes {
        name: "ada".into(),
        config: 7,
        raw: Vec::with_capacity(16),
    };
    value.reset();
    assert!(value.name.is_empty());
    assert_eq!(value.config, 7);
    assert!(value.heap_bytes() >= 16);
    drop(WithAttributes::pool().get());
}

define! {
    #[derive(Reset, Default)]
    Secret {
        #[poolable(zeroize)] key: Vec<u8>,
        #[poolable(with = clear_twice)] note: String,
    }
}

#[test]
fn a_zeroize_field_passed_through_macro_rules_is_wiped() {
    let mut value = Secret {
        key: b"hunter2".to_vec(),
        note: "x".into(),
    };
    value.reset();
    assert!(value.key.is_empty() && value.note.is_empty());
    drop(value); // the generated `Drop` compiles in the macro's context too
}
