//! The derive's fast path: a struct that needs no checks and no attribute
//! of the derive's (`expand::is_std_only`), read straight off the input's
//! tokens, with no syn parse.
//!
//! Most derived structs are of that kind: no generic parameters, no
//! `#[poolable]` attribute, and fields of std types spelt by name
//! (`u64`, `String`, `Vec<u8>`, `Option<u32>`). For them, syn's parse of the
//! whole item, built in debug as a dependency's proc macro is, was the
//! largest part of the derive's run (`scripts/derive_cost.py`). [`scan`]
//! recognises that shape and nothing else: any token it does not expect
//! sends the item to the full path (`expand::derive`), which parses it,
//! checks it and reports its errors. Both paths write the same impls for
//! such a struct, through [`Lean`] (the tests compare them).

use crate::ast::Derive;
use crate::tokens::Src;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// A struct the fast path can write: its name, its visibility and its
/// fields' names (`0`, `1`, .. for a tuple struct), as source text.
pub struct Lean {
    pub ident: String,
    pub vis: String,
    pub members: Vec<String>,
}

/// The impls for the struct `input` holds, if it is one the fast path
/// writes ([`scan`]); `None` sends it to the full path.
pub fn derive(input: TokenStream, derive: Derive) -> Option<TokenStream> {
    let lean = scan(input)?;
    let mut out = Src::default();
    // The crate's path with no `crate = ".."` (which `scan` refuses), and
    // the pool with no `new` or policy (`expand::static_pool`).
    lean.expand(derive, "::poolable", &mut out, |out| {
        out.text("::poolable::__private::pool_by_default()");
    });
    Some(out.finish())
}

/// The struct `input` holds, if it is one the fast path writes: no
/// attribute `poolable`, `deprecated` or `repr` on it and no `poolable` on
/// its fields, no generic parameters or where clause, at least one field,
/// and every field's type one [`classify`] knows. Anything else, a field
/// type that a `macro_rules!` passed in (an invisible group) among them,
/// is left to the full path.
pub fn scan(input: TokenStream) -> Option<Lean> {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let mut at = Cursor::new(&tokens);
    at.skip_attrs(&["poolable", "deprecated", "repr"])?;
    let vis = at.vis()?;
    if !at.keyword("struct") {
        return None;
    }
    let ident = match at.next()? {
        TokenTree::Ident(ident) => ident.to_string(),
        _ => return None,
    };
    let members = match (at.next()?, at.next(), at.next()) {
        (TokenTree::Group(body), None, _) if body.delimiter() == Delimiter::Brace => {
            fields(body, true)?
        }
        (TokenTree::Group(body), Some(TokenTree::Punct(semi)), None)
            if body.delimiter() == Delimiter::Parenthesis && semi.as_char() == ';' =>
        {
            fields(body, false)?
        }
        _ => return None,
    };
    if members.is_empty() {
        return None;
    }
    Some(Lean {
        ident,
        vis,
        members,
    })
}

/// The fields' names in `body`, if each is plain and of a std type.
fn fields(body: &Group, named: bool) -> Option<Vec<String>> {
    let tokens: Vec<TokenTree> = body.stream().into_iter().collect();
    let mut at = Cursor::new(&tokens);
    let mut members = Vec::new();
    while !at.done() {
        at.skip_attrs(&["poolable"])?;
        at.vis()?;
        if named {
            match at.next()? {
                TokenTree::Ident(ident) => members.push(ident.to_string()),
                _ => return None,
            }
            if !at.punct(':') {
                return None;
            }
        } else {
            members.push(members.len().to_string());
        }
        if !std_type(&mut at)?.is_std() {
            return None;
        }
        if !at.done() && !at.punct(',') {
            return None;
        }
    }
    Some(members)
}

/// What a type is to the derive, by its spelling: which kind of std's
/// types with a `Reset` impl (`reset.rs`) that are `Send` ([`classify`]
/// lists them), or none of those.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Std {
    /// A key a hash set or map takes (`Eq + Hash`, which a float is not):
    /// `bool`, `char`, an integer, `String`.
    Key,
    /// `f32`, `f64`.
    Float,
    /// Another: an array, `Vec`, `VecDeque`, `Option`, `Box`, `BTreeSet`,
    /// `BTreeMap`, `HashSet` or `HashMap` of those.
    Other,
    /// None of std's, or not one the derive knows by its spelling.
    No,
}

impl Std {
    pub fn is_std(self) -> bool {
        self != Std::No
    }
}

/// The kind of a type named `name` (its last path segment alone, as the
/// prelude or a `use` names it) with type arguments of kinds `args`: a
/// number, `bool`, `char` or `String`; a `Vec`, `VecDeque`, `Option`, `Box`
/// or `BTreeSet` of one; a `BTreeMap` from one to one; a `HashSet` of a
/// [`Std::Key`] and a `HashMap` from one to any (their `Reset` needs
/// `Hash`), with the default hasher.
pub fn classify(name: &str, args: &[Std]) -> Std {
    let std = |known: bool| if known { Std::Other } else { Std::No };
    match (name, args) {
        ("f32" | "f64", []) => Std::Float,
        (
            "bool" | "char" | "String" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8"
            | "i16" | "i32" | "i64" | "i128" | "isize",
            [],
        ) => Std::Key,
        ("Vec" | "VecDeque" | "Option" | "Box" | "BTreeSet", [item]) => std(item.is_std()),
        ("HashSet", [item]) => std(*item == Std::Key),
        ("BTreeMap", [key, value]) => std(key.is_std() && value.is_std()),
        ("HashMap", [key, value]) => std(*key == Std::Key && value.is_std()),
        _ => Std::No,
    }
}

/// The kind of an array of `elem`s.
pub fn array(elem: Std) -> Std {
    if elem.is_std() { Std::Other } else { Std::No }
}

/// The kind of the type at the cursor, as `expand::std_kind` reads a
/// parsed one: `None` if the tokens are not a type of the shapes it knows
/// (a name, a name with type arguments, an array), whatever they are.
fn std_type(at: &mut Cursor<'_>) -> Option<Std> {
    match at.next()? {
        TokenTree::Group(brackets) if brackets.delimiter() == Delimiter::Bracket => {
            let tokens: Vec<TokenTree> = brackets.stream().into_iter().collect();
            let mut inner = Cursor::new(&tokens);
            let elem = std_type(&mut inner)?;
            // The length: any expression.
            if !inner.punct(';') || inner.done() {
                return None;
            }
            Some(array(elem))
        }
        TokenTree::Ident(ident) => {
            let name = ident.to_string();
            let mut args = Vec::new();
            if at.punct('<') {
                loop {
                    args.push(std_type(at)?);
                    if at.punct('>') {
                        break;
                    }
                    if !at.punct(',') {
                        return None;
                    }
                }
            }
            Some(classify(&name, &args))
        }
        _ => None,
    }
}

/// A position in a list of tokens.
struct Cursor<'t> {
    tokens: &'t [TokenTree],
    i: usize,
}

impl<'t> Cursor<'t> {
    fn new(tokens: &'t [TokenTree]) -> Self {
        Cursor { tokens, i: 0 }
    }

    fn done(&self) -> bool {
        self.i == self.tokens.len()
    }

    fn next(&mut self) -> Option<&'t TokenTree> {
        let token = self.tokens.get(self.i)?;
        self.i += 1;
        Some(token)
    }

    /// Step over `c` if it is next.
    fn punct(&mut self, c: char) -> bool {
        match self.tokens.get(self.i) {
            Some(TokenTree::Punct(punct)) if punct.as_char() == c => {
                self.i += 1;
                true
            }
            _ => false,
        }
    }

    /// Step over the identifier `word` if it is next.
    fn keyword(&mut self, word: &str) -> bool {
        match self.tokens.get(self.i) {
            Some(TokenTree::Ident(ident)) if ident == word => {
                self.i += 1;
                true
            }
            _ => false,
        }
    }

    /// Step over outer attributes; `None` at one whose path starts with
    /// one of `refused`, or one that is not `#[path ..]`.
    fn skip_attrs(&mut self, refused: &[&str]) -> Option<()> {
        while self.punct('#') {
            let Some(TokenTree::Group(attr)) = self.next() else {
                return None;
            };
            if attr.delimiter() != Delimiter::Bracket {
                return None;
            }
            match attr.stream().into_iter().next() {
                Some(TokenTree::Ident(path)) if !refused.iter().any(|word| path == word) => {}
                _ => return None,
            }
        }
        Some(())
    }

    /// Step over a visibility, returned as source text (empty if none).
    fn vis(&mut self) -> Option<String> {
        if !self.keyword("pub") {
            return Some(String::new());
        }
        match self.tokens.get(self.i) {
            Some(TokenTree::Group(scope)) if scope.delimiter() == Delimiter::Parenthesis => {
                self.i += 1;
                Some(format!("pub {scope}"))
            }
            _ => Some("pub".to_owned()),
        }
    }
}

impl Lean {
    /// The impls, as `expand::derive` writes them for a struct with no
    /// checks: `Reset` through one tuple of `self`'s fields, and for
    /// `Poolable` the static pool, initialised with what `pool` writes.
    pub fn expand(&self, derive: Derive, krate: &str, out: &mut Src, pool: impl FnOnce(&mut Src)) {
        let Lean {
            ident,
            vis,
            members,
        } = self;
        let fields_mut = fields_tuple(members, "&mut self.");
        let fields = fields_tuple(members, "&self.");
        out.text(&format!(
            "#[automatically_derived] #[diagnostic::do_not_recommend] impl {krate}::Reset for {ident} {{ \
             #[inline] fn reset(&mut self) {{ {krate}::__private::reset({fields_mut}); }} \
             #[inline] fn __measure(&self, __what: {krate}::__private::Measure) -> ::core::option::Option<usize> \
             {{ {krate}::__private::measure(__what, {fields}) }} \
             #[inline] fn shrink_heap(&mut self, __max_bytes: usize) \
             {{ {krate}::__private::shrink_fields({fields_mut}, __max_bytes) }} }}"
        ));
        if derive == Derive::Reset {
            return;
        }
        // As `expand::poolable_impl` writes it for a struct with checks,
        // but naming the struct itself (no `__PoolableChecked`), and with
        // no bound on the `Poolable` impl: it proves the trait's own `Send`.
        // Text pushed to a `Src` must be balanced: the brackets around what
        // `pool` writes (tokens, for a path given in an attribute) are
        // groups.
        out.text(&format!("impl {ident}"));
        out.group(Delimiter::Brace, |out| {
            out.text(&format!(
                "#[doc(hidden)] #[inline] {vis} fn pool() -> &'static {krate}::Pool<{ident}>"
            ));
            out.group(Delimiter::Brace, |out| {
                out.text(&format!(
                    "static POOL: ::core::mem::ManuallyDrop<{krate}::Pool<{ident}>> ="
                ));
                pool(out);
                out.text("; &POOL");
            });
        });
        out.text(&format!(
            "#[automatically_derived] impl {krate}::Poolable for {ident} \
             {{ #[inline] fn pool() -> &'static {krate}::Pool<Self> {{ {ident}::pool() }} }}"
        ));
    }
}

/// `(&mut self.a, &mut self.b,)` for `members`, with `by` = `&mut self.`
/// (or `&self.`), nested so that no tuple has more than twelve elements
/// (the runtime's tuples stop there): twelve fields a tuple, twelve of
/// those a tuple, and so on.
pub fn fields_tuple(members: &[String], by: &str) -> String {
    fn nest(out: &mut String, refs: &[String], by: &str) {
        out.push('(');
        if refs.len() <= 12 {
            for member in refs {
                out.push_str(by);
                out.push_str(member);
                out.push(',');
            }
        } else {
            // Chunks of 12^k fields, k as small as leaves at most twelve.
            let mut chunk = 12;
            while refs.len().div_ceil(chunk) > 12 {
                chunk *= 12;
            }
            for chunk in refs.chunks(chunk) {
                nest(out, chunk, by);
                out.push(',');
            }
        }
        out.push(')');
    }
    let mut out = String::new();
    nest(&mut out, members, by);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// Structs the fast path takes, with their fields' names.
    const TAKEN: &[(&str, &[&str])] = &[
        ("struct A { id: u64 }", &["id"]),
        (
            "/// Docs.\n#[derive(Default)] #[serde(rename_all = \"camelCase\")]\n\
             pub struct Request { pub id: u64, pub(crate) name: String, tags: Vec<String>, \
             body: Vec<u8>, flag: bool, score: Option<u32>, }",
            &["id", "name", "tags", "body", "flag", "score"],
        ),
        (
            "pub(crate) struct Pair(pub Vec<u8>, Option<u32>);",
            &["0", "1"],
        ),
        ("pub(in crate::a) struct T(pub(super) [u8; 4 * 4]);", &["0"]),
        (
            "struct Maps { a: HashMap<String, Vec<Option<Box<f64>>>>, b: BTreeMap<f32, char>, \
             c: HashSet<i128>, d: BTreeSet<[u16; 2]>, e: VecDeque<isize> }",
            &["a", "b", "c", "d", "e"],
        ),
        (
            "struct r#Raw { r#type: u8, #[doc = \"x\"] r#in: usize }",
            &["r#type", "r#in"],
        ),
    ];

    /// Structs it leaves to the full path: generic, with the derive's own
    /// attributes or ones the full path acts on, of a shape it rejects, or
    /// with a field of a type the derive checks (`is_std_type` false).
    const LEFT: &[&str] = &[
        "struct G<T> { t: Vec<T> }",
        "struct L<'a> { s: &'a str }",
        "struct W where u8: Copy { a: u8 }",
        "#[poolable(max_retained = 8)] struct C { a: u8 }",
        "struct F { #[poolable(skip)] a: u8 }",
        "#[deprecated] struct D { a: u8 }",
        "#[repr(packed)] struct P { a: u8 }",
        "struct Unit;",
        "struct Empty {}",
        "struct EmptyTuple();",
        "enum E { A }",
        "union U { a: u8 }",
        "struct Path { a: std::string::String }",
        "struct Turbofish { a: Vec::<u8> }",
        "struct Trailing { a: Vec<u8,> }",
        "struct Float { a: HashSet<f64> }",
        "struct Mine { a: Duration }",
        "struct Own { a: Vec<Rc<u8>> }",
        "struct S { a: Option<Self> }",
        "struct Tuple { a: (u8, u8) }",
        "struct Fun { a: fn() -> u8 }",
        "struct Dyn { a: Box<dyn Fn()> }",
        "struct Hasher { a: HashMap<u8, u8, MyHasher> }",
        "struct Arity { a: Option<u8, u8> }",
        "struct NoLen { a: [u8] }",
        "struct Tuple2(pub (u8, u8));",
    ];

    fn tokens(src: &str) -> TokenStream {
        src.parse().expect("the input lexes")
    }

    #[test]
    fn takes_structs_of_std_fields_with_no_attributes_of_its_own() {
        for (src, members) in TAKEN {
            let lean = scan(tokens(src)).unwrap_or_else(|| panic!("not taken: {src}"));
            assert_eq!(lean.members, *members, "{src}");
        }
        for src in LEFT {
            assert!(scan(tokens(src)).is_none(), "taken: {src}");
        }
    }

    /// What the fast path writes is what the full path writes for the same
    /// struct, token for token, for both derives; the full path agrees it
    /// is a struct with no checks (`expand::is_std_only`).
    #[test]
    fn writes_what_the_full_path_writes() {
        for (src, _) in TAKEN {
            let input: syn::DeriveInput = syn::parse_str(src).expect("a struct");
            for kind in [Derive::Reset, Derive::Poolable] {
                let fast = derive(tokens(src), kind).expect("taken");
                let full = crate::expand(&input, kind);
                assert_eq!(
                    fast.to_string(),
                    full.into_token_stream().to_string(),
                    "{src}"
                );
            }
        }
    }

    #[test]
    fn nests_the_fields_in_tuples_of_twelve() {
        let members: Vec<String> = (0..13).map(|i| i.to_string()).collect();
        let tuple = fields_tuple(&members, "&self.");
        assert!(tuple.starts_with("((&self.0,"), "{tuple}");
        assert!(tuple.ends_with("&self.11,),(&self.12,),)"), "{tuple}");
    }
}
