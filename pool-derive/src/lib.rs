//! The derive macros of [poolable](https://docs.rs/poolable). Use them
//! through the `poolable` crate, which re-exports them beside the runtime
//! traits of the same names.
//!
//! The pipeline, in thiserror's and serde_derive's stages: `ast` builds the
//! IR from syn, with `attr` reading the `#[poolable(...)]` attributes (each
//! key a `symbol`); `valid` checks what the attributes mean together;
//! `expand` writes the impls (as source text the compiler lexes in one call,
//! with the tokens that carry a span appended as tokens: `tokens`), or
//! `fallback` writes stand-ins beside the errors. Every mistake is a spanned error, and all are reported at once.
//!
//! Before all that, `lean` takes the common case, a struct of std-typed
//! fields with none of the derive's attributes, straight from its tokens,
//! and writes the same impls as `expand` would, with no syn parse.
#![warn(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod expand;
#[cfg(test)]
mod expandtest;
mod fallback;
mod lean;
mod symbol;
mod tokens;
mod valid;

use ast::Derive;
use proc_macro::TokenStream;
use syn::DeriveInput;

/// Derive `Reset` (an exhaustive field-wise reset) and `Poolable` (a static
/// pool for the type). See the `poolable` crate for the attributes.
///
/// A struct with a `#[poolable(zeroize)]` field also gets an `impl Drop`
/// that wipes those fields (here and with `#[derive(Reset)]`), so it cannot
/// implement `Drop` itself and its fields cannot be moved out.
///
/// ```
/// use poolable::Poolable;
///
/// #[derive(Poolable, Default)]
/// struct Request {
///     id: u64,
///     body: String,
///     #[poolable(zeroize)]
///     token: Vec<u8>,
/// }
///
/// let mut req = Request::pool().get();
/// req.token.extend_from_slice(b"hunter2");
/// drop(req);
/// assert!(Request::pool().get().token.is_empty());
/// ```
#[proc_macro_derive(Poolable, attributes(poolable))]
pub fn derive_poolable(input: TokenStream) -> TokenStream {
    derive(input.into(), Derive::Poolable).into()
}

/// Derive `Reset` only: the field-wise reset, for types that are reset as
/// part of a pooled type (nested structs) or pooled in a `static Pool<T>`.
///
/// ```
/// use poolable::{Poolable, Reset};
///
/// #[derive(Reset, Default)]
/// struct Headers {
///     names: Vec<String>,
/// }
///
/// #[derive(Poolable, Default)]
/// struct Request {
///     headers: Headers, // reset recursively
/// }
///
/// let mut req = Request::pool().get();
/// req.headers.names.push("x-secret".into());
/// drop(req);
/// assert!(Request::pool().get().headers.names.is_empty());
/// ```
#[proc_macro_derive(Reset, attributes(poolable))]
pub fn derive_reset(input: TokenStream) -> TokenStream {
    derive(input.into(), Derive::Reset).into()
}

/// The derive's output: through the fast path for a struct it takes
/// (`lean`), else parsed and checked (`expand`).
fn derive(input: proc_macro2::TokenStream, derive: Derive) -> proc_macro2::TokenStream {
    if let Some(out) = lean::derive(input.clone(), derive) {
        return out;
    }
    match syn::parse2::<DeriveInput>(input) {
        Ok(input) => expand(&input, derive),
        Err(error) => error.to_compile_error(),
    }
}

/// The full path's output: the impls, or the errors and the fallback impls.
fn expand(input: &DeriveInput, derive: Derive) -> proc_macro2::TokenStream {
    expand::derive(input, derive).unwrap_or_else(|error| fallback::expand(input, derive, error))
}
