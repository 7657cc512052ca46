//! Any push program from many sources at once on the CPU: the same rounds as the
//! GPU's [`crate::gpu::batched`] (a frontier entry is a vertex and the lanes that
//! changed there; each out-edge is read once for all of them), on rayon.
//!
//! Why not one run per source: 64 runs read every edge 64 times and pay 64
//! runs' rounds of small frontiers; here a round's tasks carry up to 64 lanes'
//! work per edge read, and the small frontiers of one source overlap the large
//! ones of another. Exact for the programs [`crate::gpu::batched::check_batchable`]
//! allows (a source each, an idempotent combine): a vertex improved again in a
//! later round is listed again, as in Bellman-Ford.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::msbfs::{check_sources, each_lane, first_level, LANES};
use crate::error::Result;
use crate::gpu::batched::{check_batchable, check_weights, BatchedStats, LaneStates};
use crate::graph::Graph;
use crate::program::{AtomicState, Combine, VertexProgram};

/// Edges per rayon task at least (a hub's row is split into tasks of this size).
const TASK_EDGES: usize = 1024;

/// `P` from every source in `sources` (64 a batch), on `threads` workers (all
/// cores when `None`); `each` gets each batch's states.
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    sources: &[u32],
    threads: Option<usize>,
    mut each: impl FnMut(LaneStates<'_, P::State>) -> Result<()> + Send,
) -> Result<BatchedStats> {
    check_batchable::<P>()?;
    check_weights::<P>(g.csr().weights().is_some())?;
    check_sources(sources, g.num_vertices())?;
    let (r, _) = super::in_pool(threads, || {
        let next: Vec<AtomicU64> = (0..g.num_vertices()).map(|_| AtomicU64::new(0)).collect();
        each_batch(sources, &mut each, |batch| one_batch::<P>(g, batch, &next))
    })?;
    r
}

/// Runs `batch` on every run of up to [`LANES`] of `sources` (it returns the
/// batch's states, rounds and lane-edges), hands each batch's states to `each`
/// and sums the stats, host-timed: the batch loop of every CPU many-sources
/// engine (push programs here, gather programs in `cpu::gather::batched`).
pub(crate) fn each_batch<S>(
    sources: &[u32],
    each: &mut impl FnMut(LaneStates<'_, S>) -> Result<()>,
    mut batch: impl FnMut(&[u32]) -> Result<(Vec<S>, u64, u64)>,
) -> Result<BatchedStats> {
    let mut stats = BatchedStats::default();
    for sources in sources.chunks(LANES) {
        let t0 = Instant::now();
        let (states, rounds, edges) = batch(sources)?;
        stats.time_ms += t0.elapsed().as_secs_f64() * 1e3;
        stats.batches += 1;
        stats.rounds += rounds;
        stats.edges += edges;
        each(LaneStates {
            sources,
            states: &states,
        })?;
    }
    Ok(stats)
}

/// Whether `candidate` would change a slot holding `current`.
#[inline]
fn improves<P: VertexProgram>(current: P::State, candidate: P::State) -> bool {
    let merged = match P::COMBINE {
        Combine::Custom => P::combine(current, candidate),
        kind => P::State::combine_with(kind, current, candidate),
    };
    merged != current
}

/// One batch: the `n × lanes` states (vertex-major), rounds and lane-edges.
fn one_batch<P: VertexProgram>(
    g: &Graph<P::Weight>,
    sources: &[u32],
    next: &[AtomicU64],
) -> Result<(Vec<P::State>, u64, u64)> {
    let csr = g.csr();
    let n = g.num_vertices();
    let lanes = sources.len();
    let state: Vec<<P::State as AtomicState>::Atomic> = (0..n * lanes)
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| P::State::new_atomic(P::init((i / lanes) as u32, sources[i % lanes])))
        .collect();
    let mut frontier = first_level(sources, n)?;
    let (mut rounds, mut edges) = (0u64, 0u64);
    while !frontier.is_empty() {
        rounds += 1;
        if rounds > n as u64 + 1 {
            return Err(crate::gpu::batched::no_convergence::<P>(n as u64));
        }
        // Tasks: an entry's row cut into pieces of at most TASK_EDGES edges.
        let tasks: Vec<(u32, u64, usize, usize)> = frontier
            .iter()
            .flat_map(|&(v, lanes)| {
                let r = csr.edge_range(v);
                let (lo, hi) = (r.start, r.end);
                (lo..hi)
                    .step_by(TASK_EDGES)
                    .map(move |a| (v, lanes, a, hi.min(a + TASK_EDGES)))
            })
            .collect();
        let (touched, relaxed) = tasks
            .par_iter()
            .fold(
                || (Vec::new(), 0u64),
                |(mut out, mut relaxed), &(v, live, lo, hi)| {
                    let v = v as usize;
                    for e in lo..hi {
                        let w = csr.targets()[e] as usize;
                        let weight = csr.weight(e);
                        let mut changed = 0u64;
                        each_lane(live, |l| {
                            let s = P::State::load(&state[v * lanes + l]);
                            let Some(c) = P::relax(s, weight) else { return };
                            let slot = &state[w * lanes + l];
                            if !improves::<P>(P::State::load(slot), c) {
                                return;
                            }
                            let old = P::State::fetch_combine(slot, P::COMBINE, c, P::combine);
                            if improves::<P>(old, c) {
                                changed |= 1 << l;
                            }
                        });
                        relaxed += u64::from(live.count_ones());
                        if changed != 0 && next[w].fetch_or(changed, Relaxed) == 0 {
                            out.push(w as u32);
                        }
                    }
                    (out, relaxed)
                },
            )
            .reduce(
                || (Vec::new(), 0),
                |(mut a, x), (mut b, y)| {
                    a.append(&mut b);
                    (a, x + y)
                },
            );
        edges += relaxed;
        frontier = touched
            .into_par_iter()
            .map(|w| (w, next[w as usize].swap(0, Relaxed)))
            .collect();
    }
    Ok((P::State::into_values(state), rounds, edges))
}
