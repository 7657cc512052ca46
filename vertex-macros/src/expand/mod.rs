//! Code generation. The generated code is small: it implements the runtime's
//! program trait by calling the user's functions, and (for nvptx64) declares kernel
//! entry points that instantiate the kernels-rs skeletons with that trait. Big
//! bodies live in the runtime and kernels-rs, so errors point at user code.

pub mod closure;
pub mod columns;
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

/// The program's `runtime::run::Runnable` impl (host only): what the one run
/// call (`vertex_dsl::run::<Program>(&graph)`) dispatches on. `engine` names the
/// kind's module in `runtime::run` whose `go` does the work; the constants are
/// the kind trait's own where it has them.
fn runnable_impl(
    kind_trait: TokenStream,
    kind: &str,
    weight: TokenStream,
    output: TokenStream,
    engine: &str,
    needs_source: TokenStream,
    weighted: TokenStream,
) -> TokenStream {
    let kind = quote::format_ident!("{}", kind);
    let engine = quote::format_ident!("{}", engine);
    let r = quote!(::vertex_dsl::runtime::run);
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        impl #r::Runnable for Program {
            type Weight = #weight;
            type Output = #output;
            const NAME: &'static str = <Self as #kind_trait>::NAME;
            const KIND: #r::Kind = #r::Kind::#kind;
            const NEEDS_SOURCE: bool = #needs_source;
            const WEIGHTED: bool = #weighted;
            fn has_gpu_kernels() -> bool {
                <Self as #kind_trait>::gpu_ptx().is_some()
            }
            fn go(
                graph: &::vertex_dsl::runtime::graph::Graph<#weight>,
                plan: &#r::Plan,
            ) -> ::vertex_dsl::runtime::Result<#r::Outcome<#output>> {
                #r::#engine::go::<Self>(graph, plan)
            }
        }
    }
}

/// The program's `runtime::program::Batchable` impl (host only), for programs
/// that can run from many sources at once: `engine` names the kind's module in
/// `runtime::run` whose `go_batched` does the work. Programs that cannot batch
/// get no impl, so asking for a batched run of one fails to compile with the
/// trait's message.
fn batchable_impl(state: TokenStream, engine: &str) -> TokenStream {
    let engine = quote::format_ident!("{}", engine);
    let rt = quote!(::vertex_dsl::runtime);
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        impl #rt::program::Batchable for Program {
            type LaneState = #state;
            fn go_batched(
                graph: &#rt::graph::Graph<<Self as #rt::run::Runnable>::Weight>,
                plan: &#rt::run::Plan,
                sources: &[u32],
                each: impl FnMut(#rt::gpu::batched::LaneStates<'_, #state>) -> #rt::Result<()> + Send,
            ) -> #rt::Result<#rt::run::Report> {
                #rt::run::#engine::go_batched::<Self>(graph, plan, sources, each)
            }
        }
    }
}
