//! Direction-optimizing levels for BFS-like programs, run by a team of workers
//! kept for the whole traversal — the structure of gapbs `bfs` (one OpenMP team,
//! a barrier per level) instead of a rayon parallel call per level.
//!
//! Why: a level of a 1000² grid holds a few hundred vertices and the grid has
//! about two thousand levels. Under [`super::sync`]'s generic rounds each level
//! costs several rayon calls (scout count, push, reduction), and each wakes the
//! pool's sleeping workers: at two threads that overhead alone made the grid
//! slower than at one. Here the workers meet at a spinning barrier
//! ([`SpinBarrier`]) once per level and never sleep in between.
//!
//! When it applies: a single-source program that [`super::sync`] may pull
//! (unweighted, idempotent, `min`/`max` combine). Its frontier is *uniform* (every
//! member holds the level's state `s`), so a level's candidate is `c = relax(s)`.
//! While `c` never improves `s` (BFS: `s + 1` does not beat `s`), a vertex changes
//! at most once in the whole run, so:
//! * the frontier queue is gapbs's *sliding queue*: one array with a slot per
//!   vertex, each level's window following the previous one, never reset;
//! * a push (top-down) level needs no de-duplicating bitmap;
//! * a pull (bottom-up) level tests each unvisited vertex's in-neighbours against
//!   the frontier bitmap and stops at the first hit, writing whole words of the
//!   next bitmap without atomics.
//!
//! The first level whose candidate would improve `s` (no shipped program has
//! one) hands the frontier back to [`super::sync`]'s generic rounds.
//!
//! Direction switching follows gapbs: pull once the frontier's out-edges exceed
//! the unexplored edges / α; keep pulling while the frontier grows or is above
//! n / β; after pulling, the next scout count starts at 1.
//!
//! Protocol. Every worker runs the same loop and takes the same decisions from
//! values it reads after a barrier. Work inside a phase is handed out in chunks
//! from a shared cursor (OpenMP's `schedule(dynamic)`). Each phase `p` uses slot
//! `p % 3` (cursor and sums); worker 0 zeroes slot `(p + 1) % 3` at the start of
//! phase `p`: every reader of that slot's previous use finished before the barrier
//! that opened phase `p`, and its next writers start after the barrier that closes
//! it.

use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use super::barrier::SpinBarrier;
mod bottom_up;

pub(super) use bottom_up::pull_word;
use bottom_up::{candidates, pull_word_masked};

use super::frontier::{Bitmap, LocalIds, Queue};
use super::operator::combine;
use super::prefetch::{prefetch, prefetch_walk};
use super::{Direction, RunReport};
use crate::graph::{Graph, Weight};
use crate::program::{AtomicState, VertexProgram};

const ALPHA: u64 = 15;
const BETA: u64 = 18;

/// Most frontier vertices per grab in push levels (gapbs's `dynamic, 64`).
const PUSH_GRAIN: usize = 64;

/// Out-edges a push grab aims at: the grain is this over the frontier's mean
/// degree (capped by [`PUSH_GRAIN`]), so work is split by edges rather than by
/// vertices — a few hubs get a grab each, a grid level's low-degree vertices
/// share one.
const PUSH_GRAB_EDGES: u64 = 1024;

/// Out-edges per worker up to which a push level is split evenly by vertices
/// (OpenMP's default `schedule(static)`, as gapbs's top-down step) instead of
/// grabbed from the shared cursor. A grid's levels (a few thousand edges) are
/// all this small, and their grabs were the cost: every grab is a locked
/// instruction on the one line all workers write (1000² grid from vertex 0,
/// 2 threads, 2-core machine, best of 20: 27.5–28.5 → 21.7–22.4 ms; gapbs
/// 21.0). Larger levels keep the cursor, which balances hubs; below this a
/// worker's share is too small for an uneven split to cost much.
const PUSH_STATIC_EDGES: u64 = 4096;

/// Mean out-degree up to which a push level is split evenly by vertices
/// whatever its size: vertices of low degree cost about the same, so an even
/// split is balanced, and it keeps each worker on the part of the wavefront it
/// found (see [`Chunk`]), where grabs from the cursor interleave the workers'
/// parts (1000² grid BFS, 2 threads, 2-core machine: levels over
/// `PUSH_STATIC_EDGES` per worker took 35 → 25 ms from one root).
const PUSH_STATIC_DEGREE: u64 = 8;

/// Bitmap words per grab in pull levels (1024 vertices, gapbs's `dynamic, 1024`).
const PULL_GRAIN_WORDS: usize = 16;

/// Queue ids or bitmap words per grab in the frontier conversions.
const CONVERT_GRAIN: usize = 1024;

/// What [`run`] left to do.
pub(super) enum Outcome {
    /// The traversal is complete.
    Done,
    /// A level's candidate would improve the frontier's own state: the generic
    /// rounds take over from this frontier.
    Handover(Vec<u32>),
}

/// One phase's cursor and sums.
#[derive(Default)]
struct Slot {
    cursor: AtomicUsize,
    /// Vertices that joined the next frontier.
    found: AtomicU64,
    /// Out-degrees of those vertices (push levels: Beamer's scout count).
    scout: AtomicU64,
    /// Out-edges the level scanned (push levels).
    edges: AtomicU64,
}

impl Slot {
    fn reset(&self) {
        self.cursor.store(0, Ordering::Relaxed);
        self.found.store(0, Ordering::Relaxed);
        self.scout.store(0, Ordering::Relaxed);
        self.edges.store(0, Ordering::Relaxed);
    }

    /// The next chunk `[lo, lo + grain)` of `0..len`, if any is left.
    #[inline]
    fn grab(&self, grain: usize, len: usize) -> Option<core::ops::Range<usize>> {
        let lo = self.cursor.fetch_add(grain, Ordering::Relaxed);
        (lo < len).then(|| lo..(lo + grain).min(len))
    }
}

/// Where a worker's arrivals of one push level went in the queue. The next
/// level's frontier is the workers' blocks in worker order, and an even split
/// of that order gives each worker mostly the block it appended itself: the
/// vertices it found, whose states and neighbours are in its own cache. The
/// queue's own order is the order the workers finished in, which changes from
/// level to level; split by it, the workers' parts of a grid's wavefront got
/// interleaved and every line of states moved between cores (1000² grid BFS,
/// 2 threads, 2-core machine: each worker's half of a level took as long as
/// one worker's whole level).
#[derive(Default)]
struct Chunk {
    start: AtomicUsize,
    count: AtomicUsize,
}

impl Chunk {
    fn set(&self, start: usize, count: usize) {
        self.start.store(start, Ordering::Relaxed);
        self.count.store(count, Ordering::Relaxed);
    }

    fn get(&self) -> (usize, usize) {
        (
            self.start.load(Ordering::Relaxed),
            self.count.load(Ordering::Relaxed),
        )
    }
}

/// A push level as [`Worker::push`] takes it.
struct PushLevel<'a, S> {
    slot: &'a Slot,
    /// The frontier's candidate state.
    cand: S,
    /// The frontier in the queue.
    window: core::ops::Range<usize>,
    /// The table of blocks the window is made of, if a push level wrote it.
    order: Option<usize>,
    /// The frontier's out-edges (or a bound on them).
    scout: u64,
}

/// The table of [`Shared::chunks`] a push level writes when its window is made
/// of table `order`: the other one (either, when no table describes the window).
fn table_written(order: Option<usize>) -> usize {
    order.map_or(0, |o| 1 - o)
}

/// What one worker's share of a push level relaxed.
#[derive(Default)]
struct Expanded {
    edges: u64,
    found: u64,
    scout: u64,
}

/// What the team shares.
struct Shared {
    /// The sliding queue: every vertex is appended at most once per run.
    queue: Queue,
    /// Frontier bitmaps of pull levels, current and next by turns.
    bits: [Bitmap; 2],
    /// Pull candidates: a superset of the vertices a pull level can still
    /// change that have in-edges (see [`pull_word_masked`]). Written whole by
    /// the first pull level, then only cleared bit by bit.
    remaining: Bitmap,
    slots: [CachePadded<Slot>; 3],
    /// Push levels' blocks by turns (see [`Chunk`]): a level reads the table
    /// its predecessor wrote and writes the other one, which nobody reads
    /// any more (its readers finished before the barrier that opened this level).
    chunks: [Vec<CachePadded<Chunk>>; 2],
    barrier: SpinBarrier,
}

/// Where a worker's copy of the frontier lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `queue[lo..hi]`.
    Queue,
    /// `bits[b]`.
    Bits,
}

/// Per-worker result.
#[derive(Default)]
struct Tally {
    edges: u64,
    updates: u64,
    rounds: u64,
    pull_rounds: u64,
    /// Where the frontier was when a handover was decided (worker 0 only).
    handover: Option<(Form, core::ops::Range<usize>, usize)>,
}

/// Runs `P` from `source` on the states `cells` (already initialised) with the
/// threads of the current rayon pool. The caller checked that `P` is pull-capable
/// and single-source.
pub(super) fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    source: u32,
    direction: Direction,
    report: &mut RunReport,
) -> Outcome {
    let n = cells.len();
    let threads = rayon::current_num_threads();
    let max_degree = g.max_out_degree();
    let sh = Shared {
        queue: Queue::new(n),
        // Unspecified contents: `queue_to_bits` clears a bitmap before setting
        // its bits, a pull level stores every word of the next one.
        bits: [Bitmap::scratch(n), Bitmap::scratch(n)],
        // Unspecified contents: the first pull level stores every word.
        remaining: Bitmap::scratch(n),
        slots: Default::default(),
        chunks: [0, 1].map(|_| (0..threads).map(|_| Default::default()).collect()),
        barrier: SpinBarrier::new(threads),
    };
    sh.queue.append(&[source]);
    let tallies = rayon::broadcast(|ctx| {
        let w = Worker::<P> {
            g,
            cells,
            sh: &sh,
            me: ctx.index(),
            workers: threads,
            max_degree,
            alone: threads == 1,
        };
        // A panic in user code must not leave the other workers at the barrier.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            w.run(P::State::load(&cells[source as usize]), direction)
        })) {
            Ok(t) => t,
            Err(p) => {
                sh.barrier.poison();
                std::panic::resume_unwind(p)
            }
        }
    });
    report.rounds += tallies[0].rounds;
    report.pull_rounds += tallies[0].pull_rounds;
    for t in &tallies {
        report.edges_relaxed += t.edges;
        report.updates += t.updates;
    }
    match tallies.into_iter().find_map(|t| t.handover) {
        Some((Form::Queue, window, _)) => {
            Outcome::Handover(window.map(|i| sh.queue.get(i)).collect())
        }
        Some((Form::Bits, _, b)) => Outcome::Handover(sh.bits[b].to_queue()),
        None => Outcome::Done,
    }
}

struct Worker<'a, P: VertexProgram> {
    g: &'a Graph<P::Weight>,
    cells: &'a [<P::State as AtomicState>::Atomic],
    sh: &'a Shared,
    me: usize,
    workers: usize,
    /// The graph's largest out-degree: a frontier of `k` vertices has at most
    /// `k · max_degree` out-edges.
    max_degree: u64,
    /// The only worker: push levels update states with plain stores.
    alone: bool,
}

impl<P: VertexProgram> Worker<'_, P> {
    /// Opens phase `phase`: worker 0 zeroes the slot the phase after it uses.
    #[inline]
    fn open(&self, phase: usize) -> &Slot {
        if self.me == 0 {
            self.sh.slots[(phase + 1) % 3].reset();
        }
        &self.sh.slots[phase % 3]
    }

    /// The level loop, from the source's state `s0`. Every worker takes the same
    /// decisions: they depend only on values read after a barrier.
    fn run(&self, s0: P::State, direction: Direction) -> Tally {
        let sh = self.sh;
        let csr = self.g.csr();
        let n = self.cells.len();
        let mut t = Tally::default();
        let mut phase = 0usize;
        let mut s = s0;
        let (mut lo, mut hi) = (0usize, 1usize);
        let mut form = Form::Queue;
        let mut b = 0usize;
        let mut len = 1u64;
        let mut scout = csr.degree(sh.queue.get(0));
        // Whether `scout` is the frontier's out-edge count or only a bound on
        // it (after a level that did not read degrees).
        let mut exact = true;
        // Whether `scout` is at least the frontier's out-edge count (not after
        // a pull level: then it is gapbs's restart value 1).
        let mut bounded = true;
        let mut edges_to_check = csr.num_edges();
        let mut pulling = direction == Direction::Pull;
        let (mut awake, mut old_awake) = (0u64, 0u64);
        // Whether `remaining` holds the candidates (a pull level has run).
        let mut masked = false;
        // The table of blocks the frontier is made of (`Chunk`), if a push
        // level wrote it.
        let mut order = None;
        let mut buf = Vec::new();
        while len > 0 {
            let Some(cand) = P::relax(s, <P::Weight as Weight>::ONE) else {
                break; // nothing can change any more
            };
            if combine::<P>(s, cand) != s {
                if self.me == 0 {
                    t.handover = Some((form, lo..hi, b));
                }
                break;
            }
            if direction == Direction::Auto {
                if pulling && !(awake >= old_awake || awake > n as u64 / BETA) {
                    pulling = false;
                    scout = 1;
                    exact = true;
                    bounded = false;
                }
                if !pulling {
                    // A bound only after a level that skipped the degrees,
                    // which it did only when the bound stays under the
                    // threshold (see `lazy` below).
                    debug_assert!(exact || scout <= edges_to_check / ALPHA);
                    if scout > edges_to_check / ALPHA {
                        pulling = true;
                        awake = len;
                    } else if exact {
                        edges_to_check = edges_to_check.saturating_sub(scout);
                    }
                    // Else `scout` is only a bound: the level's exact edges come
                    // off `edges_to_check` once it has counted them (`owed`).
                }
            }
            t.rounds += 1;
            if pulling {
                t.pull_rounds += 1;
                if form == Form::Queue {
                    if !self.queue_to_bits(&mut phase, lo, hi, b) {
                        return t;
                    }
                    lo = hi;
                    form = Form::Bits;
                }
                let slot = self.open(phase);
                self.pull(slot, cand, b, masked, &mut t);
                if !sh.barrier.wait() {
                    return t;
                }
                masked = true;
                phase += 1;
                b = 1 - b;
                old_awake = awake;
                awake = slot.found.load(Ordering::Relaxed);
                len = awake;
            } else {
                if form == Form::Bits {
                    match self.bits_to_queue(&mut phase, b) {
                        Some(count) => hi = lo + count,
                        None => return t,
                    }
                    form = Form::Queue;
                    order = None;
                }
                // Degrees of the vertices this level finds are read only if
                // the next decision may need them. When even a bound on the
                // next frontier's out-edges (this level's edges times the
                // largest degree) stays under the switch threshold, the next
                // level cannot switch to pulling, and this level's own edges
                // come off `edges_to_check` as it counts them. On a grid that
                // skips a cache miss per vertex found (its offsets line, 30 %
                // of a one-thread level's samples; 1000² grid from vertex 0,
                // 2-core machine, best of 20: 32.5–33.3 → 29.7 ms at one
                // thread, 22.6 → 20.6–21.3 at two).
                // Whether this frontier's out-edges are still to come off
                // `edges_to_check` (counted while expanding it).
                let owed = direction == Direction::Auto && !exact;
                let left = if owed {
                    edges_to_check.saturating_sub(scout)
                } else {
                    edges_to_check
                };
                let lazy = direction != Direction::Auto
                    || (bounded && scout.saturating_mul(self.max_degree) <= left / ALPHA);
                let slot = self.open(phase);
                let level = PushLevel {
                    slot,
                    cand,
                    window: lo..hi,
                    order,
                    scout,
                };
                match (self.alone, lazy) {
                    (true, true) => self.push::<true, true>(level, &mut buf, &mut t),
                    (true, false) => self.push::<true, false>(level, &mut buf, &mut t),
                    (false, true) => self.push::<false, true>(level, &mut buf, &mut t),
                    (false, false) => self.push::<false, false>(level, &mut buf, &mut t),
                }
                if !sh.barrier.wait() {
                    return t;
                }
                phase += 1;
                order = Some(table_written(order));
                // From the slot, not the queue's tail: a worker already past the
                // barrier may be appending the next level.
                len = slot.found.load(Ordering::Relaxed);
                lo = hi;
                hi = lo + len as usize;
                if owed {
                    edges_to_check =
                        edges_to_check.saturating_sub(slot.edges.load(Ordering::Relaxed));
                }
                if lazy {
                    scout = len.saturating_mul(self.max_degree);
                    exact = false;
                } else {
                    scout = slot.scout.load(Ordering::Relaxed);
                    exact = true;
                }
                bounded = true;
            }
            s = cand;
        }
        t
    }

    /// Two phases: clear `bits[b]`, then set the bits of `queue[lo..hi]`.
    fn queue_to_bits(&self, phase: &mut usize, lo: usize, hi: usize, b: usize) -> bool {
        let sh = self.sh;
        let bits = &sh.bits[b];
        let slot = self.open(*phase);
        while let Some(r) = slot.grab(CONVERT_GRAIN, bits.num_words()) {
            for w in r {
                bits.store_word(w, 0);
            }
        }
        *phase += 1;
        if !sh.barrier.wait() {
            return false;
        }
        let slot = self.open(*phase);
        while let Some(r) = slot.grab(CONVERT_GRAIN, hi - lo) {
            for i in r {
                bits.insert(sh.queue.get(lo + i));
            }
        }
        *phase += 1;
        sh.barrier.wait()
    }

    /// One phase: append the set bits of `bits[b]` to the queue; returns how many
    /// (`None`: the barrier was poisoned).
    fn bits_to_queue(&self, phase: &mut usize, b: usize) -> Option<usize> {
        let sh = self.sh;
        let bits = &sh.bits[b];
        let slot = self.open(*phase);
        let mut buf = LocalIds::default();
        let nw = bits.num_words();
        let mut count = 0u64;
        while let Some(r) = slot.grab(CONVERT_GRAIN / 16, nw) {
            for wi in r {
                let mut w = bits.word(wi);
                count += u64::from(w.count_ones());
                while w != 0 {
                    let i = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    buf.push(&sh.queue, i as u32);
                }
            }
        }
        buf.flush(&sh.queue);
        slot.found.fetch_add(count, Ordering::Relaxed);
        *phase += 1;
        sh.barrier
            .wait()
            .then(|| slot.found.load(Ordering::Relaxed) as usize)
    }

    /// A top-down level over `queue[window]`, whose vertices have `scout`
    /// out-edges in all: arrivals of `cand` that change a state join the queue
    /// past the window, in one block per worker (`buf` holds them until the
    /// level ends), whose place this worker records in the other table of
    /// `chunks` ([`table_written`]). `order`:
    /// the table of the blocks that make up the window, if a push level wrote
    /// them (see [`Chunk`]). `ALONE`: this is the only worker, so an arrival that
    /// improves a state stores it plainly: a locked update is a full fence on
    /// x86 that keeps the next edges' loads from starting before it retires
    /// (1000² grid, 1 thread, 2-core machine: 28.7 → 27.7 ms).
    fn push<const ALONE: bool, const LAZY: bool>(
        &self,
        level: PushLevel<'_, P::State>,
        buf: &mut Vec<u32>,
        t: &mut Tally,
    ) {
        let PushLevel {
            slot,
            cand,
            window,
            order,
            scout,
        } = level;
        let out = table_written(order);
        let sh = self.sh;
        let len = window.len();
        let mut acc = Expanded::default();
        if self.even(len, scout) {
            let (lo, hi) = (
                len * self.me / self.workers,
                len * (self.me + 1) / self.workers,
            );
            match order {
                Some(o) => {
                    let mut before = 0usize;
                    for c in sh.chunks[o].iter() {
                        let (start, count) = c.get();
                        let (a, b) = (lo.max(before), hi.min(before + count));
                        if a < b {
                            let piece = start + a - before..start + b - before;
                            self.expand::<ALONE, LAZY>(
                                piece.clone(),
                                piece.end,
                                cand,
                                buf,
                                &mut acc,
                            );
                        }
                        before += count;
                    }
                }
                None => {
                    let piece = window.start + lo..window.start + hi;
                    self.expand::<ALONE, LAZY>(piece.clone(), piece.end, cand, buf, &mut acc);
                }
            }
        } else {
            // Split by edges: each grab about `PUSH_GRAB_EDGES` out-edges, one
            // grab per hub on a Kronecker graph's first levels.
            let grain =
                (PUSH_GRAB_EDGES * len as u64 / scout.max(1)).clamp(1, PUSH_GRAIN as u64) as usize;
            while let Some(r) = slot.grab(grain, len) {
                let piece = window.start + r.start..window.start + r.end;
                self.expand::<ALONE, LAZY>(piece, window.end, cand, buf, &mut acc);
            }
        }
        let start = sh.queue.append(buf);
        sh.chunks[out][self.me].set(start, buf.len());
        buf.clear();
        let Expanded {
            edges,
            found,
            scout,
        } = acc;
        slot.found.fetch_add(found, Ordering::Relaxed);
        slot.scout.fetch_add(scout, Ordering::Relaxed);
        slot.edges.fetch_add(edges, Ordering::Relaxed);
        t.edges += edges;
        t.updates += found;
    }

    /// Whether a push level of `len` vertices with `scout` out-edges is split
    /// evenly by vertices (see [`PUSH_STATIC_EDGES`], [`PUSH_STATIC_DEGREE`]).
    #[inline]
    fn even(&self, len: usize, scout: u64) -> bool {
        scout <= PUSH_STATIC_EDGES * self.workers as u64 || scout <= PUSH_STATIC_DEGREE * len as u64
    }

    /// Relaxes the out-edges of `queue[piece]` (prefetching up to `ahead`, the
    /// end of the queue range the piece belongs to) into `buf` and `acc`.
    #[inline(always)]
    fn expand<const ALONE: bool, const LAZY: bool>(
        &self,
        piece: core::ops::Range<usize>,
        ahead: usize,
        cand: P::State,
        buf: &mut Vec<u32>,
        acc: &mut Expanded,
    ) {
        let sh = self.sh;
        let csr = self.g.csr();
        let offsets = csr.offsets();
        let targets = csr.targets();
        let cells = self.cells;
        let base = piece.start;
        let reach = ahead - base;
        // Staged prefetches (see `prefetch`): a grid level's vertices lie rows
        // apart, and without them each waits for three dependent misses
        // (1000² grid, one thread, 2-core machine: 38 → 31 ms). A neighbour's
        // offsets too: the degree of every vertex that joins is read below
        // (3 roots, 15 runs each: 95–111 ms vs 98–138 without).
        let at = |k: usize| (k < reach).then(|| sh.queue.get(base + k));
        for i in 0..piece.len() {
            prefetch_walk(at, i, offsets, targets, |&x| {
                prefetch(cells, x as usize);
                if !LAZY {
                    prefetch(offsets, x as usize);
                }
            });
            let u = sh.queue.get(base + i);
            let es = &targets[offsets[u as usize] as usize..offsets[u as usize + 1] as usize];
            acc.edges += es.len() as u64;
            for &v in es {
                debug_assert!((v as usize) < cells.len());
                // SAFETY: every target of a `Csr` is below its vertex count
                // (checked by `Csr::from_parts`, guaranteed by the builder),
                // and `cells` has one entry per vertex.
                let cell = unsafe { cells.get_unchecked(v as usize) };
                let cur = P::State::load(cell);
                if combine::<P>(cur, cand) == cur {
                    continue;
                }
                // The degree is read before the locked update, not after: a
                // locked instruction is a full fence on x86, so a load behind
                // it cannot start until it retires, and the offsets line is a
                // second cache miss (gapbs gets the degree from the parent word
                // it swaps). Read here, both misses are in flight together.
                let deg = if LAZY { 0 } else { degree_at(offsets, v) };
                let won = if ALONE {
                    P::State::store(cell, combine::<P>(cur, cand));
                    true
                } else {
                    let old = P::State::fetch_combine(cell, P::COMBINE, cand, P::combine);
                    combine::<P>(old, cand) != old
                };
                if won {
                    acc.found += 1;
                    acc.scout += deg;
                    buf.push(v);
                }
            }
        }
    }

    /// A bottom-up level from `bits[b]` into `bits[1 - b]`: every vertex `cand`
    /// can still improve looks for a member of the frontier among its
    /// in-neighbours and stops at the first. A grab owns whole words of the next
    /// bitmap and of `remaining`, so they are stored without atomics. `masked`:
    /// `remaining` holds the candidates (an earlier pull level wrote it).
    fn pull(&self, slot: &Slot, cand: P::State, b: usize, masked: bool, t: &mut Tally) {
        let sh = self.sh;
        let (front, next) = (&sh.bits[b], &sh.bits[1 - b]);
        let csc = self.g.csc();
        let cells = self.cells;
        let nw = next.num_words();
        let mask = |w: usize| {
            if w >= nw {
                0
            } else if masked {
                sh.remaining.word(w)
            } else {
                candidates::<P>(csc.offsets(), cells, cand, w)
            }
        };
        let (mut edges, mut found) = (0u64, 0u64);
        while let Some(r) = slot.grab(PULL_GRAIN_WORDS, nw) {
            let mut ahead = mask(r.start);
            for w in r {
                let cands = ahead;
                ahead = mask(w + 1);
                let (bits, still, e) =
                    pull_word_masked::<P>(csc, cells, cand, front, w, cands, ahead);
                next.store_word(w, bits);
                sh.remaining.store_word(w, still);
                edges += e;
                found += u64::from(bits.count_ones());
            }
        }
        slot.found.fetch_add(found, Ordering::Relaxed);
        t.edges += edges;
        t.updates += found;
    }
}

/// Out-degree of `v` from its CSR offsets (`v` below the vertex count).
#[inline(always)]
fn degree_at(offsets: &[u64], v: u32) -> u64 {
    offsets[v as usize + 1] - offsets[v as usize]
}
