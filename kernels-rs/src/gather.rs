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
//! PTX entry points; the host emulator calls the same methods.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::thread::ThreadCtx;
use crate::warp::{kernel_warp, Warp};
use crate::word::{slice, StateWord};

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

/// One round's buffers, as slices (device or host memory).
pub struct Round<'a, P: GatherProgram> {
    /// Vertices.
    pub n: u32,
    /// Out-edges (CSR) and in-edges (CSC): offsets `n + 1`, neighbours, weights.
    pub out_offsets: &'a [u64],
    pub out_targets: &'a [u32],
    pub out_weights: &'a [P::Weight],
    pub in_offsets: &'a [u64],
    pub in_sources: &'a [u32],
    pub in_weights: &'a [P::Weight],
    pub state: &'a [core::cell::UnsafeCell<P::State>],
    pub msg: &'a [core::cell::UnsafeCell<P::Msg>],
    pub acc: &'a [<P::Acc as StateWord>::Atomic],
    /// Bitmap of this round's frontier (`None`: every vertex).
    pub frontier: Option<&'a [AtomicU32]>,
    /// Bitmap of vertices that received a value (`None`: not tracked, dense).
    pub received: Option<&'a [AtomicU32]>,
    /// Bitmap of the next frontier (frontier-driven programs).
    pub next: Option<&'a [AtomicU32]>,
    /// Per-warp tallies, [`TALLY_WORDS`] words each.
    pub tally: &'a [AtomicU64],
    pub round: u32,
    pub source: u32,
    pub global: f64,
}

#[inline(always)]
fn bit(bits: &[AtomicU32], v: usize) -> bool {
    bits[v / 32].load(Relaxed) & (1 << (v % 32)) != 0
}

#[inline(always)]
fn set_bit(bits: &[AtomicU32], v: usize) {
    let mask = 1u32 << (v % 32);
    // Read first: most sets in a round hit words already set.
    if bits[v / 32].load(Relaxed) & mask == 0 {
        bits[v / 32].fetch_or(mask, Relaxed);
    }
}

#[inline(always)]
fn sat(d: u64) -> u32 {
    if d > u32::MAX as u64 {
        u32::MAX
    } else {
        d as u32
    }
}

impl<'a, P: GatherProgram> Round<'a, P> {
    /// The context of `v` in this round.
    #[inline(always)]
    pub fn ctx(&self, v: usize) -> Ctx {
        Ctx {
            vertex: v as u32,
            out_degree: sat(self.out_offsets[v + 1] - self.out_offsets[v]),
            in_degree: sat(self.in_offsets[v + 1] - self.in_offsets[v]),
            num_vertices: self.n,
            num_edges: self.out_targets.len() as u64,
            round: self.round,
            source: self.source,
            global: self.global,
        }
    }

    #[inline(always)]
    fn in_frontier(&self, v: usize) -> bool {
        match self.frontier {
            None => true,
            Some(f) => bit(f, v),
        }
    }

    /// Initial states, accumulators at identity, and (frontier-driven programs)
    /// the initial frontier in `next`. `preset`: the host already wrote the states
    /// (a program run from another's results, e.g. Brandes's backward phase); they
    /// are kept and only the frontier is derived from them.
    #[inline(always)]
    pub fn init(&self, t: ThreadCtx, preset: bool) {
        let (mut activated, mut edges) = (0u32, 0u64);
        let mut v = t.global() as usize;
        while v < self.n as usize {
            let ctx = self.ctx(v);
            // SAFETY: one thread per vertex reads and writes it (grid-stride loop).
            let s = if preset {
                unsafe { *self.state[v].get() }
            } else {
                P::init(ctx)
            };
            // SAFETY: as above.
            unsafe { *self.state[v].get() = s };
            P::Acc::store(&self.acc[v], P::identity());
            if let Some(next) = self.next {
                if P::active(ctx, s, s) {
                    set_bit(next, v);
                    activated += 1;
                    edges += ctx.out_degree as u64;
                }
            }
            v += t.stride() as usize;
        }
        self.write_tally(t, reduce_identity::<P>(), 0, activated, edges);
    }

    /// `msg[v] = emit(ctx, state[v])` for the frontier.
    #[inline(always)]
    pub fn emit(&self, t: ThreadCtx) {
        let mut v = t.global() as usize;
        while v < self.n as usize {
            if self.in_frontier(v) {
                // SAFETY: one thread per vertex; state is not written in this launch.
                unsafe { *self.msg[v].get() = P::emit(self.ctx(v), *self.state[v].get()) };
            }
            v += t.stride() as usize;
        }
    }

    /// The weight of in-edge `k` (`()` for unweighted programs).
    #[inline(always)]
    fn in_weight(&self, k: usize) -> P::Weight {
        if P::WEIGHTED {
            self.in_weights[k]
        } else {
            // SAFETY: unweighted programs have `Weight = ()` (checked by the
            // macro): a ZST read from a ZST slice.
            unsafe { core::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
        }
    }

    /// The message of in-edge `k`'s source.
    ///
    /// # Safety
    /// `k < in_sources.len()`. The graph guarantees every source is `< n`, the
    /// length of `msg`, and `msg` is not written during a gather launch.
    #[inline(always)]
    unsafe fn in_msg(&self, k: usize) -> (usize, P::Msg) {
        let u = *self.in_sources.get_unchecked(k) as usize;
        debug_assert!(u < self.msg.len());
        (u, *self.msg.get_unchecked(u).get())
    }

    /// `⊕ gather(msg[u], w)` over in-edges `from..to` (in order) whose source is in
    /// the frontier, and whether any was. Dense unweighted runs, PageRank's case,
    /// load four sources and then four messages before combining: the loads are
    /// independent, so they overlap instead of paying two memory latencies per
    /// edge; the combine order, and so every floating-point sum, is unchanged.
    #[inline(always)]
    fn gather_run(&self, from: usize, to: usize) -> (P::Acc, bool) {
        let mut acc = P::identity();
        assert!(from <= to && to <= self.in_sources.len());
        let mut k = from;
        if self.frontier.is_none() && !P::WEIGHTED {
            while k + 4 <= to {
                // SAFETY: k + 3 < to <= in_sources.len() (asserted above).
                let (m0, m1, m2, m3) = unsafe {
                    (
                        self.in_msg(k).1,
                        self.in_msg(k + 1).1,
                        self.in_msg(k + 2).1,
                        self.in_msg(k + 3).1,
                    )
                };
                let w = self.in_weight(k);
                acc = P::combine(acc, P::gather(m0, w));
                acc = P::combine(acc, P::gather(m1, w));
                acc = P::combine(acc, P::gather(m2, w));
                acc = P::combine(acc, P::gather(m3, w));
                k += 4;
            }
            while k < to {
                // SAFETY: k < to <= in_sources.len().
                let m = unsafe { self.in_msg(k).1 };
                acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                k += 1;
            }
            return (acc, from < to);
        }
        let mut got = false;
        while k < to {
            let u = self.in_sources[k] as usize;
            // Messages are read only from frontier sources: the others' slots
            // may hold nothing written this run.
            if self.in_frontier(u) {
                // SAFETY: `msg` is not written during a gather launch.
                let m = unsafe { *self.msg[u].get() };
                acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                got = true;
            }
            k += 1;
        }
        (acc, got)
    }

    /// Pull: one thread per chunk of `mec` in-edges (CSC), `sv[i]` the vertex
    /// owning chunk `i`'s first edge. A vertex wholly inside a chunk is written
    /// with a plain store; one spanning chunks is combined atomically.
    #[inline(always)]
    pub fn pull(&self, t: ThreadCtx, sv: &[u32], mec: u64) {
        let offsets = self.in_offsets;
        let m = self.in_sources.len() as u64;
        let mut i = t.global();
        while i < sv.len() as u64 {
            let first = i * mec;
            let last = if m - first < mec { m } else { first + mec };
            let mut v = sv[i as usize] as usize;
            let mut e = first;
            while e < last {
                let mut end = offsets[v + 1];
                while end <= e {
                    v += 1;
                    end = offsets[v + 1];
                }
                let stop = if end < last { end } else { last };
                // SAFETY: states are not written during a gather launch.
                if P::ACCEPTS && !P::accepts(unsafe { *self.state[v].get() }) {
                    e = stop;
                    v += 1;
                    continue;
                }
                let (acc, got) = self.gather_run(e as usize, stop as usize);
                if got {
                    let whole = offsets[v] >= first && end <= last;
                    if whole {
                        P::Acc::store(&self.acc[v], acc);
                    } else {
                        P::combine_atomic(&self.acc[v], acc);
                    }
                    if let Some(r) = self.received {
                        set_bit(r, v);
                    }
                }
                e = stop;
                v += 1;
            }
            i += t.stride();
        }
    }

    /// Push: one thread per chunk of `mec` out-edges (CSR); frontier vertices
    /// combine `gather(msg, w)` into their targets' accumulators atomically.
    #[inline(always)]
    pub fn push(&self, t: ThreadCtx, sv: &[u32], mec: u64) {
        let offsets = self.out_offsets;
        let m = self.out_targets.len() as u64;
        let mut i = t.global();
        while i < sv.len() as u64 {
            let first = i * mec;
            let last = if m - first < mec { m } else { first + mec };
            let mut u = sv[i as usize] as usize;
            let mut e = first;
            while e < last {
                let mut end = offsets[u + 1];
                while end <= e {
                    u += 1;
                    end = offsets[u + 1];
                }
                let stop = if end < last { end } else { last };
                if self.in_frontier(u) {
                    // SAFETY: `msg` is not written during a gather launch.
                    let msg = unsafe { *self.msg[u].get() };
                    let mut k = e as usize;
                    while k < stop as usize {
                        let v = self.out_targets[k] as usize;
                        // SAFETY: states are not written during a gather launch.
                        if P::ACCEPTS && !P::accepts(unsafe { *self.state[v].get() }) {
                            k += 1;
                            continue;
                        }
                        let w = if P::WEIGHTED {
                            self.out_weights[k]
                        } else {
                            // SAFETY: as in `pull`.
                            unsafe { core::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
                        };
                        P::combine_atomic(&self.acc[v], P::gather(msg, w));
                        if let Some(r) = self.received {
                            set_bit(r, v);
                        }
                        k += 1;
                    }
                }
                e = stop;
                u += 1;
            }
            i += t.stride();
        }
    }

    /// Apply to every vertex (`received == None` or a dense round, `all`) or to
    /// those that received a value; resets their accumulators, builds the next
    /// frontier and writes this thread's warp tally at `tally[warp]`.
    #[inline(always)]
    pub fn apply(&self, t: ThreadCtx, all: bool) {
        let mut red = reduce_identity::<P>();
        let mut changed = 0u32;
        let mut activated = 0u32;
        let mut activated_edges = 0u64;
        let mut v = t.global() as usize;
        while v < self.n as usize {
            let run = all
                || match self.received {
                    None => true,
                    Some(r) => bit(r, v),
                };
            if run {
                let ctx = self.ctx(v);
                // SAFETY: one thread per vertex reads and writes its state.
                let old = unsafe { *self.state[v].get() };
                let acc = P::Acc::load(&self.acc[v]);
                let new = P::apply(ctx, old, acc);
                // SAFETY: as above.
                unsafe { *self.state[v].get() = new };
                P::Acc::store(&self.acc[v], P::identity());
                red = P::REDUCE.combine(red, P::reduce(ctx, old, new));
                if new != old {
                    changed += 1;
                }
                if let Some(next) = self.next {
                    if P::active(ctx, old, new) {
                        set_bit(next, v);
                        activated += 1;
                        activated_edges += ctx.out_degree as u64;
                    }
                }
            }
            v += t.stride() as usize;
        }
        self.write_tally(t, red, changed, activated, activated_edges);
    }

    /// One round of a level sweep: applies the vertices `order[lo..hi]` (one thread
    /// each), each reducing `gather` over its in-edges whose source has rank
    /// `round - 1` (applied in the previous round; round 0 gathers nothing), then
    /// emits its message. `rank[v]` is the round that applies `v` (`u32::MAX`:
    /// none). No tally: a sweep's rounds are known in advance, so the host queues
    /// them all without reading anything back.
    #[inline(always)]
    pub fn sweep(&self, t: ThreadCtx, order: &[u32], rank: &[u32], lo: u64, hi: u64) {
        let prev = self.round.wrapping_sub(1);
        let mut i = lo + t.global();
        while i < hi {
            let v = order[i as usize] as usize;
            let mut acc = P::identity();
            if self.round > 0 {
                let (from, to) = (self.in_offsets[v] as usize, self.in_offsets[v + 1] as usize);
                let mut k = from;
                while k < to {
                    let u = self.in_sources[k] as usize;
                    if rank[u] == prev {
                        // SAFETY: `u` was applied last round; this launch writes only
                        // messages of this round's vertices, never `msg[u]`.
                        let m = unsafe { *self.msg[u].get() };
                        acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                    }
                    k += 1;
                }
            }
            let ctx = self.ctx(v);
            // SAFETY: `v` appears once in `order`: this thread is its only reader
            // and writer in this launch.
            unsafe {
                let new = P::apply(ctx, *self.state[v].get(), acc);
                *self.state[v].get() = new;
                *self.msg[v].get() = P::emit(ctx, new);
            }
            i += t.stride();
        }
    }

    /// Dense rounds of frontier-driven programs: the reduction of `reduce(s, s)`
    /// over all vertices (the next round's [`Ctx::global`]).
    #[inline(always)]
    pub fn refresh(&self, t: ThreadCtx) {
        let mut red = reduce_identity::<P>();
        let mut v = t.global() as usize;
        while v < self.n as usize {
            // SAFETY: state is only read in this launch.
            let s = unsafe { *self.state[v].get() };
            red = P::REDUCE.combine(red, P::reduce(self.ctx(v), s, s));
            v += t.stride() as usize;
        }
        self.write_tally(t, red, 0, 0, 0);
    }

    /// Reduces the tallies over the warp; lane 0 writes the warp's slot.
    #[inline(always)]
    fn write_tally(&self, t: ThreadCtx, red: f64, changed: u32, activated: u32, edges: u64) {
        let w = kernel_warp(t);
        let mut r = red;
        let mut k = <crate::warp::KernelWarp as Warp>::SIZE / 2;
        while k > 0 {
            let other = f64::from_bits(w.shfl_u64(r.to_bits(), w.lane() ^ k));
            r = P::REDUCE.combine(r, other);
            k /= 2;
        }
        let counts = w.sum_u64((changed as u64) << 32 | activated as u64);
        let edges = w.sum_u64(edges);
        if w.lane() == 0 {
            let slot = (t.global() / <crate::warp::KernelWarp as Warp>::SIZE as u64) as usize;
            if slot * TALLY_WORDS + 2 < self.tally.len() {
                self.tally[slot * TALLY_WORDS].store(r.to_bits(), Relaxed);
                self.tally[slot * TALLY_WORDS + 1].store(counts, Relaxed);
                self.tally[slot * TALLY_WORDS + 2].store(edges, Relaxed);
            }
        }
    }
}

#[inline(always)]
fn reduce_identity<P: GatherProgram>() -> f64 {
    P::REDUCE.identity()
}

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

/// Raw kernel arguments, as the host launches them.
#[derive(Debug)]
pub struct RawRound<P: GatherProgram> {
    pub n: u64,
    pub m: u64,
    pub out_offsets: *const u64,
    pub out_targets: *const u32,
    pub out_weights: *const P::Weight,
    pub in_offsets: *const u64,
    pub in_sources: *const u32,
    pub in_weights: *const P::Weight,
    pub state: *mut P::State,
    pub msg: *mut P::Msg,
    pub acc: *mut P::Acc,
    pub frontier: *mut u32,
    pub received: *mut u32,
    pub next: *mut u32,
    pub tally: *mut u64,
    pub tally_len: u64,
    pub round: u32,
    pub source: u32,
    pub global: f64,
}

impl<P: GatherProgram> Clone for RawRound<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: GatherProgram> Copy for RawRound<P> {}

/// `len` cells at `ptr` (dangling for empty).
///
/// # Safety
/// `ptr` valid for `len` elements for `'a`; accesses follow the kernels' rules.
#[inline(always)]
unsafe fn cells<'a, T>(ptr: *mut T, len: usize) -> &'a [core::cell::UnsafeCell<T>] {
    // SAFETY: `UnsafeCell<T>` has `T`'s layout; validity is the caller's.
    unsafe { slice(ptr as *const core::cell::UnsafeCell<T>, len) }
}

/// `len` bits at `ptr` as atomic words, `None` if null.
///
/// # Safety
/// As [`cells`], for `len.div_ceil(32)` words.
#[inline(always)]
unsafe fn bits<'a>(ptr: *mut u32, len: usize) -> Option<&'a [AtomicU32]> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: forwarded contract.
        Some(unsafe { u32::atomics_from_raw(ptr, len.div_ceil(32)) })
    }
}

impl<P: GatherProgram> RawRound<P> {
    /// The slices behind the pointers.
    ///
    /// # Safety
    /// Every non-null pointer valid for its length (`n + 1` offsets, `m` edges and
    /// weights, `n` states, messages and accumulators, `ceil(n / 32)` bitmap words,
    /// `tally_len` tally words); `out_*`/`in_*` valid CSR/CSC of the same graph.
    #[inline(always)]
    pub unsafe fn round<'a>(&self) -> Round<'a, P> {
        let n = self.n as usize;
        let m = self.m as usize;
        // SAFETY: the caller's contract.
        unsafe {
            Round {
                n: self.n as u32,
                out_offsets: slice(self.out_offsets, n + 1),
                out_targets: slice(self.out_targets, m),
                out_weights: slice(self.out_weights, if P::WEIGHTED { m } else { 0 }),
                in_offsets: slice(self.in_offsets, n + 1),
                in_sources: slice(self.in_sources, m),
                in_weights: slice(self.in_weights, if P::WEIGHTED { m } else { 0 }),
                state: cells(self.state, n),
                msg: cells(self.msg, n),
                acc: P::Acc::atomics_from_raw(self.acc, n),
                frontier: bits(self.frontier, n),
                received: bits(self.received, n),
                next: bits(self.next, n),
                tally: u64::atomics_from_raw(self.tally, self.tally_len as usize),
                round: self.round,
                source: self.source,
                global: self.global,
            }
        }
    }
}

/// The gather/apply kernels of a program: `$init`, `$emit`, `$pull`, `$push`,
/// `$apply`, `$refresh`, `$sweep`, each taking a [`RawRound`]'s fields (plus `sv,
/// nchunks, mec` for the gathers, `all` for apply, `order, rank, lo, hi` for a
/// sweep round).
#[macro_export]
macro_rules! gather_kernels {
    ($prog:ty => $init:ident, $emit:ident, $pull:ident, $push:ident, $apply:ident, $refresh:ident, $sweep:ident) => {
        $crate::__gather_kernel!($prog, $init, |r, t, preset| r.init(t, preset != 0), [preset: u32]);
        $crate::__gather_kernel!($prog, $emit, |r, t| r.emit(t), []);
        $crate::__gather_kernel!($prog, $pull, |r, t, sv, nchunks, mec| {
            // SAFETY: `sv` holds `nchunks` entries (host contract).
            r.pull(t, unsafe { $crate::word::slice(sv, nchunks as usize) }, mec)
        }, [sv: *const u32, nchunks: u64, mec: u64]);
        $crate::__gather_kernel!($prog, $push, |r, t, sv, nchunks, mec| {
            // SAFETY: as above.
            r.push(t, unsafe { $crate::word::slice(sv, nchunks as usize) }, mec)
        }, [sv: *const u32, nchunks: u64, mec: u64]);
        $crate::__gather_kernel!($prog, $apply, |r, t, all| r.apply(t, all != 0), [all: u32]);
        $crate::__gather_kernel!($prog, $refresh, |r, t| r.refresh(t), []);
        $crate::__gather_kernel!($prog, $sweep, |r, t, order, rank, lo, hi| {
            // SAFETY: `order` holds at least `hi` entries and `rank` `n` (host
            // contract: a `Sweep` of this graph).
            let (order, rank) = unsafe {
                ($crate::word::slice(order, hi as usize), $crate::word::slice(rank, r.n as usize))
            };
            r.sweep(t, order, rank, lo, hi)
        }, [order: *const u32, rank: *const u32, lo: u64, hi: u64]);
    };
}

/// One entry point of [`gather_kernels!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __gather_kernel {
    ($prog:ty, $name:ident, |$r:ident, $t:ident $(, $extra:ident)*| $body:expr, [$($x:ident: $ty:ty),*]) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            n: u64,
            m: u64,
            out_offsets: *const u64,
            out_targets: *const u32,
            out_weights: *const <$prog as $crate::gather::GatherProgram>::Weight,
            in_offsets: *const u64,
            in_sources: *const u32,
            in_weights: *const <$prog as $crate::gather::GatherProgram>::Weight,
            state: *mut <$prog as $crate::gather::GatherProgram>::State,
            msg: *mut <$prog as $crate::gather::GatherProgram>::Msg,
            acc: *mut <$prog as $crate::gather::GatherProgram>::Acc,
            frontier: *mut u32,
            received: *mut u32,
            next: *mut u32,
            tally: *mut u64,
            tally_len: u64,
            round: u32,
            source: u32,
            global: f64,
            $($x: $ty),*
        ) {
            let raw = $crate::gather::RawRound::<$prog> {
                n, m, out_offsets, out_targets, out_weights, in_offsets, in_sources,
                in_weights, state, msg, acc, frontier, received, next, tally, tally_len,
                round, source, global,
            };
            // SAFETY: the host launches with buffers matching `RawRound::round`.
            let $r = unsafe { raw.round() };
            let $t = $crate::ThreadCtx::current();
            $body
        }
    };
}
