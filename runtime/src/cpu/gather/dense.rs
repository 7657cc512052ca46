//! Dense rounds on the CPU (programs without `active`, PageRank's shape): every
//! vertex is gathered and applied every round, one pass over the vertices a
//! round.
//!
//! * **Jacobi** ([`Engine::run_dense`]): each vertex reduces the messages its
//!   in-neighbours sent the round before, applies, and writes its own next
//!   message into a second buffer (swapped after the round). Results do not
//!   depend on the thread count. A program whose `emit` may read the round's
//!   reduction ([`GatherProgram::EMIT_READS_GLOBAL`]) emits in a pass of its own
//!   instead, once the reduction is known.
//! * **Gauss–Seidel** ([`Engine::run_dense_in_place`], [`GatherOptions::gauss_seidel`]):
//!   a vertex emits right after its apply, into the one message array, so
//!   vertices gathered later in the round read the new message (gapbs's `pr`).
//!   On graphs whose ids run along rows (grids) a block runs [`CHAINS`] chains of
//!   vertices side by side.
//!
//! Both walk the vertices in blocks of [`GRAIN`] that rayon balances. A block is
//! one plain loop with the whole vertex step inlined into it, over a copy of the
//! graph's arrays held in registers ([`Dense`]): offsets and neighbour ids read
//! without bounds checks (the graph's invariants, checked when it was built,
//! bound them), the round's sums kept in registers, the block's edges counted
//! from its offsets, not per vertex. Per vertex that is what gapbs's loop does.
//! Before, the step was a closure called per vertex, with the tally written
//! through memory (a store-to-load chain from vertex to vertex), every field
//! reloaded after each state store and the base score's division redone per
//! vertex, and Jacobi rounds made a second pass to emit. PageRank, 1 thread,
//! 2-core machine, CPU ms, before → after (gapbs `pr`): 1000² grid Jacobi 121 →
//! 62, Gauss–Seidel 64 → 39 (69); Kronecker 2^18 Jacobi 57 → 49 (49–53);
//! uniform 2^18 Gauss–Seidel 38 → 27 (22–27); 300,000-point mesh Jacobi 39 → 26
//! (29).
//!
//! [`GatherOptions::gauss_seidel`]: crate::gather::GatherOptions::gauss_seidel

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::{Cells, Engine, GRAIN};

mod driven;
use crate::gather::{no_weight, Ctx, GatherProgram, GatherReport, GatherRun};

/// An atomic word that holds one message's bytes: `AtomicU32` for 4-byte messages
/// (half the cache footprint of the random in-edge reads), `AtomicU64` for 8.
pub(super) trait MsgWord: Send + Sync {
    fn new(bits: u64) -> Self;
    fn load_bits(&self) -> u64;
    fn store_bits(&self, bits: u64);
}

impl MsgWord for AtomicU32 {
    #[inline(always)]
    fn new(bits: u64) -> Self {
        AtomicU32::new(bits as u32)
    }
    #[inline(always)]
    fn load_bits(&self) -> u64 {
        self.load(Relaxed) as u64
    }
    #[inline(always)]
    fn store_bits(&self, bits: u64) {
        self.store(bits as u32, Relaxed)
    }
}

impl MsgWord for AtomicU64 {
    #[inline(always)]
    fn new(bits: u64) -> Self {
        AtomicU64::new(bits)
    }
    #[inline(always)]
    fn load_bits(&self) -> u64 {
        self.load(Relaxed)
    }
    #[inline(always)]
    fn store_bits(&self, bits: u64) {
        self.store(bits, Relaxed)
    }
}

/// A message of 4 or 8 bytes kept in one atomic word `A` (Gauss–Seidel rounds read
/// messages while other threads replace them).
pub(super) struct AtomicMsg<M, A> {
    word: A,
    _msg: std::marker::PhantomData<M>,
}

impl<M: Copy, A: MsgWord> AtomicMsg<M, A> {
    pub(super) fn new(m: M) -> Self {
        // `GatherOptions::resolve` refuses other sizes before an engine runs, and
        // `run_dense_in_place` picks `A` as wide as `M`; the byte copies rely on it.
        assert!(
            std::mem::size_of::<M>() <= std::mem::size_of::<A>(),
            "message wider than its word"
        );
        AtomicMsg {
            word: A::new(Self::to_bits(m)),
            _msg: std::marker::PhantomData,
        }
    }
    #[inline(always)]
    fn to_bits(m: M) -> u64 {
        let mut bytes = [0u8; 8];
        // SAFETY: `M` is plain data of at most 8 bytes (asserted in `new`), copied into
        // the first bytes of the buffer; the regions do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &m as *const M as *const u8,
                bytes.as_mut_ptr(),
                std::mem::size_of::<M>(),
            )
        };
        // Little-endian on every target: the message's bytes are the word's low ones,
        // which a `u32` word keeps.
        u64::from_le_bytes(bytes)
    }
    #[inline(always)]
    pub(super) fn load(&self) -> M {
        let bytes = self.word.load_bits().to_le_bytes();
        let mut m = std::mem::MaybeUninit::<M>::uninit();
        // SAFETY: the bytes were written by `to_bits` from a valid `M`; copying them
        // back yields that value.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                m.as_mut_ptr() as *mut u8,
                std::mem::size_of::<M>(),
            );
            m.assume_init()
        }
    }
    #[inline(always)]
    pub(super) fn store(&self, m: M) {
        self.word.store_bits(Self::to_bits(m));
    }
}

/// Chains a Gauss–Seidel block runs side by side on a graph whose vertices
/// mostly have their predecessor as an in-neighbour (grids, ids along rows; see
/// [`Dense::chained`]). In place, such a vertex waits for its predecessor's
/// update: one store → load → add → divide → store chain per row, and with few
/// edges per vertex that chain is the round's cost. The block's quarters,
/// stepped alternately (v, v + q, v + 2q, v + 3q, v + 1, …), are four
/// independent chains the core overlaps. 1000² grid, 1 thread, a round: 9.4 ms
/// in order, 5.9 with two chains, 4.2–4.6 with four, 6.2–7.2 with eight (gapbs
/// 7.3). Where the predecessor is not a neighbour (Kronecker, uniform, meshes)
/// the extra streams only cost (mesh: 2.6 ms in order, 2.8 with two chains).
const CHAINS: usize = 4;

/// Most blocks a worker takes at once in a dense pass ([`Dense::pass`]): 16 Ki
/// vertices, gapbs's `schedule(dynamic, 16384)`.
const RUN_BLOCKS: usize = 16;

/// Vertices [`Dense::chained`] samples.
const CHAIN_SAMPLES: usize = 1024;

/// Per-round sums of a dense pass.
#[derive(Clone, Copy)]
struct Tally {
    reduced: f64,
    changed: u64,
    edges: u64,
}

/// Where a dense step reads in-neighbours' messages from.
trait Messages<M>: Sync {
    /// The message of vertex `u`.
    ///
    /// # Safety
    /// `u` is below the vertex count (a neighbour id of the graph).
    unsafe fn at(&self, u: usize) -> M;
}

impl<M: Copy + Send> Messages<M> for Cells<M> {
    #[inline(always)]
    unsafe fn at(&self, u: usize) -> M {
        self.get_neighbour(u)
    }
}

impl<M: Copy + Send + Sync, A: MsgWord> Messages<M> for [AtomicMsg<M, A>] {
    #[inline(always)]
    unsafe fn at(&self, u: usize) -> M {
        debug_assert!(u < self.len());
        self.get_unchecked(u).load()
    }
}

/// What the dense passes read of the graph, copied out of the engine: a plain
/// value the compiler keeps in registers across a block's loop. Read through
/// `&Engine` (whose `Mutex` makes it a shared-mutable place), every field was
/// reloaded after each state store, and the base score's division by the vertex
/// count redone per vertex.
struct Dense<'a, P: GatherProgram> {
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    in_weights: &'a [P::Weight],
    out_offsets: &'a [u64],
    n: usize,
    num_edges: u64,
    source: u32,
}

impl<P: GatherProgram> Clone for Dense<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: GatherProgram> Copy for Dense<'_, P> {}

impl<'a, P: GatherProgram> Dense<'a, P> {
    /// The view of `e`, after checking what the unchecked reads rely on.
    fn of(e: &Engine<'a, P>) -> Self {
        let n = e.n;
        assert!(e.in_offsets.len() == n + 1 && e.out_offsets.len() == n + 1);
        assert_eq!(e.in_offsets[n] as usize, e.in_sources.len());
        let in_weights = e.in_weights.unwrap_or_default();
        if P::WEIGHTED {
            assert_eq!(in_weights.len(), e.in_sources.len());
        }
        Dense {
            in_offsets: e.in_offsets,
            in_sources: e.in_sources,
            in_weights,
            out_offsets: e.out_offsets,
            n,
            num_edges: e.out_targets.len() as u64,
            source: e.r.source,
        }
    }

    /// [`Engine::ctx`] without bounds checks.
    ///
    /// # Safety
    /// `v < self.n` (both offset arrays hold `n + 1` entries, checked in
    /// [`Dense::of`]).
    #[inline(always)]
    unsafe fn ctx(self, v: usize, round: u32, global: f64) -> Ctx {
        let deg = |o: &[u64]| {
            let d = *o.get_unchecked(v + 1) - *o.get_unchecked(v);
            d.min(u32::MAX as u64) as u32
        };
        Ctx {
            vertex: v as u32,
            out_degree: deg(self.out_offsets),
            in_degree: deg(self.in_offsets),
            num_vertices: self.n as u32,
            num_edges: self.num_edges,
            round,
            source: self.source,
            global,
        }
    }

    /// Gathers `v`'s in-edges and applies; returns the context and the new
    /// state, and adds the change to `reduced` and `changed`.
    ///
    /// # Safety
    /// `v < self.n`; no other task writes `v`'s state in this pass.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn step(
        self,
        v: usize,
        round: u32,
        global: f64,
        state: &Cells<P::State>,
        msg: &(impl Messages<P::Msg> + ?Sized),
        reduced: &mut f64,
        changed: &mut u64,
    ) -> (Ctx, P::State) {
        let lo = *self.in_offsets.get_unchecked(v) as usize;
        let hi = *self.in_offsets.get_unchecked(v + 1) as usize;
        let mut acc = P::identity();
        // Offsets are monotone and end at the edge count (the graph's build
        // checked the first, `Dense::of` the second), so `lo..hi` lies in the
        // arrays; neighbour ids are below `n`.
        let sources = self.in_sources.get_unchecked(lo..hi);
        if P::WEIGHTED {
            let w = self.in_weights.get_unchecked(lo..hi);
            for (&u, &w) in sources.iter().zip(w) {
                acc = P::combine(acc, P::gather(msg.at(u as usize), w));
            }
        } else {
            for &u in sources {
                acc = P::combine(acc, P::gather(msg.at(u as usize), no_weight::<P>()));
            }
        }
        let ctx = self.ctx(v, round, global);
        let cell = state.0.get_unchecked(v).get();
        let old = *cell;
        let new = P::apply(ctx, old, acc);
        *cell = new;
        *reduced = P::REDUCE.combine(*reduced, P::reduce(ctx, old, new));
        *changed += (new != old) as u64;
        (ctx, new)
    }

    /// [`Dense::step`], then `emit` into `v`'s message at once (Gauss–Seidel).
    ///
    /// # Safety
    /// As [`Dense::step`].
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn step_in_place<A: MsgWord>(
        self,
        v: usize,
        round: u32,
        global: f64,
        state: &Cells<P::State>,
        msg: &[AtomicMsg<P::Msg, A>],
        reduced: &mut f64,
        changed: &mut u64,
    ) {
        let (ctx, new) = self.step(v, round, global, state, msg, reduced, changed);
        msg.get_unchecked(v).store(P::emit(ctx, new));
    }

    /// Jacobi: [`Dense::step`] for the vertices `lo..hi`, reading `msg`, which no
    /// task writes in this pass; with `EMIT`, each vertex's message for the next
    /// round goes to `next` (see [`Engine::run_dense`]).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn block<const EMIT: bool>(
        self,
        lo: usize,
        hi: usize,
        round: u32,
        global: f64,
        state: &Cells<P::State>,
        msg: &Cells<P::Msg>,
        next: &Cells<P::Msg>,
    ) -> Tally {
        let (mut reduced, mut changed) = (P::REDUCE.identity(), 0);
        for v in lo..hi {
            // SAFETY: `v < n`; this block is `v`'s only writer (of its state and
            // of `next[v]`, which has `n` entries when `EMIT`).
            unsafe {
                let (ctx, new) =
                    self.step(v, round, global, state, msg, &mut reduced, &mut changed);
                if EMIT {
                    // `emit` reads no `global` (the caller checked), which is
                    // all this context lacks for the next round.
                    let ctx = Ctx {
                        round: round + 1,
                        ..ctx
                    };
                    *next.0.get_unchecked(v).get() = P::emit(ctx, new);
                }
            }
        }
        Tally {
            reduced,
            changed,
            edges: self.edges(lo, hi),
        }
    }

    /// Gauss–Seidel: [`Dense::step_in_place`] for the vertices `lo..hi`, in
    /// [`CHAINS`] interleaved chains if `chained`.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn block_in_place<A: MsgWord>(
        self,
        chained: bool,
        lo: usize,
        hi: usize,
        round: u32,
        global: f64,
        state: &Cells<P::State>,
        msg: &[AtomicMsg<P::Msg, A>],
    ) -> Tally {
        let (mut reduced, mut changed) = (P::REDUCE.identity(), 0);
        let edges = self.edges(lo, hi);
        // SAFETY (every step): `v < n`; this block is `v`'s only writer;
        // messages are atomic words.
        let (r, g) = (&mut reduced, &mut changed);
        let q = (hi - lo) / CHAINS;
        if chained && q > 0 {
            for v in lo..lo + q {
                for c in 0..CHAINS {
                    unsafe { self.step_in_place(v + c * q, round, global, state, msg, r, g) };
                }
            }
            // What the quarters leave of a block that does not divide evenly.
            for v in lo + CHAINS * q..hi {
                unsafe { self.step_in_place(v, round, global, state, msg, r, g) };
            }
        } else {
            for v in lo..hi {
                unsafe { self.step_in_place(v, round, global, state, msg, r, g) };
            }
        }
        Tally {
            reduced,
            changed,
            edges,
        }
    }

    /// Whether most vertices have their predecessor (`v - 1`) among their
    /// in-neighbours, judged on [`CHAIN_SAMPLES`] vertices spread over the ids
    /// (scanning at most 16 in-edges of each: past that many the chain is not
    /// what a vertex waits for): Gauss–Seidel rounds then run
    /// [`CHAINS`] chains side by side.
    fn chained(self) -> bool {
        let step = (self.n / CHAIN_SAMPLES).max(1);
        let (mut with, mut sampled) = (0usize, 0usize);
        for v in (1..self.n).step_by(step) {
            let (lo, hi) = (self.in_offsets[v] as usize, self.in_offsets[v + 1] as usize);
            if lo == hi {
                continue;
            }
            sampled += 1;
            let pred = (v - 1) as u32;
            with += self.in_sources[lo..hi.min(lo + 16)].contains(&pred) as usize;
        }
        2 * with > sampled
    }

    /// In-edges of the vertices `lo..hi`.
    #[inline(always)]
    fn edges(self, lo: usize, hi: usize) -> u64 {
        self.in_offsets[hi] - self.in_offsets[lo]
    }

    /// `block(lo, hi)` over the vertices in blocks of [`GRAIN`], the blocks'
    /// tallies combined. Rayon spreads runs of blocks over the workers as it
    /// spreads any range, but which run a task takes is read from a shared
    /// cursor, in increasing order (OpenMP's `schedule(dynamic)`, as gapbs's
    /// `pr`): at any time the workers run blocks near each other, and the round
    /// sweeps the ids from low to high. Gauss–Seidel rounds converge as a sweep
    /// does: with one range per worker (rayon's split of the range itself), a
    /// vertex of a later range saw fewer updated in-neighbours, and runs took more
    /// rounds as threads were added (Kronecker 2^18: 9 at 1 thread, 11 at 2;
    /// gapbs 9 and 10; now 8–9). A run is up to [`RUN_BLOCKS`] blocks, fewer when
    /// that would leave under four runs a worker: workers on neighbouring single
    /// blocks of a grid read the rows the other is writing, every line moving
    /// between their caches (2 threads, 1000² grid: no faster than 1).
    #[inline(always)]
    fn pass(self, block: impl Fn(usize, usize) -> Tally + Sync) -> Tally {
        let zero = || Tally {
            reduced: P::REDUCE.identity(),
            changed: 0,
            edges: 0,
        };
        let fold = |a: Tally, b: Tally| Tally {
            reduced: P::REDUCE.combine(a.reduced, b.reduced),
            changed: a.changed + b.changed,
            edges: a.edges + b.edges,
        };
        self.walk(zero, fold, block)
    }

    /// [`Self::pass`]'s walk, folding any per-block sum `T` with `fold` from
    /// `zero` (the data-driven sweeps fold their own).
    #[inline(always)]
    fn walk<T: Send>(
        self,
        zero: impl Fn() -> T + Sync + Send,
        fold: impl Fn(T, T) -> T + Sync + Send,
        block: impl Fn(usize, usize) -> T + Sync,
    ) -> T {
        let blocks = self.n.div_ceil(GRAIN);
        let per_run = (blocks / (4 * rayon::current_num_threads())).clamp(1, RUN_BLOCKS);
        let cursor = AtomicUsize::new(0);
        (0..blocks.div_ceil(per_run))
            .into_par_iter()
            .map(|_| {
                let r = cursor.fetch_add(1, Relaxed);
                (r * per_run..((r + 1) * per_run).min(blocks)).fold(zero(), |t, b| {
                    fold(t, block(b * GRAIN, ((b + 1) * GRAIN).min(self.n)))
                })
            })
            .reduce(&zero, &fold)
    }

    /// `emit` of every vertex into `msg`, for round `round`.
    fn emit_all(self, state: &Cells<P::State>, msg: &Cells<P::Msg>, round: u32, global: f64) {
        (0..self.n.div_ceil(GRAIN)).into_par_iter().for_each(|b| {
            for v in b * GRAIN..((b + 1) * GRAIN).min(self.n) {
                // SAFETY: `v < n`; this task is the only one touching `v`'s state
                // and message in this pass.
                unsafe {
                    let ctx = self.ctx(v, round, global);
                    *msg.0.get_unchecked(v).get() = P::emit(ctx, *state.0.get_unchecked(v).get());
                }
            }
        });
    }
}

impl<P: GatherProgram> Engine<'_, P> {
    /// Records dense round `round` in the report; `true` when the run stops.
    fn close_dense_round(&self, report: &mut GatherReport, round: u32, t: Tally) -> bool {
        report.rounds = round + 1;
        report.edges_gathered += t.edges;
        report.applies += self.n as u64;
        report.reduced = t.reduced;
        match self.r.dense_stop(round, t.reduced, t.changed) {
            Some(stop) => {
                report.stop = stop;
                true
            }
            None => false,
        }
    }

    /// Jacobi rounds: gather fused with apply, reading the messages of the
    /// round before. Messages are double-buffered when `emit` does not read the
    /// round's reduction ([`GatherProgram::EMIT_READS_GLOBAL`]): each vertex
    /// writes its next message right after its apply, into the buffer the next
    /// round reads, so a round is one pass over the vertices. Otherwise an `emit`
    /// pass over every vertex opens each round after the first, once the
    /// reduction it may read is known. The messages are the same either way.
    pub(super) fn run_dense(&self) -> GatherRun<P::State> {
        let start = Instant::now();
        let d = Dense::of(self);
        let state = self.init();
        let first = |v| P::emit(self.ctx(v, 0, 0.0), state.get(v));
        let mut msg: Cells<P::Msg> =
            Cells::collect((0..self.n).into_par_iter().with_min_len(GRAIN).map(first));
        let fused = !P::EMIT_READS_GLOBAL;
        // The buffer the next round's messages go to; every entry is written
        // before it is read.
        let len = if fused { self.n } else { 0 };
        let mut next: Cells<P::Msg> = Cells::collect(
            (0..len)
                .into_par_iter()
                .with_min_len(GRAIN)
                .map(|_| msg.get(0)),
        );
        let mut global = P::REDUCE.identity();
        let mut report = GatherReport::empty();
        for round in 0.. {
            let t = if fused {
                d.pass(|lo, hi| d.block::<true>(lo, hi, round, global, &state, &msg, &next))
            } else {
                if round > 0 {
                    d.emit_all(&state, &msg, round, global);
                }
                d.pass(|lo, hi| d.block::<false>(lo, hi, round, global, &state, &msg, &next))
            };
            global = t.reduced;
            if self.close_dense_round(&mut report, round, t) {
                break;
            }
            if fused {
                std::mem::swap(&mut msg, &mut next);
            }
        }
        report.time = start.elapsed();
        GatherRun {
            states: state.into_vec(),
            report,
        }
    }

    /// Dense Gauss–Seidel rounds ([`GatherOptions::gauss_seidel`]): one pass per
    /// round, each vertex gathering whatever its in-neighbours hold now and
    /// emitting right after its apply. Messages live in relaxed atomic words, so a
    /// concurrent read sees either the old or the new message, never a torn one.
    ///
    /// [`GatherOptions::gauss_seidel`]: crate::gather::GatherOptions::gauss_seidel
    pub(super) fn run_dense_in_place(&self) -> GatherRun<P::State> {
        if std::mem::size_of::<P::Msg>() == 4 {
            self.run_in_place_with::<AtomicU32>()
        } else {
            self.run_in_place_with::<AtomicU64>()
        }
    }

    fn run_in_place_with<A: MsgWord>(&self) -> GatherRun<P::State> {
        let start = Instant::now();
        let d = Dense::of(self);
        let state = self.init();
        let msg: Vec<AtomicMsg<P::Msg, A>> = (0..self.n)
            .into_par_iter()
            .with_min_len(GRAIN)
            .map(|v| AtomicMsg::new(P::emit(self.ctx(v, 0, 0.0), state.get(v))))
            .collect();
        let msg = msg.as_slice();
        let chained = d.chained();
        let mut global = P::REDUCE.identity();
        let mut report = GatherReport::empty();
        for round in 0.. {
            let t = d.pass(|lo, hi| d.block_in_place(chained, lo, hi, round, global, &state, msg));
            global = t.reduced;
            if self.close_dense_round(&mut report, round, t) {
                break;
            }
        }
        report.time = start.elapsed();
        GatherRun {
            states: state.into_vec(),
            report,
        }
    }
}
