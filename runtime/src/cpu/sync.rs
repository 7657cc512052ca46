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
//! push the state each frontier vertex had at the start of the round; under `sum`,
//! only what arrived since the vertex's last push (`AtomicState::sum_since`: on
//! 0→1, 0→2, 1→2, 2→3, vertex 2 receives 1 in two rounds, and pushing its whole
//! state the second time counted three walks to 3 instead of two).
//!
//! Single-source programs that can pull (BFS) run their levels in the `level` module
//! instead: one team of workers for the whole run, a spinning barrier per level,
//! gapbs's sliding queue. The rounds below serve everything else (and take over
//! from `level` if a program's candidate could improve its own frontier).
//!
//! Data layout follows gapbs: push rounds read a queue and append to the next one
//! through per-worker buffers (one `fetch_add` per buffer); pull rounds read the
//! frontier as a bitmap and write the next one word by word, and the frontier
//! stays a bitmap while the engine keeps pulling. Nothing is allocated per round.
//! When the frontier is known to be uniform with state `s` and `relax(s)` cannot
//! improve `s` (BFS), every vertex changes at most once per round, so the
//! de-duplicating bitmap is skipped and the next frontier is uniform by
//! construction (no scan to check it).
//!
//! Rounds whose frontier has few edges (a road's or a chain's thousands of
//! small levels) run on the calling worker alone: no parallel call, and the
//! next frontier listed as it arrives instead of found by a scan of the whole
//! de-duplicating bitmap (`small_round`; widest on a 100,000-vertex chain,
//! 2 cores: 0.27 s → 5 ms).

use std::time::Instant;

use core::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::frontier::{Bitmap, LocalIds, Queue};
use super::level::Outcome;
use super::{in_pool_pinned, unload, CpuOptions, Direction, RunReport, RunResult};
use crate::error::Result;
use crate::graph::{Csr, Graph, Weight};
use crate::program::{check_source, AtomicState, Combine, Schedule, VertexProgram};

const ALPHA: u64 = 15;
const BETA: u64 = 18;

/// Frontier vertices per parallel task in push rounds.
const PUSH_GRAIN: usize = 64;

/// A push round over at most this many frontier vertices with at most
/// [`SMALL_ROUND_EDGES`] out-edges in all runs on the calling worker alone.
const SMALL_ROUND_VERTICES: usize = 256;
const SMALL_ROUND_EDGES: u64 = 4096;

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
    run_pinned::<P>(g, source, opts, false)
}

/// [`run`] in a pool whose workers are pinned one per CPU if `pin`.
pub fn run_pinned<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    pin: bool,
) -> Result<RunResult<P::State>> {
    let n = g.num_vertices();
    if P::NEEDS_SOURCE {
        check_source(source, n)?;
    }
    super::check_weights::<P>(g)?;
    let (result, threads) = in_pool_pinned(opts.threads, pin, || {
        run_in_pool::<P>(g, source, opts.direction)
    })?;
    let mut result = result;
    result.report.threads = threads;
    Ok(result)
}

/// Where the current frontier lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `cur` queue.
    Queue,
    /// `cur_bits` bitmap.
    Bits,
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
    let mut report = RunReport {
        schedule: Some(Schedule::Sync),
        ..RunReport::default()
    };
    let pull_capable =
        !P::WEIGHTED && P::IDEMPOTENT && matches!(P::COMBINE, Combine::Min | Combine::Max);
    // BFS-like: levels run by a kept team of workers (see `level`).
    let handed = if P::NEEDS_SOURCE && pull_capable {
        match super::level::run::<P>(g, &cells, source, direction, &mut report) {
            Outcome::Done => {
                report.time = t0.elapsed();
                return RunResult {
                    states: unload::<P::State>(cells),
                    report,
                };
            }
            Outcome::Handover(front) => Some(front),
        }
    } else {
        None
    };
    // Allocated only here, where the rounds need them: a BFS the level team
    // finished never touches them, and a queue of one slot per vertex is
    // zero-filled by `calloc` on the calling thread once the allocator reuses
    // freed memory — a sequential 16 MB `memset` per queue on Kronecker 22,
    // inside the timed region.
    let mut cur = Queue::new(n);
    let mut next = Queue::new(n);
    if let Some(front) = handed {
        cur.append(&front);
    } else if P::NEEDS_SOURCE {
        cur.append(&[source]);
    } else {
        (0..n as u32)
            .into_par_iter()
            .chunks(LOCAL_IDS_CHUNK)
            .for_each(|ids| {
                cur.append(&ids);
            });
    }
    // Under `sum`, what each vertex has pushed so far (zero to start).
    let pushed: Option<Vec<<P::State as AtomicState>::Atomic>> =
        (P::COMBINE == Combine::Sum && n > 0).then(|| {
            let s = P::init(0, source);
            let zero = P::State::sum_since(s, s).unwrap_or(s);
            (0..n)
                .into_par_iter()
                .map(|_| P::State::new_atomic(zero))
                .collect()
        });
    let dedup = Bitmap::new(n);
    let mut cur_bits = Bitmap::new(0);
    let mut next_bits = Bitmap::new(0);
    let mut form = Form::Queue;
    let mut frontier_len = cur.len();
    let track_uniform = pull_capable && direction != Direction::Push;
    let mut uniform = if track_uniform {
        uniform_state::<P>(&cells, cur.ids())
    } else {
        None
    };
    let total_edges = csr.num_edges();
    let mut explored_edges = 0u64;
    let mut pulling = direction == Direction::Pull;

    while frontier_len > 0 {
        report.rounds += 1;
        if direction == Direction::Auto {
            if uniform.is_some() {
                if !pulling {
                    // Beamer's scout count, summed here in one parallel pass over
                    // the queue: inside the push loop the degree lookup is a cache
                    // miss right after a locked instruction, which serializes it.
                    let fe = degree_sum(csr, cur.ids());
                    explored_edges += fe;
                    let unexplored = total_edges.saturating_sub(explored_edges);
                    pulling = fe > unexplored / ALPHA;
                } else if (frontier_len as u64) < n as u64 / BETA {
                    pulling = false;
                }
            } else {
                pulling = false;
            }
        }
        let counters = match (pulling, uniform) {
            (true, Some(s)) => {
                report.pull_rounds += 1;
                if form == Form::Queue {
                    if cur_bits.len() != n {
                        cur_bits = Bitmap::new(n);
                        next_bits = Bitmap::new(n);
                    } else {
                        cur_bits.clear();
                    }
                    cur.ids().par_iter().with_min_len(1024).for_each(|v| {
                        cur_bits.insert(v.load(Ordering::Relaxed));
                    });
                    form = Form::Bits;
                }
                let c = pull_round::<P>(g, &cells, &cur_bits, s, &next_bits);
                std::mem::swap(&mut cur_bits, &mut next_bits);
                // Every vertex that joined holds exactly `relax(s)`.
                uniform = P::relax(s, <P::Weight as Weight>::ONE);
                frontier_len = c.updates as usize;
                c
            }
            _ => {
                if form == Form::Bits {
                    cur.reset();
                    cur.fill_from_bitmap(&cur_bits);
                    form = Form::Queue;
                }
                // BFS case: no frontier vertex can be improved by this round's single
                // candidate, so each target changes at most once and to that candidate.
                let unique = uniform.and_then(|s| {
                    let cand = P::relax(s, <P::Weight as Weight>::ONE)?;
                    (combine::<P>(s, cand) == s).then_some(cand)
                });
                let small = small_round(csr, cur.ids());
                let arrivals = match (unique, small) {
                    (Some(_), _) => Arrivals::Unique,
                    (None, false) => Arrivals::Bits(&dedup),
                    (None, true) => Arrivals::Listed(&dedup),
                };
                let c = push_round::<P>(
                    g,
                    &cells,
                    cur.ids(),
                    &next,
                    arrivals,
                    small,
                    pushed.as_deref(),
                );
                match arrivals {
                    Arrivals::Unique => {}
                    // The de-duplicated arrivals, in memory order (locality matters
                    // for the many rounds of weighted programs).
                    Arrivals::Bits(d) => next.take_from_bitmap(d),
                    // Listed as they came: clear just their bits.
                    Arrivals::Listed(d) => {
                        for v in next.ids() {
                            d.remove(v.load(Ordering::Relaxed));
                        }
                    }
                }
                std::mem::swap(&mut cur, &mut next);
                next.reset();
                frontier_len = cur.len();
                uniform = match unique {
                    Some(cand) => Some(cand),
                    None if track_uniform => uniform_state::<P>(&cells, cur.ids()),
                    None => None,
                };
                c
            }
        };
        report.edges_relaxed += counters.edges;
        report.updates += counters.updates;
    }
    report.time = t0.elapsed();
    RunResult {
        states: unload::<P::State>(cells),
        report,
    }
}

/// Ids per append when seeding every vertex.
const LOCAL_IDS_CHUNK: usize = 4096;

fn degree_sum<W: Weight>(csr: &Csr<W>, ids: &[AtomicU32]) -> u64 {
    ids.par_iter()
        .with_min_len(1024)
        .map(|u| csr.degree(u.load(Ordering::Relaxed)))
        .sum()
}

/// Whether a push round over `frontier` is small enough to run on the calling
/// worker alone (see [`SMALL_ROUND_VERTICES`]).
fn small_round<W: Weight>(csr: &Csr<W>, frontier: &[AtomicU32]) -> bool {
    frontier.len() <= SMALL_ROUND_VERTICES
        && frontier
            .iter()
            .map(|u| csr.degree(u.load(Ordering::Relaxed)))
            .sum::<u64>()
            <= SMALL_ROUND_EDGES
}

/// The common state of the frontier, if all members share one.
fn uniform_state<P: VertexProgram>(
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &[AtomicU32],
) -> Option<P::State> {
    let first = P::State::load(&cells[frontier.first()?.load(Ordering::Relaxed) as usize]);
    let same = |u: &AtomicU32| P::State::load(&cells[u.load(Ordering::Relaxed) as usize]) == first;
    if frontier.len() <= SMALL_ROUND_VERTICES {
        frontier.iter().all(same)
    } else {
        frontier.par_iter().all(same)
    }
    .then_some(first)
}

/// Where a push round records the targets it changed.
#[derive(Clone, Copy)]
enum Arrivals<'a> {
    /// Each target changes at most once a round (BFS): straight into the queue.
    Unique,
    /// Bits only; the caller builds the queue from them in memory order.
    Bits(&'a Bitmap),
    /// Bits to drop repeats, and the first arrival straight into the queue (the
    /// caller clears the bits of the queue's ids): small rounds, where a scan
    /// of the whole bitmap would cost more than the round.
    Listed(&'a Bitmap),
}

#[inline]
fn combine<P: VertexProgram>(old: P::State, new: P::State) -> P::State {
    match P::COMBINE {
        Combine::Custom => P::combine(old, new),
        k => P::State::combine_with(k, old, new),
    }
}

/// One top-down round: `frontier` → `next`, recording arrivals as `arrivals`
/// says; on the calling worker alone if `alone` (a [`small_round`]). `pushed`
/// (under `sum`): what each vertex pushed before; a frontier vertex pushes the
/// difference and records its state there (it is in the frontier once).
fn push_round<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &[AtomicU32],
    next: &Queue,
    arrivals: Arrivals<'_>,
    alone: bool,
    pushed: Option<&[<P::State as AtomicState>::Atomic]>,
) -> Counters {
    let csr = g.csr();
    // Non-idempotent reductions must not see this round's own arrivals.
    let load = |u: &AtomicU32| P::State::load(&cells[u.load(Ordering::Relaxed) as usize]);
    let snapshot: Option<Vec<P::State>> = (!P::IDEMPOTENT).then(|| {
        if alone {
            frontier.iter().map(load).collect()
        } else {
            frontier.par_iter().map(load).collect()
        }
    });
    // Small frontiers (the first BFS rounds: a few hubs) get small tasks, so that
    // every worker has some; large ones get gapbs's 64.
    let grain = (frontier.len() / (8 * rayon::current_num_threads()).max(1)).clamp(1, PUSH_GRAIN);
    let task = |(ci, chunk): (usize, &[AtomicU32])| {
        let mut buf = LocalIds::default();
        let mut c = Counters::default();
        for (j, u) in chunk.iter().enumerate() {
            let u = u.load(Ordering::Relaxed);
            let su = match (&snapshot, pushed) {
                (Some(s), Some(p)) => {
                    let now = s[ci * grain + j];
                    let before = P::State::load(&p[u as usize]);
                    P::State::store(&p[u as usize], now);
                    P::State::sum_since(now, before).unwrap_or(now)
                }
                (Some(s), None) => s[ci * grain + j],
                (None, _) => P::State::load(&cells[u as usize]),
            };
            let range = csr.edge_range(u);
            if range.len() >= HEAVY_DEGREE {
                // A hub: its edges are shared out like frontier vertices.
                c = c + push_heavy::<P>(csr, cells, su, range, next, arrivals);
            } else {
                push_edges::<P>(csr, cells, su, range, next, arrivals, &mut buf, &mut c);
            }
        }
        buf.flush(next);
        c
    };
    if alone {
        frontier
            .chunks(grain)
            .enumerate()
            .map(task)
            .fold(Counters::default(), |a, b| a + b)
    } else {
        frontier
            .par_chunks(grain)
            .enumerate()
            .map(task)
            .reduce(Counters::default, |a, b| a + b)
    }
}

/// Out-degree from which a frontier vertex's edges are split over workers.
const HEAVY_DEGREE: usize = 4 * EDGE_GRAIN;

/// Edges per parallel task when a hub's edges are split.
const EDGE_GRAIN: usize = 2048;

/// The edges `range` of one hub with state `su`, in parallel.
fn push_heavy<P: VertexProgram>(
    csr: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    su: P::State,
    range: std::ops::Range<usize>,
    next: &Queue,
    arrivals: Arrivals<'_>,
) -> Counters {
    let (lo, hi) = (range.start, range.end);
    (lo..hi)
        .into_par_iter()
        .step_by(EDGE_GRAIN)
        .map(|a| {
            let mut buf = LocalIds::default();
            let mut c = Counters::default();
            let b = (a + EDGE_GRAIN).min(hi);
            push_edges::<P>(csr, cells, su, a..b, next, arrivals, &mut buf, &mut c);
            buf.flush(next);
            c
        })
        .reduce(Counters::default, |a, b| a + b)
}

/// Relaxes the edges `range` (of one vertex with state `su`) and records the
/// targets that changed as `arrivals` says (`buf` is bound for `next`).
#[allow(clippy::too_many_arguments)]
#[inline]
fn push_edges<P: VertexProgram>(
    csr: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    su: P::State,
    range: std::ops::Range<usize>,
    next: &Queue,
    arrivals: Arrivals<'_>,
    buf: &mut LocalIds,
    c: &mut Counters,
) {
    let (targets, weights) = super::operator::edge_slices::<P>(csr, range);
    c.edges += targets.len() as u64;
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
            match arrivals {
                Arrivals::Unique => buf.push(next, v),
                Arrivals::Bits(d) => {
                    d.insert(v);
                }
                Arrivals::Listed(d) => {
                    if d.insert(v) {
                        buf.push(next, v);
                    }
                }
            }
        }
    }
}

/// Vertices per parallel task in pull rounds (a multiple of 64: whole words).
const PULL_GRAIN_WORDS: usize = 4;

/// One bottom-up round: every vertex the candidate can still improve looks for a
/// frontier member among its in-neighbours and stops at the first. Each task owns
/// whole words of `next`, so the bits are stored without atomics.
fn pull_round<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    frontier: &Bitmap,
    frontier_state: P::State,
    next: &Bitmap,
) -> Counters {
    let Some(cand) = P::relax(frontier_state, <P::Weight as Weight>::ONE) else {
        (0..next.num_words()).for_each(|w| next.store_word(w, 0));
        return Counters::default();
    };
    let n = cells.len();
    let csc = g.csc();
    (0..next.num_words())
        .into_par_iter()
        .with_min_len(PULL_GRAIN_WORDS)
        .map(|w| {
            let (bits, edges, updates) =
                super::level::pull_word::<P>(csc, cells, cand, frontier, w, n);
            next.store_word(w, bits);
            Counters { edges, updates }
        })
        .reduce(Counters::default, |a, b| a + b)
}

/// The level engine ([`super::level`]) seen through the rounds that call it.
#[cfg(test)]
mod tests {
    use crate::cpu::{sync, CpuOptions, Direction};
    use crate::graph::{build, BuildOptions, EdgeList};
    use crate::program::{Combine, Schedule, VertexProgram};

    /// A BFS-shaped program whose candidate improves the frontier's own state
    /// (`relax` counts down under `min`): the team must hand over at once.
    #[derive(Clone, Copy)]
    struct Countdown;

    impl VertexProgram for Countdown {
        type State = u32;
        type Weight = u32;
        const NAME: &'static str = "countdown_test";
        const COMBINE: Combine = Combine::Min;
        const IDEMPOTENT: bool = true;
        const WEIGHTED: bool = false;
        const NEEDS_SOURCE: bool = true;
        const HAS_PRIORITY: bool = false;
        const SEMIRING: bool = false;
        const SCHEDULES: &'static [Schedule] = &[Schedule::Sync];
        fn init(v: u32, source: u32) -> u32 {
            if v == source {
                5
            } else {
                u32::MAX
            }
        }
        fn relax(s: u32, _w: u32) -> Option<u32> {
            s.checked_sub(1)
        }
        fn combine(a: u32, b: u32) -> u32 {
            a.min(b)
        }
        fn priority(s: u32) -> u32 {
            s
        }
    }

    #[test]
    fn a_candidate_that_improves_the_frontier_hands_over() {
        let mut el = EdgeList::<u32>::new(4);
        el.edges = vec![[0, 1], [1, 2]];
        let g = build(&el, BuildOptions::undirected()).unwrap();
        for d in [Direction::Push, Direction::Pull, Direction::Auto] {
            for t in [1, 3] {
                let o = CpuOptions {
                    threads: Some(t),
                    direction: d,
                };
                let r = sync::run::<Countdown>(&g, 0, &o).unwrap();
                // Levels alternate between {1} and {0, 2} counting down until 1
                // holds 0 (whose relax is `None`); vertex 3 is isolated.
                assert_eq!(r.states, vec![1, 0, 1, u32::MAX], "{d:?} t{t}");
            }
        }
    }
}
