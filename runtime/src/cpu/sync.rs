//! Level-synchronous (BSP) engine: rounds of push or pull over a frontier.
//!
//! Push round: every frontier vertex `u` evaluates `relax(state[u], w)` on its
//! out-edges and combines the candidate into the target atomically; a target whose
//! state changed joins the next frontier (a bitmap drops duplicates).
//!
//! Pull round (bottom-up, Beamer et al. SC'12): every vertex that could still
//! improve scans its in-edges for a frontier member and stops at the first. This is
//! only equivalent to push when all frontier candidates are the same value, so the
//! engine uses it only when the program is unweighted, its combine is `min`/`max`,
//! and the frontier's states are all equal — detected at run time, which is exactly
//! the BFS situation. `Direction::Auto` switches with Beamer's thresholds
//! (α = 15 on edges, β = 18 on vertices).
//!
//! Idempotent programs update states in place during a round (a later vertex may
//! see an earlier improvement: fewer rounds, same fixpoint). Non-idempotent ones
//! (e.g. `sum`) push the state each frontier vertex had at the start of the round.

use std::time::Instant;

use rayon::prelude::*;

use super::frontier::Bitmap;
use super::{check_source, in_pool, unload, CpuOptions, Direction, RunReport, RunResult};
use crate::error::Result;
use crate::graph::{Graph, Weight};
use crate::program::{AtomicState, Combine, Schedule, VertexProgram};

const ALPHA: u64 = 15;
const BETA: u64 = 18;

#[derive(Default, Clone, Copy)]
struct Counters {
    edges: u64,
    updates: u64,
}

impl std::ops::Add for Counters {
    type Output = Counters;
    fn add(self, o: Counters) -> Counters {
        Counters {
            edges: self.edges + o.edges,
            updates: self.updates + o.updates,
        }
    }
}

/// Runs `P` from `source` (ignored by programs whose every vertex starts active).
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
) -> Result<RunResult<P::State>> {
    let n = g.num_vertices();
    if P::NEEDS_SOURCE {
        check_source(source, n)?;
    }
    let (result, threads) = in_pool(opts.threads, || run_in_pool::<P>(g, source, opts.direction))?;
    let mut result = result;
    result.report.threads = threads;
    Ok(result)
}

fn run_in_pool<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    direction: Direction,
) -> RunResult<P::State> {
    let t0 = Instant::now();
    let csr = g.csr();
    let n = csr.num_vertices();
    let cells: Vec<<P::State as AtomicState>::Atomic> = (0..n as u32)
        .into_par_iter()
        .map(|v| P::State::new_atomic(P::init(v, source)))
        .collect();
    let mut frontier: Vec<u32> = if P::NEEDS_SOURCE {
        vec![source]
    } else {
        (0..n as u32).collect()
    };
    let next_bits = Bitmap::new(n);
    let mut report = RunReport {
        schedule: Some(Schedule::Sync),
        ..RunReport::default()
    };
    let pull_capable =
        !P::WEIGHTED && P::IDEMPOTENT && matches!(P::COMBINE, Combine::Min | Combine::Max);
    let total_edges = csr.num_edges();
    let mut explored_edges = 0u64;
    let mut pulling = direction == Direction::Pull;

    while !frontier.is_empty() {
        report.rounds += 1;
        let uniform = if pull_capable && direction != Direction::Push {
            uniform_state::<P>(&cells, &frontier)
        } else {
            None
        };
        if direction == Direction::Auto {
            if let Some(_s) = uniform {
                let frontier_edges: u64 = frontier.par_iter().map(|&u| csr.degree(u)).sum();
                explored_edges += frontier_edges;
                let unexplored = total_edges.saturating_sub(explored_edges);
                if !pulling && frontier_edges > unexplored / ALPHA {
                    pulling = true;
                } else if pulling && (frontier.len() as u64) < n as u64 / BETA {
                    pulling = false;
                }
            } else {
                pulling = false;
            }
        }
        let counters = match (pulling, uniform) {
            (true, Some(s)) => {
                report.pull_rounds += 1;
                pull_round::<P>(g, &cells, &frontier, s, &next_bits)
            }
            _ => push_round::<P>(g, &cells, &frontier, &next_bits),
        };
        report.edges_relaxed += counters.edges;
        report.updates += counters.updates;
        frontier = next_bits.to_queue();
        next_bits.clear();
    }
    report.time = t0.elapsed();
    RunResult {
        states: unload::<P::State>(&cells),
        report,
    }
}

/// The common state of the frontier, if all members share one.
fn uniform_state<P: VertexProgram>(
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &[u32],
) -> Option<P::State> {
    let first = P::State::load(&cells[*frontier.first()? as usize]);
    frontier
        .par_iter()
        .all(|&u| P::State::load(&cells[u as usize]) == first)
        .then_some(first)
}

#[inline]
fn combine<P: VertexProgram>(old: P::State, new: P::State) -> P::State {
    match P::COMBINE {
        Combine::Custom => P::combine(old, new),
        k => P::State::combine_with(k, old, new),
    }
}

fn push_round<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &[u32],
    next: &Bitmap,
) -> Counters {
    let csr = g.csr();
    // Non-idempotent reductions must not see this round's own arrivals.
    let snapshot: Option<Vec<P::State>> = (!P::IDEMPOTENT).then(|| {
        frontier
            .par_iter()
            .map(|&u| P::State::load(&cells[u as usize]))
            .collect()
    });
    frontier
        .par_iter()
        .enumerate()
        .with_min_len(16)
        .map(|(i, &u)| {
            let su = match &snapshot {
                Some(s) => s[i],
                None => P::State::load(&cells[u as usize]),
            };
            let range = csr.edge_range(u);
            let targets = &csr.targets()[range.clone()];
            let weights = if P::WEIGHTED {
                csr.weights().map(|w| &w[range])
            } else {
                None
            };
            let mut c = Counters {
                edges: targets.len() as u64,
                updates: 0,
            };
            for (k, &v) in targets.iter().enumerate() {
                let w = weights.map_or(<P::Weight as Weight>::ONE, |w| w[k]);
                let Some(cand) = P::relax(su, w) else {
                    continue;
                };
                let cell = &cells[v as usize];
                if P::IDEMPOTENT {
                    // Cheap read first: most arrivals on skewed graphs change nothing.
                    let cur = P::State::load(cell);
                    if combine::<P>(cur, cand) == cur {
                        continue;
                    }
                }
                let old = P::State::fetch_combine(cell, P::COMBINE, cand, P::combine);
                if combine::<P>(old, cand) != old {
                    c.updates += 1;
                    next.insert(v);
                }
            }
            c
        })
        .reduce(Counters::default, |a, b| a + b)
}

fn pull_round<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &[u32],
    frontier_state: P::State,
    next: &Bitmap,
) -> Counters {
    let Some(cand) = P::relax(frontier_state, <P::Weight as Weight>::ONE) else {
        return Counters::default();
    };
    let n = cells.len();
    let in_frontier = Bitmap::new(n);
    in_frontier.fill_from(frontier);
    let csc = g.csc();
    (0..n as u32)
        .into_par_iter()
        .with_min_len(256)
        .map(|v| {
            let cell = &cells[v as usize];
            let cur = P::State::load(cell);
            if combine::<P>(cur, cand) == cur {
                return Counters::default();
            }
            let mut c = Counters::default();
            for &u in csc.neighbors(v) {
                c.edges += 1;
                if in_frontier.contains(u) {
                    // Only this task writes `v` in a pull round.
                    P::State::store(cell, combine::<P>(cur, cand));
                    c.updates += 1;
                    next.insert(v);
                    break;
                }
            }
            c
        })
        .reduce(Counters::default, |a, b| a + b)
}
