//! Many breadth-first searches at once on the GPU: up to 64 sources ("lanes") share
//! every edge visit (MS-BFS, Then et al., VLDB 2015), and Brandes's betweenness
//! built on it, each phase serving all lanes of a batch in one sweep.
//!
//! Why a batch and not one source after another: a single BFS from a source of a
//! power-law graph touches most edges in two or three levels, and the GPU then
//! waits on launches and the long tail of small levels; 64 sources at once do 64
//! searches' work per edge read, and the small levels of one search overlap the
//! large levels of another. This is what the per-source gather programs of
//! `examples::programs::bc` could not do (the GPU lost to a 16-core CPU).
//!
//! The state, all device arrays described by one [`BatchDesc`] (so kernels take a
//! pointer and a level, not thirty parameters):
//! * `seen[v]`: bit `l` set once lane `l` reached `v`; `next[v]`: lanes reaching
//!   `v` at the level being built (zero between levels).
//! * The levels themselves, kept whole: `order[i]` a vertex and `masks[i]` the
//!   lanes that reached it at one depth; level `d` is entries
//!   `level_off[d]..level_off[d + 1]`. A vertex appears once per distinct depth
//!   among its lanes. The backward phase of betweenness walks the same lists
//!   deepest first, and closeness / all-pairs summaries reduce them per lane
//!   ([`lane_sums`]), so nothing of size `n × lanes` is needed except the path
//!   counts.
//! * `sigma[v·lanes + l]` (betweenness only): shortest paths from lane `l`'s source
//!   to `v`, as `f64` as gapbs counts them; `dsum[v·lanes + l]`:
//!   `Σ (1 + δ(w)) / σ(w)` over `v`'s successors `w`, so `δ(v) = σ(v)·dsum(v)`
//!   without a separate scaling pass.
//!
//! A level is three launches ([`chunks`], [`expand`], [`settle`]) whose ranges and
//! counts live on the device (`ctl`, `level_off`), so the host launches several
//! levels before it looks: high-diameter graphs (thousands of small levels) are
//! not bound by a round trip per level. Frontier entries are cut into chunks of at
//! most `chunk` edges ([`chunks`]) so that one hub does not hold back a launch.
//! Large levels may run bottom-up instead (Beamer's rule on the frontier's
//! out-edges, per lane, in [`expand`]): every vertex still missing lanes gathers
//! them from its in-neighbours' lanes at this depth (`lvl`, kept by parity) and
//! stops reading once it has them all. The host allows it only on graphs without
//! hubs and in the first `BOTTOM_UP_DEPTHS` levels (see `runtime::gpu::msbfs`).
//! If the level lists outgrow their buffers, [`settle`] raises `ctl[CTL_OVERFLOW]`
//! instead of writing, every later launch returns at once, and the host grows the
//! buffers and resumes at that level.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::thread::ThreadCtx;
use crate::warp::{write_lists, Warp};
use crate::word::{slice, StateWord};

/// Lanes per batch: the bits of one word.
pub const LANES: u32 = 64;

/// `ctl[CTL_ITEMS]`: edge chunks listed for the level being expanded.
pub const CTL_ITEMS: usize = 0;
/// `ctl[CTL_NEXT + depth % 2]`: vertices listed for level `depth + 1` (two
/// counters, so that [`settle`] can reset the next level's while reading its own).
pub const CTL_NEXT: usize = 1;
/// `ctl[CTL_OVERFLOW]`: 0, or `depth + 1` of the level [`settle`] could not store.
pub const CTL_OVERFLOW: usize = 3;
/// `ctl[CTL_DEPTH]`: the deepest non-empty level so far.
pub const CTL_DEPTH: usize = 4;
/// `ctl[CTL_FRONTIER_EDGES]`: out-edges of the level being expanded (from [`chunks`]).
pub const CTL_FRONTIER_EDGES: usize = 5;
/// `ctl[CTL_BOTTOM_UP]`: levels that ran bottom-up.
pub const CTL_BOTTOM_UP: usize = 6;
/// `ctl[CTL_LANES]`: the lanes of this batch that hold a source (set by the host).
pub const CTL_LANES: usize = 7;
/// `ctl[CTL_BACKWARD]`: 1 during the backward phase of betweenness (set by the
/// host), when [`chunks`] must leave the per-vertex lane arrays alone.
pub const CTL_BACKWARD: usize = 8;
/// Words of `ctl`.
pub const CTL_WORDS: usize = 16;

/// Levels deeper than this never run bottom-up: a bottom-up level reads every
/// vertex's word, so on a high-diameter graph (thousands of levels: 64 sources on
/// a 1000² grid) bottom-up levels cost n each where the top-down ones cost their
/// frontier; low-diameter graphs, where bottom-up pays, are done well before.
pub const BOTTOM_UP_DEPTHS: u32 = 32;

/// Bits of an item that hold the chunk's index within its vertex's row.
pub const CHUNK_BITS: u32 = 24;

/// Frontier entries one thread of [`chunks`] lists (one counter update for all).
const ENTRIES_PER_THREAD: u64 = 4;

/// Calls `f` with each lane set in `bits`, lowest first: the loop every
/// per-lane step of a batch (here and in the CPU's `cpu::msbfs`, `cpu::brandes`)
/// runs.
#[inline(always)]
pub fn each_lane(bits: u64, mut f: impl FnMut(usize)) {
    let mut b = bits;
    while b != 0 {
        f(b.trailing_zeros() as usize);
        b &= b - 1;
    }
}

/// Every array of a batch, as device addresses (0: not used), laid out as
/// `BatchDesc::WORDS` words so the host can upload it as plain `u64`s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchDesc {
    pub n: u64,
    pub m: u64,
    /// CSR: `n + 1` offsets, `m` targets (out-edges).
    pub offsets: u64,
    pub targets: u64,
    /// Level lists: `cap` entries each.
    pub order: u64,
    pub masks: u64,
    pub cap: u64,
    /// `n + 2 + spare` level offsets.
    pub level_off: u64,
    /// Edge-chunk work list of one level.
    pub items: u64,
    pub items_cap: u64,
    pub ctl: u64,
    /// `n` words each.
    pub seen: u64,
    pub next: u64,
    /// `n` vertices: the level being built, unordered.
    pub next_list: u64,
    /// `n × lanes` path counts and dependency sums (betweenness), or 0.
    pub sigma: u64,
    pub dsum: u64,
    /// Two `n`-word arrays: the lanes of each vertex at one depth (parity).
    pub lvl0: u64,
    pub lvl1: u64,
    /// Lanes of this batch (`1..=64`): the stride of `sigma` and `dsum`.
    pub lanes: u64,
    /// Edges per work item.
    pub chunk: u64,
    /// `n` scores that each batch adds its dependencies to.
    pub scores: u64,
    /// In-edges (the transpose; the CSR itself when symmetric), or 0: levels
    /// then never run bottom-up.
    pub in_offsets: u64,
    pub in_sources: u64,
    pub m_in: u64,
    /// A level runs bottom-up when its frontier's out-edges × `alpha` exceed `m`
    /// (Beamer's rule); 0: never (always with path counts, which need every
    /// predecessor).
    pub alpha: u64,
}

impl BatchDesc {
    /// Words of the descriptor.
    pub const WORDS: usize = core::mem::size_of::<BatchDesc>() / 8;

    /// The descriptor as the words the host uploads.
    pub fn to_words(&self) -> [u64; Self::WORDS] {
        let mut w = [0u64; Self::WORDS];
        let fields = [
            self.n,
            self.m,
            self.offsets,
            self.targets,
            self.order,
            self.masks,
            self.cap,
            self.level_off,
            self.items,
            self.items_cap,
            self.ctl,
            self.seen,
            self.next,
            self.next_list,
            self.sigma,
            self.dsum,
            self.lvl0,
            self.lvl1,
            self.lanes,
            self.chunk,
            self.scores,
            self.in_offsets,
            self.in_sources,
            self.m_in,
            self.alpha,
        ];
        w.copy_from_slice(&fields);
        w
    }
}

/// The arrays of a [`BatchDesc`] as slices.
struct Batch<'a> {
    n: usize,
    offsets: &'a [u64],
    targets: &'a [u32],
    order: &'a [AtomicU32],
    masks: &'a [AtomicU64],
    level_off: &'a [AtomicU64],
    items: &'a [AtomicU64],
    ctl: &'a [AtomicU64],
    seen: &'a [AtomicU64],
    next: &'a [AtomicU64],
    next_list: &'a [AtomicU32],
    sigma: &'a [AtomicU64],
    dsum: &'a [AtomicU64],
    lvl0: &'a [AtomicU64],
    lvl1: &'a [AtomicU64],
    lanes: usize,
    chunk: u64,
    scores: &'a [AtomicU64],
    m: u64,
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    alpha: u64,
}

/// `len` atomic cells at address `addr` (empty for 0): how a batch descriptor's
/// arrays are viewed (here and in [`crate::batched`]).
///
/// # Safety
/// `addr` is 0 or valid for `len` aligned `T`s, accessed only through atomics.
#[inline(always)]
pub(crate) unsafe fn cells<'a, T: StateWord>(addr: u64, len: usize) -> &'a [T::Atomic] {
    let len = if addr == 0 { 0 } else { len };
    // SAFETY: forwarded contract; an empty view for a null address.
    unsafe { T::atomics_from_raw(addr as usize as *mut T, len) }
}

impl Batch<'_> {
    /// # Safety
    /// `desc` points at a descriptor whose arrays are live with the lengths its
    /// fields document, and are accessed by this launch only as here.
    #[inline(always)]
    unsafe fn of<'a>(desc: *const BatchDesc) -> Batch<'a> {
        // SAFETY: caller's contract.
        unsafe {
            let d = *desc;
            let n = d.n as usize;
            let lanes = d.lanes as usize;
            Batch {
                n,
                offsets: slice(d.offsets as usize as *const u64, n + 1),
                targets: slice(d.targets as usize as *const u32, d.m as usize),
                order: cells::<u32>(d.order, d.cap as usize),
                masks: cells::<u64>(d.masks, d.cap as usize),
                level_off: cells::<u64>(d.level_off, n + 2 + SPARE_LEVELS as usize),
                items: cells::<u64>(d.items, d.items_cap as usize),
                ctl: cells::<u64>(d.ctl, CTL_WORDS),
                seen: cells::<u64>(d.seen, n),
                next: cells::<u64>(d.next, n),
                next_list: cells::<u32>(d.next_list, n),
                sigma: cells::<f64>(d.sigma, n * lanes),
                dsum: cells::<f64>(d.dsum, n * lanes),
                lvl0: cells::<u64>(d.lvl0, n),
                lvl1: cells::<u64>(d.lvl1, n),
                lanes,
                chunk: d.chunk.max(1),
                scores: cells::<f64>(d.scores, n),
                m: d.m,
                in_offsets: if d.in_offsets == 0 {
                    &[]
                } else {
                    slice(d.in_offsets as usize as *const u64, n + 1)
                },
                in_sources: slice(d.in_sources as usize as *const u32, d.m_in as usize),
                alpha: if d.in_offsets == 0 { 0 } else { d.alpha },
            }
        }
    }

    /// The lanes-per-depth array of parity `depth % 2` (a branch, not an index
    /// into an array of slices, which the PTX build puts on the stack).
    #[inline(always)]
    fn lvl(&self, depth: u32) -> &[AtomicU64] {
        if depth % 2 == 0 {
            self.lvl0
        } else {
            self.lvl1
        }
    }

    #[inline(always)]
    fn overflowed(&self) -> bool {
        self.ctl[CTL_OVERFLOW].load(Relaxed) != 0
    }

    /// Entries of level `depth`.
    #[inline(always)]
    fn level(&self, depth: u32) -> (u64, u64) {
        let d = depth as usize;
        (
            self.level_off[d].load(Relaxed),
            self.level_off[d + 1].load(Relaxed),
        )
    }

    #[inline(always)]
    fn row(&self, v: usize) -> (u64, u64) {
        (self.offsets[v], self.offsets[v + 1])
    }

    /// Item `it` → its entry and its edges.
    #[inline(always)]
    fn item(&self, it: u64) -> (usize, u64, u64) {
        let entry = (it >> CHUNK_BITS) as usize;
        let k = it & ((1 << CHUNK_BITS) - 1);
        let v = self.order[entry].load(Relaxed) as usize;
        let (lo, hi) = self.row(v);
        let a = lo + k * self.chunk;
        (entry, a, hi.min(a + self.chunk))
    }

    /// Grid-stride over the work items [`chunks`] listed: `f(v, lanes, w)` for
    /// each edge `v → w` of each item, `lanes` being the entry's.
    #[inline(always)]
    fn each_item_edge(&self, t: ThreadCtx, mut f: impl FnMut(usize, u64, usize)) {
        let nitems = self.ctl[CTL_ITEMS].load(Relaxed);
        let mut it = t.global();
        while it < nitems {
            let (entry, a, z) = self.item(self.items[it as usize].load(Relaxed));
            let v = self.order[entry].load(Relaxed) as usize;
            let lanes = self.masks[entry].load(Relaxed);
            for e in a..z {
                f(v, lanes, self.targets[e as usize] as usize);
            }
            it += t.stride();
        }
    }

    #[inline(always)]
    fn f64_at(cells: &[AtomicU64], i: usize) -> f64 {
        f64::from_bits(cells[i].load(Relaxed))
    }
}

/// Level offsets past the last possible level that speculative launches may write.
pub const SPARE_LEVELS: u64 = 64;

/// Entries `lo..hi` of the level lists, taken by the host (level 0, the
/// sources): marks their lanes seen, and each source's path count 1.
///
/// # Safety
/// `desc` points at a descriptor whose arrays are live with the lengths its
/// fields document, accessed by this launch only as here; level 0 written by the
/// host.
#[inline(always)]
pub unsafe fn seed(t: ThreadCtx, desc: *const BatchDesc) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    let (lo, hi) = b.level(0);
    let mut i = lo + t.global();
    while i < hi {
        let v = b.order[i as usize].load(Relaxed) as usize;
        let mask = b.masks[i as usize].load(Relaxed);
        b.seen[v].fetch_or(mask, Relaxed);
        b.lvl0[v].store(mask, Relaxed);
        if !b.sigma.is_empty() {
            each_lane(mask, |l| {
                <f64 as StateWord>::store(&b.sigma[v * b.lanes + l], 1.0)
            });
        }
        i += t.stride();
    }
}

/// Lists the edge chunks of level `depth`'s entries as work items
/// (`entry << CHUNK_BITS | chunk index`), counted in `ctl[CTL_ITEMS]`.
///
/// # Safety
/// As [`seed`].
#[inline(always)]
pub unsafe fn chunks(t: ThreadCtx, desc: *const BatchDesc, depth: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    if b.overflowed() {
        return;
    }
    // Level `depth - 1`'s lanes leave the per-vertex array of its parity, which
    // [`settle`] of this level fills with level `depth + 1`.
    if depth > 0 && b.ctl[CTL_BACKWARD].load(Relaxed) == 0 {
        let old = b.lvl(depth - 1);
        let (lo, hi) = b.level(depth - 1);
        let mut i = lo + t.global();
        while i < hi {
            old[b.order[i as usize].load(Relaxed) as usize].store(0, Relaxed);
            i += t.stride();
        }
    }
    let (lo, hi) = b.level(depth);
    let degree = |e: u64| {
        let (a, z) = b.row(b.order[e as usize].load(Relaxed) as usize);
        z - a
    };
    // Warp-uniform steps (the warp's first entry), so that a lane with a
    // hub's chunks has its warp write them (`write_lists`).
    let w = crate::warp::kernel_warp(t);
    let lane = u64::from(w.lane());
    let mut base = lo + (t.global() - lane) * ENTRIES_PER_THREAD;
    let step = t.stride() * ENTRIES_PER_THREAD;
    let mut edges = 0u64;
    while base < hi {
        let e0 = hi.min(base + lane * ENTRIES_PER_THREAD);
        let e1 = hi.min(e0 + ENTRIES_PER_THREAD);
        edges += (e0..e1).map(degree).sum::<u64>();
        list_entry_chunks(w, (e0, e1), degree, b.chunk, b.items, &b.ctl[CTL_ITEMS]);
        base += step;
    }
    if edges > 0 {
        b.ctl[CTL_FRONTIER_EDGES].fetch_add(edges, Relaxed);
    }
}

/// Lists the edge chunks of frontier entries `e0..e1` (this lane's; `degree`
/// of an entry) as work items `entry << CHUNK_BITS | chunk index`, the lane's
/// total reserved by one atomic add on `count`; a lane with a hub's chunks has
/// its warp write them ([`write_lists`]). Whole warps only.
#[inline(always)]
pub(crate) fn list_entry_chunks<W: Warp>(
    w: W,
    (e0, e1): (u64, u64),
    degree: impl Fn(u64) -> u64,
    chunk: u64,
    items: &[AtomicU64],
    count: &AtomicU64,
) {
    let total: u64 = (e0..e1).map(|e| degree(e).div_ceil(chunk)).sum();
    let at = match total {
        0 => 0,
        _ => count.fetch_add(total, Relaxed),
    };
    write_lists(w, (e0, e1), at, total, |(e0, e1), mut at, start, step| {
        for e in e0..e1 {
            let n = degree(e).div_ceil(chunk);
            let mut k = start;
            while k < n {
                items[(at + k) as usize].store(e << CHUNK_BITS | k, Relaxed);
                k += step;
            }
            at += n;
        }
    });
}

/// Pushes each item's lanes along its edges: lanes not yet seen at a target are
/// added to its `next` word (the first push lists the target), and with path
/// counts, each such lane's count grows by the source vertex's.
///
/// # Safety
/// As [`seed`], after [`chunks`] of the same level.
#[inline(always)]
pub unsafe fn expand(t: ThreadCtx, desc: *const BatchDesc, depth: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    if b.overflowed() {
        return;
    }
    let counter = &b.ctl[CTL_NEXT + (depth % 2) as usize];
    let frontier_edges = b.ctl[CTL_FRONTIER_EDGES].load(Relaxed);
    if b.alpha > 0 && depth < BOTTOM_UP_DEPTHS && frontier_edges.saturating_mul(b.alpha) > b.m {
        bottom_up(t, &b, depth, counter);
        return;
    }
    b.each_item_edge(t, |v, front, w| {
        let fresh = front & !b.seen[w].load(Relaxed);
        if fresh == 0 {
            return;
        }
        if !b.sigma.is_empty() {
            each_lane(fresh, |l| {
                let paths = Batch::f64_at(b.sigma, v * b.lanes + l);
                <f64 as StateWord>::fetch_add(&b.sigma[w * b.lanes + l], paths);
            });
        }
        // Most pushes to a hub find their lanes already there: read first.
        if b.next[w].load(Relaxed) & fresh != fresh && b.next[w].fetch_or(fresh, Relaxed) == 0 {
            let at = counter.fetch_add(1, Relaxed) as usize;
            b.next_list[at].store(w as u32, Relaxed);
        }
    });
}

/// The bottom-up form of a level (Beamer's direction optimization, per lane):
/// every vertex still missing lanes gathers them from its in-neighbours' lanes
/// at `depth`, and stops reading as soon as it has found all it misses. No
/// atomics on the vertex words: each vertex writes only its own.
#[inline(always)]
fn bottom_up(t: ThreadCtx, b: &Batch<'_>, depth: u32, counter: &AtomicU64) {
    if t.global() == 0 {
        b.ctl[CTL_BOTTOM_UP].fetch_add(1, Relaxed);
    }
    let all = b.ctl[CTL_LANES].load(Relaxed);
    let visit = b.lvl(depth);
    let mut w = t.global() as usize;
    while w < b.n {
        let missing = all & !b.seen[w].load(Relaxed);
        if missing != 0 {
            let (lo, hi) = (b.in_offsets[w], b.in_offsets[w + 1]);
            let mut found = 0u64;
            for e in lo..hi {
                let v = b.in_sources[e as usize] as usize;
                found |= visit[v].load(Relaxed) & missing;
                if found == missing {
                    break;
                }
            }
            if found != 0 {
                b.next[w].store(found, Relaxed);
                let at = counter.fetch_add(1, Relaxed) as usize;
                b.next_list[at].store(w as u32, Relaxed);
            }
        }
        w += t.stride() as usize;
    }
}

/// Makes the listed vertices level `depth + 1`: appends `(vertex, lanes)` to the
/// level lists, marks the lanes seen and clears `next`. Thread 0 also closes the
/// level (its end offset, the deepest level) and resets the counters the next
/// level uses. Raises the overflow flag instead when the lists are full.
///
/// # Safety
/// As [`seed`], after [`expand`] of the same level.
#[inline(always)]
pub unsafe fn settle(t: ThreadCtx, desc: *const BatchDesc, depth: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    if b.overflowed() {
        return;
    }
    let d = depth as usize;
    let count = b.ctl[CTL_NEXT + d % 2].load(Relaxed);
    let base = b.level_off[d + 1].load(Relaxed);
    if base + count > b.order.len() as u64 {
        if t.global() == 0 {
            b.ctl[CTL_OVERFLOW].store(u64::from(depth) + 1, Relaxed);
        }
        return;
    }
    if t.global() == 0 {
        b.level_off[d + 2].store(base + count, Relaxed);
        b.ctl[CTL_ITEMS].store(0, Relaxed);
        b.ctl[CTL_FRONTIER_EDGES].store(0, Relaxed);
        b.ctl[CTL_NEXT + (d + 1) % 2].store(0, Relaxed);
        if count > 0 {
            b.ctl[CTL_DEPTH].store(u64::from(depth) + 1, Relaxed);
        }
    }
    let mut j = t.global();
    while j < count {
        let w = b.next_list[j as usize].load(Relaxed) as usize;
        let lanes = b.next[w].swap(0, Relaxed);
        b.seen[w].fetch_or(lanes, Relaxed);
        let at = (base + j) as usize;
        b.order[at].store(w as u32, Relaxed);
        b.masks[at].store(lanes, Relaxed);
        b.lvl(depth + 1)[w].store(lanes, Relaxed);
        j += t.stride();
    }
}

/// Backward phase, before level `depth`'s pull: the lanes of level `depth + 1`'s
/// vertices go into `lvl[(depth + 1) % 2]`, and level `depth + 2`'s are cleared from
/// the other array (never the same array, so the two never race). Also resets
/// the work-item counter for [`chunks`] of level `depth`.
///
/// # Safety
/// As [`seed`], after the forward phase; `depth + 2` within the levels run.
#[inline(always)]
pub unsafe fn remark(t: ThreadCtx, desc: *const BatchDesc, depth: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    if t.global() == 0 {
        b.ctl[CTL_ITEMS].store(0, Relaxed);
    }
    let (slo, shi) = b.level(depth + 1);
    let (clo, chi) = b.level(depth + 2);
    let set = b.lvl(depth + 1);
    let clear = b.lvl(depth);
    let mut i = t.global();
    while slo + i < shi || clo + i < chi {
        if slo + i < shi {
            let at = (slo + i) as usize;
            let w = b.order[at].load(Relaxed) as usize;
            set[w].store(b.masks[at].load(Relaxed), Relaxed);
        }
        if clo + i < chi {
            let w = b.order[(clo + i) as usize].load(Relaxed) as usize;
            clear[w].store(0, Relaxed);
        }
        i += t.stride();
    }
}

/// Backward phase of betweenness at level `depth` (items from [`chunks`]): each
/// entry's lanes gather `(1 + δ(w)) / σ(w)` from their successors `w` (the
/// out-neighbours whose same lane sits one level deeper, `lvl`).
///
/// # Safety
/// As [`remark`], after it and [`chunks`] of the same level.
#[inline(always)]
pub unsafe fn pull(t: ThreadCtx, desc: *const BatchDesc, depth: u32) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    let deeper = b.lvl(depth + 1);
    b.each_item_edge(t, |v, lanes, w| {
        each_lane(lanes & deeper[w].load(Relaxed), |l| {
            let at = w * b.lanes + l;
            let sigma = Batch::f64_at(b.sigma, at);
            let share = (1.0 + sigma * Batch::f64_at(b.dsum, at)) / sigma;
            <f64 as StateWord>::fetch_add(&b.dsum[v * b.lanes + l], share);
        });
    });
}

/// Adds each vertex's dependencies over the batch's lanes, `σ(v)·dsum(v)`, to its
/// score (a lane that did not reach `v` has `σ = 0`).
///
/// # Safety
/// As [`seed`], after the backward phase.
#[inline(always)]
pub unsafe fn add_scores(t: ThreadCtx, desc: *const BatchDesc) {
    // SAFETY: caller's contract.
    let b = unsafe { Batch::of(desc) };
    let mut v = t.global() as usize;
    while v < b.n {
        let mut s = 0.0;
        for l in 0..b.lanes {
            let at = v * b.lanes + l;
            s += Batch::f64_at(b.sigma, at) * Batch::f64_at(b.dsum, at);
        }
        if s != 0.0 {
            let old = Batch::f64_at(b.scores, v);
            <f64 as StateWord>::store(&b.scores[v], old + s);
        }
        v += t.stride() as usize;
    }
}

/// Per-lane totals over levels `1..levels`: `out[l]` = sum of depths (distances),
/// `out[64 + l]` = vertices reached, `out[128 + l]` = deepest level reached,
/// `out[192 + l]` = sum of inverse depths (an `f64`'s bits), for closeness,
/// harmonic centrality and all-pairs summaries. Threads take lane `global % 64` of every
/// `stride / 64`-th entry, so the grid's thread count must be a multiple of 64.
///
/// # Safety
/// As [`seed`], after the forward phase; `out` holds 256 zeroed words.
#[inline(always)]
pub unsafe fn lane_sums(t: ThreadCtx, desc: *const BatchDesc, levels: u32, out: *mut u64) {
    // SAFETY: caller's contract.
    let (b, out) = unsafe { (Batch::of(desc), u64::atomics_from_raw(out, 4 * 64)) };
    let lane = t.global() % 64;
    let part = t.global() / 64;
    let parts = (t.stride() / 64).max(1);
    let (mut sum, mut count, mut deepest, mut inverse) = (0u64, 0u64, 0u64, 0f64);
    for d in 1..levels {
        let (lo, hi) = b.level(d);
        let mut i = lo + part;
        let before = count;
        while i < hi {
            if b.masks[i as usize].load(Relaxed) >> lane & 1 != 0 {
                count += 1;
            }
            i += parts;
        }
        if count > before {
            sum += u64::from(d) * (count - before);
            inverse += (count - before) as f64 / f64::from(d);
            deepest = u64::from(d);
        }
    }
    if count > 0 {
        let l = lane as usize;
        out[l].fetch_add(sum, Relaxed);
        out[64 + l].fetch_add(count, Relaxed);
        out[128 + l].fetch_max(deepest, Relaxed);
        <f64 as StateWord>::fetch_add(&out[192 + l], inverse);
    }
}

/// [`seed`] of each of `groups` batches whose descriptors follow `descs`: one
/// launch serves a group of batches, so a high-diameter graph's thousands of
/// small levels cost one launch per level for the whole group, not per batch.
/// The grid is split between the batches ([`ThreadCtx::each_part`]): a thread
/// works on one batch, not on all of them in turn (which made every launch
/// pay the group's size in per-thread setup).
///
/// # Safety
/// As [`seed`], for each of the `groups` descriptors at `descs`.
#[inline(always)]
pub unsafe fn seed_group(t: ThreadCtx, descs: *const BatchDesc, groups: u32) {
    // SAFETY: caller's contract, descriptor by descriptor.
    t.each_part(groups, |g, sub| unsafe { seed(sub, descs.add(g)) })
}

/// [`chunks`] of each batch of a group (see [`seed_group`]).
///
/// # Safety
/// As [`seed_group`].
#[inline(always)]
pub unsafe fn chunks_group(t: ThreadCtx, descs: *const BatchDesc, groups: u32, depth: u32) {
    // SAFETY: caller's contract, descriptor by descriptor.
    t.each_part(groups, |g, sub| unsafe { chunks(sub, descs.add(g), depth) })
}

/// [`expand`] of each batch of a group (see [`seed_group`]).
///
/// # Safety
/// As [`seed_group`], after [`chunks_group`] of the same level.
#[inline(always)]
pub unsafe fn expand_group(t: ThreadCtx, descs: *const BatchDesc, groups: u32, depth: u32) {
    // SAFETY: caller's contract, descriptor by descriptor.
    t.each_part(groups, |g, sub| unsafe { expand(sub, descs.add(g), depth) })
}

/// [`settle`] of each batch of a group (see [`seed_group`]).
///
/// # Safety
/// As [`seed_group`], after [`expand_group`] of the same level.
#[inline(always)]
pub unsafe fn settle_group(t: ThreadCtx, descs: *const BatchDesc, groups: u32, depth: u32) {
    // SAFETY: caller's contract, descriptor by descriptor.
    t.each_part(groups, |g, sub| unsafe { settle(sub, descs.add(g), depth) })
}

/// Defines the batched-BFS kernels `msbfs_seed`, `msbfs_chunks`, `msbfs_expand`,
/// `msbfs_settle`, `msbfs_remark`, `msbfs_pull`, `msbfs_add_scores`,
/// `msbfs_lane_sums` and the group forms `msbfs_{seed,chunks,expand,settle}_group`
/// (parameters as their bodies in this module).
#[macro_export]
macro_rules! msbfs_kernels {
    () => {
        $crate::__kernel!(msbfs_seed => $crate::msbfs::seed; desc: *const $crate::msbfs::BatchDesc);
        $crate::__kernel!(msbfs_chunks => $crate::msbfs::chunks; desc: *const $crate::msbfs::BatchDesc, depth: u32);
        $crate::__kernel!(msbfs_expand => $crate::msbfs::expand; desc: *const $crate::msbfs::BatchDesc, depth: u32);
        $crate::__kernel!(msbfs_settle => $crate::msbfs::settle; desc: *const $crate::msbfs::BatchDesc, depth: u32);
        $crate::__kernel!(msbfs_remark => $crate::msbfs::remark; desc: *const $crate::msbfs::BatchDesc, depth: u32);
        $crate::__kernel!(msbfs_pull => $crate::msbfs::pull; desc: *const $crate::msbfs::BatchDesc, depth: u32);
        $crate::__kernel!(msbfs_add_scores => $crate::msbfs::add_scores; desc: *const $crate::msbfs::BatchDesc);
        $crate::__kernel!(msbfs_lane_sums => $crate::msbfs::lane_sums; desc: *const $crate::msbfs::BatchDesc, levels: u32, out: *mut u64);
        $crate::__kernel!(msbfs_seed_group => $crate::msbfs::seed_group; descs: *const $crate::msbfs::BatchDesc, groups: u32);
        $crate::__kernel!(msbfs_chunks_group => $crate::msbfs::chunks_group; descs: *const $crate::msbfs::BatchDesc, groups: u32, depth: u32);
        $crate::__kernel!(msbfs_expand_group => $crate::msbfs::expand_group; descs: *const $crate::msbfs::BatchDesc, groups: u32, depth: u32);
        $crate::__kernel!(msbfs_settle_group => $crate::msbfs::settle_group; descs: *const $crate::msbfs::BatchDesc, groups: u32, depth: u32);
    };
}
