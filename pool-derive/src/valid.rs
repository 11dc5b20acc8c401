//! The checks that need more than one attribute at a time, or the item
//! itself: what the derive supports, which keys belong where, and which
//! keys cannot go together.

use crate::ast::{Container, Derive, Shape};
use crate::attr::{Attr, Rule};
use crate::ctxt::Errors;
use crate::symbol::*;
use quote::ToTokens;

pub fn check(cont: &Container<'_>, derive: Derive, errors: &mut Errors) {
    check_shape(cont, derive, errors);
    check_pool_keys(cont, derive, errors);
    check_misplaced(cont, errors);
    for field in &cont.fields {
        check_field(field, errors);
    }
}

/// A struct, and for `Poolable` one without lifetimes.
fn check_shape(cont: &Container<'_>, derive: Derive, errors: &mut Errors) {
    let name = derive.name();
    match cont.shape {
        Shape::Struct => {}
        Shape::Enum(token) => errors.spanned(
            token,
            format!(
                "`#[derive({name})]` does not support enums: which variant a reset should produce is ambiguous; \
                 wrap the enum in a struct field marked `#[poolable(default)]` or `#[poolable(with = path)]`, \
                 or implement `Reset` by hand"
            ),
        ),
        Shape::Union(token) => errors.spanned(
            token,
            format!("`#[derive({name})]` does not support unions: it cannot know which field is live; implement `Reset` by hand"),
        ),
    }
    if let Some(packed) = cont.packed {
        errors.push(syn::Error::new(
            packed,
            format!(
                "`#[derive({name})]` does not support `#[repr(packed)]` structs: a reset borrows each field, \
                 and a field of a packed struct may be unaligned; implement `Reset` by hand, \
                 copying each field out and back"
            ),
        ));
    }
    if let (true, Some(span)) = (cont.generics.params.is_empty(), cont.attrs.bound.span()) {
        errors.push(syn::Error::new(
            span,
            "`bound` replaces the where-clause inferred for the struct's generic parameters, \
             and this struct has none: remove it",
        ));
    }
    let lifetime = cont.generics.lifetimes().next();
    if let (Derive::Poolable, Some(lifetime)) = (derive, lifetime) {
        errors.spanned(
            lifetime,
            "`#[derive(Poolable)]` needs a `'static` type, because its pool is a `static`; \
             use `#[derive(Reset)]` for a type that borrows",
        );
    }
}

/// The keys that configure the pool mean nothing to `#[derive(Reset)]`.
fn check_pool_keys(cont: &Container<'_>, derive: Derive, errors: &mut Errors) {
    if derive != Derive::Reset {
        return;
    }
    let attrs = &cont.attrs;
    let keys = [
        (NEW, attrs.new.span()),
        (MAX_RETAINED, attrs.max_retained.span()),
        (MAX_BYTES, attrs.max_bytes.span()),
        (MAX_BYTES, attrs.max_bytes_auto.span()),
        (OVERSIZE, attrs.oversize.span()),
        (NAME, attrs.name.span()),
    ];
    for (key, span) in keys {
        if let Some(span) = span {
            errors.push(syn::Error::new(
                span,
                format!("`{key}` configures the pool, which only `#[derive(Poolable)]` generates"),
            ));
        }
    }
}

/// A field key on the struct, or a container key on a field.
fn check_misplaced(cont: &Container<'_>, errors: &mut Errors) {
    for (key, path) in &cont.attrs.misplaced {
        errors.spanned(
            path,
            format!("`{key}` is a field attribute; put it on a field, not on the struct"),
        );
    }
    for (key, path) in cont.fields.iter().flat_map(|field| &field.attrs.misplaced) {
        errors.spanned(
            path,
            format!("`{key}` is a container attribute; put it on the struct, not on a field"),
        );
    }
}

fn check_field(field: &crate::ast::Field<'_>, errors: &mut Errors) {
    if let Some((eq, value)) = &field.original.default {
        let mut tokens = eq.to_token_stream();
        value.to_tokens(&mut tokens);
        errors.spanned(
            tokens,
            "field default values are not used as the reset value; remove `= ...` and use \
             `#[poolable(default)]` (with a `Default` impl) or `#[poolable(with = path)]`",
        );
    }
    if let Rule::Skip = field.attrs.rule {
        let attrs = &field.attrs;
        skip_excludes(MAX_CAPACITY, &attrs.max_capacity, errors);
        skip_excludes(ZEROIZE, &attrs.zeroize, errors);
    }
}

fn skip_excludes<T>(key: Symbol, attr: &Attr<T>, errors: &mut Errors) {
    if let Some(span) = attr.span() {
        errors.push(syn::Error::new(
            span,
            format!("`{key}` cannot apply to a `#[poolable(skip)]` field, which is left untouched"),
        ));
    }
}
