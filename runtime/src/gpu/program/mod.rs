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
