//! Expansion snapshots, after pin-project's `tests/expandtest.rs`: each file
//! in `tests/expand/` is a set of inputs to the derives, and the file beside
//! it, `*.expanded.rs`, holds what the derives emit for them, pretty-printed.
//! A change to the generated code shows up as a diff of those files.
//!
//! `cargo test -p pool-derive` checks the snapshots; with
//! `EXPAND=overwrite` it rewrites them. This runs the derive's own functions
//! on `proc_macro2` tokens (no `cargo expand`, no nightly), so it shows the
//! derive's output exactly, before the compiler resolves any of it.

use crate::ast::Derive;
use quote::ToTokens;
use std::fs;
use std::path::{Path, PathBuf};
use syn::{Attribute, Item};

/// The derives an item asks for in its `#[derive(...)]` attributes.
fn derives(attrs: &[Attribute]) -> Vec<Derive> {
    let mut found = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        attr.parse_nested_meta(|meta| {
            // `Poolable` or `poolable::Poolable`: the last segment decides.
            match meta.path.segments.last() {
                Some(last) if last.ident == "Poolable" => found.push(Derive::Poolable),
                Some(last) if last.ident == "Reset" => found.push(Derive::Reset),
                _ => {}
            }
            Ok(())
        })
        .expect("a readable #[derive(...)]");
    }
    found
}

/// The input file with each derived struct followed by what the derive
/// emits for it (the error and the fallback impls, for a bad input).
fn expand_file(source: &str) -> String {
    let mut file = syn::parse_file(source).expect("an expand input parses as Rust");
    let mut items = Vec::new();
    for item in std::mem::take(&mut file.items) {
        let expansions = match &item {
            Item::Struct(item) => derives(&item.attrs)
                .into_iter()
                .map(|derive| crate::derive(item.to_token_stream(), derive))
                .collect(),
            _ => Vec::new(),
        };
        items.push(item);
        for tokens in expansions {
            let expanded: syn::File =
                syn::parse2(tokens).expect("the derive's output parses as items");
            items.extend(expanded.items);
        }
    }
    file.items = items;
    prettyplease::unparse(&file)
}

#[test]
fn expansions_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let overwrite = std::env::var_os("EXPAND").is_some_and(|v| v == "overwrite");
    let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "rs")
                && !path.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());

    let mut stale = Vec::new();
    for input in inputs {
        let source = fs::read_to_string(&input).expect("a readable input");
        let actual = expand_file(&source);
        let snapshot = input.with_extension("expanded.rs");
        if overwrite {
            fs::write(&snapshot, &actual).expect("a writable snapshot");
        } else if fs::read_to_string(&snapshot).ok().as_deref() != Some(actual.as_str()) {
            stale.push(snapshot.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "the derive's output changed; review it with `EXPAND=overwrite cargo test -p pool-derive` \
         and `git diff`: {stale:#?}"
    );
}

/// `#[automatically_derived]` goes on trait impls only: on an inherent impl
/// rustc 1.95 warns that it "will become a hard error in a future release"
/// (`unused_attributes`, hidden from users inside a derive's output until
/// then). Checked on every expansion input.
#[test]
fn only_trait_impls_are_marked_automatically_derived() {
    fn inherent_marked(items: &[Item], found: &mut Vec<String>) {
        for item in items {
            match item {
                Item::Impl(imp)
                    if imp.trait_.is_none()
                        && imp
                            .attrs
                            .iter()
                            .any(|a| a.path().is_ident("automatically_derived")) =>
                {
                    let ty = &imp.self_ty;
                    found.push(quote::quote!(#ty).to_string());
                }
                Item::Const(constant) => {
                    if let syn::Expr::Block(block) = &*constant.expr {
                        let nested: Vec<Item> = block
                            .block
                            .stmts
                            .iter()
                            .filter_map(|stmt| match stmt {
                                syn::Stmt::Item(item) => Some(item.clone()),
                                _ => None,
                            })
                            .collect();
                        inherent_marked(&nested, found);
                    }
                }
                _ => {}
            }
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut found = Vec::new();
    for entry in fs::read_dir(&dir).expect("tests/expand exists") {
        let path = entry.expect("a readable directory entry").path();
        if path.extension().is_some_and(|e| e == "rs")
            && !path.to_string_lossy().ends_with(".expanded.rs")
        {
            let source = fs::read_to_string(&path).expect("a readable input");
            let file = syn::parse_file(&expand_file(&source)).expect("the expansion parses");
            inherent_marked(&file.items, &mut found);
        }
    }
    assert!(found.is_empty(), "inherent impls marked: {found:?}");
}
