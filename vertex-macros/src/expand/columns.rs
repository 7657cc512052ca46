//! `runtime::run::Columns` for the structs a gather program's state is made of,
//! so that `-o` files and summaries print a struct state as one column per field
//! (named after the field) with no code from the user.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Fields, Item, ItemStruct, Type};

use crate::ast::Program;

/// The impls for the module's structs that `state` reaches (through aliases,
/// fields and arrays), host only. Structs with generics are left out (their
/// fields' types are not known here).
pub fn state_columns(p: &Program, state: &Type) -> TokenStream {
    let mut found: Vec<&ItemStruct> = Vec::new();
    reach(p, state, &mut found, 0);
    let impls = found.iter().map(|s| {
        let ident = &s.ident;
        let r = quote!(::vertex_dsl::runtime::run::columns);
        let (names, writes, first): (Vec<_>, Vec<_>, Vec<_>) = match &s.fields {
            Fields::Named(f) => f
                .named
                .iter()
                .map(|f| {
                    let id = f.ident.as_ref().expect("named field");
                    let ty = &f.ty;
                    let label = id.to_string();
                    (
                        quote!(#r::field::<#ty>(prefix, #label, out);),
                        quote!(#r::Columns::write(&self.#id, out);),
                        quote!(#r::Columns::number(&self.#id)),
                    )
                })
                .collect::<Vec<_>>()
                .into_iter()
                .fold((vec![], vec![], vec![]), |mut acc, (a, b, c)| {
                    acc.0.push(a);
                    acc.1.push(b);
                    acc.2.push(c);
                    acc
                }),
            Fields::Unnamed(f) => f
                .unnamed
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let idx = syn::Index::from(i);
                    let ty = &f.ty;
                    let label = i.to_string();
                    (
                        quote!(#r::field::<#ty>(prefix, #label, out);),
                        quote!(#r::Columns::write(&self.#idx, out);),
                        quote!(#r::Columns::number(&self.#idx)),
                    )
                })
                .fold((vec![], vec![], vec![]), |mut acc, (a, b, c)| {
                    acc.0.push(a);
                    acc.1.push(b);
                    acc.2.push(c);
                    acc
                }),
            Fields::Unit => (vec![], vec![], vec![]),
        };
        let number = first
            .first()
            .cloned()
            .unwrap_or_else(|| quote!(::core::option::Option::None));
        let writes = writes.iter().enumerate().map(|(i, w)| {
            if i == 0 {
                w.clone()
            } else {
                quote!(out.push(' '); #w)
            }
        });
        quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            impl #r::Columns for #ident {
                fn names(prefix: &str, out: &mut ::std::vec::Vec<::std::string::String>) {
                    #(#names)*
                }
                fn write(&self, out: &mut ::std::string::String) {
                    #(#writes)*
                }
                fn number(&self) -> ::core::option::Option<f64> {
                    #number
                }
            }
        }
    });
    quote!(#(#impls)*)
}

/// Adds the module's structs `ty` names, and theirs, to `found`.
fn reach<'p>(p: &'p Program, ty: &Type, found: &mut Vec<&'p ItemStruct>, depth: u32) {
    if depth > 16 {
        return; // an alias cycle: rustc reports it
    }
    match ty {
        Type::Paren(t) => reach(p, &t.elem, found, depth + 1),
        Type::Group(t) => reach(p, &t.elem, found, depth + 1),
        Type::Array(a) => reach(p, &a.elem, found, depth + 1),
        Type::Path(tp) if tp.qself.is_none() && tp.path.segments.len() == 1 => {
            let name = &tp.path.segments[0].ident;
            for item in p.items() {
                match item {
                    Item::Struct(s) if &s.ident == name && s.generics.params.is_empty() => {
                        if found.iter().any(|f| f.ident == s.ident) {
                            return;
                        }
                        found.push(s);
                        for f in s.fields.iter() {
                            reach(p, &f.ty, found, depth + 1);
                        }
                        return;
                    }
                    Item::Type(t) if &t.ident == name && !is_self_alias(t) => {
                        reach(p, &t.ty, found, depth + 1);
                        return;
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// `type State = State;`: the alias the parser makes for `pub struct State`.
fn is_self_alias(t: &syn::ItemType) -> bool {
    matches!(&*t.ty, Type::Path(tp) if tp.path.is_ident(&t.ident))
}
