//! Writing output tokens straight into the stream being built.
//!
//! Inside rustc, a `proc_macro2::TokenStream` is a handle to the compiler's
//! own: interpolating one stream into another (`#tokens` in `quote!`)
//! clones the handle, flushes both streams' pending tokens and concatenates
//! them, each a call across the proc-macro bridge. A derive that builds a
//! small stream per field and interpolates it several times spends most of
//! its run on those calls (`scripts/derive_cost.py` measures the whole
//! build). So the per-field code is written with [`Emit`] and [`push`],
//! which append tokens to the stream `quote!` is building, and cross the
//! bridge once, with it.

use proc_macro2::{Ident, Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt};

/// Tokens written by a closure into the stream they are interpolated into.
pub struct Emit<F>(pub F);

impl<F: Fn(&mut TokenStream)> ToTokens for Emit<F> {
    fn to_tokens(&self, out: &mut TokenStream) {
        (self.0)(out);
    }
}

/// Append the tokens of `src`, each spanned at `span`: `src` holds
/// identifiers, keywords and punctuation only, written as in Rust source
/// (`as ::core::marker::Send`). Two-character operators are `::`, `->`, `=>`
/// and `&&`, as rustc's lexer joins them; other punctuation is one token
/// per character.
pub fn push(out: &mut TokenStream, span: Span, src: &str) {
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.append(Ident::new(&src[start..i], span));
        } else {
            let next = bytes.get(i + 1).copied();
            let pair = matches!(
                (c, next),
                (b':', Some(b':')) | (b'-', Some(b'>')) | (b'=', Some(b'>')) | (b'&', Some(b'&'))
            );
            let spacing = if pair { Spacing::Joint } else { Spacing::Alone };
            out.append(punct(c, spacing, span));
            i += 1;
            if pair {
                out.append(punct(bytes[i], Spacing::Alone, span));
                i += 1;
            }
        }
    }
}

fn punct(c: u8, spacing: Spacing, span: Span) -> Punct {
    let mut punct = Punct::new(char::from(c), spacing);
    punct.set_span(span);
    punct
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// `push` writes what `quote!` writes for the same source, token for
    /// token, spacing included.
    #[test]
    fn push_writes_what_quote_writes() {
        let mut out = TokenStream::new();
        push(
            &mut out,
            Span::call_site(),
            "let _ = <u8 as ::poolable::Reset>::reset; a && b -> c => d & e",
        );
        let expected = quote!(let _ = <u8 as ::poolable::Reset>::reset; a && b -> c => d & e);
        let spaced = |tokens: TokenStream| {
            tokens
                .into_iter()
                .map(|token| match token {
                    proc_macro2::TokenTree::Punct(p) => format!("{}{:?}", p.as_char(), p.spacing()),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(spaced(out), spaced(expected));
    }
}
