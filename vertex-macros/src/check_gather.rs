//! The rules of gather/apply programs (`#[vertex_program(gather = ..)]`), each
//! reported at the offending span; each has a trybuild case in `tests/ui/`.

use std::collections::HashSet;

use syn::{Fields, Item, ItemStruct, Type};

use crate::ast::Program;
use crate::attr::{CombineKind, DirectionKind, ReduceKind, Schedule};
use crate::check::{check_fn, gpu_safety, prim_name, Ret, ATOMIC_STATES, WEIGHTS};
use crate::ctxt::Ctxt;

/// Checked facts the gather expansion relies on.
pub struct GatherChecked {
    pub state: Type,
    pub msg: Option<Type>,
    pub acc: String,
    pub weight: Option<String>,
    pub kind: CombineKind,
    pub reduce: ReduceKind,
    pub direction: DirectionKind,
    /// `emit(ctx, state)` (2) or `emit(state)` (1); `None`: no emit, Msg = State.
    pub emit_arity: Option<usize>,
    pub gather_takes_weight: bool,
    /// `active(ctx, old, new)` (3) or `active(old, new)` (2); `None`: dense.
    pub active_arity: Option<usize>,
    pub reduce_arity: Option<usize>,
    /// The program may run on the asynchronous engines.
    pub asynchronous: bool,
    /// `priority(ctx, acc)` (2) or `priority(acc)` (1).
    pub priority_arity: Option<usize>,
    /// The program defines `accepts(state)`.
    pub accepts: bool,
    /// The program defines `level(state)` (a level sweep).
    pub level: bool,
    /// Some function of the program reads the run's source vertex
    /// ([`reads_source`]): the run then needs one (`NEEDS_SOURCE`).
    pub reads_source: bool,
    /// `emit` may read the round's global reduction ([`emit_reads_global`]):
    /// `EMIT_READS_GLOBAL`.
    pub emit_reads_global: bool,
}

const INTEGER: &[&str] = &["u32", "i32", "u64", "i64"];

pub fn check(cx: &Ctxt, p: &Program) -> Option<GatherChecked> {
    let name = p.name();
    let (kind, kind_span) = p.attrs.gather?;
    let state = match &p.state {
        Some(t) => {
            let mut layout = Layout {
                cx,
                p,
                seen: HashSet::new(),
                aliases: Vec::new(),
            };
            layout.state(&t.ty);
            Some((*t.ty).clone())
        }
        None => {
            cx.error_spanned_by(
                name,
                "missing `type State = ..;` or `pub struct State { .. }` (the per-vertex value: a number, or a `#[repr(C)]` struct of several fields)",
            );
            None
        }
    };
    let acc = match &p.acc {
        None => {
            cx.error_spanned_by(
                name,
                "missing `type Acc = ..;` (what `gather` returns and is reduced per vertex: u32, i32, u64, i64, f32 or f64)",
            );
            None
        }
        Some(t) => match prim_name(&t.ty) {
            Some(s) if ATOMIC_STATES.contains(&s.as_str()) => Some(s),
            _ => {
                cx.error_spanned_by(
                    &t.ty,
                    "`Acc` must fit one atomic word so that push rounds can combine it in place: use u32, i32, u64, i64, f32 or f64",
                );
                None
            }
        },
    };
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

    // Push-form items do not belong here.
    if let Some(f) = &p.relax {
        cx.error_spanned_by(
            &f.sig.ident,
            "`relax` belongs to push programs (`combine = ..`); a gather/apply program reduces with `gather` and updates with `apply`",
        );
    }
    if let Some((_, span)) = p.attrs.combine {
        cx.syn_error(syn::Error::new(
            span,
            "give either `combine = ..` (a push program) or `gather = ..` (a gather/apply program), not both",
        ));
    }
    // Asynchronous gather/apply: a vertex is applied whenever values have arrived,
    // with what arrived so far (swapped out of its accumulator). That is only the
    // same computation for programs that accumulate deltas and scatter them
    // (frontier-driven, with `active`); a dense program's `apply` needs the round's
    // complete sum.
    let asynchronous = p
        .attrs
        .schedules
        .as_ref()
        .is_some_and(|(s, _)| s.iter().any(|s| *s != Schedule::Sync));
    if let (Some((s, span)), None) = (&p.attrs.schedules, &p.active) {
        if s.iter().any(|s| *s != Schedule::Sync) {
            cx.syn_error(syn::Error::new(
                *span,
                "a dense gather/apply program runs in synchronous rounds: its `apply` needs the round's complete accumulator, which an asynchronous schedule never has; only a frontier-driven program (with `fn active`) that accumulates deltas may run `async` or `obim`",
            ));
        }
    }
    if let Some((s, span)) = &p.attrs.schedules {
        if s.contains(&Schedule::Obim) && p.priority.is_none() {
            cx.syn_error(syn::Error::new(
                *span,
                "the `obim` schedule orders vertices by priority: define `fn priority(ctx: Ctx, acc: Acc) -> u32` (lower runs sooner)",
            ));
        }
    }
    let priority_arity = match &p.priority {
        Some(f) if !asynchronous => {
            cx.error_spanned_by(
                &f.sig.ident,
                "`priority` orders asynchronous work: declare `schedule(sync, async, obim)` (a frontier-driven program), or remove it",
            );
            None
        }
        Some(f) => check_fn(
            cx,
            f,
            &[1, 2],
            "fn priority(ctx: Ctx, acc: Acc) -> u32",
            Ret::U32,
        ),
        None => None,
    };
    if let Some(span) = p.attrs.semiring {
        cx.syn_error(syn::Error::new(
            span,
            "`semiring` applies to push programs only",
        ));
    }
    if let Some(span) = p.attrs.idempotent {
        cx.syn_error(syn::Error::new(
            span,
            "`idempotent` applies to push programs only (a custom `fn combine` of states); a gather/apply program may run asynchronously when it is frontier-driven and its `apply` accumulates deltas",
        ));
    }
    if let Some((s, span)) = &p.attrs.schedules {
        if s.is_empty() {
            cx.syn_error(syn::Error::new(*span, "`schedule()` lists no schedule"));
        }
    }
    // The constants are copied into the program's impl with these types.
    for (c, ty) in [(&p.max_rounds, "u32"), (&p.tolerance, "f64")] {
        if let Some(c) = c {
            if prim_name(&c.ty).as_deref() != Some(ty) {
                cx.error_spanned_by(&c.ty, format!("`{}` must have type `{ty}`", c.ident));
            }
        }
    }

    // Operators.
    let init = match &p.init {
        None => {
            cx.error_spanned_by(name, "missing `fn init(ctx: Ctx) -> State`");
            None
        }
        Some(f) => check_fn(cx, f, &[1], "fn init(ctx: Ctx) -> State", Ret::State),
    };
    let gather = match &p.gather {
        None => {
            cx.error_spanned_by(
                name,
                "missing `fn gather(msg: Msg, weight: Weight) -> Acc` (the value an in-edge contributes)",
            );
            None
        }
        Some(f) => check_fn(
            cx,
            f,
            &[1, 2],
            "fn gather(msg: Msg, weight: Weight) -> Acc",
            Ret::State,
        ),
    };
    if let (Some(2), None, Some(f)) = (gather, &p.weight, &p.gather) {
        cx.error_spanned_by(
            &f.sig.inputs,
            "`gather` takes a weight but the program declares no `type Weight = ..;`",
        );
    }
    if let (Some(1), Some(w)) = (gather, &p.weight) {
        cx.error_spanned_by(
            w,
            "the program declares `type Weight` but `gather` takes no weight argument",
        );
    }
    let apply = match &p.apply {
        None => {
            cx.error_spanned_by(
                name,
                "missing `fn apply(ctx: Ctx, old: State, acc: Acc) -> State`",
            );
            None
        }
        Some(f) => check_fn(
            cx,
            f,
            &[3],
            "fn apply(ctx: Ctx, old: State, acc: Acc) -> State",
            Ret::State,
        ),
    };
    let emit_arity = p.emit.as_ref().and_then(|f| {
        check_fn(
            cx,
            f,
            &[1, 2],
            "fn emit(ctx: Ctx, state: State) -> Msg",
            Ret::State,
        )
    });
    if let (Some(t), None) = (&p.msg, &p.emit) {
        cx.error_spanned_by(
            t,
            "`type Msg` is declared but no `fn emit(ctx: Ctx, state: State) -> Msg` makes one",
        );
    }
    if let (None, Some(f)) = (&p.msg, &p.emit) {
        cx.error_spanned_by(
            &f.sig.ident,
            "`emit` needs `type Msg = ..;` (what it returns)",
        );
    }
    let active_arity = p.active.as_ref().and_then(|f| {
        check_fn(
            cx,
            f,
            &[2, 3],
            "fn active(ctx: Ctx, old: State, new: State) -> bool",
            Ret::Bool,
        )
    });
    let accepts = p.accepts.as_ref().and_then(|f| {
        if p.active.is_none() {
            cx.error_spanned_by(
                &f.sig.ident,
                "`accepts` lets frontier-driven programs skip settled vertices; a dense program (no `fn active`) applies every vertex every round: remove it",
            );
        }
        check_fn(cx, f, &[1], "fn accepts(state: State) -> bool", Ret::Bool)
    });
    // A level sweep's frontiers are its levels, known from the start.
    let level = p.level.as_ref().and_then(|f| {
        if let Some(a) = &p.active {
            cx.error_spanned_by(
                &a.sig.ident,
                "a level sweep (`fn level`) applies each level once, highest first, and sends from the level applied last; its frontiers are its levels, so it has no `active`: remove one of the two",
            );
        }
        if let Some((_, span)) = p.attrs.reduce {
            cx.syn_error(syn::Error::new(
                span,
                "a level sweep (`fn level`) applies each vertex once and has no per-round global reduction: remove `reduce = ..`",
            ));
        }
        check_fn(cx, f, &[1], "fn level(state: State) -> u32", Ret::U32)
    });
    let reduce_arity = p.reduce.as_ref().and_then(|f| {
        check_fn(
            cx,
            f,
            &[2, 3],
            "fn reduce(ctx: Ctx, old: State, new: State) -> f64",
            Ret::F64,
        )
    });
    if let (Some((_, span)), None) = (p.attrs.reduce, &p.reduce) {
        cx.syn_error(syn::Error::new(span, "`reduce = ..` needs `fn reduce(ctx: Ctx, old: State, new: State) -> f64` (each vertex's share)"));
    }
    if let (Some(c), None) = (&p.tolerance, &p.reduce) {
        cx.error_spanned_by(&c.ident, "`TOLERANCE` is compared with the round's reduction: define `fn reduce(ctx: Ctx, old: State, new: State) -> f64`");
    }
    if let (Some(c), true) = (&p.tolerance, p.active.is_some()) {
        cx.error_spanned_by(&c.ident, "`TOLERANCE` stops dense programs; a program with `active` stops when its frontier is empty");
    }

    // The reduction of gathered values.
    match kind {
        CombineKind::Custom => {
            match &p.combine {
                None => cx.syn_error(syn::Error::new(kind_span, "`gather = custom` needs `fn combine(a: Acc, b: Acc) -> Acc` (associative and commutative)")),
                Some(f) => {
                    check_fn(cx, f, &[2], "fn combine(a: Acc, b: Acc) -> Acc", Ret::State);
                }
            }
            match &p.identity {
                None => cx.syn_error(syn::Error::new(kind_span, "`gather = custom` needs `fn identity() -> Acc` (the value of an empty reduction)")),
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
                        "`gather = {}` is built in; `{}` is only for `gather = custom`",
                        k.ident().to_lowercase(),
                        f.sig.ident
                    ),
                );
            }
            if matches!(k, CombineKind::Or | CombineKind::And) {
                if let Some(a) = &acc {
                    if !INTEGER.contains(&a.as_str()) {
                        cx.syn_error(syn::Error::new(
                            kind_span,
                            format!(
                                "bitwise `{}` gather needs an integer Acc, not {a}",
                                k.ident().to_lowercase()
                            ),
                        ));
                    }
                }
            }
        }
    }

    gpu_safety(cx, p);
    init?;
    apply?;
    Some(GatherChecked {
        state: state?,
        msg: p.msg.as_ref().map(|t| (*t.ty).clone()),
        acc: acc?,
        weight,
        kind,
        reduce: p.attrs.reduce.map_or(ReduceKind::Sum, |r| r.0),
        direction: p.attrs.direction.map_or(DirectionKind::Auto, |d| d.0),
        emit_arity,
        gather_takes_weight: gather? == 2,
        active_arity,
        reduce_arity,
        asynchronous,
        priority_arity,
        accepts: accepts.is_some(),
        level: level.is_some(),
        reads_source: reads_source(p.items()),
        emit_reads_global: p.emit.as_ref().is_some_and(emit_reads_global),
    })
}

/// Whether `emit` may read `Ctx::global`: a field access `c.global` on its
/// `Ctx` parameter `c`, a pattern binding `global`, or any other use of that
/// parameter than reading one of its fields (handed to a helper, copied, named
/// inside a macro), which counts as reading everything. `false` lets the CPU's
/// Jacobi rounds emit each vertex's next message right after its apply, before
/// the round's reduction is known (no separate emit pass).
pub fn emit_reads_global(f: &syn::ItemFn) -> bool {
    use syn::visit::Visit;

    struct Finder {
        ctx: Vec<syn::Ident>,
        found: bool,
    }
    impl Finder {
        fn is_ctx(&self, p: &syn::Path) -> bool {
            self.ctx.iter().any(|c| p.is_ident(c))
        }
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
            if let syn::Expr::Path(base) = &*e.base {
                if self.is_ctx(&base.path) {
                    // A field of the context: only `global` counts; the base
                    // itself is not a use of the whole context.
                    if matches!(&e.member, syn::Member::Named(m) if m == "global") {
                        self.found = true;
                    }
                    return;
                }
            }
            syn::visit::visit_expr_field(self, e);
        }
        fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
            if self.is_ctx(&e.path) {
                self.found = true;
            }
            syn::visit::visit_expr_path(self, e);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            fn mentions(ts: proc_macro2::TokenStream, ids: &[syn::Ident]) -> bool {
                ts.into_iter().any(|t| match t {
                    proc_macro2::TokenTree::Ident(i) => ids.contains(&i),
                    proc_macro2::TokenTree::Group(g) => mentions(g.stream(), ids),
                    _ => false,
                })
            }
            if mentions(m.tokens.clone(), &self.ctx) {
                self.found = true;
            }
        }
    }
    // `emit(ctx, state)`: the context is the first of two parameters, however
    // its type is spelt (`emit(state)` has none).
    let mut ctx = Vec::new();
    if f.sig.inputs.len() == 2 {
        if let Some(syn::FnArg::Typed(pt)) = f.sig.inputs.first() {
            match &*pt.pat {
                syn::Pat::Ident(pi) if pi.subpat.is_none() => ctx.push(pi.ident.clone()),
                syn::Pat::Wild(_) => {}
                syn::Pat::Struct(ps) => {
                    if ps
                        .fields
                        .iter()
                        .any(|f| matches!(&f.member, syn::Member::Named(m) if m == "global"))
                    {
                        return true;
                    }
                }
                _ => return true,
            }
        }
    }
    if ctx.is_empty() {
        return false;
    }
    let mut finder = Finder { ctx, found: false };
    finder.visit_block(&f.block);
    finder.found
}

/// Whether some function among `items` reads the run's source vertex: a field
/// access `c.source` on a parameter `c` declared of type `Ctx`, or a pattern
/// `Ctx { source, .. }` anywhere.
///
/// The push form knows from `init`'s arity (`init(v, source)`); a gather program's
/// operators all take the same `Ctx`, so the only sign is the code itself. Without
/// it such a program ran with `ctx.source == u32::MAX` when the caller gave no
/// source, instead of being told to give one. Reading through a `Ctx` handed on
/// to a helper is caught when the helper's parameter is typed `Ctx` too; only
/// parameters of that type count, so a state field named `source` does not.
pub fn reads_source(items: &[Item]) -> bool {
    use syn::visit::Visit;

    /// The identifiers bound to `Ctx` parameters of the function being visited.
    struct Finder {
        ctx_params: Vec<syn::Ident>,
        found: bool,
    }
    fn is_ctx(ty: &Type) -> bool {
        match ty {
            Type::Path(tp) => tp.path.segments.last().is_some_and(|s| s.ident == "Ctx"),
            Type::Reference(r) => is_ctx(&r.elem),
            _ => false,
        }
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            let saved = std::mem::take(&mut self.ctx_params);
            for arg in &f.sig.inputs {
                if let syn::FnArg::Typed(pt) = arg {
                    if let (syn::Pat::Ident(pi), true) = (&*pt.pat, is_ctx(&pt.ty)) {
                        self.ctx_params.push(pi.ident.clone());
                    }
                }
            }
            syn::visit::visit_item_fn(self, f);
            self.ctx_params = saved;
        }
        fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
            if let (syn::Expr::Path(base), syn::Member::Named(field)) = (&*e.base, &e.member) {
                if field == "source"
                    && base
                        .path
                        .get_ident()
                        .is_some_and(|b| self.ctx_params.contains(b))
                {
                    self.found = true;
                }
            }
            syn::visit::visit_expr_field(self, e);
        }
        fn visit_pat_struct(&mut self, ps: &'ast syn::PatStruct) {
            let ctx = ps.path.segments.last().is_some_and(|s| s.ident == "Ctx");
            if ctx
                && ps
                    .fields
                    .iter()
                    .any(|f| matches!(&f.member, syn::Member::Named(m) if m == "source"))
            {
                self.found = true;
            }
            syn::visit::visit_pat_struct(self, ps);
        }
    }
    let mut f = Finder {
        ctx_params: Vec::new(),
        found: false,
    };
    for item in items {
        f.visit_item(item);
    }
    f.found
}

/// Plain number types a state may hold: the same bytes mean the same value on the
/// host and on the GPU, and kernels only store values of the type.
const PLAIN: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];
/// Heap types `gpu_safety` already reports wherever they appear (as in
/// `check::HEAP_TYPES`); the layout check does not report them twice.
const HEAP_TYPES: &[&str] = &[
    "Vec", "String", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque",
];

const PLAIN_HELP: &str = "a number (u8..u64, i8..i64, f32, f64, bool), an array of them, or a `#[repr(C)]` struct defined in this module";

/// The State of a gather/apply program may be a struct, but GPU runs copy state
/// arrays between host and device as raw bytes: it must have one layout on both
/// (`#[repr(C)]`) and hold only plain data (no references, pointers, enums or types
/// the macro cannot see).
struct Layout<'a> {
    cx: &'a Ctxt,
    p: &'a Program,
    /// Structs already checked (each is reported once).
    seen: HashSet<String>,
    /// Aliases being resolved (a cycle is rustc's to report).
    aliases: Vec<String>,
}

impl Layout<'_> {
    fn state(&mut self, ty: &Type) {
        if !self.plain(ty) {
            self.cx.error_spanned_by(
                ty,
                format!("`State` must be plain data, since GPU runs copy state arrays to and from the device as raw bytes: use {PLAIN_HELP}"),
            );
        }
    }

    /// Whether `ty` is plain; reports problems inside module items it names (and
    /// returns true for them, so that nothing is reported twice).
    fn plain(&mut self, ty: &Type) -> bool {
        match ty {
            Type::Paren(t) => self.plain(&t.elem),
            Type::Group(t) => self.plain(&t.elem),
            Type::Array(a) => self.plain(&a.elem),
            Type::Path(tp) if tp.qself.is_none() => {
                let path = &tp.path;
                let first = path.segments[0].ident.to_string();
                // Reported by `gpu_safety`.
                if first == "std"
                    || first == "alloc"
                    || (path.segments.len() == 1 && HEAP_TYPES.contains(&first.as_str()))
                {
                    return true;
                }
                let Some(name) = prim_name(ty) else {
                    return false;
                };
                if PLAIN.contains(&name.as_str()) {
                    return true;
                }
                let p = self.p;
                match p
                    .items()
                    .iter()
                    .find(|i| item_name(i).is_some_and(|n| *n == name))
                {
                    Some(Item::Struct(s)) => {
                        if self.seen.insert(name) {
                            self.check_struct(s);
                        }
                        true
                    }
                    Some(Item::Type(t)) => {
                        if self.aliases.contains(&name) {
                            return true; // a cycle; rustc reports it
                        }
                        self.aliases.push(name);
                        let plain = self.plain(&t.ty);
                        self.aliases.pop();
                        plain
                    }
                    Some(Item::Enum(_)) => {
                        self.cx.error_spanned_by(
                            ty,
                            format!("`{name}` is an enum, which is not plain data: GPU runs copy state arrays as raw bytes, and not every bit pattern is a valid enum; keep a discriminant in an integer field of a `#[repr(C)]` struct"),
                        );
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn check_struct(&mut self, s: &ItemStruct) {
        let cx = self.cx;
        if !has_stable_repr(s) {
            cx.error_spanned_by(
                &s.ident,
                format!("the state struct `{}` needs `#[repr(C)]` (or `#[repr(transparent)]`): GPU runs copy state arrays as raw bytes, so the host and the device must lay it out the same way", s.ident),
            );
        }
        let fields = match &s.fields {
            Fields::Named(f) => &f.named,
            Fields::Unnamed(f) => &f.unnamed,
            Fields::Unit => return,
        };
        for (i, f) in fields.iter().enumerate() {
            if !self.plain(&f.ty) {
                let field = f
                    .ident
                    .as_ref()
                    .map_or_else(|| i.to_string(), |id| id.to_string());
                cx.error_spanned_by(
                    &f.ty,
                    format!("field `{field}` of the state struct `{}` is not plain data (GPU runs copy state arrays as raw bytes): use {PLAIN_HELP}", s.ident),
                );
            }
        }
    }
}

fn item_name(item: &Item) -> Option<&syn::Ident> {
    match item {
        Item::Struct(s) => Some(&s.ident),
        Item::Type(t) => Some(&t.ident),
        Item::Enum(e) => Some(&e.ident),
        Item::Union(u) => Some(&u.ident),
        _ => None,
    }
}

/// `#[repr(C)]` or `#[repr(transparent)]` (alone or with `packed`/`align`).
fn has_stable_repr(s: &ItemStruct) -> bool {
    s.attrs
        .iter()
        .filter(|a| a.path().is_ident("repr"))
        .any(|a| {
            let mut stable = false;
            let _ = a.parse_nested_meta(|m| {
                if m.path.is_ident("C") || m.path.is_ident("transparent") {
                    stable = true;
                }
                // `align(8)`, `packed(2)`: skip the argument.
                if m.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in m.input);
                    let _: proc_macro2::TokenStream = content.parse()?;
                }
                Ok(())
            });
            stable
        })
}
