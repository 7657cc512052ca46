//! A program's kernels emulated on the host (CI without a GPU): the same kernel
//! bodies through the emulator's launcher ([`crate::gpu::launch`]), the same
//! loops as the device (`driver`, [`crate::gpu::direction`], the resident
//! kernel's emulation).

use std::time::Instant;

use kernels_rs::entry::{self, RawLevel};
use kernels_rs::ThreadCtx;

use super::initial_stamps;
use crate::error::{Error, Result};
use crate::gpu::direction::{self, HostDirection};
use crate::gpu::driver::{self, LevelExec};
use crate::gpu::launch::{emulated_grid, launch, SharedPtr};
use crate::gpu::options::BfsKernel;
use crate::gpu::program_api::{
    bucket_delta, check_emulated, check_run, direction_mode, relax_unit, source_state,
    tail_handover, GpuProgram, ProgramOptions, ProgramRun,
};
use crate::graph::{Csr, Graph};
use crate::program::VertexProgram;

/// A level's raw arguments shared by emulated threads.
struct SharedLevel<P: kernels_rs::Program>(RawLevel<P>);
// SAFETY: as for `SharedPtr`: the kernels access the pointees atomically or disjointly.
unsafe impl<P: kernels_rs::Program> Sync for SharedLevel<P> {}
impl<P: kernels_rs::Program> SharedLevel<P> {
    fn get(&self) -> RawLevel<P> {
        self.0
    }
}

/// [`LevelExec`] over host buffers: the program's kernel bodies, emulated.
struct HostProgramExec<'a, P: GpuProgram> {
    csr: &'a Csr<<P as VertexProgram>::Weight>,
    opts: &'a ProgramOptions,
    max_blocks: u32,
    state: Vec<<P as VertexProgram>::State>,
    stamps: [Vec<u32>; 2],
    sv: Vec<u32>,
    flags: Vec<u32>,
}

impl<P: GpuProgram> HostProgramExec<'_, P> {
    fn n(&self) -> u64 {
        self.csr.num_vertices() as u64
    }
    fn grid(&self, work: u64) -> u32 {
        emulated_grid(work, self.opts.block_size, self.max_blocks)
    }
}

impl<P: GpuProgram> LevelExec for HostProgramExec<'_, P> {
    fn init(&mut self, source: u32, ring: u32) -> Result<()> {
        self.flags = vec![0; ring as usize];
        self.flags[0] = 1;
        let n = self.n();
        let state = SharedPtr(self.state.as_mut_ptr());
        launch(self.grid(n), self.opts.block_size, |t: ThreadCtx| {
            // SAFETY: `n`-element host buffer written through atomics; no parents.
            unsafe { entry::init::<P>(t, n, source, state.get(), std::ptr::null_mut()) }
        });
        Ok(())
    }

    fn build_sv(&mut self) -> Result<()> {
        let n = self.n();
        let offsets = SharedPtr(self.csr.offsets().as_ptr() as *mut u64);
        let (sv, nchunks) = (SharedPtr(self.sv.as_mut_ptr()), self.sv.len() as u64);
        let mec = self.opts.edges_per_item();
        launch(self.grid(n), self.opts.block_size, |t| {
            // SAFETY: n + 1 offsets (read only), `nchunks` SV slots (atomics).
            unsafe { entry::build_sv(t, n, offsets.get(), mec, sv.get(), nchunks) }
        });
        Ok(())
    }

    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
        let n = self.n();
        let balanced = self.opts.kernel == BfsKernel::Balanced;
        let weights = crate::gpu::program_api::host_weights::<P>(self.csr);
        let (a, b) = self.stamps.split_at_mut(1);
        let (cur, next) = if iter % 2 == 0 {
            (a[0].as_mut_ptr(), b[0].as_mut_ptr())
        } else {
            (b[0].as_mut_ptr(), a[0].as_mut_ptr())
        };
        let raw = SharedLevel(RawLevel::<P> {
            n,
            m: self.csr.num_edges(),
            offsets: self.csr.offsets().as_ptr(),
            targets: self.csr.targets().as_ptr(),
            weights,
            state: self.state.as_mut_ptr(),
            parents: std::ptr::null_mut(),
            frontier_current: cur,
            frontier_next: next,
            flags: self.flags.as_mut_ptr(),
            nflags: self.flags.len() as u32,
            slot_in,
            slot_out,
            iter,
        });
        let (sv, nchunks, mec) = (
            SharedPtr(self.sv.as_mut_ptr()),
            self.sv.len() as u64,
            self.opts.edges_per_item(),
        );
        let work = if balanced { nchunks } else { n };
        launch(self.grid(work), self.opts.block_size, |t| {
            let a = raw.get();
            // SAFETY: the RawLevel's pointers are live host buffers of the lengths
            // the entry contract names; state, stamps and flags are only touched
            // through atomics, the rest is read only during the launch.
            unsafe {
                if balanced {
                    entry::balanced::<P>(t, a, sv.get(), nchunks, mec);
                } else {
                    entry::naive::<P>(t, a);
                }
            }
        });
        Ok(())
    }

    fn read_flags(&mut self) -> Result<Vec<u32>> {
        Ok(self.flags.clone())
    }
}

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
    let nchunks = match opts.kernel {
        BfsKernel::Balanced => {
            kernels_rs::skeleton::num_chunks(csr.num_edges(), opts.edges_per_item())
        }
        BfsKernel::Naive => 0,
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
            let kernel = crate::gpu::auto::without_graph::<P>();
            let opts = ProgramOptions {
                kernel,
                handover: crate::gpu::auto::handover_for(kernel),
                ..*opts
            };
            return emulate::<P>(csr, source, &opts, max_blocks);
        }
    } as usize;
    if opts.parents {
        return Err(Error::InvalidArgument(
            "parents are only recorded by the direction kernel".into(),
        ));
    }
    let mut exec = HostProgramExec::<P> {
        csr,
        opts,
        max_blocks: max_blocks.max(1),
        state: vec![<<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed(); n],
        stamps: [initial_stamps::<P>(n, source), vec![0; n]],
        sv: vec![0; nchunks],
        flags: Vec::new(),
    };
    let t0 = Instant::now();
    let (stats, stopped) = driver::run_levels_until(
        &mut exec,
        source,
        opts.kernel == BfsKernel::Balanced,
        opts.levels_per_sync,
        n as u64,
        tail_handover::<P>(opts),
    )?;
    let tail = stopped.then(|| {
        let next = &exec.stamps[(stats.launched % 2) as usize];
        let queue = stamped_queue(next, stats.launched + 1, max_blocks);
        resident_grid(max_blocks).after_levels::<P>(csr, &mut exec.state, None, &queue)
    });
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let run = ProgramRun {
        states: exec.state,
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
    let (log, launched, syncs) = {
        let mut exec = HostDirection::<P>::new(
            csr.offsets(),
            csr.targets(),
            weights,
            incoming.flatten(),
            opts.edges_per_item(),
            opts.block_size,
            max_blocks,
            &mut states,
            parents.as_deref_mut(),
        )?;
        let src = P::NEEDS_SOURCE.then_some(source);
        match bucket_delta::<P>(opts) {
            Some(delta) => {
                let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                let (log, syncs) = direction::drive_buckets_levels(
                    &mut exec,
                    n as u64,
                    src,
                    p0,
                    delta,
                    opts.levels_per_sync,
                )?;
                (log, exec.level_ms.len() as u32, syncs)
            }
            None => {
                let uniform = pull.then(|| source_state::<P>(source));
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
                let launched = exec.level_ms.len() as u32;
                if stopped {
                    queue = Some(exec.frontier_ids());
                }
                (log, launched, syncs)
            }
        }
    };
    let tail = queue.map(|q| {
        resident_grid(max_blocks).after_levels::<P>(csr, &mut states, parents.as_deref_mut(), &q)
    });
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
/// for a handover), listed by the device's kernel body
/// ([`kernels_rs::frontier::stamped_queue`]) on an emulated grid.
fn stamped_queue(stamps: &[u32], stamp: u32, max_blocks: u32) -> Vec<u32> {
    let n = stamps.len() as u64;
    let mut queue = vec![0u32; stamps.len()];
    let mut len = 0u32;
    let (s, q, l) = (
        SharedPtr(stamps.as_ptr() as *mut u32),
        SharedPtr(queue.as_mut_ptr()),
        SharedPtr(&mut len as *mut u32),
    );
    let block = 64;
    launch(emulated_grid(n, block, max_blocks), block, |t| {
        // SAFETY: `stamps` and `queue` hold n words and `len` one, all alive for
        // the launch; the body reads the stamps, counts in `len` atomically and
        // writes each queue slot it reserved once.
        unsafe { kernels_rs::frontier::stamped_queue(t, n, s.get(), stamp, q.get(), l.get()) }
    });
    queue.truncate(len as usize);
    queue
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
