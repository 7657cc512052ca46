//! The direction-optimizing loop's GPU executor: [`GpuDirection`] owns the
//! frontier bitmaps, the work list and the counter blocks of one run and launches
//! a program's direction kernels ([`DirectionKernels`]) on them, level by level
//! or in device-planned batches.

use cudarc::driver::{CudaEvent, CudaFunction, PushKernelArg};
use kernels_rs::direction::{chunk_capacity, CTL_WORDS};
use kernels_rs::entry;

use super::{
    counter_block, initial_bits, initial_size, DirectionExec, FrontierSize, Pass, PlannedExec,
};
use crate::error::{Error, Result};
use crate::gpu::cuda::{cuda_err, DevBuf, Gpu};
use crate::gpu::device::{Device, DeviceGraph};
use crate::graph::{Graph, Weight};

/// A program's direction-optimizing kernels in a loaded module.
pub(crate) struct DirectionKernels<'a> {
    /// `init(n, source, state, parents)` of `kernels_rs::ptx_kernels!`.
    pub init: &'a CudaFunction,
    pub td_chunks: &'a CudaFunction,
    pub td_select: &'a CudaFunction,
    pub td_relax: &'a CudaFunction,
    pub bottom_up: &'a CudaFunction,
    /// `plan_level(prev, cur, n, m, first_vertices, first_edges, level)`, the
    /// program-independent kernel of device-planned levels.
    pub plan: &'a CudaFunction,
    /// `plan_pass(prev, cur, first_pending, first_limit, delta)`, the same for
    /// bucketed passes.
    pub plan_pass: &'a CudaFunction,
    /// Kernel name prefix, for error messages.
    pub name: &'a str,
}

/// Device buffers and timing of one direction-optimizing run.
pub(crate) struct GpuDirection<'a> {
    gpu: &'a Gpu,
    k: DirectionKernels<'a>,
    g: &'a DeviceGraph,
    block: u32,
    chunk: u64,
    /// Device pointers of the state and parents (0 = none) arrays.
    state: u64,
    parents: u64,
    bits: [DevBuf<u32>; 2],
    chunks: DevBuf<u64>,
    capacity: u64,
    ctl: DevBuf<u64>,
    candidate: DevBuf<u8>,
    state_size: usize,
    /// Device-planned levels: one counter block and one candidate per level of a
    /// batch (allocated by the first batch).
    batch: Option<Batch>,
    /// Device pointer of the whole graph's offsets when `g` is a partition (0 =
    /// `g`'s own), for the next-frontier degree tally.
    pub degree_offsets: u64,
    /// Vertices the bottom-up kernel scans (`0..n`; a part's own range on a
    /// multi-GPU partition, the others having no in-edges there).
    pub owned: (u64, u64),
    /// Edges of the whole graph when `g` is a partition (0 = `g`'s own): the
    /// unexplored edges a planned traversal starts from.
    pub whole_m: u64,
    pub start: Option<CudaEvent>,
    pub levels: Vec<(CudaEvent, CudaEvent)>,
    pub end: Option<CudaEvent>,
}

impl<'a> GpuDirection<'a> {
    /// The GPU this part runs on.
    pub(crate) fn gpu(&self) -> &'a Gpu {
        self.gpu
    }

    /// Device bytes [`Self::new`] allocates for a graph with `n` vertices and `m`
    /// edges (checked against free memory before anything is allocated).
    pub fn bytes(n: u64, m: u64, chunk: u64, state_size: usize) -> u64 {
        let words = entry::bitmap_words(n) as usize;
        2 * DevBuf::<u32>::bytes_for(words)
            + DevBuf::<u64>::bytes_for(chunk_capacity(n, m, chunk) as usize)
            + DevBuf::<u64>::bytes_for(CTL_WORDS)
            + DevBuf::<u8>::bytes_for(state_size)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &'a Gpu,
        k: DirectionKernels<'a>,
        g: &'a DeviceGraph,
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
        let capacity = chunk_capacity(g.n, g.m, chunk);
        let words = entry::bitmap_words(g.n) as usize;
        Ok(GpuDirection {
            gpu,
            k,
            g,
            // The relax and bottom-up kernels vote and sum across whole warps, so
            // every block is a multiple of 32 threads (1024, the largest block,
            // is one).
            block: block.next_multiple_of(32),
            chunk,
            state,
            parents,
            bits: [
                gpu.alloc::<u32>(words, "frontier bitmap")?,
                gpu.alloc::<u32>(words, "frontier bitmap")?,
            ],
            chunks: gpu.alloc::<u64>(capacity as usize, "top-down work list")?,
            capacity,
            ctl: gpu.alloc::<u64>(CTL_WORDS, "level counters")?,
            candidate: gpu.alloc::<u8>(state_size, "frontier candidate")?,
            state_size,
            batch: None,
            degree_offsets: 0,
            owned: (0, g.n),
            whole_m: 0,
            start: None,
            levels: Vec::new(),
            end: None,
        })
    }

    /// Clears the next bitmap and the counters (stream-ordered).
    fn clear_next(&mut self) -> Result<()> {
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.bits[1].slice)
            .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
        s.memset_zeros(&mut self.ctl.slice)
            .map_err(cuda_err("cuMemsetD8(level counters)"))
    }

    /// Threads of a kernel that scans the bitmap by `WORDS_PER_THREAD` words.
    fn word_threads(&self) -> u64 {
        entry::bitmap_words(self.g.n).div_ceil(kernels_rs::direction::WORDS_PER_THREAD)
    }

    /// Launches `td_relax` over the work list into bitmap `next`, with a grid for
    /// at most `work` chunks.
    /// `ctl`: the level's counter block.
    fn relax(&self, iter: u32, next: u64, work: u64, candidate: u64, ctl: u64) -> Result<()> {
        let (state, parents) = (self.state, self.parents);
        let (chunks, capacity, chunk) = (self.chunks.ptr, self.capacity, self.chunk);
        let mut b = self.gpu.stream.launch_builder(self.k.td_relax);
        self.g
            .weighted_csr_args(&mut b)
            .arg(&state)
            .arg(&parents)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&chunk)
            .arg(&next)
            .arg(&ctl)
            .arg(&iter)
            .arg(&self.degree_offsets)
            .arg(&candidate);
        let grid = self
            .gpu
            .resident_grid(work.clamp(1, capacity.max(1)), self.block);
        // SAFETY: `td_relax(n, m, offsets, targets, weights, state, parents, chunks,
        // capacity, chunk, next, ctl, iter, degree_offsets, candidate)` of
        // kernels_rs::direction_kernels!; weights: m of the program's weight type
        // or null when unweighted; degree_offsets n + 1 or null; candidate one
        // state or null.
        unsafe { b.launch(grid) }.map_err(self.err("td_relax"))?;
        Ok(())
    }

    /// Waits for the level, reads its counters, swaps the bitmaps if `swap`.
    pub(crate) fn finish_level(&mut self, a: CudaEvent, swap: bool) -> Result<[u64; CTL_WORDS]> {
        let mut ctl = [0u64; CTL_WORDS];
        let b = self.gpu.record()?;
        self.gpu
            .stream
            .memcpy_dtoh(&self.ctl.slice, &mut ctl[..])
            .map_err(cuda_err("cuMemcpyDtoH(level counters)"))?;
        let e = self.gpu.record()?;
        self.gpu.sync(&format!("{} level", self.k.name))?;
        self.levels.push((a, b));
        self.end = Some(e);
        if swap {
            self.bits.swap(0, 1);
        }
        Ok(ctl)
    }

    fn err(&self, kernel: &str) -> impl FnOnce(cudarc::driver::DriverError) -> Error + '_ {
        let what = format!("cuLaunchKernel({}_{kernel})", self.k.name);
        move |e| cuda_err(&what)(e)
    }
}

/// Launch halves of the levels (no waiting), so that several GPUs can run a level
/// side by side before their exchange; [`GpuDirection::finish_level`] completes one.
impl GpuDirection<'_> {
    /// Device address of the current frontier bitmap (`current`; after a
    /// planned level or a bucketed pass, the one it wrote) or of the next one
    /// (what a host-driven level writes before `finish_level` swaps): what the
    /// multi-GPU exchange all-gathers.
    /// The current frontier's vertices (read back after a level loop stopped
    /// for a handover).
    pub(crate) fn frontier_ids(&self) -> Result<Vec<u32>> {
        let mut words = vec![0u32; entry::bitmap_words(self.g.n) as usize];
        self.gpu
            .download(&self.bits[0], &mut words, "frontier bitmap")?;
        Ok(super::set_bits(&words, self.g.n))
    }

    pub(crate) fn bitmap_ptr(&self, current: bool) -> u64 {
        self.bits[if current { 0 } else { 1 }].ptr
    }

    /// Device address of slot `slot`'s counter block in the current batch of
    /// planned levels.
    pub(crate) fn batch_block(&self, slot: u32) -> Option<u64> {
        self.batch
            .as_ref()
            .map(|b| b.blocks.ptr + u64::from(slot) * (CTL_WORDS * 8) as u64)
    }

    /// Grows both bitmaps to `words` words (a multi-GPU exchange gathers equal
    /// slices, so its bitmaps are padded to `parts · words per part`).
    pub(crate) fn pad_bitmaps(&mut self, words: usize) -> Result<()> {
        if words > self.bits[0].len {
            self.bits = [
                self.gpu.alloc::<u32>(words, "frontier bitmap")?,
                self.gpu.alloc::<u32>(words, "frontier bitmap")?,
            ];
        }
        Ok(())
    }

    /// Offsets the next-frontier degree tally reads.
    fn tally_offsets(&self) -> u64 {
        if self.degree_offsets != 0 {
            self.degree_offsets
        } else {
            self.g.offsets.ptr
        }
    }

    pub(crate) fn launch_init(&mut self, source: Option<u32>) -> Result<()> {
        let n = self.g.n;
        match source {
            // One bit: cleared and set on the device rather than n/8 bytes uploaded
            // from the host inside the timed traversal (16 MB at Graph500 scale 27).
            Some(s) => {
                self.gpu
                    .stream
                    .memset_zeros(&mut self.bits[0].slice)
                    .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
                self.gpu.write_at(
                    &mut self.bits[0],
                    s as usize / 32,
                    &[1u32 << (s % 32)],
                    "frontier bitmap",
                )?;
            }
            None => {
                let bits = initial_bits(n, None);
                self.gpu
                    .write(&mut self.bits[0], &bits, "frontier bitmap")?;
            }
        }
        self.start = Some(self.gpu.record()?);
        let (state, parents) = (self.state, self.parents);
        let src = source.unwrap_or(u32::MAX);
        let mut b = self.gpu.stream.launch_builder(self.k.init);
        b.arg(&n).arg(&src).arg(&state).arg(&parents);
        // SAFETY: `init(n: u64, source: u32, state, parents)` of
        // kernels_rs::ptx_kernels!; state holds n states, parents n words or null.
        unsafe { b.launch(Gpu::grid_for(n, self.block)) }.map_err(self.err("init"))?;
        Ok(())
    }

    pub(crate) fn launch_top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<&[u8]>,
    ) -> Result<CudaEvent> {
        let cand = match candidate {
            Some(c) => {
                self.gpu
                    .write(&mut self.candidate, c, "frontier candidate")?;
                self.candidate.ptr
            }
            None => 0,
        };
        self.clear_next()?;
        let a = self.gpu.record()?;
        self.td_chunks(self.ctl.ptr)?;
        // At most this many chunks (Σ⌈deg/chunk⌉ over the frontier).
        let work = frontier.vertices + frontier.edges / self.chunk;
        self.relax(iter, self.bits[1].ptr, work, cand, self.ctl.ptr)?;
        Ok(a)
    }

    /// Launches `td_chunks` over the current frontier with counter block `ctl`.
    fn td_chunks(&self, ctl: u64) -> Result<()> {
        let (n, offsets, cur) = (self.g.n, self.g.offsets.ptr, self.bits[0].ptr);
        let (chunk, chunks, capacity) = (self.chunk, self.chunks.ptr, self.capacity);
        let mut b = self.gpu.stream.launch_builder(self.k.td_chunks);
        b.arg(&n)
            .arg(&offsets)
            .arg(&cur)
            .arg(&chunk)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&ctl);
        // SAFETY: `td_chunks(n, offsets, frontier, chunk, chunks, capacity, ctl)` of
        // kernels_rs::direction_kernels!; buffers of the documented lengths.
        unsafe { b.launch(Gpu::grid_for(self.word_threads(), self.block)) }
            .map_err(self.err("td_chunks"))?;
        Ok(())
    }

    pub(crate) fn launch_near_far(&mut self, iter: u32, limit: u64) -> Result<CudaEvent> {
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.ctl.slice)
            .map_err(cuda_err("cuMemsetD8(level counters)"))?;
        let a = self.gpu.record()?;
        self.select(limit, self.ctl.ptr)?;
        // The work list size is only known on the device: cover the whole bound.
        self.relax(iter, self.bits[0].ptr, self.capacity, 0, self.ctl.ptr)?;
        Ok(a)
    }

    /// Launches `td_select` over the pending bitmap with `limit` (a planned
    /// pass reads its limit from the block instead) and counter block `ctl`.
    fn select(&self, limit: u64, ctl: u64) -> Result<()> {
        let (n, offsets, pending) = (self.g.n, self.g.offsets.ptr, self.bits[0].ptr);
        let (state, chunk, chunks, capacity) =
            (self.state, self.chunk, self.chunks.ptr, self.capacity);
        let mut b = self.gpu.stream.launch_builder(self.k.td_select);
        b.arg(&n)
            .arg(&offsets)
            .arg(&state)
            .arg(&pending)
            .arg(&limit)
            .arg(&chunk)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&ctl);
        // SAFETY: `td_select(n, offsets, state, pending, limit, chunk, chunks,
        // capacity, ctl)` of kernels_rs::direction_kernels!.
        unsafe { b.launch(Gpu::grid_for(self.word_threads(), self.block)) }
            .map_err(self.err("td_select"))?;
        Ok(())
    }

    pub(crate) fn launch_bottom_up(&mut self, candidate: &[u8]) -> Result<CudaEvent> {
        let (in_offsets, in_sources, m_in) = self.g.incoming().ok_or_else(|| {
            Error::InvalidArgument("bottom-up levels need the graph's in-edges".into())
        })?;
        self.gpu
            .write(&mut self.candidate, candidate, "frontier candidate")?;
        self.clear_next()?;
        let a = self.gpu.record()?;
        self.bottom_up_kernel(
            in_offsets,
            in_sources,
            m_in,
            self.candidate.ptr,
            self.ctl.ptr,
        )?;
        Ok(a)
    }

    /// Launches `bottom_up` from the current frontier with candidate `cand` (one
    /// state) and counter block `ctl`.
    fn bottom_up_kernel(
        &self,
        in_offsets: u64,
        in_sources: u64,
        m_in: u64,
        cand: u64,
        ctl: u64,
    ) -> Result<()> {
        let (n, out_offsets) = (self.g.n, self.tally_offsets());
        let (state, parents) = (self.state, self.parents);
        let (cur, next) = (self.bits[0].ptr, self.bits[1].ptr);
        let (first, end) = self.owned;
        let mut b = self.gpu.stream.launch_builder(self.k.bottom_up);
        b.arg(&n)
            .arg(&first)
            .arg(&end)
            .arg(&m_in)
            .arg(&in_offsets)
            .arg(&in_sources)
            .arg(&out_offsets)
            .arg(&state)
            .arg(&parents)
            .arg(&cur)
            .arg(&next)
            .arg(&cand)
            .arg(&ctl);
        // SAFETY: `bottom_up(n, first, end, m_in, in_offsets, in_sources,
        // out_offsets, state, parents, frontier, next, candidate, ctl)` of
        // kernels_rs::direction_kernels!, launched with whole warps (see `new`);
        // `first` a multiple of 32 (a partition's span), `end ≤ n`.
        unsafe {
            b.launch(
                self.gpu
                    .resident_grid(end.saturating_sub(first), self.block),
            )
        }
        .map_err(self.err("bottom_up"))?;
        Ok(())
    }
}

impl<S: bytemuck::Pod> DirectionExec<S> for GpuDirection<'_> {
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        self.launch_init(source)?;
        Ok(initial_size(&self.g.host_offsets, source))
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

impl GpuDirection<'_> {
    /// The batch, and the device pointers of the counter blocks of the level
    /// before `iter` (0 at level 0; the previous slot, wrapping around, since a
    /// batch always runs all its slots) and of `iter` itself (slot `slot`).
    fn batch_blocks(&self, iter: u32, slot: u32) -> Result<(&Batch, u64, u64)> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(Error::InvalidArgument(
                "a planned level enqueued before begin_batch".into(),
            ));
        };
        let block = |s: u32| batch.blocks.ptr + u64::from(s) * (CTL_WORDS * 8) as u64;
        let prev = if iter == 0 {
            0
        } else {
            block((slot + batch.slots - 1) % batch.slots)
        };
        Ok((batch, prev, block(slot)))
    }
}

/// Device buffers of a batch of device-planned levels.
struct Batch {
    /// One counter block per level of the batch (slot = level mod size).
    blocks: DevBuf<u64>,
    /// One candidate state per level of the batch (zeros where it has none).
    candidates: DevBuf<u8>,
    slots: u32,
    /// Which slots have a candidate.
    uniform: Vec<bool>,
}

impl<S: bytemuck::Pod> PlannedExec<S> for GpuDirection<'_> {
    fn begin_batch(&mut self, candidates: &[Option<S>]) -> Result<()> {
        let slots = candidates.len();
        if slots < 2 {
            return Err(Error::InvalidArgument(
                "device-planned levels need at least 2 levels per sync".into(),
            ));
        }
        if self
            .batch
            .as_ref()
            .is_none_or(|b| b.slots as usize != slots)
        {
            self.batch = Some(Batch {
                blocks: self
                    .gpu
                    .alloc::<u64>(slots * CTL_WORDS, "planned level counters")?,
                candidates: self
                    .gpu
                    .alloc::<u8>(slots * self.state_size, "planned level candidates")?,
                slots: slots as u32,
                uniform: Vec::new(),
            });
        }
        let mut bytes = vec![0u8; slots * self.state_size];
        for (dst, c) in bytes.chunks_exact_mut(self.state_size).zip(candidates) {
            if let Some(c) = c {
                dst.copy_from_slice(bytemuck::bytes_of(c));
            }
        }
        let Some(batch) = self.batch.as_mut() else {
            unreachable!("allocated above")
        };
        batch.uniform = candidates.iter().map(Option::is_some).collect();
        self.gpu
            .write(&mut batch.candidates, &bytes, "planned level candidates")
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        let (batch, prev, cur) = self.batch_blocks(iter, slot)?;
        let cand = if batch.uniform[slot as usize] {
            batch.candidates.ptr + u64::from(slot) * self.state_size as u64
        } else {
            0
        };
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.bits[1].slice)
            .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
        let a = self.gpu.record()?;
        let n = self.g.n;
        let m = if self.whole_m != 0 {
            self.whole_m
        } else {
            self.g.m
        };
        let mut b = s.launch_builder(self.k.plan);
        b.arg(&prev)
            .arg(&cur)
            .arg(&n)
            .arg(&m)
            .arg(&first.vertices)
            .arg(&first.edges)
            .arg(&level);
        // SAFETY: `plan_level(prev, cur, n, m, first_vertices, first_edges, level)`
        // of kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe { b.launch(Gpu::grid_for(1, 32)) }.map_err(self.err("plan_level"))?;
        self.td_chunks(cur)?;
        // The work list's size is only known on the device: cover the bound
        // (the relax kernel is grid-stride over a resident grid).
        self.relax(iter, self.bits[1].ptr, self.capacity, cand, cur)?;
        // Bottom-up can only be planned where the level has a candidate; there
        // the kernel is launched every level and the plan says whether it works.
        if let (Some((in_offsets, in_sources, m_in)), true) = (self.g.incoming(), cand != 0) {
            self.bottom_up_kernel(in_offsets, in_sources, m_in, cand, cur)?;
        }
        let b = self.gpu.record()?;
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
        let (_, prev, cur) = self.batch_blocks(iter, slot)?;
        let a = self.gpu.record()?;
        let s = &self.gpu.stream;
        let mut b = s.launch_builder(self.k.plan_pass);
        b.arg(&prev)
            .arg(&cur)
            .arg(&first_pending)
            .arg(&first_limit)
            .arg(&delta);
        // SAFETY: `plan_pass(prev, cur, first_pending, first_limit, delta)` of
        // kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe { b.launch(Gpu::grid_for(1, 32)) }.map_err(self.err("plan_pass"))?;
        self.select(u64::MAX, cur)?;
        // The work list's size is only known on the device: cover the bound.
        self.relax(iter, self.bits[0].ptr, self.capacity, 0, cur)?;
        let b = self.gpu.record()?;
        self.levels.push((a, b));
        Ok(())
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(Error::InvalidArgument(
                "finish_batch before begin_batch".into(),
            ));
        };
        let mut words = vec![0u64; batch.slots as usize * CTL_WORDS];
        self.gpu
            .stream
            .memcpy_dtoh(&batch.blocks.slice, &mut words[..])
            .map_err(cuda_err("cuMemcpyDtoH(planned level counters)"))?;
        let e = self.gpu.record()?;
        self.gpu.sync(&format!("{} planned levels", self.k.name))?;
        self.end = Some(e);
        Ok(words.chunks_exact(CTL_WORDS).map(counter_block).collect())
    }
}

/// What a direction-optimizing traversal needs on the device, checked before a
/// run allocates anything.
impl Device {
    /// Checks, before anything is uploaded or allocated, that a direction-optimizing
    /// traversal of `g` fits: the CSR (and its transpose unless symmetric), state
    /// and parents, bitmaps and the work list. The error names what was asked for
    /// and how much is free ([`Error::GpuOutOfMemory`]).
    pub fn check_traversal_fits<W: Weight>(
        &self,
        g: &Graph<W>,
        state_size: usize,
        parents: bool,
        chunk: u64,
    ) -> Result<()> {
        let (n, m) = (g.num_vertices() as u64, g.num_edges());
        self.check_traversal_size_fits(n, m, g.is_symmetric(), state_size, parents, chunk, 0)
    }

    /// [`Self::check_traversal_fits`] for a graph known by its size only, e.g.
    /// an upper bound before the graph is generated, so that a run that cannot
    /// fit stops before minutes of construction; `extra` bytes are added (other
    /// buffers the caller will hold at the same time).
    #[allow(clippy::too_many_arguments)]
    pub fn check_traversal_size_fits(
        &self,
        n: u64,
        m: u64,
        symmetric: bool,
        state_size: usize,
        parents: bool,
        chunk: u64,
        extra: u64,
    ) -> Result<()> {
        let (nu, mu) = (n as usize, m as usize);
        let csr = DevBuf::<u64>::bytes_for(nu + 1) + DevBuf::<u32>::bytes_for(mu);
        let graph = if symmetric { csr } else { 2 * csr };
        let arrays = DevBuf::<u8>::bytes_for(nu.saturating_mul(state_size))
            + if parents {
                DevBuf::<u32>::bytes_for(nu)
            } else {
                0
            }
            + GpuDirection::bytes(n, m, chunk.max(1), state_size);
        self.gpu.check_fits(
            &format!(
                "a traversal of {n} vertices and {m} edges (graph, state, bitmaps, work list{})",
                if extra > 0 {
                    ", validation buffers"
                } else {
                    ""
                }
            ),
            graph.saturating_add(arrays).saturating_add(extra),
        )
    }
}
