//! Any push [`Program`] from many sources at once: up to 64 sources ("lanes") per
//! batch, one edge sweep serving every lane that is live at a vertex.
//!
//! Why: a user who wants distances from 64 landmarks, or all-pairs distances of a
//! sparse graph, would otherwise run the program 64 times, reading every edge 64
//! times and paying 64 runs' launch latency and small-frontier tails. Here a
//! frontier entry is a vertex with the lanes that changed there, and each edge it
//! pushes along is read once for all of them (MS-BFS's idea, Then et al., VLDB
//! 2015, applied to a general `relax`/`combine` instead of BFS bits; [`crate::msbfs`]
//! is the bit-parallel BFS specialisation).
//!
//! State, all device arrays named by one [`PushBatchDesc`]:
//! * `state[v·lanes + l]`: lane `l`'s state at `v` (vertex-major, so a vertex's
//!   live lanes are adjacent);
//! * two frontier lists (by round parity): `vertices[i]` and `masks[i]`, the lanes
//!   that changed at that vertex in the previous round; `next[v]` collects the
//!   lanes changing at `v` during a round (the push that makes it non-zero lists
//!   `v`, so each vertex is listed once per round);
//! * `items`: the round's edge chunks (`entry << CHUNK_BITS | chunk`), so a hub's
//!   row is shared among threads.
//!
//! A round is three launches ([`chunks`], [`expand`], [`settle`]) whose counts live
//! in `ctl`, so the host launches several rounds before it reads anything, and
//! launches past the last round find an empty list and return. Rounds are
//! Bellman-Ford-like (a vertex may improve again in a later round), which is exact
//! for the programs allowed here: a source, and an idempotent, monotone combine
//! (`min`, `max`, `or`, `and`, or a custom one the host trusts).

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::msbfs::{cells, each_lane, list_entry_chunks, CHUNK_BITS};
use crate::program::Program;
use crate::thread::ThreadCtx;
use crate::warp::Warp;
use crate::word::{slice, StateWord};

/// `ctl[CTL_ITEMS]`: edge chunks listed for the round being expanded.
pub const CTL_ITEMS: usize = 0;
/// `ctl[CTL_COUNT + parity]`: entries of the frontier list of that parity.
pub const CTL_COUNT: usize = 1;
/// `ctl[CTL_ROUNDS]`: rounds that found a non-empty frontier.
pub const CTL_ROUNDS: usize = 3;
/// `ctl[CTL_EDGES]`: lane-edge relaxations (one per live lane per edge read).
pub const CTL_EDGES: usize = 4;
/// Control words.
pub const CTL_WORDS: usize = 8;
/// Frontier entries a thread of [`chunks`] lists at once (one atomic per group).
const ENTRIES_PER_THREAD: u64 = 4;

/// Every array of a batch, as device addresses, laid out as
/// [`PushBatchDesc::WORDS`] words so the host uploads it as plain `u64`s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PushBatchDesc {
    pub n: u64,
    pub m: u64,
    /// CSR: `n + 1` offsets, `m` targets, `m` weights (0 for unweighted programs).
    pub offsets: u64,
    pub targets: u64,
    pub weights: u64,
    /// `n × lanes` states.
    pub state: u64,
    /// Lanes of this batch (`1..=64`): the stride of `state`.
    pub lanes: u64,
    /// `lanes` source vertices.
    pub sources: u64,
    /// Frontier lists: `n` vertices and `n` lane masks each, parity 0 and 1.
    pub vertices0: u64,
    pub masks0: u64,
    pub vertices1: u64,
    pub masks1: u64,
    /// `n` lane words: lanes changed at each vertex in the round running.
    pub next: u64,
    /// Edge-chunk work list and its capacity.
    pub items: u64,
    pub items_cap: u64,
    pub ctl: u64,
    /// Edges per work item.
    pub chunk: u64,
}

impl PushBatchDesc {
    /// Words of the descriptor.
    pub const WORDS: usize = core::mem::size_of::<PushBatchDesc>() / 8;

    /// The descriptor as the words the host uploads.
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        [
            self.n,
            self.m,
            self.offsets,
            self.targets,
            self.weights,
            self.state,
            self.lanes,
            self.sources,
            self.vertices0,
            self.masks0,
            self.vertices1,
            self.masks1,
            self.next,
            self.items,
            self.items_cap,
            self.ctl,
            self.chunk,
        ]
    }
}

/// The arrays of a [`PushBatchDesc`] as slices.
struct Batch<'a, P: Program> {
    n: usize,
    offsets: &'a [u64],
    targets: &'a [u32],
    weights: &'a [P::Weight],
    state: &'a [<P::State as StateWord>::Atomic],
    lanes: usize,
    sources: &'a [u32],
    lists: [(&'a [AtomicU32], &'a [AtomicU64]); 2],
    next: &'a [AtomicU64],
    items: &'a [AtomicU64],
    ctl: &'a [AtomicU64],
    chunk: u64,
}

impl<P: Program> Batch<'_, P> {
    /// # Safety
    /// `desc` points at a descriptor whose arrays are live with the lengths its
    /// fields document, and are accessed by this launch only as here.
    #[inline(always)]
    unsafe fn of<'a>(desc: *const PushBatchDesc) -> Batch<'a, P> {
        // SAFETY: caller's contract.
        unsafe {
            let d = *desc;
            let n = d.n as usize;
            let lanes = d.lanes as usize;
            let weights = if d.weights == 0 || core::mem::size_of::<P::Weight>() == 0 {
                &[]
            } else {
                slice(d.weights as usize as *const P::Weight, d.m as usize)
            };
            Batch {
                n,
                offsets: slice(d.offsets as usize as *const u64, n + 1),
                targets: slice(d.targets as usize as *const u32, d.m as usize),
                weights,
                state: cells::<P::State>(d.state, n * lanes),
                lanes,
                sources: slice(d.sources as usize as *const u32, lanes),
                lists: [
                    (cells::<u32>(d.vertices0, n), cells::<u64>(d.masks0, n)),
                    (cells::<u32>(d.vertices1, n), cells::<u64>(d.masks1, n)),
                ],
                next: cells::<u64>(d.next, n),
                items: cells::<u64>(d.items, d.items_cap as usize),
                ctl: cells::<u64>(d.ctl, CTL_WORDS),
                chunk: d.chunk.max(1),
            }
        }
    }

    /// The frontier list of `round`'s parity (a branch, not an index: the PTX
    /// build would put an indexed array of slices on the stack).
    #[inline(always)]
    fn list(&self, round: u32) -> (&[AtomicU32], &[AtomicU64]) {
        if round % 2 == 0 {
            self.lists[0]
        } else {
            self.lists[1]
        }
    }

    #[inline(always)]
    fn count(&self, round: u32) -> &AtomicU64 {
        &self.ctl[CTL_COUNT + (round % 2) as usize]
    }

    #[inline(always)]
    fn degree(&self, v: usize) -> u64 {
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The weight of edge `e` (a zero-sized `()` for unweighted programs).
    #[inline(always)]
    fn weight(&self, e: usize) -> P::Weight {
        if core::mem::size_of::<P::Weight>() == 0 {
            // SAFETY: a zero-sized weight has no bytes to read.
            unsafe { core::mem::zeroed() }
        } else {
            self.weights[e]
        }
    }
}

/// Every lane's initial state at every vertex: `init(v, source of lane l)`.
///
/// # Safety
/// `desc` points at a descriptor whose arrays are live with the lengths its
/// fields document, accessed by this launch only as here.
#[inline(always)]
pub unsafe fn init<P: Program>(t: ThreadCtx, desc: *const PushBatchDesc) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::<P>::of(desc) };
    let total = (b.n * b.lanes) as u64;
    let mut i = t.global();
    while i < total {
        let (v, l) = (i as usize / b.lanes, i as usize % b.lanes);
        P::State::store(&b.state[i as usize], P::init(v as u32, b.sources[l]));
        i += t.stride();
    }
}

/// Lists the edge chunks of `round`'s frontier as work items, counted in
/// `ctl[CTL_ITEMS]`.
///
/// # Safety
/// As [`init`].
#[inline(always)]
pub unsafe fn chunks<P: Program>(t: ThreadCtx, desc: *const PushBatchDesc, round: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::<P>::of(desc) };
    let count = b.count(round).load(Relaxed);
    let (vertices, _) = b.list(round);
    if t.global() == 0 && count > 0 {
        b.ctl[CTL_ROUNDS].fetch_add(1, Relaxed);
    }
    let degree = |e: u64| b.degree(vertices[e as usize].load(Relaxed) as usize);
    // Warp-uniform steps (the warp's first entry), so that a lane with a
    // hub's chunks has its warp write them (`write_lists`).
    let w = crate::warp::kernel_warp(t);
    let lane = u64::from(w.lane());
    let mut base = (t.global() - lane) * ENTRIES_PER_THREAD;
    let step = t.stride() * ENTRIES_PER_THREAD;
    while base < count {
        let e0 = count.min(base + lane * ENTRIES_PER_THREAD);
        let e1 = count.min(e0 + ENTRIES_PER_THREAD);
        list_entry_chunks(w, (e0, e1), degree, b.chunk, b.items, &b.ctl[CTL_ITEMS]);
        base += step;
    }
}

/// Pushes each work item's live lanes along its edges: `relax` of the lane's
/// state at the source, `combine` into the lane's state at the target; a lane
/// that changed there joins the target's `next` word (the first one lists the
/// target for the next round).
///
/// # Safety
/// As [`init`], after [`chunks`] of the same round.
#[inline(always)]
pub unsafe fn expand<P: Program>(t: ThreadCtx, desc: *const PushBatchDesc, round: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::<P>::of(desc) };
    let (vertices, masks) = b.list(round);
    let (out_vertices, _) = b.list(round + 1);
    let out_count = b.count(round + 1);
    let nitems = b.ctl[CTL_ITEMS].load(Relaxed);
    let mut relaxed = 0u64;
    let mut it = t.global();
    while it < nitems {
        let item = b.items[it as usize].load(Relaxed);
        let entry = (item >> CHUNK_BITS) as usize;
        let k = item & ((1 << CHUNK_BITS) - 1);
        let v = vertices[entry].load(Relaxed) as usize;
        let lanes = masks[entry].load(Relaxed);
        let lo = b.offsets[v] + k * b.chunk;
        let hi = b.offsets[v + 1].min(lo + b.chunk);
        for e in lo..hi {
            let w = b.targets[e as usize] as usize;
            let weight = b.weight(e as usize);
            let mut changed = 0u64;
            each_lane(lanes, |l| {
                let s = P::State::load(&b.state[v * b.lanes + l]);
                if let Some(c) = P::relax(s, weight, round) {
                    let slot = &b.state[w * b.lanes + l];
                    if P::improves(P::State::load(slot), c) && P::combine(slot, c) {
                        changed |= 1 << l;
                    }
                }
            });
            relaxed += u64::from(lanes.count_ones());
            if changed != 0
                && b.next[w].load(Relaxed) & changed != changed
                && b.next[w].fetch_or(changed, Relaxed) == 0
            {
                let at = out_count.fetch_add(1, Relaxed) as usize;
                out_vertices[at].store(w as u32, Relaxed);
            }
        }
        it += t.stride();
    }
    if relaxed > 0 {
        b.ctl[CTL_EDGES].fetch_add(relaxed, Relaxed);
    }
}

/// Makes the vertices [`expand`] listed the next round's frontier: each takes the
/// lanes gathered in its `next` word (cleared for the round after). Thread 0
/// resets the work-item count and this round's list count (the list is refilled
/// two rounds on).
///
/// # Safety
/// As [`init`], after [`expand`] of the same round.
#[inline(always)]
pub unsafe fn settle<P: Program>(t: ThreadCtx, desc: *const PushBatchDesc, round: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::<P>::of(desc) };
    let (vertices, masks) = b.list(round + 1);
    let count = b.count(round + 1).load(Relaxed);
    if t.global() == 0 {
        b.ctl[CTL_ITEMS].store(0, Relaxed);
        b.count(round).store(0, Relaxed);
    }
    let mut j = t.global();
    while j < count {
        let w = vertices[j as usize].load(Relaxed) as usize;
        masks[j as usize].store(b.next[w].swap(0, Relaxed), Relaxed);
        j += t.stride();
    }
}

/// `f` for the descriptor (of the `groups` at `descs`) this thread serves, with
/// its place in that batch's share of the grid ([`ThreadCtx::each_part`]): one
/// launch serves a group of batches, so a high-diameter graph's thousands of
/// rounds cost one launch per round for the whole group, not per batch.
///
/// # Safety
/// Each descriptor as `f`'s contract requires.
#[inline(always)]
unsafe fn each_group(
    t: ThreadCtx,
    descs: *const PushBatchDesc,
    groups: u32,
    mut f: impl FnMut(ThreadCtx, *const PushBatchDesc),
) {
    // SAFETY: the caller's `descs` holds `groups` descriptors.
    t.each_part(groups, |g, sub| f(sub, unsafe { descs.add(g) }))
}

/// [`init`] of every batch of a group.
///
/// # Safety
/// As [`init`], for each of the `groups` descriptors at `descs`.
#[inline(always)]
pub unsafe fn init_group<P: Program>(t: ThreadCtx, descs: *const PushBatchDesc, groups: u32) {
    // SAFETY: caller's contract, descriptor by descriptor.
    unsafe { each_group(t, descs, groups, |t, d| init::<P>(t, d)) }
}

/// [`chunks`] of every batch of a group.
///
/// # Safety
/// As [`init_group`].
#[inline(always)]
pub unsafe fn chunks_group<P: Program>(
    t: ThreadCtx,
    descs: *const PushBatchDesc,
    groups: u32,
    round: u32,
) {
    // SAFETY: caller's contract, descriptor by descriptor.
    unsafe { each_group(t, descs, groups, |t, d| chunks::<P>(t, d, round)) }
}

/// [`expand`] of every batch of a group.
///
/// # Safety
/// As [`init_group`], after [`chunks_group`] of the same round.
#[inline(always)]
pub unsafe fn expand_group<P: Program>(
    t: ThreadCtx,
    descs: *const PushBatchDesc,
    groups: u32,
    round: u32,
) {
    // SAFETY: caller's contract, descriptor by descriptor.
    unsafe { each_group(t, descs, groups, |t, d| expand::<P>(t, d, round)) }
}

/// [`settle`] of every batch of a group.
///
/// # Safety
/// As [`init_group`], after [`expand_group`] of the same round.
#[inline(always)]
pub unsafe fn settle_group<P: Program>(
    t: ThreadCtx,
    descs: *const PushBatchDesc,
    groups: u32,
    round: u32,
) {
    // SAFETY: caller's contract, descriptor by descriptor.
    unsafe { each_group(t, descs, groups, |t, d| settle::<P>(t, d, round)) }
}

/// Defines a program's batched kernels under `$init`, `$chunks`, `$expand`,
/// `$settle`: the group forms, parameters `(descs, groups)` and
/// `(descs, groups, round)`.
#[macro_export]
macro_rules! batched_kernels {
    ($prog:ty => $init:ident, $chunks:ident, $expand:ident, $settle:ident) => {
        $crate::__kernel!($init => $crate::batched::init_group::<$prog>; descs: *const $crate::batched::PushBatchDesc, groups: u32);
        $crate::__kernel!($chunks => $crate::batched::chunks_group::<$prog>; descs: *const $crate::batched::PushBatchDesc, groups: u32, round: u32);
        $crate::__kernel!($expand => $crate::batched::expand_group::<$prog>; descs: *const $crate::batched::PushBatchDesc, groups: u32, round: u32);
        $crate::__kernel!($settle => $crate::batched::settle_group::<$prog>; descs: *const $crate::batched::PushBatchDesc, groups: u32, round: u32);
    };
}
