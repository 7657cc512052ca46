//! Data-driven Gauss–Seidel sweeps for dense programs ([`crate::cpu::gather::run_driven`]):
//! PageRank's "pull with activity" schedule (Galois's topology-driven pull
//! residual, Ligra's PageRank-Delta switching between a dense and a sparse
//! frontier), with no atomics on the gather side.
//!
//! A sweep walks the vertices in id order as a Gauss–Seidel round does
//! ([`Dense::pass`]'s walk: blocks taken in increasing order from a shared
//! cursor). A gathered vertex applies and emits in place at once (later vertices
//! of the sweep read the new message), and it *announces* only when its state
//! has moved, as the program's `reduce` measures it, by at least its threshold
//! since it last announced: `reduce(announced, new) ≥ ε_v`, thresholds being
//! shares of the program's tolerance `τ` (the sync run's stopping test: a round
//! whose reduction is under `τ`; see *Thresholds*). The run ends after a sweep
//! in which nobody announced, once the drift nobody announced is within `τ`.
//!
//! * **Dense sweeps** gather every vertex, as long as the announcing vertices'
//!   out-edges are a large share of the graph (more than `m / SPARSE_SHARE`):
//!   then nearly every vertex has an announcing in-neighbour anyway, and a plain
//!   sweep costs its in-edges only, where flagging would add a store per
//!   out-edge. On graphs whose ids run along rows they run [`CHAINS`] chains
//!   side by side, as Gauss–Seidel rounds do.
//! * **Sparse sweeps** gather only the vertices flagged *dirty* — an
//!   in-neighbour announced since they were last gathered — and an announcing
//!   vertex flags its out-neighbours. The switch flags the out-neighbours of the
//!   last dense sweep's announcers (some of which that sweep had already
//!   gathered after the announcement: a spare gather, never a missed one).
//!
//! **What the result guarantees.** Every vertex was gathered after the last
//! announcement of each of its in-neighbours, so the message it read from an
//! in-neighbour `u` and `u`'s final message both come from states `u` held since
//! it last announced: if `u`'s states drifted from the announced one by at most
//! `δ_u` (`reduce(announced, s)`, largest over those states), they differ by at
//! most `δ_u + reduce(announced, final)`. For a program whose `apply` is
//! non-expansive along out-edges — a change of size `δ` at `u` moves the
//! applies of all its out-neighbours together by at most `δ` — one more Jacobi
//! round from the result would change the states by at most the sum `U` of
//! those bounds over the vertices with out-edges. The run ends only when a
//! sweep announced nothing *and* `U ≤ τ`: the very test that stops the sync run
//! (a round whose change is under `τ`). This holds for PageRank, where `δ` at
//! `u` moves its out-neighbours by `d · δ` in L1 (`d` = 0.85), so its residual
//! is under `d·τ` and its L1 distance to the fixed point under
//! `d·τ / (1 − d)`, the sync run's own bound.
//!
//! **Thresholds.** `ε_v = unit · (out-degree + 1)`. At `unit = τ / (2(m + n))`
//! every drift stays under `ε_v`, and `U < Σ 2ε_v = τ` holds by construction;
//! but PageRank's drifts are mostly far below their thresholds, so a run starts
//! from [`SLACK`] times that, and when it falls quiet with `U > τ` halves the
//! thresholds (never below the safe ones), has every vertex whose drift reaches
//! its new threshold announce, and sweeps on. The out-degree weighting makes a
//! hub wait for a larger change: announcing costs its out-neighbours' in-edges.
//!
//! **Flags.** A vertex flag and a flag per block of [`GRAIN`] vertices, one
//! byte each, set by plain release stores (idempotent: no read-modify-write per
//! edge); a sparse sweep skips clean blocks. A reader clears a flag with a swap
//! before gathering: the swap is ordered before its message loads, so an
//! announcement either lands before the swap (the gather sees its message) or
//! after (the flag stays set and the vertex is gathered again). A block's flag
//! is cleared before its vertices are scanned, for the same reason.
//!
//! Work: the edges counted are those gathered plus those flagged, so the
//! comparison with the rounds' gathered edges is like for like.

use std::sync::atomic::{
    AtomicU32, AtomicU64, AtomicU8,
    Ordering::{AcqRel, Relaxed, Release},
};
use std::time::Instant;

use rayon::prelude::*;

use super::{AtomicMsg, Dense, MsgWord, CHAINS};
use crate::cpu::gather::{Cells, Engine, GRAIN};
use crate::gather::{Ctx, GatherProgram, GatherReport, GatherRun, StopReason};

/// Sweeps turn sparse once the announcing vertices' out-edges are fewer than
/// `m / SPARSE_SHARE` (`VERTEX_DRIVEN_SHARE` overrides it, to find the
/// crossover on a machine).
const SPARSE_SHARE: u64 = 8;

/// The thresholds a run starts from, as a multiple of those whose sum
/// guarantees the bound (`VERTEX_DRIVEN_SLACK` overrides it).
const SLACK: f64 = 4.0;

fn slack() -> f64 {
    static SLACK_: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *SLACK_.get_or_init(|| {
        std::env::var("VERTEX_DRIVEN_SLACK")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&s: &f64| s >= 1.0 && s.is_finite())
            .unwrap_or(SLACK)
    })
}

fn sparse_share() -> u64 {
    static SHARE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SHARE.get_or_init(|| {
        std::env::var("VERTEX_DRIVEN_SHARE")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&s| s > 0)
            .unwrap_or(SPARSE_SHARE)
    })
}

/// A sweep's sums.
#[derive(Clone, Copy, Default)]
struct Sweep {
    /// Vertices gathered and applied.
    applied: u64,
    /// Vertices that announced.
    announced: u64,
    /// Out-edges of those.
    announced_edges: u64,
    /// In-edges gathered plus out-edges flagged.
    edges: u64,
}

impl Sweep {
    fn add(self, o: Sweep) -> Sweep {
        Sweep {
            applied: self.applied + o.applied,
            announced: self.announced + o.announced,
            announced_edges: self.announced_edges + o.announced_edges,
            edges: self.edges + o.edges,
        }
    }
}

/// What a sweep reads and writes besides the graph, the states and messages.
struct Flags<'a, S> {
    out_targets: &'a [u32],
    /// Per vertex: an in-neighbour announced since the vertex was last gathered.
    dirty: &'a [AtomicU8],
    /// Per block of [`GRAIN`] vertices: some vertex of it may be dirty.
    block_dirty: &'a [AtomicU8],
    /// Per vertex: it announced in the last dense sweep.
    moved: &'a [AtomicU8],
    /// Per vertex, the state it last announced.
    announced: &'a Cells<S>,
    /// Per vertex, the largest `reduce(announced, s)` over the states `s` it
    /// held since it last announced.
    drift: &'a Cells<f64>,
    /// A vertex announces at `unit · (out-degree + 1)`.
    unit: f64,
}

impl<P: GatherProgram> Dense<'_, P> {
    /// Gathers, applies and emits `v`; returns its context if it announced
    /// (and records that in `announced`). Counting is the caller's, in locals:
    /// a tally updated through memory per vertex is a store-to-load chain
    /// from vertex to vertex (see the module docs of `dense`).
    ///
    /// # Safety
    /// `v < n`; no other task writes `v`'s state, announced state or message in
    /// this sweep.
    #[inline(always)]
    unsafe fn step_driven<A: MsgWord>(
        self,
        v: usize,
        f: &Flags<'_, P::State>,
        state: &Cells<P::State>,
        msg: &[AtomicMsg<P::Msg, A>],
    ) -> Option<Ctx> {
        let (mut reduced, mut changed) = (P::REDUCE.identity(), 0);
        let (ctx, new) = self.step(
            v,
            0,
            P::REDUCE.identity(),
            state,
            msg,
            &mut reduced,
            &mut changed,
        );
        msg.get_unchecked(v).store(P::emit(ctx, new));
        if ctx.out_degree == 0 {
            return None;
        }
        let was = *f.announced.0.get_unchecked(v).get();
        let moved = P::reduce(ctx, was, new);
        let drift = f.drift.0.get_unchecked(v).get();
        if moved >= f.unit * (ctx.out_degree as f64 + 1.0) {
            *f.announced.0.get_unchecked(v).get() = new;
            *drift = 0.0;
            Some(ctx)
        } else {
            if moved > *drift {
                *drift = moved;
            }
            None
        }
    }

    /// Flags `v`'s out-neighbours dirty.
    #[inline(always)]
    fn flag_out(self, v: usize, f: &Flags<'_, P::State>, t: &mut Sweep) {
        let (a, b) = (
            self.out_offsets[v] as usize,
            self.out_offsets[v + 1] as usize,
        );
        t.edges += (b - a) as u64;
        for &w in &f.out_targets[a..b] {
            let w = w as usize;
            // Release: `v`'s message, stored before, travels with the flag.
            f.dirty[w].store(1, Release);
            f.block_dirty[w / GRAIN].store(1, Release);
        }
    }

    /// A dense sweep of the block `lo..hi`: every vertex, in [`CHAINS`]
    /// interleaved chains if `chained`; `moved` records who announced.
    #[inline(never)]
    fn block_dense<A: MsgWord>(
        self,
        chained: bool,
        lo: usize,
        hi: usize,
        f: &Flags<'_, P::State>,
        state: &Cells<P::State>,
        msg: &[AtomicMsg<P::Msg, A>],
    ) -> Sweep {
        let (mut announced, mut announced_edges) = (0u64, 0u64);
        let mut one = |v: usize| {
            // SAFETY: `v < n`; this block is the only writer of `v`'s state,
            // announced state, drift, message and `moved` flag in this sweep;
            // messages are atomic.
            unsafe {
                let c = self.step_driven(v, f, state, msg);
                f.moved.get_unchecked(v).store(c.is_some() as u8, Relaxed);
                if let Some(c) = c {
                    announced += 1;
                    announced_edges += c.out_degree as u64;
                }
            }
        };
        let q = (hi - lo) / CHAINS;
        if chained && q > 0 {
            for v in lo..lo + q {
                for c in 0..CHAINS {
                    one(v + c * q);
                }
            }
            for v in lo + CHAINS * q..hi {
                one(v);
            }
        } else {
            for v in lo..hi {
                one(v);
            }
        }
        Sweep {
            applied: (hi - lo) as u64,
            announced,
            announced_edges,
            edges: self.edges(lo, hi),
        }
    }

    /// Flags the out-neighbours of the block's vertices that announced in the
    /// last dense sweep: the switch to sparse sweeps.
    #[inline(never)]
    fn block_flag_moved(self, lo: usize, hi: usize, f: &Flags<'_, P::State>) -> Sweep {
        let mut t = Sweep::default();
        for v in lo..hi {
            if f.moved[v].load(Relaxed) != 0 {
                self.flag_out(v, f, &mut t);
            }
        }
        t
    }

    /// The bound on what the block's vertices did not announce:
    /// `Σ drift + reduce(announced, state)` over those with out-edges.
    #[inline(never)]
    fn block_unannounced(
        self,
        lo: usize,
        hi: usize,
        f: &Flags<'_, P::State>,
        state: &Cells<P::State>,
    ) -> f64 {
        let mut sum = 0.0;
        for v in lo..hi {
            // SAFETY: `v < n`; no task writes in this pass.
            let ctx = unsafe { self.ctx(v, 0, P::REDUCE.identity()) };
            if ctx.out_degree > 0 {
                sum += f.drift.get(v) + P::reduce(ctx, f.announced.get(v), state.get(v));
            }
        }
        sum
    }

    /// After the thresholds were lowered: the block's vertices whose drift
    /// reaches the new threshold announce their state now.
    #[inline(never)]
    fn block_tighten(
        self,
        lo: usize,
        hi: usize,
        f: &Flags<'_, P::State>,
        state: &Cells<P::State>,
    ) -> Sweep {
        let mut t = Sweep::default();
        for v in lo..hi {
            // SAFETY: `v < n`.
            let ctx = unsafe { self.ctx(v, 0, P::REDUCE.identity()) };
            if ctx.out_degree > 0 && f.drift.get(v) >= f.unit * (ctx.out_degree as f64 + 1.0) {
                f.announced.set(v, state.get(v));
                f.drift.set(v, 0.0);
                t.announced += 1;
                t.announced_edges += ctx.out_degree as u64;
                self.flag_out(v, f, &mut t);
            }
        }
        t
    }

    /// A sparse sweep of the block `lo..hi`: its dirty vertices, in order; each
    /// that announces flags its out-neighbours.
    #[inline(never)]
    fn block_sparse<A: MsgWord>(
        self,
        lo: usize,
        hi: usize,
        f: &Flags<'_, P::State>,
        state: &Cells<P::State>,
        msg: &[AtomicMsg<P::Msg, A>],
    ) -> Sweep {
        let mut t = Sweep::default();
        let block = &f.block_dirty[lo / GRAIN];
        if block.load(Relaxed) == 0 || block.swap(0, AcqRel) == 0 {
            return t;
        }
        for v in lo..hi {
            let flag = &f.dirty[v];
            if flag.load(Relaxed) == 0 || flag.swap(0, AcqRel) == 0 {
                continue;
            }
            t.applied += 1;
            t.edges += self.edges(v, v + 1);
            // SAFETY: as in `block_dense`.
            if let Some(c) = unsafe { self.step_driven(v, f, state, msg) } {
                t.announced += 1;
                t.announced_edges += c.out_degree as u64;
                self.flag_out(v, f, &mut t);
            }
        }
        t
    }

    /// The sum of `block` over the blocks, in parallel.
    fn pass_sum(self, block: impl Fn(usize, usize) -> f64 + Sync) -> f64 {
        (0..self.n.div_ceil(GRAIN))
            .into_par_iter()
            .map(|b| block(b * GRAIN, ((b + 1) * GRAIN).min(self.n)))
            .sum()
    }

    /// [`Dense::pass`]'s walk (runs of blocks from a shared cursor, in
    /// increasing order) with a sweep's sums.
    fn pass_driven(self, block: impl Fn(usize, usize) -> Sweep + Sync) -> Sweep {
        self.walk(Sweep::default, Sweep::add, block)
    }
}

impl<P: GatherProgram> Engine<'_, P> {
    /// Data-driven sweeps (see the module docs); `tolerance` is the resolved
    /// tolerance `τ`.
    pub(in crate::cpu::gather) fn run_dense_driven(&self, tolerance: f64) -> GatherRun<P::State> {
        if std::mem::size_of::<P::Msg>() == 4 {
            self.run_driven_with::<AtomicU32>(tolerance)
        } else {
            self.run_driven_with::<AtomicU64>(tolerance)
        }
    }

    fn run_driven_with<A: MsgWord>(&self, tolerance: f64) -> GatherRun<P::State> {
        let start = Instant::now();
        let d = Dense::of(self);
        let n = self.n;
        let m = self.out_targets.len() as u64;
        let state = self.init();
        let announced = Cells::collect(
            (0..n)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|v| state.get(v)),
        );
        let msg: Vec<AtomicMsg<P::Msg, A>> = (0..n)
            .into_par_iter()
            .with_min_len(GRAIN)
            .map(|v| AtomicMsg::new(P::emit(self.ctx(v, 0, 0.0), state.get(v))))
            .collect();
        let msg = msg.as_slice();
        let bytes = |len: usize| -> Vec<AtomicU8> { (0..len).map(|_| AtomicU8::new(0)).collect() };
        let (dirty, block_dirty, moved) = (bytes(n), bytes(n.div_ceil(GRAIN)), bytes(n));
        let drift = Cells::collect((0..n).into_par_iter().with_min_len(GRAIN).map(|_| 0.0));
        // The thresholds whose sum guarantees the bound, and the looser ones
        // the run starts from.
        let safe = tolerance / (2.0 * (m as f64 + n as f64));
        let mut f = Flags {
            out_targets: self.out_targets,
            dirty: &dirty,
            block_dirty: &block_dirty,
            moved: &moved,
            announced: &announced,
            drift: &drift,
            unit: safe * slack(),
        };
        let chained = d.chained();
        // The round limit bounds the work, not the sweeps: a sparse sweep of a
        // few vertices is no round. The run may gather `max_rounds` rounds'
        // worth of edges, in at most 64 times as many sweeps.
        let work_bound = u64::from(self.r.max_rounds).saturating_mul(m.max(1));
        let sweep_bound = self.r.max_rounds.saturating_mul(64);
        let trace = std::env::var_os("VERTEX_DRIVEN_TRACE").is_some();
        let mut report = GatherReport::empty();
        report.stop = StopReason::Converged;
        report.reduced = P::REDUCE.identity();
        // The first sweep is dense: the initial states are a guess, every
        // vertex is gathered once.
        let mut dense = true;
        for round in 0.. {
            let mut t = if dense {
                d.pass_driven(|lo, hi| d.block_dense(chained, lo, hi, &f, &state, msg))
            } else {
                d.pass_driven(|lo, hi| d.block_sparse(lo, hi, &f, &state, msg))
            };
            let spent = report.edges_gathered + t.edges >= work_bound || round + 1 >= sweep_bound;
            let last = t.announced == 0 || spent;
            if dense && !last && t.announced_edges.saturating_mul(sparse_share()) < m {
                t = t.add(Sweep {
                    edges: d.pass_driven(|lo, hi| d.block_flag_moved(lo, hi, &f)).edges,
                    ..Sweep::default()
                });
                dense = false;
            }
            report.rounds = round + 1;
            report.edges_gathered += t.edges;
            report.applies += t.applied;
            if trace {
                eprintln!(
                    "sweep {round}: applied {} announced {} ({} out-edges), edges {} ({:.1} ms)",
                    t.applied,
                    t.announced,
                    t.announced_edges,
                    t.edges,
                    start.elapsed().as_secs_f64() * 1e3
                );
            }
            if t.announced == 0 {
                // Quiet at these thresholds; done if what was never announced
                // is within the tolerance, else lower the thresholds until
                // some vertex has to announce, and sweep on.
                let unannounced = d.pass_sum(|lo, hi| d.block_unannounced(lo, hi, &f, &state));
                if trace {
                    eprintln!("  unannounced {unannounced:.3e} (tolerance {tolerance:.1e})");
                }
                if unannounced <= tolerance || spent {
                    if unannounced > tolerance {
                        report.stop = StopReason::MaxRounds;
                    }
                    break;
                }
                let mut woken = Sweep::default();
                while woken.announced == 0 && f.unit > safe {
                    f.unit = (f.unit / 2.0).max(safe);
                    woken = d.pass_driven(|lo, hi| d.block_tighten(lo, hi, &f, &state));
                }
                report.edges_gathered += woken.edges;
                if woken.announced == 0 {
                    // At the safe thresholds the sum is within the tolerance;
                    // only rounding can bring us here.
                    break;
                }
                dense = false;
                continue;
            }
            if last {
                report.stop = StopReason::MaxRounds;
                break;
            }
        }
        report.time = start.elapsed();
        GatherRun {
            states: state.into_vec(),
            report,
        }
    }
}
