//! The IR the derive works on, built from syn's `DeriveInput`: the struct,
//! its fields as members with types, and their attributes read by `attr`.
//! Nothing is judged here; `valid` does that.

use crate::attr;
use crate::ctxt::Errors;
use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::{Data, DeriveInput, Generics, Ident, Member, Token, Type, Visibility};

/// Which derive is running.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Derive {
    /// `#[derive(Reset)]`: the reset only.
    Reset,
    /// `#[derive(Poolable)]`: the reset and the static pool.
    Poolable,
}

impl Derive {
    pub fn name(self) -> &'static str {
        match self {
            Derive::Reset => "Reset",
            Derive::Poolable => "Poolable",
        }
    }
}

pub struct Container<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub attrs: attr::Container,
    pub shape: Shape<'a>,
    /// The `packed` of a `#[repr(packed)]`, which the derive rejects
    /// (`valid`): a field of a packed struct cannot be borrowed.
    pub packed: Option<Span>,
    /// Whether the struct is `#[deprecated]`: its impls then allow the
    /// lint, as the derive's own uses of the struct would raise it.
    pub deprecated: bool,
    /// The fields of a struct; none for an enum or a union.
    pub fields: Vec<Field<'a>>,
}

/// What kind of item the derive is on; only a struct is accepted (`valid`).
pub enum Shape<'a> {
    Struct,
    Enum(&'a Token![enum]),
    Union(&'a Token![union]),
}

pub struct Field<'a> {
    pub member: Member,
    pub ty: &'a Type,
    /// `ty`'s span, computed once: `Spanned::span` prints the whole type
    /// to tokens, and the generated code is spanned on it many times.
    pub span: Span,
    /// The span of `ty`'s last token (stable Rust cannot join spans), so an
    /// error about a type the derive wraps underlines all of it.
    pub span_end: Span,
    /// Whether `ty` names `Self` (which an item outside the struct's impls
    /// cannot: `expand::fields_check` renames it there).
    pub names_self: bool,
    pub attrs: attr::Field,
    pub original: &'a syn::Field,
}

impl<'a> Container<'a> {
    pub fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> Container<'a> {
        let attrs = attr::Container::from_attrs(&input.attrs, errors);
        let (shape, fields) = match &input.data {
            Data::Struct(data) => (
                Shape::Struct,
                data.fields
                    .iter()
                    .enumerate()
                    .map(|(index, field)| Field::from_syn(index, field, errors))
                    .collect(),
            ),
            Data::Enum(data) => (Shape::Enum(&data.enum_token), Vec::new()),
            Data::Union(data) => (Shape::Union(&data.union_token), Vec::new()),
        };
        Container {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            attrs,
            shape,
            packed: packed(&input.attrs),
            deprecated: input
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("deprecated")),
            fields,
        }
    }
}

/// The span of `packed` in a `#[repr(..)]` among `attrs`.
fn packed(attrs: &[syn::Attribute]) -> Option<Span> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("repr"))
        .filter_map(|attr| attr.meta.require_list().ok())
        .flat_map(|list| list.tokens.clone())
        .find_map(|token| match token {
            TokenTree::Ident(ident) if ident == "packed" => Some(ident.span()),
            _ => None,
        })
}

impl<'a> Field<'a> {
    fn from_syn(index: usize, field: &'a syn::Field, errors: &mut Errors) -> Field<'a> {
        let (span, span_end, names_self) = walk_type(&field.ty);
        let member = match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(syn::Index {
                index: index as u32,
                span,
            }),
        };
        Field {
            member,
            ty: &field.ty,
            span,
            span_end,
            names_self,
            attrs: attr::Field::from_attrs(&field.attrs, errors),
            original: field,
        }
    }
}

/// `ty`'s span as `Spanned::span` computes it (the first token's, joined
/// with the last's where the compiler can), its last token's span, and
/// whether it names `Self`: from one walk of its tokens, each walk costing
/// calls across the proc-macro bridge (`tokens.rs`).
fn walk_type(ty: &Type) -> (Span, Span, bool) {
    fn names_self(token: &TokenTree) -> bool {
        match token {
            TokenTree::Ident(ident) => ident == "Self",
            TokenTree::Group(group) => group.stream().into_iter().any(|token| names_self(&token)),
            TokenTree::Punct(_) | TokenTree::Literal(_) => false,
        }
    }
    let (mut first, mut last, mut found) = (None, None, false);
    for token in ty.to_token_stream() {
        found |= names_self(&token);
        first.get_or_insert(token.span());
        last = Some(token.span());
    }
    match (first, last) {
        (Some(first), Some(last)) => (first.join(last).unwrap_or(first), last, found),
        _ => (Span::call_site(), Span::call_site(), found),
    }
}

#[cfg(test)]
mod tests {
    use super::walk_type;
    use proc_macro2::Span;

    /// Where a span starts and ends: (line, column) each.
    fn at(span: Span) -> ((usize, usize), (usize, usize)) {
        let (start, end) = (span.start(), span.end());
        ((start.line, start.column), (end.line, end.column))
    }

    /// A field type's span runs from its first token to its last, and its
    /// end span is the last token's: an error at a field's check
    /// underlines the whole type. rustc 1.95 points at the type whatever
    /// the check's spans are, so no UI case shows this; rustc 1.97 nightly
    /// (2026-05-19) reports a `!Send` field at the derive without them.
    #[test]
    fn a_field_type_is_spanned_from_its_first_token_to_its_last() {
        let ty: syn::Type = syn::parse_str("Rc<Vec<u8>>").unwrap();
        let (span, end, names_self) = walk_type(&ty);
        assert_eq!(at(span), ((1, 0), (1, 11)));
        assert_eq!(at(end), ((1, 10), (1, 11)));
        assert!(!names_self);

        let ty: syn::Type = syn::parse_str("Option<Box<Self>>").unwrap();
        assert!(walk_type(&ty).2, "`Self` inside a group is found");
    }
}
