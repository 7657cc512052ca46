//! The host emulator of the gather runner: the same executor (`GatherRun`) and
//! round loops as the device, over the emulator's launcher, so CPU-only tests
//! cover the GPU's logic.

use super::run::{host_kernels, run_rounds, RunGraph};
use super::{chunk_owners, GatherGpuOptions, GpuGatherRun, Ptrs};
use crate::error::Result;
use crate::gather::{weights_of, GatherOptions, GatherProgram};
use crate::gpu::launcher::HostLauncher;
use crate::graph::{Graph, Weight};

/// Runs the program's GPU kernels on the host (see [`crate::gpu::emulate`]): the same
/// kernel bodies and round loop as the device, over a simulated grid of at most
/// `max_blocks` blocks (so grid-stride loops run too).
pub fn emulate<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
) -> Result<GpuGatherRun<P::State>> {
    emulate_inner::<P, W>(g, opts, gopts, max_blocks, None)
}

/// [`emulate`] from the caller's states (see [`crate::gpu::Device::run_gather_from`]).
pub fn emulate_from<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
    initial: &[P::State],
) -> Result<GpuGatherRun<P::State>> {
    emulate_inner::<P, W>(g, opts, gopts, max_blocks, Some(initial))
}

fn emulate_inner<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
    initial: Option<&[P::State]>,
) -> Result<GpuGatherRun<P::State>> {
    gopts.validate()?;
    let n = g.num_vertices();
    crate::gather::check_initial::<P>(initial, n)?;
    opts.rounds_only("the GPU runs Jacobi rounds")?;
    let r = opts.resolve::<P>(n)?;
    let (csr, csc) = (g.csr(), g.csc());
    let w = |o: Option<&[P::Weight]>| o.map_or(0, |w| w.as_ptr() as u64);
    let out_w = w(weights_of::<P, W>(csr)?);
    let in_w = w(weights_of::<P, W>(csc)?);
    let sv_in = chunk_owners(csc.offsets(), gopts.max_edge_count);
    let sv_out = chunk_owners(csr.offsets(), gopts.max_edge_count);
    let addr = |s: &[u32]| (s.as_ptr() as u64, s.len() as u64);
    let graph = RunGraph {
        ptr: Ptrs {
            out_offsets: csr.offsets().as_ptr() as u64,
            out_targets: csr.targets().as_ptr() as u64,
            out_weights: out_w,
            in_offsets: csc.offsets().as_ptr() as u64,
            in_sources: csc.targets().as_ptr() as u64,
            in_weights: in_w,
            ..Ptrs::default()
        },
        sv_in: addr(&sv_in),
        sv_out: addr(&sv_out),
        n: n as u64,
        m: g.num_edges(),
        out_len: g.num_edges(),
        in_len: g.num_edges(),
        own: 0..n as u64,
        pad_to: n as u64,
    };
    let l = HostLauncher::new(max_blocks);
    let kernels = host_kernels::<P>();
    run_rounds::<_, P, W>(&l, kernels, graph, g, gopts, &r, initial)
}
