//! Many sources at once on the GPU (`kernels_rs::msbfs`): batches of up to 64
//! breadth-first searches sharing each edge visit, and Brandes's betweenness over
//! them (forward path counts and backward dependencies, both batched). The same
//! kernel bodies run under the host emulator ([`emulate_betweenness`],
//! [`emulate_levels`]) for CI without a GPU.
//!
//! The host's part per batch: lay the sources out as level 0 (one entry per
//! distinct vertex, its lanes the sources that start there, so repeated sources
//! work), then launch levels a window at a time and read the control words once
//! per window (the window doubles up to [`MAX_WINDOW`] while levels keep coming,
//! so a Kronecker graph's 6–10 levels cost a few round trips and a grid's
//! thousands cost one per 32 levels). When the level lists fill up, the kernels
//! stop and say at which level; the lists grow and the batch resumes there.

use cudarc::driver::CudaFunction;
use kernels_rs::msbfs::{
    self as k, BatchDesc, CTL_BACKWARD, CTL_BOTTOM_UP, CTL_DEPTH, CTL_LANES, CTL_OVERFLOW,
    CTL_WORDS, LANES,
};
use kernels_rs::ThreadCtx;

use super::device::{Device, DeviceGraph, Incoming};
use super::launcher::{Arg, DeviceLauncher, Grid, HostBody, HostLauncher, Kernel, Launcher};
use crate::cpu::msbfs::{check_sources, first_level, lane_mask, Level};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};

mod group;
use group::each_grouped;

/// Threads per block of every batched kernel (a multiple of 64: `lane_sums`).
const BLOCK: u32 = 256;
/// Threads per emulated block.
const EMU_BLOCK: u32 = 64;
/// Levels launched between two reads of the control words, at most.
pub const MAX_WINDOW: u32 = 32;
/// Edges per work item.
const CHUNK: u64 = 64;
/// A level runs bottom-up when its frontier's out-edges × this exceed the edges
/// (Beamer's α; the GPU's single-source direction kernel uses the same rule).
pub const ALPHA: u64 = 14;
/// Bottom-up levels only on graphs without hubs: max degree ≤ this × the mean.
/// A bottom-up thread scans its vertex's in-edges alone, and a lane a hub still
/// misses makes it read them all: on the H200, 64 sources on Kronecker 22 took
/// 64.8 ms with bottom-up levels and 16.0 ms top-down only (exact closeness of
/// Kronecker 20: over 100 s against 55.6 s), while uniform 22 went from 140 to
/// 97 ms and Kronecker 20 from 3.0 to 2.4 ms.
pub const HUB_RATIO: u64 = 32;

/// The α for a graph of `n` vertices, `m` edges and largest degree `max_degree`:
/// [`ALPHA`], or 0 (top-down only) when it has hubs.
pub fn alpha_for(n: u64, m: u64, max_degree: u64) -> u64 {
    let mean = (m / n.max(1)).max(1);
    if max_degree > HUB_RATIO * mean {
        0
    } else {
        ALPHA
    }
}

/// A graph as the batched kernels take it: `(n, m, offsets, targets)` of the
/// out-edges and `(m_in, in_offsets, in_sources)` of the in-edges (zeros: none,
/// so no level runs bottom-up), all addresses.
#[derive(Clone, Copy, Debug)]
struct GraphArgs {
    out: (u64, u64, u64, u64),
    incoming: (u64, u64, u64),
}

/// Kernel names, in the order of [`kernels`].
const NAMES: [&str; KERNELS] = [
    "msbfs_seed",
    "msbfs_chunks",
    "msbfs_expand",
    "msbfs_settle",
    "msbfs_remark",
    "msbfs_pull",
    "msbfs_add_scores",
    "msbfs_lane_sums",
    "msbfs_seed_group",
    "msbfs_chunks_group",
    "msbfs_expand_group",
    "msbfs_settle_group",
];
const KERNELS: usize = 12;
const SEED: usize = 0;
const CHUNKS: usize = 1;
const EXPAND: usize = 2;
const SETTLE: usize = 3;
const REMARK: usize = 4;
const PULL: usize = 5;
const ADD_SCORES: usize = 6;
const LANE_SUMS: usize = 7;
const SEED_GROUP: usize = 8;
const CHUNKS_GROUP: usize = 9;
const EXPAND_GROUP: usize = 10;
const SETTLE_GROUP: usize = 11;
/// Batches one launch of the `_group` kernels serves at most.
pub const MAX_GROUP: usize = 32;
/// Device memory the buffers of a group may take.
const GROUP_BUDGET: u64 = 8 << 30;

/// The batched kernels of the loaded module.
pub struct MsbfsKernels {
    f: [CudaFunction; KERNELS],
}

impl Device {
    /// Loads the batched-BFS kernels from the vertex module.
    pub fn load_msbfs(&self) -> Result<MsbfsKernels> {
        let mut f = Vec::with_capacity(NAMES.len());
        for name in NAMES {
            f.push(self.gpu.function(name)?);
        }
        let f = f
            .try_into()
            .map_err(|_| Error::InvalidArgument("msbfs kernel list".into()))?;
        Ok(MsbfsKernels { f })
    }
}

// Each body reads the argument list the batch builds for its kernel (the PTX
// parameter lists of `kernels_rs::msbfs_kernels!`): the contract their SAFETY
// comments refer to.

/// `(desc)`.
unsafe fn seed_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::seed(t, a[0].ptr()) }
}
/// `(desc, depth)`.
unsafe fn chunks_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::chunks(t, a[0].ptr(), a[1].u32()) }
}
/// `(desc, depth)`.
unsafe fn expand_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::expand(t, a[0].ptr(), a[1].u32()) }
}
/// `(desc, depth)`.
unsafe fn settle_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::settle(t, a[0].ptr(), a[1].u32()) }
}
/// `(desc, depth)`.
unsafe fn remark_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::remark(t, a[0].ptr(), a[1].u32()) }
}
/// `(desc, depth)`.
unsafe fn pull_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::pull(t, a[0].ptr(), a[1].u32()) }
}
/// `(desc)`.
unsafe fn add_scores_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::add_scores(t, a[0].ptr()) }
}
/// `(desc, levels, out)`.
unsafe fn lane_sums_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::lane_sums(t, a[0].ptr(), a[1].u32(), a[2].ptr()) }
}
/// `(descs, groups)`.
unsafe fn seed_group_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::seed_group(t, a[0].ptr(), a[1].u32()) }
}
/// `(descs, groups, depth)`.
unsafe fn chunks_group_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::chunks_group(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}
/// `(descs, groups, depth)`.
unsafe fn expand_group_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::expand_group(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}
/// `(descs, groups, depth)`.
unsafe fn settle_group_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::settle_group(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}

/// The kernels with the device's functions where loaded.
fn kernels(device: Option<&MsbfsKernels>) -> [Kernel<'_>; KERNELS] {
    let hosts: [HostBody; KERNELS] = [
        seed_body,
        chunks_body,
        expand_body,
        settle_body,
        remark_body,
        pull_body,
        add_scores_body,
        lane_sums_body,
        seed_group_body,
        chunks_group_body,
        expand_group_body,
        settle_group_body,
    ];
    std::array::from_fn(|i| Kernel {
        name: NAMES[i],
        device: device.map(|d| &d.f[i]),
        host: hosts[i],
    })
}

/// Per-source totals of one batch's BFS: what closeness and all-pairs summaries
/// need, without any per-vertex distances.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaneSums {
    /// Sum of the distances to every vertex reached (the source's own 0 included).
    pub distance_sum: u64,
    /// Vertices reached, the source excluded.
    pub reached: u64,
    /// Largest distance reached (eccentricity within the reached set).
    pub deepest: u64,
    /// Sum of the inverse distances (harmonic centrality).
    pub inverse_sum: f64,
}

/// Level offsets and `(vertex, lanes)` entries, as [`Batches::level_lists`] reads them.
type LevelLists = (Vec<u64>, Vec<(u32, u64)>);

/// The buffers of batches over one graph, on one launcher; reused batch after
/// batch (every batch has the same lane count except perhaps the last, which
/// uses a prefix of the path-count arrays).
struct Batches<'a, L: Launcher> {
    l: &'a L,
    k: [Kernel<'a>; KERNELS],
    block: u32,
    desc: BatchDesc,
    desc_buf: L::Buf<u64>,
    order: L::Buf<u32>,
    masks: L::Buf<u64>,
    level_off: L::Buf<u64>,
    ctl: L::Buf<u64>,
    seen: L::Buf<u64>,
    lvl: [L::Buf<u64>; 2],
    /// Path counts, dependency sums, scores (betweenness only).
    paths: Option<[L::Buf<f64>; 3]>,
    _items: L::Buf<u64>,
    next: L::Buf<u64>,
    _next_list: L::Buf<u32>,
    sums: L::Buf<u64>,
    /// Levels of the last batch.
    levels: u32,
    /// Levels run bottom-up, over every batch so far.
    bottom_up_levels: u64,
    /// Whether the kernels use control words a [`group`] holds for all its
    /// batches (`desc.ctl` points there, and the group writes and reads
    /// them), not `ctl`.
    shared_ctl: bool,
}

impl<'a, L: Launcher> Batches<'a, L> {
    /// Buffers for `n` vertices and `m` edges at `(offsets, targets)`, batches of
    /// up to `lanes` sources; with path counts when `paths`.
    fn new(
        l: &'a L,
        k: [Kernel<'a>; KERNELS],
        block: u32,
        graph: GraphArgs,
        lanes: u32,
        paths: bool,
        alpha: u64,
    ) -> Result<Self> {
        let (n, m, offsets, targets) = graph.out;
        let (m_in, in_offsets, in_sources) = graph.incoming;
        let nu = n as usize;
        let cap = (2 * nu).max(1024);
        let items_cap = nu + (m / CHUNK) as usize + 1;
        let lane_words = nu * lanes as usize;
        let order = l.zeros::<u32>(cap, "batched BFS levels (vertices)")?;
        let masks = l.zeros::<u64>(cap, "batched BFS levels (lanes)")?;
        let level_off = l.zeros::<u64>(
            nu + 2 + k::SPARE_LEVELS as usize + MAX_WINDOW as usize,
            "level offsets",
        )?;
        let items = l.zeros::<u64>(items_cap, "edge chunks")?;
        let ctl = l.zeros::<u64>(CTL_WORDS, "batch control")?;
        let seen = l.zeros::<u64>(nu, "seen lanes")?;
        let next = l.zeros::<u64>(nu, "next lanes")?;
        let next_list = l.zeros::<u32>(nu, "next vertices")?;
        let lvl = [
            l.zeros::<u64>(nu, "level lanes")?,
            l.zeros::<u64>(nu, "level lanes")?,
        ];
        let paths = if paths {
            Some([
                l.zeros::<f64>(lane_words, "path counts")?,
                l.zeros::<f64>(lane_words, "dependency sums")?,
                l.zeros::<f64>(nu, "betweenness scores")?,
            ])
        } else {
            None
        };
        let sums = l.zeros::<u64>(4 * 64, "per-lane sums")?;
        let addr_of =
            |p: &Option<[L::Buf<f64>; 3]>, i: usize| p.as_ref().map_or(0, |p| L::addr(&p[i]));
        let desc = BatchDesc {
            n,
            m,
            offsets,
            targets,
            order: L::addr(&order),
            masks: L::addr(&masks),
            cap: cap as u64,
            level_off: L::addr(&level_off),
            items: L::addr(&items),
            items_cap: items_cap as u64,
            ctl: L::addr(&ctl),
            seen: L::addr(&seen),
            next: L::addr(&next),
            next_list: L::addr(&next_list),
            sigma: addr_of(&paths, 0),
            dsum: addr_of(&paths, 1),
            lvl0: L::addr(&lvl[0]),
            lvl1: L::addr(&lvl[1]),
            lanes: u64::from(lanes),
            chunk: CHUNK,
            scores: addr_of(&paths, 2),
            in_offsets,
            in_sources,
            m_in,
            // Path counts need every predecessor: never bottom-up.
            alpha: if paths.is_some() { 0 } else { alpha },
        };
        let desc_buf = l.upload(&desc.to_words(), "batch descriptor")?;
        Ok(Batches {
            l,
            k,
            block,
            desc,
            desc_buf,
            order,
            masks,
            level_off,
            ctl,
            seen,
            lvl,
            paths,
            _items: items,
            next,
            _next_list: next_list,
            sums,
            levels: 0,
            bottom_up_levels: 0,
            shared_ctl: false,
        })
    }

    /// Points the kernels at control words at `addr` (a group's, see
    /// [`Self::shared_ctl`]) instead of this batch's own.
    fn share_ctl(&mut self, addr: u64) -> Result<()> {
        self.shared_ctl = true;
        self.desc.ctl = addr;
        self.l.write(
            &mut self.desc_buf,
            &self.desc.to_words(),
            "batch descriptor",
        )
    }

    fn n(&self) -> u64 {
        self.desc.n
    }

    /// Launches kernel `i` over up to `work` items with `(desc, extra..)`.
    fn launch(&self, i: usize, grid: Grid, extra: &[Arg]) -> Result<()> {
        let mut args = vec![Arg::U64(L::addr(&self.desc_buf))];
        args.extend_from_slice(extra);
        // SAFETY: every batched kernel takes the descriptor first, then the
        // scalars its body documents (`extra`, built by the callers below); the
        // descriptor's arrays are this struct's live buffers with its lengths.
        unsafe { self.l.launch(&self.k[i], grid, self.block, &args) }
    }

    /// One level: its edge chunks, the push, the new level's settling.
    fn level(&self, depth: u32) -> Result<()> {
        let all = Grid::Resident(self.n().max(1));
        self.launch(CHUNKS, all, &[depth.into()])?;
        self.launch(EXPAND, all, &[depth.into()])?;
        self.launch(SETTLE, all, &[depth.into()])
    }

    /// Runs the forward phase from `sources` (at most the lanes the buffers were
    /// made for): afterwards the level lists hold every level, and `self.levels`
    /// their count.
    fn forward(&mut self, sources: &[u32]) -> Result<()> {
        let n = self.n();
        let first_len = self.prepare(sources)?;
        self.launch(SEED, Grid::Cover(first_len as u64), &[])?;
        let l = self.l;
        let mut depth = 0u32;
        let mut window = 1u32;
        loop {
            for _ in 0..window {
                self.level(depth)?;
                depth += 1;
            }
            let ctl = l.read(&self.ctl, "batch control")?;
            if ctl[CTL_OVERFLOW] != 0 {
                depth = (ctl[CTL_OVERFLOW] - 1) as u32;
                self.grow()?;
                l.write_at(&mut self.ctl, CTL_OVERFLOW, &[0], "batch control")?;
                // The stopped level resumes at its settling: its push is done.
                self.launch(SETTLE, Grid::Resident(n.max(1)), &[depth.into()])?;
                depth += 1;
                continue;
            }
            if self.finished(&ctl, depth) {
                return Ok(());
            }
            window = (window * 2).min(MAX_WINDOW);
        }
    }

    /// Whether the forward phase is over after launching levels below `depth`
    /// (`ctl` read since): then its level count and bottom-up levels are taken.
    fn finished(&mut self, ctl: &[u64], depth: u32) -> bool {
        let deepest = ctl[CTL_DEPTH] as u32;
        if deepest < depth {
            self.levels = deepest + 1;
            self.bottom_up_levels += ctl[CTL_BOTTOM_UP];
            return true;
        }
        false
    }

    /// Clears the state of the last batch and writes level 0 (the sources, one
    /// entry per distinct vertex); returns its entries. No launch.
    fn prepare(&mut self, sources: &[u32]) -> Result<usize> {
        let n = self.n();
        let first = first_level(sources, n as usize)?;
        let l = self.l;
        l.clear(&mut self.seen, "seen lanes")?;
        // A group restarted after an overflow left lanes here.
        l.clear(&mut self.next, "next lanes")?;
        l.clear(&mut self.level_off, "level offsets")?;
        if !self.shared_ctl {
            l.clear(&mut self.ctl, "batch control")?;
        }
        for b in &mut self.lvl {
            l.clear(b, "level lanes")?;
        }
        if let Some(p) = &mut self.paths {
            l.clear(&mut p[0], "path counts")?;
            l.clear(&mut p[1], "dependency sums")?;
        }
        let vertices: Vec<u32> = first.iter().map(|e| e.0).collect();
        let lanes: Vec<u64> = first.iter().map(|e| e.1).collect();
        l.write(&mut self.order, &vertices, "level 0")?;
        l.write(&mut self.masks, &lanes, "level 0")?;
        l.write(&mut self.level_off, &[0, first.len() as u64], "level 0")?;
        if !self.shared_ctl {
            let all = lane_mask(sources.len());
            l.write_at(&mut self.ctl, CTL_LANES, &[all], "batch control")?;
        }
        Ok(first.len())
    }

    /// Doubles the level lists (keeping what they hold) after an overflow.
    fn grow(&mut self) -> Result<()> {
        let l = self.l;
        let cap = self.desc.cap as usize;
        let new_cap = cap * 2;
        let old_order = l.read(&self.order, "batched BFS levels")?;
        let old_masks = l.read(&self.masks, "batched BFS levels")?;
        let mut order = l.zeros::<u32>(new_cap, "batched BFS levels (vertices)")?;
        let mut masks = l.zeros::<u64>(new_cap, "batched BFS levels (lanes)")?;
        l.write(&mut order, &old_order, "batched BFS levels")?;
        l.write(&mut masks, &old_masks, "batched BFS levels")?;
        self.order = order;
        self.masks = masks;
        self.desc.order = L::addr(&self.order);
        self.desc.masks = L::addr(&self.masks);
        self.desc.cap = new_cap as u64;
        l.write(
            &mut self.desc_buf,
            &self.desc.to_words(),
            "batch descriptor",
        )
    }

    /// The backward phase of betweenness over the last forward phase's levels,
    /// deepest first, then each vertex's dependencies added to its score.
    fn backward(&mut self) -> Result<()> {
        // The forward phase leaves lanes in the per-vertex arrays; the backward
        // phase fills them level by level from empty.
        for b in &mut self.lvl {
            self.l.clear(b, "level lanes")?;
        }
        self.l
            .write_at(&mut self.ctl, CTL_BACKWARD, &[1], "batch control")?;
        let all = Grid::Resident(self.n().max(1));
        for depth in (0..self.levels.saturating_sub(1)).rev() {
            self.launch(REMARK, all, &[depth.into()])?;
            self.launch(CHUNKS, all, &[depth.into()])?;
            self.launch(PULL, all, &[depth.into()])?;
        }
        self.launch(ADD_SCORES, Grid::Resident(self.n().max(1)), &[])
    }

    /// Per-lane distance sums of the last forward phase.
    fn lane_sums(&mut self, lanes: usize) -> Result<Vec<LaneSums>> {
        self.l.clear(&mut self.sums, "per-lane sums")?;
        let grid = Grid::Resident(self.n().max(64));
        let args = [self.levels.into(), Arg::U64(L::addr(&self.sums))];
        self.launch(LANE_SUMS, grid, &args)?;
        let s = self.l.read(&self.sums, "per-lane sums")?;
        Ok((0..lanes)
            .map(|l| LaneSums {
                distance_sum: s[l],
                reached: s[64 + l],
                deepest: s[128 + l],
                inverse_sum: f64::from_bits(s[192 + l]),
            })
            .collect())
    }

    /// The last forward phase's level lists: `(offsets, entries)`, level `d`
    /// being `entries[offsets[d]..offsets[d + 1]]`.
    fn level_lists(&self) -> Result<LevelLists> {
        let levels = self.levels as usize;
        let l = self.l;
        let off = l.read_prefix(&self.level_off, levels + 1, "level offsets")?;
        let total = off[levels] as usize;
        let order = l.read_prefix(&self.order, total, "batched BFS levels")?;
        let masks = l.read_prefix(&self.masks, total, "batched BFS levels")?;
        Ok((off, order.into_iter().zip(masks).collect()))
    }

    fn scores(&self) -> Result<Vec<f64>> {
        match &self.paths {
            Some(p) => self.l.read(&p[2], "betweenness scores").map(|mut s| {
                s.truncate(self.n() as usize);
                s
            }),
            None => Err(Error::InvalidArgument(
                "no path counts in this batch".into(),
            )),
        }
    }
}

/// Sources in batches of at most [`LANES`], checked (none out of range) up front
/// so that a bad id fails before any work.
fn batches(sources: &[u32], n: usize) -> Result<std::slice::Chunks<'_, u32>> {
    check_sources(sources, n)?;
    Ok(sources.chunks(LANES as usize))
}

/// Runs `per_batch` after the forward phase of each batch of `sources` (at
/// most [`LANES`] each) on buffers made once; returns them (for what the
/// batches left behind) and the time from the first kernel to the last.
#[allow(clippy::too_many_arguments)]
fn each_batch<'a, L: Launcher>(
    l: &'a L,
    k: [Kernel<'a>; KERNELS],
    block: u32,
    graph: GraphArgs,
    sources: &[u32],
    paths: bool,
    alpha: u64,
    mut per_batch: impl FnMut(&mut Batches<'a, L>, &[u32]) -> Result<()>,
) -> Result<(Batches<'a, L>, f64)> {
    let lanes = sources.len().min(LANES as usize) as u32;
    let chunks = batches(sources, graph.out.0 as usize)?;
    let mut b = Batches::new(l, k, block, graph, lanes, paths, alpha)?;
    let start = l.mark()?;
    for batch in chunks {
        b.forward(batch)?;
        per_batch(&mut b, batch)?;
    }
    let end = l.mark()?;
    let ms = l.elapsed_ms(&start, &end)?;
    Ok((b, ms))
}

/// Betweenness from `sources` on any launcher: raw (unnormalized) sums of the
/// dependencies, and the time from the first kernel to the last.
fn betweenness_on<L: Launcher>(
    l: &L,
    k: [Kernel<'_>; KERNELS],
    block: u32,
    graph: GraphArgs,
    sources: &[u32],
    mut progress: impl FnMut(usize),
) -> Result<(Vec<f64>, f64)> {
    let (b, ms) = each_batch(l, k, block, graph, sources, true, 0, |b, batch| {
        b.backward()?;
        progress(batch.len());
        Ok(())
    })?;
    Ok((b.scores()?, ms))
}

/// Runs the batched BFS from `sources` on any launcher, handing each batch's
/// sources and levels to `on_batch`.
fn levels_on<L: Launcher>(
    l: &L,
    k: [Kernel<'_>; KERNELS],
    block: u32,
    graph: GraphArgs,
    sources: &[u32],
    alpha: u64,
    mut on_batch: impl FnMut(&[u32], &[Level<'_>]),
) -> Result<f64> {
    let (_, ms) = each_grouped(l, k, block, graph, sources, alpha, |b, batch| {
        let (off, entries) = b.level_lists()?;
        let levels: Vec<Level<'_>> = off
            .windows(2)
            .enumerate()
            .map(|(d, w)| Level {
                depth: d as u32,
                reached: &entries[w[0] as usize..w[1] as usize],
            })
            .collect();
        on_batch(batch, &levels);
        Ok(())
    })?;
    Ok(ms)
}

/// What a run of batched searches reduced per source, and how it ran.
#[derive(Clone, Debug)]
pub struct BatchedSums {
    /// One per source, in the order given.
    pub sums: Vec<LaneSums>,
    /// First kernel to last (CUDA events), or host time when emulated.
    pub time_ms: f64,
    /// Levels that ran bottom-up, over all batches.
    pub bottom_up_levels: u64,
}

/// Runs the batched BFS and returns each source's [`LaneSums`].
fn sums_on<L: Launcher>(
    l: &L,
    k: [Kernel<'_>; KERNELS],
    block: u32,
    graph: GraphArgs,
    sources: &[u32],
    alpha: u64,
    mut progress: impl FnMut(usize),
) -> Result<BatchedSums> {
    let mut sums = Vec::with_capacity(sources.len());
    let (bottom_up_levels, time_ms) =
        each_grouped(l, k, block, graph, sources, alpha, |b, batch| {
            sums.extend(b.lane_sums(batch.len())?);
            progress(batch.len());
            Ok(())
        })?;
    Ok(BatchedSums {
        sums,
        time_ms,
        bottom_up_levels,
    })
}

/// The device graph's out-edges, and its in-edges when it was uploaded with
/// them ([`Device::upload_traversal`]).
fn device_graph_args(g: &DeviceGraph) -> GraphArgs {
    let out = (g.n, g.m, g.offsets.ptr, g.targets.ptr);
    let incoming = match &g.incoming {
        Incoming::Symmetric => (g.m, g.offsets.ptr, g.targets.ptr),
        Incoming::Transpose { offsets, sources } => (sources.len as u64, offsets.ptr, sources.ptr),
        Incoming::Unknown => (0, 0, 0),
    };
    GraphArgs { out, incoming }
}

/// `g`'s CSR and its in-edges (itself when symmetric), as host addresses.
fn host_graph_args<W: Weight>(g: &Graph<W>) -> GraphArgs {
    let c = g.csr();
    let t = if g.is_symmetric() { c } else { g.csc() };
    GraphArgs {
        out: (
            c.num_vertices() as u64,
            c.num_edges(),
            c.offsets().as_ptr() as u64,
            c.targets().as_ptr() as u64,
        ),
        incoming: (
            t.num_edges(),
            t.offsets().as_ptr() as u64,
            t.targets().as_ptr() as u64,
        ),
    }
}

/// Betweenness of one run: unnormalized scores and kernel time.
#[derive(Clone, Debug)]
pub struct BatchedBc {
    /// Sum over the sources of each vertex's dependency (gapbs normalizes these
    /// by the largest; `examples::programs::bc::normalize`).
    pub scores: Vec<f64>,
    /// First kernel to last (CUDA events), or host time when emulated.
    pub time_ms: f64,
}

impl Device {
    /// Brandes's betweenness from `sources` over the out-edges of `g` (uploaded
    /// with [`Device::upload`] or any traversal upload), 64 sources per batch;
    /// `progress` gets the sources done after each batch.
    pub fn betweenness(
        &self,
        k: &MsbfsKernels,
        g: &DeviceGraph,
        sources: &[u32],
        progress: impl FnMut(usize),
    ) -> Result<BatchedBc> {
        let l = DeviceLauncher { gpu: &self.gpu };
        let graph = device_graph_args(g);
        let (scores, time_ms) =
            betweenness_on(&l, kernels(Some(k)), BLOCK, graph, sources, progress)?;
        Ok(BatchedBc { scores, time_ms })
    }

    /// Batched BFS from `sources`; `on_batch` gets each batch's sources (lane `i`
    /// = `batch[i]`) and its levels. Returns the kernel time in ms. Levels go
    /// bottom-up where they are large when `g` was uploaded with its in-edges
    /// ([`Device::upload_traversal`]) and has no hubs ([`alpha_for`]).
    pub fn msbfs_levels(
        &self,
        k: &MsbfsKernels,
        g: &DeviceGraph,
        sources: &[u32],
        on_batch: impl FnMut(&[u32], &[Level<'_>]),
    ) -> Result<f64> {
        let l = DeviceLauncher { gpu: &self.gpu };
        let graph = device_graph_args(g);
        let alpha = alpha_for(g.n, g.m, g.max_degree);
        levels_on(&l, kernels(Some(k)), BLOCK, graph, sources, alpha, on_batch)
    }

    /// Batched BFS from `sources`, reduced on the device to each source's
    /// [`LaneSums`] (nothing per vertex comes back); `progress` gets the sources
    /// done after each batch. Bottom-up levels as for [`Self::msbfs_levels`].
    pub fn msbfs_sums(
        &self,
        k: &MsbfsKernels,
        g: &DeviceGraph,
        sources: &[u32],
        progress: impl FnMut(usize),
    ) -> Result<BatchedSums> {
        let l = DeviceLauncher { gpu: &self.gpu };
        let graph = device_graph_args(g);
        let alpha = alpha_for(g.n, g.m, g.max_degree);
        sums_on(&l, kernels(Some(k)), BLOCK, graph, sources, alpha, progress)
    }
}

/// [`Device::betweenness`] under the host emulator.
pub fn emulate_betweenness<W: Weight>(g: &Graph<W>, sources: &[u32]) -> Result<BatchedBc> {
    let l = HostLauncher::new(8);
    let graph = host_graph_args(g);
    let (scores, time_ms) = betweenness_on(&l, kernels(None), EMU_BLOCK, graph, sources, |_| {})?;
    Ok(BatchedBc { scores, time_ms })
}

/// [`Device::msbfs_levels`] under the host emulator, levels bottom-up by
/// `alpha` (0: never; `u64::MAX`: whenever the frontier has an edge).
pub fn emulate_levels<W: Weight>(
    g: &Graph<W>,
    sources: &[u32],
    alpha: u64,
    on_batch: impl FnMut(&[u32], &[Level<'_>]),
) -> Result<f64> {
    let l = HostLauncher::new(8);
    let graph = host_graph_args(g);
    levels_on(
        &l,
        kernels(None),
        EMU_BLOCK,
        graph,
        sources,
        alpha,
        on_batch,
    )
}

/// [`Device::msbfs_sums`] under the host emulator (bottom-up as `emulate_levels`).
pub fn emulate_sums<W: Weight>(g: &Graph<W>, sources: &[u32], alpha: u64) -> Result<BatchedSums> {
    let l = HostLauncher::new(8);
    let graph = host_graph_args(g);
    sums_on(&l, kernels(None), EMU_BLOCK, graph, sources, alpha, |_| {})
}
