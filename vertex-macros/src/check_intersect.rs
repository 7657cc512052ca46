//! The rules of intersection programs (`#[vertex_program(intersect = ..)]`), each
//! reported at the offending span; each has a trybuild case in `tests/ui/`.

use syn::{FnArg, ItemFn, Type};

use crate::ast::Program;
use crate::attr::{CombineKind, PerKind};
use crate::check::{check_fn, gpu_safety, prim_name, Ret, ATOMIC_STATES};
use crate::ctxt::Ctxt;

/// Checked facts the intersection expansion relies on.
pub struct IntersectChecked {
    pub acc: String,
    pub kind: CombineKind,
    pub per: PerKind,
    /// `common(u, v, w)` (3) or `common()` (0).
    pub common_arity: usize,
    /// `type State` of a per-vertex program with `apply`.
    pub state: Option<Type>,
}

const INTEGER: &[&str] = &["u32", "i32", "u64", "i64"];
const COMMON: &str = "fn common(u: u32, v: u32, w: u32) -> Acc";
const APPLY: &str = "fn apply(ctx: Ctx, acc: Acc) -> State";

pub fn check(cx: &Ctxt, p: &Program) -> Option<IntersectChecked> {
    let name = p.name();
    let (kind, kind_span) = p.attrs.intersect?;
    let per = p.attrs.per.map_or(PerKind::Graph, |p| p.0);
    attributes(cx, p);
    foreign_items(cx, p);

    let acc = match &p.acc {
        None => {
            cx.error_spanned_by(
                name,
                "missing `type Acc = ..;` (what a triangle is worth, reduced over the graph or per vertex: u32, i32, u64, i64, f32 or f64)",
            );
            None
        }
        Some(t) => match prim_name(&t.ty) {
            Some(s) if ATOMIC_STATES.contains(&s.as_str()) => Some(s),
            _ => {
                cx.error_spanned_by(
                    &t.ty,
                    "`Acc` must fit one atomic word so that CPU and GPU threads can combine it in place: use u32, i32, u64, i64, f32 or f64",
                );
                None
            }
        },
    };
    let common = match &p.common {
        None => {
            cx.error_spanned_by(
                name,
                format!("missing `{COMMON}` (what one triangle `{{u, v, w}}` is worth)"),
            );
            None
        }
        Some(f) => check_fn(cx, f, &[0, 3], COMMON, Ret::State).filter(|_| vertex_args(cx, f)),
    };

    // The per-vertex result.
    let state = match (per, &p.state, &p.apply) {
        (PerKind::Graph, s, a) => {
            if let Some(t) = s {
                cx.error_spanned_by(&t.ident, "`State` is the per-vertex result of `apply`, which only `per = vertex` programs have; a `per = graph` program's result is one `Acc`");
            }
            if let Some(f) = a {
                cx.error_spanned_by(&f.sig.ident, "`apply` turns each vertex's `Acc` into its result, which only `per = vertex` programs have: add `per = vertex`, or remove it");
            }
            None
        }
        (PerKind::Vertex, Some(t), Some(f)) => {
            check_fn(cx, f, &[2], APPLY, Ret::State);
            Some((*t.ty).clone())
        }
        (PerKind::Vertex, Some(t), None) => {
            cx.error_spanned_by(
                &t.ident,
                format!("`type State` is declared but no `{APPLY}` makes one"),
            );
            None
        }
        (PerKind::Vertex, None, Some(f)) => {
            cx.error_spanned_by(
                &f.sig.ident,
                "`apply` needs `type State = ..;` (what it returns per vertex)",
            );
            None
        }
        (PerKind::Vertex, None, None) => None,
    };

    // The reduction of triangle values.
    match kind {
        CombineKind::Custom => {
            match &p.combine {
                None => cx.syn_error(syn::Error::new(kind_span, "`intersect = custom` needs `fn combine(a: Acc, b: Acc) -> Acc` (associative and commutative)")),
                Some(f) => {
                    check_fn(cx, f, &[2], "fn combine(a: Acc, b: Acc) -> Acc", Ret::State);
                }
            }
            match &p.identity {
                None => cx.syn_error(syn::Error::new(
                    kind_span,
                    "`intersect = custom` needs `fn identity() -> Acc` (the value of no triangle)",
                )),
                Some(f) => {
                    check_fn(cx, f, &[0], "fn identity() -> Acc", Ret::State);
                }
            }
        }
        k => {
            for f in [&p.combine, &p.identity].into_iter().flatten() {
                cx.error_spanned_by(
                    &f.sig.ident,
                    format!(
                        "`intersect = {}` is built in; `{}` is only for `intersect = custom`",
                        k.ident().to_lowercase(),
                        f.sig.ident
                    ),
                );
            }
            if let (CombineKind::Or | CombineKind::And, Some(a)) = (k, &acc) {
                if !INTEGER.contains(&a.as_str()) {
                    cx.syn_error(syn::Error::new(
                        kind_span,
                        format!(
                            "bitwise `{}` needs an integer Acc, not {a}",
                            k.ident().to_lowercase()
                        ),
                    ));
                }
            }
        }
    }

    gpu_safety(cx, p);
    Some(IntersectChecked {
        acc: acc?,
        kind,
        per,
        common_arity: common?,
        state,
    })
}

/// `common`'s arguments, when it has them, are vertex ids (`u32`).
fn vertex_args(cx: &Ctxt, f: &ItemFn) -> bool {
    let mut ok = true;
    for arg in &f.sig.inputs {
        if let FnArg::Typed(t) = arg {
            if prim_name(&t.ty).as_deref() != Some("u32") {
                cx.error_spanned_by(
                    &t.ty,
                    format!("the corners of a triangle are vertex ids: expected `{COMMON}`"),
                );
                ok = false;
            }
        }
    }
    ok
}

/// Arguments of the other program kinds.
fn attributes(cx: &Ctxt, p: &Program) {
    let a = &p.attrs;
    if let Some((_, span)) = a.gather {
        cx.syn_error(syn::Error::new(
            span,
            "give one of `combine = ..` (push), `gather = ..` (gather/apply) or `intersect = ..` (triangles), not several",
        ));
    }
    if let Some((_, span)) = a.combine {
        cx.syn_error(syn::Error::new(
            span,
            "give one of `combine = ..` (push), `gather = ..` (gather/apply) or `intersect = ..` (triangles), not several",
        ));
    }
    let others = [
        a.reduce.map(|r| ("reduce", r.1)),
        a.direction.map(|d| ("direction", d.1)),
        a.schedules.as_ref().map(|s| ("schedule", s.1)),
        a.idempotent.map(|s| ("idempotent", s)),
        a.semiring.map(|s| ("semiring", s)),
    ];
    for (key, span) in others.into_iter().flatten() {
        cx.syn_error(syn::Error::new(
            span,
            format!("`{key}` does not apply to intersection programs: the engine orders the graph and intersects neighbour lists itself, in one pass; the program only says what a triangle is worth (`intersect = ..`, `per = graph|vertex`)"),
        ));
    }
}

/// Operators of the other program kinds: an intersection program has none of them.
fn foreign_items(cx: &Ctxt, p: &Program) {
    let fns = [
        &p.init,
        &p.relax,
        &p.priority,
        &p.emit,
        &p.gather,
        &p.active,
        &p.accepts,
        &p.reduce,
    ];
    for f in fns.into_iter().flatten() {
        cx.error_spanned_by(
            &f.sig.ident,
            format!(
                "`{}` belongs to push or gather/apply programs; an intersection program defines `{COMMON}` (and, with `per = vertex`, `{APPLY}`)",
                f.sig.ident
            ),
        );
    }
    for t in [&p.msg, &p.weight].into_iter().flatten() {
        cx.error_spanned_by(
            &t.ident,
            format!(
                "`{}` belongs to push or gather/apply programs: triangles are counted on the undirected graph, without weights or messages",
                t.ident
            ),
        );
    }
    for c in [&p.max_rounds, &p.tolerance].into_iter().flatten() {
        cx.error_spanned_by(
            &c.ident,
            format!(
                "`{}` bounds rounds, and an intersection program runs in one pass",
                c.ident
            ),
        );
    }
}
