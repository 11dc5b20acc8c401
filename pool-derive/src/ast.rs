//! The small IR the derive works on: a struct, its fields, and what the
//! `#[poolable(...)]` attributes asked for, already validated.

use proc_macro2::Span;
use syn::{Expr, ExprPath, Generics, Ident, LitStr, Member, Path, Type, WherePredicate};

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
    pub generics: &'a Generics,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
}

#[derive(Default)]
pub struct ContainerAttrs {
    /// `new = path`: the constructor used on a miss.
    pub new: Option<ExprPath>,
    /// `max_retained = N`.
    pub max_retained: Option<Expr>,
    /// `max_bytes = N`.
    pub max_bytes: Option<Expr>,
    /// `max_bytes = "auto"`: the cap adapts, under `max_bytes` if also given.
    pub max_bytes_auto: bool,
    /// `oversize = "shrink"` (or `"drop"`): the `Oversize` variant to use.
    pub oversize: Option<Ident>,
    /// `name = "..."`: the pool's name in `pools()`.
    pub name: Option<LitStr>,
    /// `crate = "path"`: where the runtime is, instead of `::poolable`.
    pub krate: Option<Path>,
    /// `bound = "..."`: replaces the inferred where-clause predicates.
    pub bound: Option<Vec<WherePredicate>>,
}

pub struct Field<'a> {
    pub member: Member,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
}

/// How a field is brought back to its fresh state.
pub enum Rule {
    /// `<Ty as Reset>::reset` (no attribute).
    Reset,
    /// `skip`: left as it is.
    Skip,
    /// `default`: assigned `Default::default()`.
    Default,
    /// `with = path`: `path(&mut field)`, where `path` is a `fn(&mut FieldType)`.
    With(ExprPath),
}

pub struct FieldAttrs {
    pub rule: Rule,
    /// `max_capacity = N` (and the key's span): shrink to N elements after the reset.
    pub max_capacity: Option<(Expr, Span)>,
    /// `zeroize`: wipe the whole allocation before the reset.
    pub zeroize: Option<Span>,
    /// `heap_bytes = path`: how to measure the field, `fn(&Ty) -> usize`.
    pub heap_bytes: Option<ExprPath>,
    /// `check = path`: whether the field is reset, `fn(&Ty) -> bool`.
    pub check: Option<ExprPath>,
}

impl Default for FieldAttrs {
    fn default() -> Self {
        FieldAttrs {
            rule: Rule::Reset,
            max_capacity: None,
            zeroize: None,
            heap_bytes: None,
            check: None,
        }
    }
}
