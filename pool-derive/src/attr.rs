//! `#[poolable(...)]` attributes -> the IR in `ast`, with every misuse
//! reported as a spanned error.

use crate::ast::{Container, ContainerAttrs, Derive, Field, FieldAttrs, Rule};
use crate::ctxt::Errors;
use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DeriveInput, Expr, ExprLit, ExprPath, Fields, Lit, LitStr, Member, Token,
};

const CONTAINER_KEYS: &[&str] = &["new", "max_retained", "max_bytes", "crate", "bound"];
const FIELD_KEYS: &[&str] = &[
    "skip",
    "default",
    "with",
    "max_capacity",
    "zeroize",
    "heap_bytes",
];

/// Read the input into the IR, or report every mistake in it.
pub fn container<'a>(input: &'a DeriveInput, derive: Derive) -> syn::Result<Container<'a>> {
    let mut errors = Errors::default();
    let attrs = container_attrs(&input.attrs, derive, &mut errors);

    let fields = match &input.data {
        Data::Struct(data) => fields(&data.fields, &mut errors),
        Data::Enum(data) => {
            errors.spanned(
                data.enum_token,
                format!(
                    "`#[derive({})]` does not support enums: which variant a reset should produce is ambiguous; \
                     wrap the enum in a struct field marked `#[poolable(default)]` or `#[poolable(with = path)]`, \
                     or implement `Reset` by hand",
                    derive.name()
                ),
            );
            Vec::new()
        }
        Data::Union(data) => {
            errors.spanned(
                data.union_token,
                format!(
                    "`#[derive({})]` does not support unions: it cannot know which field is live; implement `Reset` by hand",
                    derive.name()
                ),
            );
            Vec::new()
        }
    };

    if derive == Derive::Poolable
        && let Some(lifetime) = input.generics.lifetimes().next()
    {
        errors.spanned(
            lifetime,
            "`#[derive(Poolable)]` needs a `'static` type, because its pool is a `static`; \
             use `#[derive(Reset)]` for a type that borrows",
        );
    }

    errors.finish()?;
    Ok(Container {
        ident: &input.ident,
        generics: &input.generics,
        attrs,
        fields,
    })
}

fn fields<'a>(fields: &'a Fields, errors: &mut Errors) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            if let Some((eq, value)) = &field.default {
                let mut tokens = eq.to_token_stream();
                value.to_tokens(&mut tokens);
                errors.spanned(
                    tokens,
                    "field default values are not used as the reset value; remove `= ...` and use \
                     `#[poolable(default)]` (with a `Default` impl) or `#[poolable(with = path)]`",
                );
            }
            let member = match &field.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(syn::Index {
                    index: index as u32,
                    span: field.ty.span(),
                }),
            };
            Field {
                member,
                ty: &field.ty,
                attrs: field_attrs(&field.attrs, errors),
            }
        })
        .collect()
}

/// Tracks which keys an attribute list has set, to report duplicates.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    /// False (and an error) if `key` was already set.
    fn first(&mut self, meta: &ParseNestedMeta<'_>, key: &str, errors: &mut Errors) -> bool {
        if self.0.iter().any(|k| k == key) {
            errors.spanned(&meta.path, format!("duplicate `{key}` attribute"));
            false
        } else {
            self.0.push(key.to_owned());
            true
        }
    }
}

fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path.to_token_stream().to_string().replace(' ', "")
}

fn poolable_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("poolable"))
}

fn container_attrs(attrs: &[Attribute], derive: Derive, errors: &mut Errors) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    let mut seen = Seen::default();
    for attr in poolable_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            let key = key_of(&meta);
            match key.as_str() {
                "new" | "max_retained" | "max_bytes" if derive == Derive::Reset => {
                    errors.spanned(
                        &meta.path,
                        format!("`{key}` configures the pool, which only `#[derive(Poolable)]` generates"),
                    );
                    skip_value(&meta)
                }
                "new" => {
                    let path = path_value(&meta)?;
                    if seen.first(&meta, &key, errors) {
                        out.new = Some(path);
                    }
                    Ok(())
                }
                "max_retained" | "max_bytes" => {
                    let value = usize_value(&meta, &key)?;
                    if seen.first(&meta, &key, errors) {
                        if key == "max_retained" {
                            out.max_retained = Some(value);
                        } else {
                            out.max_bytes = Some(value);
                        }
                    }
                    Ok(())
                }
                "crate" => {
                    let lit: LitStr = string_value(&meta, "crate = \"path::to::poolable\"")?;
                    let path = lit.parse::<syn::Path>().map_err(|_| {
                        syn::Error::new(lit.span(), format!("`crate` must be a path, like `crate = \"my::poolable\"`; `{}` is not one", lit.value()))
                    })?;
                    if seen.first(&meta, &key, errors) {
                        out.krate = Some(path);
                    }
                    Ok(())
                }
                "bound" => {
                    let lit: LitStr = string_value(&meta, "bound = \"T: Reset\"")?;
                    let predicates = lit
                        .parse_with(Punctuated::<syn::WherePredicate, Token![,]>::parse_terminated)
                        .map_err(|e| syn::Error::new(lit.span(), format!("`bound` must be where-clause predicates, like `bound = \"T: Reset\"`: {e}")))?;
                    if seen.first(&meta, &key, errors) {
                        out.bound = Some(predicates.into_iter().collect());
                    }
                    Ok(())
                }
                _ if FIELD_KEYS.contains(&key.as_str()) => {
                    errors.spanned(&meta.path, format!("`{key}` is a field attribute; put it on a field, not on the struct"));
                    skip_value(&meta)
                }
                _ => {
                    errors.spanned(&meta.path, unknown_key(&key, CONTAINER_KEYS, "container"));
                    skip_value(&meta)
                }
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    out
}

fn field_attrs(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    let mut seen = Seen::default();
    // The key that chose the rule, to name it in a conflict.
    let mut rule_key: Option<(String, Span)> = None;
    for attr in poolable_attrs(attrs) {
        let result = attr.parse_nested_meta(|meta| {
            let key = key_of(&meta);
            let mut set_rule = |rule: Rule, errors: &mut Errors| {
                if let Some((other, _)) = &rule_key
                    && *other != key
                {
                    errors.spanned(
                        &meta.path,
                        format!("`{key}` conflicts with `{other}`: a field has one reset rule"),
                    );
                    return;
                }
                if seen.first(&meta, &key, errors) {
                    rule_key = Some((key.clone(), meta.path.span()));
                    out.rule = rule;
                }
            };
            match key.as_str() {
                "skip" => {
                    no_value(&meta, &key)?;
                    set_rule(Rule::Skip, errors);
                    Ok(())
                }
                "default" => {
                    no_value(&meta, &key)?;
                    set_rule(Rule::Default, errors);
                    Ok(())
                }
                "with" => {
                    let path = path_value(&meta)?;
                    set_rule(Rule::With(path), errors);
                    Ok(())
                }
                "max_capacity" => {
                    let value = usize_value(&meta, &key)?;
                    if seen.first(&meta, &key, errors) {
                        out.max_capacity = Some(value);
                    }
                    Ok(())
                }
                "zeroize" => {
                    no_value(&meta, &key)?;
                    if seen.first(&meta, &key, errors) {
                        out.zeroize = Some(meta.path.span());
                    }
                    Ok(())
                }
                "heap_bytes" => {
                    let path = path_value(&meta)?;
                    if seen.first(&meta, &key, errors) {
                        out.heap_bytes = Some(path);
                    }
                    Ok(())
                }
                _ if CONTAINER_KEYS.contains(&key.as_str()) => {
                    errors.spanned(
                        &meta.path,
                        format!(
                            "`{key}` is a container attribute; put it on the struct, not on a field"
                        ),
                    );
                    skip_value(&meta)
                }
                _ => {
                    errors.spanned(&meta.path, unknown_key(&key, FIELD_KEYS, "field"));
                    skip_value(&meta)
                }
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    if let (Rule::Skip, Some((_, skip))) = (&out.rule, &rule_key)
        && (out.max_capacity.is_some() || out.zeroize.is_some())
    {
        errors.push(syn::Error::new(
            *skip,
            "`skip` leaves the field untouched, so `max_capacity` and `zeroize` cannot apply to it",
        ));
    }
    out
}

fn unknown_key(key: &str, expected: &[&str], place: &str) -> String {
    let list = expected
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown poolable {place} attribute `{key}`; expected one of {list}")
}

/// Consume `= value` after a key we are rejecting, so parsing goes on to
/// report the next mistake too.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

fn no_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`{key}` takes no value: write `#[poolable({key})]`"
        )));
    }
    Ok(())
}

fn path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<ExprPath> {
    let key = key_of(meta);
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Path(path) => Ok(path),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a path to a function, like `{key} = my_fn`"),
        )),
    }
}

fn string_value(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<LitStr> {
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(lit),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a string, like `{example}`"),
        )),
    }
}

/// An integer literal that fits a `usize`, or a constant expression that
/// the compiler will type-check as one (e.g. `64 << 10`, `MY_CAP`).
fn usize_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Expr> {
    let expr: Expr = meta.value()?.parse()?;
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => {
            if !matches!(int.suffix(), "" | "usize") {
                return Err(syn::Error::new(
                    int.span(),
                    format!("`{key}` is a `usize`; drop the `{}` suffix", int.suffix()),
                ));
            }
            int.base10_parse::<usize>().map_err(|_| {
                syn::Error::new(int.span(), format!("`{key}` must fit in a `usize`"))
            })?;
            Ok(expr)
        }
        Expr::Lit(other) => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes an integer, like `{key} = 1024`"),
        )),
        _ => Ok(expr),
    }
}
