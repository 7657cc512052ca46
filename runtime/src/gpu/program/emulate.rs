//! A program's kernels emulated on the host (CI without a GPU): the same kernel
//! bodies through the emulator's launcher ([`crate::gpu::launch`]), the same
//! loops as the device (`driver`, [`crate::gpu::direction`], the resident
//! kernel's emulation).

use std::time::Instant;

use super::program_levels;
use crate::error::{Error, Result};
use crate::gpu::direction::{self, DirGraph, DirectionKernels, DirectionRun};
use crate::gpu::launcher::{host_graph_args, Arg, Grid, HostLauncher, Launcher};
use crate::gpu::levels::LevelKernels;
use crate::gpu::options::BfsKernel;
use crate::gpu::program_api::{
    bucket_delta, check_emulated, check_run, direction_mode, relax_unit, scan_levels, source_state,
    tail_handover, GpuProgram, ProgramOptions, ProgramRun,
};
use crate::graph::{Csr, Graph};
use crate::program::VertexProgram;

/// Runs `P`'s GPU kernels on the host over a simulated grid of at most
/// `max_blocks` blocks: the same kernel bodies and the same driver loop as the
/// device, so CI checks every program's GPU path without a GPU.
pub fn emulate<P: GpuProgram>(
    csr: &Csr<<P as VertexProgram>::Weight>,
    source: u32,
    opts: &ProgramOptions,
    max_blocks: u32,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    opts.validate()?;
    let n = csr.num_vertices();
    check_run::<P>(n as u64, source, csr.weights().is_some())?;
    if P::WEIGHTED
        && std::mem::size_of::<<P as kernels_rs::Program>::Weight>()
            != std::mem::size_of::<<P as VertexProgram>::Weight>()
    {
        return Err(Error::InvalidArgument(format!(
            "program `{}`: GPU and host weight types differ",
            P::NAME
        )));
    }
    match opts.kernel {
        BfsKernel::Balanced | BfsKernel::Naive => {}
        // In-edges unknown from a bare CSR: top-down levels only.
        BfsKernel::Direction => {
            return emulate_direction_csr::<P>(csr, None, source, opts, max_blocks)
        }
        BfsKernel::Resident => {
            let g = resident_grid(max_blocks);
            return crate::gpu::resident::emulate_resident::<P>(
                csr,
                source,
                opts,
                g.blocks,
                g.threads,
                g.smem_words,
                g.small,
            );
        }
        BfsKernel::Tiles => {
            return crate::gpu::tiles::emulate_tiles::<P>(
                csr,
                source,
                opts,
                max_blocks.clamp(1, 4),
                4,
                crate::gpu::tiles::RowRoom::Wide,
            )
        }
        BfsKernel::Auto => {
            let kernel = crate::gpu::auto::without_graph::<P>(csr.num_edges());
            let opts = ProgramOptions {
                kernel,
                handover: crate::gpu::auto::handover_for(kernel),
                ..*opts
            };
            return emulate::<P>(csr, source, &opts, max_blocks);
        }
    }
    if opts.parents {
        return Err(Error::InvalidArgument(
            "parents are only recorded by the direction kernel".into(),
        ));
    }
    let mut state = vec![<<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed(); n];
    let l = HostLauncher::new(max_blocks);
    let names = ["init", "build_sv", "naive", "balanced"];
    let args = host_graph_args(csr, crate::gpu::program_api::host_weights::<P>(csr) as u64);
    let addr = state.as_mut_ptr() as u64;
    let kernels = LevelKernels::of::<P>(names, None);
    let (exec, stats, stopped, t0) = program_levels::<_, P>(&l, kernels, args, addr, source, opts)?;
    // The stamps are read (no launch runs now) before the run's buffers go.
    let handed = stopped.then(|| exec.stamps(stats.launched)).transpose()?;
    drop(exec);
    let tail = handed
        .map(|next| {
            let queue = stamped_queue(&next, stats.launched + 1, max_blocks)?;
            resident_grid(max_blocks).after_levels::<P>(csr, &mut state, None, &queue)
        })
        .transpose()?;
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let run = ProgramRun {
        states: state,
        num_levels: stats.num_levels,
        launched_levels: stats.launched,
        syncs: stats.syncs,
        time_ms,
        wall_ms: time_ms,
        parents: None,
        directions: Vec::new(),
        resident: None,
        tiles: None,
    };
    Ok(run.with_tail(tail))
}

/// [`emulate`] with the direction kernel on a [`Graph`], so that bottom-up levels
/// can read in-edges (the CSR itself when symmetric, else the transpose).
pub fn emulate_direction<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
    opts: &ProgramOptions,
    max_blocks: u32,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    check_emulated::<P>(g, source, opts)?;
    let incoming = (!g.is_symmetric()).then(|| (g.csc().offsets(), g.csc().targets()));
    emulate_direction_csr::<P>(g.csr(), Some(incoming), source, opts, max_blocks)
}

/// `incoming`: in-edges, `Some(None)` = the CSR itself, `None` = unknown.
fn emulate_direction_csr<P: GpuProgram>(
    csr: &Csr<<P as VertexProgram>::Weight>,
    incoming: Option<Option<(&[u64], &[u32])>>,
    source: u32,
    opts: &ProgramOptions,
    max_blocks: u32,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    let pull = direction_mode::<P>(opts, incoming.is_some())?;
    let n = csr.num_vertices();
    let weights = crate::gpu::program_api::host_weights::<P>(csr);
    let mut states = vec![<<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed(); n];
    let mut parents = opts.parents.then(|| vec![0u32; n]);
    let t0 = Instant::now();
    let mut queue = None;
    let (log, launched, syncs) =
        {
            let graph = DirGraph::host(csr.offsets(), csr.targets(), weights as u64, incoming);
            let pptr = parents.as_mut().map_or(0, |p| p.as_mut_ptr() as u64);
            let mut exec = DirectionRun::new(
                HostLauncher::new(max_blocks),
                DirectionKernels::host::<P>(P::NAME),
                graph,
                opts.edges_per_item(),
                opts.block_size,
                states.as_mut_ptr() as u64,
                pptr,
                std::mem::size_of::<<P as VertexProgram>::State>(),
            )?;
            exec.heuristic = opts.heuristic;
            // As the device runs one GPU's batches (recorded, then replayed).
            exec.graphs = true;
            let src = P::NEEDS_SOURCE.then_some(source);
            match bucket_delta::<P>(opts) {
                Some(delta) => {
                    let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                    let (log, syncs) = direction::drive_buckets_levels::<
                        <P as VertexProgram>::State,
                    >(
                        &mut exec, n as u64, src, p0, delta, opts.levels_per_sync
                    )?;
                    (log, exec.levels.len() as u32, syncs)
                }
                None => {
                    let uniform = pull.then(|| source_state::<P>(source));
                    if scan_levels::<P>(opts, pull) {
                        exec.enable_scan()?;
                    }
                    let (log, syncs, stopped) = direction::drive_levels_until(
                        &mut exec,
                        n as u64,
                        csr.num_edges(),
                        src,
                        uniform,
                        relax_unit::<P>,
                        opts.levels_per_sync,
                        tail_handover::<P>(opts),
                    )?;
                    let launched = exec.levels.len() as u32;
                    if stopped {
                        queue = Some(exec.frontier_ids()?);
                    }
                    (log, launched, syncs)
                }
            }
        };
    let tail = queue
        .map(|q| {
            resident_grid(max_blocks).after_levels::<P>(
                csr,
                &mut states,
                parents.as_deref_mut(),
                &q,
            )
        })
        .transpose()?;
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let run = ProgramRun {
        states,
        num_levels: log.len() as u32,
        launched_levels: launched,
        syncs,
        time_ms,
        wall_ms: time_ms,
        parents,
        directions: log,
        resident: None,
        tiles: None,
    };
    Ok(run.with_tail(tail))
}

/// The vertices whose stamp is `stamp` (the frontier a level loop stopped at
/// for a handover), listed by the device's kernel
/// ([`crate::gpu::resident::stamped_queue_kernel`]) on an emulated grid.
fn stamped_queue(stamps: &[u32], stamp: u32, max_blocks: u32) -> Result<Vec<u32>> {
    let l = HostLauncher::new(max_blocks);
    let n = stamps.len() as u64;
    let s = l.upload(stamps, "frontier stamps")?;
    let queue = l.zeros::<u32>(stamps.len(), "queue")?;
    let len = l.zeros::<u32>(1, "queue length")?;
    let a = |addr: u64| Arg::from(addr);
    let args = [
        n.into(),
        a(HostLauncher::addr(&s)),
        stamp.into(),
        a(HostLauncher::addr(&queue)),
        a(HostLauncher::addr(&len)),
    ];
    let k = crate::gpu::resident::stamped_queue_kernel(None);
    // SAFETY: `vertex_stamped_queue(n, stamps, stamp, queue, len)`: `stamps`
    // and `queue` hold n words, `len` one.
    unsafe { l.launch(&k, Grid::Cover(n), 64, &args)? };
    let mut out = l.read(&queue, "queue")?;
    out.truncate(l.read(&len, "queue length")?[0] as usize);
    Ok(out)
}

/// The emulated resident grid: small, for `--kernel resident` runs and for the
/// rest of a run after a handover.
fn resident_grid(max_blocks: u32) -> crate::gpu::resident::EmulatedGrid {
    crate::gpu::resident::EmulatedGrid {
        blocks: max_blocks.clamp(1, 4),
        threads: 4,
        smem_words: 64,
        small: 16,
    }
}
