//! Any `#[vertex_program]` on the GPU: the macro's kernels, this module's host loop.
//!
//! The macro implements two traits for a program: the host [`VertexProgram`](crate::program::VertexProgram) and
//! the GPU-side [`kernels_rs::Program`] (the same user functions), and, in the
//! program crate's nvptx build, kernel entry points `vx_<name>_init`,
//! `vx_<name>_naive`, `vx_<name>_balanced` and `vx_<name>_build_sv` that instantiate
//! the kernels-rs skeletons. Here those kernels are loaded from the program's PTX
//! ([`VertexProgram::gpu_ptx`](crate::program::VertexProgram::gpu_ptx)) and driven level by level with the same loop as the
//! hand-written BFS (`driver`). [`emulate`] runs the identical kernel
//! bodies on the host, which is how CI checks every program's GPU path.
//!
//! The frontier is explicit (two stamp arrays, see [`kernels_rs::Flags`]), so any
//! program works, not only those whose state encodes the level.
//!
//! Files: `device` runs a program on a [`Device`](super::device::Device)
//! ([`Device::run_program`](super::device::Device::run_program)), `emulate` the
//! same kernels on the host ([`emulate`], [`emulate_direction`]). The types they
//! share with the other strategies live in [`super::program_api`] and are
//! re-exported here.

mod device;
mod emulate;

use std::time::Instant;

use super::driver::{self, LoopStats};
use super::launcher::{Arg, Launcher};
use super::levels::{LevelKernels, LevelRun, LevelSetup};
use super::options::BfsKernel;
use super::program_api::tail_handover;
use crate::error::Result;

pub use super::program_api::{
    gpu_delta, kernel_names, uniform_frontier, GpuProgram, ProgramKernels, ProgramOptions,
    ProgramRun, TileStats, GPU_DELTA_FACTOR,
};
pub use emulate::{emulate, emulate_direction};

/// The stamps that make the initial frontier (see [`kernels_rs::Flags`]).
fn initial_stamps<P: GpuProgram>(n: usize, source: u32) -> Vec<u32> {
    if P::NEEDS_SOURCE {
        let mut s = vec![0u32; n];
        s[source as usize] = 1;
        s
    } else {
        vec![1u32; n]
    }
}

/// `P`'s seed 000 level loop (`opts.kernel` naive or balanced) on any launcher,
/// over the `n` states at address `state`; `graph` is the kernels' first five
/// arguments. Returns the run (its marks, its stamps), the loop's counts,
/// whether it stopped early to hand the rest to the resident kernel, and when
/// the loop started (after the buffers were ready).
fn program_levels<'a, L: Launcher, P: GpuProgram>(
    l: &'a L,
    kernels: LevelKernels<'a>,
    graph: [Arg; 5],
    state: u64,
    source: u32,
    opts: &ProgramOptions,
) -> Result<(LevelRun<'a, L>, LoopStats, bool, Instant)> {
    let n = graph[0].u64();
    let balanced = opts.kernel == BfsKernel::Balanced;
    let mut exec = LevelRun::new(
        l,
        kernels,
        LevelSetup {
            graph,
            block: opts.block_size,
            balanced,
            max_edge_count: opts.edges_per_item(),
            ring: driver::ring_size(opts.levels_per_sync),
            state,
            parents: 0,
            stamps: Some(initial_stamps::<P>(n as usize, source)),
            time_levels: false,
        },
    )?;
    l.sync("program buffer allocation")?;
    let wall = Instant::now();
    let (stats, stopped) = driver::run_levels_until(
        &mut exec,
        source,
        balanced,
        opts.levels_per_sync,
        n,
        tail_handover::<P>(opts),
    )?;
    Ok((exec, stats, stopped, wall))
}
