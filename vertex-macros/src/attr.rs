//! The arguments of `#[vertex_program(...)]`.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::ctxt::Ctxt;

/// How values arriving at a vertex are reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombineKind {
    Min,
    Max,
    Or,
    And,
    Sum,
    /// A user `fn combine(old, new) -> State`, run as a CAS loop.
    Custom,
}

impl CombineKind {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "min" => CombineKind::Min,
            "max" => CombineKind::Max,
            "or" => CombineKind::Or,
            "and" => CombineKind::And,
            "sum" => CombineKind::Sum,
            "custom" => CombineKind::Custom,
            _ => return None,
        })
    }

    /// Idempotent reductions (x ⊕ x = x) tolerate a value arriving twice, which is
    /// what asynchronous and priority schedules do.
    pub fn idempotent(self) -> bool {
        matches!(
            self,
            CombineKind::Min | CombineKind::Max | CombineKind::Or | CombineKind::And
        )
    }

    pub fn ident(self) -> &'static str {
        match self {
            CombineKind::Min => "Min",
            CombineKind::Max => "Max",
            CombineKind::Or => "Or",
            CombineKind::And => "And",
            CombineKind::Sum => "Sum",
            CombineKind::Custom => "Custom",
        }
    }
}

/// A schedule a program may ask to be restricted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    Sync,
    Async,
    Obim,
}

/// The per-round global reduction of a gather/apply program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Min,
    Max,
}

/// Which way a gather/apply program builds its accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectionKind {
    Push,
    Pull,
    Auto,
}

/// Where an intersection program's values go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerKind {
    Graph,
    Vertex,
}

/// Parsed attribute arguments, each with the span it came from.
#[derive(Default)]
pub struct Attrs {
    /// `intersect = ..`: the program is an intersection (triangle) program.
    pub intersect: Option<(CombineKind, Span)>,
    pub per: Option<(PerKind, Span)>,
    /// `gather = ..`: the program is a gather/apply program.
    pub gather: Option<(CombineKind, Span)>,
    pub reduce: Option<(ReduceKind, Span)>,
    pub direction: Option<(DirectionKind, Span)>,
    pub combine: Option<(CombineKind, Span)>,
    pub schedules: Option<(Vec<Schedule>, Span)>,
    pub idempotent: Option<Span>,
    pub semiring: Option<Span>,
    /// A `combine` argument was present but invalid (already reported).
    pub combine_invalid: bool,
}

/// One `key`, `key = value` or `key(a, b)` argument.
enum Arg {
    Flag(Ident),
    Value(Ident, Ident),
    List(Ident, Vec<Ident>),
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            let v: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            Ok(Arg::Value(key, v))
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            let items = Punctuated::<Ident, Token![,]>::parse_terminated_with(
                &content,
                syn::ext::IdentExt::parse_any,
            )?;
            Ok(Arg::List(key, items.into_iter().collect()))
        } else {
            Ok(Arg::Flag(key))
        }
    }
}

struct ArgList(Punctuated<Arg, Token![,]>);

impl Parse for ArgList {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        Ok(ArgList(Punctuated::parse_terminated(input)?))
    }
}

const KEYS: &str = "`combine = min|max|or|and|sum|custom`, `schedule(sync, async, obim)`, `idempotent`, `semiring`, or for gather/apply programs `gather = sum|min|max|or|and|custom`, `reduce = sum|min|max`, `direction = push|pull|auto`, or for intersection programs `intersect = sum|min|max|or|and|custom`, `per = graph|vertex`";

impl Attrs {
    pub fn parse(cx: &Ctxt, tokens: proc_macro2::TokenStream) -> Attrs {
        let mut attrs = Attrs::default();
        let list: ArgList = match syn::parse2(tokens) {
            Ok(l) => l,
            Err(e) => {
                cx.syn_error(syn::Error::new(e.span(), format!("{e}; expected {KEYS}")));
                return attrs;
            }
        };
        for arg in list.0 {
            match arg {
                Arg::Value(k, v) if k == "combine" => {
                    if attrs.combine.is_some() {
                        cx.error_spanned_by(&k, "`combine` is given twice");
                        continue;
                    }
                    match CombineKind::parse(&v.to_string()) {
                        Some(c) => attrs.combine = Some((c, v.span())),
                        None => {
                            attrs.combine_invalid = true;
                            cx.error_spanned_by(
                                &v,
                                format!("unknown combine `{v}`: expected min, max, or, and, sum or custom"),
                            )
                        }
                    }
                }
                Arg::Value(k, v) if k == "gather" => {
                    if attrs.gather.is_some() {
                        cx.error_spanned_by(&k, "`gather` is given twice");
                        continue;
                    }
                    match CombineKind::parse(&v.to_string()) {
                        Some(c) => attrs.gather = Some((c, v.span())),
                        None => cx.error_spanned_by(
                            &v,
                            format!(
                                "unknown gather `{v}`: expected sum, min, max, or, and or custom"
                            ),
                        ),
                    }
                }
                Arg::Value(k, v) if k == "intersect" => {
                    if attrs.intersect.is_some() {
                        cx.error_spanned_by(&k, "`intersect` is given twice");
                        continue;
                    }
                    match CombineKind::parse(&v.to_string()) {
                        Some(c) => attrs.intersect = Some((c, v.span())),
                        None => cx.error_spanned_by(
                            &v,
                            format!(
                                "unknown intersect `{v}`: expected sum, min, max, or, and or custom"
                            ),
                        ),
                    }
                }
                Arg::Value(k, v) if k == "per" => {
                    let per = match v.to_string().as_str() {
                        "graph" => Some(PerKind::Graph),
                        "vertex" => Some(PerKind::Vertex),
                        _ => None,
                    };
                    match per {
                        Some(_) if attrs.per.is_some() => {
                            cx.error_spanned_by(&k, "`per` is given twice")
                        }
                        Some(p) => attrs.per = Some((p, k.span())),
                        None => cx.error_spanned_by(
                            &v,
                            format!("unknown per `{v}`: expected graph or vertex"),
                        ),
                    }
                }
                Arg::Value(k, v) if k == "reduce" => {
                    let r = match v.to_string().as_str() {
                        "sum" => Some(ReduceKind::Sum),
                        "min" => Some(ReduceKind::Min),
                        "max" => Some(ReduceKind::Max),
                        _ => None,
                    };
                    match r {
                        Some(_) if attrs.reduce.is_some() => {
                            cx.error_spanned_by(&k, "`reduce` is given twice")
                        }
                        Some(r) => attrs.reduce = Some((r, k.span())),
                        None => cx.error_spanned_by(
                            &v,
                            format!("unknown reduce `{v}`: expected sum, min or max"),
                        ),
                    }
                }
                Arg::Value(k, v) if k == "direction" => {
                    let d = match v.to_string().as_str() {
                        "push" => Some(DirectionKind::Push),
                        "pull" => Some(DirectionKind::Pull),
                        "auto" => Some(DirectionKind::Auto),
                        _ => None,
                    };
                    match d {
                        Some(_) if attrs.direction.is_some() => {
                            cx.error_spanned_by(&k, "`direction` is given twice")
                        }
                        Some(d) => attrs.direction = Some((d, k.span())),
                        None => cx.error_spanned_by(
                            &v,
                            format!("unknown direction `{v}`: expected push, pull or auto"),
                        ),
                    }
                }
                Arg::List(k, items) if k == "schedule" => {
                    if attrs.schedules.is_some() {
                        cx.error_spanned_by(&k, "`schedule` is given twice");
                        continue;
                    }
                    let mut s = Vec::new();
                    for it in &items {
                        match it.to_string().as_str() {
                            "sync" => s.push(Schedule::Sync),
                            "async" => s.push(Schedule::Async),
                            "obim" => s.push(Schedule::Obim),
                            other => cx.error_spanned_by(
                                it,
                                format!("unknown schedule `{other}`: expected sync, async or obim"),
                            ),
                        }
                    }
                    attrs.schedules = Some((s, k.span()));
                }
                Arg::Value(k, v) if k == "schedule" => {
                    let s = match v.to_string().as_str() {
                        "sync" => Some(Schedule::Sync),
                        "async" => Some(Schedule::Async),
                        "obim" => Some(Schedule::Obim),
                        _ => None,
                    };
                    match s {
                        Some(s) if attrs.schedules.is_none() => {
                            attrs.schedules = Some((vec![s], k.span()))
                        }
                        Some(_) => cx.error_spanned_by(&k, "`schedule` is given twice"),
                        None => cx.error_spanned_by(
                            &v,
                            format!("unknown schedule `{v}`: expected sync, async or obim"),
                        ),
                    }
                }
                Arg::Flag(k) if k == "idempotent" => {
                    if attrs.idempotent.replace(k.span()).is_some() {
                        cx.error_spanned_by(&k, "`idempotent` is given twice");
                    }
                }
                Arg::Flag(k) if k == "semiring" => {
                    if attrs.semiring.replace(k.span()).is_some() {
                        cx.error_spanned_by(&k, "`semiring` is given twice");
                    }
                }
                Arg::Flag(k) | Arg::Value(k, _) | Arg::List(k, _) => {
                    cx.error_spanned_by(
                        &k,
                        format!("unknown or malformed argument `{k}`; expected {KEYS}"),
                    );
                }
            }
        }
        attrs
    }
}
