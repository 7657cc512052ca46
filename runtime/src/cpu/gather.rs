//! The CPU engine for gather/apply programs (see [`crate::gather`]): rounds on
//! rayon, pull or push per round.
//!
//! * Dense programs (PageRank) run each round as one pass over the vertices: per
//!   vertex, the reduction over its in-edges fused with `apply` (no accumulator
//!   array, no atomics), and its next message emitted right after (into a second
//!   buffer in Jacobi rounds, in place in Gauss–Seidel ones); a Jacobi program
//!   whose `emit` reads the round's reduction gets an `emit` pass first. The
//!   rounds are in this module's `dense` child.
//! * Frontier-driven programs (k-core) keep the frontier as a list plus a bitmap.
//!   A small frontier pushes: its vertices combine into their targets' atomic
//!   accumulators, and each target that receives its first value is queued (the
//!   received bitmap's test-and-set decides who queues it); then the queued
//!   vertices are applied. A large frontier pulls: every vertex walks its in-edges,
//!   skipping sources outside the frontier, and applies at once. When the frontier
//!   runs empty, a dense round refreshes the global reduction and applies every
//!   vertex with the identity. A push round costs its frontier's edges; small ones
//!   run on the calling thread with reused buffers (a BFS level of a grid is a few
//!   thousand edges, less than the dispatches and allocations of a parallel round).
//!
//! * Level sweeps run one round per level of a schedule built once
//!   ([`crate::gather::Sweep`]; the rounds are in this module's `sweep` child).
//! * Programs that read a source run from up to 64 sources at once in
//!   [`batched`]: one walk of a vertex's in-edges serves every source's lane.
//!
//! Invariant: between rounds every accumulator holds the identity (apply resets the
//! ones it read), so push rounds never clear the whole array.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use kernels_rs::StateWord;
use rayon::prelude::*;

use super::prefetch::{prefetch, prefetch_walk};
use crate::error::Result;
use crate::gather::{
    degree, no_weight, weights_of, Ctx, GatherOptions, GatherProgram, GatherReport, GatherRun,
    Resolved, StopReason,
};
use crate::graph::{Graph, Weight};

pub mod batched;
mod dense;
mod sweep;

/// Vertices per rayon task in the vertex passes: small enough to balance skewed
/// degrees, large enough to keep scheduling overhead off the per-edge loop.
const GRAIN: usize = 1024;

/// Frontier-driven rounds with fewer frontier vertices than this, and fewer of
/// their out-edges than [`serial_edges`], push on the calling thread: on
/// high-diameter graphs most rounds are that small, and four rayon dispatches plus
/// two allocations would cost more than the round.
const SERIAL_FRONTIER: usize = 4096;

/// Rounds (and sweep levels) walking fewer edges than this run on the calling
/// thread: 16 Ki by default; the environment variable `VERTEX_SERIAL_EDGES`
/// overrides it, to find the crossover on a given machine (`bench gap` on grids).
pub(crate) fn serial_edges() -> u64 {
    static EDGES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *EDGES.get_or_init(|| {
        std::env::var("VERTEX_SERIAL_EDGES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(16 * 1024)
    })
}

/// Runs `P` on `g`.
pub fn run<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
) -> Result<GatherRun<P::State>> {
    run_inner::<P, W>(g, opts, None)
}

/// [`run`] from the caller's states instead of `init`, one per vertex: how
/// programs compose, a later phase starting from an earlier one's results
/// (Brandes's backward sweep from the forward phase's depths and path counts).
/// Frontier-driven programs start from the vertices where `active(s, s)` holds.
pub fn run_from<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    initial: Vec<P::State>,
) -> Result<GatherRun<P::State>> {
    run_inner::<P, W>(g, opts, Some(initial))
}

/// Runs the dense program `P` in data-driven Gauss–Seidel sweeps: each sweep
/// gathers only the vertices whose in-neighbours moved by more than their share
/// of the tolerance since the vertex was last gathered, and the run ends when a
/// sweep moves nobody that far (see `dense::driven`). The schedule a dense pull
/// program such as PageRank gets instead of rounds over every vertex: same
/// stopping test, fewer edges once most of the graph has settled.
///
/// Needs a dense program (no `active`, no `level`) with a tolerance (the
/// program's `TOLERANCE` or [`GatherOptions::tolerance`]), a `sum` reduction
/// measuring how far a state moved, and a `Msg` of 4 or 8 bytes. The stopping
/// guarantee holds for programs whose `apply` is non-expansive along out-edges
/// (a change of `δ` in `reduce` at a vertex moves its out-neighbours' states by
/// at most `δ` in all), as PageRank's is. The round limit bounds the work: a
/// run stops (`StopReason::MaxRounds`) once it has gathered that many rounds'
/// worth of edges (or swept 64 times as often).
/// Operators see `ctx.round == 0` and `ctx.global` = the reduction's identity:
/// sweeps are not rounds, and no reduction is taken.
pub fn run_driven<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
) -> Result<GatherRun<P::State>> {
    use crate::error::Error;
    if P::FRONTIER || P::LEVELS {
        return Err(Error::InvalidArgument(format!(
            "program `{}` is frontier-driven or a level sweep; data-driven sweeps are for dense programs",
            P::NAME
        )));
    }
    if P::REDUCE != crate::gather::ReduceKind::Sum {
        return Err(Error::InvalidArgument(format!(
            "data-driven sweeps measure change with the program's `reduce`, which must sum (program `{}`)",
            P::NAME
        )));
    }
    if P::EMIT_READS_GLOBAL {
        return Err(Error::InvalidArgument(format!(
            "data-driven sweeps have no rounds' reduction for `emit` to read (program `{}`)",
            P::NAME
        )));
    }
    if !matches!(std::mem::size_of::<P::Msg>(), 4 | 8) {
        return Err(Error::InvalidArgument(format!(
            "data-driven sweeps need a `Msg` of 4 or 8 bytes (program `{}`: {} bytes)",
            P::NAME,
            std::mem::size_of::<P::Msg>()
        )));
    }
    opts.rounds_only("data-driven sweeps are Gauss–Seidel already")?;
    let n = g.num_vertices();
    let r = opts.resolve::<P>(n)?;
    let Some(tolerance) = r.tolerance else {
        return Err(Error::InvalidArgument(format!(
            "data-driven sweeps stop by the tolerance: program `{}` has none (set `TOLERANCE` or pass one)",
            P::NAME
        )));
    };
    let e = Engine::<P>::new(g, r, None)?;
    let (run, threads) = super::in_pool(opts.threads, || e.run_dense_driven(tolerance))?;
    let mut run = run;
    run.report.threads = threads;
    Ok(run)
}

fn run_inner<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    initial: Option<Vec<P::State>>,
) -> Result<GatherRun<P::State>> {
    let n = g.num_vertices();
    crate::gather::check_initial::<P>(initial.as_deref(), n)?;
    let r = opts.resolve::<P>(n)?;
    let e = Engine::<P>::new(g, r, initial)?;
    let (run, threads) = super::in_pool(opts.threads, || {
        if P::LEVELS {
            e.run_sweep()
        } else if P::FRONTIER {
            e.run_frontier()
        } else if opts.gauss_seidel {
            e.run_dense_in_place()
        } else {
            e.run_dense()
        }
    })?;
    let mut run = run;
    run.report.threads = threads;
    r.check_bound::<P>(&run.report)?;
    Ok(run)
}

struct Engine<'a, P: GatherProgram> {
    out_offsets: &'a [u64],
    out_targets: &'a [u32],
    out_weights: Option<&'a [P::Weight]>,
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    in_weights: Option<&'a [P::Weight]>,
    n: usize,
    r: Resolved,
    /// The caller's initial states ([`run_from`]), else `init` gives them; taken
    /// (not copied) by the run.
    initial: std::sync::Mutex<Option<Vec<P::State>>>,
}

impl<'a, P: GatherProgram> Engine<'a, P> {
    /// The engine over `g`'s CSR and CSC (with the weights `gather` reads).
    fn new<W: Weight>(
        g: &'a Graph<W>,
        r: Resolved,
        initial: Option<Vec<P::State>>,
    ) -> Result<Self> {
        let (csr, csc) = (g.csr(), g.csc());
        Ok(Engine {
            out_offsets: csr.offsets(),
            out_targets: csr.targets(),
            out_weights: weights_of::<P, W>(csr)?,
            in_offsets: csc.offsets(),
            in_sources: csc.targets(),
            in_weights: weights_of::<P, W>(csc)?,
            n: g.num_vertices(),
            r,
            initial: std::sync::Mutex::new(initial),
        })
    }
}

/// A vector written at disjoint indices by parallel tasks.
struct Cells<T>(Vec<UnsafeCell<T>>);
// SAFETY: tasks write disjoint indices and read only indices no task writes in the
// same pass (the engine's passes are arranged so).
unsafe impl<T: Send> Sync for Cells<T> {}
impl<T: Copy> Cells<T> {
    fn new(v: Vec<T>) -> Self {
        Cells(v.into_iter().map(UnsafeCell::new).collect())
    }
    /// The values of a parallel iterator, written in parallel where they end up
    /// (no second pass over them, as `new` of a collected vector would make).
    fn collect(values: impl IndexedParallelIterator<Item = T>) -> Self
    where
        T: Send,
    {
        Cells(values.map(UnsafeCell::new).collect())
    }
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        // SAFETY: see the `Sync` impl: no concurrent write to `i`.
        unsafe { *self.0[i].get() }
    }
    /// `get` for a neighbour id read from the graph, the per-edge hot path.
    ///
    /// # Safety
    /// `i < len`: graphs are built with every neighbour id below the vertex count,
    /// the length of every per-vertex vector here.
    #[inline(always)]
    unsafe fn get_neighbour(&self, i: usize) -> T {
        debug_assert!(i < self.0.len());
        *self.0.get_unchecked(i).get()
    }
    #[inline(always)]
    fn set(&self, i: usize, v: T) {
        // SAFETY: see the `Sync` impl: this task is `i`'s only writer.
        unsafe { *self.0[i].get() = v }
    }
    /// Entries `lo..lo + len` as a plain slice (a batch's lanes of one vertex).
    ///
    /// # Safety
    /// No task writes those entries while the slice is alive.
    #[inline(always)]
    unsafe fn row(&self, lo: usize, len: usize) -> &[T] {
        let cells = &self.0[lo..lo + len];
        // SAFETY: `UnsafeCell<T>` has `T`'s layout; the caller rules out writes
        // for the slice's life.
        unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const T, len) }
    }
    fn into_vec(self) -> Vec<T> {
        self.0.into_iter().map(UnsafeCell::into_inner).collect()
    }
}

impl<P: GatherProgram> Engine<'_, P> {
    #[inline(always)]
    fn ctx(&self, v: usize, round: u32, global: f64) -> Ctx {
        Ctx {
            vertex: v as u32,
            out_degree: degree(self.out_offsets, v),
            in_degree: degree(self.in_offsets, v),
            num_vertices: self.n as u32,
            num_edges: self.out_targets.len() as u64,
            round,
            source: self.r.source,
            global,
        }
    }

    #[inline(always)]
    fn in_weight(&self, e: usize) -> P::Weight {
        match self.in_weights {
            Some(w) => w[e],
            None => no_weight::<P>(),
        }
    }

    #[inline(always)]
    fn out_weight(&self, e: usize) -> P::Weight {
        match self.out_weights {
            Some(w) => w[e],
            None => no_weight::<P>(),
        }
    }

    fn init(&self) -> Cells<P::State> {
        if let Some(states) = self.initial.lock().ok().and_then(|mut s| s.take()) {
            return Cells::new(states);
        }
        Cells::collect(
            (0..self.n)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|v| P::init(self.ctx(v, 0, P::REDUCE.identity()))),
        )
    }

    /// Frontier-driven rounds (see the module docs).
    fn run_frontier(&self) -> GatherRun<P::State> {
        let start = Instant::now();
        let n = self.n;
        let m = self.in_sources.len() as u64;
        let words = n.div_ceil(32);
        let state = self.init();
        let msg: Cells<P::Msg> = Cells::new(vec![
            P::emit(
                self.ctx(0, 0, 0.0),
                P::init(self.ctx(0, 0, 0.0))
            );
            n
        ]);
        let mut acc_values = vec![P::identity(); n];
        let acc = P::Acc::atomics_from_mut(&mut acc_values);
        let frontier_bits: Vec<AtomicU32> = (0..words).map(|_| AtomicU32::new(0)).collect();
        let received: Vec<AtomicU32> = (0..words).map(|_| AtomicU32::new(0)).collect();
        let mut global = P::REDUCE.identity();
        let mut frontier: Vec<u32> = (0..n as u32)
            .into_par_iter()
            .with_min_len(GRAIN)
            .filter(|&v| {
                let ctx = self.ctx(v as usize, 0, global);
                let s = state.get(v as usize);
                P::active(ctx, s, s)
            })
            .collect();
        let mut report = GatherReport::empty();
        let mut round = 0u32;
        // Small rounds' buffers, reused: the vertices that received a value, and
        // the previous frontier's storage for the next one.
        let (mut touched, mut spare) = (Vec::new(), Vec::new());
        loop {
            if round >= self.r.max_rounds {
                report.stop = StopReason::MaxRounds;
                break;
            }
            let next: Vec<u32>;
            if frontier.is_empty() {
                // Dense round: refresh the global, apply everything with identity.
                report.dense_rounds += 1;
                global = (0..n)
                    .into_par_iter()
                    .with_min_len(GRAIN)
                    .map(|v| {
                        let s = state.get(v);
                        P::reduce(self.ctx(v, round, global), s, s)
                    })
                    .reduce(|| P::REDUCE.identity(), |a, b| P::REDUCE.combine(a, b));
                next = (0..n as u32)
                    .into_par_iter()
                    .with_min_len(GRAIN)
                    .filter(|&v| {
                        // A vertex that accepts nothing stays as it is (its promise).
                        (!P::ACCEPTS || P::accepts(state.get(v as usize)))
                            && self.apply_one(&state, v as usize, P::identity(), round, global)
                    })
                    .collect();
                report.rounds = round + 1;
                report.applies += n as u64;
                if next.is_empty() {
                    report.stop = StopReason::Quiescent;
                    break;
                }
            } else {
                let small = frontier.len() < SERIAL_FRONTIER;
                let out_degree =
                    |&u: &u32| self.out_offsets[u as usize + 1] - self.out_offsets[u as usize];
                let emit = |&u: &u32| {
                    let u = u as usize;
                    msg.set(u, P::emit(self.ctx(u, round, global), state.get(u)));
                };
                let fe: u64 = if small {
                    frontier.iter().for_each(emit);
                    frontier.iter().map(out_degree).sum()
                } else {
                    frontier.par_iter().with_min_len(GRAIN).for_each(emit);
                    frontier.par_iter().map(out_degree).sum()
                };
                if self.r.push(false, fe, m) && small && fe < serial_edges() {
                    // A small round on this thread: no dispatch, no allocation.
                    report.push_rounds += 1;
                    report.edges_gathered += fe;
                    touched.clear();
                    for (i, &u) in frontier.iter().enumerate() {
                        prefetch_walk(
                            |k| frontier.get(k).copied(),
                            i,
                            self.out_offsets,
                            self.out_targets,
                            |&v| {
                                prefetch(&state.0, v as usize);
                            },
                        );
                        let u = u as usize;
                        let mu = msg.get(u);
                        let (lo, hi) = (
                            self.out_offsets[u] as usize,
                            self.out_offsets[u + 1] as usize,
                        );
                        for e in lo..hi {
                            let v = self.out_targets[e] as usize;
                            if P::ACCEPTS && !P::accepts(state.get(v)) {
                                continue;
                            }
                            // One thread: plain loads and stores, no read-modify-write
                            // instructions (they cost more than the rest of the edge).
                            let old = P::Acc::load(&acc[v]);
                            P::Acc::store(
                                &acc[v],
                                P::combine(old, P::gather(mu, self.out_weight(e))),
                            );
                            let (word, bit) = (&received[v / 32], 1u32 << (v % 32));
                            let w = word.load(Relaxed);
                            if w & bit == 0 {
                                word.store(w | bit, Relaxed);
                                touched.push(v as u32);
                            }
                        }
                    }
                    report.applies += touched.len() as u64;
                    let mut nx = std::mem::take(&mut spare);
                    nx.clear();
                    for &v in &touched {
                        let v = v as usize;
                        received[v / 32].store(0, Relaxed);
                        let a = P::Acc::load(&acc[v]);
                        P::Acc::store(&acc[v], P::identity());
                        if self.apply_one(&state, v, a, round, global) {
                            nx.push(v as u32);
                        }
                    }
                    next = nx;
                } else if self.r.push(false, fe, m) {
                    report.push_rounds += 1;
                    report.edges_gathered += fe;
                    let touched: Vec<u32> = frontier
                        .par_iter()
                        .with_min_len(64)
                        .fold(Vec::new, |mut out, &u| {
                            let u = u as usize;
                            let mu = msg.get(u);
                            let (lo, hi) = (
                                self.out_offsets[u] as usize,
                                self.out_offsets[u + 1] as usize,
                            );
                            for e in lo..hi {
                                let v = self.out_targets[e] as usize;
                                if P::ACCEPTS && !P::accepts(state.get(v)) {
                                    continue; // settled: applying would change nothing
                                }
                                P::combine_atomic(&acc[v], P::gather(mu, self.out_weight(e)));
                                if test_and_set(&received, v) {
                                    out.push(v as u32);
                                }
                            }
                            out
                        })
                        .reduce(Vec::new, |mut a, mut b| {
                            a.append(&mut b);
                            a
                        });
                    report.applies += touched.len() as u64;
                    next = touched
                        .par_iter()
                        .with_min_len(GRAIN)
                        .filter(|&&v| {
                            let v = v as usize;
                            received[v / 32].store(0, Relaxed);
                            let a = P::Acc::load(&acc[v]);
                            P::Acc::store(&acc[v], P::identity());
                            self.apply_one(&state, v, a, round, global)
                        })
                        .copied()
                        .collect();
                } else {
                    for &u in &frontier {
                        frontier_bits[u as usize / 32].fetch_or(1 << (u % 32), Relaxed);
                    }
                    report.edges_gathered += m;
                    let applied = AtomicU64::new(0);
                    next = (0..n as u32)
                        .into_par_iter()
                        .with_min_len(GRAIN)
                        .filter(|&v| {
                            let v = v as usize;
                            if P::ACCEPTS && !P::accepts(state.get(v)) {
                                return false; // settled: skip its in-edges (Beamer)
                            }
                            let (lo, hi) =
                                (self.in_offsets[v] as usize, self.in_offsets[v + 1] as usize);
                            let mut a = P::identity();
                            let mut got = false;
                            for e in lo..hi {
                                let u = self.in_sources[e] as usize;
                                if frontier_bits[u / 32].load(Relaxed) & (1 << (u % 32)) != 0 {
                                    a = P::combine(a, P::gather(msg.get(u), self.in_weight(e)));
                                    got = true;
                                }
                            }
                            if !got {
                                return false;
                            }
                            applied.fetch_add(1, Relaxed);
                            self.apply_one(&state, v, a, round, global)
                        })
                        .collect();
                    report.applies += applied.into_inner();
                    frontier_bits.par_iter().for_each(|w| w.store(0, Relaxed));
                }
                report.rounds = round + 1;
            }
            spare = std::mem::replace(&mut frontier, next);
            round += 1;
        }
        report.reduced = global;
        report.time = start.elapsed();
        GatherRun {
            states: state.into_vec(),
            report,
        }
    }

    /// Applies `acc` to `v`; returns whether it joins the next frontier.
    #[inline(always)]
    fn apply_one(
        &self,
        state: &Cells<P::State>,
        v: usize,
        acc: P::Acc,
        round: u32,
        global: f64,
    ) -> bool {
        let ctx = self.ctx(v, round, global);
        let old = state.get(v);
        let new = P::apply(ctx, old, acc);
        state.set(v, new);
        P::active(ctx, old, new)
    }
}

/// Sets bit `v`; true if this call set it (the first arrival).
#[inline(always)]
fn test_and_set(bits: &[AtomicU32], v: usize) -> bool {
    let mask = 1u32 << (v % 32);
    bits[v / 32].load(Relaxed) & mask == 0 && bits[v / 32].fetch_or(mask, Relaxed) & mask == 0
}
