//! A program's kernels on the device: the seed 000 level kernels through
//! `driver` (`LevelRun`), the direction-optimizing loop through
//! `DirectionRun`, both on the device's `Launcher`, and the resident kernel
//! ([`crate::gpu::resident`]), picked by [`ProgramOptions::kernel`].

use std::time::Instant;

use super::program_levels;
use crate::error::{Error, Result};
use crate::gpu::cuda::{DevBuf, Gpu};
use crate::gpu::device::{Device, DeviceGraph};
use crate::gpu::direction::{self, DirGraph, DirectionRun};
use crate::gpu::driver;
use crate::gpu::launcher::{DeviceLauncher, Launcher};
use crate::gpu::levels::{LevelKernels, LevelRun};
use crate::gpu::options::BfsKernel;
use crate::gpu::program_api::{
    bucket_delta, check_run, direction_mode, relax_unit, scan_levels, source_state, tail_handover,
    GpuProgram, ProgramKernels, ProgramOptions, ProgramRun,
};
use crate::gpu::resident::FirstQueue;
use crate::program::VertexProgram;

impl Device {
    /// Runs `P` from `source` on an uploaded graph (uploaded with weights if `P`
    /// reads them).
    pub fn run_program<P: GpuProgram>(
        &self,
        k: &ProgramKernels,
        g: &DeviceGraph,
        source: u32,
        opts: &ProgramOptions,
    ) -> Result<ProgramRun<<P as VertexProgram>::State>> {
        opts.validate()?;
        check_run::<P>(g.n, source, g.weights.is_some())?;
        match opts.kernel {
            BfsKernel::Direction => return self.run_program_direction::<P>(k, g, source, opts),
            BfsKernel::Resident => return self.run_program_resident::<P>(k, g, source, opts),
            BfsKernel::Tiles => return self.run_program_tiles::<P>(k, g, source, opts),
            BfsKernel::Auto => {
                let kernel = crate::gpu::auto::without_graph::<P>(g.num_edges());
                let opts = ProgramOptions {
                    kernel,
                    handover: crate::gpu::auto::handover_for(kernel),
                    ..*opts
                };
                return self.run_program::<P>(k, g, source, &opts);
            }
            BfsKernel::Naive | BfsKernel::Balanced => {}
        }
        if opts.parents {
            return Err(Error::InvalidArgument(
                "parents are only recorded by the direction kernel".into(),
            ));
        }
        let n = g.n as usize;
        let state_size = std::mem::size_of::<<P as VertexProgram>::State>();
        let ring = driver::ring_size(opts.levels_per_sync);
        let balanced = opts.kernel == BfsKernel::Balanced;
        let extra = LevelRun::<DeviceLauncher>::bytes(
            g.n,
            g.m,
            balanced,
            opts.edges_per_item(),
            ring,
            true,
        );
        self.gpu.check_fits(
            &format!("`{}` state, frontier stamps and SV", P::NAME),
            DevBuf::<u8>::bytes_for(n * state_size) + extra,
        )?;
        let l = DeviceLauncher { gpu: &self.gpu };
        let names = [&k.names[0], &k.names[3], &k.names[1], &k.names[2]].map(String::as_str);
        let devices = [&k.init, &k.build_sv, &k.naive, &k.balanced];
        let kernels = LevelKernels::of::<P>(names, Some(devices));
        let state = l.zeros::<u8>(n * state_size, "program state")?;
        let (mut exec, stats, stopped, wall) =
            program_levels::<_, P>(&l, kernels, g.program_args(), state.ptr, source, opts)?;
        let mut tail = None;
        if stopped {
            // The last level's activations carry stamp `launched + 1` in the
            // array of its parity (see `kernels_rs::Flags`).
            let first = FirstQueue::Stamped {
                stamps: exec.stamps_addr(stats.launched).unwrap_or(0),
                stamp: stats.launched + 1,
            };
            let (t, end) = self.resident_after_levels::<P>(k, g, state.ptr, 0, first)?;
            exec.marks.end = Some(end);
            tail = Some(t);
        }
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let (Some(a), Some(b)) = (&exec.marks.start, &exec.marks.end) else {
            return Err(Error::Cuda {
                call: "program timing".into(),
                msg: "no events were recorded".into(),
            });
        };
        let time_ms = Gpu::elapsed_ms(a, b)?;
        drop(exec);
        let (states, _) = self.download_results::<P>(&state, None, n)?;
        let run = ProgramRun {
            states,
            num_levels: stats.num_levels,
            launched_levels: stats.launched,
            syncs: stats.syncs,
            time_ms,
            wall_ms,
            parents: None,
            directions: Vec::new(),
            resident: None,
            tiles: None,
        };
        Ok(run.with_tail(tail))
    }

    /// [`BfsKernel::Direction`] for a program: see [`super::direction`].
    fn run_program_direction<P: GpuProgram>(
        &self,
        k: &ProgramKernels,
        g: &DeviceGraph,
        source: u32,
        opts: &ProgramOptions,
    ) -> Result<ProgramRun<<P as VertexProgram>::State>> {
        let pull = direction_mode::<P>(opts, g.incoming().is_some())?;
        let scans = scan_levels::<P>(opts, pull);
        let n = g.n as usize;
        let state_size = std::mem::size_of::<<P as VertexProgram>::State>();
        let chunk = opts.edges_per_item();
        let parents_bytes = if opts.parents {
            DevBuf::<u32>::bytes_for(n)
        } else {
            0
        };
        self.gpu.check_fits(
            &format!("`{}` state, frontier bitmaps and work list", P::NAME),
            DevBuf::<u8>::bytes_for(n * state_size)
                + parents_bytes
                + DirectionRun::<DeviceLauncher>::bytes(g.n, g.m, chunk, state_size)
                + if scans {
                    DirectionRun::<DeviceLauncher>::scan_bytes(g.m)
                } else {
                    0
                },
        )?;
        let state = self.gpu.alloc::<u8>(n * state_size, "program state")?;
        let parents = match opts.parents {
            true => Some(self.gpu.alloc::<u32>(n, "parents")?),
            false => None,
        };
        let pptr = parents.as_ref().map_or(0, |p| p.ptr);
        let mut exec = DirectionRun::new(
            DeviceLauncher { gpu: &self.gpu },
            k.direction::<P>(self),
            DirGraph::of(g),
            chunk,
            opts.block_size,
            state.ptr,
            pptr,
            state_size,
        )?;
        exec.heuristic = opts.heuristic;
        // One GPU: each batch of planned levels is one CUDA graph.
        exec.graphs = true;
        self.gpu.sync("program buffer allocation")?;
        let wall = Instant::now();
        let src = P::NEEDS_SOURCE.then_some(source);
        let mut tail = None;
        let (log, syncs) = match bucket_delta::<P>(opts) {
            Some(delta) => {
                let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                direction::drive_buckets_levels::<<P as VertexProgram>::State>(
                    &mut exec,
                    g.n,
                    src,
                    p0,
                    delta,
                    opts.levels_per_sync,
                )?
            }
            None => {
                let uniform = pull.then(|| source_state::<P>(source));
                if scans {
                    exec.enable_scan()?;
                }
                let (log, syncs, stopped) = direction::drive_levels_until(
                    &mut exec,
                    g.n,
                    g.m,
                    src,
                    uniform,
                    relax_unit::<P>,
                    opts.levels_per_sync,
                    tail_handover::<P>(opts),
                )?;
                if stopped {
                    let queue = exec.frontier_ids()?;
                    let first = FirstQueue::Host(&queue);
                    let (stats, end) =
                        self.resident_after_levels::<P>(k, g, state.ptr, pptr, first)?;
                    exec.end = Some(end);
                    tail = Some(stats);
                }
                (log, syncs)
            }
        };
        let launched = exec.levels.len() as u32;
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let (Some(a), Some(b)) = (&exec.start, &exec.end) else {
            return Err(Error::Cuda {
                call: "program timing".into(),
                msg: "no events were recorded".into(),
            });
        };
        let time_ms = Gpu::elapsed_ms(a, b)?;
        let (states, parents) = self.download_results::<P>(&state, parents.as_ref(), n)?;
        let run = ProgramRun {
            states,
            num_levels: log.len() as u32,
            launched_levels: launched,
            syncs,
            time_ms,
            wall_ms,
            parents,
            directions: log,
            resident: None,
            tiles: None,
        };
        Ok(run.with_tail(tail))
    }
}
