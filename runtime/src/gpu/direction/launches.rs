//! The launches of one direction run's kernels: each builds its kernel's
//! argument list (the PTX parameter list of `kernels_rs::direction_kernels!`)
//! from the run's buffers and picks its grid.

use kernels_rs::direction::ITER_FROM_PLAN;
use kernels_rs::entry;

use super::{DirectionRun, SCAN_CHUNK};
use crate::error::Result;
use crate::gpu::launcher::{Arg, Grid, Launcher};

impl<L: Launcher> DirectionRun<'_, L> {
    /// Launches `td_scan` from the current frontier into the next with
    /// counter block `ctl`; `cand` the frontier's candidate or 0.
    pub(super) fn scan(&self, iter: u32, cand: u64, ctl: u64) -> Result<()> {
        let Some(sv) = &self.sv else {
            return Err(self.err("a scan level without enable_scan"));
        };
        let nsv = kernels_rs::skeleton::num_chunks(self.g.args[1].u64(), SCAN_CHUNK);
        let args = [
            &self.g.args[..],
            &[
                self.state.into(),
                self.parents.into(),
                L::addr(sv).into(),
                nsv.into(),
                SCAN_CHUNK.into(),
                L::addr(&self.bits[0]).into(),
                L::addr(&self.bits[1]).into(),
                ctl.into(),
                iter.into(),
                self.degree_offsets.into(),
                cand.into(),
            ],
        ]
        .concat();
        // SAFETY: `td_scan(n, m, offsets, targets, weights, state, parents, sv,
        // nsv, chunk, frontier, next, ctl, iter, degree_offsets, candidate)` of
        // kernels_rs::direction_kernels!, whole warps (see `new`); sv built by
        // `enable_scan` with the same chunk.
        unsafe {
            self.l
                .launch(&self.k.td_scan, Grid::Resident(nsv), self.block, &args)
        }
    }

    /// Threads of a kernel that gives each lane one bitmap word at a time
    /// (`td_chunks`, `td_select`; whole warps, as `block` is a multiple of 32).
    pub(super) fn word_threads(&self) -> u64 {
        entry::bitmap_words(self.n())
    }

    /// Launches `td_relax` over the work list into bitmap `next`, with a grid for
    /// at most `work` chunks; `ctl` is the level's counter block.
    pub(super) fn relax(
        &self,
        iter: u32,
        next: u64,
        work: u64,
        candidate: u64,
        ctl: u64,
    ) -> Result<()> {
        let args = self.relax_args(iter, next, candidate, ctl);
        let grid = Grid::Resident(work.clamp(1, self.capacity.max(1)));
        // SAFETY: `td_relax(n, m, offsets, targets, weights, state, parents, chunks,
        // capacity, chunk, next, ctl, iter, degree_offsets, candidate)` of
        // kernels_rs::direction_kernels!; weights: m of the program's weight type
        // or null when unweighted; degree_offsets n + 1 or null; candidate one
        // state or null.
        unsafe { self.l.launch(&self.k.td_relax, grid, self.block, &args) }
    }

    /// `td_relax`'s arguments (the first of `level`'s): the graph, the run's
    /// buffers, bitmap `next`, counter block `ctl`, level `iter` and
    /// `candidate` (0: none).
    fn relax_args(&self, iter: u32, next: u64, candidate: u64, ctl: u64) -> Vec<Arg> {
        let mut args = self.g.args.to_vec();
        args.extend::<[Arg; _]>([
            self.state.into(),
            self.parents.into(),
            L::addr(&self.chunks).into(),
            self.capacity.into(),
            self.chunk.into(),
            next.into(),
            ctl.into(),
            iter.into(),
            self.degree_offsets.into(),
            candidate.into(),
        ]);
        args
    }

    /// Offsets the next-frontier degree tally reads.
    pub(super) fn tally_offsets(&self) -> u64 {
        if self.degree_offsets != 0 {
            self.degree_offsets
        } else {
            self.g.args[2].u64()
        }
    }

    /// Launches `td_chunks` over the current frontier with counter block `ctl`,
    /// zeroing bitmap `clear` (an address; 0: none) on the way.
    pub(super) fn td_chunks(&self, ctl: u64, clear: u64) -> Result<()> {
        let args = [
            self.n().into(),
            self.g.args[2],
            L::addr(&self.bits[0]).into(),
            self.chunk.into(),
            L::addr(&self.chunks).into(),
            self.capacity.into(),
            ctl.into(),
            clear.into(),
        ];
        // A resident grid: the word loop is grid-stride, and on a bottom-up level
        // the launch only clears `clear`, where a lane a word (2,048 blocks at
        // Graph500 scale 24) cost 7 µs, as much as a part's level.
        let grid = Grid::Resident(self.word_threads());
        // SAFETY: `td_chunks(n, offsets, frontier, chunk, chunks, capacity, ctl,
        // clear)` of kernels_rs::direction_kernels!; buffers of the documented
        // lengths, clear null or the next bitmap (which the launch does not read).
        unsafe { self.l.launch(&self.k.td_chunks, grid, self.block, &args) }
    }

    /// Launches `td_select` over the pending bitmap with `limit` (a planned
    /// pass reads its limit from the block instead) and counter block `ctl`.
    pub(super) fn select(&self, limit: u64, ctl: u64) -> Result<()> {
        let args = [
            self.n().into(),
            self.g.args[2],
            self.state.into(),
            L::addr(&self.bits[0]).into(),
            limit.into(),
            self.chunk.into(),
            L::addr(&self.chunks).into(),
            self.capacity.into(),
            ctl.into(),
        ];
        // Grid-stride over the words, as `td_chunks`.
        let grid = Grid::Resident(self.word_threads());
        // SAFETY: `td_select(n, offsets, state, pending, limit, chunk, chunks,
        // capacity, ctl)` of kernels_rs::direction_kernels!.
        unsafe { self.l.launch(&self.k.td_select, grid, self.block, &args) }
    }

    /// Launches `bottom_up` from the current frontier with candidate `cand` (one
    /// state) and counter block `ctl`.
    pub(super) fn bottom_up_kernel(
        &self,
        incoming: (u64, u64, u64),
        cand: u64,
        ctl: u64,
    ) -> Result<()> {
        let (in_offsets, in_sources, m_in) = incoming;
        let (first, end) = self.owned;
        let args = [
            self.n().into(),
            first.into(),
            end.into(),
            m_in.into(),
            in_offsets.into(),
            in_sources.into(),
            self.tally_offsets().into(),
            self.state.into(),
            self.parents.into(),
            L::addr(&self.bits[0]).into(),
            L::addr(&self.bits[1]).into(),
            cand.into(),
            ctl.into(),
        ];
        let grid = Grid::Resident(end.saturating_sub(first));
        // SAFETY: `bottom_up(n, first, end, m_in, in_offsets, in_sources,
        // out_offsets, state, parents, frontier, next, candidate, ctl)` of
        // kernels_rs::direction_kernels!, launched with whole warps (see `new`);
        // `first` a multiple of 32 (a partition's span), `end ≤ n`.
        unsafe { self.l.launch(&self.k.bottom_up, grid, self.block, &args) }
    }

    /// Launches `level`: a planned level's relax of the work list into
    /// `bits[1]`, or its bottom-up scan of `bits[0]`, as block `ctl` plans.
    pub(super) fn level(&self, incoming: (u64, u64, u64), cand: u64, ctl: u64) -> Result<()> {
        let (in_offsets, in_sources, m_in) = incoming;
        let (first, end) = self.owned;
        let mut args = self.relax_args(ITER_FROM_PLAN, L::addr(&self.bits[1]), cand, ctl);
        args.extend::<[Arg; _]>([
            first.into(),
            end.into(),
            m_in.into(),
            in_offsets.into(),
            in_sources.into(),
            L::addr(&self.bits[0]).into(),
        ]);
        let grid = Grid::Resident(self.capacity.max(end.saturating_sub(first)).max(1));
        // SAFETY: `level(n, m, offsets, targets, weights, state, parents, chunks,
        // capacity, chunk, next, ctl, iter, degree_offsets, candidate, first, end,
        // m_in, in_offsets, in_sources, frontier)` of
        // kernels_rs::direction_kernels!: td_relax's contract (see `relax`) and
        // bottom_up's (see `bottom_up_kernel`), ctl a planned level's block.
        unsafe { self.l.launch(&self.k.level, grid, self.block, &args) }
    }
}
