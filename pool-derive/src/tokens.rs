//! Writing output tokens cheaply.
//!
//! Inside rustc, a `proc_macro2::TokenStream` is a handle to the compiler's
//! own: every token appended, and every stream interpolated into another
//! (`#tokens` in `quote!`), ends in calls across the proc-macro bridge, and
//! a derive built in debug (as a dependency's proc macro is, by default)
//! spends most of its run on them (`scripts/derive_cost.py` measures the
//! whole build). So:
//!
//! - the code whose tokens need no span of their own (the impls' scaffolding,
//!   everything about plain fields) is written as source text into a
//!   [`Src`], which the compiler lexes in one call, its tokens spanned at
//!   the call site as `quote!`'s are;
//! - the tokens that carry a span (a field's type, where an error about it
//!   must point, a user's expression) are appended to the `Src` as tokens,
//!   and the per-field ones are written with [`Emit`] and [`push`], which
//!   append to the stream being built rather than build one per field.
use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt, quote};

/// Output written as source text where its tokens need no span, and as
/// tokens where they do. The text is lexed when tokens follow it, and at
/// [`finish`](Src::finish); a group that holds tokens is built as a
/// [`Group`], one that holds only text stays text. Text pushed must be
/// balanced: its brackets are opened and closed through [`group`](Src::group).
#[derive(Default)]
pub struct Src {
    text: String,
    tokens: TokenStream,
    /// Whether `tokens` holds anything (asking the stream is a bridge call).
    lexed: bool,
}

impl Src {
    /// Append source text.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self.text.push(' ');
        self
    }

    /// Append tokens, keeping their spans.
    pub fn tokens(&mut self, tokens: impl ToTokens) -> &mut Self {
        self.lex();
        tokens.to_tokens(&mut self.tokens);
        self.lexed = true;
        self
    }

    /// Append `delimiter`'s brackets around what `inner` writes.
    pub fn group(&mut self, delimiter: Delimiter, inner: impl FnOnce(&mut Src)) -> &mut Self {
        let mut src = Src::default();
        inner(&mut src);
        if !src.lexed {
            let (open, close) = match delimiter {
                Delimiter::Parenthesis => ('(', ')'),
                Delimiter::Brace => ('{', '}'),
                Delimiter::Bracket => ('[', ']'),
                Delimiter::None => (' ', ' '),
            };
            self.text.push(open);
            self.text.push_str(&src.text);
            self.text.push(close);
            return self;
        }
        self.tokens(Group::new(delimiter, src.finish()))
    }

    /// Lex the pending text onto the tokens.
    fn lex(&mut self) {
        if self.text.is_empty() {
            return;
        }
        // The text is the derive's own, built from tokens that lexed once
        // already; an error here is a bug of the derive, reported as one.
        let lexed = lex(&self.text).unwrap_or_else(|| {
            let msg = format!(
                "poolable's derive wrote code that does not lex: {}",
                self.text
            );
            quote!(::core::compile_error!(#msg);)
        });
        self.tokens.extend(lexed);
        self.lexed = true;
        self.text.clear();
    }

    /// The tokens written.
    pub fn finish(mut self) -> TokenStream {
        self.lex();
        self.tokens
    }
}

/// `text` lexed by the compiler in one call. (`proc_macro2`'s `FromStr`
/// lexes the text once more first, with its own lexer built in debug,
/// which costs more than everything else the derive does.) Outside a
/// proc macro (the derive's own tests), `proc_macro2`'s lexer.
fn lex(text: &str) -> Option<TokenStream> {
    if proc_macro::is_available() {
        text.parse::<proc_macro::TokenStream>()
            .ok()
            .map(TokenStream::from)
    } else {
        text.parse().ok()
    }
}

/// `tokens` as source text, to write into a [`Src`] where their spans do
/// not matter (a path, a type's name): one bridge call.
pub fn text_of(tokens: impl ToTokens) -> String {
    tokens.into_token_stream().to_string()
}

/// Tokens written by a closure into the stream they are interpolated into.
pub struct Emit<F>(pub F);

impl<F: Fn(&mut TokenStream)> ToTokens for Emit<F> {
    fn to_tokens(&self, out: &mut TokenStream) {
        (self.0)(out);
    }
}

/// Append the tokens of `src`, each spanned at `span`: `src` holds
/// identifiers (raw and non-ASCII ones too), keywords and punctuation
/// only, written as in Rust source (`as ::core::marker::Send`).
/// Two-character operators are `::`, `->`, `=>` and `&&`, as rustc's lexer
/// joins them; other punctuation is one token per character.
pub fn push(out: &mut TokenStream, span: Span, src: &str) {
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if is_ident_byte(c) && !c.is_ascii_digit() {
            // A raw identifier, `r#try`, is one token.
            let raw = c == b'r' && bytes.get(i + 1) == Some(&b'#');
            if raw {
                i += 2;
            }
            let start = i;
            while i < bytes.len() && is_ident_byte(bytes[i]) {
                i += 1;
            }
            out.append(if raw {
                Ident::new_raw(&src[start..i], span)
            } else {
                Ident::new(&src[start..i], span)
            });
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

/// A byte of an identifier: ASCII letters, digits and `_`, and every byte
/// of a non-ASCII character (a path given as `crate = "pöol"`; its
/// validity was checked when the attribute was parsed).
fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || !c.is_ascii()
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
