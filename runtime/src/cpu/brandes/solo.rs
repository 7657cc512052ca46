//! One source at a time: gapbs `bc`'s algorithm, with cheaper constants.
//!
//! Per vertex a `tag`, the depth at which the current source reached it, as
//! `base + depth` with `base` above every tag of the sources before (so nothing
//! is reset between sources: a tag below `base` is unreached), and `σ`, its path
//! count, which the backward levels replace by `ρ = (1 + δ) / σ`. Tags are 4
//! bytes, in an array of their own: every edge reads one, and on a grid or a
//! mesh of local ids a frontier's lines of tags are shared by many vertices.
//!
//! Forward, one phase per level. A *pushed* level claims each unreached
//! out-neighbour of its frontier for the next depth (a compare-and-swap on the
//! tag, tried only when a read says the neighbour is unreached), adds the
//! frontier vertex's count to every out-neighbour at the next depth, and sets
//! that edge's bit in a successor bitmap (as gapbs does, but with one locked
//! `or` per word of a vertex's edges rather than per edge). A *pulled* level
//! (large frontiers, Beamer's bottom-up without the early exit that path counts
//! forbid) lets every unreached vertex sum the counts of its in-neighbours at
//! the frontier's depth, with no atomic instruction at all (and no successor
//! bits: an in-edge does not know its place among the out-edges).
//!
//! Backward, deepest level first, one phase per level: a vertex of depth `d`
//! sums `ρ` over its successors (an add per successor, where gapbs divides),
//! then `δ = σ · Σ` goes to its score. Below a pushed level the successors are
//! the set bits of its edges, so only their records are read; below a pulled
//! one, the out-neighbours tagged `d + 1`.
//!
//! Between sources, the counts of the vertices the last one reached go back to
//! zero (pushes add to them), and the bitmap too, in the phase that starts the
//! next source.

use core::ops::Range;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use super::{add, load, share_with, store, sums_of, Phases, Slot, Sums, SCAN_GRAIN};

/// Where the backward pass finds a level's successors.
#[derive(Clone, Copy)]
enum Successors {
    /// The deepest level has none.
    None,
    /// The next level was pushed: the set bits of the vertex's edges.
    Bits,
    /// The next level was pulled: the out-neighbours tagged one deeper.
    Tagged,
}

/// Worker `me`'s share of `0..len` split evenly among `workers`.
fn share_of(len: usize, me: usize, workers: usize) -> Range<usize> {
    len * me / workers..len * (me + 1) / workers
}

/// Sets `bits` in `word` (a plain store when `ALONE`).
#[inline(always)]
fn set_bits<const ALONE: bool>(word: &AtomicU64, bits: u64) {
    if ALONE {
        word.store(word.load(Relaxed) | bits, Relaxed);
    } else {
        word.fetch_or(bits, Relaxed);
    }
}
use crate::cpu::prefetch::{prefetch, prefetch_walk};
use crate::cpu::recycle::Slots;
use crate::graph::{Csr, Weight};

/// Raw betweenness sums over `sources`, one after another, under one team of
/// the current pool's workers.
pub(super) fn run<W: Weight>(
    out: &Csr<W>,
    inc: &Csr<W>,
    max_degree: u64,
    pull_factor: u64,
    sources: &[u32],
) -> Vec<f64> {
    let n = out.num_vertices();
    let threads = rayon::current_num_threads();
    let sh = Shared {
        tags: Slots::zeroed(n),
        sigma: Slots::zeroed(n),
        succ: Slots::zeroed(out.targets().len().div_ceil(64)),
        scores: Slots::zeroed(n),
        queue: Slots::scratch(n),
        tail: Default::default(),
        phases: Phases::new(threads),
    };
    rayon::broadcast(|ctx| {
        let mut w = Worker {
            out,
            inc,
            sh: &sh,
            me: ctx.index(),
            workers: threads,
            phase: 0,
            pull_factor,
            max_degree,
        };
        // A panic must not leave the other workers at the barrier.
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.run(sources))) {
            sh.phases.barrier.poison();
            std::panic::resume_unwind(p)
        }
    });
    // In parallel: a Kronecker graph of 2^22 vertices takes milliseconds.
    sh.scores.par_iter().map(load).collect()
}

/// What the team shares.
struct Shared {
    tags: Slots<AtomicU32>,
    /// σ (then ρ) per vertex, `f64` bits.
    sigma: Slots<AtomicU64>,
    /// A bit per out-edge `v → w` of a pushed level: `w` is a successor of `v`.
    succ: Slots<AtomicU64>,
    scores: Slots<AtomicU64>,
    /// The current source's levels, one after another (each vertex at most once).
    queue: Slots<AtomicU32>,
    tail: CachePadded<AtomicUsize>,
    phases: Phases,
}

impl Shared {
    #[inline(always)]
    fn tag(&self, v: usize) -> &AtomicU32 {
        debug_assert!(v < self.tags.len());
        // SAFETY: `v` is a vertex (a `Csr`'s targets are below its vertex
        // count, and so is every queued id), and `tags` holds one per vertex.
        unsafe { self.tags.get_unchecked(v) }
    }

    #[inline(always)]
    fn sigma(&self, v: usize) -> &AtomicU64 {
        debug_assert!(v < self.sigma.len());
        // SAFETY: as in `tag`.
        unsafe { self.sigma.get_unchecked(v) }
    }

    #[inline(always)]
    fn vert(&self, i: usize) -> u32 {
        self.queue[i].load(Relaxed)
    }

    /// Appends `vs`.
    fn append(&self, vs: &[u32]) {
        let start = self.tail.fetch_add(vs.len(), Relaxed);
        for (slot, &v) in self.queue[start..start + vs.len()].iter().zip(vs) {
            slot.store(v, Relaxed);
        }
    }
}

struct Worker<'a, W: Weight> {
    out: &'a Csr<W>,
    inc: &'a Csr<W>,
    sh: &'a Shared,
    me: usize,
    workers: usize,
    phase: usize,
    pull_factor: u64,
    /// The largest out-degree (bounds a level's out-edges from its size).
    max_degree: u64,
}

impl<'a, W: Weight> Worker<'a, W> {
    /// Opens the next phase ([`Phases::open`]).
    fn open(&mut self) -> &'a Slot {
        let sh: &'a Shared = self.sh;
        sh.phases.open(self.me, &mut self.phase)
    }

    /// Closes a phase ([`Phases::close`]). `false`: a worker panicked.
    fn close(&self, slot: &Slot, sums: &Sums) -> bool {
        self.sh.phases.close(slot, sums)
    }

    fn run(&mut self, sources: &[u32]) {
        let n = self.sh.tags.len() as u64;
        let mut base = 1u32;
        let mut reached = 0usize;
        for &s in sources {
            // A source uses at most `n + 2` tags; past the largest, the tags
            // are cleared and start again.
            let reset = u64::from(base) + n + 2 > u64::from(u32::MAX);
            if reset {
                base = 1;
            }
            match self.source(s, base, reached, reset) {
                Some((levels, r)) => {
                    base += levels as u32 + 2;
                    reached = r;
                }
                None => return,
            }
        }
    }

    /// One source, depth `d` tagged `base + d` (`reset`: every tag is cleared
    /// first); the last source reached the first `reached` vertices of the
    /// queue. Returns the number of levels and of vertices reached (`None`: a
    /// worker panicked).
    fn source(&mut self, s: u32, base: u32, reached: usize, reset: bool) -> Option<(usize, usize)> {
        let sh = self.sh;
        let su = s as usize;
        if reset {
            let slot = self.open();
            while let Some(r) = slot.grab(SCAN_GRAIN, sh.tags.len()) {
                sh.tags[r].iter().for_each(|t| t.store(0, Relaxed));
            }
            if !self.close(slot, &Sums::default()) {
                return None;
            }
        }
        // Zero the counts the last source left and the successor bits; then
        // start the new one.
        let slot = self.open();
        let n = sh.sigma.len();
        if reached > n / 8 {
            // Most vertices: the whole array, in order, is cheaper than their
            // scattered slots.
            sh.sigma[share_of(n, self.me, self.workers)]
                .iter()
                .for_each(|x| x.store(0, Relaxed));
        } else {
            while let Some(r) = slot.grab(SCAN_GRAIN, reached) {
                for i in r {
                    store(sh.sigma(sh.vert(i) as usize), 0.0);
                }
            }
        }
        if reached > 0 {
            sh.succ[share_of(sh.succ.len(), self.me, self.workers)]
                .iter()
                .for_each(|w| w.store(0, Relaxed));
        }
        if !self.close(slot, &Sums::default()) {
            return None;
        }
        let slot = self.open();
        if self.me == 0 {
            sh.tag(su).store(base, Relaxed);
            store(sh.sigma(su), 1.0);
            sh.queue[0].store(s, Relaxed);
            sh.tail.store(1, Relaxed);
        }
        if !self.close(slot, &Sums::default()) {
            return None;
        }
        // Forward. `scouts[d]`: level `d`'s out-edges, or a bound on them.
        let mut scout = self.out.degree(s);
        let mut unfinished = self.inc.num_edges() - self.inc.degree(s);
        let mut bounds = vec![0usize, 1];
        let mut scouts = vec![scout];
        // `pulled[d]`: level `d` was pulled (its predecessors have no bits).
        let mut pulled = vec![false];
        let mut buf = Vec::new();
        let pf = self.pull_factor;
        loop {
            let d = bounds.len() - 2;
            let window = bounds[d]..bounds[d + 1];
            if window.is_empty() {
                bounds.pop();
                scouts.pop();
                break;
            }
            let t = base + d as u32;
            let slot = self.open();
            let pull = scout.saturating_mul(pf) > unfinished;
            // Whether the next level is surely pushed too, even if each vertex
            // found has the largest degree: then their degrees are not needed.
            let lazy =
                !pull && scout.saturating_mul(self.max_degree).saturating_mul(pf) <= unfinished;
            let s = if pull {
                self.pull(slot, t, base, &mut buf)
            } else {
                match (self.workers == 1, lazy) {
                    (true, true) => {
                        self.push::<true, true>(slot, window.clone(), scout, t, base, &mut buf)
                    }
                    (true, false) => {
                        self.push::<true, false>(slot, window.clone(), scout, t, base, &mut buf)
                    }
                    (false, true) => {
                        self.push::<false, true>(slot, window.clone(), scout, t, base, &mut buf)
                    }
                    (false, false) => {
                        self.push::<false, false>(slot, window.clone(), scout, t, base, &mut buf)
                    }
                }
            };
            if !self.close(slot, &s) {
                return None;
            }
            let s = sums_of(slot);
            // From the slot, not the queue's tail: a worker already past the
            // barrier may be appending the next level.
            let found = s.found as usize;
            if lazy {
                scout = (found as u64).saturating_mul(self.max_degree);
            } else {
                scout = s.scout;
                unfinished -= s.done;
            }
            bounds.push(window.end + found);
            scouts.push(scout);
            pulled.push(pull);
        }
        // Backward, deepest first.
        let deepest = bounds.len() - 2;
        for d in (0..=deepest).rev() {
            let slot = self.open();
            let t = base + d as u32;
            let succ = if d == deepest {
                Successors::None
            } else if pulled[d + 1] {
                Successors::Tagged
            } else {
                Successors::Bits
            };
            self.backward(slot, bounds[d]..bounds[d + 1], scouts[d], t, succ);
            if !self.close(slot, &Sums::default()) {
                return None;
            }
        }
        Some((deepest + 1, bounds[deepest + 1]))
    }

    /// A pushed level: the frontier `window` (tag `t`, `scout` out-edges or a
    /// bound) claims its unreached out-neighbours for tag `t + 1` and adds its
    /// counts to theirs. `ALONE`: the only worker, so no locked instruction
    /// (each is a full fence on x86). `LAZY`: the degrees of the vertices
    /// found are not summed.
    #[allow(clippy::too_many_arguments)]
    fn push<const ALONE: bool, const LAZY: bool>(
        &self,
        slot: &Slot,
        window: Range<usize>,
        scout: u64,
        t: u32,
        base: u32,
        buf: &mut Vec<u32>,
    ) -> Sums {
        let sh = self.sh;
        let (out, inc) = (self.out, self.inc);
        let targets = out.targets();
        let next = t + 1;
        let mut sums = Sums::default();
        let offsets = out.offsets();
        let at = |k: usize| (k < window.len()).then(|| sh.vert(window.start + k));
        share_with(self.me, self.workers, slot, window.len(), scout, |r| {
            for i in r {
                // Staged prefetches (see `prefetch_walk`): a level's vertices
                // lie apart, each behind three dependent misses.
                prefetch_walk(at, i, offsets, targets, |&x| {
                    prefetch(&sh.tags, x as usize);
                    prefetch(&sh.sigma, x as usize);
                });
                let v = sh.vert(window.start + i);
                let x = load(sh.sigma(v as usize));
                let edges = out.edge_range(v);
                let first = edges.start;
                // The successor bits of the word at hand.
                let (mut word, mut bits) = (first / 64, 0u64);
                for (e, &u) in (first..).zip(&targets[edges]) {
                    let uu = u as usize;
                    let tag = sh.tag(uu);
                    let mut cur = tag.load(Relaxed);
                    if cur < base {
                        // Read before the claim: a locked instruction is a
                        // full fence, and the offsets line is a second miss.
                        let (dout, din) = if LAZY {
                            (0, 0)
                        } else {
                            (out.degree(u), inc.degree(u))
                        };
                        let won = if ALONE {
                            tag.store(next, Relaxed);
                            true
                        } else {
                            match tag.compare_exchange(cur, next, Relaxed, Relaxed) {
                                Ok(_) => true,
                                Err(now) => {
                                    cur = now;
                                    false
                                }
                            }
                        };
                        if won {
                            cur = next;
                            buf.push(u);
                            sums.scout += dout;
                            sums.done += din;
                        }
                    }
                    if cur == next {
                        let c = sh.sigma(uu);
                        if ALONE {
                            store(c, load(c) + x);
                        } else {
                            add(c, x);
                        }
                        if e / 64 != word {
                            if bits != 0 {
                                set_bits::<ALONE>(&sh.succ[word], bits);
                            }
                            (word, bits) = (e / 64, 0);
                        }
                        bits |= 1 << (e % 64);
                    }
                }
                if bits != 0 {
                    set_bits::<ALONE>(&sh.succ[word], bits);
                }
            }
        });
        sh.append(buf);
        sums.found = buf.len() as u64;
        buf.clear();
        sums
    }

    /// A pulled level: every unreached vertex sums the counts of its
    /// in-neighbours tagged `t` and, if it has any, joins tag `t + 1`.
    fn pull(&self, slot: &Slot, t: u32, base: u32, buf: &mut Vec<u32>) -> Sums {
        let sh = self.sh;
        let (out, inc) = (self.out, self.inc);
        let n = sh.scores.len();
        let mut sums = Sums::default();
        while let Some(r) = slot.grab(SCAN_GRAIN, n) {
            for wu in r {
                if sh.tag(wu).load(Relaxed) >= base {
                    continue;
                }
                let w = wu as u32;
                let mut sum = 0.0;
                let mut found = false;
                for &v in inc.neighbors(w) {
                    let vu = v as usize;
                    if sh.tag(vu).load(Relaxed) == t {
                        sum += load(sh.sigma(vu));
                        found = true;
                    }
                }
                if found {
                    sh.tag(wu).store(t + 1, Relaxed);
                    store(sh.sigma(wu), sum);
                    buf.push(w);
                    sums.scout += out.degree(w);
                    sums.done += inc.degree(w);
                }
            }
        }
        sh.append(buf);
        sums.found = buf.len() as u64;
        buf.clear();
        sums
    }

    /// The dependencies of the level `window` (tag `t`, `scout` out-edges or
    /// a bound): ρ summed over the successors, found as `succ` says.
    fn backward(&self, slot: &Slot, window: Range<usize>, scout: u64, t: u32, succ: Successors) {
        let sh = self.sh;
        let out = self.out;
        let targets = out.targets();
        let offsets = out.offsets();
        let at = |k: usize| (k < window.len()).then(|| sh.vert(window.start + k));
        share_with(self.me, self.workers, slot, window.len(), scout, |r| {
            for i in r {
                if !matches!(succ, Successors::None) {
                    // As in `push`, and the successor bits.
                    prefetch_walk(at, i, offsets, targets, |&x| {
                        prefetch(&sh.sigma, x as usize);
                    });
                    if let Some(w) = at(i + 16) {
                        prefetch(&sh.succ, offsets[w as usize] as usize / 64);
                    }
                }
                let v = sh.vert(window.start + i);
                let vu = v as usize;
                let mut acc = 0.0;
                match succ {
                    Successors::None => {}
                    Successors::Tagged => {
                        for &w in out.neighbors(v) {
                            let wu = w as usize;
                            if sh.tag(wu).load(Relaxed) == t + 1 {
                                acc += load(sh.sigma(wu));
                            }
                        }
                    }
                    Successors::Bits => {
                        let edges = out.edge_range(v);
                        let (lo, hi) = (edges.start, edges.end);
                        let mut word = lo / 64;
                        while word * 64 < hi {
                            let mut b = sh.succ[word].load(Relaxed);
                            // Only this vertex's edges.
                            if word * 64 < lo {
                                b &= !0u64 << (lo % 64);
                            }
                            if (word + 1) * 64 > hi {
                                b &= !(!0u64 << (hi % 64));
                            }
                            while b != 0 {
                                let e = word * 64 + b.trailing_zeros() as usize;
                                acc += load(sh.sigma(targets[e] as usize));
                                b &= b - 1;
                            }
                            word += 1;
                        }
                    }
                }
                let s = sh.sigma(vu);
                let sigma = load(s);
                let delta = sigma * acc;
                store(s, (1.0 + delta) / sigma);
                if delta != 0.0 {
                    let sc = &sh.scores[vu];
                    store(sc, load(sc) + delta);
                }
            }
        });
    }
}
