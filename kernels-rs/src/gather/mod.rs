//! Gather/apply programs: a reduction over each vertex's in-edges, then a per-vertex
//! update, round after round (GraphLab's gather-apply-scatter, Ligra's
//! edgeMap/vertexMap, seed 003's masked `mxv` over a semiring).
//!
//! # The model
//!
//! Each round:
//! 1. every vertex of the frontier *emits* a message ([`GatherProgram::emit`]; by
//!    default its state);
//! 2. every vertex `v` reduces `gather(msg[u], w)` over its in-edges `u → v` whose
//!    source is in the frontier, with the program's [`GatherProgram::combine`]
//!    (sum, min, max, or, and, or a user function), into `acc[v]`;
//! 3. `apply(ctx, old, acc)` gives the new state. One writer per vertex, so the
//!    state may be any plain-data struct, several fields wide;
//! 4. a global reduction of `reduce(old, new)` over the vertices (sum, min or max)
//!    is visible to the next round as [`Ctx::global`].
//!
//! Two kinds of programs, told apart by whether they define `active`:
//! * **dense** (PageRank): every vertex is in the frontier and applied every round;
//!   the run stops after `max_rounds`, when the round's reduction falls under the
//!   tolerance, or when no state changed;
//! * **frontier-driven** (k-core): the frontier is the set of vertices for which
//!   `active(old, new)` held when they were last applied (at the start, `active(init,
//!   init)`), and only vertices that received a value are applied. When the frontier
//!   runs empty, the engine runs a *dense round*: `Ctx::global` is refreshed to the
//!   reduction of `reduce(s, s)` over all vertices, and every vertex is applied with
//!   the identity accumulator; the run ends when such a round activates nothing.
//!
//! A third kind, the **level sweep** (Brandes's backward phase), defines
//! [`GatherProgram::level`] instead of `active`: the engine groups the vertices by
//! `level(s)` of their initial states once (a counting sort; `u32::MAX` = no level,
//! the vertex takes no part), then runs one round per non-empty level, highest
//! first. Round `r` applies exactly the vertices of the `r`-th level, each
//! reducing `gather` over its in-edges whose source belongs to the level applied
//! in round `r - 1` (round 0 applies with the identity); `emit` is called on each
//! vertex right after its apply. So a round costs the edges of two levels, not of
//! the graph, and no round is spent discovering which level comes next: the
//! schedule is known from the start. This is the shape of every dependency
//! accumulation over a level DAG (a BFS's shortest-path DAG walked backwards, or
//! forwards with the levels negated). A level sweep has no `active`, no `accepts`
//! and no global reduction ([`Ctx::global`] stays the reduction's identity).
//!
//! Step 2 runs *pull* (each vertex walks its in-edges; no atomics) or *push* (each
//! frontier vertex walks its out-edges and combines atomically into `acc`), chosen
//! per round from the frontier's size; both give the same accumulators for a
//! commutative, associative combine.
//!
//! # Kernels
//! [`Round`] holds one round's buffers; its methods are what one GPU thread does
//! in a launch: [`Round::init`], [`Round::emit`], [`Round::pull`] and
//! [`Round::push`] (edge-chunk balanced over the CSC or the CSR, seed 000's `SV`),
//! and [`Round::apply`], which also reduces per warp; [`Round::sweep`] runs one
//! level of a level sweep. [`gather_kernels!`](crate::gather_kernels) makes the
//! PTX entry points; the host emulator calls the same methods. [`batched`] runs a
//! program that reads its source from up to 64 sources at once (a lane per
//! source at every vertex), with [`gather_batched_kernels!`](crate::gather_batched_kernels).

use crate::warp::Warp;
use crate::word::StateWord;

pub mod batched;
mod raw;
mod round;
pub mod tally;

pub use raw::RawRound;
pub use round::Round;

/// What `#[vertex_program(gather = ..)]` modules see without importing anything.
pub mod prelude {
    pub use super::Ctx;
}

/// What every operator of a gather/apply program knows about its vertex and round.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Ctx {
    /// The vertex (0-based).
    pub vertex: u32,
    /// Out-edges of the vertex (saturated at `u32::MAX`).
    pub out_degree: u32,
    /// In-edges of the vertex (saturated at `u32::MAX`).
    pub in_degree: u32,
    /// Vertices in the graph.
    pub num_vertices: u32,
    /// Edges in the graph (stored out-edges).
    pub num_edges: u64,
    /// The round being run, from 0.
    pub round: u32,
    /// The run's source vertex, or `u32::MAX` when it has none.
    pub source: u32,
    /// The global reduction: of the previous round (dense programs), or over all
    /// vertices at the last dense round (frontier-driven programs).
    pub global: f64,
}

/// The reduction of gathered values at a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherKind {
    Sum,
    Min,
    Max,
    Or,
    And,
    Custom,
}

/// The per-round global reduction over vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Min,
    Max,
}

impl ReduceKind {
    /// The reduction's identity.
    #[inline(always)]
    pub fn identity(self) -> f64 {
        match self {
            ReduceKind::Sum => 0.0,
            ReduceKind::Min => f64::INFINITY,
            ReduceKind::Max => f64::NEG_INFINITY,
        }
    }
    /// `a ⊕ b`.
    #[inline(always)]
    pub fn combine(self, a: f64, b: f64) -> f64 {
        match self {
            ReduceKind::Sum => a + b,
            ReduceKind::Min => {
                if b < a {
                    b
                } else {
                    a
                }
            }
            ReduceKind::Max => {
                if b > a {
                    b
                } else {
                    a
                }
            }
        }
    }
}

/// Which way accumulators are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Each vertex walks its in-edges.
    Pull,
    /// Each frontier vertex walks its out-edges (atomic combine).
    Push,
    /// Chosen per round: push while the frontier's out-edges are a small share.
    Auto,
}

/// A gather/apply program. Implemented by `#[vertex_program(gather = ..)]`.
pub trait GatherProgram: Copy + Send + Sync + 'static {
    /// Per-vertex state: any plain-data type (one writer per vertex).
    type State: Copy + PartialEq + Send + Sync + 'static;
    /// What a vertex sends along its out-edges in a round.
    type Msg: Copy + Send + Sync + 'static;
    /// The gathered value: one atomic word, so push rounds can combine in place.
    type Acc: StateWord;
    /// Edge weight (`()` when `gather` reads none).
    type Weight: Copy + Send + Sync + 'static;

    /// The module name; kernels are named after it.
    const NAME: &'static str;
    const GATHER: GatherKind;
    const REDUCE: ReduceKind;
    /// Whether the program defines `active` (frontier-driven) or runs every vertex
    /// every round (dense).
    const FRONTIER: bool;
    /// Whether `gather` reads edge weights.
    const WEIGHTED: bool;
    /// Whether the program reads [`Ctx::source`] (the run then needs a source vertex;
    /// `#[vertex_program]` sets it when any of its functions reads `ctx.source`).
    const NEEDS_SOURCE: bool;
    /// Default round limit.
    const MAX_ROUNDS: u32;
    /// Default tolerance on the round's reduction (dense programs); `None` = none.
    const TOLERANCE: Option<f64>;
    /// Which way rounds run unless told otherwise.
    const DIRECTION: Direction;
    /// Whether the program may run asynchronously (`schedule(.., async, obim)`): a
    /// vertex is then applied with whatever has arrived since it last ran, so
    /// `apply` must accumulate deltas — applying `a` then `b` must leave the
    /// same state, and scatter the same total, as applying `a ⊕ b` once.
    const ASYNC: bool = false;

    fn init(ctx: Ctx) -> Self::State;
    fn emit(ctx: Ctx, state: Self::State) -> Self::Msg;
    fn gather(msg: Self::Msg, weight: Self::Weight) -> Self::Acc;
    fn identity() -> Self::Acc;
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// `slot ⊕= v` atomically (push rounds and chunk boundaries).
    fn combine_atomic(slot: &<Self::Acc as StateWord>::Atomic, v: Self::Acc);
    fn apply(ctx: Ctx, old: Self::State, acc: Self::Acc) -> Self::State;
    /// Frontier-driven programs: does the vertex scatter next round?
    fn active(ctx: Ctx, old: Self::State, new: Self::State) -> bool;
    fn reduce(ctx: Ctx, old: Self::State, new: Self::State) -> f64;
    /// Whether the program defines [`Self::accepts`].
    const ACCEPTS: bool = false;
    /// Frontier-driven programs: may gathered values still change this vertex?
    /// `false` promises that `apply(ctx, s, acc)` returns `s` unchanged and
    /// inactive for every `acc` (a settled vertex: reached in a traversal, peeled in
    /// k-core). Engines then skip its in-edges in pull rounds and its incoming
    /// edges in push rounds, as Beamer's bottom-up BFS skips visited vertices.
    fn accepts(state: Self::State) -> bool {
        let _ = state;
        true
    }
    /// Asynchronous programs under obim: the bucket of a vertex holding `acc`
    /// (lower runs sooner).
    fn priority(ctx: Ctx, acc: Self::Acc) -> u32 {
        let _ = (ctx, acc);
        0
    }
    /// Whether `emit` may read [`Ctx::global`]. `#[vertex_program]` sets it from
    /// the code of `emit` (any use of its context other than reading a field
    /// counts as reading `global`); the default assumes it does. When it does
    /// not, the CPU's Jacobi rounds emit a vertex's next message right after its
    /// apply, before the round's reduction is known, instead of in a separate
    /// pass over every vertex (the messages are the same).
    const EMIT_READS_GLOBAL: bool = true;
    /// Whether the program defines [`Self::level`] (a level sweep).
    const LEVELS: bool = false;
    /// Level sweeps: the level of a vertex with initial state `state` (`u32::MAX`:
    /// none, the vertex is never applied). Levels run highest first, one round
    /// each (see the module docs).
    fn level(state: Self::State) -> u32 {
        let _ = state;
        u32::MAX
    }

    /// The PTX module with this program's kernels, if its crate built one.
    fn gpu_ptx() -> Option<&'static str> {
        None
    }
    /// Why [`Self::gpu_ptx`] is `None`, if known.
    fn gpu_ptx_status() -> &'static str {
        "the crate defining this program has no `build.rs` calling `nvptx_builder::build_programs()`"
    }
}

/// Per-warp tallies of one apply launch: what the host reads back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Tally {
    /// The warp's share of the global reduction.
    pub reduced: f64,
    /// Vertices whose state changed.
    pub changed: u32,
    /// Vertices that joined the next frontier.
    pub activated: u32,
    /// Out-edges of those vertices (for the next round's direction).
    pub activated_edges: u64,
}

/// Words of a [`Tally`] in the `u64` array the kernels write.
pub const TALLY_WORDS: usize = 3;

/// Tally slots a launch of `threads` threads writes (one per warp; the host
/// emulator's warps are one lane).
pub fn tally_slots(threads: u64) -> usize {
    threads.div_ceil(<crate::warp::KernelWarp as Warp>::SIZE as u64) as usize
}

/// Folds the per-warp tallies the init, apply and refresh kernels wrote.
pub fn fold_tallies(kind: ReduceKind, words: &[u64]) -> Tally {
    let mut t = Tally {
        reduced: kind.identity(),
        ..Tally::default()
    };
    for w in words.chunks_exact(TALLY_WORDS) {
        t.reduced = kind.combine(t.reduced, f64::from_bits(w[0]));
        t.changed += (w[1] >> 32) as u32;
        t.activated += w[1] as u32;
        t.activated_edges += w[2];
    }
    t
}
