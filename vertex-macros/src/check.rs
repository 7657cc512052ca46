//! Every rule the macro promises, each reported at the span of the offending code.
//! Each rule has a trybuild UI test in `tests/ui/`.

use syn::visit::Visit;
use syn::{FnArg, ItemFn, ReturnType, Type};

use crate::ast::Program;
use crate::attr::{CombineKind, Schedule};
use crate::ctxt::Ctxt;

/// State types that fit one atomic word on CPU and GPU.
pub const ATOMIC_STATES: &[&str] = &["u32", "i32", "u64", "i64", "f32", "f64"];
const INTEGER_STATES: &[&str] = &["u32", "i32", "u64", "i64"];
/// Edge weight types the runtime stores.
pub const WEIGHTS: &[&str] = &["u32", "i32", "u64", "i64", "f32", "f64"];

/// The primitive name of a type if it is a bare path like `u32`.
pub fn prim_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let s = &p.path.segments[0];
            s.arguments.is_none().then(|| s.ident.to_string())
        }
        _ => None,
    }
}

/// Checked facts the expansion relies on.
pub struct Checked {
    pub state: String,
    pub weight: Option<String>,
    pub combine: CombineKind,
    pub init_takes_source: bool,
    pub relax_takes_weight: bool,
    pub schedules: Vec<Schedule>,
    pub idempotent: bool,
}

pub fn check(cx: &Ctxt, p: &Program) -> Option<Checked> {
    let name = p.name();
    // State
    let state = match &p.state {
        None => {
            cx.error_spanned_by(
                name,
                "missing `type State = ..;` (the per-vertex value: u32, i32, u64, i64, f32 or f64; a struct of several fields needs the gather/apply form, `#[vertex_program(gather = ..)]` with `pub struct State { .. }`)",
            );
            None
        }
        Some(t) => match prim_name(&t.ty) {
            Some(s) if ATOMIC_STATES.contains(&s.as_str()) => Some(s),
            Some(s)
                if p.items()
                    .iter()
                    .any(|i| matches!(i, syn::Item::Struct(st) if st.ident == s)) =>
            {
                cx.error_spanned_by(
                    &t.ty,
                    format!("`State` is the struct `{s}`, and a push program's state must fit one atomic word so that CPU and GPU can combine it in place: use u32, i32, u64, i64, f32 or f64, or write a gather/apply program (`#[vertex_program(gather = ..)]`), whose state may be a `#[repr(C)]` struct"),
                );
                None
            }
            _ => {
                cx.error_spanned_by(
                    &t.ty,
                    "`State` must fit one atomic word so that CPU and GPU can combine it in place: use u32, i32, u64, i64, f32 or f64",
                );
                None
            }
        },
    };
    // Weight
    let weight = p.weight.as_ref().and_then(|t| match prim_name(&t.ty) {
        Some(s) if WEIGHTS.contains(&s.as_str()) => Some(s),
        _ => {
            cx.error_spanned_by(
                &t.ty,
                "`Weight` must be one of u32, i32, u64, i64, f32, f64",
            );
            None
        }
    });

    // Operators: presence and shape.
    let init_arity = match &p.init {
        None => {
            cx.error_spanned_by(
                name,
                "missing `fn init(v: u32, source: u32) -> State` (or `fn init(v: u32) -> State` when every vertex starts active)",
            );
            None
        }
        Some(f) => check_fn(
            cx,
            f,
            &[1, 2],
            "fn init(v: u32, source: u32) -> State",
            Ret::State,
        ),
    };
    let relax_ret = if p.attrs.semiring.is_some() {
        Ret::State
    } else {
        Ret::OptionState
    };
    let relax_arity = match &p.relax {
        None => {
            cx.error_spanned_by(
                name,
                "missing `fn relax(state: State, weight: Weight) -> Option<State>` (the edge operator)",
            );
            None
        }
        Some(f) => check_fn(
            cx,
            f,
            &[1, 2],
            "fn relax(state: State, weight: Weight) -> Option<State>",
            relax_ret,
        ),
    };
    if let (Some(2), None, Some(f)) = (relax_arity, &p.weight, &p.relax) {
        cx.error_spanned_by(
            &f.sig.inputs,
            "`relax` takes a weight but the program declares no `type Weight = ..;`",
        );
    }
    if let (Some(1), Some(w)) = (relax_arity, &p.weight) {
        cx.error_spanned_by(
            w,
            "the program declares `type Weight` but `relax` takes no weight argument",
        );
    }
    if let Some(f) = &p.priority {
        check_fn(cx, f, &[1], "fn priority(state: State) -> u32", Ret::U32);
    }

    // Combine: the attribute and `fn combine` must agree.
    let combine = match (p.attrs.combine, &p.combine) {
        (Some((CombineKind::Custom, _)), Some(f)) | (None, Some(f)) => {
            check_fn(
                cx,
                f,
                &[2],
                "fn combine(old: State, new: State) -> State",
                Ret::State,
            );
            Some(CombineKind::Custom)
        }
        (Some((CombineKind::Custom, span)), None) => {
            cx.syn_error(syn::Error::new(
                span,
                "`combine = custom` needs `fn combine(old: State, new: State) -> State` in the module",
            ));
            None
        }
        (Some((k, _)), Some(f)) => {
            cx.error_spanned_by(
                &f.sig.ident,
                format!(
                    "conflicting combine: the attribute says `combine = {}` but the module also defines `fn combine`; remove one",
                    k.ident().to_lowercase()
                ),
            );
            None
        }
        (Some((k, _)), None) => Some(k),
        (None, None) if p.attrs.combine_invalid => None,
        (None, None) => {
            cx.error_spanned_by(
                name,
                "no combine given: add `#[vertex_program(combine = min)]` (or max, or, and, sum) or define `fn combine(old: State, new: State) -> State`",
            );
            None
        }
    };
    if let (Some(k @ (CombineKind::Or | CombineKind::And)), Some(s), Some((_, span))) =
        (combine, &state, p.attrs.combine)
    {
        if !INTEGER_STATES.contains(&s.as_str()) {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "bitwise `{}` combine needs an integer State, not {s}",
                    k.ident().to_lowercase()
                ),
            ));
        }
    }
    if let (Some(span), Some(k)) = (p.attrs.idempotent, combine) {
        if k != CombineKind::Custom {
            cx.syn_error(syn::Error::new(
                span,
                "`idempotent` only applies to a custom `fn combine`; built-in combines already know whether they are",
            ));
        }
    }
    let idempotent = combine.is_some_and(|k| {
        k.idempotent() || (k == CombineKind::Custom && p.attrs.idempotent.is_some())
    });

    // Schedules.
    let schedules = match &p.attrs.schedules {
        Some((s, span)) => {
            if s.is_empty() {
                cx.syn_error(syn::Error::new(*span, "`schedule()` lists no schedule"));
            }
            if let Some(k) = combine {
                if !idempotent && s.iter().any(|s| *s != Schedule::Sync) {
                    cx.syn_error(syn::Error::new(
                        *span,
                        format!(
                            "asynchronous schedules (async, obim) may deliver a value to a vertex more than once, so they need an idempotent combine (min, max, or, and); `{}` is not{}",
                            k.ident().to_lowercase(),
                            if k == CombineKind::Custom { " declared `idempotent`" } else { "" }
                        ),
                    ));
                }
            }
            if s.contains(&Schedule::Obim) && p.priority.is_none() {
                cx.syn_error(syn::Error::new(
                    *span,
                    "the `obim` schedule orders work by priority: define `fn priority(state: State) -> u32`",
                ));
            }
            s.clone()
        }
        // Obim orders work by priority: listed only for programs that have one
        // (as `schedule(obim)` without `priority` is refused above).
        None if idempotent && p.priority.is_some() => {
            vec![Schedule::Sync, Schedule::Async, Schedule::Obim]
        }
        None if idempotent => vec![Schedule::Sync, Schedule::Async],
        None => vec![Schedule::Sync],
    };
    if p.attrs.semiring.is_some() {
        if let (Some(s), Some(w)) = (&state, &weight) {
            if s != w {
                cx.error_spanned_by(
                    p.weight.as_ref().map(|t| &t.ty),
                    "a `semiring` program multiplies states by weights, so `Weight` must equal `State`",
                );
            }
        }
    }

    // Everything in the module also runs on the GPU: no std, no heap.
    gpu_safety(cx, p);

    Some(Checked {
        state: state?,
        weight,
        combine: combine?,
        init_takes_source: init_arity? == 2,
        relax_takes_weight: relax_arity? == 2,
        schedules,
        idempotent,
    })
}

#[derive(Clone, Copy, PartialEq)]
pub enum Ret {
    State,
    OptionState,
    U32,
    Bool,
    F64,
}

/// Checks an operator's shape; returns its arity if acceptable.
pub fn check_fn(
    cx: &Ctxt,
    f: &ItemFn,
    arities: &[usize],
    expected: &str,
    ret: Ret,
) -> Option<usize> {
    let sig = &f.sig;
    let mut ok = true;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("`{}` cannot be generic: expected `{expected}`", sig.ident),
        );
        ok = false;
    }
    if let Some(a) = &sig.asyncness {
        cx.error_spanned_by(
            a,
            format!("`{}` cannot be async: expected `{expected}`", sig.ident),
        );
        ok = false;
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            format!("`{}` cannot be unsafe: expected `{expected}`", sig.ident),
        );
        ok = false;
    }
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        cx.error_spanned_by(
            r,
            format!("`{}` takes no `self`: expected `{expected}`", sig.ident),
        );
        return None;
    }
    let n = sig.inputs.len();
    if !arities.contains(&n) {
        cx.error_spanned_by(
            &sig.inputs,
            format!(
                "`{}` takes {n} argument(s): expected `{expected}`",
                sig.ident
            ),
        );
        ok = false;
    }
    let ret_ok = match (&sig.output, ret) {
        (ReturnType::Default, _) => false,
        (ReturnType::Type(_, t), Ret::OptionState) => is_option(t),
        (ReturnType::Type(_, t), Ret::U32) => prim_name(t).as_deref() == Some("u32"),
        (ReturnType::Type(_, t), Ret::Bool) => prim_name(t).as_deref() == Some("bool"),
        (ReturnType::Type(_, t), Ret::F64) => prim_name(t).as_deref() == Some("f64"),
        (ReturnType::Type(_, t), Ret::State) => !is_option(t),
    };
    if !ret_ok {
        let at: &dyn quote::ToTokens = match &sig.output {
            ReturnType::Default => &sig.ident,
            ReturnType::Type(_, t) => t,
        };
        cx.error_spanned_by(
            at,
            format!(
                "wrong return type for `{}`: expected `{expected}`",
                sig.ident
            ),
        );
        ok = false;
    }
    ok.then_some(n)
}

fn is_option(t: &Type) -> bool {
    matches!(t, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// Reports code in the module that cannot run on the GPU.
pub fn gpu_safety(cx: &Ctxt, p: &Program) {
    let mut gpu = GpuSafety { cx };
    for item in p.items() {
        gpu.visit_item(item);
    }
}

/// Finds code that cannot run on the GPU: `std`/`alloc` paths, heap types and
/// formatting/printing macros.
struct GpuSafety<'a> {
    cx: &'a Ctxt,
}

const HEAP_TYPES: &[&str] = &[
    "Vec", "String", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque",
];
const HOST_MACROS: &[&str] = &[
    "vec", "format", "println", "print", "eprintln", "eprint", "dbg",
];

impl<'ast> Visit<'ast> for GpuSafety<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first() {
            let f = first.ident.to_string();
            if f == "std" || f == "alloc" {
                self.cx.error_spanned_by(
                    path,
                    format!("`{f}` is not available on the GPU: program code is compiled for nvptx64 without {f}; use `core`"),
                );
                return;
            }
            if path.segments.len() == 1 && HEAP_TYPES.contains(&f.as_str()) {
                self.cx.error_spanned_by(
                    path,
                    format!("`{f}` allocates on the heap, which GPU code cannot do; per-vertex state must be a plain number"),
                );
                return;
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(last) = mac.path.segments.last() {
            let m = last.ident.to_string();
            if HOST_MACROS.contains(&m.as_str()) {
                self.cx.error_spanned_by(
                    &mac.path,
                    format!("`{m}!` needs std or the heap, which GPU code does not have"),
                );
                return;
            }
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if let syn::UseTree::Path(p) = &u.tree {
            let f = p.ident.to_string();
            if f == "std" || f == "alloc" {
                self.cx.error_spanned_by(
                    &p.ident,
                    format!("`{f}` is not available on the GPU: program code is compiled for nvptx64 without {f}; use `core`"),
                );
                return;
            }
        }
        syn::visit::visit_item_use(self, u);
    }
}
