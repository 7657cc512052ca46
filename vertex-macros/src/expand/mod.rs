//! Code generation. The generated code is small: it implements the runtime's
//! program trait by calling the user's functions, and (for nvptx64) declares kernel
//! entry points that instantiate the kernels-rs skeletons with that trait. Big
//! bodies live in the runtime and kernels-rs, so errors point at user code.

pub mod closure;
pub mod cpu;
pub mod gather;
pub mod gpu;
pub mod intersect;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Program;
use crate::check::Checked;

pub fn expand(p: &Program, c: &Checked) -> TokenStream {
    let module = &p.module;
    let vis = &module.vis;
    let ident = &module.ident;
    let attrs = &module.attrs;
    let items = p.items();
    let host = cpu::program_impl(p, c);
    let kernels = gpu::kernel_entry_points(p, c);
    let closure = closure::closure_kernels(p, c);
    quote! {
        #(#attrs)*
        #vis mod #ident {
            #(#items)*

            #host
            #kernels
            #closure
        }
    }
}

/// `init(v, source)` or `init(v)`, inside a `fn init(v: u32, source: u32)`.
fn init_call(c: &Checked) -> TokenStream {
    if c.init_takes_source {
        quote!(init(v, source))
    } else {
        quote!({
            let _ = source;
            init(v)
        })
    }
}

/// The user's `relax` as an `Option<State>`, inside a `fn relax(state, weight, ..)`
/// (a semiring's product always yields a value).
fn relax_call(p: &Program, c: &Checked) -> TokenStream {
    let args = if c.relax_takes_weight {
        quote!(state, weight)
    } else {
        quote!(state)
    };
    if p.attrs.semiring.is_some() {
        quote!(::core::option::Option::Some(relax(#args)))
    } else {
        quote!(relax(#args))
    }
}
