//! Batches: up to 64 sources share every edge visit (the lanes of
//! [`crate::cpu::msbfs`]).
//!
//! Per batch, every vertex `v` holds `seen[v]` (the lanes that reached it) and
//! `next[v]` (lanes pushed to it during a level), side by side, and per lane `l`
//! a path count `σ(v, l)` (`f64`, as gapbs counts; see [`Counts`] for the
//! layout). Each level is a window of one queue of entries `(v, lanes)`: the
//! vertices first reached at that depth, with the lanes that reached them there.
//! A level `d` also *marks* its entries: `marks[d % 2]` holds `(lanes, tag(d))`
//! per vertex, the tag unique to the batch and depth, so a mark is current iff
//! its tag matches (nothing is cleared between levels or batches: a stale mark
//! carries another tag).
//!
//! Forward, a level is either
//! * *pushed* (small frontiers): one phase pushes the frontier's lanes along its
//!   out-edges into `next` (an atomic `or` only where a lane is missing: a hub
//!   already holding the lanes costs a read), listing each vertex once; a second
//!   phase settles each listed vertex (its lanes, `seen`, its mark). The path
//!   counts are either added along the pushed edges (`Options::atomic_counts`,
//!   sparse graphs: a compare-and-swap per edge and lane, rarely contended) or
//!   pulled by the settling phase along the new vertex's in-edges from the marks
//!   of the level above (small worlds: no atomic on hubs' counts);
//! * or *pulled* (large frontiers, Beamer's bottom-up without the early exit that
//!   path counts forbid): one phase in which every vertex missing lanes reads its
//!   in-neighbours' marks and path counts, and joins the level with the lanes it
//!   found; no atomic instruction at all.
//!
//! Backward, deepest level first, one phase per level: an entry `(v, lanes)` of
//! depth `d` sums, per lane, `ρ(w) = (1 + δ(w)) / σ(w)` over its out-neighbours
//! `w` marked at `d + 1` in that lane; then `δ(v) = σ(v) · Σ` goes to `v`'s score
//! and `ρ(v)` replaces `σ(v)` (nobody reads that count again), so a successor
//! costs an add, not a division. The marks of level `d` are rewritten as it is
//! processed (the forward levels below overwrote them).

use core::ops::Range;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use super::{
    add, load, share_with, store, sums_of, Options, Phases, Slot, Sums, SCAN_GRAIN, STATIC_DEGREE,
};
use crate::cpu::msbfs::LANES;
use crate::cpu::recycle::Slots;
use crate::graph::{Csr, Weight};

/// The batches under one team of the current pool's workers.
pub(super) fn run<W: Weight, M: Marks>(
    out: &Csr<W>,
    inc: &Csr<W>,
    max_degree: u64,
    k: usize,
    options: Options,
    batches: &[(Vec<(u32, u64)>, u64)],
) -> Vec<f64> {
    let n = out.num_vertices();
    let threads = rayon::current_num_threads();
    let (sv, sl) = if options.vertex_major { (k, 1) } else { (1, n) };
    let sh = Shared {
        sn: Slots::zeroed(2 * n),
        marks: [M::new(n), M::new(n)],
        sigma: Counts {
            // Pushes add to the counts: they start at zero.
            cells: if options.atomic_counts {
                Slots::zeroed(n * k)
            } else {
                Slots::scratch(n * k)
            },
            sv,
            sl,
            lanes: k,
        },
        scores: Slots::zeroed(n),
        queue: Entries::new(n, k),
        phases: Phases::new(threads),
    };
    rayon::broadcast(|ctx| {
        let w = Worker {
            out,
            inc,
            sh: &sh,
            me: ctx.index(),
            workers: threads,
            acc: vec![0.0; LANES],
            phase: 0,
            options,
            max_degree,
        };
        // A panic must not leave the other workers at the barrier.
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = w;
            w.run(batches)
        })) {
            sh.phases.barrier.poison();
            std::panic::resume_unwind(p)
        }
    });
    // In parallel: a Kronecker graph of 2^22 vertices takes milliseconds.
    sh.scores.par_iter().map(load).collect()
}

/// The levels' entries of one batch, `(vertex, lanes)`, in segments of a power
/// of two at least `n` allocated as the queue grows: a level holds each vertex
/// at most once, a batch each vertex at most once per lane.
struct Entries {
    shift: u32,
    verts: Vec<OnceLock<Slots<AtomicU32>>>,
    lanes: Vec<OnceLock<Slots<AtomicU64>>>,
    tail: CachePadded<AtomicUsize>,
}

impl Entries {
    fn new(n: usize, k: usize) -> Self {
        let shift = n.max(1024).next_power_of_two().trailing_zeros();
        Entries {
            shift,
            verts: (0..=k).map(|_| OnceLock::new()).collect(),
            lanes: (0..=k).map(|_| OnceLock::new()).collect(),
            tail: Default::default(),
        }
    }

    #[inline(always)]
    fn at(&self, i: usize) -> (usize, usize) {
        (i >> self.shift, i & ((1 << self.shift) - 1))
    }

    #[inline(always)]
    fn vert_slot(&self, i: usize) -> &AtomicU32 {
        let (s, j) = self.at(i);
        &self.verts[s].get_or_init(|| Slots::scratch(1 << self.shift))[j]
    }

    #[inline(always)]
    fn lanes_slot(&self, i: usize) -> &AtomicU64 {
        let (s, j) = self.at(i);
        &self.lanes[s].get_or_init(|| Slots::scratch(1 << self.shift))[j]
    }

    #[inline(always)]
    fn vert(&self, i: usize) -> u32 {
        self.vert_slot(i).load(Relaxed)
    }

    #[inline(always)]
    fn lanes(&self, i: usize) -> u64 {
        self.lanes_slot(i).load(Relaxed)
    }

    /// Appends vertices (their lanes set later); returns the first slot.
    fn append(&self, vs: &[u32]) -> usize {
        let start = self.tail.fetch_add(vs.len(), Relaxed);
        for (i, &v) in vs.iter().enumerate() {
            self.vert_slot(start + i).store(v, Relaxed);
        }
        start
    }

    /// Appends entries with their lanes.
    fn append_with(&self, es: &[(u32, u64)]) {
        let start = self.tail.fetch_add(es.len(), Relaxed);
        for (i, &(v, l)) in es.iter().enumerate() {
            self.vert_slot(start + i).store(v, Relaxed);
            self.lanes_slot(start + i).store(l, Relaxed);
        }
    }
}

/// Per vertex, the lanes of one level and that level's tag (see the module doc).
pub(super) trait Marks: Sync + Sized {
    /// Marks for `n` vertices, none current.
    fn new(n: usize) -> Self;
    /// The largest tag it holds.
    const MAX_TAG: u64;
    fn set(&self, v: usize, lanes: u64, tag: u64);
    /// The lanes of `want` that `v` holds under `tag` (none under another tag).
    fn get(&self, v: usize, want: u64, tag: u64) -> u64;
    /// Forgets every mark (`v` in `range`).
    fn clear(&self, range: Range<usize>);
}

/// Batches of at most 32 lanes: lanes and tag in one word (`tag << 32 | lanes`),
/// so a neighbour's mark costs one load and half the cache of [`Wide`].
pub(super) struct Narrow(Slots<AtomicU64>);

impl Marks for Narrow {
    fn new(n: usize) -> Self {
        Narrow(Slots::zeroed(n))
    }
    const MAX_TAG: u64 = u32::MAX as u64;
    #[inline(always)]
    fn set(&self, v: usize, lanes: u64, tag: u64) {
        self.0[v].store(tag << 32 | lanes, Relaxed)
    }
    #[inline(always)]
    fn get(&self, v: usize, want: u64, tag: u64) -> u64 {
        let x = self.0[v].load(Relaxed);
        if x >> 32 == tag {
            x & want
        } else {
            0
        }
    }
    fn clear(&self, range: Range<usize>) {
        range.for_each(|v| self.0[v].store(0, Relaxed));
    }
}

/// Batches of up to 64 lanes: `[lanes, tag]` per vertex.
pub(super) struct Wide(Slots<AtomicU64>);

impl Marks for Wide {
    fn new(n: usize) -> Self {
        Wide(Slots::zeroed(2 * n))
    }
    const MAX_TAG: u64 = u64::MAX;
    #[inline(always)]
    fn set(&self, v: usize, lanes: u64, tag: u64) {
        self.0[2 * v].store(lanes, Relaxed);
        self.0[2 * v + 1].store(tag, Relaxed);
    }
    #[inline(always)]
    fn get(&self, v: usize, want: u64, tag: u64) -> u64 {
        let m = self.0[2 * v].load(Relaxed) & want;
        if m != 0 && self.0[2 * v + 1].load(Relaxed) == tag {
            m
        } else {
            0
        }
    }
    fn clear(&self, range: Range<usize>) {
        range.for_each(|v| self.0[2 * v + 1].store(0, Relaxed));
    }
}

/// Path counts (then ρ), `f64` bits, one per vertex and lane: `[v·sv + l·sl]`.
/// Vertex-major (`sv = k`, `sl = 1`) keeps a vertex's lanes on one line, for
/// graphs whose lanes share depths (small worlds: an entry holds many lanes);
/// lane-major (`sv = 1`, `sl = n`) keeps a lane's neighbouring vertices on one
/// line, for graphs where the lanes' wavefronts stay apart (grids, meshes,
/// roads: an entry holds one lane, and vertex-major would bring `k` lanes'
/// counts into the cache to use one).
struct Counts {
    cells: Slots<AtomicU64>,
    sv: usize,
    sl: usize,
    lanes: usize,
}

impl Counts {
    #[inline(always)]
    fn at(&self, v: usize, l: usize) -> &AtomicU64 {
        &self.cells[v * self.sv + l * self.sl]
    }
}

/// What the team shares.
struct Shared<M> {
    /// Per vertex `[seen, next]`: the lanes that reached it, and those pushed
    /// to it during a pushed level (zero between phases).
    sn: Slots<AtomicU64>,
    /// `(lanes, tag)` per vertex, for even and odd depths.
    marks: [M; 2],
    /// σ, then ρ (see the module doc).
    sigma: Counts,
    scores: Slots<AtomicU64>,
    queue: Entries,
    phases: Phases,
}

struct Worker<'a, W: Weight, M> {
    out: &'a Csr<W>,
    inc: &'a Csr<W>,
    sh: &'a Shared<M>,
    me: usize,
    workers: usize,
    /// Per-lane sums of the entry at hand.
    acc: Vec<f64>,
    phase: usize,
    options: Options,
    /// The largest out-degree (bounds a level's out-edges from its size).
    max_degree: u64,
}

impl<'a, W: Weight, M: Marks> Worker<'a, W, M> {
    /// Opens the next phase ([`Phases::open`]).
    fn open(&mut self) -> &'a Slot {
        let sh: &'a Shared<M> = self.sh;
        sh.phases.open(self.me, &mut self.phase)
    }

    /// Closes a phase ([`Phases::close`]). `false`: a worker panicked.
    fn close(&self, slot: &Slot, sums: &Sums) -> bool {
        self.sh.phases.close(slot, sums)
    }

    fn run(&mut self, batches: &[(Vec<(u32, u64)>, u64)]) {
        let n = self.sh.sn.len() as u64 / 2;
        let mut tag = 1u64;
        for (b, (first, all)) in batches.iter().enumerate() {
            // A batch uses at most `n + 2` tags; past the marks' largest, they
            // are cleared and tags start again.
            let reset = tag + n + 2 > M::MAX_TAG;
            if reset {
                tag = 1;
            }
            match self.batch(first, *all, tag, reset, b > 0) {
                Some(levels) => tag += levels as u64 + 2,
                None => return,
            }
        }
    }

    /// One batch from its first level, depth `d` tagged `tag + d` (`reset`:
    /// the marks are cleared first; `dirty`: the path counts are not all zero);
    /// the number of levels (`None`: a worker panicked).
    fn batch(
        &mut self,
        first: &[(u32, u64)],
        all: u64,
        tag: u64,
        reset: bool,
        dirty: bool,
    ) -> Option<usize> {
        let sh = self.sh;
        let n = sh.sn.len() / 2;
        let atomic = self.options.atomic_counts;
        // Clear `seen` (and the counts that pushes add to); worker 0 empties
        // the queue (the last batch's readers are done).
        let slot = self.open();
        if self.me == 0 {
            sh.queue.tail.store(0, Relaxed);
        }
        while let Some(r) = slot.grab(SCAN_GRAIN, n) {
            if reset {
                sh.marks.iter().for_each(|m| m.clear(r.clone()));
            }
            if atomic && dirty {
                for l in 0..sh.sigma.lanes {
                    r.clone().for_each(|v| store(sh.sigma.at(v, l), 0.0));
                }
            }
            r.for_each(|v| sh.sn[2 * v].store(0, Relaxed));
        }
        if !self.close(slot, &Sums::default()) {
            return None;
        }
        // The first level, known to every worker; worker 0 writes it.
        let mut scout = 0u64;
        let mut unfinished = self.inc.num_edges();
        for &(v, bits) in first {
            scout += self.out.degree(v);
            if bits == all {
                unfinished -= self.inc.degree(v);
            }
        }
        let slot = self.open();
        if self.me == 0 {
            for &(v, bits) in first {
                sh.sn[2 * v as usize].store(bits, Relaxed);
                sh.marks[0].set(v as usize, bits, tag);
                let mut b = bits;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    store(sh.sigma.at(v as usize, l), 1.0);
                    b &= b - 1;
                }
            }
            sh.queue.append_with(first);
        }
        if !self.close(slot, &Sums::default()) {
            return None;
        }
        // Forward. `scouts[d]`: level `d`'s out-edges (or a bound on them).
        let mut bounds = vec![0usize, first.len()];
        let mut scouts = vec![scout];
        let mut buf = Vec::new();
        let mut pbuf = Vec::new();
        let pf = self.options.pull_factor;
        loop {
            let d = bounds.len() - 2;
            let window = bounds[d]..bounds[d + 1];
            if window.is_empty() {
                bounds.pop();
                scouts.pop();
                break;
            }
            let t = tag + d as u64;
            let found;
            if scout.saturating_mul(pf) > unfinished {
                let slot = self.open();
                let s = self.pull(slot, d, t, all, &mut pbuf);
                if !self.close(slot, &s) {
                    return None;
                }
                let s = sums_of(slot);
                (found, scout) = (s.found as usize, s.scout);
                unfinished -= s.done;
            } else {
                let slot = self.open();
                let s = match (self.workers == 1, atomic) {
                    (true, true) => self.push::<true, true>(slot, window.clone(), scout, &mut buf),
                    (true, false) => {
                        self.push::<true, false>(slot, window.clone(), scout, &mut buf)
                    }
                    (false, true) => {
                        self.push::<false, true>(slot, window.clone(), scout, &mut buf)
                    }
                    (false, false) => {
                        self.push::<false, false>(slot, window.clone(), scout, &mut buf)
                    }
                };
                if !self.close(slot, &s) {
                    return None;
                }
                found = slot.found.load(Relaxed) as usize;
                // Whether the next level is surely pushed too, even if each
                // vertex found has the largest degree: then its counts are
                // all pushed, and neither its marks nor its degrees are needed.
                let bound = (found as u64).saturating_mul(self.max_degree);
                let lazy = atomic && bound.saturating_mul(pf) <= unfinished;
                let new = window.end..window.end + found;
                let slot = self.open();
                let s = self.settle(slot, new, d, t, all, lazy);
                if !self.close(slot, &s) {
                    return None;
                }
                if lazy {
                    scout = bound;
                } else {
                    let s = sums_of(slot);
                    scout = s.scout;
                    unfinished -= s.done;
                }
            }
            bounds.push(window.end + found);
            scouts.push(scout);
        }
        // Backward, deepest first.
        let deepest = bounds.len() - 2;
        for d in (0..=deepest).rev() {
            let slot = self.open();
            self.backward(
                slot,
                bounds[d]..bounds[d + 1],
                scouts[d],
                d,
                tag,
                d == deepest,
            );
            if !self.close(slot, &Sums::default()) {
                return None;
            }
        }
        Some(deepest + 1)
    }

    /// Pushes the lanes of the level `window` along its out-edges (`scout` of
    /// them, or a bound) into `next`, listing each vertex that gets its first
    /// lane there; `ATOMIC`: adds the path counts along too. `ALONE`: the only
    /// worker, so no locked instruction (each is a full fence on x86).
    fn push<const ALONE: bool, const ATOMIC: bool>(
        &self,
        slot: &Slot,
        window: Range<usize>,
        scout: u64,
        buf: &mut Vec<u32>,
    ) -> Sums {
        let sh = self.sh;
        let q = &sh.queue;
        let sigma = &sh.sigma;
        share_with(self.me, self.workers, slot, window.len(), scout, |r| {
            for i in r {
                let v = q.vert(window.start + i);
                let bits = q.lanes(window.start + i);
                let vu = v as usize;
                for &u in self.out.neighbors(v) {
                    let u = u as usize;
                    let fresh = bits & !sh.sn[2 * u].load(Relaxed);
                    if fresh == 0 {
                        continue;
                    }
                    if ATOMIC {
                        let mut b = fresh;
                        while b != 0 {
                            let l = b.trailing_zeros() as usize;
                            let x = load(sigma.at(vu, l));
                            let c = sigma.at(u, l);
                            if ALONE {
                                store(c, load(c) + x);
                            } else {
                                add(c, x);
                            }
                            b &= b - 1;
                        }
                    }
                    let nx = &sh.sn[2 * u + 1];
                    let old = nx.load(Relaxed);
                    if old & fresh == fresh {
                        continue;
                    }
                    let old = if ALONE {
                        nx.store(old | fresh, Relaxed);
                        old
                    } else {
                        nx.fetch_or(fresh, Relaxed)
                    };
                    if old == 0 {
                        buf.push(u as u32);
                    }
                }
            }
        });
        q.append(buf);
        let found = buf.len() as u64;
        buf.clear();
        Sums {
            found,
            ..Sums::default()
        }
    }

    /// Settles the entries `new` of level `d + 1` found by a push: their lanes
    /// and `seen`; unless `lazy`, their marks and degrees; and unless the push
    /// added them, their path counts, pulled from the marks of level `d`
    /// (tagged `t`).
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &mut self,
        slot: &Slot,
        new: Range<usize>,
        d: usize,
        t: u64,
        all: u64,
        lazy: bool,
    ) -> Sums {
        let sh = self.sh;
        let q = &sh.queue;
        let (above, here) = (&sh.marks[d % 2], &sh.marks[(d + 1) % 2]);
        let mut sums = Sums::default();
        let acc = &mut self.acc;
        let (out, inc) = (self.out, self.inc);
        let gathers = !self.options.atomic_counts;
        // In-edges unknown yet: the entries' count, at a typical degree.
        let guess = new.len() as u64 * (STATIC_DEGREE + 1);
        share_with(self.me, self.workers, slot, new.len(), guess, |r| {
            for i in r {
                let i = new.start + i;
                let w = q.vert(i);
                let wu = w as usize;
                let lanes = sh.sn[2 * wu + 1].load(Relaxed);
                sh.sn[2 * wu + 1].store(0, Relaxed);
                q.lanes_slot(i).store(lanes, Relaxed);
                let old = sh.sn[2 * wu].load(Relaxed);
                sh.sn[2 * wu].store(old | lanes, Relaxed);
                if lazy {
                    continue;
                }
                if old | lanes == all {
                    sums.done += inc.degree(w);
                }
                sums.scout += out.degree(w);
                here.set(wu, lanes, t + 1);
                if gathers {
                    gather(inc, above, &sh.sigma, w, lanes, t, acc);
                    let mut b = lanes;
                    while b != 0 {
                        let l = b.trailing_zeros() as usize;
                        store(sh.sigma.at(wu, l), acc[l]);
                        b &= b - 1;
                    }
                }
            }
        });
        sums
    }

    /// A pulled level `d + 1`: every vertex missing lanes gathers them, with
    /// their path counts, from its in-neighbours marked at level `d` (tag `t`).
    fn pull(&mut self, slot: &Slot, d: usize, t: u64, all: u64, buf: &mut Vec<(u32, u64)>) -> Sums {
        let sh = self.sh;
        let n = sh.sn.len() / 2;
        let (above, here) = (&sh.marks[d % 2], &sh.marks[(d + 1) % 2]);
        let mut sums = Sums::default();
        let acc = &mut self.acc;
        let (out, inc) = (self.out, self.inc);
        while let Some(r) = slot.grab(SCAN_GRAIN, n) {
            for wu in r {
                let old = sh.sn[2 * wu].load(Relaxed);
                let missing = all & !old;
                if missing == 0 {
                    continue;
                }
                let w = wu as u32;
                let found = gather(inc, above, &sh.sigma, w, missing, t, acc);
                if found == 0 {
                    continue;
                }
                let mut b = found;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    store(sh.sigma.at(wu, l), acc[l]);
                    b &= b - 1;
                }
                sh.sn[2 * wu].store(old | found, Relaxed);
                if old | found == all {
                    sums.done += inc.degree(w);
                }
                sums.scout += out.degree(w);
                here.set(wu, found, t + 1);
                buf.push((w, found));
            }
        }
        sh.queue.append_with(buf);
        sums.found = buf.len() as u64;
        buf.clear();
        sums
    }

    /// The dependencies of level `d` (`window`, `scout` out-edges or a bound;
    /// batch tags from `tag`): each entry's lanes sum ρ over successors marked
    /// at `d + 1`; the entries are marked at `d`.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &mut self,
        slot: &Slot,
        window: Range<usize>,
        scout: u64,
        d: usize,
        tag: u64,
        deepest: bool,
    ) {
        let sh = self.sh;
        let q = &sh.queue;
        let (below, here) = (&sh.marks[(d + 1) % 2], &sh.marks[d % 2]);
        let (tb, th) = (tag + d as u64 + 1, tag + d as u64);
        let acc = &mut self.acc;
        let out = self.out;
        share_with(self.me, self.workers, slot, window.len(), scout, |r| {
            for i in r {
                let v = q.vert(window.start + i);
                let lanes = q.lanes(window.start + i);
                here.set(v as usize, lanes, th);
                let mut b = lanes;
                while b != 0 {
                    acc[b.trailing_zeros() as usize] = 0.0;
                    b &= b - 1;
                }
                if !deepest {
                    for &w in out.neighbors(v) {
                        let wu = w as usize;
                        let mut b = below.get(wu, lanes, tb);
                        while b != 0 {
                            let l = b.trailing_zeros() as usize;
                            acc[l] += load(sh.sigma.at(wu, l));
                            b &= b - 1;
                        }
                    }
                }
                let vu = v as usize;
                let mut total = 0.0;
                let mut b = lanes;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    let s = sh.sigma.at(vu, l);
                    let sigma = load(s);
                    let delta = sigma * acc[l];
                    total += delta;
                    store(s, (1.0 + delta) / sigma);
                    b &= b - 1;
                }
                if total != 0.0 {
                    let sc = &sh.scores[vu];
                    store(sc, load(sc) + total);
                }
            }
        });
    }
}

/// Sums into `acc`, per lane of `want`, the path counts of `w`'s in-neighbours
/// marked (tag `t`) in that lane; returns the lanes found. A lane not found
/// leaves its `acc` unspecified.
#[inline(always)]
fn gather<W: Weight, M: Marks>(
    inc: &Csr<W>,
    above: &M,
    sigma: &Counts,
    w: u32,
    want: u64,
    t: u64,
    acc: &mut [f64],
) -> u64 {
    let mut found = 0u64;
    for &v in inc.neighbors(w) {
        let vu = v as usize;
        let m = above.get(vu, want, t);
        if m == 0 {
            continue;
        }
        let mut b = m;
        while b != 0 {
            let l = b.trailing_zeros() as usize;
            let x = load(sigma.at(vu, l));
            if found >> l & 1 == 0 {
                acc[l] = x;
            } else {
                acc[l] += x;
            }
            b &= b - 1;
        }
        found |= m;
    }
    found
}
