//! The direction loop's one executor, over any [`Launcher`]: [`DirectionRun`]
//! owns the frontier bitmaps, the work list and the counter blocks of one run
//! and launches a program's direction kernels ([`DirectionKernels`]) on them,
//! level by level or in device-planned batches. The device, the emulator and
//! the multi-GPU parts (both kinds) all run this code.

use kernels_rs::direction::{
    choose_scan, chunk_capacity, first_level_block, Heuristic, CTL_WORDS, ITER_FROM_PLAN,
    LEVEL_MAY_SCAN, LEVEL_TOP_DOWN_ONLY,
};
use kernels_rs::entry;

use super::kernels::DirectionKernels;
use super::{
    counter_block, initial_bits, initial_size, DirectionExec, FrontierSize, Pass, PlannedExec,
};
use crate::error::{Error, Result};
use crate::gpu::cuda::Gpu;
use crate::gpu::device::DeviceGraph;
use crate::gpu::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Launcher};

#[path = "launches.rs"]
mod launches;

/// The graph a direction run reads, as kernel arguments.
#[derive(Clone, Copy)]
pub(crate) struct DirGraph<'a> {
    /// `(n, m, offsets, targets, weights)` (weights null when unweighted).
    pub args: [Arg; 5],
    /// The offsets on the host (the initial frontier's size).
    pub host_offsets: &'a [u64],
    /// In-edge offsets and sources and their count (the CSR itself for a
    /// symmetric graph); `None`: unknown, no bottom-up levels.
    pub incoming: Option<(u64, u64, u64)>,
}

impl<'a> DirGraph<'a> {
    /// A graph uploaded to a device.
    pub(crate) fn of(g: &'a DeviceGraph) -> DirGraph<'a> {
        DirGraph {
            args: g.program_args(),
            host_offsets: &g.host_offsets,
            incoming: g.incoming(),
        }
    }

    /// A host CSR as the emulator's kernels read it: `weights` the address of
    /// `m` weights or 0; `incoming` the in-edges, `Some(None)` for the CSR
    /// itself (symmetric), `None` when unknown.
    pub(crate) fn host(
        offsets: &'a [u64],
        targets: &[u32],
        weights: u64,
        incoming: Option<Option<(&[u64], &[u32])>>,
    ) -> DirGraph<'a> {
        let addr = |o: &[u64], t: &[u32]| (o.as_ptr() as u64, t.as_ptr() as u64, t.len() as u64);
        DirGraph {
            args: crate::gpu::launcher::graph_args(
                offsets.len().saturating_sub(1) as u64,
                targets.len() as u64,
                offsets.as_ptr() as u64,
                targets.as_ptr() as u64,
                weights,
            ),
            host_offsets: offsets,
            incoming: incoming.map(|inc| match inc {
                Some((o, t)) => addr(o, t),
                None => addr(offsets, targets),
            }),
        }
    }
}

/// Buffers, kernels and timing of one direction-optimizing run.
pub(crate) struct DirectionRun<'a, L: Launcher> {
    l: L,
    k: DirectionKernels<'a>,
    g: DirGraph<'a>,
    block: u32,
    chunk: u64,
    /// Addresses of the state and parents (0 = none) arrays.
    state: u64,
    parents: u64,
    bits: [L::Buf<u32>; 2],
    chunks: L::Buf<u64>,
    capacity: u64,
    ctl: L::Buf<u64>,
    /// One state (in whole words, so that any state is aligned).
    candidate: L::Buf<u64>,
    state_size: usize,
    /// Device-planned levels: one counter block and one candidate per level of
    /// a batch (allocated by the first batch).
    batch: Option<Batch<L>>,
    /// The scan's chunk starts ([`Self::enable_scan`]): top-down levels over a
    /// large frontier scan every edge chunk instead of listing the frontier's.
    sv: Option<L::Buf<u32>>,
    /// Address of the whole graph's offsets when the graph is a partition (0 =
    /// its own), for the next-frontier degree tally.
    pub degree_offsets: u64,
    /// Vertices the bottom-up kernel scans (`0..n`; a part's own range on a
    /// multi-GPU partition, the others having no in-edges there).
    pub owned: (u64, u64),
    /// Edges of the whole graph when the graph is a partition (0 = its own):
    /// the unexplored edges a planned traversal starts from.
    pub whole_m: u64,
    /// Beamer's α and β for the levels this run plans on the device (the host
    /// loop reads them through [`DirectionExec::heuristic`]).
    pub heuristic: Heuristic,
    /// Issue each batch of planned levels as one recorded batch
    /// ([`Launcher::begin_batch`]: a CUDA graph on a device). Only where
    /// nothing else goes on the stream between a batch's levels (one GPU; the
    /// multi-GPU exchange does).
    pub graphs: bool,
    /// A planned level that may go either way launches one kernel (`level`)
    /// that relaxes or scans bottom-up by its plan, instead of both kernels
    /// (one returning at once). On by default; `VERTEX_FUSED_LEVEL=0` turns it
    /// off, for comparisons.
    pub fused: bool,
    /// A batch is being recorded.
    recording: bool,
    pub start: Option<L::Mark>,
    pub levels: Vec<(L::Mark, L::Mark)>,
    pub end: Option<L::Mark>,
}

/// Buffers of a batch of device-planned levels.
struct Batch<L: Launcher> {
    /// One counter block per level of the batch (slot = level mod size).
    blocks: L::Buf<u64>,
    /// One candidate state per level of the batch (zeros where it has none).
    candidates: L::Buf<u64>,
    slots: u32,
    /// Which slots have a candidate.
    uniform: Vec<bool>,
}

/// Edges per chunk of a scan level: the balanced kernel's
/// ([`crate::gpu::options::BALANCED_MAX_EDGE_COUNT`]), whose warps then read
/// 32 × 8 consecutive edges that the L1 cache holds.
const SCAN_CHUNK: u64 = crate::gpu::options::BALANCED_MAX_EDGE_COUNT;

/// Words that hold one state.
fn state_words(state_size: usize) -> usize {
    state_size.div_ceil(8).max(1)
}

/// `bytes` in whole words (zero padded).
fn as_words(bytes: &[u8], words: usize) -> Vec<u64> {
    let mut w = vec![0u64; words];
    bytemuck::cast_slice_mut::<u64, u8>(&mut w)[..bytes.len()].copy_from_slice(bytes);
    w
}

impl<'a, L: Launcher> DirectionRun<'a, L> {
    /// Bytes [`Self::new`] allocates for a graph with `n` vertices and `m`
    /// edges (checked against free memory before anything is allocated).
    pub fn bytes(n: u64, m: u64, chunk: u64, state_size: usize) -> u64 {
        let words = entry::bitmap_words(n).max(1);
        8 * words
            + 8 * chunk_capacity(n, m, chunk).max(1)
            + 8 * (CTL_WORDS as u64)
            + 8 * state_words(state_size) as u64
    }

    /// Allocates the run's buffers on `l`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        l: L,
        k: DirectionKernels<'a>,
        g: DirGraph<'a>,
        chunk: u64,
        block: u32,
        state: u64,
        parents: u64,
        state_size: usize,
    ) -> Result<Self> {
        if chunk == 0 {
            return Err(Error::InvalidArgument(
                "edges per chunk must be at least 1".into(),
            ));
        }
        let (n, m) = (g.args[0].u64(), g.args[1].u64());
        let capacity = chunk_capacity(n, m, chunk);
        let words = entry::bitmap_words(n) as usize;
        Ok(DirectionRun {
            bits: [
                l.zeros::<u32>(words, "frontier bitmap")?,
                l.zeros::<u32>(words, "frontier bitmap")?,
            ],
            chunks: l.zeros::<u64>(capacity as usize, "top-down work list")?,
            ctl: l.zeros::<u64>(CTL_WORDS, "level counters")?,
            candidate: l.zeros::<u64>(state_words(state_size), "frontier candidate")?,
            l,
            k,
            g,
            // The relax and bottom-up kernels vote and sum across whole warps, so
            // every block is a multiple of 32 threads (1024, the largest block,
            // is one).
            block: block.next_multiple_of(32),
            chunk,
            state,
            parents,
            capacity,
            state_size,
            batch: None,
            sv: None,
            degree_offsets: 0,
            owned: (0, n),
            whole_m: 0,
            heuristic: Heuristic::DEFAULT,
            graphs: false,
            fused: std::env::var("VERTEX_FUSED_LEVEL").as_deref() != Ok("0"),
            recording: false,
            start: None,
            levels: Vec::new(),
            end: None,
        })
    }

    fn n(&self) -> u64 {
        self.g.args[0].u64()
    }

    /// Edges of the whole graph (a partition's `whole_m`, else its own): what
    /// the direction and scan heuristics weigh a frontier against.
    fn whole_m(&self) -> u64 {
        if self.whole_m != 0 {
            self.whole_m
        } else {
            self.g.args[1].u64()
        }
    }

    /// Bytes [`Self::enable_scan`] allocates for a graph of `m` edges.
    pub fn scan_bytes(m: u64) -> u64 {
        4 * kernels_rs::skeleton::num_chunks(m, SCAN_CHUNK).max(1)
    }

    /// Lets top-down levels scan every edge chunk when the frontier holds more
    /// than `1 / SCAN_RATIO` of the graph's edges
    /// ([`kernels_rs::direction::choose_scan`]): builds the chunk starts (`sv`,
    /// [`Self::scan_bytes`]). For runs without bottom-up levels, where large
    /// frontiers would otherwise go through the work list.
    pub(crate) fn enable_scan(&mut self) -> Result<()> {
        let (n, m) = (self.n(), self.g.args[1].u64());
        let nsv = kernels_rs::skeleton::num_chunks(m, SCAN_CHUNK);
        let sv = self
            .l
            .zeros::<u32>(nsv.max(1) as usize, "scan chunk starts")?;
        let args = [
            n.into(),
            self.g.args[2],
            SCAN_CHUNK.into(),
            L::addr(&sv).into(),
            nsv.into(),
        ];
        // SAFETY: `build_sv(n, offsets, max_edge_count, sv, nchunks)` of
        // kernels_rs::sv_kernel!: offsets n + 1 words, sv nchunks ≥ ⌈m / chunk⌉.
        unsafe {
            self.l
                .launch(&self.k.build_sv, Grid::Cover(n), self.block, &args)?
        };
        self.sv = Some(sv);
        Ok(())
    }

    fn err(&self, what: &str) -> Error {
        Error::InvalidArgument(format!("{} direction run: {what}", self.k.name))
    }

    /// Clears the next bitmap and the counters (ordered after earlier launches).
    fn clear_next(&mut self) -> Result<()> {
        self.l.clear(&mut self.bits[1], "frontier bitmap")?;
        self.l.clear(&mut self.ctl, "level counters")
    }

    /// Waits for the level, reads its counters, swaps the bitmaps if `swap`.
    pub(crate) fn finish_level(&mut self, a: L::Mark, swap: bool) -> Result<[u64; CTL_WORDS]> {
        let b = self.l.mark()?;
        let (words, e) = self.l.read_marked(&self.ctl, "level counters")?;
        self.levels.push((a, b));
        self.end = Some(e);
        if swap {
            self.bits.swap(0, 1);
        }
        Ok(counter_block(&words))
    }

    /// The current frontier's vertices (read back after a level loop stopped
    /// for a handover).
    pub(crate) fn frontier_ids(&self) -> Result<Vec<u32>> {
        let words = self.l.read(&self.bits[0], "frontier bitmap")?;
        Ok(super::set_bits(&words, self.n()))
    }

    /// Address of the current frontier bitmap (`current`; after a planned level
    /// or a bucketed pass, the one it wrote) or of the next one (what a
    /// host-driven level writes before `finish_level` swaps): what the
    /// multi-GPU exchange all-gathers.
    pub(crate) fn bitmap_ptr(&self, current: bool) -> u64 {
        L::addr(&self.bits[if current { 0 } else { 1 }])
    }

    /// Address of slot `slot`'s counter block in the current batch of planned
    /// levels.
    pub(crate) fn batch_block(&self, slot: u32) -> Option<u64> {
        self.batch
            .as_ref()
            .map(|b| L::addr(&b.blocks) + u64::from(slot) * (CTL_WORDS * 8) as u64)
    }

    /// Grows both bitmaps to `words` words (a multi-GPU exchange gathers equal
    /// slices, so its bitmaps are padded to `parts · words per part`).
    pub(crate) fn pad_bitmaps(&mut self, words: usize) -> Result<()> {
        if words > L::len(&self.bits[0]) {
            self.bits = [
                self.l.zeros::<u32>(words, "frontier bitmap")?,
                self.l.zeros::<u32>(words, "frontier bitmap")?,
            ];
        }
        Ok(())
    }

    pub(crate) fn launch_init(&mut self, source: Option<u32>) -> Result<()> {
        let n = self.n();
        // One bit: cleared and set on the device rather than n/8 bytes uploaded
        // from the host inside the timed traversal (16 MB at Graph500 scale 27).
        self.l.clear(&mut self.bits[0], "frontier bitmap")?;
        match source {
            Some(s) => self.l.write_at(
                &mut self.bits[0],
                s as usize / 32,
                &[1u32 << (s % 32)],
                "frontier bitmap",
            )?,
            None => self
                .l
                .write(&mut self.bits[0], &initial_bits(n, None), "frontier bitmap")?,
        }
        self.start = Some(self.l.mark()?);
        let src = source.unwrap_or(u32::MAX);
        let args = [n.into(), src.into(), self.state.into(), self.parents.into()];
        // SAFETY: `init(n: u64, source: u32, state, parents)` of
        // kernels_rs::ptx_kernels!; state holds n states, parents n words or null.
        unsafe {
            self.l
                .launch(&self.k.init, Grid::Cover(n), self.block, &args)
        }
    }

    pub(crate) fn launch_top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<&[u8]>,
    ) -> Result<L::Mark> {
        let cand = match candidate {
            Some(c) => {
                let w = as_words(c, state_words(self.state_size));
                self.l
                    .write(&mut self.candidate, &w, "frontier candidate")?;
                L::addr(&self.candidate)
            }
            None => 0,
        };
        self.clear_next()?;
        let a = self.l.mark()?;
        if self.sv.is_some() && choose_scan(frontier.edges, self.whole_m()) {
            self.scan(iter, cand, L::addr(&self.ctl))?;
            return Ok(a);
        }
        self.td_chunks(L::addr(&self.ctl), 0)?;
        // At most this many chunks (Σ⌈deg/chunk⌉ over the frontier).
        let work = frontier.vertices + frontier.edges / self.chunk;
        self.relax(iter, L::addr(&self.bits[1]), work, cand, L::addr(&self.ctl))?;
        Ok(a)
    }

    pub(crate) fn launch_near_far(&mut self, iter: u32, limit: u64) -> Result<L::Mark> {
        self.l.clear(&mut self.ctl, "level counters")?;
        let a = self.l.mark()?;
        let ctl = L::addr(&self.ctl);
        self.select(limit, ctl)?;
        // The work list size is only known on the device: cover the whole bound.
        self.relax(iter, L::addr(&self.bits[0]), self.capacity, 0, ctl)?;
        Ok(a)
    }

    pub(crate) fn launch_bottom_up(&mut self, candidate: &[u8]) -> Result<L::Mark> {
        let incoming = self
            .g
            .incoming
            .ok_or_else(|| self.err("bottom-up levels need the graph's in-edges"))?;
        let w = as_words(candidate, state_words(self.state_size));
        self.l
            .write(&mut self.candidate, &w, "frontier candidate")?;
        self.clear_next()?;
        let a = self.l.mark()?;
        let (cand, ctl) = (L::addr(&self.candidate), L::addr(&self.ctl));
        self.bottom_up_kernel(incoming, cand, ctl)?;
        Ok(a)
    }

    /// The batch, and the addresses of the counter blocks of the level before
    /// `iter` (the previous slot, wrapping around, since a batch always runs
    /// all its slots; at level 0 of a planned level, the last slot holds
    /// [`first_level_block`]; a bucketed pass plans level 0 from none) and of
    /// `iter` itself (slot `slot`).
    fn batch_blocks(&self, iter: u32, slot: u32, pass: bool) -> Result<(&Batch<L>, u64, u64)> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(self.err("a planned level enqueued before begin_batch"));
        };
        let block = |s: u32| L::addr(&batch.blocks) + u64::from(s) * (CTL_WORDS * 8) as u64;
        let prev = if iter == 0 && pass {
            0
        } else {
            block((slot + batch.slots - 1) % batch.slots)
        };
        Ok((batch, prev, block(slot)))
    }
}

impl<L: Launcher> Drop for DirectionRun<'_, L> {
    fn drop(&mut self) {
        // A run that failed inside a batch leaves no recording behind (the
        // device's next operations would join it).
        if self.recording {
            self.l.abandon_batch();
        }
    }
}

impl<S: bytemuck::Pod, L: Launcher> DirectionExec<S> for DirectionRun<'_, L> {
    fn heuristic(&self) -> Heuristic {
        self.heuristic
    }

    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        self.launch_init(source)?;
        Ok(initial_size(self.g.host_offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<S>,
    ) -> Result<FrontierSize> {
        let c = candidate.as_ref().map(bytemuck::bytes_of);
        let a = self.launch_top_down(iter, frontier, c)?;
        Ok(FrontierSize::from_ctl(&self.finish_level(a, true)?))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let a = self.launch_near_far(iter, limit)?;
        Ok(Pass::from_ctl(&self.finish_level(a, false)?))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: S) -> Result<FrontierSize> {
        let a = self.launch_bottom_up(bytemuck::bytes_of(&candidate))?;
        Ok(FrontierSize::from_ctl(&self.finish_level(a, true)?))
    }
}

impl<S: bytemuck::Pod, L: Launcher> PlannedExec<S> for DirectionRun<'_, L> {
    fn begin_batch(&mut self, candidates: &[Option<S>]) -> Result<()> {
        let slots = candidates.len();
        if slots < 2 {
            return Err(self.err("device-planned levels need at least 2 levels per sync"));
        }
        let words = state_words(self.state_size);
        if self
            .batch
            .as_ref()
            .is_none_or(|b| b.slots as usize != slots)
        {
            self.batch = Some(Batch {
                blocks: self
                    .l
                    .zeros::<u64>(slots * CTL_WORDS, "planned level counters")?,
                candidates: self
                    .l
                    .zeros::<u64>(slots * words, "planned level candidates")?,
                slots: slots as u32,
                uniform: Vec::new(),
            });
        }
        let mut all = vec![0u64; slots * words];
        for (dst, c) in all.chunks_exact_mut(words).zip(candidates) {
            if let Some(c) = c {
                dst.copy_from_slice(&as_words(bytemuck::bytes_of(c), words));
            }
        }
        let Some(batch) = self.batch.as_mut() else {
            unreachable!("allocated above")
        };
        batch.uniform = candidates.iter().map(Option::is_some).collect();
        self.l
            .write(&mut batch.candidates, &all, "planned level candidates")
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        let words = state_words(self.state_size) as u64;
        if iter == 0 {
            // Level 0 is planned from a block standing for the level before it,
            // so that the first batch launches what every later batch does.
            let block = first_level_block((first.vertices, first.edges), self.whole_m());
            let Some(batch) = self.batch.as_mut() else {
                return Err(self.err("a planned level enqueued before begin_batch"));
            };
            let last = (batch.slots as usize - 1) * CTL_WORDS;
            self.l
                .write_at(&mut batch.blocks, last, &block, "planned level counters")?;
        }
        if slot == 0 && self.graphs {
            self.l.begin_batch()?;
            self.recording = true;
        }
        let (batch, prev, cur) = self.batch_blocks(iter, slot, false)?;
        let cand = if batch.uniform[slot as usize] {
            L::addr(&batch.candidates) + u64::from(slot) * words * 8
        } else {
            0
        };
        let a = self.l.mark()?;
        let m = self.whole_m();
        let level = match level {
            LEVEL_TOP_DOWN_ONLY if self.sv.is_some() => LEVEL_MAY_SCAN,
            l => l,
        };
        // The first frontier is in the block before level 0: no argument
        // changes from batch to batch.
        let args = [
            prev.into(),
            cur.into(),
            self.n().into(),
            m.into(),
            0u64.into(),
            0u64.into(),
            self.heuristic.alpha.into(),
            self.heuristic.beta.into(),
            level.into(),
        ];
        // SAFETY: `plan_level(prev, cur, n, m, first_vertices, first_edges, alpha,
        // beta, level)`
        // of kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe { self.l.launch(&self.k.plan, Grid::Cover(1), 32, &args)? };
        // The next bitmap is cleared by `td_chunks` (a launch fewer a level).
        self.td_chunks(cur, L::addr(&self.bits[1]))?;
        // The work list's size is only known on the device: cover the bound
        // (the relax kernel is grid-stride over a resident grid). The level's
        // number comes from its block, as the first frontier does.
        let iter = ITER_FROM_PLAN;
        // Bottom-up can only be planned where the level has a candidate; there
        // its kernel is launched every level and the plan says whether it works.
        let bottom_up = self.g.incoming.filter(|_| cand != 0);
        match bottom_up {
            Some(incoming) if self.fused => self.level(incoming, cand, cur)?,
            _ => {
                self.relax(iter, L::addr(&self.bits[1]), self.capacity, cand, cur)?;
                if let Some(incoming) = bottom_up {
                    self.bottom_up_kernel(incoming, cand, cur)?;
                }
            }
        }
        // Likewise the scan, where the run has one.
        if level == LEVEL_MAY_SCAN {
            self.scan(iter, cand, cur)?;
        }
        let b = self.l.mark()?;
        self.levels.push((a, b));
        self.bits.swap(0, 1);
        Ok(())
    }

    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()> {
        let (_, prev, cur) = self.batch_blocks(iter, slot, true)?;
        let a = self.l.mark()?;
        let args = [
            prev.into(),
            cur.into(),
            first_pending.into(),
            first_limit.into(),
            delta.into(),
        ];
        // SAFETY: `plan_pass(prev, cur, first_pending, first_limit, delta)` of
        // kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe {
            self.l
                .launch(&self.k.plan_pass, Grid::Cover(1), 32, &args)?
        };
        self.select(u64::MAX, cur)?;
        // The work list's size is only known on the device: cover the bound.
        self.relax(iter, L::addr(&self.bits[0]), self.capacity, 0, cur)?;
        let b = self.l.mark()?;
        self.levels.push((a, b));
        Ok(())
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        if std::mem::take(&mut self.recording) {
            self.l.replay()?;
        }
        let Some(batch) = self.batch.as_ref() else {
            return Err(self.err("finish_batch before begin_batch"));
        };
        let (words, e) = self
            .l
            .read_marked(&batch.blocks, "planned level counters")?;
        self.end = Some(e);
        Ok(words.chunks_exact(CTL_WORDS).map(counter_block).collect())
    }
}

impl<'a> DirectionRun<'a, DeviceLauncher<'a>> {
    /// The GPU this run (or multi-GPU part) runs on.
    pub(crate) fn gpu(&self) -> &'a Gpu {
        self.l.gpu
    }
}

impl DirectionRun<'_, HostLauncher> {
    /// The current frontier (or pending set) bitmap, for the simulated
    /// multi-GPU exchange.
    pub(crate) fn frontier_words(&mut self) -> &mut [u32] {
        self.bits[0].as_mut_slice()
    }

    /// Slot `slot`'s counter block of the current batch of planned levels, for
    /// the simulated exchange's sum of the level counters.
    pub(crate) fn batch_block_mut(&mut self, slot: u32) -> Option<&mut [u64]> {
        let b = self.batch.as_mut()?;
        let at = slot as usize * CTL_WORDS;
        b.blocks.as_mut_slice().get_mut(at..at + CTL_WORDS)
    }
}
