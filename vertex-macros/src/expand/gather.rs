//! Expansion of a gather/apply program: one `GatherProgram` impl (the trait lives
//! in kernels-rs, so the same impl serves the host engines and the GPU kernels) and,
//! for the crate's nvptx64 build, the kernel entry points
//! `vx_<module>_ga_{init,emit,pull,push,apply,refresh,sweep}`; programs that read
//! their source (level sweeps aside) also get `Batchable` and the batched
//! kernels `vx_<module>_gb_{init,emit,step,reduce}`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::Program;
use crate::attr::{CombineKind, DirectionKind, ReduceKind};
use crate::check_gather::GatherChecked;

pub fn expand(p: &Program, c: &GatherChecked) -> TokenStream {
    let module = &p.module;
    let vis = &module.vis;
    let ident = &module.ident;
    let attrs = &module.attrs;
    let items = p.items();
    let name = ident.to_string();
    let k = quote!(::vertex_dsl::kernels);
    let g = quote!(#k::gather);
    let state = &c.state;
    let acc = format_ident!("{}", c.acc);
    let float = c.acc.starts_with('f');
    let msg = match &c.msg {
        Some(t) => quote!(#t),
        None => quote!(#state),
    };
    let weight = match &c.weight {
        Some(w) => {
            let w = format_ident!("{}", w);
            quote!(#w)
        }
        None => quote!(()),
    };
    let weighted = c.gather_takes_weight;
    let gather_kind = format_ident!("{}", c.kind.ident());
    let reduce_kind = format_ident!(
        "{}",
        match c.reduce {
            ReduceKind::Sum => "Sum",
            ReduceKind::Min => "Min",
            ReduceKind::Max => "Max",
        }
    );
    let direction = format_ident!(
        "{}",
        match c.direction {
            DirectionKind::Push => "Push",
            DirectionKind::Pull => "Pull",
            DirectionKind::Auto => "Auto",
        }
    );
    let frontier = c.active_arity.is_some();
    let max_rounds = match (&p.max_rounds, frontier || c.level) {
        (Some(_), _) => quote!(MAX_ROUNDS),
        (None, true) => quote!(u32::MAX),
        (None, false) => quote!(100),
    };
    let tolerance = match &p.tolerance {
        Some(_) => quote!(::core::option::Option::Some(TOLERANCE)),
        None => quote!(::core::option::Option::None),
    };
    let emit = match c.emit_arity {
        Some(2) => quote!(emit(ctx, state)),
        Some(_) => quote!({
            let _ = ctx;
            emit(state)
        }),
        None => quote!({
            let _ = ctx;
            state
        }),
    };
    let gather = if c.gather_takes_weight {
        quote!(gather(msg, weight))
    } else {
        quote!({
            let _ = weight;
            gather(msg)
        })
    };
    let (identity, combine) = match c.kind {
        CombineKind::Sum if float => (quote!(0.0), quote!(a + b)),
        CombineKind::Sum => (quote!(0), quote!(a.wrapping_add(b))),
        CombineKind::Min if float => (quote!(#acc::INFINITY), quote!(if b < a { b } else { a })),
        CombineKind::Min => (quote!(#acc::MAX), quote!(if b < a { b } else { a })),
        CombineKind::Max if float => (
            quote!(#acc::NEG_INFINITY),
            quote!(if b > a { b } else { a }),
        ),
        CombineKind::Max => (quote!(#acc::MIN), quote!(if b > a { b } else { a })),
        CombineKind::Or => (quote!(0), quote!(a | b)),
        CombineKind::And => (quote!(!0), quote!(a & b)),
        CombineKind::Custom => (quote!(identity()), quote!(combine(a, b))),
    };
    let combine_atomic = match c.kind {
        CombineKind::Min => quote!({
            #k::combine::min::<#acc>(slot, v);
        }),
        CombineKind::Max => quote!({
            #k::combine::max::<#acc>(slot, v);
        }),
        CombineKind::Sum => quote!({
            #k::combine::add::<#acc>(slot, v);
        }),
        _ => quote!({
            #k::combine::update::<#acc>(slot, v, |a: #acc, b: #acc| -> #acc { #combine });
        }),
    };
    let active = match c.active_arity {
        Some(3) => quote!(active(ctx, old, new)),
        Some(_) => quote!({
            let _ = ctx;
            active(old, new)
        }),
        None => quote!({
            let _ = (ctx, old, new);
            false
        }),
    };
    let reduce = match c.reduce_arity {
        Some(3) => quote!(reduce(ctx, old, new)),
        Some(_) => quote!({
            let _ = ctx;
            reduce(old, new)
        }),
        None => quote!({
            let _ = (ctx, old, new);
            0.0
        }),
    };
    let asynchronous = c.asynchronous;
    let has_accepts = c.accepts;
    let accepts = if c.accepts {
        quote!(accepts(state))
    } else {
        quote!({
            let _ = state;
            true
        })
    };
    let has_level = c.level;
    let needs_source = c.reads_source;
    let emit_reads_global = c.emit_reads_global;
    let level = if c.level {
        quote!(level(state))
    } else {
        quote!({
            let _ = state;
            u32::MAX
        })
    };
    let priority = match c.priority_arity {
        Some(2) => quote!(priority(ctx, acc)),
        Some(_) => quote!({
            let _ = ctx;
            priority(acc)
        }),
        None => quote!({
            let _ = (ctx, acc);
            0
        }),
    };
    let (ptx, ptx_status) = super::cpu::ptx_of_crate();
    let names: Vec<_> = ["init", "emit", "pull", "push", "apply", "refresh", "sweep"]
        .iter()
        .map(|s| format_ident!("vx_{}_ga_{}", name, s))
        .collect();
    let gp = quote!(#g::GatherProgram);
    // The graph's weight type: the program's, or plain `u32` graphs when it
    // reads none (its own `Weight` is then `()`).
    let graph_weight = match &c.weight {
        Some(_) => quote!(#weight),
        None => quote!(u32),
    };
    let runnable = super::runnable_impl(
        gp.clone(),
        "Gather",
        graph_weight,
        quote!(::std::vec::Vec<#state>),
        "gather",
        quote!(<Self as #gp>::NEEDS_SOURCE),
        quote!(<Self as #gp>::WEIGHTED),
    );
    let columns = super::columns::state_columns(p, state);
    // Programs that read their source run batched (a lane per source), level
    // sweeps aside (their schedule comes from one source's states): those get
    // `Batchable` and the batched kernels; the rest neither.
    let batchable = c.reads_source && !c.level;
    let (batchable_impl, batched_kernels) = if batchable {
        let names: Vec<_> = ["init", "emit", "step", "reduce"]
            .iter()
            .map(|s| format_ident!("vx_{}_gb_{}", name, s))
            .collect();
        (
            super::batchable_impl(quote!(#state), "gather"),
            quote!(#k::gather_batched_kernels!(Program => #(#names),*);),
        )
    } else {
        (quote!(), quote!())
    };
    quote! {
        #(#attrs)*
        #vis mod #ident {
            #[allow(unused_imports)]
            use #g::prelude::*;
            #(#items)*

            #columns

            /// The program as a type, generated by `#[vertex_program(gather = ..)]`:
            /// pass it to the one run call (`vertex_dsl::run::<Program>(&graph)`).
            #[derive(Clone, Copy, Debug, Default)]
            pub struct Program;

            #runnable
            #batchable_impl

            impl #g::GatherProgram for Program {
                type State = #state;
                type Msg = #msg;
                type Acc = #acc;
                type Weight = #weight;
                const NAME: &'static str = #name;
                const GATHER: #g::GatherKind = #g::GatherKind::#gather_kind;
                const REDUCE: #g::ReduceKind = #g::ReduceKind::#reduce_kind;
                const FRONTIER: bool = #frontier;
                const WEIGHTED: bool = #weighted;
                const NEEDS_SOURCE: bool = #needs_source;
                const MAX_ROUNDS: u32 = #max_rounds;
                const TOLERANCE: ::core::option::Option<f64> = #tolerance;
                const DIRECTION: #g::Direction = #g::Direction::#direction;
                const ASYNC: bool = #asynchronous;
                const ACCEPTS: bool = #has_accepts;
                const LEVELS: bool = #has_level;
                const EMIT_READS_GLOBAL: bool = #emit_reads_global;

                #[inline(always)]
                fn init(ctx: #g::Ctx) -> #state {
                    init(ctx)
                }
                #[inline(always)]
                fn emit(ctx: #g::Ctx, state: #state) -> #msg {
                    #emit
                }
                #[inline(always)]
                fn gather(msg: #msg, weight: #weight) -> #acc {
                    #gather
                }
                #[inline(always)]
                fn identity() -> #acc {
                    #identity
                }
                #[inline(always)]
                fn combine(a: #acc, b: #acc) -> #acc {
                    #combine
                }
                #[inline(always)]
                fn combine_atomic(slot: &<#acc as #k::StateWord>::Atomic, v: #acc) {
                    #combine_atomic
                }
                #[inline(always)]
                fn apply(ctx: #g::Ctx, old: #state, acc: #acc) -> #state {
                    apply(ctx, old, acc)
                }
                #[inline(always)]
                fn active(ctx: #g::Ctx, old: #state, new: #state) -> bool {
                    #active
                }
                #[inline(always)]
                fn reduce(ctx: #g::Ctx, old: #state, new: #state) -> f64 {
                    #reduce
                }
                #[inline(always)]
                fn accepts(state: #state) -> bool {
                    #accepts
                }
                #[inline(always)]
                fn level(state: #state) -> u32 {
                    #level
                }
                #[inline(always)]
                fn priority(ctx: #g::Ctx, acc: #acc) -> u32 {
                    #priority
                }
                #[cfg(not(target_arch = "nvptx64"))]
                fn gpu_ptx() -> ::core::option::Option<&'static str> {
                    #ptx
                }
                #[cfg(not(target_arch = "nvptx64"))]
                fn gpu_ptx_status() -> &'static str {
                    #ptx_status
                }
            }

            #k::gather_kernels!(Program => #(#names),*);
            #batched_kernels
        }
    }
}
