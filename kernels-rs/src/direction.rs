//! Direction-optimizing traversal (Beamer, Asanović & Patterson, SC'12) on the GPU:
//! top-down levels over a work list of edge chunks built from the frontier, and
//! bottom-up levels where every vertex that can still improve looks for one parent
//! in the frontier and stops at the first.
//!
//! The frontier is always a bitmap (one bit per vertex): a bottom-up level tests
//! in-neighbours against it (4 M vertices = 512 KiB, resident in L2), and a
//! top-down level turns it into a work list without a per-vertex queue append —
//! in [`td_chunks`] each lane takes one bitmap word, counts the `⌈deg / chunk⌉`
//! edge chunks of its set bits, and the warp reserves its lanes' chunks with *one*
//! atomic add before each lane writes its `(vertex, chunk index)` pairs — or, for
//! a word holding a hub, the whole warp writes them ([`crate::warp::write_lists`]).
//! [`TopDown::relax`] then gives each thread one chunk (seed 000's edge-chunk
//! balancing, restricted to frontier edges), so a hub's adjacency is spread over
//! many threads. A level whose frontier holds many edges scans them all instead
//! ([`TopDown::scan`], [`choose_scan`]).
//!
//! Both level kinds write the next frontier bitmap with `atom.or` (the returned old
//! word tells whether the vertex is new, so the counts are exact) and sum the new
//! frontier's size and out-degree in registers, one atomic add per thread into the
//! level counters ([`CTL_FRONTIER`], [`CTL_EDGES`]) that the host reads to choose
//! the next direction (Beamer's α/β heuristic).
//!
//! Bottom-up is only equivalent to top-down when every frontier vertex offers the
//! same candidate — unweighted programs with a `min`/`max` combine run from one
//! source (BFS). The host checks that before it launches [`BottomUp::run`] and passes
//! the uniform candidate.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::program::Program;
use crate::skeleton::{chunk_rows, CsrView};
use crate::thread::ThreadCtx;
use crate::warp::{rejoined_stride, write_lists, Warp};
use crate::word::StateWord;

/// Level counter: vertices that joined the next frontier.
pub const CTL_FRONTIER: usize = 0;
/// Level counter: sum of their out-degrees (Beamer's `m_f` for the next level).
pub const CTL_EDGES: usize = 1;
/// Level counter: chunks in the top-down work list.
pub const CTL_CHUNKS: usize = 2;
/// Bucketed traversal: pending vertices [`td_select`] took.
pub const CTL_SELECTED: usize = 3;
/// Bucketed traversal: `2³² − p` for the lowest priority `p` left pending (0 =
/// none), so that a zeroed counter block starts right and `fetch_max` finds it.
pub const CTL_MIN_PENDING: usize = 4;
/// Device-planned levels ([`plan_level`]): what this level runs, one of the
/// `PLAN_*` values. 0 (a zeroed block: the host chose the direction) runs every
/// kernel it is launched with.
pub const CTL_PLAN: usize = 5;
/// Device-planned levels: edges not yet explored top-down before this level ran
/// (Beamer's `m_u`), carried from level to level on the device.
pub const CTL_UNEXPLORED: usize = 6;
/// Device-planned levels: the frontier this level expanded (vertices, out-edges),
/// kept for the host's per-level log.
pub const CTL_IN_VERTICES: usize = 7;
pub const CTL_IN_EDGES: usize = 8;
/// Device-planned bucketed passes ([`plan_pass`]): the priority limit of this pass.
pub const CTL_LIMIT: usize = 9;
/// Device-planned bucketed passes: vertices pending before this pass.
pub const CTL_PENDING: usize = 10;
/// Device-planned levels: this level's number (the previous level's plus one,
/// `u64::MAX` in the block a traversal's first level is planned from), which
/// the relax kernels read when launched with [`ITER_FROM_PLAN`]: then every
/// batch of levels has the same launches and arguments, and one recorded batch
/// (a CUDA graph) replays for all of them.
pub const CTL_LEVEL: usize = 11;
/// Words of the counter block.
pub const CTL_WORDS: usize = 12;

/// The `iter` argument of a top-down kernel that reads its level from the
/// counter block ([`CTL_LEVEL`]) instead.
pub const ITER_FROM_PLAN: u32 = u32::MAX;

/// [`CTL_PLAN`]: the host launched the level and chose its direction.
pub const PLAN_HOST: u64 = 0;
/// [`CTL_PLAN`]: top-down (the bottom-up kernel returns at once).
pub const PLAN_TOP_DOWN: u64 = 1;
/// [`CTL_PLAN`]: bottom-up (the top-down kernels return at once).
pub const PLAN_BOTTOM_UP: u64 = 2;
/// [`CTL_PLAN`]: the traversal ended before this level; every kernel returns.
pub const PLAN_DONE: u64 = 3;
/// [`CTL_PLAN`]: a bucketed traversal found its counts inconsistent (vertices
/// pending, none in the bitmap); every kernel returns and the host reports it.
pub const PLAN_STUCK: u64 = 4;

/// [`CTL_PLAN`]: top-down by a scan of every edge chunk ([`TopDown::scan`]); the
/// work-list and bottom-up kernels return at once.
pub const PLAN_SCAN: u64 = 5;

/// What the host knows of a level it plans on the device ([`plan_level`]).
pub const LEVEL_TOP_DOWN_ONLY: u32 = 0;
/// The frontier is uniform (one candidate): bottom-up is allowed.
pub const LEVEL_MAY_PULL: u32 = 1;
/// The frontier offers nothing (`relax` of the uniform state is `None`): over.
pub const LEVEL_OVER: u32 = 2;
/// Top-down only, and the run holds the scan's chunk starts: a level whose
/// frontier has many edges scans them all ([`choose_scan`]).
pub const LEVEL_MAY_SCAN: u32 = 3;

/// Bottom-up when frontier edges > unexplored edges / α. gapbs takes 15 on CPUs;
/// on one H200 (Graph500, each α on the same graph and roots in one process) 50
/// ran 1.06×, 1.04× and 1.10× the harmonic-mean TEPS of 15 at scales 24, 25 and 26
/// (16 roots, none slower by over 3 %): the roots whose hub level 15 left top-down
/// (9.5 → 3.7 ms at scale 26) go bottom-up there. At scales 20–23 (64 roots) it
/// ran 1.06, 1.01 (per root), 1.01 and 1.02×, on a uniform random graph of 4 M
/// vertices 1.01× (8 sources). 100 and 200 gain as much on the slow roots but slow
/// others (4.0 → 4.9 ms); 400 loses.
pub const ALPHA: u64 = 50;
/// Back to top-down when the frontier shrinks to ≤ n / β (gapbs' default).
pub const BETA: u64 = 18;

/// Beamer's two switch points, a run's setting rather than constants: gapbs tuned
/// α = 15 and β = 18 for CPUs, where a bottom-up test costs what a top-down edge
/// does; on a GPU top-down claims are atomics scattered over the states, so the
/// best α differs ([`ALPHA`]) and may differ by graph and device (Gunrock takes
/// both as `--do-a`/`--do-b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heuristic {
    /// Bottom-up once the frontier's out-edges exceed the unexplored edges / α.
    pub alpha: u64,
    /// Back to top-down once the shrinking frontier holds ≤ n / β vertices.
    pub beta: u64,
}

impl Heuristic {
    /// [`ALPHA`] and [`BETA`].
    pub const DEFAULT: Heuristic = Heuristic {
        alpha: ALPHA,
        beta: BETA,
    };
}

impl Default for Heuristic {
    fn default() -> Self {
        Heuristic::DEFAULT
    }
}

/// Beamer's direction heuristic, shared by the host loop and [`plan_level`] so the
/// two cannot drift apart: while top-down, go bottom-up once the frontier's
/// out-edges exceed the unexplored edges / α; while bottom-up, stay until the
/// frontier shrinks (fewer vertices than the level before) to ≤ n / β. A zero α or
/// β (refused by the host) counts as 1.
#[inline(always)]
pub fn choose_bottom_up(
    h: Heuristic,
    was_bottom_up: bool,
    vertices: u64,
    edges: u64,
    previous: u64,
    unexplored: u64,
    n: u64,
) -> bool {
    if was_bottom_up {
        !(vertices < previous && vertices <= n / h.beta.max(1))
    } else {
        edges > unexplored / h.alpha.max(1)
    }
}

/// A top-down level scans every edge chunk ([`TopDown::scan`]) instead of
/// listing the frontier's when its out-edges exceed the graph's edges divided by
/// this. A scan streams through the CSR in order and skips the rows of
/// vertices outside the frontier; the work list gathers each listed vertex's
/// offsets and state apart and writes 8 bytes a chunk. H200, Kronecker 24,
/// SSSP (12 levels, most of them over a frontier with most edges): every
/// level by scan (the balanced kernel) 31 ms, every level by work list 69 ms.
pub const SCAN_RATIO: u64 = 8;

/// Whether a top-down level over a frontier of `edges` out-edges, in a graph
/// of `m` edges, scans ([`SCAN_RATIO`]); shared by the host loop and
/// [`plan_level`].
#[inline(always)]
pub fn choose_scan(edges: u64, m: u64) -> bool {
    edges > m / SCAN_RATIO
}

/// Whether a level whose block says `plan` runs the top-down kernels.
#[inline(always)]
fn runs_top_down(ctl: &[AtomicU64]) -> bool {
    matches!(ctl[CTL_PLAN].load(Relaxed), PLAN_HOST | PLAN_TOP_DOWN)
}

/// Plans one bucketed (near-far) pass on the device, as `plan_level` does for
/// BFS levels: from the previous pass's block (`None` for the first pass, which
/// has `first_pending` pending vertices and limit `first_limit`) it carries the
/// pending count (`pending − selected + inserted`) and the limit, which jumps to
/// the lowest pending priority + `delta` after a pass that selected nothing —
/// the host loop's rule. `cur` is cleared and given the pass's plan
/// ([`PLAN_TOP_DOWN`]: run [`td_select`] with [`CTL_LIMIT`]; [`PLAN_DONE`];
/// [`PLAN_STUCK`]).
#[inline(always)]
pub fn plan_pass(
    prev: Option<&[AtomicU64]>,
    cur: &[AtomicU64],
    first_pending: u64,
    first_limit: u64,
    delta: u64,
) {
    let (pending, limit, stop) = match prev {
        None => (first_pending, first_limit, None),
        Some(p) => match p[CTL_PLAN].load(Relaxed) {
            plan @ (PLAN_DONE | PLAN_STUCK) => (0, 0, Some(plan)),
            _ => {
                let (before, selected) =
                    (p[CTL_PENDING].load(Relaxed), p[CTL_SELECTED].load(Relaxed));
                let limit = p[CTL_LIMIT].load(Relaxed);
                match before.checked_sub(selected) {
                    None => (0, limit, Some(PLAN_STUCK)),
                    Some(left) => {
                        let pending = left + p[CTL_FRONTIER].load(Relaxed);
                        match (selected, p[CTL_MIN_PENDING].load(Relaxed)) {
                            (0, _) if pending == 0 => (0, limit, None),
                            (0, 0) => (pending, limit, Some(PLAN_STUCK)),
                            (0, m) => {
                                let lowest = (1u64 << 32) - m;
                                let next =
                                    lowest.saturating_add(delta).max(limit.saturating_add(1));
                                (pending, next, None)
                            }
                            _ => (pending, limit, None),
                        }
                    }
                }
            }
        },
    };
    for c in cur {
        c.store(0, Relaxed);
    }
    let plan = match stop {
        Some(plan) => plan,
        None if pending == 0 => PLAN_DONE,
        None => PLAN_TOP_DOWN,
    };
    cur[CTL_PLAN].store(plan, Relaxed);
    cur[CTL_LIMIT].store(limit, Relaxed);
    cur[CTL_PENDING].store(pending, Relaxed);
}

/// The counter block a traversal's first level is planned from, standing for
/// the level before it: the initial frontier `first` = (vertices, out-edges),
/// `m` edges unexplored, top-down, numbered so that the first level is 0.
/// Written by the host into the slot before the batch's first (so that the
/// first batch launches what every later batch does).
pub fn first_level_block(first: (u64, u64), m: u64) -> [u64; CTL_WORDS] {
    let mut b = [0u64; CTL_WORDS];
    b[CTL_FRONTIER] = first.0;
    b[CTL_EDGES] = first.1;
    b[CTL_UNEXPLORED] = m;
    b[CTL_PLAN] = PLAN_TOP_DOWN;
    b[CTL_LEVEL] = u64::MAX;
    b
}

/// Whether a level whose block says `plan` runs the bottom-up kernel.
#[inline(always)]
fn runs_bottom_up(ctl: &[AtomicU64]) -> bool {
    matches!(ctl[CTL_PLAN].load(Relaxed), PLAN_HOST | PLAN_BOTTOM_UP)
}

/// Plans a level on the device (one thread), so that the host can launch several
/// levels back to back and read their counters once (one host round trip per
/// `levels_per_sync` levels instead of one per level). `prev` is the block of
/// the level before (`None` at level 0, whose frontier is `first` = (vertices,
/// out-edges) and whose unexplored edges are `m`, the graph's edges, which
/// [`choose_scan`] also reads); `cur` is this level's block,
/// cleared here and given its [`CTL_PLAN`]. The level's kernels then run or
/// return at once by that plan; a finished traversal plans [`PLAN_DONE`] for
/// every later level. A `prev` of [`first_level_block`]`(first, m)` plans level
/// 0 exactly as `None` does.
#[inline(always)]
pub fn plan_level(
    prev: Option<&[AtomicU64]>,
    cur: &[AtomicU64],
    n: u64,
    m: u64,
    first: (u64, u64),
    level: u32,
    h: Heuristic,
) {
    let (vertices, edges, previous, unexplored, was_bottom_up, done, number) = match prev {
        None => (first.0, first.1, 0, m, false, false, 0),
        Some(p) => {
            let plan = p[CTL_PLAN].load(Relaxed);
            (
                p[CTL_FRONTIER].load(Relaxed),
                p[CTL_EDGES].load(Relaxed),
                p[CTL_IN_VERTICES].load(Relaxed),
                p[CTL_UNEXPLORED].load(Relaxed),
                plan == PLAN_BOTTOM_UP,
                plan == PLAN_DONE,
                p[CTL_LEVEL].load(Relaxed).wrapping_add(1),
            )
        }
    };
    for c in cur {
        c.store(0, Relaxed);
    }
    cur[CTL_LEVEL].store(number, Relaxed);
    if done || vertices == 0 || level == LEVEL_OVER {
        cur[CTL_PLAN].store(PLAN_DONE, Relaxed);
        return;
    }
    let bottom_up = level == LEVEL_MAY_PULL
        && choose_bottom_up(h, was_bottom_up, vertices, edges, previous, unexplored, n);
    let unexplored = if bottom_up {
        unexplored
    } else {
        unexplored.saturating_sub(edges)
    };
    cur[CTL_PLAN].store(
        if bottom_up {
            PLAN_BOTTOM_UP
        } else if level == LEVEL_MAY_SCAN && choose_scan(edges, m) {
            PLAN_SCAN
        } else {
            PLAN_TOP_DOWN
        },
        Relaxed,
    );
    cur[CTL_UNEXPLORED].store(unexplored, Relaxed);
    cur[CTL_IN_VERTICES].store(vertices, Relaxed);
    cur[CTL_IN_EDGES].store(edges, Relaxed);
}

/// In-edges a bottom-up lane tests alone before its warp helps (see
/// [`BottomUp::run`]).
pub const BOTTOM_UP_SERIAL_EDGES: u64 = 8;

/// Capacity the top-down work list needs: `Σ ⌈deg/chunk⌉ ≤ n + m/chunk`.
#[inline(always)]
pub fn chunk_capacity(n: u64, m: u64, chunk: u64) -> u64 {
    match m.checked_div(chunk) {
        Some(c) => n + c + 1,
        None => 0,
    }
}

/// One bit per vertex over atomic words.
#[derive(Clone, Copy, Debug)]
pub struct Bitmap<'a> {
    pub words: &'a [AtomicU32],
}

impl Bitmap<'_> {
    /// Whether `v`'s bit is set.
    #[inline(always)]
    pub fn contains(&self, v: usize) -> bool {
        self.words[v >> 5].load(Relaxed) & (1 << (v & 31)) != 0
    }

    /// Sets `v`'s bit; true if it was clear (exactly one caller wins).
    #[inline(always)]
    pub fn insert(&self, v: usize) -> bool {
        let bit = 1u32 << (v & 31);
        self.words[v >> 5].fetch_or(bit, Relaxed) & bit == 0
    }
}

/// A bitmap no thread writes while the kernel runs: a level's frontier, which
/// the bottom-up, scan and work-list kernels only read (the level writes the
/// other buffer). Plain loads, which L1 may serve across a block; [`Bitmap`]'s
/// atomic loads (`ld.relaxed.sys`) go to L2 every time. A bottom-up level
/// tests the in-neighbours of every vertex it scans, and with hubs first most
/// of those tests read the few words holding the hubs. H200, Graph500 BFS, the
/// same 16 roots: each search took 0.963x / 0.941x / 0.937x the time (geometric
/// mean) at scales 24 / 25 / 26, 47 of the 48 searches faster.
#[derive(Clone, Copy, Debug)]
pub struct FrozenBitmap<'a> {
    pub words: &'a [u32],
}

impl FrozenBitmap<'_> {
    /// Whether `v`'s bit is set.
    #[inline(always)]
    pub fn contains(&self, v: usize) -> bool {
        self.words[v >> 5] & (1 << (v & 31)) != 0
    }
}

/// Per-thread tallies of the next frontier, flushed once per thread.
#[derive(Default)]
struct Tally {
    vertices: u64,
    edges: u64,
}

impl Tally {
    /// Adds the warp's tallies to the level counters: one lane, two atomics per
    /// warp. Every lane must call it (it votes). Atomics on one address serialise
    /// in L2, so per-thread adds from millions of threads cost milliseconds.
    #[inline(always)]
    fn flush<W: Warp>(&self, w: W, ctl: &[AtomicU64]) {
        let vertices = w.sum_u64(self.vertices);
        let edges = w.sum_u64(self.edges);
        if vertices != 0 && w.lane() == 0 {
            ctl[CTL_FRONTIER].fetch_add(vertices, Relaxed);
            ctl[CTL_EDGES].fetch_add(edges, Relaxed);
        }
    }
}

#[inline(always)]
fn degree(offsets: &[u64], v: usize) -> u64 {
    offsets[v + 1] - offsets[v]
}

/// Writes from slot `at` of the work list the chunks of every vertex whose bit
/// is set in `bits`, word `w` of a bitmap: of each vertex's chunks, those whose
/// index is `start` plus a multiple of `step` ([`write_lists`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn list_word_chunks(
    offsets: &[u64],
    chunk: u64,
    chunks: &[AtomicU64],
    mut at: u64,
    w: u64,
    mut bits: u32,
    start: u64,
    step: u64,
) {
    while bits != 0 {
        let v = (w as usize) * 32 + bits.trailing_zeros() as usize;
        let n = degree(offsets, v).div_ceil(chunk);
        let mut i = start;
        while i < n {
            chunks[(at + i) as usize].store((v as u64) << 32 | i, Relaxed);
            i += step;
        }
        at += n;
        bits &= bits - 1;
    }
}

/// Every lane of a warp lists the `count` chunks of the vertices set in `bits`
/// (bitmap word `word`): one atomic reserves the warp's total, a prefix sum
/// of shuffles places each lane's share, and a word of more than
/// `LANE_LIST_ITEMS` chunks (a hub's) is written by the whole warp
/// ([`write_lists`]). Whole warps only.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn list_warp_chunks<W: Warp>(
    w: W,
    offsets: &[u64],
    chunk: u64,
    chunks: &[AtomicU64],
    ctl: &[AtomicU64],
    count: u64,
    word: u64,
    bits: u32,
) {
    let (before, total) = w.prefix_sum_u64(count);
    if total == 0 {
        return;
    }
    let first = if w.lane() == 0 {
        ctl[CTL_CHUNKS].fetch_add(total, Relaxed)
    } else {
        0
    };
    let at = w.shfl_u64(first, 0) + before;
    write_lists(
        w,
        (word, u64::from(bits)),
        at,
        count,
        |(word, bits), at, start, step| {
            list_word_chunks(offsets, chunk, chunks, at, word, bits as u32, start, step)
        },
    );
}

/// Top-down, step 1: the frontier bitmap → the work list of edge chunks.
/// `chunks[i] = v << 32 | k` stands for edges `[off(v) + k·chunk, …)` of `v`.
///
/// One bitmap word (32 vertices) per lane: a warp counts its words' chunks,
/// reserves them with one atomic and a prefix sum of shuffles, and each lane
/// writes its own. (A thread per 32 words, as before, left a dense frontier of
/// 4 M vertices to 4,096 threads walking 1,024 vertices each: at 8 edges a
/// chunk the list cost twice the relax that followed, H200, Kronecker 22.)
/// Whole warps only: every lane of a warp must call it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn td_chunks<W: Warp>(
    t: ThreadCtx,
    w: W,
    offsets: &[u64],
    frontier: FrozenBitmap,
    chunk: u64,
    chunks: &[AtomicU64],
    ctl: &[AtomicU64],
    clear: Option<&[AtomicU32]>,
) {
    let nwords = frontier.words.len() as u64;
    let top_down = chunk != 0 && runs_top_down(ctl);
    if !top_down && clear.is_none() {
        return;
    }
    let lane = u64::from(w.lane());
    // The warp's first word: the same in every lane, so the loop is warp-uniform.
    let mut base = t.global() - lane;
    while base < nwords {
        let word = base + lane;
        if let Some(c) = clear.and_then(|c| c.get(word as usize)) {
            c.store(0, Relaxed);
        }
        if !top_down {
            base += t.stride();
            continue;
        }
        let bits = if word < nwords {
            frontier.words[word as usize]
        } else {
            0
        };
        let mut count = 0u64;
        let mut rest = bits;
        while rest != 0 {
            let v = (word as usize) * 32 + rest.trailing_zeros() as usize;
            count += degree(offsets, v).div_ceil(chunk);
            rest &= rest - 1;
        }
        list_warp_chunks(w, offsets, chunk, chunks, ctl, count, word, bits);
        base += t.stride();
    }
}

/// Bucketed (near-far) step 1: like [`td_chunks`], but only pending vertices whose
/// priority is below `limit` are taken — their bits are cleared from `pending` and
/// their chunks listed; the lowest priority left behind goes to
/// [`CTL_MIN_PENDING`] so the host can jump straight to the next non-empty bucket.
/// [`TopDown::relax`] then sets the bits of improved vertices in the same bitmap.
/// One bitmap word per lane, as [`td_chunks`]; whole warps only.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn td_select<P: Program, W: Warp>(
    t: ThreadCtx,
    w: W,
    offsets: &[u64],
    state: &[<P::State as StateWord>::Atomic],
    pending: Bitmap,
    limit: u64,
    chunk: u64,
    chunks: &[AtomicU64],
    ctl: &[AtomicU64],
) {
    let nwords = pending.words.len() as u64;
    // A planned pass takes its limit from the block ([`plan_pass`]).
    let limit = match ctl[CTL_PLAN].load(Relaxed) {
        PLAN_HOST => limit,
        PLAN_TOP_DOWN => ctl[CTL_LIMIT].load(Relaxed),
        _ => return,
    };
    if chunk == 0 {
        return;
    }
    let lane = u64::from(w.lane());
    let (mut selected, mut lowest_left) = (0u64, u64::MAX);
    // The warp's first word: the same in every lane, so the loop is warp-uniform.
    let mut base = t.global() - lane;
    while base < nwords {
        let word = base + lane;
        let mut bits = if word < nwords {
            pending.words[word as usize].load(Relaxed)
        } else {
            0
        };
        let (mut mine, mut count) = (0u32, 0u64);
        while bits != 0 {
            let b = bits.trailing_zeros();
            let v = (word as usize) * 32 + b as usize;
            let p = u64::from(P::priority(P::State::load(&state[v])));
            if p < limit {
                mine |= 1 << b;
                count += degree(offsets, v).div_ceil(chunk);
                selected += 1;
            } else if p < lowest_left {
                lowest_left = p;
            }
            bits &= bits - 1;
        }
        if mine != 0 {
            pending.words[word as usize].fetch_and(!mine, Relaxed);
        }
        list_warp_chunks(w, offsets, chunk, chunks, ctl, count, word, mine);
        base += t.stride();
    }
    let selected = w.sum_u64(selected);
    let lowest = w.min_u64(lowest_left);
    if lane == 0 {
        if selected != 0 {
            ctl[CTL_SELECTED].fetch_add(selected, Relaxed);
        }
        if lowest != u64::MAX {
            ctl[CTL_MIN_PENDING].fetch_max((1u64 << 32) - lowest, Relaxed);
        }
    }
}

/// Everything a top-down relax launch reads and writes.
pub struct TopDown<'a, P: Program> {
    pub graph: CsrView<'a>,
    pub weights: &'a [P::Weight],
    pub state: &'a [<P::State as StateWord>::Atomic],
    pub parents: Option<&'a [AtomicU32]>,
    /// The work list [`td_chunks`] built, `ctl[CTL_CHUNKS]` entries long.
    pub chunks: &'a [u64],
    pub chunk: u64,
    pub next: Bitmap<'a>,
    pub ctl: &'a [AtomicU64],
    pub iter: u32,
    /// Offsets whose degrees the next-frontier tally sums: `graph.offsets`, or on
    /// a partition (multi-GPU) the whole graph's, since `graph` then holds only
    /// the edges into this part's vertices.
    pub degree_offsets: &'a [u64],
    /// The frontier's uniform candidate, when known: used instead of
    /// `relax(state[v])`, so a partition need not hold other parts' states.
    pub candidate: Option<P::State>,
}

impl<P: Program> TopDown<'_, P> {
    /// Relaxes `v`'s edges `edges` (a part of its row) into their targets; new
    /// targets join the next frontier and this thread's tally.
    #[inline(always)]
    fn relax_edges(&self, v: usize, edges: core::ops::Range<usize>, tally: &mut Tally) {
        let s = match self.candidate {
            Some(_) => None,
            None => Some(P::State::load(&self.state[v])),
        };
        for e in edges {
            let cand = match (self.candidate, s) {
                (Some(c), _) => c,
                (None, Some(s)) => match P::relax(s, self.weights[e], self.iter) {
                    Some(c) => c,
                    None => continue,
                },
                (None, None) => continue,
            };
            let u = self.graph.targets[e] as usize;
            if P::combine(&self.state[u], cand) {
                if let Some(p) = self.parents {
                    p[u].store(v as u32, Relaxed);
                }
                // Read first: a vertex improved several times in a level is
                // inserted once, and the later improvements skip the atomic.
                if !self.next.contains(u) && self.next.insert(u) {
                    tally.vertices += 1;
                    tally.edges += degree(self.degree_offsets, u);
                }
            }
        }
    }

    /// Top-down, step 2: one chunk per thread (grid-stride), each edge relaxed and
    /// combined atomically into its target; new targets join the next frontier.
    /// Launched with whole warps (the tally is summed per warp).
    #[inline(always)]
    pub fn relax<W: Warp>(&self, t: ThreadCtx, w: W) {
        let total = self.ctl[CTL_CHUNKS].load(Relaxed);
        let offsets = self.graph.offsets;
        let mut tally = Tally::default();
        rejoined_stride(t, w, total, |j| {
            let c = self.chunks[j as usize];
            let v = (c >> 32) as usize;
            let first = offsets[v] + (c & 0xffff_ffff) * self.chunk;
            let end = offsets[v + 1];
            let last = if end - first < self.chunk {
                end
            } else {
                first + self.chunk
            };
            self.relax_edges(v, first as usize..last as usize, &mut tally);
        });
        tally.flush(w, self.ctl);
    }

    /// A top-down level by scan ([`PLAN_SCAN`], or a host-chosen level): thread
    /// `i` takes edges `[i·chunk, (i+1)·chunk)` of the CSR (seed 000's edge
    /// chunks over every edge, `sv[i]` the vertex of edge `i·chunk`,
    /// [`crate::skeleton::build_sv`]) and relaxes those whose source is in
    /// `frontier`; no work list. Whole warps only (the tally).
    #[inline(always)]
    pub fn scan<W: Warp>(&self, t: ThreadCtx, w: W, frontier: FrozenBitmap, sv: &[u32]) {
        if !matches!(self.ctl[CTL_PLAN].load(Relaxed), PLAN_HOST | PLAN_SCAN) || self.chunk == 0 {
            return;
        }
        let mut tally = Tally::default();
        rejoined_stride(t, w, sv.len() as u64, |i| {
            chunk_rows(self.graph, self.chunk, i, sv[i as usize], |v, edges| {
                if frontier.contains(v) {
                    self.relax_edges(v, edges, &mut tally);
                }
            });
        });
        tally.flush(w, self.ctl);
    }
}

/// Everything a bottom-up launch reads and writes.
pub struct BottomUp<'a, P: Program> {
    /// In-edges (the CSR itself for a symmetric graph).
    pub incoming: CsrView<'a>,
    /// Out-edge offsets, for the next frontier's out-degree.
    pub out_offsets: &'a [u64],
    pub state: &'a [<P::State as StateWord>::Atomic],
    pub parents: Option<&'a [AtomicU32]>,
    pub frontier: FrozenBitmap<'a>,
    pub next: Bitmap<'a>,
    /// What every frontier vertex offers (uniform frontier, see the module docs).
    pub candidate: P::State,
    pub ctl: &'a [AtomicU64],
    /// The vertices scanned, `[first, end)` (`first` a multiple of 32; `0..n`
    /// on one GPU, a part's own range on a multi-GPU partition, whose other
    /// vertices have no in-edges there).
    pub first: u64,
    pub end: u64,
}

impl<P: Program> BottomUp<'_, P> {
    /// Takes `u` as `v`'s parent. Exactly one thread calls this per found vertex
    /// and level (the vertex's own lane, or the lane of its warp that found the
    /// parent while the owner waited), so plain stores suffice.
    #[inline(always)]
    fn adopt(&self, v: usize, u: u32) {
        P::State::store(&self.state[v], self.candidate);
        if let Some(p) = self.parents {
            p[v].store(u, Relaxed);
        }
    }

    /// A warp takes a tile of `W::SIZE` consecutive vertices, one per lane. Each
    /// lane whose vertex the candidate improves tests its first
    /// [`BOTTOM_UP_SERIAL_EDGES`] in-edges alone — most vertices of a large
    /// frontier find a parent there. The lanes still looking (longer lists) are
    /// then served one after another by the whole warp, `W::SIZE` in-edges per
    /// step, and the first step with a frontier member ends that vertex's scan.
    /// A long list thus costs `deg / 32` steps of one warp instead of `deg` steps
    /// of one lane while 31 lanes idle (Nsight Compute: 7 of 32 lanes active).
    ///
    /// A 32-vertex tile is one word of the next-frontier bitmap, so the warp sets
    /// its found vertices with one `atom.or`, and the level counters get one add
    /// per warp; per-vertex atomics on one counter were what
    /// bounded this kernel (8 ms at scale 24, most of the BFS).
    #[inline(always)]
    pub fn run<W: Warp>(&self, t: ThreadCtx, w: W) {
        // Every thread reads the same word: whole warps return together.
        if !runs_bottom_up(self.ctl) {
            return;
        }
        let n = self.end.min(self.state.len() as u64);
        let offsets = self.incoming.offsets;
        let sources = self.incoming.targets;
        let mut tally = Tally::default();
        let lane = w.lane();
        // Warp-uniform tile loop: every lane runs it the same number of times.
        let mut base = self.first + t.global() - u64::from(lane);
        while base < n {
            let v = base + u64::from(lane);
            let mut found = false;
            let (mut from, mut end) = (0u64, 0u64);
            if v < n && P::improves(P::State::load(&self.state[v as usize]), self.candidate) {
                let vi = v as usize;
                (from, end) = (offsets[vi], offsets[vi + 1]);
                let serial_end = end.min(from + BOTTOM_UP_SERIAL_EDGES);
                while from < serial_end {
                    let u = sources[from as usize];
                    from += 1;
                    if self.frontier.contains(u as usize) {
                        self.adopt(vi, u);
                        found = true;
                        end = from;
                        break;
                    }
                }
            }
            let mut waiting = w.ballot(from < end);
            while waiting != 0 {
                let owner = waiting.trailing_zeros();
                waiting &= waiting - 1;
                let pv = w.shfl_u64(v, owner) as usize;
                let mut step = w.shfl_u64(from, owner);
                let last = w.shfl_u64(end, owner);
                while step < last {
                    let e = step + u64::from(lane);
                    let u = if e < last { sources[e as usize] } else { 0 };
                    let hits = w.ballot(e < last && self.frontier.contains(u as usize));
                    if hits != 0 {
                        if lane == hits.trailing_zeros() {
                            self.adopt(pv, u);
                        }
                        found |= lane == owner;
                        break;
                    }
                    step += u64::from(W::SIZE);
                }
            }
            if found {
                tally.edges += degree(self.out_offsets, v as usize);
            }
            let mask = w.ballot(found);
            if lane == 0 && mask != 0 {
                // Bits `base & 31 ..` of word `base / 32`: the whole word for a
                // 32-lane warp, one bit for a one-lane warp.
                self.next.words[(base >> 5) as usize].fetch_or(mask << (base & 31), Relaxed);
                tally.vertices += u64::from(mask.count_ones());
            }
            base += t.stride();
        }
        tally.flush(w, self.ctl);
    }
}

#[cfg(test)]
#[path = "direction_tests.rs"]
mod tests;
