//! The built-in GPU BFS emulated on the host: the same kernel bodies over a
//! simulated grid ([`launch`], from [`super::launch`]) and the same driver loop as
//! the device backend (`driver`, or the direction loop of [`super::direction`]).
//!
//! [`bfs`] runs the seed 000 kernels, [`bfs_direction`] the direction-optimizing
//! one. [`launch`] and [`emulated_grid`] are re-exported here, where they lived
//! before [`super::launch`] existed.

use std::time::Instant;

use kernels_rs::bfs::{Bfs, BfsAtomicMin};
use kernels_rs::entry::{self, RawLevel};
use kernels_rs::Program;

use super::bfs::{reach_counts, BfsCombine, GpuBfsOptions, GpuBfsResult};
use super::direction::{self, HostDirection};
use super::driver::{self, LevelExec};
use super::launch::SharedPtr;
pub use super::launch::{emulated_grid, launch};
use super::options::{BfsKernel, Pull};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, Weight};

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
            SharedPtr(self.sv.as_mut_ptr()),
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
// SAFETY: see `SharedPtr`.
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
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = SharedPtr(
            self.parents
                .as_mut()
                .map_or(std::ptr::null_mut(), |p| p.as_mut_ptr()),
        );
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
            SharedPtr(self.offsets.as_ptr() as *mut u64),
            SharedPtr(self.sv.as_mut_ptr()),
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
    let opts = &opts.builtin()?;
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
        // In-edges unknown from a bare CSR: top-down levels only.
        BfsKernel::Direction => return direction_emulated(graph, None, source, opts, max_blocks),
        BfsKernel::Resident | BfsKernel::Tiles | BfsKernel::Auto => {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` is not a built-in BFS kernel",
                opts.kernel.name()
            )))
        }
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
        directions: Vec::new(),
    })
}

/// The direction-optimizing GPU BFS ([`BfsKernel::Direction`]), emulated. Takes
/// the [`Graph`] so bottom-up levels can read in-edges (the CSR itself when
/// symmetric, else its transpose).
pub fn bfs_direction<W: Weight>(
    graph: &Graph<W>,
    source: u32,
    opts: &GpuBfsOptions,
    max_blocks: u32,
) -> Result<GpuBfsResult> {
    let csr = graph.csr();
    let incoming = (!graph.is_symmetric()).then(|| {
        let t = graph.csc();
        (t.offsets(), t.targets())
    });
    direction_emulated(csr, Some(incoming), source, opts, max_blocks)
}

/// `incoming`: in-edges, `Some(None)` for "the CSR itself" (symmetric graph),
/// `None` when unknown (top-down only).
fn direction_emulated<W: Weight>(
    csr: &Csr<W>,
    incoming: Option<Option<(&[u64], &[u32])>>,
    source: u32,
    opts: &GpuBfsOptions,
    max_blocks: u32,
) -> Result<GpuBfsResult> {
    opts.validate()?;
    let n = csr.num_vertices();
    if source as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "source {source} is not a vertex (the graph has {n} vertices)"
        )));
    }
    let mut levels = vec![0u32; n];
    let mut parents = opts.parents.then(|| vec![0u32; n]);
    let t0 = Instant::now();
    let (log, per_level_ms, launched_levels, syncs) = {
        let mut exec = HostDirection::<Bfs>::new(
            csr.offsets(),
            csr.targets(),
            std::ptr::null(),
            incoming.flatten(),
            opts.max_edge_count,
            opts.block_size,
            max_blocks,
            &mut levels,
            parents.as_deref_mut(),
        )?;
        let pull = (opts.pull == Pull::Auto && incoming.is_some()).then_some(0u32);
        let (log, syncs) = direction::drive_levels(
            &mut exec,
            n as u64,
            csr.num_edges(),
            Some(source),
            pull,
            |l| Some(l + 1),
            opts.levels_per_sync,
        )?;
        let mut level_ms = exec.level_ms;
        let launched = level_ms.len() as u32;
        level_ms.truncate(log.len());
        (log, level_ms, launched, syncs)
    };
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let (reached, edges_traversed) = reach_counts(csr.offsets(), &levels);
    let rounds = log.len() as u32;
    Ok(GpuBfsResult {
        levels,
        parents,
        num_levels: rounds,
        reached,
        edges_traversed,
        time_ms,
        wall_ms: time_ms,
        init_ms: 0.0,
        sv_build_ms: 0.0,
        check_end_ms: (time_ms - per_level_ms.iter().sum::<f64>()).max(0.0),
        per_level_ms,
        launched_levels,
        syncs,
        directions: log,
    })
}
