//! Host emulation of the GPU kernels: the same kernel bodies, a simulated grid.
//!
//! [`launch`] runs a kernel body for every thread of a 1-D grid: blocks in
//! parallel on rayon, the threads of a block one after another. The bodies are
//! `kernels_rs::entry` functions called with host pointers, exactly as the PTX
//! entry points call them with device pointers, and they update state with real
//! `core::sync::atomic` atomics, so races between simulated threads are real
//! races between OS threads. This is how CI, which has no GPU, tests kernel logic.
//!
//! Limits: no shared memory and no intra-block barriers (the seed 000 kernels use
//! neither); a kernel needing `__syncthreads` would need a different launcher.
//!
//! [`bfs`] runs the whole GPU BFS — the same driver loop as the device backend
//! (`driver`) — on the host.

use std::time::Instant;

use kernels_rs::bfs::{Bfs, BfsAtomicMin};
use kernels_rs::entry::{self, RawLevel};
use kernels_rs::{Program, ThreadCtx};
use rayon::prelude::*;

use super::bfs::{reach_counts, BfsCombine, BfsKernel, GpuBfsOptions, GpuBfsResult};
use super::driver::{self, LevelExec};
use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

/// Runs `body` once per thread of a grid of `grid` blocks of `block` threads.
pub fn launch(grid: u32, block: u32, body: impl Fn(ThreadCtx) + Sync) {
    (0..grid).into_par_iter().for_each(|b| {
        for t in 0..block {
            body(ThreadCtx {
                thread_idx: t,
                block_idx: b,
                block_dim: block,
                grid_dim: grid,
            });
        }
    });
}

/// Grid size the emulator uses for `work` items: like the GPU's, but capped, so
/// that the grid-stride loops of the kernels are exercised too.
pub fn emulated_grid(work: u64, block: u32, max_blocks: u32) -> u32 {
    (work.div_ceil(block as u64).max(1)).min(max_blocks as u64) as u32
}

/// A raw pointer that may cross rayon threads. The kernels' contract (disjoint
/// or atomic access) is what makes sharing it sound.
#[derive(Clone, Copy)]
struct P<T>(*mut T);
// SAFETY: kernel bodies only access the pointee through atomics or disjoint writes.
unsafe impl<T> Send for P<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for P<T> {}
impl<T> P<T> {
    /// The pointer (a method, so closures capture the whole `Sync` wrapper).
    fn get(self) -> *mut T {
        self.0
    }
}

/// Host buffers of one emulated BFS.
struct HostExec<'a> {
    offsets: &'a [u64],
    targets: &'a [u32],
    opts: &'a GpuBfsOptions,
    max_blocks: u32,
    state: Vec<u32>,
    parents: Option<Vec<u32>>,
    sv: Vec<u32>,
    flags: Vec<u32>,
    init_ms: f64,
    sv_ms: f64,
    level_ms: Vec<f64>,
}

impl HostExec<'_> {
    fn n(&self) -> u64 {
        (self.offsets.len() - 1) as u64
    }

    fn level_for<Pr: Program<State = u32, Weight = ()>>(
        &mut self,
        iter: u32,
        slot_in: u32,
        slot_out: u32,
    ) {
        let n = self.n();
        let balanced = self.opts.kernel == BfsKernel::Balanced;
        let raw = RawLevel::<Pr> {
            n,
            m: self.targets.len() as u64,
            offsets: self.offsets.as_ptr(),
            targets: self.targets.as_ptr(),
            weights: std::ptr::null(),
            state: self.state.as_mut_ptr(),
            parents: self
                .parents
                .as_mut()
                .map_or(std::ptr::null_mut(), |p| p.as_mut_ptr()),
            frontier_current: std::ptr::null_mut(),
            frontier_next: std::ptr::null_mut(),
            flags: self.flags.as_mut_ptr(),
            nflags: self.flags.len() as u32,
            slot_in,
            slot_out,
            iter,
        };
        let raw = RawLevelSync(raw);
        let (sv, nchunks, mec) = (
            P(self.sv.as_mut_ptr()),
            self.sv.len() as u64,
            self.opts.max_edge_count,
        );
        let work = if balanced { nchunks } else { n };
        let grid = emulated_grid(work, self.opts.block_size, self.max_blocks);
        launch(grid, self.opts.block_size, |t| {
            let raw = raw.get();
            // SAFETY: all pointers come from live host buffers of the lengths the
            // entry contract names; state, parents and flags are only touched
            // through atomics; offsets/targets/SV are read-only during the launch.
            unsafe {
                if balanced {
                    entry::balanced::<Pr>(t, raw, sv.get(), nchunks, mec);
                } else {
                    entry::naive::<Pr>(t, raw);
                }
            }
        });
    }
}

/// `RawLevel` holds raw pointers; this wrapper lets the launch closure share it.
struct RawLevelSync<Pr: Program>(RawLevel<Pr>);
// SAFETY: see `P`.
unsafe impl<Pr: Program> Sync for RawLevelSync<Pr> {}
impl<Pr: Program> RawLevelSync<Pr> {
    fn get(&self) -> RawLevel<Pr> {
        self.0
    }
}

impl LevelExec for HostExec<'_> {
    fn init(&mut self, source: u32, ring: u32) -> Result<()> {
        self.flags = vec![0; ring as usize];
        self.flags[0] = 1;
        let t0 = Instant::now();
        let n = self.n();
        let state = P(self.state.as_mut_ptr());
        let parents = P(self
            .parents
            .as_mut()
            .map_or(std::ptr::null_mut(), |p| p.as_mut_ptr()));
        let grid = emulated_grid(n, self.opts.block_size, self.max_blocks);
        launch(grid, self.opts.block_size, |t| {
            // SAFETY: `n`-element host buffers, written through atomics.
            unsafe { entry::init::<Bfs>(t, n, source, state.get(), parents.get()) }
        });
        self.init_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }

    fn build_sv(&mut self) -> Result<()> {
        let t0 = Instant::now();
        let n = self.n();
        let (offsets, sv, nchunks) = (
            P(self.offsets.as_ptr() as *mut u64),
            P(self.sv.as_mut_ptr()),
            self.sv.len() as u64,
        );
        let mec = self.opts.max_edge_count;
        let grid = emulated_grid(n, self.opts.block_size, self.max_blocks);
        launch(grid, self.opts.block_size, |t| {
            // SAFETY: offsets has n + 1 entries (read only), sv `nchunks` (atomics).
            unsafe { entry::build_sv(t, n, offsets.get(), mec, sv.get(), nchunks) }
        });
        self.sv_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }

    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
        let t0 = Instant::now();
        match self.opts.combine {
            BfsCombine::Store => self.level_for::<Bfs>(iter, slot_in, slot_out),
            BfsCombine::AtomicMin => self.level_for::<BfsAtomicMin>(iter, slot_in, slot_out),
        }
        self.level_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        Ok(())
    }

    fn read_flags(&mut self) -> Result<Vec<u32>> {
        Ok(self.flags.clone())
    }
}

/// The GPU BFS, emulated on the host (same kernels, same driver loop).
/// `max_blocks` caps the simulated grid (e.g. 64).
pub fn bfs<W: Weight>(
    graph: &Csr<W>,
    source: u32,
    opts: &GpuBfsOptions,
    max_blocks: u32,
) -> Result<GpuBfsResult> {
    opts.validate()?;
    let n = graph.num_vertices();
    if source as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "source {source} is not a vertex (the graph has {n} vertices)"
        )));
    }
    let nchunks = match opts.kernel {
        BfsKernel::Balanced => {
            kernels_rs::skeleton::num_chunks(graph.num_edges(), opts.max_edge_count)
        }
        BfsKernel::Naive => 0,
    } as usize;
    let mut exec = HostExec {
        offsets: graph.offsets(),
        targets: graph.targets(),
        opts,
        max_blocks: max_blocks.max(1),
        state: vec![0; n],
        parents: opts.parents.then(|| vec![0; n]),
        sv: vec![0; nchunks],
        flags: Vec::new(),
        init_ms: 0.0,
        sv_ms: 0.0,
        level_ms: Vec::new(),
    };
    let t0 = Instant::now();
    let stats = driver::run_levels(
        &mut exec,
        source,
        opts.kernel == BfsKernel::Balanced,
        opts.levels_per_sync,
        n as u64,
    )?;
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let per_level_ms: Vec<f64> = exec
        .level_ms
        .iter()
        .take(stats.num_levels as usize)
        .copied()
        .collect();
    let kernels = exec.init_ms + exec.sv_ms + per_level_ms.iter().sum::<f64>();
    let (reached, edges_traversed) = reach_counts(graph.offsets(), &exec.state);
    Ok(GpuBfsResult {
        levels: exec.state,
        parents: exec.parents,
        num_levels: stats.num_levels,
        reached,
        edges_traversed,
        time_ms,
        wall_ms: time_ms,
        init_ms: exec.init_ms,
        sv_build_ms: exec.sv_ms,
        per_level_ms,
        check_end_ms: (time_ms - kernels).max(0.0),
        launched_levels: stats.launched,
        syncs: stats.syncs,
    })
}
