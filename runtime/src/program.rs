//! The program model every engine runs: a small algebra over per-vertex states.
//!
//! `#[vertex_program]` implements [`VertexProgram`] for a user's module; engines
//! are generic over it and never see user code directly. The pieces:
//!
//! * `State`: the per-vertex value, one atomic word ([`AtomicState`]);
//! * `init(v, source)`: initial state;
//! * `relax(state_u, weight) -> Option<State>`: the edge operator ⊗, the candidate
//!   pushed along `u → v` (`None` = nothing to push);
//! * `combine(old, new)`: the reduction ⊕ on arrival, a native atomic for the
//!   built-in kinds or a CAS loop for a custom one;
//! * `priority(state)`: the bucket for ordered (obim / delta-stepping) schedules.
//!
//! A vertex is *active* in the next round when an arrival changed its state.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Built-in reductions. Idempotent ones (`x ⊕ x = x`) tolerate duplicate
/// deliveries and so allow asynchronous schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Combine {
    Min,
    Max,
    Or,
    And,
    Sum,
    Custom,
}

/// Schedules a program may run under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Level-synchronous rounds (BSP).
    Sync,
    /// Asynchronous worklist with work stealing.
    Async,
    /// Ordered by integer metric: soft priority buckets.
    Obim,
}

/// `sync`, `async`, `obim`: the name a schedule has on the command line and in
/// every report.
pub fn schedule_name(s: Schedule) -> &'static str {
    match s {
        Schedule::Sync => "sync",
        Schedule::Async => "async",
        Schedule::Obim => "obim",
    }
}

/// Parses a schedule name (`bsp`, `steal` and `delta` are accepted as the
/// names the literature uses).
pub fn parse_schedule(s: &str) -> Option<Schedule> {
    match s.trim() {
        "sync" | "bsp" => Some(Schedule::Sync),
        "async" | "steal" => Some(Schedule::Async),
        "obim" | "delta" => Some(Schedule::Obim),
        _ => None,
    }
}

/// A vertex program. Implemented by `#[vertex_program]`; see the `vertex-dsl` docs.
pub trait VertexProgram: Copy + Send + Sync + 'static {
    type State: AtomicState;
    type Weight: crate::graph::Weight;
    /// The module name; GPU kernels are named after it.
    const NAME: &'static str;
    const COMBINE: Combine;
    const IDEMPOTENT: bool;
    /// Whether `relax` reads the edge weight.
    const WEIGHTED: bool;
    /// Whether `init` takes a source (only the source starts active); otherwise
    /// every vertex starts active.
    const NEEDS_SOURCE: bool;
    const HAS_PRIORITY: bool;
    /// Whether `relax` is a semiring product (State × State → State).
    const SEMIRING: bool;
    const SCHEDULES: &'static [Schedule];

    fn init(v: u32, source: u32) -> Self::State;
    fn relax(state: Self::State, weight: Self::Weight) -> Option<Self::State>;
    fn combine(old: Self::State, new: Self::State) -> Self::State;
    fn priority(state: Self::State) -> u32;

    /// The PTX module holding this program's GPU kernels (named
    /// `vx_<NAME>_{init,naive,balanced,build_sv}`), when the crate that defines the
    /// program compiled itself to PTX in its `build.rs`
    /// (`nvptx_builder::build_programs()`); `None` otherwise, and the GPU backend
    /// then says so.
    fn gpu_ptx() -> Option<&'static str> {
        None
    }

    /// Why [`Self::gpu_ptx`] is `None` (e.g. "no nightly toolchain"), if known.
    fn gpu_ptx_status() -> &'static str {
        "the crate defining this program has no `build.rs` calling `nvptx_builder::build_programs()`"
    }
}

/// A program that can run from many sources at once (`go_batched`, `go_many` of
/// the one run call): up to 64 sources a batch, each source a lane of every
/// vertex, so one read of an edge serves every lane.
///
/// `#[vertex_program]` implements it where batching gives each lane the run its
/// source alone would:
/// * push programs whose `init` reads the source and whose combine is `min`,
///   `max`, `or`, `and` or a custom combine declared `idempotent` (a round may
///   deliver a value to a vertex more than once, which only an idempotent
///   combine forgives);
/// * gather/apply programs that read `ctx.source` and are not level sweeps
///   (a sweep's schedule is built from its initial states, one per source);
///   they run synchronous rounds, every lane stopping by its own rules.
///
/// Asking a batched run of any other program is a compile error naming it.
#[diagnostic::on_unimplemented(
    message = "program `{Self}` cannot run from many sources at once (batched)",
    label = "not batchable",
    note = "a batched push program needs an `init` that reads `source` (every lane starts from its own source) and an idempotent combine (min, max, or, and, or `idempotent` custom): with `sum`, a value delivered twice in a round counts twice",
    note = "a batched gather/apply program needs to read `ctx.source` and not be a level sweep (`fn level`: its schedule comes from one source's states)",
    note = "run it once per source with `.source(s).go()` (or `.sources(..).go_each()`) instead"
)]
pub trait Batchable: crate::run::Runnable {
    /// A lane's state at a vertex: the program's `State`.
    type LaneState: Copy + Send + Sync + 'static;
    /// Runs the batches from `sources` as `plan` says, handing each batch's
    /// states to `each` (what [`crate::run::Run::go_batched`] calls; the kind's
    /// module in [`crate::run`] does the work).
    fn go_batched(
        graph: &crate::graph::Graph<Self::Weight>,
        plan: &crate::run::Plan,
        sources: &[u32],
        each: impl FnMut(crate::gpu::batched::LaneStates<'_, Self::LaneState>) -> crate::error::Result<()>
            + Send,
    ) -> crate::error::Result<crate::run::Report>;
}

/// A state type with an atomic cell, so arrivals can be combined in place.
pub trait AtomicState:
    Copy + PartialEq + PartialOrd + Send + Sync + core::fmt::Debug + bytemuck::Pod + 'static
{
    type Atomic: Send + Sync;
    fn new_atomic(v: Self) -> Self::Atomic;
    fn load(a: &Self::Atomic) -> Self;
    fn store(a: &Self::Atomic, v: Self);
    /// Combines `new` into the cell; returns the previous value. Built-in kinds use
    /// a native read-modify-write where the hardware has one.
    fn fetch_combine(
        a: &Self::Atomic,
        kind: Combine,
        new: Self,
        custom: fn(Self, Self) -> Self,
    ) -> Self;
    /// The plain (non-atomic) reduction for a built-in kind.
    fn combine_with(kind: Combine, old: Self, new: Self) -> Self;
    /// What a `sum` added to a state between two of its values (`now − before`):
    /// a vertex of a `combine = sum` program pushes only what arrived since its
    /// last push (pushing its whole state again would count earlier arrivals
    /// twice). `None` for a state without subtraction (the built-in ones have it).
    fn sum_since(now: Self, before: Self) -> Option<Self> {
        let _ = (now, before);
        None
    }
    /// The values of `cells`, once no one writes them any more. The built-in
    /// states hand the vector's memory over as it is (their cell is an atomic
    /// integer holding the state's bits), so an engine's run does not end by
    /// allocating, faulting in and filling a second array of `n` states (on a
    /// 16-core host, about a tenth of bulk delta-stepping's 17 ms on the 1000²
    /// grid); the default reads every cell into a new vector.
    fn into_values(cells: Vec<Self::Atomic>) -> Vec<Self> {
        use rayon::prelude::*;
        cells.par_iter().map(Self::load).collect()
    }
}

/// `cells` as the `T`s they hold, in the same allocation when `A` and `T` have
/// one size and alignment (else read into a new vector by `load`).
///
/// # Safety
/// Every `A` in `cells` must be an atomic integer whose bits are those of a `T`
/// (the built-in states' cells: `AtomicU32`/`AtomicU64` have the in-memory
/// representation of `u32`/`u64`, and they hold the state's bits).
unsafe fn reuse_cells<T: bytemuck::Pod, A>(cells: Vec<A>, load: impl Fn(&A) -> T) -> Vec<T> {
    use core::mem::{align_of, size_of, ManuallyDrop};
    if size_of::<A>() != size_of::<T>() || align_of::<A>() != align_of::<T>() {
        return cells.iter().map(load).collect();
    }
    let mut cells = ManuallyDrop::new(cells);
    let (ptr, len, cap) = (cells.as_mut_ptr(), cells.len(), cells.capacity());
    // SAFETY: the allocation came from a `Vec<A>` of capacity `cap`, and `T` has
    // `A`'s size and alignment, so its layout is that of `cap` `T`s; its first
    // `len` elements hold the bits of valid `T`s (the caller's promise, and `T`
    // is `Pod`: any bits of its size are a `T`); `ManuallyDrop` keeps the old
    // vector from freeing it.
    unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, cap) }
}

/// CAS loop: the general fallback for reductions without a native atomic.
#[inline]
fn cas_loop<T: Copy + PartialEq>(
    load: impl Fn() -> T,
    cas: impl Fn(T, T) -> Result<T, T>,
    f: impl Fn(T, T) -> T,
    new: T,
) -> T {
    let mut old = load();
    loop {
        let next = f(old, new);
        if next == old {
            return old;
        }
        match cas(old, next) {
            Ok(prev) => return prev,
            Err(actual) => old = actual,
        }
    }
}

/// `combine_with` of the integer states, signed and unsigned alike.
macro_rules! int_combine {
    ($kind:expr, $old:expr, $new:expr) => {
        match $kind {
            Combine::Min => $old.min($new),
            Combine::Max => $old.max($new),
            Combine::Or => $old | $new,
            Combine::And => $old & $new,
            Combine::Sum => $old.wrapping_add($new),
            Combine::Custom => $new,
        }
    };
}

macro_rules! int_state {
    ($t:ty, $atomic:ty) => {
        impl AtomicState for $t {
            type Atomic = $atomic;
            fn new_atomic(v: Self) -> Self::Atomic {
                <$atomic>::new(v)
            }
            #[inline]
            fn load(a: &Self::Atomic) -> Self {
                a.load(Ordering::Relaxed)
            }
            #[inline]
            fn store(a: &Self::Atomic, v: Self) {
                a.store(v, Ordering::Relaxed)
            }
            #[inline]
            fn fetch_combine(
                a: &Self::Atomic,
                kind: Combine,
                new: Self,
                custom: fn(Self, Self) -> Self,
            ) -> Self {
                match kind {
                    Combine::Min => a.fetch_min(new, Ordering::Relaxed),
                    Combine::Max => a.fetch_max(new, Ordering::Relaxed),
                    Combine::Or => a.fetch_or(new, Ordering::Relaxed),
                    Combine::And => a.fetch_and(new, Ordering::Relaxed),
                    Combine::Sum => a.fetch_add(new, Ordering::Relaxed),
                    Combine::Custom => cas_loop(
                        || a.load(Ordering::Relaxed),
                        |o, n| a.compare_exchange_weak(o, n, Ordering::Relaxed, Ordering::Relaxed),
                        custom,
                        new,
                    ),
                }
            }
            #[inline]
            fn sum_since(now: Self, before: Self) -> Option<Self> {
                Some(now.wrapping_sub(before))
            }
            #[inline]
            fn combine_with(kind: Combine, old: Self, new: Self) -> Self {
                int_combine!(kind, old, new)
            }
            fn into_values(cells: Vec<Self::Atomic>) -> Vec<Self> {
                // SAFETY: the cell is an atomic integer holding this state's
                // bits (`new_atomic` and `store` put them there).
                unsafe { reuse_cells(cells, Self::load) }
            }
        }
    };
}
int_state!(u32, AtomicU32);
int_state!(u64, AtomicU64);

/// Signed integers reuse the unsigned cells with a CAS loop for min/max ordering.
macro_rules! signed_state {
    ($t:ty, $u:ty, $atomic:ty) => {
        impl AtomicState for $t {
            type Atomic = $atomic;
            fn new_atomic(v: Self) -> Self::Atomic {
                <$atomic>::new(v as $u)
            }
            #[inline]
            fn load(a: &Self::Atomic) -> Self {
                a.load(Ordering::Relaxed) as $t
            }
            #[inline]
            fn store(a: &Self::Atomic, v: Self) {
                a.store(v as $u, Ordering::Relaxed)
            }
            #[inline]
            fn fetch_combine(
                a: &Self::Atomic,
                kind: Combine,
                new: Self,
                custom: fn(Self, Self) -> Self,
            ) -> Self {
                match kind {
                    Combine::Or => a.fetch_or(new as $u, Ordering::Relaxed) as $t,
                    Combine::And => a.fetch_and(new as $u, Ordering::Relaxed) as $t,
                    Combine::Sum => a.fetch_add(new as $u, Ordering::Relaxed) as $t,
                    _ => {
                        let f = move |o: $t, n: $t| match kind {
                            Combine::Custom => custom(o, n),
                            k => Self::combine_with(k, o, n),
                        };
                        cas_loop(
                            || a.load(Ordering::Relaxed) as $t,
                            |o, n| {
                                a.compare_exchange_weak(
                                    o as $u,
                                    n as $u,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                )
                                .map(|x| x as $t)
                                .map_err(|x| x as $t)
                            },
                            f,
                            new,
                        )
                    }
                }
            }
            #[inline]
            fn sum_since(now: Self, before: Self) -> Option<Self> {
                Some(now.wrapping_sub(before))
            }
            #[inline]
            fn combine_with(kind: Combine, old: Self, new: Self) -> Self {
                int_combine!(kind, old, new)
            }
            fn into_values(cells: Vec<Self::Atomic>) -> Vec<Self> {
                // SAFETY: the cell is an atomic integer holding this state's
                // bits (`new_atomic` and `store` put them there).
                unsafe { reuse_cells(cells, Self::load) }
            }
        }
    };
}
signed_state!(i32, u32, AtomicU32);
signed_state!(i64, u64, AtomicU64);

/// Floats live in integer cells as bits; every reduction is a CAS loop (min/max
/// need IEEE ordering, not integer ordering of the bits).
macro_rules! float_state {
    ($t:ty, $atomic:ty) => {
        impl AtomicState for $t {
            type Atomic = $atomic;
            fn new_atomic(v: Self) -> Self::Atomic {
                <$atomic>::new(v.to_bits())
            }
            #[inline]
            fn load(a: &Self::Atomic) -> Self {
                <$t>::from_bits(a.load(Ordering::Relaxed))
            }
            #[inline]
            fn store(a: &Self::Atomic, v: Self) {
                a.store(v.to_bits(), Ordering::Relaxed)
            }
            #[inline]
            fn fetch_combine(
                a: &Self::Atomic,
                kind: Combine,
                new: Self,
                custom: fn(Self, Self) -> Self,
            ) -> Self {
                let f = move |o: $t, n: $t| match kind {
                    Combine::Custom => custom(o, n),
                    k => Self::combine_with(k, o, n),
                };
                cas_loop(
                    || <$t>::from_bits(a.load(Ordering::Relaxed)),
                    |o, n| {
                        a.compare_exchange_weak(
                            o.to_bits(),
                            n.to_bits(),
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        )
                        .map(<$t>::from_bits)
                        .map_err(<$t>::from_bits)
                    },
                    f,
                    new,
                )
            }
            #[inline]
            fn into_values(cells: Vec<Self::Atomic>) -> Vec<Self> {
                // SAFETY: the cell is an atomic integer holding this state's
                // bits (`new_atomic` and `store` put them there).
                unsafe { reuse_cells(cells, Self::load) }
            }
            #[inline]
            fn sum_since(now: Self, before: Self) -> Option<Self> {
                Some(now - before)
            }
            fn combine_with(kind: Combine, old: Self, new: Self) -> Self {
                match kind {
                    Combine::Min => old.min(new),
                    Combine::Max => old.max(new),
                    Combine::Sum => old + new,
                    // Rejected at compile time by the macro; keep the old value.
                    Combine::Or | Combine::And => old,
                    Combine::Custom => new,
                }
            }
        }
    };
}
float_state!(f32, AtomicU32);
float_state!(f64, AtomicU64);

/// Checks that `source` names a vertex of a graph with `n` vertices (one message
/// wherever a run takes a source: the CPU engines, gather runs).
pub fn check_source(source: u32, n: usize) -> crate::error::Result<()> {
    if (source as usize) < n {
        Ok(())
    } else {
        Err(crate::error::Error::InvalidArgument(format!(
            "source vertex {source} is out of range: the graph has {n} vertices (ids are 0-based)"
        )))
    }
}

/// The error for a program that reads edge weights run on a graph without
/// them (one message wherever the check is made: CPU engines, gather runs, the
/// GPU).
pub(crate) fn weights_missing(name: &str) -> crate::error::Error {
    crate::error::Error::InvalidArgument(format!(
        "program `{name}` reads edge weights, but the graph has none (give it some: \
         `--weights LO..HI`, or `LoadOptions::random_weights`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never(_: u32, _: u32) -> u32 {
        unreachable!()
    }

    /// The cells handed over in place read back as the values stored, for
    /// every built-in kind (signed and float states live in unsigned cells).
    #[test]
    fn into_values_keeps_every_kind() {
        fn round_trip<S: AtomicState>(vals: &[S]) {
            let cells: Vec<S::Atomic> = vals.iter().map(|&v| S::new_atomic(v)).collect();
            let out = S::into_values(cells);
            assert_eq!(
                bytemuck::cast_slice::<S, u8>(&out),
                bytemuck::cast_slice::<S, u8>(vals)
            );
        }
        round_trip::<u32>(&[0, 7, u32::MAX]);
        round_trip::<u64>(&[0, 1 << 40, u64::MAX]);
        round_trip::<i32>(&[-1, i32::MIN, 5]);
        round_trip::<i64>(&[-1, i64::MIN, 1 << 50]);
        round_trip::<f32>(&[-1.5, f32::INFINITY, f32::NAN, 0.0]);
        round_trip::<f64>(&[-0.0, f64::MAX, f64::NAN]);
        round_trip::<u32>(&[]);
    }

    #[test]
    fn native_and_cas_reductions() {
        let a = u32::new_atomic(10);
        assert_eq!(u32::fetch_combine(&a, Combine::Min, 3, never), 10);
        assert_eq!(u32::load(&a), 3);
        let b = i32::new_atomic(-1);
        i32::fetch_combine(&b, Combine::Min, -5, |_, _| 0);
        assert_eq!(i32::load(&b), -5);
        i32::fetch_combine(&b, Combine::Max, 7, |_, _| 0);
        assert_eq!(i32::load(&b), 7);
        let f = f64::new_atomic(f64::INFINITY);
        f64::fetch_combine(&f, Combine::Min, 2.5, |_, _| 0.0);
        f64::fetch_combine(&f, Combine::Min, 3.5, |_, _| 0.0);
        assert_eq!(f64::load(&f), 2.5);
        let c = u32::new_atomic(4);
        u32::fetch_combine(&c, Combine::Custom, 6, |o, n| o * 10 + n);
        assert_eq!(u32::load(&c), 46);
    }
}
