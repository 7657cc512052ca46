//! Gather/apply programs from many sources at once: up to 64 sources ("lanes")
//! a batch, `k` lanes per vertex kept vertex-major (`state[v·k + l]`), the
//! single-source model ([`super`]) run lane by lane in synchronous rounds.
//!
//! Why: a personalized PageRank from 64 seeds, or hop counts from 64
//! landmarks, run one source at a time read every in-edge list 64 times. Here
//! thread `t` is lane `t % k` of vertex `t / k`: the `k` threads of a vertex sit
//! side by side in a warp and walk the same in-edge list together (the same
//! branch, each source id and weight one broadcast load), and their reads of the
//! in-neighbour's messages `msg[u·k + l]` are adjacent words, one coalesced
//! access. Each thread walks its vertex's whole in-edge list (a hub's lanes take
//! longer, as the single-source pull of one thread per vertex would).
//!
//! The arrays ([`LaneDesc`], one descriptor a batch in device memory):
//! * `state`, `msg`: `n·k` each;
//! * dense programs: `red` (`n·k` reductions `reduce(ctx, old, new)`) and `flag`
//!   (`n·k` words, 1 where the state changed), folded by [`reduce`];
//! * frontier-driven programs: `mask0`, `mask1` (`n` lane words each: the lanes
//!   for which a vertex is in the frontier; round `r` reads parity `r % 2` and
//!   writes the other) and `count` (`k` words: per lane, vertices activated);
//! * `sources`, `global` (`k` each: a lane's source and its reduction, the
//!   [`Ctx::global`] of its threads), `partial` (`2·k` words per chunk of
//!   `chunk` vertices: [`reduce`]'s per-lane sums, which the host folds in chunk
//!   order, so a lane's reduction does not depend on the order threads run in).
//!
//! A round is [`emit`] (the lanes told, at frontier vertices only for
//! frontier-driven programs), [`step`] (gather over in-edges fused with apply:
//! one writer per lane of a vertex, so no accumulator array and no atomics but
//! the frontier's) and, for dense programs or a frontier program's dense round,
//! [`reduce`]. Which lanes run, and how, is the host's call each round
//! (`live`, `front`, `dense` lane masks), from the single-source rules.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Ctx, GatherProgram};
use crate::thread::ThreadCtx;
use crate::word::{slice, StateWord};

/// Every array of a batch, as device addresses (0: not used by this program),
/// laid out as [`LaneDesc::WORDS`] words so the host uploads it as `u64`s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneDesc {
    pub n: u64,
    pub m: u64,
    /// Lanes of this batch (`1..=64`): the stride of the per-lane arrays.
    pub k: u64,
    /// CSR offsets (`n + 1`: out-degrees for [`Ctx`]); CSC offsets, sources and
    /// weights (`m`, 0 for unweighted programs).
    pub out_offsets: u64,
    pub in_offsets: u64,
    pub in_sources: u64,
    pub in_weights: u64,
    /// `n·k` states and messages.
    pub state: u64,
    pub msg: u64,
    /// Dense programs: `n·k` reductions and change flags.
    pub red: u64,
    pub flag: u64,
    /// Frontier-driven programs: `n` lane words a parity, and `k` counts.
    pub mask0: u64,
    pub mask1: u64,
    pub count: u64,
    /// `k` sources, `k` reductions (`f64`).
    pub sources: u64,
    pub global: u64,
    /// `2·k` words per chunk: [`reduce`]'s output.
    pub partial: u64,
    /// Vertices per chunk of [`reduce`].
    pub chunk: u64,
}

impl LaneDesc {
    /// Words of the descriptor.
    pub const WORDS: usize = core::mem::size_of::<LaneDesc>() / 8;

    /// The descriptor as the words the host uploads.
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        [
            self.n,
            self.m,
            self.k,
            self.out_offsets,
            self.in_offsets,
            self.in_sources,
            self.in_weights,
            self.state,
            self.msg,
            self.red,
            self.flag,
            self.mask0,
            self.mask1,
            self.count,
            self.sources,
            self.global,
            self.partial,
            self.chunk,
        ]
    }

    /// Chunks of [`reduce`] over `n` vertices.
    pub fn chunks(&self) -> u64 {
        self.n.div_ceil(self.chunk.max(1))
    }
}

/// The arrays of a [`LaneDesc`] as slices (unused ones empty).
struct Lanes<'a, P: GatherProgram> {
    n: usize,
    m: u64,
    k: usize,
    out_offsets: &'a [u64],
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    in_weights: &'a [P::Weight],
    state: &'a [UnsafeCell<P::State>],
    msg: &'a [UnsafeCell<P::Msg>],
    red: &'a [UnsafeCell<f64>],
    flag: &'a [UnsafeCell<u32>],
    masks: [&'a [AtomicU64]; 2],
    count: &'a [AtomicU64],
    sources: &'a [u32],
    global: &'a [f64],
    partial: &'a [UnsafeCell<u64>],
    chunk: usize,
}

/// `len` atomic words at address `a` (empty for 0).
///
/// # Safety
/// `a` is 0 or valid for `len` `u64`s for `'a`, accessed only through atomics.
#[inline(always)]
unsafe fn words<'a>(a: u64, len: usize) -> &'a [AtomicU64] {
    let len = if a == 0 { 0 } else { len };
    // SAFETY: forwarded contract (a dangling pointer for an empty slice).
    unsafe { u64::atomics_from_raw(a as usize as *mut u64, len) }
}

/// `len` cells at address `a` (empty for 0).
///
/// # Safety
/// `a` is 0 or valid for `len` `T`s for `'a`; accesses follow the kernels' rules.
#[inline(always)]
unsafe fn cells<'a, T>(a: u64, len: usize) -> &'a [UnsafeCell<T>] {
    let len = if a == 0 { 0 } else { len };
    // SAFETY: `UnsafeCell<T>` has `T`'s layout; validity is the caller's.
    unsafe { slice(a as usize as *const UnsafeCell<T>, len) }
}

impl<'a, P: GatherProgram> Lanes<'a, P> {
    /// # Safety
    /// `desc` points at a descriptor whose non-zero addresses are live arrays
    /// with the lengths its fields document (a CSR and CSC of one graph), which
    /// this launch accesses only as the kernels here do.
    #[inline(always)]
    unsafe fn of(desc: *const LaneDesc) -> Self {
        // SAFETY: caller's contract.
        unsafe {
            let d = *desc;
            let (n, k, m) = (d.n as usize, d.k as usize, d.m as usize);
            Lanes {
                n,
                m: d.m,
                k,
                out_offsets: slice(d.out_offsets as usize as *const u64, n + 1),
                in_offsets: slice(d.in_offsets as usize as *const u64, n + 1),
                in_sources: slice(d.in_sources as usize as *const u32, m),
                in_weights: slice(
                    d.in_weights as usize as *const P::Weight,
                    if P::WEIGHTED && d.in_weights != 0 {
                        m
                    } else {
                        0
                    },
                ),
                state: cells(d.state, n * k),
                msg: cells(d.msg, n * k),
                red: cells(d.red, n * k),
                flag: cells(d.flag, n * k),
                masks: [words(d.mask0, n), words(d.mask1, n)],
                count: words(d.count, k),
                sources: slice(d.sources as usize as *const u32, k),
                global: slice(d.global as usize as *const f64, k),
                partial: cells(d.partial, 2 * k * (d.chunks() as usize)),
                chunk: d.chunk.max(1) as usize,
            }
        }
    }

    /// The frontier lane words of `round`'s parity (a branch, not an index: the
    /// PTX build would put an indexed array of slices on the stack).
    #[inline(always)]
    fn mask(&self, round: u32) -> &'a [AtomicU64] {
        if round % 2 == 0 {
            self.masks[0]
        } else {
            self.masks[1]
        }
    }

    #[inline(always)]
    fn ctx(&self, v: usize, l: usize, round: u32) -> Ctx {
        let deg = |o: &[u64]| {
            let d = o[v + 1] - o[v];
            if d > u32::MAX as u64 {
                u32::MAX
            } else {
                d as u32
            }
        };
        Ctx {
            vertex: v as u32,
            out_degree: deg(self.out_offsets),
            in_degree: deg(self.in_offsets),
            num_vertices: self.n as u32,
            num_edges: self.m,
            round,
            source: self.sources[l],
            global: self.global[l],
        }
    }

    #[inline(always)]
    fn in_weight(&self, e: usize) -> P::Weight {
        if P::WEIGHTED {
            self.in_weights[e]
        } else {
            // SAFETY: unweighted programs have `Weight = ()` (checked by the
            // macro): a ZST read from a dangling pointer.
            unsafe { core::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
        }
    }

    /// `f(v, l, i)` for every lane `l` of every vertex `v` this thread owns
    /// (`i = v·k + l`; grid-stride).
    #[inline(always)]
    fn each(&self, t: ThreadCtx, mut f: impl FnMut(usize, usize, usize)) {
        let total = (self.n * self.k) as u64;
        let mut i = t.global();
        while i < total {
            let i_ = i as usize;
            f(i_ / self.k, i_ % self.k, i_);
            i += t.stride();
        }
    }
}

/// Initial states: `init` of every lane of every vertex with the lane's source;
/// for frontier-driven programs the first frontier (`active(s, s)`) in the
/// parity-0 lane words, counted per lane in `count` (zeroed by the host).
///
/// # Safety
/// `desc` points at a descriptor whose non-zero addresses are live arrays with
/// the lengths its fields document (a CSR and CSC of one graph), which this
/// launch accesses only as the kernels here do; `global` holds the reduction's
/// identity per lane.
#[inline(always)]
pub unsafe fn init<P: GatherProgram>(t: ThreadCtx, desc: *const LaneDesc) {
    // SAFETY: caller's contract.
    let b = unsafe { Lanes::<P>::of(desc) };
    b.each(t, |v, l, i| {
        let ctx = b.ctx(v, l, 0);
        let s = P::init(ctx);
        // SAFETY: one thread per lane of a vertex writes it.
        unsafe { *b.state[i].get() = s };
        if P::FRONTIER && P::active(ctx, s, s) {
            b.masks[0][v].fetch_or(1 << l, Relaxed);
            b.count[l].fetch_add(1, Relaxed);
        }
    });
}

/// `msg = emit(ctx, state)` for the lanes of `lanes` (frontier-driven programs:
/// only where the vertex is in that lane's frontier of `round`).
///
/// # Safety
/// As [`init`].
#[inline(always)]
pub unsafe fn emit<P: GatherProgram>(t: ThreadCtx, desc: *const LaneDesc, round: u32, lanes: u64) {
    // SAFETY: caller's contract.
    let b = unsafe { Lanes::<P>::of(desc) };
    let mask = b.mask(round);
    b.each(t, |v, l, i| {
        let bit = 1u64 << l;
        if lanes & bit == 0 || (P::FRONTIER && mask[v].load(Relaxed) & bit == 0) {
            return;
        }
        // SAFETY: one thread per lane of a vertex; states are not written in
        // this launch.
        unsafe { *b.msg[i].get() = P::emit(b.ctx(v, l, round), *b.state[i].get()) };
    });
}

/// One round of the lanes of `live`: each gathers over its vertex's in-edges
/// (in order; frontier-driven programs: the lanes of `front`, from sources in
/// that lane's frontier, skipping a vertex the lane no longer `accepts`) and
/// applies what it received; the lanes of `dense` (frontier-driven programs
/// whose frontier ran empty) apply the identity. Dense programs write `red` and
/// `flag` for [`reduce`]; frontier-driven ones build the next frontier in the
/// other parity's lane words (zeroed by the host), counted in `count`.
///
/// # Safety
/// As [`init`], after [`emit`] of the same round.
#[inline(always)]
pub unsafe fn step<P: GatherProgram>(
    t: ThreadCtx,
    desc: *const LaneDesc,
    round: u32,
    live: u64,
    front: u64,
    dense: u64,
) {
    // SAFETY: caller's contract.
    let b = unsafe { Lanes::<P>::of(desc) };
    let (cur, next) = (b.mask(round), b.mask(round + 1));
    b.each(t, |v, l, i| {
        let bit = 1u64 << l;
        if live & bit == 0 {
            return;
        }
        // SAFETY: this thread is the only reader and writer of lane `l` of
        // `v`'s state in this launch.
        let old = unsafe { *b.state[i].get() };
        if P::FRONTIER && P::ACCEPTS && !P::accepts(old) {
            return; // settled: skip its in-edges
        }
        let walk = !P::FRONTIER || front & bit != 0;
        let mut acc = P::identity();
        let mut got = false;
        if walk {
            let (lo, hi) = (b.in_offsets[v] as usize, b.in_offsets[v + 1] as usize);
            let mut e = lo;
            while e < hi {
                let u = b.in_sources[e] as usize;
                if !P::FRONTIER || cur[u].load(Relaxed) & bit != 0 {
                    // SAFETY: messages are not written in this launch; `u < n`
                    // (a graph's neighbour).
                    let m = unsafe { *b.msg[u * b.k + l].get() };
                    acc = P::combine(acc, P::gather(m, b.in_weight(e)));
                    got = true;
                }
                e += 1;
            }
        }
        if P::FRONTIER && !got && dense & bit == 0 {
            return;
        }
        let ctx = b.ctx(v, l, round);
        let new = P::apply(ctx, old, acc);
        // SAFETY: as above.
        unsafe { *b.state[i].get() = new };
        if P::FRONTIER {
            if P::active(ctx, old, new) {
                next[v].fetch_or(bit, Relaxed);
                b.count[l].fetch_add(1, Relaxed);
            }
        } else {
            // SAFETY: one writer per lane of a vertex.
            unsafe {
                *b.red[i].get() = P::reduce(ctx, old, new);
                *b.flag[i].get() = (new != old) as u32;
            }
        }
    });
}

/// Per-lane sums over chunks of `chunk` vertices: thread `t` is lane `t % k` of
/// chunk `t / k`, and writes `partial[2·(c·k + l)]` (the reduction's bits) and
/// `[.. + 1]` (states changed). With `refresh` (a frontier program's dense
/// round) it reduces `reduce(ctx, s, s)` of the lanes of `lanes` instead of
/// [`step`]'s `red`, and counts nothing. Lanes outside `lanes` write the
/// identity.
///
/// # Safety
/// As [`init`]; dense programs after [`step`] of the same round.
#[inline(always)]
pub unsafe fn reduce<P: GatherProgram>(
    t: ThreadCtx,
    desc: *const LaneDesc,
    round: u32,
    lanes: u64,
    refresh: u32,
) {
    // SAFETY: caller's contract.
    let b = unsafe { Lanes::<P>::of(desc) };
    let total = b.n.div_ceil(b.chunk) * b.k;
    let mut j = t.global() as usize;
    while j < total {
        let (c, l) = (j / b.k, j % b.k);
        let mut r = P::REDUCE.identity();
        let mut changed = 0u64;
        if lanes & (1 << l) != 0 {
            let hi = if (c + 1) * b.chunk < b.n {
                (c + 1) * b.chunk
            } else {
                b.n
            };
            let mut v = c * b.chunk;
            while v < hi {
                let i = v * b.k + l;
                // SAFETY: states, reductions and flags are only read in this
                // launch.
                unsafe {
                    if refresh != 0 {
                        let s = *b.state[i].get();
                        r = P::REDUCE.combine(r, P::reduce(b.ctx(v, l, round), s, s));
                    } else {
                        r = P::REDUCE.combine(r, *b.red[i].get());
                        changed += u64::from(*b.flag[i].get());
                    }
                }
                v += 1;
            }
        }
        // SAFETY: one writer per (chunk, lane).
        unsafe {
            *b.partial[2 * j].get() = r.to_bits();
            *b.partial[2 * j + 1].get() = changed;
        }
        j += t.stride() as usize;
    }
}

/// The batched kernels of a gather program that reads its source
/// (`#[vertex_program]` emits them for those only): `$init(desc)`,
/// `$emit(desc, round, lanes)`, `$step(desc, round, live, front, dense)`,
/// `$reduce(desc, round, lanes, refresh)`, `desc` a [`LaneDesc`] in device
/// memory.
#[macro_export]
macro_rules! gather_batched_kernels {
    ($prog:ty => $init:ident, $emit:ident, $step:ident, $reduce:ident) => {
        $crate::__kernel!($init => $crate::gather::batched::init::<$prog>; desc: *const $crate::gather::batched::LaneDesc);
        $crate::__kernel!($emit => $crate::gather::batched::emit::<$prog>; desc: *const $crate::gather::batched::LaneDesc, round: u32, lanes: u64);
        $crate::__kernel!($step => $crate::gather::batched::step::<$prog>; desc: *const $crate::gather::batched::LaneDesc, round: u32, live: u64, front: u64, dense: u64);
        $crate::__kernel!($reduce => $crate::gather::batched::reduce::<$prog>; desc: *const $crate::gather::batched::LaneDesc, round: u32, lanes: u64, refresh: u32);
    };
}
