//! The generated code: the `Reset` impl (field-wise reset and heap
//! measurement), the `Drop` impl that wipes `zeroize` fields, and, for
//! `#[derive(Poolable)]`, the `Poolable` impl with the type's static pool.

use crate::ast::{Container, Derive, Field};
use crate::attr::Rule;
use crate::ctxt::Errors;
use crate::lean::{self, Lean, Std};
use crate::tokens::{Emit, Src, push, text_of};
use crate::valid;
use proc_macro2::{Delimiter, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use std::collections::BTreeSet;
use syn::spanned::Spanned;
use syn::{DeriveInput, GenericParam, Ident, Member, Path, Type, WherePredicate, parse_quote};

pub fn derive(input: &DeriveInput, derive: Derive) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let cont = Container::from_syn(input, &mut errors);
    valid::check(&cont, derive, &mut errors);
    errors.finish()?;
    let krate = cont.attrs.crate_path();
    let names = Names {
        krate: text_of(&krate),
        ident: cont.ident.to_string(),
    };

    // A struct without generic parameters (lifetimes included) has its
    // fields checked in one constant (unless there is nothing to check:
    // `is_std_only`), and its `Reset` impl calls the fields' impls through
    // one tuple (`compact_reset_impl`), written as source text but for what
    // carries a span (`tokens.rs`); a generic one names each field's type in
    // each method (`reset_impl`).
    let mut out = Src::default();
    // The lints the derive's code may raise where the user wrote nothing
    // wrong: a deprecated struct's own name, and a value written in
    // brackets (`max_retained = (8)`) where it becomes an argument. Each
    // lint named costs every derive a little to build, so only as needed.
    let bracketed = has_bracketed_value(&cont);
    if !cont.deprecated && !bracketed && is_std_only(&cont) {
        // No constant and no alias, so no `const _` around the impls to
        // keep those private, nor its `allow`: the impls alone, two thirds
        // of the code to build (`scripts/derive_cost.py`).
        let lean = Lean {
            ident: names.ident.clone(),
            vis: text_of(cont.vis),
            members: cont.fields.iter().map(member_text).collect(),
        };
        lean.expand(derive, &names.krate, &mut out, |out| {
            static_pool(&cont, &krate, &names, out)
        });
        return Ok(out.finish());
    }
    let mut allow = String::from("non_upper_case_globals, unused_qualifications");
    if cont.deprecated {
        allow.push_str(", deprecated");
    }
    if bracketed {
        allow.push_str(", unused_parens, unused_braces");
    }
    out.text(&format!("#[doc(hidden)] #[allow({allow})] const _: () ="));
    out.group(Delimiter::Brace, |out| {
        if cont.generics.params.is_empty() {
            fields_check(&cont, derive, &krate, &names, out);
            let checked = format!("__PoolableChecked<{}>", names.ident);
            compact_reset_impl(&cont, &krate, &names, &checked, out);
        } else {
            out.tokens(reset_impl(&cont, &krate));
        }
        if let Some(drop) = drop_impl(&cont, &krate) {
            out.tokens(drop);
        }
        if let Derive::Poolable = derive {
            poolable_impl(&cont, &krate, &names, out);
        }
    });
    out.tokens(Punct::new(';', Spacing::Alone));
    Ok(out.finish())
}

/// Whether the struct is one whose fields need no check (`fields_check`):
/// no generic parameters, and fields that are all plain (`is_plain`, with
/// no `zeroize` or `max_capacity` either) and of a type that is, by its
/// spelling, one of std's with a `Reset` impl and `Send` (`is_std_type`).
///
/// The spelling is all a derive sees: a type of the user's own named
/// `String` (or a `Vec` of its own) is taken for std's. Its impls are then
/// the ones called, as for any field; only if it has no `Reset` impl, or
/// is not `Send`, the error comes from the impl's body or the static pool
/// instead of from a check at the field: later, and less to the point,
/// but an error all the same.
fn is_std_only(cont: &Container<'_>) -> bool {
    cont.generics.params.is_empty()
        && !cont.fields.is_empty()
        && cont.fields.iter().all(|field| {
            is_plain(field)
                && field.attrs.zeroize.get().is_none()
                && field.attrs.max_capacity.get().is_none()
                && is_std_type(field.ty)
        })
}

/// Whether `ty` is, as spelt, one of std's types with a `Reset` impl that
/// is `Send` (`lean::classify` lists them).
fn is_std_type(ty: &Type) -> bool {
    std_kind(ty).is_std()
}

/// What `ty` is to `lean::classify`: an array of its element's kind, a
/// one-segment type path by its name and type arguments; any other type
/// (a path with more segments or other arguments, too) is none of std's.
fn std_kind(ty: &Type) -> Std {
    if let Type::Array(array) = ty {
        return lean::array(std_kind(&array.elem));
    }
    let Type::Path(path) = ty else {
        return Std::No;
    };
    let segments = &path.path.segments;
    if path.qself.is_some() || path.path.leading_colon.is_some() || segments.len() != 1 {
        return Std::No;
    }
    let segment = &segments[0];
    let args = match &segment.arguments {
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::AngleBracketed(args) => {
            let mut kinds = Vec::new();
            for arg in &args.args {
                match arg {
                    syn::GenericArgument::Type(ty) => kinds.push(std_kind(ty)),
                    _ => return Std::No,
                }
            }
            kinds
        }
        syn::PathArguments::Parenthesized(_) => return Std::No,
    };
    lean::classify(&segment.ident.to_string(), &args)
}

/// Whether a number the derive passes as an argument (`max_bytes`,
/// `max_retained`, `max_capacity`) is written in brackets, `(8)` or `{ 8 }`.
fn has_bracketed_value(cont: &Container<'_>) -> bool {
    let bracketed = |expr: &syn::Expr| match expr {
        syn::Expr::Paren(_) | syn::Expr::Block(_) => true,
        syn::Expr::Verbatim(tokens) => {
            matches!(tokens.clone().into_iter().next(), Some(TokenTree::Group(_)))
        }
        _ => false,
    };
    let attrs = &cont.attrs;
    [attrs.max_bytes.get(), attrs.max_retained.get()]
        .into_iter()
        .chain(cont.fields.iter().map(|f| f.attrs.max_capacity.get()))
        .flatten()
        .any(bracketed)
}

/// The crate's path and the struct's name, as source text.
struct Names {
    krate: String,
    ident: String,
}

/// A field that its type's own `Reset` impl resets, measures and checks,
/// with no rule or measure of its own: the fields `compact_reset_impl`
/// passes as one tuple (`max_capacity` and `zeroize` add statements around
/// it).
fn is_plain(field: &Field<'_>) -> bool {
    matches!(field.attrs.rule, Rule::Reset)
        && field.attrs.heap_bytes.get().is_none()
        && field.attrs.check.get().is_none()
}

/// `(&mut __this.a, &mut __this.b,)` for the plain fields, with `by` =
/// `&mut __this.` (or `&__this.`), as source text (`lean::fields_tuple`);
/// `None` if there are none.
fn fields_tuple(cont: &Container<'_>, by: &str) -> Option<String> {
    let members: Vec<String> = cont
        .fields
        .iter()
        .filter(|field| is_plain(field))
        .map(member_text)
        .collect();
    (!members.is_empty()).then(|| lean::fields_tuple(&members, by))
}

/// A field's name (or index) as source text.
fn member_text(field: &Field<'_>) -> String {
    match &field.member {
        Member::Named(name) => name.to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// The `Reset` impl of a struct without generic parameters: the plain
/// fields through one tuple (`__private::reset((&mut this.a, ..))`), the
/// others field by field. With `checked` (`__PoolableChecked<Struct>`:
/// `fields_check`), each method first names `self` as `__this` of that
/// type, so when a field fails its check the method adds no error of its
/// own. (The impl's self type cannot be named so: the check asks which
/// types have a `Reset` impl, and so needs every impl's self type first.)
/// A struct with no checks (`is_std_only`) has `Lean::expand`'s instead.
fn compact_reset_impl(
    cont: &Container<'_>,
    krate: &Path,
    names: &Names,
    checked: &str,
    out: &mut Src,
) {
    let Names { krate: k, ident } = names;
    let this = format!("let __this: &{checked} = self;");
    let this_mut = format!("let __this: &mut {checked} = self;");
    let others: Vec<&Field<'_>> = cont.fields.iter().filter(|f| !is_plain(f)).collect();
    let fields_mut = fields_tuple(cont, "&mut __this.");
    let fields = fields_tuple(cont, "&__this.");
    // `__private::heap_bytes(fields)`, or `zero` if no field is plain.
    let through = |method: &str, zero: &str| match &fields {
        Some(fields) => format!("{k}::__private::{method}({fields})"),
        None => zero.to_owned(),
    };
    // `.saturating_add(part)` for each part.
    let add = |out: &mut Src, parts: &mut dyn Iterator<Item = TokenStream>| {
        for part in parts {
            out.text(".saturating_add");
            out.group(Delimiter::Parenthesis, |out| {
                out.tokens(part);
            });
        }
    };
    out.text(&format!(
        "#[automatically_derived] #[diagnostic::do_not_recommend] impl {k}::Reset for {ident}"
    ));
    out.group(Delimiter::Brace, |out| {
        out.text("#[inline] fn reset(&mut self)");
        out.group(Delimiter::Brace, |out| {
            out.text(&this_mut);
            for wipe in cont.fields.iter().filter_map(|f| wipe_field(f, krate)) {
                out.tokens(wipe);
            }
            if let Some(fields) = &fields_mut {
                out.text(&format!("{k}::__private::reset({fields});"));
            }
            for field in &cont.fields {
                if !is_plain(field) {
                    out.tokens(reset_rule(field, krate));
                }
                if let Some(shrink) = shrink_to(field, krate) {
                    out.tokens(shrink);
                }
            }
        });
        // The three measures in one method (`Reset::__measure`): through
        // the tuple alone when every field is plain, else one arm each.
        out.text(&format!(
            "#[inline] fn __measure(&self, __what: {k}::__private::Measure) -> ::core::option::Option<usize>"
        ));
        out.group(Delimiter::Brace, |out| {
            out.text(&this);
            if let (Some(fields), true) = (&fields, others.is_empty()) {
                out.text(&format!("{k}::__private::measure(__what, {fields})"));
                return;
            }
            out.text("::core::option::Option::Some");
            out.group(Delimiter::Parenthesis, |out| {
                out.text("match __what");
                out.group(Delimiter::Brace, |out| {
                    out.text(&format!("{k}::__private::Measure::Heap =>"));
                    out.text(&through("heap_bytes", "0usize"));
                    add(
                        out,
                        &mut others.iter().filter_map(|f| field_heap_bytes(f, krate)),
                    );
                    out.text(&format!(", {k}::__private::Measure::Used =>"));
                    out.text(&through("used_bytes", "0usize"));
                    add(
                        out,
                        &mut others.iter().filter_map(|f| field_used_bytes(f, krate)),
                    );
                    out.text(&format!(", {k}::__private::Measure::IsReset => usize::from"));
                    out.group(Delimiter::Parenthesis, |out| {
                        out.text(&through("is_reset", "true"));
                        for check in others.iter().filter_map(|f| field_is_reset(f, krate)) {
                            out.text("&&");
                            out.tokens(check);
                        }
                    });
                });
            });
        });
        // One level for every field reset by its own impl: through the tuple
        // when those are all plain, else field by field (`shrink_heap`).
        match &fields_mut {
            // The fields' heap bytes are the struct's.
            Some(fields) if others.is_empty() => {
                out.text(&format!(
                    "#[inline] fn shrink_heap(&mut self, __max_bytes: usize) {{ \
                     {this_mut} {k}::__private::shrink_fields({fields}, __max_bytes) }}"
                ));
            }
            Some(fields) if others.iter().all(|f| !matches!(f.attrs.rule, Rule::Reset)) => {
                out.text(&format!(
                    "#[inline] fn shrink_heap(&mut self, __max_bytes: usize) {{ \
                     let __total = {k}::Reset::heap_bytes(self); \
                     {this_mut} \
                     {k}::__private::shrink_heap(__total, {fields}, __max_bytes) }}"
                ));
            }
            _ => {
                let (alias, ident) = (checked_alias(Span::call_site()), cont.ident);
                let this_ty = quote!(#alias<#ident>);
                out.tokens(shrink_heap(cont, krate, &this_ty));
            }
        }
    });
}

/// The fields' checks of a struct without generic parameters, in one
/// constant, each spanned on its field's type, so a field that fails one is
/// one error, there: every field reset by its own impl has a `Reset` impl,
/// and, for `#[derive(Poolable)]`, every field is `Send` and, without
/// `new`, the struct has `Default`. A field of a std type the derive knows
/// by its spelling (`is_std_type`) passes both and is not checked: each
/// check costs a struct about 80,000 instructions to build
/// (`scripts/derive_cost.py`'s last row), and a struct of those alone has
/// no checks at all (`is_std_only`). The
/// `__PoolableChecked` alias names types through the constant: when a check
/// fails, the alias is an error type, and so is every type named through it
/// (`__this` in each `Reset` method, the pool's), which rustc then reports
/// nothing more about. (One constant, not one for `Send` and one for
/// `Reset`, costs a third less to build; a field that is neither `Send` nor
/// `Reset` is then two errors, at the field.)
fn fields_check(cont: &Container<'_>, derive: Derive, krate: &Path, names: &Names, out: &mut Src) {
    let site = Span::call_site();
    let sent = matches!(derive, Derive::Poolable);
    // Each field's type as the constant names it: it is an item of its own,
    // where `Self` is not the struct.
    let ty = |out: &mut TokenStream, field: &Field<'_>| {
        if field.names_self {
            out.extend(self_named(field.ty.to_token_stream(), cont.ident));
        } else {
            field.ty.to_tokens(out);
        }
    };
    // `let _ = <Ty as ::poolable::__private::SendField>::OK;` for each
    // field of a pool, and `let _ = <Ty as ::poolable::Reset>::reset;` for
    // each field reset by its own impl, spanned from the type's first token
    // to its last, so an error underlines the whole type (see `checked_ty`).
    let checks = Emit(|out: &mut TokenStream| {
        for field in cont.fields.iter().filter(|field| !is_std_type(field.ty)) {
            let mut check = |what: &str| {
                push(out, site, "let _ =");
                push(out, field.span, "<");
                ty(out, field);
                push(out, field.span_end, "as");
                push(out, site, &names.krate);
                push(out, field.span_end, what);
                push(out, site, ";");
            };
            if sent {
                check("::__private::SendField>::OK");
            }
            if matches!(field.attrs.rule, Rule::Reset) {
                check("::Reset>::reset");
            }
        }
    });
    // A pool without `new` constructs with `Default`: checked here, spanned
    // on the struct's name, so the pool's code (named through the alias)
    // adds no error of its own.
    let ident = cont.ident;
    let default = (sent && cont.attrs.new.get().is_none()).then(|| {
        quote_spanned!(ident.span()=> let _ = <#ident as #krate::__private::NewByDefault>::new_by_default;)
    });
    out.text("const __POOLABLE_FIELDS_OK: bool =");
    out.group(Delimiter::Brace, |out| {
        out.tokens(checks)
            .tokens(default)
            .tokens(Ident::new("true", site));
    });
    out.text(&format!(
        "; type __PoolableChecked<T> = <T as {}::__private::Checked<__POOLABLE_FIELDS_OK>>::Is;",
        names.krate
    ));
}

fn reset_impl(cont: &Container<'_>, krate: &Path) -> TokenStream {
    let ident = cont.ident;
    let (impl_generics, ty_generics, _) = cont.generics.split_for_impl();
    let where_clause = where_clause(cont, reset_bounds(cont, krate));
    // Every wipe before any reset: a reset rule may panic, and the fields
    // after it would then be dropped without their reset.
    let wipes = cont
        .fields
        .iter()
        .filter_map(|field| wipe_field(field, krate));
    let resets = cont.fields.iter().map(|field| reset_field(field, krate));
    let sizes = cont
        .fields
        .iter()
        .filter_map(|field| field_heap_bytes(field, krate));
    let used = cont
        .fields
        .iter()
        .filter_map(|field| field_used_bytes(field, krate));
    let shrink = shrink_heap(cont, krate, &quote!(Self));
    let checks = cont
        .fields
        .iter()
        .filter_map(|field| field_is_reset(field, krate));
    // The impl of a non-generic struct is left out of rustc's "the
    // following other types implement `Reset`" lists, as the runtime's are:
    // a type missing an impl is not helped by a list of the ones that have
    // one. A generic one keeps rustc's note on which of its bounds failed,
    // which `do_not_recommend` would hide.
    let unlisted = (!is_generic(cont)
        && where_clause
            .as_ref()
            .is_none_or(|clause| clause.predicates.is_empty()))
    .then(|| quote!(#[diagnostic::do_not_recommend]));
    let alias = checked_alias(Span::call_site());
    quote! {
        // How the fields' types are named (`checked_ty`): as they are.
        type #alias<T> = T;

        #[automatically_derived]
        #unlisted
        impl #impl_generics #krate::Reset for #ident #ty_generics #where_clause {
            #[inline]
            fn reset(&mut self) {
                let __this = self;
                #(#wipes)*
                #(#resets)*
            }

            #[inline]
            fn heap_bytes(&self) -> usize {
                let __this = self;
                0usize #(.saturating_add(#sizes))*
            }

            #[inline]
            fn is_reset(&self) -> bool {
                let __this = self;
                true #(&& #checks)*
            }

            #[inline]
            fn used_bytes(&self) -> usize {
                let __this = self;
                0usize #(.saturating_add(#used))*
            }

            #shrink
        }
    }
}

/// `Reset::shrink_heap` (for `oversize = "shrink"`): the fields reset by their
/// `Reset` impl shrink to one level, chosen so the struct fits
/// (`shrink_level`), so small fields keep their buffers and the largest is
/// cut; fields with another rule keep theirs. Nothing (the trait's no-op)
/// for a struct with no such field.
fn shrink_heap(cont: &Container<'_>, krate: &Path, this_ty: &TokenStream) -> TokenStream {
    let shrinkable: Vec<&Field<'_>> = cont
        .fields
        .iter()
        .filter(|field| matches!(field.attrs.rule, Rule::Reset))
        .collect();
    if shrinkable.is_empty() {
        return TokenStream::new();
    }
    let parts = shrinkable
        .iter()
        .filter_map(|field| field_heap_bytes(field, krate));
    // The locals keep the derive's own span (see `wipe_field`).
    let (this, level) = (quote!(__this), quote!(level));
    let shrinks = shrinkable.iter().map(
        |field| {
            let (member, checked) = (&field.member, checked_ty(field));
            quote_spanned!(field.span=> <#checked as #krate::Reset>::shrink_heap(&mut #this.#member, #level);)
        },
    );
    quote! {
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = <Self as #krate::Reset>::heap_bytes(self);
            if __total <= __max_bytes {
                return;
            }
            let #this: &mut #this_ty = self;
            let level = #krate::__private::shrink_level(__total, &[#(#parts),*], __max_bytes);
            #(#shrinks)*
        }
    }
}

/// The wipe of a `zeroize` field, spanned on its type so a missing
/// `Zeroize` impl is reported at the field.
fn wipe_field(field: &Field<'_>, krate: &Path) -> Option<TokenStream> {
    let Field {
        member,
        ty,
        span,
        attrs,
        ..
    } = field;
    // `__this` (the method's `self`) keeps the derive's own span: spanned on
    // the field, it would take the hygiene of a `macro_rules!` that defined
    // the struct and not resolve. The locals a user's path can see (`__this`,
    // `__field`, `__what`, `__total`, `__max_bytes`) have reserved names, so
    // they do not shadow the user's functions (`with = field`).
    let this = quote!(__this);
    attrs
        .zeroize
        .get()
        .map(|()| quote_spanned!(*span=> <#ty as #krate::Zeroize>::zeroize(&mut #this.#member);))
}

/// `impl Drop` wiping every `zeroize` field, for a struct that has one: a
/// value can be dropped without a reset (a guard dropped during a panic, a
/// panicking reset, a container's reset dropping it), and its secret must not
/// reach the allocator unwiped on any of those paths (`ZeroizeOnDrop` in the
/// `zeroize` crate does the same).
///
/// The impl has exactly the struct's generics and where-clause, as a `Drop`
/// impl must. It is spanned on the first `zeroize` key, so a `Drop` impl of
/// the user's own is reported as a conflict there.
fn drop_impl(cont: &Container<'_>, krate: &Path) -> Option<TokenStream> {
    let key = cont
        .fields
        .iter()
        .find_map(|field| field.attrs.zeroize.span())?;
    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
    let wipes = cont
        .fields
        .iter()
        .filter_map(|field| wipe_field(field, krate));
    let body = quote! {
        fn drop(&mut self) {
            let __this = self;
            #(#wipes)*
        }
    };
    let at = Span::call_site().located_at(key);
    Some(quote_spanned! {at=>
        #[automatically_derived]
        impl #impl_generics ::core::ops::Drop for #ident #ty_generics #where_clause {
            #body
        }
    })
}

/// The statements that reset one field (its wipe comes earlier, in
/// `wipe_field`), spanned on its type so a missing impl is reported at the
/// field.
fn reset_field(field: &Field<'_>, krate: &Path) -> TokenStream {
    let rule = reset_rule(field, krate);
    let shrink = shrink_to(field, krate);
    quote!(#rule #shrink)
}

/// What a field's rule does to it.
fn reset_rule(field: &Field<'_>, krate: &Path) -> TokenStream {
    let Field {
        member,
        ty,
        span,
        attrs,
        ..
    } = field;
    // `__this` keeps the derive's own span: see `wipe_field`.
    let this = quote!(__this);
    match &attrs.rule {
        Rule::Reset => {
            let checked = checked_ty(field);
            quote_spanned!(*span=> <#checked as #krate::Reset>::reset(&mut #this.#member);)
        }
        Rule::Skip => TokenStream::new(),
        Rule::Default => {
            quote_spanned!(*span=> #this.#member = <#ty as ::core::default::Default>::default();)
        }
        Rule::With(path) => {
            // Coercing the path to `fn(&mut Ty)` admits exactly the functions
            // that reset a field (generic ones like `Vec::clear` included) and
            // rejects the rest, `Vec::len` say, whose result a plain call
            // would silently discard. Spanned on the path, so the mismatch
            // points at `with = path`; the locals resolve at the call site,
            // so this works in a struct defined by a `macro_rules!` too.
            let at = Span::call_site().located_at(path.span());
            let (field, reset) = (Ident::new("__field", at), Ident::new("reset", at));
            let call = quote_spanned!(path.span()=>
                let #reset: fn(&mut #ty) = #path;
                #reset(#field);
            );
            quote!({ let #field = &mut #this.#member; #call })
        }
    }
}

/// A `max_capacity` field's shrink, after its reset.
fn shrink_to(field: &Field<'_>, krate: &Path) -> Option<TokenStream> {
    let (member, ty, this) = (&field.member, field.ty, quote!(__this));
    field.attrs.max_capacity.get().map(
        |cap| quote_spanned!(field.span=> <#ty as #krate::Shrink>::shrink_to(&mut #this.#member, #cap);),
    )
}

/// A field's heap bytes: its `heap_bytes = path`, else `Reset::heap_bytes`
/// for fields reset by their `Reset` impl. Fields with another rule have no
/// `Reset` impl to ask, and are not counted.
fn field_heap_bytes(field: &Field<'_>, krate: &Path) -> Option<TokenStream> {
    let Field {
        member,
        ty,
        span,
        attrs,
        ..
    } = field;
    let this = quote!(__this);
    match (attrs.heap_bytes.get(), &attrs.rule) {
        (Some(path), _) => Some(quote_spanned!(path.span()=> {
            let measure: fn(&#ty) -> usize = #path;
            measure(&#this.#member)
        })),
        (None, Rule::Reset) => {
            let checked = checked_ty(field);
            Some(quote_spanned!(*span=> <#checked as #krate::Reset>::heap_bytes(&#this.#member)))
        }
        (None, _) => None,
    }
}

/// Whether a field is reset (`Reset::is_reset`): its `check = path`, else
/// its type's `is_reset` for a field reset by its `Reset` impl, and, for a
/// `with` or `default` field, the type's `is_reset` if it has one (autoref
/// specialisation: `__private::IsReset`). A `skip` field keeps its state on
/// purpose and is not checked.
fn field_is_reset(field: &Field<'_>, krate: &Path) -> Option<TokenStream> {
    let Field {
        member,
        ty,
        span,
        attrs,
        ..
    } = field;
    let this = quote!(__this);
    if let Some(path) = attrs.check.get() {
        return Some(quote_spanned!(path.span()=> {
            let check: fn(&#ty) -> bool = #path;
            check(&#this.#member)
        }));
    }
    match &attrs.rule {
        Rule::Reset => {
            let checked = checked_ty(field);
            Some(quote_spanned!(*span=> <#checked as #krate::Reset>::is_reset(&#this.#member)))
        }
        Rule::With(_) | Rule::Default => Some(quote! {{
            #[allow(unused_imports)]
            use #krate::__private::{IsResetFallback as _, IsResetViaReset as _};
            (&#krate::__private::IsReset(&#this.#member)).is_reset()
        }}),
        Rule::Skip => None,
    }
}

/// A field's used bytes (`Reset::used_bytes`): for a field reset by its
/// `Reset` impl, that impl's; a `heap_bytes = path` measure stands for both.
/// The fields `field_heap_bytes` counts, no others.
fn field_used_bytes(field: &Field<'_>, krate: &Path) -> Option<TokenStream> {
    let Field {
        member,
        span,
        attrs,
        ..
    } = field;
    let this = quote!(__this);
    match (attrs.heap_bytes.get(), &attrs.rule) {
        (None, Rule::Reset) => {
            let checked = checked_ty(field);
            Some(quote_spanned!(*span=> <#checked as #krate::Reset>::used_bytes(&#this.#member)))
        }
        _ => field_heap_bytes(field, krate),
    }
}

/// A field type as the `Reset` impl names it when it calls the field's
/// `Reset`: `__PoolableChecked<Ty>`, which is `Ty` itself, unless a field
/// of a struct without generic parameters failed its check
/// (`fields_check`): then it is an error type, and the `Reset` impl adds no
/// error of its own.
fn checked_ty(field: &Field<'_>) -> TokenStream {
    // Spanned on the field type, from its first token to its last, so that
    // an error about the type underlines the whole of it, as it would the
    // type alone (a span of the derive's own would move it to the derive).
    // The alias is an item, which a `macro_rules!` that defines the struct
    // does not make hygienic: it resolves all the same.
    let ty = field.ty;
    let alias = checked_alias(field.span);
    let open = quote_spanned!(field.span=> <);
    let close = quote_spanned!(field.span_end=> >);
    quote!(#alias #open #ty #close)
}

/// `__PoolableChecked`: the alias of a type through the fields' checks
/// (`fields_check`), or of the type itself in `reset_impl`.
fn checked_alias(span: Span) -> Ident {
    Ident::new("__PoolableChecked", span)
}

/// Inferred bounds, serde style: `T: Reset` for each type parameter that a
/// field reset by its `Reset` impl mentions (not `FieldType: Reset`, which
/// would send a recursive type into an infinite bound), plus the exact field
/// type for fields whose rule needs another trait.
fn reset_bounds(cont: &Container<'_>, krate: &Path) -> Vec<WherePredicate> {
    if let Some(bound) = cont.attrs.bound.get() {
        return bound.clone();
    }
    let params = type_params(cont);
    if params.is_empty() {
        return Vec::new();
    }
    let mut reset_params = BTreeSet::new();
    let mut bounds = Vec::new();
    for field in &cont.fields {
        let (used, projected) = type_params_in(field.ty, &params);
        // `PhantomData<T>` resets for any `T` (serde makes the same exception).
        if (used.is_empty() && !projected) || is_phantom_data(field.ty) {
            continue;
        }
        let ty = field.ty;
        match &field.attrs.rule {
            Rule::Reset => {
                reset_params.extend(used);
                // `Vec<C::Item>` needs what `C::Item` has, not `C: Reset`:
                // the field's own type is bounded.
                if projected {
                    bounds.push(parse_quote!(#ty: #krate::Reset));
                }
            }
            Rule::Default => bounds.push(parse_quote!(#ty: ::core::default::Default)),
            Rule::Skip | Rule::With(_) => {}
        }
        if field.attrs.max_capacity.get().is_some() {
            bounds.push(parse_quote!(#ty: #krate::Shrink));
        }
        if field.attrs.zeroize.get().is_some() {
            bounds.push(parse_quote!(#ty: #krate::Zeroize));
        }
    }
    let mut all: Vec<WherePredicate> = reset_params
        .into_iter()
        .map(|p| parse_quote!(#p: #krate::Reset))
        .collect();
    all.extend(bounds);
    all
}

/// `PhantomData<..>`, however it is spelled (`core::marker::PhantomData`...).
fn is_phantom_data(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|last| last.ident == "PhantomData"))
}

fn where_clause(cont: &Container<'_>, extra: Vec<WherePredicate>) -> Option<syn::WhereClause> {
    let mut clause = cont.generics.where_clause.clone();
    if !extra.is_empty() {
        clause
            .get_or_insert_with(|| parse_quote!(where))
            .predicates
            .extend(extra);
    }
    clause
}

/// `tokens` with each `Self` replaced by `ident` (spanned as the `Self` was):
/// a field's type as an item outside the struct's impls can name it.
fn self_named(tokens: TokenStream, ident: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(this) if this == "Self" => {
                let mut named = ident.clone();
                named.set_span(this.span());
                TokenTree::Ident(named)
            }
            TokenTree::Group(group) => {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), self_named(group.stream(), ident));
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

/// The struct's type parameters' names.
fn type_params(cont: &Container<'_>) -> BTreeSet<Ident> {
    cont.generics
        .type_params()
        .map(|p| p.ident.clone())
        .collect()
}

/// The type parameters named in `ty` as types, and whether it names an
/// associated type of one (`T::Item`, `<T as Trait>::Item`), which is not
/// a use of `T` itself. A token walk: it may over-approximate (a path
/// `other::T`), which only adds a bound.
fn type_params_in(ty: &Type, params: &BTreeSet<Ident>) -> (BTreeSet<Ident>, bool) {
    fn walk(
        tokens: TokenStream,
        params: &BTreeSet<Ident>,
        found: &mut BTreeSet<Ident>,
        projected: &mut bool,
    ) {
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                TokenTree::Ident(ident) if params.contains(&ident) => {
                    let projection = match tokens.peek() {
                        Some(TokenTree::Punct(p)) => {
                            p.as_char() == ':' && p.spacing() == Spacing::Joint
                        }
                        Some(TokenTree::Ident(next)) => next == "as",
                        _ => false,
                    };
                    if projection {
                        *projected = true;
                    } else {
                        found.insert(ident);
                    }
                }
                TokenTree::Group(group) => walk(group.stream(), params, found, projected),
                _ => {}
            }
        }
    }
    let (mut found, mut projected) = (BTreeSet::new(), false);
    walk(ty.to_token_stream(), params, &mut found, &mut projected);
    (found, projected)
}

fn is_generic(cont: &Container<'_>) -> bool {
    cont.generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)))
}

/// The builder calls the container attributes ask for, after `with_new`:
/// `.max_retained(n)`, `.max_bytes_auto()`, `.max_bytes(n)`, `.oversize(..)`,
/// `.name(..)`.
fn pool_chain(cont: &Container<'_>, krate: &Path) -> Vec<TokenStream> {
    let attrs = &cont.attrs;
    [
        attrs.max_retained.get().map(|n| quote!(.max_retained(#n))),
        attrs
            .max_bytes_auto
            .get()
            .map(|()| quote!(.max_bytes_auto())),
        attrs.max_bytes.get().map(|n| quote!(.max_bytes(#n))),
        attrs
            .oversize
            .get()
            .map(|variant| quote!(.oversize(#krate::Oversize::#variant))),
        attrs.name.get().map(|name| quote!(.name(#name))),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A non-generic struct's static pool, as its `static`'s initialiser:
/// `ManuallyDrop::new(Pool::with_new(new))`, then the container
/// attributes' calls (`pool_chain`); with neither `new` nor those,
/// `__private::pool_by_default()`, which costs less to build. The pool's
/// type and the constructor's `Self` are inferred from the static's:
/// naming the checked type again costs more to build than the inference. A
/// `static` is an item of its own, where `Self` is not the struct: the
/// attributes' values name it instead.
fn static_pool(cont: &Container<'_>, krate: &Path, names: &Names, out: &mut Src) {
    let k = &names.krate;
    let chain = pool_chain(cont, krate);
    let new = cont.attrs.new.get();
    if new.is_none() && chain.is_empty() {
        // Unchecked, this is where a missing `Default` is reported: at the
        // derive (the check reports it at the struct's name; spanned there,
        // the call would cost every struct a tenth more to build, as the
        // groups around it could no longer be text).
        out.text(&format!("{k}::__private::pool_by_default()"));
        return;
    }
    out.text("::core::mem::ManuallyDrop::new");
    out.group(Delimiter::Parenthesis, |out| {
        out.text(&format!("{k}::Pool::with_new"));
        out.group(Delimiter::Parenthesis, |out| match new {
            Some(path) => {
                out.tokens(self_named(path.to_token_stream(), cont.ident));
            }
            None => {
                out.text(&format!("{k}::__private::NewByDefault::new_by_default"));
            }
        });
        for call in chain {
            out.tokens(self_named(call, cont.ident));
        }
    });
}

fn poolable_impl(cont: &Container<'_>, krate: &Path, names: &Names, out: &mut Src) {
    let ident = cont.ident;
    let (impl_generics, ty_generics, _) = cont.generics.split_for_impl();

    if !is_generic(cont) {
        let Names { krate: k, ident } = names;
        let pool = format!("{k}::Pool<__PoolableChecked<{ident}>>");
        // The pool's type names the struct through the fields' checks
        // (`fields_check`), which check its `Default` too when it has no
        // `new`: when a field is not `Send`, or the struct has no
        // `Default`, the static's type is an error type, and the check's
        // error is the only one (no "`Pool<..>` cannot be shared between
        // threads", no unmet bounds of its constructor). A struct with no
        // checks (`is_std_only`) has `Lean::expand`'s pool, which names the
        // struct itself.
        //
        // `T::pool()` finds the inherent function first, whose signature
        // names the pool the same way: so a use of the pool
        // (`Session::pool().get()`) has an error type too when the check
        // fails, and adds no error of its own. Through the trait, it would:
        // the trait's signature says `Pool<Self>`, and its bound is `Send`.
        //
        // `ManuallyDrop`: a static is never dropped, but rustc generates its
        // type's drop glue anyway, and a pool's pulls in the whole runtime
        // for every derived type, used or not (`scripts/derive_cost.py`
        // measures it).
        //
        // The function is hidden from the docs, with no doc comment: a doc
        // attribute is one more thing per type to build. The inherent impl
        // is not `#[automatically_derived]`: that attribute is for trait
        // impls, and rustc is phasing it out elsewhere.
        out.text(&format!("impl {ident}"));
        out.group(Delimiter::Brace, |out| {
            out.text(&format!(
                "#[doc(hidden)] #[inline] {} fn pool() -> &'static {pool}",
                text_of(cont.vis)
            ));
            out.group(Delimiter::Brace, |out| {
                out.text(&format!("static POOL: ::core::mem::ManuallyDrop<{pool}> ="));
                static_pool(cont, krate, names, out);
                out.text("; &POOL");
            });
        });
        // The trait impl's bound is `Poolable: Send`, for the impl's users to
        // meet rather than for the impl to prove, which would report the
        // field again, through the struct; `for<'a>` keeps rustc from
        // checking it where it is written, as it checks a bound that names
        // no generic parameter. The impl holds wherever the struct is
        // `Send`: everywhere, once the crate compiles.
        out.text(&format!(
            "#[automatically_derived] impl {k}::Poolable for {ident} \
             where for<'a> {ident}: ::core::marker::Send \
             {{ #[inline] fn pool() -> &'static {k}::Pool<Self> {{ {ident}::pool() }} }}"
        ));
        return;
    }

    let chain = pool_chain(cont, krate);
    let new = match cont.attrs.new.get() {
        Some(path) => quote!(#path),
        None => {
            quote_spanned!(ident.span()=> <#ident #ty_generics as #krate::__private::NewByDefault>::new_by_default)
        }
    };
    // A `static` in a generic fn would be shared by every instantiation, so
    // generic types get their pools from the runtime's `TypeId` registry.
    let mut bounds = reset_bounds(cont, krate);
    for param in cont.generics.type_params() {
        let p = &param.ident;
        bounds.push(parse_quote!(#p: ::core::marker::Send + 'static));
    }
    let params = type_params(cont);
    // A field of an associated type (`Vec<C::Item>`) is `Send` by its own
    // bound, not by `C: Send`.
    for field in &cont.fields {
        let ty = field.ty;
        if type_params_in(ty, &params).1 {
            bounds.push(parse_quote!(#ty: ::core::marker::Send + 'static));
        }
    }
    if cont.attrs.new.get().is_none() {
        bounds.push(parse_quote!(#ident #ty_generics: ::core::default::Default));
    }
    let where_clause = where_clause(cont, bounds);
    // Built in a `const` block, as a plain type's `static` is: the
    // attributes' values are constant expressions for both (the closure
    // alone, run on first use, took any expression).
    out.tokens(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Poolable for #ident #ty_generics #where_clause {
            fn pool() -> &'static #krate::Pool<Self> {
                #krate::__private::generic_pool::<Self>(|| const {
                    #krate::Pool::<Self>::with_new(#new) #(#chain)*
                })
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::is_std_type;

    #[test]
    fn std_types_are_known_by_their_spelling() {
        let known = |ty: &str| is_std_type(&syn::parse_str(ty).expect("a type"));
        for ty in [
            "u64",
            "f64",
            "String",
            "[u8; 16]",
            "Vec<Option<Box<String>>>",
            "VecDeque<u8>",
            "BTreeMap<f32, Vec<u8>>",
            "HashMap<String, Vec<String>>",
            "HashSet<u32>",
            "BTreeSet<char>",
        ] {
            assert!(known(ty), "{ty}");
        }
        for ty in [
            "std::string::String",
            "::std::vec::Vec<u8>",
            "Rc<u8>",
            "Duration",
            "Vec<Rc<u8>>",
            "Self",
            "Option<Self>",
            "&'static str",
            "(u8, u8)",
            "HashMap<f64, u8>",
            "HashSet<f32>",
            "HashMap<String, u8, MyHasher>",
            "Vec<u8, MyAlloc>",
            "Option<u8, u8>",
            "Vec<'a>",
            "Box<dyn Fn()>",
            "Vec<T>",
        ] {
            assert!(!known(ty), "{ty}");
        }
    }
}
