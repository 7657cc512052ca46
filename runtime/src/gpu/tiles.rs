//! The tiled asynchronous traversal ([`kernels_rs::tiles`]) from the host: one
//! cooperative launch per run, on the device or emulated.
//!
//! Each block owns `T = ⌈n / blocks⌉` consecutive vertices and keeps their states
//! and its work ring in shared memory, so the graph must fit the device's
//! shared memory ([`fits`]): about 2.6 M vertices with 32-bit states on an H100.
//! Larger graphs take the [`super::resident`] kernel. [`super::auto`] picks
//! tiles for high-diameter graphs that fit; `--kernel tiles` forces it.
//!
//! The kernel relaxes out of level order, so it needs an idempotent combine,
//! and it records no parents: a run that asks for them, or whose graph does not
//! fit, takes the resident kernel (BFS parents otherwise come from the levels
//! afterwards, as on the CPU).

use std::time::Instant;

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use kernels_rs::tiles::{self as k, Crew, CTL_WORDS};
use kernels_rs::ThreadCtx;

use super::cuda::{cuda_err, DevBuf};
use super::device::{Device, DeviceGraph};
use super::program_api::{
    check_run, GpuProgram, ProgramKernels, ProgramOptions, ProgramRun, TileStats,
};
use crate::error::{Error, Result};
use crate::graph::Csr;
use crate::program::VertexProgram;

/// Threads per block (`VERTEX_TILES_BLOCK` overrides it, a multiple of 32, for
/// measuring).
pub const BLOCK: u32 = 512;

fn block_size() -> u32 {
    std::env::var("VERTEX_TILES_BLOCK")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|b| (32..=1024).contains(b) && b % 32 == 0)
        .unwrap_or(BLOCK)
}

/// Buckets a tile relaxes per round before it exchanges messages
/// (`VERTEX_TILES_SUBROUNDS` overrides it, for measuring). One: on the H200,
/// grid 1000² BFS took 16.2 / 19.2 / 26.4 / 37.5 ms with 1 / 4 / 8 / 16 and
/// SSSP 20.9 / 22.0 / 28.8 / 47.6 ms; a tile that runs ahead of its
/// neighbours' messages relaxes states they then improve.
pub const SUBROUNDS: u32 = 1;

fn subrounds() -> u32 {
    std::env::var("VERTEX_TILES_SUBROUNDS")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&b| (1..=1024).contains(&b))
        .unwrap_or(SUBROUNDS)
}

/// Blocks per multiprocessor (`VERTEX_TILES_PER_SM` overrides the default 1):
/// more, smaller tiles share a multiprocessor's shared memory.
fn blocks_per_sm() -> u32 {
    std::env::var("VERTEX_TILES_PER_SM")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&b| (1..=32).contains(&b))
        .unwrap_or(1)
}

/// The launch shape for `n` vertices of `state_bytes`-byte states on
/// `blocks` blocks: vertices per tile and shared bytes per block.
pub fn shape(n: u64, state_bytes: u64, blocks: u32) -> (u32, u64) {
    let tile = n.div_ceil(u64::from(blocks.max(1))).max(1);
    (tile as u32, k::smem_bytes(tile, state_bytes))
}

/// Whether `n` vertices of `P` fit the shared memory of `multiprocessors`
/// multiprocessors with `per_block` bytes each.
pub fn fits<P: GpuProgram>(n: u64, multiprocessors: u32, per_block: u64) -> bool {
    let state = std::mem::size_of::<<P as VertexProgram>::State>() as u64;
    shape(n, state, multiprocessors * blocks_per_sm()).1 <= per_block
}

/// Shared memory the driver keeps per block (1 KiB on sm_80 and later).
const RESERVED_SMEM: u64 = 1 << 10;

/// The tiled kernel's bucket width over [`super::program::gpu_delta`].
pub const TILES_DELTA_FACTOR: u64 = 1;

/// An H100's multiprocessors, for deciding without a device at hand (the run
/// falls back to the resident kernel where the graph does not fit after all).
pub const H100_MULTIPROCESSORS: u32 = 132;

/// An H100's opt-in shared memory per block (227 KiB), for deciding without
/// a device at hand.
pub const H100_SMEM_PER_BLOCK: u64 = 227 << 10;

/// The kernel's bucket width: the options' Δ for programs with a priority
/// (clamped to the priority's range); 1 otherwise, which for BFS-like programs
/// (ordered by their level) relaxes one level a round, and for programs without
/// an order every pending vertex.
fn kernel_delta<P: GpuProgram>(opts: &ProgramOptions) -> u32 {
    super::program_api::bucket_delta::<P>(opts)
        .map_or(1, |d| d.clamp(1, u64::from(u32::MAX)) as u32)
}

/// The kernel's `every` argument: push every vertex first (programs without a
/// source) rather than the source alone.
fn every<P: GpuProgram>() -> u32 {
    u32::from(!P::NEEDS_SOURCE)
}

fn run_of<S>(states: Vec<S>, stats: TileStats, time_ms: f64, wall_ms: f64) -> ProgramRun<S> {
    ProgramRun {
        states,
        num_levels: stats.rounds,
        launched_levels: 1,
        syncs: 1,
        time_ms,
        wall_ms,
        parents: None,
        directions: Vec::new(),
        resident: None,
        tiles: Some(stats),
    }
}

fn stats_of(ctl: &[u32], tile: u32, blocks: u32, threads: u32) -> TileStats {
    if std::env::var_os("VERTEX_TILES_PROFILE").is_some() {
        let p = &ctl[k::PROFILE..k::PROFILE + k::TIMED];
        let (all_rounds, idle_passes) = (ctl[k::ALL_ROUNDS], ctl[k::IDLE_PASSES]);
        let rounds = f64::from(all_rounds.max(1));
        let idle = f64::from(idle_passes.max(1));
        let per = |i: usize, by: f64| f64::from(p[i]) * 64.0 / by;
        eprintln!(
            "tiles profile (thread 0, cycles; {} rounds, {} idle passes over {blocks} blocks): \
             per round: drain+scan {:.0} (all passes), step {:.0}, list {:.0}, relax {:.0}, \
             send {:.0}; per idle pass: rest {:.0}; per block: busy {:.0}, idle {:.0}",
            all_rounds,
            idle_passes,
            per(0, rounds + idle),
            per(1, rounds),
            per(2, rounds),
            per(3, rounds),
            per(4, rounds),
            per(5, idle),
            (1..5).map(|i| per(i, f64::from(blocks))).sum::<f64>(),
            per(5, f64::from(blocks)),
        );
    }
    TileStats {
        rounds: ctl[k::ROUNDS],
        pops: ctl[k::POPS],
        messages: ctl[k::MESSAGES],
        tile,
        blocks,
        threads_per_block: threads,
        rows_wide: ctl[k::ROWS_WIDE],
        rows_narrow: ctl[k::ROWS_NARROW],
    }
}

impl Device {
    /// Shared memory one block may opt in to on this device.
    fn smem_per_block(&self) -> Result<u64> {
        Ok(self
            .gpu
            .ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(cuda_err("cuDeviceGetAttribute(shared memory per block)"))? as u64)
    }

    /// [`super::BfsKernel::Tiles`]: the whole run in one cooperative launch; the
    /// resident kernel instead when the graph does not fit this device's shared
    /// memory or parents are asked for (the run's statistics say which ran).
    pub(crate) fn run_program_tiles<P: GpuProgram>(
        &self,
        kern: &ProgramKernels,
        g: &DeviceGraph,
        source: u32,
        opts: &ProgramOptions,
    ) -> Result<ProgramRun<<P as VertexProgram>::State>> {
        super::program_api::require_idempotent::<P>("tiled")?;
        let n = g.n as usize;
        let state_size = std::mem::size_of::<<P as VertexProgram>::State>();
        let f = kern.tiles_fn();
        let block = block_size();
        let blocks = blocks_per_sm() * self.gpu.info.multiprocessors.max(1);
        let (tile, smem) = shape(g.n, state_size as u64, blocks);
        let optin = self.smem_per_block()?;
        if opts.parents || smem > optin {
            return self.run_program_resident::<P>(kern, g, source, opts);
        }
        // Give each block all it may have: tiles whose rows fit copy them.
        let per_sm_bytes = self
            .gpu
            .ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
            .map_err(cuda_err(
                "cuDeviceGetAttribute(shared memory per multiprocessor)",
            ))? as u64;
        let share = (per_sm_bytes / u64::from(blocks_per_sm())).saturating_sub(RESERVED_SMEM);
        let smem = smem.max(share.min(optin) / 8 * 8);
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            smem as i32,
        )
        .map_err(cuda_err("cuFuncSetAttribute(tiles shared memory)"))?;
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(block, smem as usize, None)
            .map_err(cuda_err(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor(tiles)",
            ))?;
        if per_sm < blocks_per_sm() {
            return Err(Error::GpuUnavailable(format!(
                "the tiled kernel fits {per_sm} blocks of {block} threads with {smem} bytes \
                 of shared memory per multiprocessor, {} wanted",
                blocks_per_sm()
            )));
        }
        self.gpu.check_fits(
            &format!("`{}` state, inboxes and bits", P::NAME),
            DevBuf::<u8>::bytes_for(n * state_size) + 2 * DevBuf::<u32>::bytes_for(n),
        )?;
        let state = self.gpu.alloc::<u8>(n * state_size, "program state")?;
        let sent = self.gpu.alloc::<u32>(n.div_ceil(32), "tile inbox bits")?;
        let inbox = self.gpu.alloc::<u32>(n, "tile inboxes")?;
        let tails = self.gpu.alloc::<u32>(blocks as usize, "tile inbox tails")?;
        let mut ctl0 = [0u32; CTL_WORDS];
        ctl0[k::OUTSTANDING] = blocks;
        let ctl = self.gpu.upload(&ctl0, "tiles control")?;
        self.gpu.sync("tiles buffer allocation")?;

        let every = every::<P>();
        let delta = kernel_delta::<P>(opts);
        let subs = subrounds();
        let launch = || -> Result<()> {
            let mut b = self.gpu.stream.launch_builder(f);
            g.weighted_csr_args(&mut b)
                .arg(&state.ptr)
                .arg(&sent.ptr)
                .arg(&inbox.ptr)
                .arg(&tails.ptr)
                .arg(&ctl.ptr)
                .arg(&tile)
                .arg(&delta)
                .arg(&subs)
                .arg(&source)
                .arg(&every);
            let cfg = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: smem as u32,
            };
            // SAFETY: the parameter list of kernels_rs::tiles_kernel!, every pointer into
            // a live buffer of the documented length (zeroed bits, inboxes and tails);
            // `tile · blocks ≥ n`; a cooperative launch of a co-resident grid with the
            // tile's shared memory.
            unsafe { b.launch_cooperative(cfg) }
                .map_err(cuda_err("cuLaunchCooperativeKernel(tiles)"))?;
            Ok(())
        };
        let (time_ms, wall_ms) = self.init_and_time(kern, g.n, source, state.ptr, 0, launch)?;
        let mut ctl_out = [0u32; CTL_WORDS];
        self.gpu.download(&ctl, &mut ctl_out, "tiles control")?;
        let (states, _) = self.download_results::<P>(&state, None, n)?;
        Ok(run_of(
            states,
            stats_of(&ctl_out, tile, blocks, block),
            time_ms,
            wall_ms,
        ))
    }
}

/// The emulator's [`Crew`]: one OS thread per simulated GPU thread, a
/// `std::sync::Barrier` per block.
struct HostCrew<'a> {
    ctx: ThreadCtx,
    block: &'a std::sync::Barrier,
}

impl Crew for HostCrew<'_> {
    fn ctx(&self) -> ThreadCtx {
        self.ctx
    }
    fn sync_block(&self) {
        self.block.wait();
    }
    fn fence_block(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn fence_device(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn idle(&self) {
        std::thread::yield_now();
    }
}

/// How much room the emulator leaves each block for a copy of its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowRoom {
    /// None: rows are read from the graph.
    None,
    /// Enough for the narrow copy only (targets within the tile, the lower
    /// half of 4-byte weights), as a GPU has for a 1000² grid's SSSP tiles.
    Narrow,
    /// Enough for the rows as they are.
    Wide,
}

/// Runs the tiled kernel of `P` on the host: `blocks × threads` OS threads
/// (keep it small, e.g. 3 × 4; every thread spins while it waits). `rows`
/// says how much shared memory each block has for a copy of its rows, as a
/// GPU has more or less for the graph's tiles.
pub fn emulate_tiles<P: GpuProgram>(
    csr: &Csr<<P as VertexProgram>::Weight>,
    source: u32,
    opts: &ProgramOptions,
    blocks: u32,
    threads: u32,
    rows: RowRoom,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    let n = csr.num_vertices();
    check_run::<P>(n as u64, source, csr.weights().is_some())?;
    super::program_api::require_idempotent::<P>("tiled")?;
    if opts.parents {
        return super::resident::emulate_resident::<P>(csr, source, opts, blocks, threads, 64, 16);
    }
    if blocks == 0 || threads == 0 {
        return Err(Error::InvalidArgument(
            "the emulated tiled grid needs at least one block of one thread".into(),
        ));
    }
    let state_size = std::mem::size_of::<<P as VertexProgram>::State>() as u64;
    let (tile, smem_bytes) = shape(n as u64, state_size, blocks);
    // The kernel's weight: none for unweighted programs.
    let weight_size = std::mem::size_of::<<P as kernels_rs::Program>::Weight>() as u64;
    let per_edge = match rows {
        RowRoom::None => 0,
        RowRoom::Narrow => 2 + if weight_size == 4 { 2 } else { weight_size },
        RowRoom::Wide => 4 + weight_size,
    };
    // Room for the fullest tile's rows in the asked-for form, no more: a
    // narrow room must not hold the wide copy of that tile.
    let offsets = csr.offsets();
    let tile_edges = (0..u64::from(blocks))
        .map(|b| {
            let lo = (b * u64::from(tile)).min(n as u64) as usize;
            let hi = (lo as u64 + u64::from(tile)).min(n as u64) as usize;
            offsets[hi] - offsets[lo]
        })
        .max()
        .unwrap_or(0);
    let rows_bytes = (u64::from(tile) + 1) * 4 + tile_edges * per_edge + 24;
    let smem_bytes = smem_bytes + if rows == RowRoom::None { 0 } else { rows_bytes };
    let mut states: Vec<<P as VertexProgram>::State> = (0..n as u32)
        .map(|v| <P as VertexProgram>::init(v, source))
        .collect();
    let mut sent = vec![0u32; n.div_ceil(32).max(1)];
    let mut inbox = vec![0u32; n.max(1)];
    let mut tails = vec![0u32; blocks as usize];
    let mut ctl = [0u32; CTL_WORDS];
    ctl[k::OUTSTANDING] = blocks;
    // u64 words: the kernel wants each block's shared memory 8-byte aligned.
    let per_block = smem_bytes.div_ceil(8) as usize;
    let mut smem = vec![0u64; blocks as usize * per_block];
    let weights = super::program_api::host_weights::<P>(csr);
    use super::launch::SharedPtr as S;
    let ptrs = (
        S(csr.offsets().as_ptr() as *mut u64),
        S(csr.targets().as_ptr() as *mut u32),
        S(weights as *mut <P as kernels_rs::Program>::Weight),
        S(states.as_mut_ptr() as *mut <P as kernels_rs::Program>::State),
        S(sent.as_mut_ptr()),
        S(inbox.as_mut_ptr()),
        S(tails.as_mut_ptr()),
        S(ctl.as_mut_ptr()),
        S(smem.as_mut_ptr()),
    );
    let m = csr.num_edges();
    let barriers: Vec<std::sync::Barrier> = (0..blocks)
        .map(|_| std::sync::Barrier::new(threads as usize))
        .collect();
    let t0 = Instant::now();
    let (delta, subs, every) = (kernel_delta::<P>(opts), subrounds(), every::<P>());
    super::launch::spawn_grid(blocks, threads, |ctx| {
        let b = ctx.block_idx;
        let crew = HostCrew {
            ctx,
            block: &barriers[b as usize],
        };
        let p = ptrs;
        // SAFETY: every buffer outlives the scope and has the lengths of
        // the kernel's contract (n entries, or one when empty; zeroed
        // bits, inboxes and tails); the kernel touches shared words only
        // through atomics; each block's shared slice is its own, 8-byte
        // aligned and `smem_bytes` long.
        unsafe {
            k::tiles::<P>(
                &crew,
                n as u64,
                m,
                p.0.get(),
                p.1.get(),
                p.2.get(),
                p.3.get(),
                p.4.get(),
                p.5.get(),
                p.6.get(),
                p.7.get(),
                tile,
                delta,
                subs,
                source,
                every,
                p.8.get().add(b as usize * per_block).cast(),
                (per_block * 2) as u32,
            )
        }
    });
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(run_of(
        states,
        stats_of(&ctl, tile, blocks, threads),
        time_ms,
        time_ms,
    ))
}
