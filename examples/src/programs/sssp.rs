//! Single-source shortest paths with non-negative weights.
//!
//! Bellman-Ford-style label correcting under the sync schedule; under the obim
//! schedule the priority `dist` makes it delta-stepping (Meyer & Sanders, 2003):
//! buckets of width Δ processed in order. Three variants: exact integer distances
//! (u64 so that long paths of u32 weights cannot overflow), the same in 32 bits
//! for graphs where no shortest path can reach `u32::MAX` (half the state memory
//! and cache traffic; [`run_cpu`] picks it at run time, as gapbs always uses 32-bit
//! distances), and f64 distances.

use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod sssp {
    /// Distance from the source; `u64::MAX` = not reached.
    pub type State = u64;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u64::MAX
        }
    }

    pub fn relax(dist: State, w: Weight) -> Option<State> {
        dist.checked_add(w as u64)
    }

    pub fn priority(dist: State) -> u32 {
        dist.min(u32::MAX as u64) as u32
    }
}

/// [`sssp`] in 32 bits. Only exact on graphs where [`fits_u32`] holds: `relax`
/// drops a sum that overflows, which is never a shortest path there (every
/// tentative distance is the length of a simple path, see [`fits_u32`]).
#[vertex_program(combine = min)]
pub mod sssp32 {
    /// Distance from the source; `u32::MAX` = not reached.
    pub type State = u32;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u32::MAX
        }
    }

    pub fn relax(dist: State, w: Weight) -> Option<State> {
        dist.checked_add(w)
    }

    pub fn priority(dist: State) -> u32 {
        dist
    }
}

#[vertex_program(combine = min)]
pub mod sssp_f64 {
    /// Distance from the source; infinity = not reached.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0.0
        } else {
            f64::INFINITY
        }
    }

    pub fn relax(dist: State, w: Weight) -> Option<State> {
        Some(dist + w)
    }

    pub fn priority(dist: State) -> u32 {
        dist as u32
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::{fits_u32, refuse_negative_cycle, run_cpu, run_gpu};

/// Host-only helpers (the GPU build of this file has no runtime crate).
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::{sssp, sssp32};

    /// Whether [`sssp32`] is exact on `g`: no simple path is as long as `u32::MAX`
    /// ([`::runtime::cpu::narrow`] says why that suffices).
    pub fn fits_u32(g: &::runtime::graph::Graph<u32>) -> bool {
        ::runtime::cpu::narrow::path_bound(g).fits_u32()
    }

    /// Shortest paths on float weights take negative weights, but a negative
    /// cycle would have every engine relax around it forever: refused before
    /// the run, naming the cycle as `vertex apsp` does (the check runs only
    /// when some weight is negative). The `vertex` CLI and the Python package
    /// both call it.
    pub fn refuse_negative_cycle(g: &::runtime::graph::Graph<f64>) -> ::runtime::error::Result<()> {
        let c = g.csr();
        let Some(w) = c.weights() else {
            return Ok(());
        };
        if !w.iter().any(|&x| x < 0.0) {
            return Ok(());
        }
        let (offsets, targets) = (c.offsets(), c.targets());
        match ::runtime::apsp::johnson::find_negative_cycle(offsets, targets, w) {
            Some(cycle) => Err(::runtime::error::Error::NegativeCycle(
                ::runtime::apsp::johnson::describe_cycle(&cycle, offsets, targets, w),
            )),
            None => Ok(()),
        }
    }

    /// Integer SSSP on the CPU with the narrowest exact distances: [`sssp32`] where
    /// [`fits_u32`] holds (its distances widened back, `u32::MAX` → `u64::MAX`), else
    /// [`sssp`]. Returns the result and whether 32 bits ran. The report's time covers
    /// the check and the widening as well as the traversal.
    pub fn run_cpu(
        g: &::runtime::graph::Graph<u32>,
        source: u32,
        schedule: ::runtime::program::Schedule,
        opts: &::runtime::cpu::CpuOptions,
        aopts: &::runtime::cpu::AsyncOptions,
    ) -> ::runtime::error::Result<(::runtime::cpu::RunResult<u64>, bool)> {
        let t0 = std::time::Instant::now();
        if fits_u32(g) {
            let r = ::runtime::cpu::run::<sssp32::Program>(g, source, schedule, opts, aopts)?;
            let states = ::runtime::cpu::narrow::widen(&r.states);
            let mut report = r.report;
            report.time = t0.elapsed();
            Ok((::runtime::cpu::RunResult { states, report }, true))
        } else {
            let r = ::runtime::cpu::run::<sssp::Program>(g, source, schedule, opts, aopts)?;
            Ok((r, false))
        }
    }

    /// [`run_cpu`]'s twin on the GPU: [`sssp32`]'s kernels where [`fits_u32`]
    /// holds (half the state to move, and a 1000² grid's tiles then hold their
    /// rows in shared memory), [`sssp`]'s (`k64`, loaded already) otherwise.
    /// The time is the kernels' (CUDA events), as for any program.
    pub fn run_gpu(
        g: &::runtime::graph::Graph<u32>,
        dev: &::runtime::gpu::Device,
        k64: &::runtime::gpu::program::ProgramKernels,
        dg: &::runtime::gpu::DeviceGraph,
        source: u32,
        opts: &::runtime::gpu::ProgramOptions,
    ) -> ::runtime::error::Result<(::runtime::gpu::ProgramRun<u64>, bool)> {
        if opts.parents || !fits_u32(g) {
            return Ok((
                dev.run_program::<sssp::Program>(k64, dg, source, opts)?,
                false,
            ));
        }
        let k32 = dev.load_program::<sssp32::Program>()?;
        let r = dev.run_program::<sssp32::Program>(&k32, dg, source, opts)?;
        Ok((r.map_states(|d| ::runtime::cpu::narrow::widen(&d)), true))
    }
}
