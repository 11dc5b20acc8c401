//! What the derive emits when its input has an error, after thiserror's
//! `fallback.rs`: the error itself, plus `Reset` (and `Poolable`) impls with
//! the right signatures and bodies that never run (the crate does not
//! compile, so nothing runs). Code that uses the type, `T::pool().get()`
//! say, then reports nothing on top of the real error.

use crate::ast::Derive;
use crate::attr;
use crate::ctxt::Errors;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, parse_quote};

pub fn expand(input: &DeriveInput, derive: Derive, error: syn::Error) -> TokenStream {
    let error = error.into_compile_error();
    // The impls name the runtime where `crate = "path"` says it is, when
    // that key could be read (its own errors, if any, are in `error`
    // already): a crate that reaches poolable through a re-export may
    // have no `::poolable` at all.
    let krate = attr::Container::from_attrs(&input.attrs, &mut Errors::default()).crate_path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let reset = quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Reset for #ident #ty_generics #where_clause {
            fn reset(&mut self) {
                ::core::unreachable!()
            }
        }
    };
    let poolable = (derive == Derive::Poolable).then(|| {
        // Bounded on the type itself, so the impl holds exactly where it
        // can and adds no error of its own (a type with a lifetime, say).
        let mut generics = input.generics.clone();
        generics
            .make_where_clause()
            .predicates
            .push(parse_quote!(#ident #ty_generics: ::core::marker::Send + 'static));
        let where_clause = &generics.where_clause;
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::Poolable for #ident #ty_generics #where_clause {
                fn pool() -> &'static #krate::Pool<Self> {
                    ::core::unreachable!()
                }
            }
        }
    });
    quote! {
        #error
        #[doc(hidden)]
        const _: () = {
            #reset
            #poolable
        };
    }
}
