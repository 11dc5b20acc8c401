//! The `#[poolable(...)]` attributes of the struct and of each field, read
//! into typed values. Each key is recognised through its `Symbol`, and each
//! is set through an [`Attr`], which reports a second occurrence at both.
//! What the keys mean together is checked later, in `valid`.

use crate::ctxt::Errors;
use crate::symbol::*;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::parse::discouraged::Speculative;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprPath, Ident, Lit, LitStr, Path, Token, WherePredicate};

/// One key's value, with the span of the key that set it.
pub struct Attr<T> {
    name: &'static str,
    value: Option<(Span, T)>,
}

impl<T> Attr<T> {
    fn none(name: &'static str) -> Self {
        Attr { name, value: None }
    }

    /// Store `value`, or report the key as a duplicate: at `key`, and at the
    /// occurrence that set it first.
    fn set(&mut self, errors: &mut Errors, key: &Path, value: T) {
        let name = self.name;
        match &self.value {
            Some((first, _)) => {
                let mut error =
                    syn::Error::new_spanned(key, format!("duplicate `{name}` attribute"));
                error.combine(syn::Error::new(
                    *first,
                    format!("`{name}` is first set here"),
                ));
                errors.push(error);
            }
            None => self.value = Some((key.span(), value)),
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, value)| value)
    }

    /// The span of the key that set the value.
    pub fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(span, _)| *span)
    }
}

/// The container's attributes.
pub struct Container {
    /// `new = path`: the constructor used on a miss.
    pub new: Attr<ExprPath>,
    pub max_retained: Attr<Expr>,
    pub max_bytes: Attr<Expr>,
    /// `max_bytes = "auto"`: the cap adapts, under `max_bytes` if also given.
    pub max_bytes_auto: Attr<()>,
    /// `oversize = "shrink"` (or `"drop"`): the `Oversize` variant to use.
    pub oversize: Attr<Ident>,
    /// `name = "..."`: the pool's name in `pools()`.
    pub name: Attr<LitStr>,
    /// `crate = "path"`: where the runtime is, instead of `::poolable`.
    pub krate: Attr<Path>,
    /// `bound = "..."`: replaces the inferred where-clause predicates.
    pub bound: Attr<Vec<WherePredicate>>,
    /// Field keys written on the struct, for `valid` to report.
    pub misplaced: Vec<(Symbol, Path)>,
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

/// A field's attributes.
pub struct Field {
    pub rule: Rule,
    /// `max_capacity = N`: shrink to N elements after the reset.
    pub max_capacity: Attr<Expr>,
    /// `zeroize`: wipe the whole allocation before the reset.
    pub zeroize: Attr<()>,
    /// `heap_bytes = path`: how to measure the field, `fn(&Ty) -> usize`.
    pub heap_bytes: Attr<ExprPath>,
    /// `check = path`: whether the field is reset, `fn(&Ty) -> bool`.
    pub check: Attr<ExprPath>,
    /// Container keys written on the field, for `valid` to report.
    pub misplaced: Vec<(Symbol, Path)>,
}

fn poolable_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("poolable"))
}

impl Container {
    /// Where the generated code finds the runtime: `crate = "path"`, else
    /// `::poolable`.
    pub fn crate_path(&self) -> Path {
        self.krate
            .get()
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(::poolable))
    }

    pub fn from_attrs(attrs: &[Attribute], errors: &mut Errors) -> Container {
        let mut out = Container {
            new: Attr::none(NEW.name()),
            max_retained: Attr::none(MAX_RETAINED.name()),
            max_bytes: Attr::none(MAX_BYTES.name()),
            max_bytes_auto: Attr::none("max_bytes = \"auto\""),
            oversize: Attr::none(OVERSIZE.name()),
            name: Attr::none(NAME.name()),
            krate: Attr::none(CRATE.name()),
            bound: Attr::none(BOUND.name()),
            misplaced: Vec::new(),
        };
        for attr in poolable_attrs(attrs) {
            let result = attr.parse_nested_meta(|meta| {
                let key = &meta.path;
                if key == NEW {
                    if let Some(path) = path_value(&meta, NEW, errors)? {
                        out.new.set(errors, key, path);
                    }
                } else if key == MAX_BYTES && meta.input.peek(Token![=]) && meta.input.peek2(LitStr) {
                    let lit: LitStr = meta.value()?.parse()?;
                    if lit.value() == "auto" {
                        out.max_bytes_auto.set(errors, key, ());
                    } else {
                        errors.push(syn::Error::new(
                            lit.span(),
                            "`max_bytes` takes an integer, like `max_bytes = 65536`, or `\"auto\"` (an adaptive cap)",
                        ));
                    }
                } else if key == MAX_BYTES {
                    if let Some(value) = usize_value(&meta, MAX_BYTES, errors)? {
                        out.max_bytes.set(errors, key, value);
                    }
                } else if key == MAX_RETAINED {
                    if let Some(value) = usize_value(&meta, MAX_RETAINED, errors)? {
                        out.max_retained.set(errors, key, value);
                    }
                } else if key == OVERSIZE {
                    if let Some(lit) = string_value(&meta, "oversize = \"shrink\"", errors)? {
                        match lit.value().as_str() {
                            "shrink" => out.oversize.set(errors, key, Ident::new("Shrink", lit.span())),
                            "drop" => out.oversize.set(errors, key, Ident::new("Drop", lit.span())),
                            other => errors.push(syn::Error::new(
                                lit.span(),
                                format!("`oversize` is `\"drop\"` or `\"shrink\"`, not `\"{other}\"`"),
                            )),
                        }
                    }
                } else if key == NAME {
                    if let Some(lit) = string_value(&meta, "name = \"uploads\"", errors)? {
                        out.name.set(errors, key, lit);
                    }
                } else if key == CRATE {
                    if let Some(lit) = string_value(&meta, "crate = \"path::to::poolable\"", errors)? {
                        // A module's path: no generic arguments, which
                        // no path to a crate has.
                        match lit.parse_with(Path::parse_mod_style) {
                            Ok(path) => out.krate.set(errors, key, path),
                            Err(_) => errors.push(syn::Error::new(
                                lit.span(),
                                format!(
                                    "`crate` must be a module's path, like `crate = \"my::poolable\"`; `{}` is not one",
                                    lit.value()
                                ),
                            )),
                        }
                    }
                } else if key == BOUND {
                    if let Some(lit) = string_value(&meta, "bound = \"T: Reset\"", errors)? {
                        match lit.parse_with(Punctuated::<WherePredicate, Token![,]>::parse_terminated) {
                            Ok(predicates) => out.bound.set(errors, key, predicates.into_iter().collect()),
                            Err(e) => errors.push(syn::Error::new(
                                lit.span(),
                                format!("`bound` must be where-clause predicates, like `bound = \"T: Reset\"`: {e}"),
                            )),
                        }
                    }
                } else {
                    unknown_or_misplaced(&meta, CONTAINER_KEYS, FIELD_KEYS, "container", &mut out.misplaced, errors)?;
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        out
    }
}

impl Field {
    pub fn from_attrs(attrs: &[Attribute], errors: &mut Errors) -> Field {
        let mut out = Field {
            rule: Rule::Reset,
            max_capacity: Attr::none(MAX_CAPACITY.name()),
            zeroize: Attr::none(ZEROIZE.name()),
            heap_bytes: Attr::none(HEAP_BYTES.name()),
            check: Attr::none(CHECK.name()),
            misplaced: Vec::new(),
        };
        // The key that chose the rule: one `Attr` holds `skip`, `default` and
        // `with`, so the second of two is a duplicate or a conflict.
        let mut rule: Attr<Symbol> = Attr::none("reset rule");
        for attr in poolable_attrs(attrs) {
            let result = attr.parse_nested_meta(|meta| {
                let key = &meta.path;
                let mut set_rule = |symbol: Symbol, value: Rule, errors: &mut Errors| match rule
                    .get()
                {
                    Some(&other) if other != symbol => errors.spanned(
                        key,
                        format!("`{symbol}` conflicts with `{other}`: a field has one reset rule"),
                    ),
                    _ => {
                        rule.name = symbol.name();
                        if rule.get().is_none() {
                            out.rule = value;
                        }
                        rule.set(errors, key, symbol);
                    }
                };
                if key == SKIP {
                    if no_value(&meta, SKIP, errors)? {
                        set_rule(SKIP, Rule::Skip, errors);
                    }
                } else if key == DEFAULT {
                    if no_value(&meta, DEFAULT, errors)? {
                        set_rule(DEFAULT, Rule::Default, errors);
                    }
                } else if key == WITH {
                    if let Some(path) = path_value(&meta, WITH, errors)? {
                        set_rule(WITH, Rule::With(path), errors);
                    }
                } else if key == MAX_CAPACITY {
                    if let Some(value) = usize_value(&meta, MAX_CAPACITY, errors)? {
                        out.max_capacity.set(errors, key, value);
                    }
                } else if key == ZEROIZE {
                    if no_value(&meta, ZEROIZE, errors)? {
                        out.zeroize.set(errors, key, ());
                    }
                } else if key == HEAP_BYTES {
                    if let Some(path) = path_value(&meta, HEAP_BYTES, errors)? {
                        out.heap_bytes.set(errors, key, path);
                    }
                } else if key == CHECK {
                    if let Some(path) = path_value(&meta, CHECK, errors)? {
                        out.check.set(errors, key, path);
                    }
                } else {
                    unknown_or_misplaced(
                        &meta,
                        FIELD_KEYS,
                        CONTAINER_KEYS,
                        "field",
                        &mut out.misplaced,
                        errors,
                    )?;
                }
                Ok(())
            });
            if let Err(error) = result {
                errors.push(error);
            }
        }
        out
    }
}

/// A key this place does not take: one of `elsewhere` (recorded for `valid`,
/// which says where it goes) or unknown (reported now, with the nearest
/// known key if it looks like a typo). Its value is skipped either way.
fn unknown_or_misplaced(
    meta: &ParseNestedMeta<'_>,
    expected: &[Symbol],
    elsewhere: &[Symbol],
    place: &str,
    misplaced: &mut Vec<(Symbol, Path)>,
    errors: &mut Errors,
) -> syn::Result<()> {
    match elsewhere.iter().find(|&&symbol| meta.path == symbol) {
        Some(&symbol) => misplaced.push((symbol, meta.path.clone())),
        None => {
            let key = meta.path.to_token_stream().to_string().replace(' ', "");
            errors.spanned(&meta.path, unknown_key(&key, expected, place));
        }
    }
    skip_value(meta)
}

fn unknown_key(key: &str, expected: &[Symbol], place: &str) -> String {
    // A typo (`max_byte`, `zeroise`): name the key it most likely meant.
    let closest = expected
        .iter()
        .map(|k| (edit_distance(key, k.name()), k.name()))
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
        value(meta.value()?)?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

// The value readers below stop parsing (return `Err`) only when the tokens
// cannot be read at all. A value that reads but is wrong is recorded in
// `errors` and reading goes on, so the next mistake is reported too.

fn no_value(meta: &ParseNestedMeta<'_>, key: Symbol, errors: &mut Errors) -> syn::Result<bool> {
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

fn path_value(
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    errors: &mut Errors,
) -> syn::Result<Option<ExprPath>> {
    let input = meta.value()?;
    if let Some(closure) = closure(input)? {
        errors.spanned(
            closure,
            format!("`{key}` takes a path to a function, like `{key} = my_fn`, not a closure: write it as a `fn`"),
        );
        return Ok(None);
    }
    match value(input)? {
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

/// The tokens of a closure, `|args| body` or `move || body`, up to the
/// `,` after it: read by hand, as syn parses closures only with its `full`
/// feature, which this crate does not enable (without it, syn's error
/// would tell the user to enable it). A top-level `,` in the body ends it
/// early; the key after it is then misread, an error of its own.
fn closure(input: ParseStream<'_>) -> syn::Result<Option<TokenStream>> {
    if !(input.peek(Token![|])
        || input.peek(Token![||])
        || input.peek(Token![move])
        || input.peek(Token![async]))
    {
        return Ok(None);
    }
    input.step(|cursor| {
        let mut tokens = TokenStream::new();
        let mut rest = *cursor;
        // Bars seen: the arguments, between the first two, may hold commas.
        let mut bars = 0;
        while let Some((token, next)) = rest.token_tree() {
            if let TokenTree::Punct(punct) = &token {
                match punct.as_char() {
                    '|' => bars += 1,
                    ',' if bars != 1 => break,
                    _ => {}
                }
            }
            tokens.extend([token]);
            rest = next;
        }
        Ok((Some(tokens), rest))
    })
}

/// The value after a key's `=`: an expression as syn reads it without its
/// `full` feature, taken out of the invisible group a `macro_rules!`
/// fragment (`$v:literal`, `$v:expr`, `$v:path`) arrives in; else the
/// tokens up to the next `,` as they are (`if`, `match`, a block), for the
/// compiler to read where the value goes: syn's own error would tell the
/// user to enable its `full` feature, which is no help.
fn value(input: ParseStream<'_>) -> syn::Result<Expr> {
    let fork = input.fork();
    if let Ok(mut expr) = fork.parse::<Expr>() {
        if fork.is_empty() || fork.peek(Token![,]) {
            input.advance_to(&fork);
            while let Expr::Group(group) = expr {
                expr = *group.expr;
            }
            return Ok(expr);
        }
    }
    let tokens = input.step(|cursor| {
        let mut tokens = TokenStream::new();
        let mut rest = *cursor;
        while let Some((token, next)) = rest.token_tree() {
            if matches!(&token, TokenTree::Punct(punct) if punct.as_char() == ',') {
                break;
            }
            tokens.extend([token]);
            rest = next;
        }
        Ok((tokens, rest))
    })?;
    if tokens.is_empty() {
        return Err(input.error("expected a value after `=`"));
    }
    Ok(Expr::Verbatim(tokens))
}

fn string_value(
    meta: &ParseNestedMeta<'_>,
    example: &str,
    errors: &mut Errors,
) -> syn::Result<Option<LitStr>> {
    match value(meta.value()?)? {
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
    key: Symbol,
    errors: &mut Errors,
) -> syn::Result<Option<Expr>> {
    let expr = value(meta.value()?)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("zeroise", "zeroize"), 1);
        assert_eq!(edit_distance("max_byte", "max_bytes"), 1);
        assert_eq!(edit_distance("max_bytes", "max_byte"), 1);
        assert_eq!(edit_distance("abc", "ac"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("flaw", "lawn"), 2);
        assert_eq!(edit_distance("max_retianed", "max_retained"), 2);
    }

    /// A key is suggested up to a third of its length in edits (at least
    /// one), and not beyond.
    #[test]
    fn unknown_key_suggests_a_key_within_a_third_of_its_length() {
        // Two edits from `max_retained` (12 bytes: up to 4).
        assert_eq!(
            unknown_key("max_retianed", CONTAINER_KEYS, "container"),
            "unknown poolable container attribute `max_retianed`; did you mean `max_retained`?"
        );
        // Four edits from it: still suggested; five are not.
        assert!(
            unknown_key("m_rtined", CONTAINER_KEYS, "container")
                .ends_with("did you mean `max_retained`?")
        );
        assert!(unknown_key("mx_rtnd", CONTAINER_KEYS, "container").contains("expected one of"));
        // `new` (3 bytes) takes one edit, not two.
        assert!(unknown_key("nw", CONTAINER_KEYS, "container").ends_with("did you mean `new`?"));
        assert!(unknown_key("nwx", CONTAINER_KEYS, "container").contains("expected one of"));
        assert_eq!(
            unknown_key("frobnicate", FIELD_KEYS, "field"),
            "unknown poolable field attribute `frobnicate`; expected one of `skip`, `default`, \
             `with`, `max_capacity`, `zeroize`, `heap_bytes`, `check`"
        );
    }
}
