//! The dense closure of a `#[vertex_program(semiring)]`: the program as a
//! `kernels_rs::closure::Semiring` (⊕ = its `combine` as a plain function, ⊗ = its
//! `relax`) and, for the crate's nvptx64 build, the blocked Floyd–Warshall entry
//! points `vx_<module>_fw_{phase1,phase2,phase3,path1,path2,path3,peak}`
//! instantiating the kernels-rs skeleton with it. The runtime
//! (`runtime::gpu::closure`) loads them by that convention, and its emulator runs
//! the same bodies on the host through the `Semiring` impl, which exists on both
//! targets.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::Program;
use crate::attr::CombineKind;
use crate::check::Checked;

/// Empty unless the program is declared `semiring` (with `relax(state, weight)`).
pub fn closure_kernels(p: &Program, c: &Checked) -> TokenStream {
    if p.attrs.semiring.is_none() || !c.relax_takes_weight {
        return quote!();
    }
    let k = quote!(::vertex_dsl::kernels);
    let state = format_ident!("{}", c.state);
    let float = c.state.starts_with('f');
    // ⊕ with the same meaning as the host's `combine_with` (min/max of the
    // value, bitwise or/and, sum) or the user's function.
    let add = match c.combine {
        CombineKind::Min => quote!(a.min(b)),
        CombineKind::Max => quote!(a.max(b)),
        CombineKind::Or => quote!(a | b),
        CombineKind::And => quote!(a & b),
        CombineKind::Sum if float => quote!(a + b),
        CombineKind::Sum => quote!(a.wrapping_add(b)),
        CombineKind::Custom => quote!(combine(a, b)),
    };
    let name = p.name();
    let n = |s: &str| format_ident!("vx_{}_fw_{}", name, s);
    let (p1, p2, p3) = (n("phase1"), n("phase2"), n("phase3"));
    let (q1, q2, q3) = (n("path1"), n("path2"), n("path3"));
    let peak = n("peak");
    quote! {
        impl #k::closure::Semiring for Program {
            type T = #state;
            #[inline(always)]
            fn add(a: #state, b: #state) -> #state {
                #add
            }
            #[inline(always)]
            fn mul(a: #state, b: #state) -> #state {
                relax(a, b)
            }
        }

        #k::closure_kernels!(Program => #p1, #p2, #p3, #q1, #q2, #q3, #peak);
    }
}
