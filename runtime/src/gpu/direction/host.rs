//! The direction-optimizing loop's host executor: [`HostDirection`] runs the
//! same kernel bodies over host buffers through the emulator's launcher
//! ([`crate::gpu::launch`]), so CI checks the loop and the kernels without a GPU.

use std::time::Instant;

use kernels_rs::direction::{chunk_capacity, CTL_CHUNKS, CTL_WORDS};
use kernels_rs::entry;

use super::{
    counter_block, initial_bits, initial_size, DirectionExec, FrontierSize, Pass, PlannedExec,
};
use crate::error::{Error, Result};
use crate::gpu::launch::{emulated_grid, launch, SharedPtr};

/// The same kernels over host buffers (CI without a GPU).
pub(crate) struct HostDirection<'a, P: kernels_rs::Program> {
    pub offsets: &'a [u64],
    pub targets: &'a [u32],
    /// `m` weights of `P`'s weight type, or null when unweighted.
    pub weights: *const P::Weight,
    /// In-edges (`None` for a symmetric graph: the CSR itself).
    pub incoming: Option<(&'a [u64], &'a [u32])>,
    pub chunk: u64,
    pub block: u32,
    pub max_blocks: u32,
    pub state: &'a mut [P::State],
    pub parents: Option<&'a mut [u32]>,
    /// The whole graph's offsets when `offsets`/`targets` are a partition's.
    pub degree_offsets: Option<&'a [u64]>,
    /// Vertices the bottom-up kernel scans (`None`: all; a part's own range on
    /// a multi-GPU partition).
    pub owned: Option<(u64, u64)>,
    /// Edges of the whole graph when `offsets`/`targets` are a partition's.
    pub whole_m: Option<u64>,
    bits: [Vec<u32>; 2],
    chunks: Vec<u64>,
    ctl: Vec<u64>,
    /// Host time of each level.
    pub level_ms: Vec<f64>,
    /// Device-planned levels: the batch's counter blocks and candidates.
    batch_blocks: Vec<Vec<u64>>,
    batch_candidates: Vec<Option<P::State>>,
}

impl<'a, P: kernels_rs::Program> HostDirection<'a, P> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        offsets: &'a [u64],
        targets: &'a [u32],
        weights: *const P::Weight,
        incoming: Option<(&'a [u64], &'a [u32])>,
        chunk: u64,
        block: u32,
        max_blocks: u32,
        state: &'a mut [P::State],
        parents: Option<&'a mut [u32]>,
    ) -> Result<Self> {
        if chunk == 0 {
            return Err(Error::InvalidArgument(
                "edges per chunk must be at least 1".into(),
            ));
        }
        let n = offsets.len().saturating_sub(1) as u64;
        let words = entry::bitmap_words(n) as usize;
        Ok(HostDirection {
            offsets,
            targets,
            weights,
            incoming,
            chunk,
            block,
            max_blocks: max_blocks.max(1),
            state,
            parents,
            degree_offsets: None,
            owned: None,
            whole_m: None,
            bits: [vec![0; words], vec![0; words]],
            chunks: vec![0; chunk_capacity(n, targets.len() as u64, chunk) as usize],
            ctl: vec![0; CTL_WORDS],
            level_ms: Vec::new(),
            batch_blocks: Vec::new(),
            batch_candidates: Vec::new(),
        })
    }

    fn n(&self) -> u64 {
        self.offsets.len().saturating_sub(1) as u64
    }

    /// The current frontier's vertices (after a level loop stopped for a handover).
    pub(crate) fn frontier_ids(&self) -> Vec<u32> {
        super::set_bits(&self.bits[0], self.n())
    }

    /// The current frontier (or pending set) bitmap, for the multi-GPU exchange.
    pub(crate) fn frontier_words(&mut self) -> &mut [u32] {
        &mut self.bits[0]
    }

    /// Slot `slot`'s counter block of the current batch of planned levels, for
    /// the multi-GPU exchange's sum of the level counters.
    pub(crate) fn batch_block_mut(&mut self, slot: u32) -> Option<&mut [u64]> {
        self.batch_blocks.get_mut(slot as usize).map(|b| &mut b[..])
    }

    fn grid(&self, work: u64) -> u32 {
        emulated_grid(work, self.block, self.max_blocks)
    }

    fn parents_ptr(&mut self) -> SharedPtr<u32> {
        SharedPtr(
            self.parents
                .as_deref_mut()
                .map_or(std::ptr::null_mut(), |p| p.as_mut_ptr()),
        )
    }

    fn clear_next(&mut self) {
        self.bits[1].iter_mut().for_each(|w| *w = 0);
        self.ctl.iter_mut().for_each(|c| *c = 0);
    }

    fn word_threads(&self) -> u64 {
        entry::bitmap_words(self.n()).div_ceil(kernels_rs::direction::WORDS_PER_THREAD)
    }

    /// `td_relax` over the work list the last chunk/select step built, into
    /// bitmap `bits[next]`.
    fn relax(&mut self, iter: u32, next: usize, candidate: Option<P::State>) {
        let n = self.n();
        let m = self.targets.len() as u64;
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let targets = SharedPtr(self.targets.as_ptr() as *mut u32);
        let weights = SharedPtr(self.weights as *mut P::Weight);
        let next = SharedPtr(self.bits[next].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        let work = self.ctl[CTL_CHUNKS];
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let degree_offsets =
            SharedPtr(self.degree_offsets.map_or(std::ptr::null(), |d| d.as_ptr()) as *mut u64);
        let cand = candidate.map(|c| [c]);
        let cand_ptr =
            SharedPtr(cand.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()) as *mut P::State);
        launch(self.grid(work), self.block, |t| {
            // SAFETY: host buffers of the lengths td_relax documents; state,
            // parents, next bitmap and counters through atomics, the work list
            // read-only during this launch.
            unsafe {
                entry::td_relax::<P>(
                    t,
                    n,
                    m,
                    offsets.get(),
                    targets.get(),
                    weights.get(),
                    state.get(),
                    parents.get(),
                    chunks.get(),
                    capacity,
                    chunk,
                    next.get(),
                    ctl.get(),
                    iter,
                    degree_offsets.get(),
                    cand_ptr.get(),
                )
            }
        });
    }

    fn finish(&mut self, t0: Instant, swap: bool) -> FrontierSize {
        self.level_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if swap {
            self.bits.swap(0, 1);
        }
        FrontierSize::from_ctl(&self.ctl)
    }
}

impl<P: kernels_rs::Program> DirectionExec<P::State> for HostDirection<'_, P> {
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        let n = self.n();
        self.bits[0] = initial_bits(n, source);
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let src = source.unwrap_or(u32::MAX);
        launch(self.grid(n), self.block, |t| {
            // SAFETY: n-element host buffers (parents: n or null), written atomically.
            unsafe { entry::init::<P>(t, n, src, state.get(), parents.get()) }
        });
        Ok(initial_size(self.offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        _frontier: FrontierSize,
        candidate: Option<P::State>,
    ) -> Result<FrontierSize> {
        let t0 = Instant::now();
        self.clear_next();
        self.td_chunks();
        self.relax(iter, 1, candidate);
        Ok(self.finish(t0, true))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let t0 = Instant::now();
        self.ctl.iter_mut().for_each(|c| *c = 0);
        self.select(limit);
        self.relax(iter, 0, None);
        self.finish(t0, false);
        Ok(Pass::from_ctl(&self.ctl))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: P::State) -> Result<FrontierSize> {
        let t0 = Instant::now();
        self.clear_next();
        self.bottom_up_kernel(candidate);
        Ok(self.finish(t0, true))
    }
}

impl<P: kernels_rs::Program> PlannedExec<P::State> for HostDirection<'_, P> {
    fn begin_batch(&mut self, candidates: &[Option<P::State>]) -> Result<()> {
        if candidates.len() < 2 {
            return Err(Error::InvalidArgument(
                "device-planned levels need at least 2 levels per sync".into(),
            ));
        }
        self.batch_blocks
            .resize_with(candidates.len(), || vec![0; CTL_WORDS]);
        self.batch_candidates = candidates.to_vec();
        Ok(())
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        let n = self.n();
        let m = self.whole_m.unwrap_or(self.targets.len() as u64);
        self.in_batch_slot(iter, slot, |x, prev, cur| {
            launch(1, 32, |t| {
                // SAFETY: see `in_batch_slot`; only thread 0 touches the blocks.
                unsafe {
                    entry::plan_level(
                        t,
                        prev.get(),
                        cur.get(),
                        n,
                        m,
                        first.vertices,
                        first.edges,
                        level,
                    )
                }
            });
            x.bits[1].iter_mut().for_each(|w| *w = 0);
            let candidate = x.batch_candidates[slot as usize];
            x.td_chunks();
            x.relax(iter, 1, candidate);
            // Launched on every level with a candidate, as on the GPU: the plan
            // says whether it does anything.
            if let Some(c) = candidate {
                x.bottom_up_kernel(c);
            }
            x.bits.swap(0, 1);
        });
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
        self.in_batch_slot(iter, slot, |x, prev, cur| {
            launch(1, 32, |t| {
                // SAFETY: see `in_batch_slot`; only thread 0 touches the blocks.
                unsafe {
                    entry::plan_pass(t, prev.get(), cur.get(), first_pending, first_limit, delta)
                }
            });
            x.select(u64::MAX);
            x.relax(iter, 0, None);
        });
        Ok(())
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        Ok(self.batch_blocks.iter().map(|b| counter_block(b)).collect())
    }
}

impl<P: kernels_rs::Program> HostDirection<'_, P> {
    /// Runs `body` for planned level (or pass) `iter` in slot `slot` of the batch,
    /// with that slot's counter block standing in for `self.ctl` and the
    /// pointers of the previous level's block (null at level 0; the previous
    /// slot, wrapping, otherwise: a batch has ≥ 2 slots, so it is never `cur`)
    /// and of this one, as the planning kernels take them. Records the time.
    fn in_batch_slot(
        &mut self,
        iter: u32,
        slot: u32,
        body: impl FnOnce(&mut Self, SharedPtr<u64>, SharedPtr<u64>),
    ) {
        let t0 = Instant::now();
        let (slots, slot) = (self.batch_blocks.len(), slot as usize);
        std::mem::swap(&mut self.ctl, &mut self.batch_blocks[slot]);
        let cur = SharedPtr(self.ctl.as_mut_ptr());
        let prev = SharedPtr(if iter == 0 {
            std::ptr::null_mut()
        } else {
            self.batch_blocks[(slot + slots - 1) % slots].as_mut_ptr()
        });
        body(self, prev, cur);
        std::mem::swap(&mut self.ctl, &mut self.batch_blocks[slot]);
        self.level_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    /// `td_select` over the pending bitmap with `limit` into `self.ctl`.
    fn select(&mut self, limit: u64) {
        let n = self.n();
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let state = SharedPtr(self.state.as_mut_ptr());
        let pending = SharedPtr(self.bits[0].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        launch(self.grid(self.word_threads()), self.block, |t| {
            // SAFETY: host buffers of the lengths td_select documents; state read
            // through atomics, bitmap/chunks/counters written through atomics.
            unsafe {
                entry::td_select::<P>(
                    t,
                    n,
                    offsets.get(),
                    state.get(),
                    pending.get(),
                    limit,
                    chunk,
                    chunks.get(),
                    capacity,
                    ctl.get(),
                )
            }
        });
    }

    /// `td_chunks` over the current frontier into `self.ctl`.
    fn td_chunks(&mut self) {
        let n = self.n();
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let cur = SharedPtr(self.bits[0].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        launch(self.grid(self.word_threads()), self.block, |t| {
            // SAFETY: host buffers of the lengths td_chunks documents; bitmap,
            // chunks and counters only touched through atomics.
            unsafe {
                entry::td_chunks(
                    t,
                    n,
                    offsets.get(),
                    cur.get(),
                    chunk,
                    chunks.get(),
                    capacity,
                    ctl.get(),
                )
            }
        });
    }

    /// `bottom_up` from the current frontier with `candidate` into `self.ctl`.
    fn bottom_up_kernel(&mut self, candidate: P::State) {
        let n = self.n();
        let (in_off, in_src) = self.incoming.unwrap_or((self.offsets, self.targets));
        let m_in = in_src.len() as u64;
        let in_off = SharedPtr(in_off.as_ptr() as *mut u64);
        let in_src = SharedPtr(in_src.as_ptr() as *mut u32);
        let out_off = SharedPtr(self.degree_offsets.unwrap_or(self.offsets).as_ptr() as *mut u64);
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let cur = SharedPtr(self.bits[0].as_mut_ptr());
        let next = SharedPtr(self.bits[1].as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let cand = [candidate];
        let cand = SharedPtr(cand.as_ptr() as *mut P::State);
        let (first, end) = self.owned.unwrap_or((0, n));
        launch(self.grid(end.saturating_sub(first)), self.block, |t| {
            // SAFETY: host buffers of the lengths bottom_up documents; each vertex's
            // state/parent written by its own thread only, bitmaps and counters
            // through atomics, the candidate read-only.
            unsafe {
                entry::bottom_up::<P>(
                    t,
                    n,
                    first,
                    end,
                    m_in,
                    in_off.get(),
                    in_src.get(),
                    out_off.get(),
                    state.get(),
                    parents.get(),
                    cur.get(),
                    next.get(),
                    cand.get(),
                    ctl.get(),
                )
            }
        });
    }
}
