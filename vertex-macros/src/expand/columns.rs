//! `runtime::run::Columns` for the structs a gather program's state is made of,
//! so that `-o` files and summaries print a struct state as one column per field
//! (named after the field) with no code from the user.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Item, ItemStruct, Type};

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
        // Each field as (its column label, how `self` reaches it, its type).
        let fields: Vec<(String, TokenStream, &Type)> = s
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| match &f.ident {
                Some(id) => (id.to_string(), quote!(#id), &f.ty),
                None => {
                    let idx = syn::Index::from(i);
                    (i.to_string(), quote!(#idx), &f.ty)
                }
            })
            .collect();
        let names = fields
            .iter()
            .map(|(label, _, ty)| quote!(#r::field::<#ty>(prefix, #label, out);));
        let writes = fields.iter().enumerate().map(|(i, (_, access, _))| {
            let sep = (i > 0).then(|| quote!(out.push(' ');));
            quote!(#sep #r::Columns::write(&self.#access, out);)
        });
        let number = match fields.first() {
            Some((_, access, _)) => quote!(#r::Columns::number(&self.#access)),
            None => quote!(::core::option::Option::None),
        };
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
