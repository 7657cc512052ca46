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
//! and it records no parents: a run that asks for them, whose graph does not
//! fit, or that has a vertex of more out-edges than a part of the outbox
//! ([`kernels_rs::tiles::PART`]: a vertex's remote edges go out together)
//! takes the resident kernel (BFS parents otherwise come from the levels
//! afterwards, as on the CPU).

use std::time::Instant;

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use kernels_rs::tiles::{self as k, CTL_WORDS};

use super::cuda::{cuda_err, DevBuf};
use super::device::{Device, DeviceGraph};
use super::launcher::{
    host_graph_args, Arg, DeviceLauncher, HostLauncher, HostTeam, Launcher, TeamKernel, TeamShape,
};
use super::program_api::{
    check_run, GpuProgram, ProgramKernels, ProgramOptions, ProgramRun, TileStats,
};
use crate::error::{Error, Result};
use crate::graph::Csr;
use crate::program::{Combine, VertexProgram};

/// Threads per block (`VERTEX_TILES_BLOCK` overrides it, a multiple of 32, for
/// measuring), capped at what the kernel's registers allow one block (384 for
/// the shipped programs on an H100 since short levels run in groups of lanes;
/// 128 to 512 measured alike, `74e218a:docs/results/h100/rings/`).
pub const BLOCK: u32 = 512;

fn block_size() -> u32 {
    std::env::var("VERTEX_TILES_BLOCK")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|b| (64..=1024).contains(b) && b % 32 == 0)
        .unwrap_or(BLOCK)
}

/// Messages each tile's ring holds, per vertex of the tile
/// (`VERTEX_TILES_RING` sets the capacity itself, for tests and measuring): a
/// 1000² grid's tile receives a few dozen messages a level, and a sender only
/// waits when a ring is full.
pub const RING_PER_VERTEX: u32 = 4;

fn ring_capacity(tile: u32) -> u32 {
    std::env::var("VERTEX_TILES_RING")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&c| c >= 1)
        .unwrap_or_else(|| tile.saturating_mul(RING_PER_VERTEX).max(64))
}

/// Vertices a group of lanes may relax in one level after the one it took,
/// each an in-tile neighbour the one before improved within the level's
/// bucket, for the programs that chain ([`chains`]); `VERTEX_TILES_CHAIN`
/// overrides it for every program (0 turns the chains off).
pub const CHAIN: u32 = 2;

/// Whether chains pay for `P`: where a bucket spans many hops, because a
/// state's order often survives an edge (widest paths: a bottleneck keeps its
/// width over wider edges; labels), a chain does in one level what took one
/// level a hop; where every edge moves the order on (a `min` with a priority:
/// shortest paths, whose grid buckets are one or two edges deep), a chained
/// vertex costs about what the level it saves does, and the level waits for
/// the longest chain. BFS never chains (its next level is never in the
/// current one's bucket). H100, 1000² grid, 3 sources, chains of 2 against
/// none: widest 8.9 / 20.1 / 20.4 → 7.9 / 7.6 / 9.6 ms, SSSP 6.5 / 3.8 / 5.5 →
/// 7.0 / 4.3 / 6.1 ms, BFS alike; CC's label program alike on an H200
/// (`74e218a:docs/results/h100/chains/`).
pub fn chains<P: VertexProgram>() -> bool {
    !(P::HAS_PRIORITY && matches!(P::COMBINE, Combine::Min))
}

fn chain_hops<P: VertexProgram>() -> u32 {
    std::env::var("VERTEX_TILES_CHAIN")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&c| c <= 1024)
        .unwrap_or(if chains::<P>() { CHAIN } else { 0 })
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
    (
        tile as u32,
        k::smem_bytes(tile, state_bytes, u64::from(blocks.max(1))),
    )
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
        let (levels, idle_levels) = (ctl[k::ALL_ROUNDS], ctl[k::IDLE_LEVELS]);
        let per = |i: usize, by: u32| f64::from(p[i]) * 64.0 / f64::from(by.max(1));
        eprintln!(
            "tiles profile (the workers' leader, cycles; {levels} levels run, {idle_levels} \
             found empty over {blocks} blocks, {} messages, {} waited for room): per level: \
             opening {:.0} (of which waiting for the messenger {:.0}), relax {:.0}; per \
             empty level {:.0}; per block: busy {:.0}, idle {:.0}",
            ctl[k::MESSAGES],
            ctl[k::WAITS],
            per(0, levels),
            f64::from(ctl[k::MESSENGER_WAIT]) * 64.0 / f64::from(levels.max(1)),
            per(1, levels),
            per(2, idle_levels),
            (per(0, blocks) + per(1, blocks)),
            per(2, blocks),
        );
    }
    TileStats {
        rounds: ctl[k::ROUNDS],
        pops: ctl[k::POPS],
        messages: ctl[k::MESSAGES],
        waits: ctl[k::WAITS],
        tile,
        blocks,
        threads_per_block: threads,
        chain: ctl[k::CHAIN_HOPS],
        rows_wide: ctl[k::ROWS_WIDE],
        rows_narrow: ctl[k::ROWS_NARROW],
        idle_levels: ctl[k::IDLE_LEVELS],
    }
}

/// The tiled kernel of `P`, with its device function where loaded.
fn tiles_kernel<P: GpuProgram>(kern: Option<&ProgramKernels>) -> TeamKernel<'_> {
    TeamKernel {
        name: kern.map_or("tiles", |k| &k.names[9]),
        device: kern.map(|k| k.tiles_fn()),
        host: tiles_body::<P>,
    }
}

/// `tiles(n, m, offsets, targets, weights, state, msgs, cands, tails, heads,
/// ctl, tile, delta, cap, source, every)` of `kernels_rs::tiles_kernel!`,
/// with the block's shared memory.
unsafe fn tiles_body<P: GpuProgram>(crew: &HostTeam<'_>, smem: *mut u32, words: u32, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `TilesRun::launch` builds; the
    // block's shared memory is 8-byte aligned.
    unsafe {
        k::tiles::<P>(
            crew,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].ptr(),
            a[5].ptr(),
            a[6].ptr(),
            a[7].ptr(),
            a[8].ptr(),
            a[9].ptr(),
            a[10].ptr(),
            a[11].u32(),
            a[12].u32(),
            a[13].u32(),
            a[14].u32(),
            a[15].u32(),
            smem.cast(),
            words,
        )
    }
}

/// The kernel's `(tile, delta, cap, source, every)` for `P`'s run.
fn scalars<P: GpuProgram>(tile: u32, opts: &ProgramOptions, source: u32) -> [u32; 5] {
    [
        tile,
        kernel_delta::<P>(opts),
        ring_capacity(tile),
        source,
        every::<P>(),
    ]
}

/// Words (`u64`) of the two ring buffers a run of `P` allocates for `blocks`
/// rings of `cap` messages: a message word per slot, and a candidate beside
/// it for states wider than 4 bytes (otherwise one unused word). One place
/// for the sizes the device's memory check adds up and the run allocates.
fn ring_words<P: GpuProgram>(blocks: u32, cap: u32) -> (usize, usize) {
    let slots = blocks as usize * cap as usize;
    let wide = std::mem::size_of::<<P as VertexProgram>::State>() > 4;
    (slots, if wide { slots } else { 1 })
}

/// One tiled launch's buffers besides the state, its shape and its scalars,
/// on any launcher.
struct TilesRun<'a, L: Launcher> {
    l: &'a L,
    k: TeamKernel<'a>,
    shape: TeamShape,
    /// `(n, m, offsets, targets, weights)`, then the state's address.
    graph: [Arg; 5],
    state: u64,
    msgs: L::Buf<u64>,
    /// Beside `msgs` for states wider than 4 bytes (else one unused word).
    cands: L::Buf<u64>,
    tails: L::Buf<u32>,
    heads: L::Buf<u32>,
    ctl: L::Buf<u32>,
    /// `(tile, delta, cap, source, every)`.
    scalars: [u32; 5],
}

impl<'a, L: Launcher> TilesRun<'a, L> {
    /// Zeroed rings, tails and heads; the control block with every block's
    /// token outstanding.
    fn new<P: GpuProgram>(
        l: &'a L,
        k: TeamKernel<'a>,
        shape: TeamShape,
        graph: [Arg; 5],
        state: u64,
        scalars: [u32; 5],
        chain: u32,
    ) -> Result<Self> {
        let mut ctl0 = [0u32; CTL_WORDS];
        ctl0[k::OUTSTANDING] = shape.blocks;
        ctl0[k::CHAIN_HOPS] = chain;
        let (msgs, cands) = ring_words::<P>(shape.blocks, scalars[2]);
        let run = TilesRun {
            msgs: l.zeros::<u64>(msgs, "tile message rings")?,
            cands: l.zeros::<u64>(cands, "tile candidate rings")?,
            tails: l.zeros::<u32>(shape.blocks as usize, "tile ring tails")?,
            heads: l.zeros::<u32>(shape.blocks as usize, "tile ring heads")?,
            ctl: l.upload(&ctl0, "tiles control")?,
            l,
            k,
            shape,
            graph,
            state,
            scalars,
        };
        l.sync("tiles buffer allocation")?;
        Ok(run)
    }

    /// Enqueues the launch.
    fn launch(&self) -> Result<()> {
        let g = self.graph;
        let a = |b: &L::Buf<u32>| Arg::from(L::addr(b));
        let a64 = |b: &L::Buf<u64>| Arg::from(L::addr(b));
        let [tile, delta, cap, source, every] = self.scalars;
        let args = [
            &g[..],
            &[
                self.state.into(),
                a64(&self.msgs),
                a64(&self.cands),
                a(&self.tails),
                a(&self.heads),
                a(&self.ctl),
                tile.into(),
                delta.into(),
                cap.into(),
                source.into(),
                every.into(),
            ],
        ]
        .concat();
        // SAFETY: the parameter list of kernels_rs::tiles_kernel!, every address a
        // live buffer of the documented length (zeroed rings, tails and heads);
        // `tile · blocks ≥ n`; a cooperative launch of a co-resident grid with
        // the tile's shared memory.
        unsafe { self.l.launch_team(&self.k, self.shape, &args) }
    }

    /// The statistics the kernel left (waits for it).
    fn stats(&self) -> Result<TileStats> {
        let ctl = self.l.read(&self.ctl, "tiles control")?;
        let s = self.shape;
        Ok(stats_of(&ctl, self.scalars[0], s.blocks, s.threads))
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
        // As many threads as asked, but no more than the kernel's registers
        // let one block have (whole warps).
        let fits = f
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map_err(cuda_err("cuFuncGetAttribute(tiles threads per block)"))?;
        let block = block_size().min((fits.max(32) as u32) / 32 * 32);
        if block < 64 {
            // A messenger warp and at least one warp of workers.
            return Err(Error::GpuUnavailable(format!(
                "the tiled kernel fits only {block} threads a block; it needs 64"
            )));
        }
        let blocks = blocks_per_sm() * self.gpu.info.multiprocessors.max(1);
        let (tile, smem) = shape(g.n, state_size as u64, blocks);
        let optin = self.smem_per_block()?;
        if opts.parents || smem > optin || g.max_degree > k::PART as u64 {
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
        let scalars = scalars::<P>(tile, opts, source);
        let (msgs, cands) = ring_words::<P>(blocks, scalars[2]);
        self.gpu.check_fits(
            &format!("`{}` state and message rings", P::NAME),
            DevBuf::<u8>::bytes_for(n * state_size) + DevBuf::<u64>::bytes_for(msgs + cands),
        )?;
        let state = self.gpu.alloc::<u8>(n * state_size, "program state")?;
        let l = DeviceLauncher { gpu: &self.gpu };
        let shape = TeamShape {
            blocks,
            threads: block,
            smem_words: (smem / 4) as u32,
            cooperative: true,
        };
        let run = TilesRun::new::<P>(
            &l,
            tiles_kernel::<P>(Some(kern)),
            shape,
            g.program_args(),
            state.ptr,
            scalars,
            chain_hops::<P>(),
        )?;
        let (time_ms, wall_ms) =
            self.init_and_time::<P>(kern, g.n, source, state.ptr, 0, || run.launch())?;
        let stats = run.stats()?;
        let (states, _) = self.download_results::<P>(&state, None, n)?;
        Ok(run_of(states, stats, time_ms, wall_ms))
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
/// (keep it small, e.g. 3 × 4; every thread spins while it waits; at least
/// two a block, the first half the messenger, the rest workers). `rows`
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
    emulate_tiles_with::<P>(
        csr,
        source,
        opts,
        blocks,
        threads,
        rows,
        TilesKnobs::default(),
    )
}

/// The tiled kernel's knobs a test may turn (`None`: the run's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TilesKnobs {
    /// Messages per ring: small rings make senders wait for room, and blocks
    /// take their own messages meanwhile.
    pub ring: Option<u32>,
    /// Vertices a thread may relax in a level after the one it took ([`CHAIN`]).
    pub chain: Option<u32>,
}

/// [`emulate_tiles`] with `knobs` turned.
pub fn emulate_tiles_with<P: GpuProgram>(
    csr: &Csr<<P as VertexProgram>::Weight>,
    source: u32,
    opts: &ProgramOptions,
    blocks: u32,
    threads: u32,
    rows: RowRoom,
    knobs: TilesKnobs,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    let n = csr.num_vertices();
    check_run::<P>(n as u64, source, csr.weights().is_some())?;
    super::program_api::require_idempotent::<P>("tiled")?;
    if opts.parents || csr.max_degree() > k::PART as u64 {
        return super::resident::emulate_resident::<P>(csr, source, opts, blocks, threads, 64, 16);
    }
    if blocks == 0 || threads == 0 {
        return Err(Error::InvalidArgument(
            "the emulated tiled grid needs at least one block of one thread".into(),
        ));
    }
    // A messenger and a worker at least.
    let threads = threads.max(2);
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
    let weights = super::program_api::host_weights::<P>(csr) as u64;
    let graph = host_graph_args(csr, weights);
    let shape = TeamShape {
        blocks,
        threads,
        // Whole 8-byte words, as the kernel wants them.
        smem_words: (smem_bytes.div_ceil(8) * 2) as u32,
        cooperative: true,
    };
    let mut scalars = scalars::<P>(tile, opts, source);
    if let Some(cap) = knobs.ring {
        scalars[2] = cap.max(1);
    }
    let l = HostLauncher::new(1);
    let state = states.as_mut_ptr() as u64;
    let chain = knobs.chain.unwrap_or_else(chain_hops::<P>);
    let k = tiles_kernel::<P>(None);
    let run = TilesRun::new::<P>(&l, k, shape, graph, state, scalars, chain)?;
    let t0 = Instant::now();
    run.launch()?;
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let stats = run.stats()?;
    drop(run);
    Ok(run_of(states, stats, time_ms, time_ms))
}
