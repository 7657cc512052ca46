//! One round's buffers ([`Round`]) and what one GPU thread does with them in
//! each launch: init, emit, pull, push, apply, refresh, a level sweep.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use super::{Ctx, GatherProgram};
use crate::skeleton::{chunk_rows, CsrView};
use crate::thread::ThreadCtx;
use crate::warp::{kernel_warp, Warp};
use crate::word::StateWord;

/// One round's buffers, as slices (device or host memory).
pub struct Round<'a, P: GatherProgram> {
    /// Vertices.
    pub n: u32,
    /// Edges of the whole graph ([`Ctx::num_edges`]).
    pub num_edges: u64,
    /// The vertices `first..end` that init, emit, apply and refresh run (all
    /// on one GPU; a part's own on several, whose slices of the messages and
    /// the next frontier the host then exchanges).
    pub first: u32,
    pub end: u32,
    /// Out-edges (CSR) and in-edges (CSC): offsets `n + 1`, neighbours, weights.
    pub out_offsets: &'a [u64],
    pub out_targets: &'a [u32],
    pub out_weights: &'a [P::Weight],
    pub in_offsets: &'a [u64],
    pub in_sources: &'a [u32],
    pub in_weights: &'a [P::Weight],
    pub state: &'a [core::cell::UnsafeCell<P::State>],
    pub msg: &'a [core::cell::UnsafeCell<P::Msg>],
    pub acc: &'a [<P::Acc as StateWord>::Atomic],
    /// Bitmap of this round's frontier (`None`: every vertex).
    pub frontier: Option<&'a [AtomicU32]>,
    /// Bitmap of vertices that received a value (`None`: not tracked, dense).
    pub received: Option<&'a [AtomicU32]>,
    /// Bitmap of the next frontier (frontier-driven programs).
    pub next: Option<&'a [AtomicU32]>,
    /// The launch's tallies: per-warp slots and their fold ([`super::tally`]).
    pub tally: &'a [AtomicU64],
    pub round: u32,
    pub source: u32,
    pub global: f64,
}

#[inline(always)]
fn bit(bits: &[AtomicU32], v: usize) -> bool {
    bits[v / 32].load(Relaxed) & (1 << (v % 32)) != 0
}

#[inline(always)]
fn set_bit(bits: &[AtomicU32], v: usize) {
    let mask = 1u32 << (v % 32);
    // Read first: most sets in a round hit words already set.
    if bits[v / 32].load(Relaxed) & mask == 0 {
        bits[v / 32].fetch_or(mask, Relaxed);
    }
}

#[inline(always)]
fn sat(d: u64) -> u32 {
    if d > u32::MAX as u64 {
        u32::MAX
    } else {
        d as u32
    }
}

impl<'a, P: GatherProgram> Round<'a, P> {
    /// The context of `v` in this round.
    #[inline(always)]
    pub fn ctx(&self, v: usize) -> Ctx {
        Ctx {
            vertex: v as u32,
            out_degree: sat(self.out_offsets[v + 1] - self.out_offsets[v]),
            in_degree: sat(self.in_offsets[v + 1] - self.in_offsets[v]),
            num_vertices: self.n,
            num_edges: self.num_edges,
            round: self.round,
            source: self.source,
            global: self.global,
        }
    }

    #[inline(always)]
    fn in_frontier(&self, v: usize) -> bool {
        match self.frontier {
            None => true,
            Some(f) => bit(f, v),
        }
    }

    /// Initial states, accumulators at identity, and (frontier-driven programs)
    /// the initial frontier in `next`. `preset`: the host already wrote the states
    /// (a program run from another's results, e.g. Brandes's backward phase); they
    /// are kept and only the frontier is derived from them.
    #[inline(always)]
    pub fn init(&self, t: ThreadCtx, preset: bool) {
        let (mut activated, mut edges) = (0u32, 0u64);
        let mut v = self.first as usize + t.global() as usize;
        while v < self.end as usize {
            let ctx = self.ctx(v);
            // SAFETY: one thread per vertex reads and writes it (grid-stride loop).
            let s = if preset {
                unsafe { *self.state[v].get() }
            } else {
                P::init(ctx)
            };
            // SAFETY: as above.
            unsafe { *self.state[v].get() = s };
            P::Acc::store(&self.acc[v], P::identity());
            if let Some(next) = self.next {
                if P::active(ctx, s, s) {
                    set_bit(next, v);
                    activated += 1;
                    edges += ctx.out_degree as u64;
                }
            }
            v += t.stride() as usize;
        }
        self.write_tally(t, reduce_identity::<P>(), 0, activated, edges);
    }

    /// `msg[v] = emit(ctx, state[v])` for the frontier.
    #[inline(always)]
    pub fn emit(&self, t: ThreadCtx) {
        let mut v = self.first as usize + t.global() as usize;
        while v < self.end as usize {
            if self.in_frontier(v) {
                // SAFETY: one thread per vertex; state is not written in this launch.
                unsafe { *self.msg[v].get() = P::emit(self.ctx(v), *self.state[v].get()) };
            }
            v += t.stride() as usize;
        }
    }

    /// The weight of in-edge `k` (`()` for unweighted programs).
    #[inline(always)]
    fn in_weight(&self, k: usize) -> P::Weight {
        if P::WEIGHTED {
            self.in_weights[k]
        } else {
            // SAFETY: unweighted programs have `Weight = ()` (checked by the
            // macro): a ZST read from a ZST slice.
            unsafe { core::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
        }
    }

    /// The message of in-edge `k`'s source.
    ///
    /// # Safety
    /// `k < in_sources.len()`. The graph guarantees every source is `< n`, the
    /// length of `msg`, and `msg` is not written during a gather launch.
    #[inline(always)]
    unsafe fn in_msg(&self, k: usize) -> (usize, P::Msg) {
        let u = *self.in_sources.get_unchecked(k) as usize;
        debug_assert!(u < self.msg.len());
        (u, *self.msg.get_unchecked(u).get())
    }

    /// `⊕ gather(msg[u], w)` over in-edges `from..to` (in order) whose source is in
    /// the frontier, and whether any was. Dense unweighted runs, PageRank's case,
    /// load four sources and then four messages before combining: the loads are
    /// independent, so they overlap instead of paying two memory latencies per
    /// edge; the combine order, and so every floating-point sum, is unchanged.
    #[inline(always)]
    fn gather_run(&self, from: usize, to: usize) -> (P::Acc, bool) {
        let mut acc = P::identity();
        assert!(from <= to && to <= self.in_sources.len());
        let mut k = from;
        if self.frontier.is_none() && !P::WEIGHTED {
            while k + 4 <= to {
                // SAFETY: k + 3 < to <= in_sources.len() (asserted above).
                let (m0, m1, m2, m3) = unsafe {
                    (
                        self.in_msg(k).1,
                        self.in_msg(k + 1).1,
                        self.in_msg(k + 2).1,
                        self.in_msg(k + 3).1,
                    )
                };
                let w = self.in_weight(k);
                acc = P::combine(acc, P::gather(m0, w));
                acc = P::combine(acc, P::gather(m1, w));
                acc = P::combine(acc, P::gather(m2, w));
                acc = P::combine(acc, P::gather(m3, w));
                k += 4;
            }
            while k < to {
                // SAFETY: k < to <= in_sources.len().
                let m = unsafe { self.in_msg(k).1 };
                acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                k += 1;
            }
            return (acc, from < to);
        }
        let mut got = false;
        while k < to {
            let u = self.in_sources[k] as usize;
            // Messages are read only from frontier sources: the others' slots
            // may hold nothing written this run.
            if self.in_frontier(u) {
                // SAFETY: `msg` is not written during a gather launch.
                let m = unsafe { *self.msg[u].get() };
                acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                got = true;
            }
            k += 1;
        }
        (acc, got)
    }

    /// Pull: one thread per chunk of `mec` in-edges (CSC), `sv[i]` the vertex
    /// owning chunk `i`'s first edge. A vertex wholly inside a chunk is written
    /// with a plain store; one spanning chunks is combined atomically. The walk
    /// keeps the current vertex's edge range in registers and reads each offset
    /// once (as `bench/cuda/pr_pull.cu` does), skipping vertices without
    /// in-edges.
    #[inline(always)]
    pub fn pull(&self, t: ThreadCtx, sv: &[u32], mec: u64) {
        let offsets = self.in_offsets;
        let m = self.in_sources.len() as u64;
        let mut i = t.global();
        while i < sv.len() as u64 {
            let first = i * mec;
            let last = if m - first < mec { m } else { first + mec };
            let mut v = sv[i as usize] as usize;
            let mut begin = offsets[v];
            let mut end = offsets[v + 1];
            // `sv` names the vertex whose range holds `first`; walk on if not.
            while end <= first {
                v += 1;
                begin = end;
                end = offsets[v + 1];
            }
            let mut e = first;
            while e < last {
                let stop = if end < last { end } else { last };
                // SAFETY: states are not written during a gather launch.
                let skip = P::ACCEPTS && !P::accepts(unsafe { *self.state[v].get() });
                if !skip {
                    let (acc, got) = self.gather_run(e as usize, stop as usize);
                    if got {
                        if begin >= first && end <= last {
                            P::Acc::store(&self.acc[v], acc);
                        } else {
                            P::combine_atomic(&self.acc[v], acc);
                        }
                        if let Some(r) = self.received {
                            set_bit(r, v);
                        }
                    }
                }
                e = stop;
                // The next vertex with in-edges: `e < last <= m = offsets[n]`
                // leaves one below `n`.
                while e < last && end == e {
                    v += 1;
                    begin = end;
                    end = offsets[v + 1];
                }
            }
            i += t.stride();
        }
    }

    /// Push: one thread per chunk of `mec` out-edges (CSR); frontier vertices
    /// combine `gather(msg, w)` into their targets' accumulators atomically.
    #[inline(always)]
    pub fn push(&self, t: ThreadCtx, sv: &[u32], mec: u64) {
        let out = CsrView {
            offsets: self.out_offsets,
            targets: self.out_targets,
        };
        let mut i = t.global();
        while i < sv.len() as u64 {
            chunk_rows(out, mec, i, sv[i as usize], |u, edges| {
                if self.in_frontier(u) {
                    // SAFETY: `msg` is not written during a gather launch.
                    let msg = unsafe { *self.msg[u].get() };
                    for k in edges {
                        let v = self.out_targets[k] as usize;
                        // SAFETY: states are not written during a gather launch.
                        if P::ACCEPTS && !P::accepts(unsafe { *self.state[v].get() }) {
                            continue;
                        }
                        let w = if P::WEIGHTED {
                            self.out_weights[k]
                        } else {
                            // SAFETY: as in `pull`.
                            unsafe { core::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
                        };
                        P::combine_atomic(&self.acc[v], P::gather(msg, w));
                        if let Some(r) = self.received {
                            set_bit(r, v);
                        }
                    }
                }
            });
            i += t.stride();
        }
    }

    /// Apply to every vertex (`received == None` or a dense round, `all`) or to
    /// those that received a value; resets their accumulators, builds the next
    /// frontier and publishes the launch's tally. With `emit` (dense programs
    /// whose `emit` reads no [`Ctx::global`]), also writes each vertex's message
    /// for the next round, so a round is two launches (pull, apply), not three:
    /// the pull that read the messages has finished.
    #[inline(always)]
    pub fn apply(&self, t: ThreadCtx, all: bool, emit: bool) {
        let mut red = reduce_identity::<P>();
        let mut changed = 0u32;
        let mut activated = 0u32;
        let mut activated_edges = 0u64;
        let mut v = self.first as usize + t.global() as usize;
        while v < self.end as usize {
            let run = all
                || match self.received {
                    None => true,
                    Some(r) => bit(r, v),
                };
            if run {
                let ctx = self.ctx(v);
                // SAFETY: one thread per vertex reads and writes its state.
                let old = unsafe { *self.state[v].get() };
                let acc = P::Acc::load(&self.acc[v]);
                let new = P::apply(ctx, old, acc);
                // SAFETY: as above.
                unsafe { *self.state[v].get() = new };
                if emit {
                    let next = Ctx {
                        round: self.round + 1,
                        ..ctx
                    };
                    // SAFETY: one thread per vertex; no launch reads messages
                    // while an apply runs.
                    unsafe { *self.msg[v].get() = P::emit(next, new) };
                }
                P::Acc::store(&self.acc[v], P::identity());
                red = P::REDUCE.combine(red, P::reduce(ctx, old, new));
                if new != old {
                    changed += 1;
                }
                if let Some(next) = self.next {
                    if P::active(ctx, old, new) {
                        set_bit(next, v);
                        activated += 1;
                        activated_edges += ctx.out_degree as u64;
                    }
                }
            }
            v += t.stride() as usize;
        }
        self.write_tally(t, red, changed, activated, activated_edges);
    }

    /// One round of a level sweep: applies the vertices `order[lo..hi]` (one thread
    /// each), each reducing `gather` over its in-edges whose source has rank
    /// `round - 1` (applied in the previous round; round 0 gathers nothing), then
    /// emits its message. `rank[v]` is the round that applies `v` (`u32::MAX`:
    /// none). No tally: a sweep's rounds are known in advance, so the host queues
    /// them all without reading anything back.
    #[inline(always)]
    pub fn sweep(&self, t: ThreadCtx, order: &[u32], rank: &[u32], lo: u64, hi: u64) {
        let prev = self.round.wrapping_sub(1);
        let mut i = lo + t.global();
        while i < hi {
            let v = order[i as usize] as usize;
            let mut acc = P::identity();
            if self.round > 0 {
                let (from, to) = (self.in_offsets[v] as usize, self.in_offsets[v + 1] as usize);
                let mut k = from;
                while k < to {
                    let u = self.in_sources[k] as usize;
                    if rank[u] == prev {
                        // SAFETY: `u` was applied last round; this launch writes only
                        // messages of this round's vertices, never `msg[u]`.
                        let m = unsafe { *self.msg[u].get() };
                        acc = P::combine(acc, P::gather(m, self.in_weight(k)));
                    }
                    k += 1;
                }
            }
            let ctx = self.ctx(v);
            // SAFETY: `v` appears once in `order`: this thread is its only reader
            // and writer in this launch.
            unsafe {
                let new = P::apply(ctx, *self.state[v].get(), acc);
                *self.state[v].get() = new;
                *self.msg[v].get() = P::emit(ctx, new);
            }
            i += t.stride();
        }
    }

    /// Dense rounds of frontier-driven programs: the reduction of `reduce(s, s)`
    /// over all vertices (the next round's [`Ctx::global`]).
    #[inline(always)]
    pub fn refresh(&self, t: ThreadCtx) {
        let mut red = reduce_identity::<P>();
        let mut v = self.first as usize + t.global() as usize;
        while v < self.end as usize {
            // SAFETY: state is only read in this launch.
            let s = unsafe { *self.state[v].get() };
            red = P::REDUCE.combine(red, P::reduce(self.ctx(v), s, s));
            v += t.stride() as usize;
        }
        self.write_tally(t, red, 0, 0, 0);
    }

    /// Reduces the tallies over the warp and publishes them
    /// ([`super::tally::publish`]: the launch's warps fold them on the device).
    #[inline(always)]
    fn write_tally(&self, t: ThreadCtx, red: f64, changed: u32, activated: u32, edges: u64) {
        let w = kernel_warp(t);
        let size = <crate::warp::KernelWarp as Warp>::SIZE as u64;
        let mut r = red;
        let mut k = size as u32 / 2;
        while k > 0 {
            let other = f64::from_bits(w.shfl_u64(r.to_bits(), w.lane() ^ k));
            r = P::REDUCE.combine(r, other);
            k /= 2;
        }
        let counts = w.sum_u64((changed as u64) << 32 | activated as u64);
        let edges = w.sum_u64(edges);
        let (warp, warps) = (t.global() / size, t.stride().div_ceil(size));
        super::tally::publish(
            w,
            P::REDUCE,
            self.tally,
            warp,
            warps,
            [r.to_bits(), counts, edges],
        );
    }
}

#[inline(always)]
fn reduce_identity<P: GatherProgram>() -> f64 {
    P::REDUCE.identity()
}
