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

const CONTAINER_KEYS: &[&str] = &[
    "new",
    "max_retained",
    "max_bytes",
    "oversize",
    "name",
    "crate",
    "bound",
];
const FIELD_KEYS: &[&str] = &[
    "skip",
    "default",
    "with",
    "max_capacity",
    "zeroize",
    "heap_bytes",
    "check",
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
                "new" | "max_retained" | "max_bytes" | "oversize" | "name" if derive == Derive::Reset => {
                    errors.spanned(
                        &meta.path,
                        format!("`{key}` configures the pool, which only `#[derive(Poolable)]` generates"),
                    );
                    skip_value(&meta)
                }
                "new" => {
                    if let Some(path) = path_value(&meta, errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        out.new = Some(path);
                    }
                    Ok(())
                }
                "max_bytes" if meta.input.peek(Token![=]) && meta.input.peek2(LitStr) => {
                    let lit: LitStr = meta.value()?.parse()?;
                    if lit.value() != "auto" {
                        errors.push(syn::Error::new(
                            lit.span(),
                            "`max_bytes` takes an integer, like `max_bytes = 65536`, or `\"auto\"` (an adaptive cap)",
                        ));
                    } else if seen.first(&meta, "max_bytes = \"auto\"", errors) {
                        out.max_bytes_auto = true;
                    }
                    Ok(())
                }
                "oversize" => {
                    let Some(lit) = string_value(&meta, "oversize = \"shrink\"", errors)? else {
                        return Ok(());
                    };
                    let variant = match lit.value().as_str() {
                        "shrink" => "Shrink",
                        "drop" => "Drop",
                        other => {
                            errors.push(syn::Error::new(
                                lit.span(),
                                format!("`oversize` is `\"drop\"` or `\"shrink\"`, not `\"{other}\"`"),
                            ));
                            return Ok(());
                        }
                    };
                    if seen.first(&meta, &key, errors) {
                        out.oversize = Some(syn::Ident::new(variant, lit.span()));
                    }
                    Ok(())
                }
                "max_retained" | "max_bytes" => {
                    if let Some(value) = usize_value(&meta, &key, errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        if key == "max_retained" {
                            out.max_retained = Some(value);
                        } else {
                            out.max_bytes = Some(value);
                        }
                    }
                    Ok(())
                }
                "name" => {
                    if let Some(lit) = string_value(&meta, "name = \"uploads\"", errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        out.name = Some(lit);
                    }
                    Ok(())
                }
                "crate" => {
                    let Some(lit) = string_value(&meta, "crate = \"path::to::poolable\"", errors)? else {
                        return Ok(());
                    };
                    match lit.parse::<syn::Path>() {
                        Ok(path) => {
                            if seen.first(&meta, &key, errors) {
                                out.krate = Some(path);
                            }
                        }
                        Err(_) => errors.push(syn::Error::new(
                            lit.span(),
                            format!(
                                "`crate` must be a path, like `crate = \"my::poolable\"`; `{}` is not one",
                                lit.value()
                            ),
                        )),
                    }
                    Ok(())
                }
                "bound" => {
                    let Some(lit) = string_value(&meta, "bound = \"T: Reset\"", errors)? else {
                        return Ok(());
                    };
                    match lit.parse_with(Punctuated::<syn::WherePredicate, Token![,]>::parse_terminated) {
                        Ok(predicates) => {
                            if seen.first(&meta, &key, errors) {
                                out.bound = Some(predicates.into_iter().collect());
                            }
                        }
                        Err(e) => errors.push(syn::Error::new(
                            lit.span(),
                            format!("`bound` must be where-clause predicates, like `bound = \"T: Reset\"`: {e}"),
                        )),
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
                    if no_value(&meta, &key, errors)? {
                        set_rule(Rule::Skip, errors);
                    }
                    Ok(())
                }
                "default" => {
                    if no_value(&meta, &key, errors)? {
                        set_rule(Rule::Default, errors);
                    }
                    Ok(())
                }
                "with" => {
                    if let Some(path) = path_value(&meta, errors)? {
                        set_rule(Rule::With(path), errors);
                    }
                    Ok(())
                }
                "max_capacity" => {
                    if let Some(value) = usize_value(&meta, &key, errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        out.max_capacity = Some((value, meta.path.span()));
                    }
                    Ok(())
                }
                "zeroize" => {
                    if no_value(&meta, &key, errors)? && seen.first(&meta, &key, errors) {
                        out.zeroize = Some(meta.path.span());
                    }
                    Ok(())
                }
                "heap_bytes" => {
                    if let Some(path) = path_value(&meta, errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        out.heap_bytes = Some(path);
                    }
                    Ok(())
                }
                "check" => {
                    if let Some(path) = path_value(&meta, errors)?
                        && seen.first(&meta, &key, errors)
                    {
                        out.check = Some(path);
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
    if let Rule::Skip = out.rule {
        let keys = [
            (
                "max_capacity",
                out.max_capacity.as_ref().map(|(_, span)| *span),
            ),
            ("zeroize", out.zeroize),
        ];
        for (key, span) in keys {
            if let Some(span) = span {
                errors.push(syn::Error::new(
                    span,
                    format!("`{key}` cannot apply to a `#[poolable(skip)]` field, which is left untouched"),
                ));
            }
        }
    }
    out
}

fn unknown_key(key: &str, expected: &[&str], place: &str) -> String {
    // A typo (`max_byte`, `zeroise`): name the key it most likely meant.
    let closest = expected
        .iter()
        .map(|k| (edit_distance(key, k), *k))
        .filter(|(distance, k)| *distance <= (k.len() / 3).max(1))
        .min();
    if let Some((_, meant)) = closest {
        return format!("unknown poolable {place} attribute `{key}`; did you mean `{meant}`?");
    }
    let list = expected
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown poolable {place} attribute `{key}`; expected one of {list}")
}

/// Levenshtein distance (insertions, deletions, substitutions), by bytes.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
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

// The value readers below stop parsing (return `Err`) only when the tokens
// cannot be read at all. A value that reads but is wrong is recorded in
// `errors` and reading goes on, so the next mistake is reported too.

fn no_value(meta: &ParseNestedMeta<'_>, key: &str, errors: &mut Errors) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        errors.spanned(
            &meta.path,
            format!("`{key}` takes no value: write `#[poolable({key})]`"),
        );
        skip_value(meta)?;
        return Ok(false);
    }
    Ok(true)
}

fn path_value(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Option<ExprPath>> {
    let key = key_of(meta);
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Path(path) => Ok(Some(path)),
        other => {
            errors.spanned(
                other,
                format!("`{key}` takes a path to a function, like `{key} = my_fn`"),
            );
            Ok(None)
        }
    }
}

fn string_value(
    meta: &ParseNestedMeta<'_>,
    example: &str,
    errors: &mut Errors,
) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(Some(lit)),
        other => {
            errors.spanned(other, format!("expected a string, like `{example}`"));
            Ok(None)
        }
    }
}

/// An integer literal that fits a `usize`, or a constant expression that
/// the compiler will type-check as one (e.g. `64 << 10`, `MY_CAP`).
fn usize_value(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    errors: &mut Errors,
) -> syn::Result<Option<Expr>> {
    let expr: Expr = meta.value()?.parse()?;
    let problem = match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => {
            if !matches!(int.suffix(), "" | "usize") {
                Some(format!(
                    "`{key}` is a `usize`; drop the `{}` suffix",
                    int.suffix()
                ))
            } else if int.base10_parse::<usize>().is_err() {
                Some(format!("`{key}` must fit in a `usize`"))
            } else {
                None
            }
        }
        Expr::Lit(_) => Some(format!("`{key}` takes an integer, like `{key} = 1024`")),
        _ => None,
    };
    match problem {
        Some(message) => {
            match &expr {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(int), ..
                }) => errors.push(syn::Error::new(int.span(), message)),
                other => errors.spanned(other, message),
            }
            Ok(None)
        }
        None => Ok(Some(expr)),
    }
}
