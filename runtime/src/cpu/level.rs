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
use super::frontier::{Bitmap, LocalIds, Queue};
use super::operator::combine;
use super::prefetch::{prefetch, prefetch_walk};
use super::{Direction, RunReport};
use crate::graph::{Csr, Graph, Weight};
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

/// Bitmap words per grab in pull levels (1024 vertices, gapbs's `dynamic, 1024`).
const PULL_GRAIN_WORDS: usize = 16;

/// Vertices ahead whose in-edge lists a pull level prefetches. A bottom-up scan
/// reads a few sources of each unvisited vertex and skips the rest of its list
/// and the lists of visited vertices: the hardware prefetcher loses that stream,
/// and the first source of a vertex was the loop's main stall (Kronecker 22, one
/// thread, 2-core machine: 127 → 99 ms; 8 ahead gave 110, 32–128 the same 99;
/// prefetching the frontier word of that first source as well cost 2–7 %).
const PULL_AHEAD: usize = 64;

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
                match (self.alone, lazy) {
                    (true, true) => self.push::<true, true>(slot, cand, lo..hi, scout, &mut t),
                    (true, false) => self.push::<true, false>(slot, cand, lo..hi, scout, &mut t),
                    (false, true) => self.push::<false, true>(slot, cand, lo..hi, scout, &mut t),
                    (false, false) => self.push::<false, false>(slot, cand, lo..hi, scout, &mut t),
                }
                if !sh.barrier.wait() {
                    return t;
                }
                phase += 1;
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
    /// past the window. `ALONE`: this is the only worker, so an arrival that
    /// improves a state stores it plainly: a locked update is a full fence on
    /// x86 that keeps the next edges' loads from starting before it retires
    /// (1000² grid, 1 thread, 2-core machine: 28.7 → 27.7 ms).
    fn push<const ALONE: bool, const LAZY: bool>(
        &self,
        slot: &Slot,
        cand: P::State,
        window: core::ops::Range<usize>,
        scout: u64,
        t: &mut Tally,
    ) {
        let sh = self.sh;
        let csr = self.g.csr();
        let offsets = csr.offsets();
        let targets = csr.targets();
        let cells = self.cells;
        let len = window.len();
        // Split by edges: each grab about `PUSH_GRAB_EDGES` out-edges. Fewer,
        // larger grabs on a grid's small levels (the shared cursor is the one
        // contended line: at 16 threads one grab per few vertices cost more than
        // the vertices), one grab per hub on a Kronecker graph's first levels.
        let grain = (PUSH_GRAB_EDGES * len as u64 / scout.max(1)).clamp(1, PUSH_GRAIN as u64);
        let grain = grain as usize;
        let even = scout <= PUSH_STATIC_EDGES * self.workers as u64;
        let mut buf = LocalIds::default();
        let (mut edges, mut found, mut scout) = (0u64, 0u64, 0u64);
        // Staged prefetches (see `prefetch`): a grid level's vertices lie rows
        // apart, and without them each waits for three dependent misses
        // (1000² grid, one thread, 2-core machine: 38 → 31 ms). A neighbour's
        // offsets too: the degree of every vertex that joins is read below
        // (3 roots, 15 runs each: 95–111 ms vs 98–138 without).
        let at = |k: usize| (k < len).then(|| sh.queue.get(window.start + k));
        let mut share =
            even.then(|| len * self.me / self.workers..len * (self.me + 1) / self.workers);
        let mut next = || {
            if even {
                share.take()
            } else {
                slot.grab(grain, len)
            }
        };
        while let Some(r) = next() {
            for i in r {
                prefetch_walk(at, i, offsets, targets, |&x| {
                    prefetch(cells, x as usize);
                    if !LAZY {
                        prefetch(offsets, x as usize);
                    }
                });
                let u = sh.queue.get(window.start + i);
                let es = &targets[offsets[u as usize] as usize..offsets[u as usize + 1] as usize];
                edges += es.len() as u64;
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
                        found += 1;
                        scout += deg;
                        buf.push(&sh.queue, v);
                    }
                }
            }
        }
        buf.flush(&sh.queue);
        slot.found.fetch_add(found, Ordering::Relaxed);
        slot.scout.fetch_add(scout, Ordering::Relaxed);
        slot.edges.fetch_add(edges, Ordering::Relaxed);
        t.edges += edges;
        t.updates += found;
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

/// The vertices of word `w` that `cand` can still improve and that have
/// in-edges (bit `i`: vertex `64w + i`), from their states and offsets. A pull
/// level only ever looks at these; the first one computes them, later ones
/// read what the previous left in `remaining`.
#[inline]
fn candidates<P: VertexProgram>(
    offsets: &[u64],
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    w: usize,
) -> u64 {
    let lo = w * 64;
    let hi = (lo + 64).min(cells.len());
    let offs = &offsets[lo..=hi];
    let mut mask = 0u64;
    for (i, cell) in cells[lo..hi].iter().enumerate() {
        let cur = P::State::load(cell);
        let open = combine::<P>(cur, cand) != cur && offs[i + 1] > offs[i];
        mask |= u64::from(open) << i;
    }
    mask
}

/// Bottom-up over the candidates `cands` of word `w` (see [`candidates`]; a
/// superset is fine: each one's state is checked first). Returns the word of
/// vertices that took `cand`, the candidates still open after this level (for
/// `remaining`) and the edges tested. While scanning it prefetches the first
/// in-edges of `ahead`, the next word's candidates.
///
/// Why a candidate mask: a vertex that `cand` cannot improve now never can
/// later (the level engine's candidates only get worse under the combine), and
/// one without in-edges never finds a parent. gapbs's bottom-up step reads
/// every vertex's parent word each level (and so did this engine, plus its
/// offsets); after the first pull level of a Kronecker graph most vertices are
/// reached or isolated, and a word with no candidate left costs one load.
#[inline]
fn pull_word_masked<P: VertexProgram>(
    csc: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    front: &Bitmap,
    w: usize,
    cands: u64,
    ahead: u64,
) -> (u64, u64, u64) {
    let offsets = csc.offsets();
    let sources = csc.targets();
    let words = front.words();
    let n = cells.len();
    assert!(
        words.len() * 64 >= n,
        "the frontier bitmap covers every vertex"
    );
    let lo = w * 64;
    let (mut bits, mut still, mut edges) = (0u64, cands, 0u64);
    let (mut rest, mut pf) = (cands, ahead);
    // One prefetch of the next word's candidates per candidate scanned here, so
    // a dense word keeps about 64 vertices of lookahead and a sparse one does
    // not flood the memory system; the rest after the loop.
    let prefetch_next = |pf: &mut u64| {
        if *pf != 0 {
            let v = lo + 64 + pf.trailing_zeros() as usize;
            *pf &= *pf - 1;
            if let Some(&o) = offsets.get(v) {
                prefetch(sources, o as usize);
            }
        }
    };
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        prefetch_next(&mut pf);
        let v = lo + i;
        let cell = &cells[v];
        let cur = P::State::load(cell);
        if combine::<P>(cur, cand) == cur {
            still &= !(1u64 << i); // reached by a push level since
            continue;
        }
        let ins = &sources[offsets[v] as usize..offsets[v + 1] as usize];
        // SAFETY: every in-neighbour is below `n` (a `Csr`'s targets are below
        // its vertex count, one cell per vertex), and `words.len() * 64 >= n`
        // was asserted above.
        let hit = unsafe { first_in_front(ins, words) };
        if let Some(tested) = hit {
            P::State::store(cell, combine::<P>(cur, cand));
            bits |= 1u64 << i;
            still &= !(1u64 << i);
            edges += tested as u64;
        } else {
            edges += ins.len() as u64;
        }
    }
    while pf != 0 {
        prefetch_next(&mut pf);
    }
    (bits, still, edges)
}

/// Bottom-up over the 64 vertices of word `w`: each one `cand` can still improve
/// scans its in-neighbours (`csc`) for a member of `front`, stops at the first,
/// and takes `cand`. Returns the word of vertices that did, the edges tested and
/// how many vertices changed. The caller owns word `w` (no one else writes
/// those vertices' states during the level).
#[inline]
pub(super) fn pull_word<P: VertexProgram>(
    csc: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    front: &Bitmap,
    w: usize,
    n: usize,
) -> (u64, u64, u64) {
    let offsets = csc.offsets();
    let sources = csc.targets();
    let words = front.words();
    assert!(
        words.len() * 64 >= n,
        "the frontier bitmap covers every vertex"
    );
    let (mut bits, mut edges, mut found) = (0u64, 0u64, 0u64);
    let lo = w * 64;
    let hi = (lo + 64).min(n);
    // Slices of exactly this word's vertices: no bounds checks per vertex.
    let offs = &offsets[lo..=hi];
    for (i, cell) in cells[lo..hi].iter().enumerate() {
        if let Some(&o) = offsets.get(lo + i + PULL_AHEAD) {
            prefetch(sources, o as usize);
        }
        let cur = P::State::load(cell);
        if combine::<P>(cur, cand) == cur {
            continue;
        }
        let ins = &sources[offs[i] as usize..offs[i + 1] as usize];
        // SAFETY: as in `pull_word_masked`: in-neighbours are below `n`, and
        // `words.len() * 64 >= n` was asserted above.
        let hit = unsafe { first_in_front(ins, words) };
        if let Some(tested) = hit {
            P::State::store(cell, combine::<P>(cur, cand));
            bits |= 1u64 << i;
            found += 1;
            edges += tested as u64;
        } else {
            edges += ins.len() as u64;
        }
    }
    (bits, edges, found)
}

/// gapbs's bottom-up loop: one bitmap test per in-neighbour, out at the first
/// that is in the frontier (`words`). Returns how many were tested up to and
/// including it, or `None` when none is.
///
/// # Safety
/// Every id in `ins` is below `words.len() * 64` (the bitmap tests skip
/// bounds checks: this loop is the bottom-up level's whole cost).
#[inline(always)]
unsafe fn first_in_front(ins: &[u32], words: &[AtomicU64]) -> Option<usize> {
    for (k, &u) in ins.iter().enumerate() {
        debug_assert!((u as usize) < words.len() * 64);
        // SAFETY: the caller's contract makes `u / 64` a valid word index.
        let word = unsafe { words.get_unchecked(u as usize / 64) };
        if word.load(Ordering::Relaxed) & (1u64 << (u % 64)) != 0 {
            return Some(k + 1);
        }
    }
    None
}

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
