//! Level sweeps on the CPU ([`GatherProgram::level`]; the model is in
//! [`kernels_rs::gather`]): one round per level of a [`Sweep`] built once.
//!
//! A round touches its own level and the one before it, nothing else: no pass over
//! all vertices, no allocation, no bitmap to clear. Membership in the previous
//! level is `rank[u] == r - 1`, read from the sweep. Each round either
//! * pulls: each vertex of the level walks its in-edges, reduces the messages of
//!   previous-level sources, applies and emits (no atomics; gapbs's backward BC
//!   is this pull over successors), or
//! * pushes: each previous-level vertex walks its out-edges and combines into the
//!   accumulators of current-level targets, then the level applies and emits,
//!
//! chosen per round by the direction setting (auto: pull unless the previous
//! level is under a quarter of this one, in vertices and in edges). Levels of
//! under [`serial_edges`](super::serial_edges) edges run on the calling thread: on high-diameter graphs
//! (grids) most levels are small, and a rayon dispatch would cost more than the
//! level; their pulls prefetch ahead ([`super::prefetch_walk`]), as a level's
//! vertices are scattered over the graph's arrays.
//!
//! The first round's level (the highest) applies with the identity: it has no
//! level before it. The rounds are the sweep's; `MAX_ROUNDS` may cut them short.

use std::time::Instant;

use kernels_rs::StateWord;
use rayon::prelude::*;

use super::{prefetch, prefetch_walk, Cells, Engine};
use crate::gather::{GatherProgram, GatherReport, GatherRun, StopReason, Sweep};

impl<P: GatherProgram> Engine<'_, P> {
    /// Runs a level sweep from `init` (or the caller's states).
    pub(super) fn run_sweep(&self) -> GatherRun<P::State> {
        let start = Instant::now();
        let n = self.n;
        let state = self.init();
        let levels: Vec<u32> = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|v| P::level(state.get(v)))
            .collect();
        let sweep = Sweep::from_levels(&levels);
        drop(levels);
        let global = P::REDUCE.identity();
        let placeholder = P::emit(self.ctx(0, 0, global), P::init(self.ctx(0, 0, global)));
        let msg: Cells<P::Msg> = Cells::new(vec![placeholder; n]);
        let mut acc_values: Vec<P::Acc> = Vec::new();
        let mut report = GatherReport::empty();
        report.stop = StopReason::Quiescent;
        for r in 0..sweep.rounds() {
            if r as u32 >= self.r.max_rounds {
                report.stop = StopReason::MaxRounds;
                break;
            }
            let cur = sweep.level(r);
            let prev: &[u32] = if r > 0 { sweep.level(r - 1) } else { &[] };
            let push = r > 0
                && self.r.sweep_push(prev.len(), cur.len(), || {
                    (
                        self.edges_of(prev, self.out_offsets),
                        self.edges_of(cur, self.in_offsets),
                    )
                });
            let round = Round {
                e: self,
                state: &state,
                msg: &msg,
                rank: &sweep.rank,
                r: r as u32,
            };
            let edges = if push {
                if acc_values.is_empty() {
                    acc_values = vec![P::identity(); n];
                }
                let acc = P::Acc::atomics_from_mut(&mut acc_values);
                report.push_rounds += 1;
                let edges = each(prev, self.out_offsets, |u| round.push(u, acc));
                each(cur, self.in_offsets, |v| {
                    let a = P::Acc::load(&acc[v as usize]);
                    P::Acc::store(&acc[v as usize], P::identity());
                    round.apply(v, a);
                    0
                });
                edges
            } else if small(cur, self.in_offsets) {
                let mut edges = 0;
                for (i, &v) in cur.iter().enumerate() {
                    prefetch_walk(
                        |k| cur.get(k).copied(),
                        i,
                        self.in_offsets,
                        self.in_sources,
                        |&u| {
                            prefetch(&sweep.rank, u as usize);
                            prefetch(&msg.0, u as usize);
                        },
                    );
                    edges += round.pull(v);
                }
                edges
            } else {
                each(cur, self.in_offsets, |v| round.pull(v))
            };
            report.edges_gathered += edges;
            report.applies += cur.len() as u64;
            report.rounds = r as u32 + 1;
        }
        report.reduced = global;
        report.time = start.elapsed();
        GatherRun {
            states: state.into_vec(),
            report,
        }
    }

    /// Edges of `vs` in the CSR or CSC with these offsets.
    fn edges_of(&self, vs: &[u32], offsets: &[u64]) -> u64 {
        let deg = |&v: &u32| offsets[v as usize + 1] - offsets[v as usize];
        if vs.len() < 4096 {
            vs.iter().map(deg).sum()
        } else {
            vs.par_iter().with_min_len(4096).map(deg).sum()
        }
    }
}

/// Whether a level of `vs` is small enough to run on the calling thread. A
/// level's size in edges is known only after walking it; its vertex count times
/// the graph's mean degree is the guess that decides.
fn small(vs: &[u32], offsets: &[u64]) -> bool {
    let n = offsets.len().saturating_sub(1).max(1) as u64;
    let mean = offsets.last().copied().unwrap_or(0) / n + 1;
    (vs.len() as u64).saturating_mul(mean) < super::serial_edges()
}

/// `body(v)` (returning the edges it walked) for each of `vs`, in parallel unless
/// the level is small; returns the edges walked.
fn each(vs: &[u32], offsets: &[u64], body: impl Fn(u32) -> u64 + Sync) -> u64 {
    if small(vs, offsets) {
        vs.iter().map(|&v| body(v)).sum()
    } else {
        vs.par_iter().with_min_len(32).map(|&v| body(v)).sum()
    }
}

/// One round's view: the engine, the arrays and the round number.
struct Round<'a, 'e, P: GatherProgram> {
    e: &'a Engine<'e, P>,
    state: &'a Cells<P::State>,
    msg: &'a Cells<P::Msg>,
    rank: &'a [u32],
    r: u32,
}

impl<P: GatherProgram> Round<'_, '_, P> {
    /// Pull: reduce previous-level in-neighbours' messages, apply, emit; returns
    /// the in-edges walked.
    #[inline(always)]
    fn pull(&self, v: u32) -> u64 {
        let v = v as usize;
        let e = self.e;
        let (lo, hi) = (e.in_offsets[v] as usize, e.in_offsets[v + 1] as usize);
        let mut acc = P::identity();
        if self.r > 0 {
            let prev = self.r - 1;
            for (k, &u) in (lo..).zip(&e.in_sources[lo..hi]) {
                // SAFETY: `u` is a vertex id of the graph, below `rank.len() == n`.
                if unsafe { *self.rank.get_unchecked(u as usize) } == prev {
                    // SAFETY: as above for `msg`; `u` belongs to the previous level,
                    // whose messages no task writes this round.
                    let m = unsafe { self.msg.get_neighbour(u as usize) };
                    acc = P::combine(acc, P::gather(m, e.in_weight(k)));
                }
            }
        }
        self.apply(v as u32, acc);
        (hi - lo) as u64
    }

    /// Push: combine `u`'s message into its current-level out-neighbours'
    /// accumulators; returns the out-edges walked.
    #[inline(always)]
    fn push(&self, u: u32, acc: &[<P::Acc as StateWord>::Atomic]) -> u64 {
        let u = u as usize;
        let e = self.e;
        let (lo, hi) = (e.out_offsets[u] as usize, e.out_offsets[u + 1] as usize);
        let m = self.msg.get(u);
        for (k, &v) in (lo..).zip(&e.out_targets[lo..hi]) {
            if self.rank[v as usize] == self.r {
                P::combine_atomic(&acc[v as usize], P::gather(m, e.out_weight(k)));
            }
        }
        (hi - lo) as u64
    }

    /// `apply` then `emit` for `v` (this round's only writer of both).
    #[inline(always)]
    fn apply(&self, v: u32, acc: P::Acc) {
        let v = v as usize;
        let ctx = self.e.ctx(v, self.r, P::REDUCE.identity());
        let new = P::apply(ctx, self.state.get(v), acc);
        self.state.set(v, new);
        self.msg.set(v, P::emit(ctx, new));
    }
}
