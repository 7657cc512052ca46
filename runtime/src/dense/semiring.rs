//! The algebra a dense closure runs over: a semiring `(T, ⊕, ⊗, 0̄, 1̄)`.
//!
//! Floyd–Warshall computes `d[i][j] ← d[i][j] ⊕ (d[i][k] ⊗ d[k][j])` for every `k`;
//! it is correct for any semiring where ⊕ is idempotent and selective (min, max,
//! or) and the graph has no cycle "better" than the empty path. The instances:
//!
//! * [`MinPlus`] over i32, i64, f32, f64 — shortest paths (APSP);
//! * [`MaxMin`] over u32 — widest (bottleneck) paths;
//! * [`OrAnd`] over u32 (0/1) — transitive closure;
//! * [`ProgramSemiring`] — any `#[vertex_program(semiring)]`: ⊕ is its `combine`,
//!   ⊗ its `relax`, 0̄ is `init(v, s)` for `v ≠ s` and 1̄ is `init(s, s)`.
//!
//! ∞ (no path) is the semiring's zero and is absorbing for ⊗, so the integer
//! instances never add to it: `∞ ⊗ x = ∞` is a select, not an addition that could
//! overflow. Finite sums cannot overflow either once [`Semiring::check_range`]
//! accepted the weights (see there).

use std::fmt::Debug;
use std::marker::PhantomData;

use crate::error::{Error, Result};
use crate::graph::{Weight, WeightKind};
use crate::program::VertexProgram;

/// A matrix element: a weight type with a total numeric view for summaries.
pub trait Elem: Weight + Debug {
    /// The value as f64 (summaries, checksums of float matrices).
    fn to_f64(self) -> f64;
    /// The value as an exact integer, for integer types.
    fn to_i128(self) -> Option<i128>;
}

macro_rules! elem {
    ($to_i128:ident: $($t:ty),*) => {$(
        impl Elem for $t {
            #[inline]
            fn to_f64(self) -> f64 { self as f64 }
            #[inline]
            fn to_i128(self) -> Option<i128> { $to_i128(self) }
        }
    )*};
}
#[inline]
fn exact<T: Into<i128>>(x: T) -> Option<i128> {
    Some(x.into())
}
#[inline]
fn inexact<T>(_: T) -> Option<i128> {
    None
}
elem!(exact: u32, u64, i32, i64);
elem!(inexact: f32, f64);

/// A closed semiring for the dense closure.
pub trait Semiring: Copy + Send + Sync + 'static {
    type T: Elem;
    /// Short name for reports (`min-plus`, `max-min`, `or-and`, a program's name).
    fn name() -> &'static str;
    /// ⊕'s identity and ⊗'s annihilator: "no path" (∞ for min-plus).
    fn zero() -> Self::T;
    /// ⊗'s identity: the empty path (0 for min-plus).
    fn one() -> Self::T;
    /// ⊕: choose between two paths.
    fn add(a: Self::T, b: Self::T) -> Self::T;
    /// ⊗: extend a path; must return [`Semiring::zero`] when either side is zero.
    fn mul(a: Self::T, b: Self::T) -> Self::T;
    /// Whether `cand` strictly improves `cur` (`cur ⊕ cand ≠ cur`); drives the
    /// next-hop matrix and the negative-cycle test (`d[i][i]` improves 1̄).
    #[inline(always)]
    fn improves(cand: Self::T, cur: Self::T) -> bool {
        Self::add(cur, cand) != cur
    }
    #[inline(always)]
    fn is_zero(a: Self::T) -> bool {
        a == Self::zero()
    }
    /// Whether this is the min-plus semiring (Johnson and the negative-cycle
    /// finder only apply to it).
    fn is_min_plus() -> bool {
        false
    }
    /// Checks that a closure over `n` vertices with edge values in `lo..=hi`
    /// cannot overflow. Integer min-plus needs `2·(n−1)·max(|lo|, |hi|) < MAX`:
    /// without a negative cycle every finite value is a simple path of at most
    /// n−1 edges, and the closure adds two of them. With a negative cycle values
    /// may leave that range; the diagonal still turns negative (entries only ever
    /// decrease) and the cycle is reported, never an answer.
    fn check_range(_n: usize, _lo: Self::T, _hi: Self::T) -> Result<()> {
        Ok(())
    }
}

/// Shortest paths: ⊕ = min, ⊗ = +, 0̄ = ∞ (`MAX` for integers), 1̄ = 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct MinPlus<T>(PhantomData<T>);

/// `MinPlus<$t>`: ∞ is `$zero`, ⊗ and the range check are given as bodies
/// over the named arguments.
macro_rules! min_plus {
    (
        $t:ty,
        zero: $zero:expr,
        one: $one:expr,
        mul: |$a:ident, $b:ident| $mul:expr,
        check: |$n:pat_param, $lo:ident, $hi:ident| $check:block
    ) => {
        impl Semiring for MinPlus<$t> {
            type T = $t;
            fn name() -> &'static str {
                "min-plus"
            }
            #[inline(always)]
            fn zero() -> $t {
                $zero
            }
            #[inline(always)]
            fn one() -> $t {
                $one
            }
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t {
                if b < a {
                    b
                } else {
                    a
                }
            }
            #[inline(always)]
            fn mul($a: $t, $b: $t) -> $t {
                $mul
            }
            #[inline(always)]
            fn improves(cand: $t, cur: $t) -> bool {
                cand < cur
            }
            fn is_min_plus() -> bool {
                true
            }
            fn check_range($n: usize, $lo: $t, $hi: $t) -> Result<()> {
                $check
            }
        }
    };
}

macro_rules! min_plus_int {
    ($t:ty) => {
        min_plus!(
            $t,
            zero: <$t>::MAX,
            one: 0,
            // A select, so that ∞ is never an operand of the addition.
            mul: |a, b| if a == <$t>::MAX || b == <$t>::MAX {
                <$t>::MAX
            } else {
                a.wrapping_add(b)
            },
            check: |n, lo, hi| {
                if !range_fits(<$t>::MAX as i128, n, lo as i128, hi as i128) {
                    return Err(Error::InvalidArgument(format!(
                        "edge weights in {lo}..={hi} over {n} vertices may overflow {} distances; use a wider type (i64 or f64)",
                        stringify!($t)
                    )));
                }
                Ok(())
            }
        );
    };
}
min_plus_int!(i32);
min_plus_int!(i64);

macro_rules! min_plus_float {
    ($t:ty) => {
        min_plus!(
            $t,
            zero: <$t>::INFINITY,
            one: 0.0,
            // +∞ + finite = +∞; −∞ and NaN are rejected by `check_range`.
            mul: |a, b| a + b,
            check: |_, lo, hi| {
                if !lo.is_finite() || !hi.is_finite() {
                    return Err(Error::InvalidArgument(format!(
                        "edge weights must be finite numbers (found {lo}..={hi})"
                    )));
                }
                Ok(())
            }
        );
    };
}
min_plus_float!(f32);
min_plus_float!(f64);

/// A semiring over u32 with ⊕ and ⊗ given as bodies over `a` and `b`.
macro_rules! u32_semiring {
    (
        $(#[$doc:meta])*
        $name:ident,
        $label:literal,
        zero: $zero:expr,
        one: $one:expr,
        add: |$a:ident, $b:ident| $add:expr,
        mul: |$c:ident, $d:ident| $mul:expr
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl Semiring for $name {
            type T = u32;
            fn name() -> &'static str {
                $label
            }
            #[inline(always)]
            fn zero() -> u32 {
                $zero
            }
            #[inline(always)]
            fn one() -> u32 {
                $one
            }
            #[inline(always)]
            fn add($a: u32, $b: u32) -> u32 {
                $add
            }
            #[inline(always)]
            fn mul($c: u32, $d: u32) -> u32 {
                $mul
            }
        }
    };
}

u32_semiring!(
    /// Widest paths: ⊕ = max, ⊗ = min, 0̄ = 0 (no capacity), 1̄ = `u32::MAX`.
    MaxMin, "max-min", zero: 0, one: u32::MAX, add: |a, b| a.max(b), mul: |a, b| a.min(b)
);
u32_semiring!(
    /// Transitive closure: ⊕ = or, ⊗ = and over 0/1.
    OrAnd, "or-and", zero: 0, one: 1, add: |a, b| a | b, mul: |a, b| a & b
);

/// The semiring of a `#[vertex_program(semiring)]`: ⊕ = `combine`, ⊗ = `relax`,
/// 0̄ = `init(1, 0)` (not the source), 1̄ = `init(0, 0)` (the source).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProgramSemiring<P>(PhantomData<P>);

impl<P, S> ProgramSemiring<P>
where
    P: VertexProgram<State = S, Weight = S>,
    S: Elem + crate::program::AtomicState,
{
    /// Checks that `P` describes a semiring the closure can use.
    pub fn check() -> Result<()> {
        if !P::SEMIRING {
            return Err(Error::InvalidArgument(format!(
                "program `{}` is not declared `semiring`: its relax is not State × State → State",
                P::NAME
            )));
        }
        if !P::NEEDS_SOURCE {
            return Err(Error::InvalidArgument(format!(
                "program `{}` has no source-dependent init, so it defines no 0̄/1̄ for the closure",
                P::NAME
            )));
        }
        if Self::zero() == Self::one() {
            return Err(Error::InvalidArgument(format!(
                "program `{}`: init gives the same value to the source and to other vertices",
                P::NAME
            )));
        }
        Ok(())
    }
}

impl<P, S> Semiring for ProgramSemiring<P>
where
    P: VertexProgram<State = S, Weight = S>,
    S: Elem + crate::program::AtomicState,
{
    type T = S;
    fn name() -> &'static str {
        P::NAME
    }
    #[inline(always)]
    fn zero() -> S {
        P::init(1, 0)
    }
    #[inline(always)]
    fn one() -> S {
        P::init(0, 0)
    }
    #[inline(always)]
    fn add(a: S, b: S) -> S {
        P::combine(a, b)
    }
    #[inline(always)]
    fn mul(a: S, b: S) -> S {
        match P::relax(a, b) {
            Some(x) => x,
            None => Self::zero(),
        }
    }
    fn is_min_plus() -> bool {
        P::COMBINE == crate::program::Combine::Min && Self::one() == S::default()
    }
}

/// The element type a min-plus run on a graph with weights `w` uses: integers
/// become i32 (or i64 when i32 could overflow), floats keep their width.
pub fn min_plus_kind_for(w: WeightKind, n: usize, lo: i128, hi: i128) -> WeightKind {
    match w {
        WeightKind::F32 => WeightKind::F32,
        WeightKind::F64 => WeightKind::F64,
        _ => {
            if range_fits(i32::MAX as i128, n, lo, hi) {
                WeightKind::I32
            } else {
                WeightKind::I64
            }
        }
    }
}

/// Whether every sum of two simple-path lengths (≤ n−1 edges of weight in
/// `lo..=hi`) stays strictly inside `−max..max`.
pub fn range_fits(max: i128, n: usize, lo: i128, hi: i128) -> bool {
    let steps = (n as i128 - 1).max(1);
    let big = hi.max(0).max(-lo.min(0));
    big.checked_mul(2 * steps).is_some_and(|b| b < max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinity_absorbs_without_overflow() {
        type S = MinPlus<i32>;
        assert_eq!(S::mul(S::zero(), -5), i32::MAX);
        assert_eq!(S::mul(7, S::zero()), i32::MAX);
        assert_eq!(S::mul(-3, 5), 2);
        assert!(S::improves(-1, 0));
        assert!(S::check_range(1000, -10, 100).is_ok());
        assert!(S::check_range(1 << 20, -5000, 100).is_err());
        assert!(S::check_range(10, 0, i32::MAX / 18 + 1).is_err());
        assert!(S::check_range(10, 0, i32::MAX / 18 - 1).is_ok());
        assert!(MinPlus::<f32>::check_range(3, f32::NEG_INFINITY, 1.0).is_err());
    }

    #[test]
    fn other_semirings() {
        assert_eq!(MaxMin::add(MaxMin::zero(), 4), 4);
        assert_eq!(MaxMin::mul(MaxMin::one(), 4), 4);
        assert!(!MaxMin::improves(MaxMin::one(), MaxMin::one()));
        assert_eq!(OrAnd::mul(1, OrAnd::zero()), 0);
    }

    #[test]
    fn kind_choice() {
        assert_eq!(
            min_plus_kind_for(WeightKind::U32, 100, 0, 1000),
            WeightKind::I32
        );
        assert_eq!(
            min_plus_kind_for(WeightKind::U32, 100, 0, u32::MAX as i128),
            WeightKind::I64
        );
        assert_eq!(
            min_plus_kind_for(WeightKind::F32, 5, -1, 1),
            WeightKind::F32
        );
    }
}
