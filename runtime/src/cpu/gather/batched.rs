//! Gather/apply programs from many sources at once on the CPU: batches of up to
//! 64 sources, `k` lanes per vertex kept vertex-major (`state[v · k + lane]`),
//! synchronous rounds in which one walk of a vertex's in-edges (each source id
//! and weight read once) serves every lane. Personalized PageRank from 64 seeds
//! then reads the graph once per round instead of 64 times, and a lane's
//! messages sit next to the other lanes' in the same cache lines.
//!
//! Every lane follows the single-source engine's rules ([`super`]) exactly, so
//! its states are those a run from its source alone gives:
//! * **dense programs**: every live lane of every vertex is gathered (in-edge
//!   order, as the single engine's pull: float sums add in the same order) and
//!   applied each round; a lane stops by its own round's reduction and change
//!   count (the single run's `dense_stop`) and is then frozen (its states are not
//!   touched again). Messages are emitted in a pass of their own at the start of
//!   each round, with the lane's round and reduction (the single engine's
//!   non-fused rounds; the fused ones emit the same messages);
//! * **frontier-driven programs**: a `u64` per vertex holds the lanes for which it
//!   is in the frontier. A round walks the in-edges of each vertex with a live,
//!   accepting lane, combining only the lanes set in a source's mask (the single
//!   engine's pull), and applies each lane that received a value. A lane whose
//!   frontier is empty runs the single engine's *dense round* instead (global
//!   refreshed from `reduce(s, s)`, every accepting vertex applied with the
//!   identity), and stops when that activates nothing. Round limits are per lane,
//!   and all lanes start together, so a lane's round numbers are the single run's.
//!
//! Rounds pull only (no push for small frontiers): a pull reads each edge once
//! for all lanes, which is where batching pays. Results equal single runs exactly
//! where the single run's sums do not depend on the order of arrivals (its push
//! rounds combine in any order: for `sum` of floats the states then agree to
//! rounding, not bit for bit).

use kernels_rs::msbfs::each_lane;
use rayon::prelude::*;

use super::{Cells, GRAIN};
use crate::cpu::msbfs::{check_sources, lane_mask, LANES};
use crate::error::Result;
use crate::gather::{
    check_batchable, degree, no_weight, weights_of, Ctx, GatherOptions, GatherProgram,
    GatherReport, Resolved, StopReason,
};
use crate::gpu::batched::{BatchedStats, LaneStates};
use crate::graph::{Graph, Weight};

/// Runs `P` from every source in `sources`, 64 a batch, on `opts.threads`
/// workers; `each` gets each batch's states ([`LaneStates`]: `sources[i]`'s state
/// at `v` is `get(v, i)`). `opts.source` must be unset (the sources are the
/// lanes'); round limits and tolerance apply to every lane.
///
/// Errors: an empty source list or one out of range, a program that cannot run
/// batched (one that reads no `ctx.source`, or a level sweep), Gauss–Seidel rounds, or a lane that reached the
/// round bound of a frontier-driven program without a limit (as a single run).
pub fn run<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    sources: &[u32],
    mut each: impl FnMut(LaneStates<'_, P::State>) -> Result<()> + Send,
) -> Result<BatchedStats> {
    let n = g.num_vertices();
    check_batchable::<P>(opts)?;
    check_sources(sources, n)?;
    let r = GatherOptions {
        source: Some(sources[0]),
        ..opts.clone()
    }
    .resolve::<P>(n)?;
    let csc = g.csc();
    let e = Lanes::<P> {
        out_offsets: g.csr().offsets(),
        in_offsets: csc.offsets(),
        in_sources: csc.targets(),
        in_weights: weights_of::<P, W>(csc)?,
        n,
        m: g.num_edges(),
        r,
    };
    let (out, _) = crate::cpu::in_pool(opts.threads, || {
        crate::cpu::batched::each_batch(sources, &mut each, |batch| {
            let (states, rounds, edges) = if P::FRONTIER {
                e.frontier(batch)?
            } else {
                e.dense(batch)
            };
            Ok((states, u64::from(rounds), edges))
        })
    })?;
    out
}

/// What a batch reads of the graph and the run's settings.
struct Lanes<'a, P: GatherProgram> {
    out_offsets: &'a [u64],
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    in_weights: Option<&'a [P::Weight]>,
    n: usize,
    m: u64,
    r: Resolved,
}

/// Per-lane sums of a pass, folded over rayon's tasks.
#[derive(Clone)]
struct LaneTally {
    reduced: [f64; LANES],
    /// States changed (dense) or vertices activated (frontier-driven), per lane.
    count: [u64; LANES],
    edges: u64,
}

impl LaneTally {
    fn new<P: GatherProgram>() -> Self {
        LaneTally {
            reduced: [P::REDUCE.identity(); LANES],
            count: [0; LANES],
            edges: 0,
        }
    }
    fn fold<P: GatherProgram>(mut self, b: Self) -> Self {
        for l in 0..LANES {
            self.reduced[l] = P::REDUCE.combine(self.reduced[l], b.reduced[l]);
            self.count[l] += b.count[l];
        }
        self.edges += b.edges;
        self
    }
}

impl<P: GatherProgram> Lanes<'_, P> {
    #[inline(always)]
    fn ctx(&self, v: usize, round: u32, global: f64, source: u32) -> Ctx {
        Ctx {
            vertex: v as u32,
            out_degree: degree(self.out_offsets, v),
            in_degree: degree(self.in_offsets, v),
            num_vertices: self.n as u32,
            num_edges: self.m,
            round,
            source,
            global,
        }
    }

    /// `base` (a vertex's context) for lane `l`.
    #[inline(always)]
    fn lane(base: Ctx, global: f64, source: u32) -> Ctx {
        Ctx {
            global,
            source,
            ..base
        }
    }

    #[inline(always)]
    fn in_weight(&self, e: usize) -> P::Weight {
        match self.in_weights {
            Some(w) => w[e],
            None => no_weight::<P>(),
        }
    }

    /// `init` of every lane of every vertex.
    fn init(&self, sources: &[u32]) -> Cells<P::State> {
        let k = sources.len();
        let identity = P::REDUCE.identity();
        Cells::collect(
            (0..self.n * k)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|i| P::init(self.ctx(i / k, 0, identity, sources[i % k]))),
        )
    }

    /// `each(lo, hi)` over the vertices in blocks of [`GRAIN`], the tallies folded.
    fn pass(&self, each: impl Fn(usize, usize) -> LaneTally + Sync) -> LaneTally {
        (0..self.n.div_ceil(GRAIN))
            .into_par_iter()
            .map(|b| each(b * GRAIN, ((b + 1) * GRAIN).min(self.n)))
            .reduce(LaneTally::new::<P>, LaneTally::fold::<P>)
    }

    /// `⊕ gather(msg[u], w)` over `v`'s in-edges into `acc`, for the lanes of
    /// `lanes` that `mask(u)` sets at each source `u` (in-edge order, so every
    /// lane's sum adds as the single run's pull); returns the lanes that
    /// received a value and the lane-edges gathered. Where every lane of the
    /// batch takes part (a dense round's usual case), a source's `k` messages
    /// are one contiguous row combined lane by lane in a plain loop, which the
    /// compiler vectorizes (each lane still adds in its own order).
    #[inline(always)]
    fn gather(
        &self,
        v: usize,
        k: usize,
        lanes: u64,
        mask: impl Fn(usize) -> u64,
        msg: &Cells<P::Msg>,
        acc: &mut [P::Acc; LANES],
    ) -> (u64, u64) {
        let (lo, hi) = (self.in_offsets[v] as usize, self.in_offsets[v + 1] as usize);
        let (mut got, mut edges) = (0u64, 0u64);
        let full = lane_mask(k);
        let acc = &mut acc[..k];
        for e in lo..hi {
            let u = self.in_sources[e] as usize;
            let m = mask(u) & lanes;
            if m == 0 {
                continue;
            }
            let w = self.in_weight(e);
            got |= m;
            edges += u64::from(m.count_ones());
            if m == full {
                // SAFETY: no task writes messages during a gather pass.
                let row = unsafe { msg.row(u * k, k) };
                for (a, &x) in acc.iter_mut().zip(row) {
                    *a = P::combine(*a, P::gather(x, w));
                }
            } else {
                each_lane(m, |l| {
                    acc[l] = P::combine(acc[l], P::gather(msg.get(u * k + l), w));
                });
            }
        }
        (got, edges)
    }

    /// A batch of a dense program; returns the states, the rounds (the longest
    /// lane's) and the lane-edges gathered.
    fn dense(&self, sources: &[u32]) -> (Vec<P::State>, u32, u64) {
        let k = sources.len();
        let state = self.init(sources);
        let msg: Cells<P::Msg> = Cells::collect(
            (0..self.n * k)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|i| P::emit(self.ctx(i / k, 0, 0.0, sources[i % k]), state.get(i))),
        );
        // The single engine's first round reads messages emitted with 0.0 for
        // the reduction; later ones the reduction of the round before.
        let mut global = [0.0f64; LANES];
        let mut live = lane_mask(k);
        let mut rounds = 0u32;
        let mut edges = 0u64;
        for round in 0.. {
            if round > 0 {
                self.pass(|lo, hi| {
                    for v in lo..hi {
                        let base = self.ctx(v, round, 0.0, 0);
                        each_lane(live, |l| {
                            let i = v * k + l;
                            let ctx = Self::lane(base, global[l], sources[l]);
                            msg.set(i, P::emit(ctx, state.get(i)));
                        });
                    }
                    LaneTally::new::<P>()
                });
            }
            let t = self.pass(|lo, hi| {
                let mut t = LaneTally::new::<P>();
                for v in lo..hi {
                    let mut acc = [P::identity(); LANES];
                    let (_, e) = self.gather(v, k, live, |_| u64::MAX, &msg, &mut acc);
                    t.edges += e;
                    let base = self.ctx(v, round, 0.0, 0);
                    each_lane(live, |l| {
                        let i = v * k + l;
                        let ctx = Self::lane(base, global[l], sources[l]);
                        let old = state.get(i);
                        let new = P::apply(ctx, old, acc[l]);
                        state.set(i, new);
                        t.reduced[l] = P::REDUCE.combine(t.reduced[l], P::reduce(ctx, old, new));
                        t.count[l] += (new != old) as u64;
                    });
                }
                t
            });
            rounds = round + 1;
            edges += t.edges;
            let ran = live;
            each_lane(ran, |l| {
                global[l] = t.reduced[l];
                if self.r.dense_stop(round, t.reduced[l], t.count[l]).is_some() {
                    live &= !(1u64 << l);
                }
            });
            if live == 0 {
                break;
            }
        }
        (state.into_vec(), rounds, edges)
    }

    /// A batch of a frontier-driven program (see the module docs); returns as
    /// [`Lanes::dense`] does, or the single run's error for a lane that hit the
    /// round bound.
    fn frontier(&self, sources: &[u32]) -> Result<(Vec<P::State>, u32, u64)> {
        let k = sources.len();
        let n = self.n;
        let state = self.init(sources);
        // Only frontier vertices' messages are read, each emitted in its round:
        // the rest hold a copy of one message (the single engine's fill; `emit`
        // is not called on states no frontier holds).
        let fill = P::emit(self.ctx(0, 0, 0.0, sources[0]), state.get(0));
        let msg: Cells<P::Msg> = Cells::new(vec![fill; n * k]);
        let mut global = [P::REDUCE.identity(); LANES];
        let all = lane_mask(k);
        // Lanes of each vertex in the frontier, and per lane the frontier's size.
        let mut count = [0u64; LANES];
        let mut mask: Cells<u64> =
            Cells::collect((0..n).into_par_iter().with_min_len(GRAIN).map(|v| {
                let mut bits = 0u64;
                each_lane(all, |l| {
                    let s = state.get(v * k + l);
                    if P::active(self.ctx(v, 0, global[l], sources[l]), s, s) {
                        bits |= 1 << l;
                    }
                });
                bits
            }));
        for v in 0..n {
            each_lane(mask.get(v), |l| count[l] += 1);
        }
        // The next round's frontier; every entry is written each round.
        let mut next = Cells::new(vec![0u64; n]);
        let mut live = all;
        let mut stops = [StopReason::Quiescent; LANES];
        let (mut rounds, mut edges) = (0u32, 0u64);
        let mut round = 0u32;
        loop {
            if round >= self.r.max_rounds {
                each_lane(live, |l| stops[l] = StopReason::MaxRounds);
                break;
            }
            let dense = (0..k)
                .filter(|&l| live & (1 << l) != 0 && count[l] == 0)
                .fold(0u64, |d, l| d | 1 << l);
            let front = live & !dense;
            if dense != 0 {
                // Dense rounds of the lanes whose frontier ran empty: the global
                // over every vertex, from `reduce(s, s)`.
                let t = self.pass(|lo, hi| {
                    let mut t = LaneTally::new::<P>();
                    for v in lo..hi {
                        each_lane(dense, |l| {
                            let s = state.get(v * k + l);
                            let r = P::reduce(self.ctx(v, round, global[l], sources[l]), s, s);
                            t.reduced[l] = P::REDUCE.combine(t.reduced[l], r);
                        });
                    }
                    t
                });
                each_lane(dense, |l| global[l] = t.reduced[l]);
            }
            if front != 0 {
                self.pass(|lo, hi| {
                    for v in lo..hi {
                        each_lane(mask.get(v) & front, |l| {
                            let i = v * k + l;
                            let ctx = self.ctx(v, round, global[l], sources[l]);
                            msg.set(i, P::emit(ctx, state.get(i)));
                        });
                    }
                    LaneTally::new::<P>()
                });
            }
            let t = self.pass(|lo, hi| {
                let mut t = LaneTally::new::<P>();
                for v in lo..hi {
                    let mut accepting = live;
                    if P::ACCEPTS {
                        each_lane(live, |l| {
                            if !P::accepts(state.get(v * k + l)) {
                                accepting &= !(1 << l); // settled: skip its in-edges
                            }
                        });
                    }
                    let mut acc = [P::identity(); LANES];
                    let got = if accepting & front != 0 {
                        let (got, e) =
                            self.gather(v, k, accepting & front, |u| mask.get(u), &msg, &mut acc);
                        t.edges += e;
                        got
                    } else {
                        0
                    };
                    let mut bits = 0u64;
                    let base = self.ctx(v, round, 0.0, 0);
                    each_lane(got | (accepting & dense), |l| {
                        let i = v * k + l;
                        let a = if got & (1 << l) != 0 {
                            acc[l]
                        } else {
                            P::identity()
                        };
                        let ctx = Self::lane(base, global[l], sources[l]);
                        let old = state.get(i);
                        let new = P::apply(ctx, old, a);
                        state.set(i, new);
                        if P::active(ctx, old, new) {
                            bits |= 1 << l;
                            t.count[l] += 1;
                        }
                    });
                    next.set(v, bits);
                }
                t
            });
            edges += t.edges;
            count = t.count;
            std::mem::swap(&mut mask, &mut next);
            rounds = round + 1;
            each_lane(dense, |l| {
                if count[l] == 0 {
                    live &= !(1 << l); // a dense round that activated nothing
                }
            });
            if live == 0 {
                break;
            }
            round += 1;
        }
        if self.r.safety_bound && stops[..k].contains(&StopReason::MaxRounds) {
            let report = GatherReport {
                stop: StopReason::MaxRounds,
                ..GatherReport::empty()
            };
            self.r.check_bound::<P>(&report)?;
        }
        Ok((state.into_vec(), rounds, edges))
    }
}
