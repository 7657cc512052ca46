//! The GPU half: the kernels-rs `Program` impl (the user's functions again) and,
//! for the crate's nvptx64 build, kernel entry points instantiating the kernels-rs
//! skeletons with it.
//!
//! The `Program` impl exists on the host too: the runtime's emulation launcher
//! runs the very kernel bodies over a simulated grid, which is how tests without a
//! GPU cover a program's GPU path. Entry points are named `vx_<module>_init`,
//! `vx_<module>_naive`, `vx_<module>_balanced`, `vx_<module>_build_sv` and the
//! direction-optimizing kernels `vx_<module>_{td_chunks,td_select,td_relax,bottom_up}` and the
//! device-resident `vx_<module>_resident` (and `_resident_hubs`), and the
//! many-sources kernels `vx_<module>_batch_{init,chunks,expand,settle}`; the
//! host runtime loads them by that convention.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::Program;
use crate::attr::CombineKind;
use crate::check::Checked;

pub fn kernel_entry_points(p: &Program, c: &Checked) -> TokenStream {
    let name = p.name();
    let state = format_ident!("{}", c.state);
    let k = quote!(::vertex_dsl::kernels);
    let weight = match &c.weight {
        Some(w) => {
            let w = format_ident!("{}", w);
            quote!(#w)
        }
        None => quote!(()),
    };
    let init_call = super::init_call(c);
    let relax_call = super::relax_call(p, c);
    let unused_weight = if c.relax_takes_weight {
        quote!()
    } else {
        quote!(let _ = weight;)
    };
    let float = c.state.starts_with('f');
    // Declared kinds map onto the matching atomic: min/max become
    // `atom.global.min/max` for integers (a CAS loop for floats, which PTX lacks);
    // the rest, and a user function, run as a CAS loop.
    let combine = match c.combine {
        CombineKind::Min => quote!(#k::combine::min::<#state>(slot, candidate)),
        CombineKind::Max => quote!(#k::combine::max::<#state>(slot, candidate)),
        CombineKind::Or => quote!(#k::combine::update::<#state>(slot, candidate, |o, n| o | n)),
        CombineKind::And => quote!(#k::combine::update::<#state>(slot, candidate, |o, n| o & n)),
        CombineKind::Sum if float => {
            quote!(#k::combine::update::<#state>(slot, candidate, |o, n| o + n))
        }
        CombineKind::Sum => {
            quote!(#k::combine::update::<#state>(slot, candidate, |o: #state, n| o.wrapping_add(n)))
        }
        CombineKind::Custom => quote!(#k::combine::update::<#state>(slot, candidate, combine)),
    };
    // `combine` in one atomic (no read first), where the kind has one.
    let combine_now_fn = match c.combine {
        CombineKind::Min => quote! {
            #[inline(always)]
            fn combine_now(slot: &<#state as #k::StateWord>::Atomic, candidate: #state) -> bool {
                #k::combine::min_now::<#state>(slot, candidate)
            }
        },
        CombineKind::Max => quote! {
            #[inline(always)]
            fn combine_now(slot: &<#state as #k::StateWord>::Atomic, candidate: #state) -> bool {
                #k::combine::max_now::<#state>(slot, candidate)
            }
        },
        _ => quote!(),
    };
    // The non-atomic twin of `combine`: would it change the slot?
    let improves = match c.combine {
        CombineKind::Min => quote!(candidate < current),
        CombineKind::Max => quote!(candidate > current),
        CombineKind::Or => quote!((current | candidate) != current),
        CombineKind::And => quote!((current & candidate) != current),
        CombineKind::Sum if float => quote!(current + candidate != current),
        CombineKind::Sum => quote!(current.wrapping_add(candidate) != current),
        CombineKind::Custom => quote!(combine(current, candidate) != current),
    };
    // The program's priority (bucketed traversal), if it has one.
    let priority_fn = if p.priority.is_some() {
        quote! {
            #[inline(always)]
            fn priority(state: #state) -> u32 {
                priority(state)
            }
        }
    } else {
        quote!()
    };
    // The tiled kernel's relaxation order: the priority when there is one, else
    // for a `min` over an unsigned integer (BFS levels, labels) the state itself,
    // so that a tile relaxes its nearest vertices first.
    let order_fn = if p.priority.is_none()
        && matches!(c.combine, CombineKind::Min)
        && c.state.starts_with('u')
    {
        quote! {
            #[inline(always)]
            fn order(state: #state) -> u32 {
                (state as u64).min(u32::MAX as u64) as u32
            }
        }
    } else {
        quote!()
    };
    let init_k = format_ident!("vx_{}_init", name);
    let td_chunks_k = format_ident!("vx_{}_td_chunks", name);
    let td_select_k = format_ident!("vx_{}_td_select", name);
    let td_relax_k = format_ident!("vx_{}_td_relax", name);
    let bottom_up_k = format_ident!("vx_{}_bottom_up", name);
    let td_scan_k = format_ident!("vx_{}_td_scan", name);
    let level_k = format_ident!("vx_{}_level", name);
    let naive_k = format_ident!("vx_{}_naive", name);
    let balanced_k = format_ident!("vx_{}_balanced", name);
    let sv_k = format_ident!("vx_{}_build_sv", name);
    let resident_k = format_ident!("vx_{}_resident", name);
    let resident_hubs_k = format_ident!("vx_{}_resident_hubs", name);
    let tiles_k = format_ident!("vx_{}_tiles", name);
    let batch_k = ["init", "chunks", "expand", "settle"]
        .map(|what| format_ident!("vx_{}_batch_{}", name, what));
    let [batch_init_k, batch_chunks_k, batch_expand_k, batch_settle_k] = &batch_k;
    quote! {
        impl #k::Program for Program {
            type State = #state;
            type Weight = #weight;

            #[inline(always)]
            fn init(v: u32, source: u32) -> #state {
                #init_call
            }
            /// Programs run with the explicit (stamp) frontier; the state never
            /// says by itself whether a vertex is active.
            #[inline(always)]
            fn is_active(_state: #state, _iter: u32) -> bool {
                false
            }
            #[inline(always)]
            fn relax(state: #state, weight: #weight, _iter: u32) -> ::core::option::Option<#state> {
                #unused_weight
                #relax_call
            }
            #[inline(always)]
            fn combine(
                slot: &<#state as #k::StateWord>::Atomic,
                candidate: #state,
            ) -> bool {
                #combine
            }
            #[inline(always)]
            fn improves(current: #state, candidate: #state) -> bool {
                #improves
            }
            #combine_now_fn
            #priority_fn
            #order_fn
        }

        #k::ptx_kernels!(Program => #init_k, #naive_k, #balanced_k);
        #k::sv_kernel!(#sv_k);
        #k::direction_kernels!(Program => #td_chunks_k, #td_select_k, #td_relax_k, #bottom_up_k, #td_scan_k, #level_k);
        #k::resident_kernel!(Program => #resident_k, #resident_hubs_k);
        #k::tiles_kernel!(Program => #tiles_k);
        #k::batched_kernels!(Program => #batch_init_k, #batch_chunks_k, #batch_expand_k, #batch_settle_k);
    }
}
