//! The built-in GPU BFS emulated on the host: the same kernel bodies over a
//! simulated grid ([`launch`], from [`super::launch`]) and the same driver loop as
//! the device backend (`driver`, or the direction loop of [`super::direction`]).
//!
//! [`bfs`] runs the seed 000 kernels, [`bfs_direction`] the direction-optimizing
//! one. [`launch`] and [`emulated_grid`] are re-exported here, where they lived
//! before [`super::launch`] existed.

use std::time::Instant;

use kernels_rs::bfs::{Bfs, BfsAtomicMin};

use super::bfs::{bfs_levels, reach_counts, BfsCombine, GpuBfsOptions, GpuBfsResult};
use super::direction::{self, DirGraph, DirectionKernels, DirectionRun};
pub use super::launch::{emulated_grid, launch};
use super::launcher::{host_graph_args, HostLauncher};
use super::levels::LevelKernels;
use super::options::{BfsKernel, Pull};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, Weight};

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
    match opts.kernel {
        BfsKernel::Balanced | BfsKernel::Naive => {}
        // In-edges unknown from a bare CSR: top-down levels only.
        BfsKernel::Direction => return direction_emulated(graph, None, source, opts, max_blocks),
        BfsKernel::Resident | BfsKernel::Tiles | BfsKernel::Auto => {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` is not a built-in BFS kernel",
                opts.kernel.name()
            )))
        }
    }
    let names = ["bfs_init", "vertex_build_sv", "naive", "balanced"];
    let kernels = match opts.combine {
        BfsCombine::Store => LevelKernels::of::<Bfs>(names, None),
        BfsCombine::AtomicMin => LevelKernels::of::<BfsAtomicMin>(names, None),
    };
    let args = host_graph_args(graph, 0);
    let l = HostLauncher::new(max_blocks);
    bfs_levels(&l, kernels, args, graph.offsets(), source, opts)
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
        let graph = DirGraph::host(csr.offsets(), csr.targets(), 0, incoming);
        let pptr = parents.as_mut().map_or(0, |p| p.as_mut_ptr() as u64);
        let mut exec = DirectionRun::new(
            HostLauncher::new(max_blocks),
            DirectionKernels::host::<Bfs>("bfs"),
            graph,
            opts.max_edge_count,
            opts.block_size,
            levels.as_mut_ptr() as u64,
            pptr,
            4,
        )?;
        exec.heuristic = opts.heuristic;
        // As the device runs one GPU's batches (recorded, then replayed).
        exec.graphs = true;
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
        let level_ms = level_times(&exec, log.len());
        (log, level_ms, exec.levels.len() as u32, syncs)
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

/// Host milliseconds of the first `levels` levels of an emulated direction run.
pub(crate) fn level_times(exec: &DirectionRun<'_, HostLauncher>, levels: usize) -> Vec<f64> {
    exec.levels
        .iter()
        .take(levels)
        .map(|(a, b)| b.saturating_duration_since(*a).as_secs_f64() * 1e3)
        .collect()
}
