//! A program's kernels on the device: the seed 000 level kernels through
//! `driver` (`GpuProgramExec`), the direction-optimizing loop through
//! [`GpuDirection`], and the resident kernel ([`crate::gpu::resident`]), picked
//! by [`ProgramOptions::kernel`].

use std::time::Instant;

use cudarc::driver::{CudaEvent, CudaFunction, PushKernelArg};

use super::initial_stamps;
use crate::error::{Error, Result};
use crate::gpu::cuda::{cuda_err, DevBuf, Gpu};
use crate::gpu::device::{Device, DeviceGraph};
use crate::gpu::direction::{self, DirectionKernels, GpuDirection};
use crate::gpu::driver::{self, LevelExec};
use crate::gpu::options::BfsKernel;
use crate::gpu::program_api::{
    bucket_delta, check_run, direction_mode, relax_unit, source_state, tail_handover, GpuProgram,
    ProgramKernels, ProgramOptions, ProgramRun,
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
                let kernel = crate::gpu::auto::without_graph::<P>();
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
        let balanced = opts.kernel == BfsKernel::Balanced;
        let nchunks = if balanced {
            kernels_rs::skeleton::num_chunks(g.m, opts.edges_per_item())
        } else {
            0
        };
        let ring = driver::ring_size(opts.levels_per_sync) as usize;
        let bytes = DevBuf::<u8>::bytes_for(n * state_size)
            + 2 * DevBuf::<u32>::bytes_for(n)
            + DevBuf::<u32>::bytes_for(nchunks as usize)
            + DevBuf::<u32>::bytes_for(ring);
        self.gpu.check_fits(
            &format!("`{}` state, frontier stamps and SV", P::NAME),
            bytes,
        )?;
        let stamps = initial_stamps::<P>(n, source);
        let mut exec = GpuProgramExec {
            gpu: &self.gpu,
            k,
            g,
            opts,
            state: self.gpu.alloc::<u8>(n * state_size, "program state")?,
            stamps: [
                self.gpu.upload(&stamps, "frontier stamps")?,
                self.gpu.alloc::<u32>(n, "frontier stamps")?,
            ],
            sv: self.gpu.alloc::<u32>(nchunks as usize, "SV")?,
            nchunks,
            flags: self.gpu.alloc::<u32>(ring, "level flags")?,
            start: None,
            last: None,
        };
        drop(stamps);
        self.gpu.sync("program buffer allocation")?;
        let wall = Instant::now();
        let (stats, stopped) = driver::run_levels_until(
            &mut exec,
            source,
            balanced,
            opts.levels_per_sync,
            g.n,
            tail_handover::<P>(opts),
        )?;
        let mut tail = None;
        if stopped {
            // The last level's activations carry stamp `launched + 1` in the
            // array of its parity (see `kernels_rs::Flags`).
            let first = FirstQueue::Stamped {
                stamps: exec.stamps[(stats.launched % 2) as usize].ptr,
                stamp: stats.launched + 1,
            };
            let (t, end) = self.resident_after_levels::<P>(k, g, exec.state.ptr, 0, first)?;
            exec.last = Some(end);
            tail = Some(t);
        }
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let (Some(a), Some(b)) = (&exec.start, &exec.last) else {
            return Err(Error::Cuda {
                call: "program timing".into(),
                msg: "no events were recorded".into(),
            });
        };
        let time_ms = Gpu::elapsed_ms(a, b)?;
        let (states, _) = self.download_results::<P>(&exec.state, None, n)?;
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
                + GpuDirection::bytes(g.n, g.m, chunk, state_size),
        )?;
        let state = self.gpu.alloc::<u8>(n * state_size, "program state")?;
        let parents = match opts.parents {
            true => Some(self.gpu.alloc::<u32>(n, "parents")?),
            false => None,
        };
        let dk = DirectionKernels {
            init: &k.init,
            td_chunks: &k.td_chunks,
            td_select: &k.td_select,
            td_relax: &k.td_relax,
            bottom_up: &k.bottom_up,
            plan: &self.k.plan,
            plan_pass: &self.k.plan_pass,
            name: P::NAME,
        };
        let pptr = parents.as_ref().map_or(0, |p| p.ptr);
        let mut exec = GpuDirection::new(
            &self.gpu,
            dk,
            g,
            chunk,
            opts.block_size,
            state.ptr,
            pptr,
            state_size,
        )?;
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

/// [`LevelExec`] on the GPU for a program's kernels.
struct GpuProgramExec<'a> {
    gpu: &'a Gpu,
    k: &'a ProgramKernels,
    g: &'a DeviceGraph,
    opts: &'a ProgramOptions,
    state: DevBuf<u8>,
    stamps: [DevBuf<u32>; 2],
    sv: DevBuf<u32>,
    nchunks: u64,
    flags: DevBuf<u32>,
    start: Option<CudaEvent>,
    last: Option<CudaEvent>,
}

impl GpuProgramExec<'_> {
    fn launch(&self, f: &CudaFunction, name: &str, work: u64, args: &[&u64]) -> Result<()> {
        let cfg = Gpu::grid_for(work, self.opts.block_size);
        let mut b = self.gpu.stream.launch_builder(f);
        for a in args {
            b.arg(*a);
        }
        // SAFETY: used for `build_sv(n, offsets, max_edge_count, sv, nchunks)`, all
        // u64, as in kernels_rs::entry::build_sv; pointers into live buffers of the
        // documented lengths.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(cuda_err(&format!("cuLaunchKernel({name})")))
    }
}

impl LevelExec for GpuProgramExec<'_> {
    fn init(&mut self, source: u32, ring: u32) -> Result<()> {
        let mut ring_init = vec![0u32; ring as usize];
        ring_init[0] = 1;
        self.gpu.write(&mut self.flags, &ring_init, "level flags")?;
        self.start = Some(self.gpu.record()?);
        let (n, state, null) = (self.g.n, self.state.ptr, 0u64);
        let cfg = Gpu::grid_for(n, self.opts.block_size);
        let mut b = self.gpu.stream.launch_builder(&self.k.init);
        b.arg(&n).arg(&source).arg(&state).arg(&null);
        // SAFETY: `init(n: u64, source: u32, state: *mut State, parents: *mut u32)`
        // as in kernels_rs::entry::init; `state` holds n states, parents is null.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(cuda_err(&format!("cuLaunchKernel({})", self.k.names[0])))
    }

    fn build_sv(&mut self) -> Result<()> {
        let (n, offsets, mec, sv, nchunks) = (
            self.g.n,
            self.g.offsets.ptr,
            self.opts.edges_per_item(),
            self.sv.ptr,
            self.nchunks,
        );
        self.launch(
            &self.k.build_sv,
            &self.k.names[3],
            n,
            &[&n, &offsets, &mec, &sv, &nchunks],
        )
    }

    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
        let balanced = self.opts.kernel == BfsKernel::Balanced;
        let (f, name) = if balanced {
            (&self.k.balanced, &self.k.names[2])
        } else {
            (&self.k.naive, &self.k.names[1])
        };
        let n = self.g.n;
        let (state, parents) = (self.state.ptr, 0u64);
        let cur = self.stamps[(iter % 2) as usize].ptr;
        let next = self.stamps[((iter + 1) % 2) as usize].ptr;
        let (flags, nflags) = (self.flags.ptr, self.flags.len as u32);
        let (sv, nchunks, mec) = (self.sv.ptr, self.nchunks, self.opts.edges_per_item());
        let work = if balanced { nchunks } else { n };
        let cfg = Gpu::grid_for(work, self.opts.block_size);
        let mut b = self.gpu.stream.launch_builder(f);
        self.g
            .weighted_csr_args(&mut b)
            .arg(&state)
            .arg(&parents)
            .arg(&cur)
            .arg(&next)
            .arg(&flags)
            .arg(&nflags)
            .arg(&slot_in)
            .arg(&slot_out)
            .arg(&iter);
        if balanced {
            b.arg(&sv).arg(&nchunks).arg(&mec);
        }
        // SAFETY: the parameter lists of kernels_rs::ptx_kernels! (naive: 14,
        // balanced: 14 + sv, nchunks, max_edge_count), all pointers into live
        // buffers of the documented lengths (weights: m, or null when unweighted).
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(cuda_err(&format!("cuLaunchKernel({name})")))
    }

    fn read_flags(&mut self) -> Result<Vec<u32>> {
        let mut host = vec![0u32; self.flags.len];
        self.gpu
            .stream
            .memcpy_dtoh(&self.flags.slice.slice(0..self.flags.len), &mut host[..])
            .map_err(cuda_err("cuMemcpyDtoH(level flags)"))?;
        self.last = Some(self.gpu.record()?);
        self.gpu.sync("program level kernels")?;
        Ok(host)
    }
}
