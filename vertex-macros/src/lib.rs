//! `#[vertex_program]`: one Rust definition of a graph algorithm's vertex operators,
//! expanded into a CPU program type and GPU kernel entry points.
//!
//! Pipeline (as in serde_derive): `attr` parses the attribute, `ast` splits the
//! module into roles (State, Weight, init, relax, combine, priority), `check`
//! enforces every rule with a span (all errors reported together via `ctxt`),
//! and `expand` writes the code. Three program kinds, by attribute: push
//! (`combine = ..`: `check`, `expand::{cpu, gpu}`), gather/apply (`gather = ..`:
//! `check_gather`, `expand::gather`) and intersection (`intersect = ..`:
//! `check_intersect`, `expand::intersect`). See the `vertex-dsl` crate docs for the user
//! guide.

mod ast;
mod attr;
mod check;
mod check_gather;
mod check_intersect;
mod ctxt;
mod expand;

use proc_macro::TokenStream;

/// Turns a module of vertex operators into a program every engine can run.
///
/// ```ignore
/// #[vertex_program(combine = min)]
/// pub mod sssp {
///     pub type State = u32;
///     pub type Weight = u32;
///     pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
///     pub fn relax(d: State, w: Weight) -> Option<State> { d.checked_add(w) }
///     pub fn priority(d: State) -> u32 { d }
/// }
/// ```
#[proc_macro_attribute]
pub fn vertex_program(attr: TokenStream, item: TokenStream) -> TokenStream {
    match vertex_program_impl(attr.into(), item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => ctxt::to_compile_errors(e).into(),
    }
}

fn vertex_program_impl(
    attr: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let cx = ctxt::Ctxt::default();
    let attrs = attr::Attrs::parse(&cx, attr);
    let item: syn::Item = syn::parse2(item)?;
    let program = ast::Program::from_item(&cx, attrs, item);
    if let Some(p) = program.as_ref().filter(|p| p.attrs.intersect.is_some()) {
        let checked = check_intersect::check(&cx, p);
        cx.check()?;
        return match checked {
            Some(c) => Ok(expand::intersect::expand(p, &c)),
            None => Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "invalid vertex program",
            )),
        };
    }
    if let Some((_, span)) = program.as_ref().and_then(|p| p.attrs.per) {
        cx.syn_error(syn::Error::new(
            span,
            "`per` belongs to intersection programs: add `intersect = sum|min|max|or|and|custom`",
        ));
    }
    if let Some(p) = program.as_ref().filter(|p| p.attrs.gather.is_some()) {
        let checked = check_gather::check(&cx, p);
        cx.check()?;
        return match checked {
            Some(c) => Ok(expand::gather::expand(p, &c)),
            None => Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "invalid vertex program",
            )),
        };
    }
    if let Some(p) = &program {
        for span in [p.attrs.reduce.map(|r| r.1), p.attrs.direction.map(|d| d.1)]
            .into_iter()
            .flatten()
        {
            cx.syn_error(syn::Error::new(
                span,
                "`reduce` and `direction` belong to gather/apply programs: add `gather = sum|min|max|or|and|custom`",
            ));
        }
    }
    let checked = program.as_ref().and_then(|p| check::check(&cx, p));
    cx.check()?;
    let (Some(p), Some(c)) = (program, checked) else {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "invalid vertex program",
        ));
    };
    Ok(expand::expand(&p, &c))
}
