//! The device-resident traversal ([`kernels_rs::resident`]) from the host: one
//! cooperative launch per run, on the device or emulated.
//!
//! The kernel keeps the whole level loop on the device, so it is the strategy for
//! graphs with many small levels (roads, grids, meshes): a level costs its
//! frontier plus a barrier, not a launch, a graph scan and a host round trip.
//! [`super::auto`] picks it for such graphs; `--kernel resident` forces it.
//!
//! Sizes: the grid is what the device holds at once (a cooperative launch
//! refuses more), blocks of [`BLOCK`] threads (fewer if the program's kernel
//! needs more registers), a shared append buffer of [`SMEM_WORDS`] words per
//! block, and rounds of at most [`small_max`] vertices run on one block.

use std::time::Instant;

use cudarc::driver::CudaFunction;
use kernels_rs::resident::{self as k, CTL_WORDS};
use kernels_rs::ThreadCtx;

use super::cuda::{cuda_err, DevBuf};
use super::device::{Device, DeviceGraph};
use super::launcher::{
    host_graph_args, Arg, DeviceLauncher, Grid, HostLauncher, HostTeam, Kernel, Launcher,
    TeamKernel, TeamShape,
};
use super::program_api::{check_run, GpuProgram, ProgramKernels, ProgramOptions, ProgramRun};
use crate::error::{Error, Result};
use crate::graph::Csr;
use crate::program::VertexProgram;

/// Threads per block of the resident kernel (halved while the device cannot hold
/// one such block of the program's kernel). One-block rounds want the largest
/// block: grid 1000² BFS on the H100 took 16 ms with 1,024 threads against 22 ms
/// with 512.
pub const BLOCK: u32 = 1024;

/// Words of each block's shared append buffer (16 KiB with the header).
pub const SMEM_WORDS: u32 = 4096;

/// Default largest round run by one block: two vertices per thread of a
/// [`BLOCK`]-thread block. Grid 1000² on the H100: BFS 12.8 / 12.4 / 12.3 ms and
/// SSSP 32.4 / 37.3 / 53.9 ms with 2,048 / 4,096 / 8,192
/// (`74e218a:docs/results/h100/resident/run4`).
pub const DEFAULT_SMALL_MAX: u32 = 2048;

// The handover waits for frontiers this kernel runs on one block.
const _: () = assert!(super::options::TAIL_HANDOVER.frontier == DEFAULT_SMALL_MAX as u64);

/// The one-block round limit: [`DEFAULT_SMALL_MAX`] unless the environment
/// variable `VERTEX_RESIDENT_SMALL` says otherwise (for measuring the crossover).
pub fn small_max() -> u32 {
    std::env::var("VERTEX_RESIDENT_SMALL")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SMALL_MAX)
}

/// The resident kernel's bucket width over [`super::program::gpu_delta`]: a
/// round costs a barrier whatever its size, so wide buckets (fewer rounds, some
/// re-relaxed vertices) win. Grid 1000², weights 1..255, on the H100: Δ ≈ 200
/// took 3,953 rounds and 62.7 ms, Δ 4,096 2,200 rounds and 43.7 ms, Δ 16,384
/// 2,100 rounds and 41.8 ms (`74e218a:docs/results/h100/resident/`).
/// Later runs (run5, same call per graph) put the best Δ lower: grid 1000² Δ
/// 2,048 / 4,096 / 12,800 took 31.5 / 31.0 / 32.3 ms, grid 4000² Δ 2,048 /
/// 8,192 / 12,800 181 / 193 / 223 ms; 16 × `gpu_delta` is 3,200 on both.
pub const RESIDENT_DELTA_FACTOR: u64 = 16;

pub use super::program_api::ResidentStats;
/// Rows longer than this are relaxed by a whole block ([`kernels_rs::resident::HEAVY_ROW`]).
pub use kernels_rs::resident::HEAVY_ROW;

/// Whether `VERTEX_RESIDENT_PROFILE` asks for the one-block rounds' phase profile.
fn profiling() -> bool {
    std::env::var_os("VERTEX_RESIDENT_PROFILE").is_some()
}

/// Prints the phase profile ([`k::PROFILE`]) to stderr, per one-block round.
fn print_profile(ctl: &[u32]) {
    let rounds = f64::from(ctl[k::SMALL_ROUNDS].max(1));
    let per = |i: usize| f64::from(ctl[k::PROFILE + i]) * 16.0 / rounds;
    eprintln!(
        "resident profile (block 0 thread 0, cycles per one-block round over {} rounds): \
         own vertices {:.0}, wait for the block {:.0}, flush {:.0}, closing barrier {:.0}, \
         to the next round {:.0}",
        ctl[k::SMALL_ROUNDS],
        per(0),
        per(1),
        per(2),
        per(3),
        per(4)
    );
}

impl ResidentStats {
    fn from_ctl(ctl: &[u32], blocks: u32, threads_per_block: u32) -> Self {
        if profiling() {
            print_profile(ctl);
        }
        ResidentStats {
            rounds: ctl[k::ROUNDS],
            small_rounds: ctl[k::SMALL_ROUNDS],
            wide_rounds: ctl[k::WIDE_ROUNDS],
            splits: ctl[k::SPLITS],
            blocks,
            threads_per_block,
        }
    }
}

/// The bucket width the kernel takes (`0` = no far pile): the options' Δ for
/// programs with a priority, clamped to the priority's range.
fn kernel_delta<P: GpuProgram>(opts: &ProgramOptions) -> u32 {
    super::program_api::bucket_delta::<P>(opts)
        .map_or(0, |d| d.clamp(1, u64::from(u32::MAX)) as u32)
}

/// The first queue and the control block: the source (or every vertex, for
/// programs where every vertex starts) and the first bucket's limit.
fn initial<P: GpuProgram>(n: usize, source: u32, delta: u32) -> (Vec<u32>, [u32; CTL_WORDS]) {
    let queue: Vec<u32> = if P::NEEDS_SOURCE {
        vec![source]
    } else {
        (0..n as u32).collect()
    };
    let first_limit = if delta == 0 || !P::NEEDS_SOURCE {
        u32::MAX
    } else {
        let p0 = <P as VertexProgram>::priority(super::program_api::source_state::<P>(source));
        (p0 / delta)
            .checked_add(1)
            .and_then(|b| b.checked_mul(delta))
            .unwrap_or(u32::MAX)
    };
    let ctl = control(queue.len(), first_limit);
    (queue, ctl)
}

/// The control block for a first queue of `len` vertices and a first bucket
/// limit (`u32::MAX`: no buckets).
fn control(len: usize, first_limit: u32) -> [u32; CTL_WORDS] {
    let mut ctl = [0u32; CTL_WORDS];
    ctl[k::LEN] = len as u32;
    ctl[k::PROFILE_ON] = u32::from(profiling());
    ctl[k::MIN_PRIORITY] = u32::MAX;
    ctl[k::CURSOR + 2] = first_limit;
    ctl
}

/// Whether the kernel must stamp appends ([`kernels_rs::resident::Resident::dedup`]):
/// all but BFS-like programs, whose combines are atomic min/max of one value.
fn dedup<P: GpuProgram>() -> u32 {
    u32::from(!super::program_api::uniform_frontier::<P>())
}

fn run_of<S>(
    states: Vec<S>,
    parents: Option<Vec<u32>>,
    stats: ResidentStats,
    time_ms: f64,
    wall_ms: f64,
) -> ProgramRun<S> {
    ProgramRun {
        states,
        num_levels: stats.rounds,
        launched_levels: 1,
        syncs: 1,
        time_ms,
        wall_ms,
        parents,
        directions: Vec::new(),
        resident: Some(stats),
        tiles: None,
    }
}

/// Whether a graph whose largest out-degree is `max_degree` needs the kernel
/// that shares long rows out over a block (one thread alone would take a
/// round trip per four of a hub's edges).
fn hubs(max_degree: u64) -> bool {
    max_degree > k::HEAVY_ROW as u64
}

/// The queues hand a vertex's current state on once per improvement, which is
/// right only for idempotent combines; parents only for BFS-like programs.
fn check_resident<P: GpuProgram>(opts: &ProgramOptions) -> Result<()> {
    super::program_api::require_idempotent::<P>("resident")?;
    if opts.parents && !super::program_api::uniform_frontier::<P>() {
        return Err(Error::InvalidArgument(format!(
            "program `{}`: parents are only recorded for BFS-like programs (one source, unweighted, min/max)",
            P::NAME
        )));
    }
    Ok(())
}

/// Where a handover's first queue comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FirstQueue<'a> {
    /// Vertex ids already on the host.
    Host(&'a [u32]),
    /// The vertices whose stamp in the device array `stamps` (n words) is
    /// `stamp`, listed on the device.
    Stamped { stamps: u64, stamp: u32 },
}

/// The resident kernel of `P` (`hubs`: the one sharing long rows over a
/// block), with its device function where loaded.
fn resident_kernel<P: GpuProgram>(kern: Option<&ProgramKernels>, hubs: bool) -> TeamKernel<'_> {
    TeamKernel {
        name: kern.map_or("resident", |k| &k.names[if hubs { 10 } else { 8 }]),
        device: kern.map(|k| k.resident_fn(hubs)),
        host: if hubs {
            resident_body::<P, true>
        } else {
            resident_body::<P, false>
        },
    }
}

/// `resident(n, m, offsets, targets, weights, state, parents, queue0, queue1,
/// stamps, far0, far1, in_far, ctl, delta, small_max, dedup)` of
/// `kernels_rs::resident_kernel!`, with the block's shared memory.
unsafe fn resident_body<P: GpuProgram, const HUBS: bool>(
    team: &HostTeam<'_>,
    smem: *mut u32,
    smem_words: u32,
    a: &[Arg],
) {
    // SAFETY: the launcher's contract: the list `ResidentRun::launch` builds.
    unsafe {
        k::resident::<P, HUBS>(
            team,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].ptr(),
            a[5].ptr(),
            a[6].ptr(),
            [a[7].ptr(), a[8].ptr()],
            a[9].ptr(),
            [a[10].ptr(), a[11].ptr()],
            a[12].ptr(),
            a[13].ptr(),
            a[14].u32(),
            a[15].u32(),
            a[16].u32(),
            smem,
            smem_words,
        )
    }
}

/// `vertex_stamped_queue(n, stamps, stamp, queue, len)` of
/// `kernels_rs::stamped_queue_kernel!`: the vertices whose stamp is `stamp`.
pub(crate) fn stamped_queue_kernel(device: Option<&CudaFunction>) -> Kernel<'_> {
    unsafe fn body(t: ThreadCtx, a: &[Arg]) {
        // SAFETY: the launcher's contract: `stamps` and `queue` hold n words,
        // `len` is one word.
        unsafe {
            kernels_rs::frontier::stamped_queue(
                t,
                a[0].u64(),
                a[1].ptr(),
                a[2].u32(),
                a[3].ptr(),
                a[4].ptr(),
            )
        }
    }
    Kernel {
        name: "vertex_stamped_queue",
        device,
        host: body,
    }
}

/// One resident launch's buffers besides the program state and parents, its
/// shape and its scalars, on any launcher.
struct ResidentRun<'a, L: Launcher> {
    l: &'a L,
    k: TeamKernel<'a>,
    shape: TeamShape,
    /// `(n, m, offsets, targets, weights)`.
    graph: [Arg; 5],
    queues: [L::Buf<u32>; 2],
    stamps: L::Buf<u32>,
    far: [L::Buf<u32>; 2],
    in_far: L::Buf<u32>,
    ctl: L::Buf<u32>,
    /// Addresses of the `n` states and parents (0: none).
    state: u64,
    parents: u64,
    delta: u32,
    small: u32,
    dedup: u32,
}

impl<'a, L: Launcher> ResidentRun<'a, L> {
    /// The buffers on `l`: `queue` the first queue, `ctl0` the control block;
    /// `(delta, small, dedup)` the kernel's scalars.
    #[allow(clippy::too_many_arguments)]
    fn new(
        l: &'a L,
        k: TeamKernel<'a>,
        shape: TeamShape,
        graph: [Arg; 5],
        (state, parents): (u64, u64),
        queue: &[u32],
        ctl0: [u32; CTL_WORDS],
        (delta, small, dedup): (u32, u32, u32),
    ) -> Result<Self> {
        let n = graph[0].u64() as usize;
        let mut q0 = l.zeros::<u32>(n, "resident queue")?;
        if !queue.is_empty() {
            l.write(&mut q0, queue, "resident queue")?;
        }
        let pile_len = if delta > 0 { n } else { 0 };
        let run = ResidentRun {
            queues: [q0, l.zeros::<u32>(n, "resident queue")?],
            stamps: l.zeros::<u32>(n, "resident stamps")?,
            far: [
                l.zeros::<u32>(pile_len, "far pile")?,
                l.zeros::<u32>(pile_len, "far pile")?,
            ],
            in_far: l.zeros::<u32>(pile_len, "far flags")?,
            ctl: l.upload(&ctl0, "resident control")?,
            l,
            k,
            shape,
            graph,
            state,
            parents,
            delta,
            small,
            dedup,
        };
        l.sync("resident buffer allocation")?;
        Ok(run)
    }

    /// The first queue and its length from the stamps (`stamps`, n words)
    /// equal to `stamp`, listed by `k` (the stamped-queue kernel).
    fn queue_from_stamps(&self, k: &Kernel<'_>, stamps: u64, stamp: u32) -> Result<()> {
        let n = self.graph[0];
        let len = L::addr(&self.ctl) + (k::LEN * 4) as u64;
        let args = [
            n,
            stamps.into(),
            stamp.into(),
            L::addr(&self.queues[0]).into(),
            len.into(),
        ];
        // SAFETY: `vertex_stamped_queue(n, stamps, stamp, queue, len)`: `stamps`
        // and the first queue hold n words, `len` is the control block's LEN
        // word (zero here).
        unsafe { self.l.launch(k, Grid::Cover(n.u64()), 256, &args) }
    }

    /// Enqueues the launch.
    fn launch(&self) -> Result<()> {
        let g = self.graph;
        let a = |b: &L::Buf<u32>| Arg::from(L::addr(b));
        let args = [
            &g[..],
            &[
                self.state.into(),
                self.parents.into(),
                a(&self.queues[0]),
                a(&self.queues[1]),
                a(&self.stamps),
                a(&self.far[0]),
                a(&self.far[1]),
                a(&self.in_far),
                a(&self.ctl),
                self.delta.into(),
                self.small.into(),
                self.dedup.into(),
            ],
        ]
        .concat();
        // SAFETY: the parameter list of kernels_rs::resident_kernel!, every
        // address a live buffer of the documented length (state and parents n
        // entries by the caller, far piles n words when delta > 0); a
        // cooperative launch of at most the co-resident grid.
        unsafe { self.l.launch_team(&self.k, self.shape, &args) }
    }

    /// The control block's counters after the run.
    fn stats(&self) -> Result<ResidentStats> {
        let ctl = self.l.read(&self.ctl, "resident control")?;
        Ok(ResidentStats::from_ctl(
            &ctl,
            self.shape.blocks,
            self.shape.threads,
        ))
    }
}

impl Device {
    /// [`super::BfsKernel::Resident`]: the whole run in one cooperative launch.
    pub(crate) fn run_program_resident<P: GpuProgram>(
        &self,
        kern: &ProgramKernels,
        g: &DeviceGraph,
        source: u32,
        opts: &ProgramOptions,
    ) -> Result<ProgramRun<<P as VertexProgram>::State>> {
        check_resident::<P>(opts)?;
        let n = g.n as usize;
        let state_size = std::mem::size_of::<<P as VertexProgram>::State>();
        let delta = kernel_delta::<P>(opts);
        self.gpu.check_fits(
            &format!("`{}` state, queues and stamps", P::NAME),
            DevBuf::<u8>::bytes_for(n * state_size)
                + u64::from(opts.parents) * DevBuf::<u32>::bytes_for(n)
                + launch_bytes(n, delta),
        )?;
        let state = self.gpu.alloc::<u8>(n * state_size, "program state")?;
        let parents = match opts.parents {
            true => Some(self.gpu.alloc::<u32>(n, "parents")?),
            false => None,
        };
        let pptr = parents.as_ref().map_or(0, |p| p.ptr);
        let (queue, ctl0) = initial::<P>(n, source, delta);
        let l = DeviceLauncher { gpu: &self.gpu };
        let run =
            self.prepare_resident::<P>(&l, kern, g, (state.ptr, pptr), &queue, ctl0, delta)?;
        let (time_ms, wall_ms) =
            self.init_and_time::<P>(kern, g.n, source, state.ptr, pptr, || run.launch())?;
        let stats = run.stats()?;
        let (states, parents) = self.download_results::<P>(&state, parents.as_ref(), n)?;
        Ok(run_of(states, parents, stats, time_ms, wall_ms))
    }

    /// The rest of a traversal after the level kernels stopped for a handover
    /// ([`super::direction::Handover`]): the resident kernel from the frontier
    /// `first` over the states (and parents) the levels left, without buckets,
    /// enqueued on the stream and waited for. Idempotent programs only.
    pub(crate) fn resident_after_levels<P: GpuProgram>(
        &self,
        kern: &ProgramKernels,
        g: &DeviceGraph,
        state: u64,
        parents: u64,
        first: FirstQueue<'_>,
    ) -> Result<(ResidentStats, cudarc::driver::CudaEvent)> {
        super::program_api::require_idempotent::<P>("resident")?;
        self.gpu.check_fits(
            &format!("`{}` resident queues for the tail", P::NAME),
            launch_bytes(g.n as usize, 0),
        )?;
        let (queue, len) = match first {
            FirstQueue::Host(q) => (q, q.len()),
            FirstQueue::Stamped { .. } => (&[][..], 0),
        };
        let ctl0 = control(len, u32::MAX);
        let l = DeviceLauncher { gpu: &self.gpu };
        let run = self.prepare_resident::<P>(&l, kern, g, (state, parents), queue, ctl0, 0)?;
        if let FirstQueue::Stamped { stamps, stamp } = first {
            // The queue and its length straight from the stamps, on the device.
            let k = stamped_queue_kernel(Some(&self.k.stamped_queue));
            run.queue_from_stamps(&k, stamps, stamp)?;
        }
        run.launch()?;
        let end = self.gpu.record()?;
        self.gpu.sync("the resident kernel after the levels")?;
        Ok((run.stats()?, end))
    }

    /// A device launch: its shape from the occupancy, its buffers, `queue` as
    /// the first queue and `ctl0` as the control block.
    #[allow(clippy::too_many_arguments)]
    fn prepare_resident<'k, P: GpuProgram>(
        &self,
        l: &'k DeviceLauncher<'k>,
        kern: &'k ProgramKernels,
        g: &DeviceGraph,
        state_parents: (u64, u64),
        queue: &[u32],
        ctl0: [u32; CTL_WORDS],
        delta: u32,
    ) -> Result<ResidentRun<'k, DeviceLauncher<'k>>> {
        let with_hubs = hubs(g.max_degree);
        let smem_words = SMEM_WORDS + k::SMEM_HEADER as u32;
        let (block, per_sm) =
            self.resident_shape(kern.resident_fn(with_hubs), smem_words as usize * 4)?;
        let shape = TeamShape {
            blocks: per_sm * self.gpu.info.multiprocessors.max(1),
            threads: block,
            smem_words,
            cooperative: true,
        };
        let k = resident_kernel::<P>(Some(kern), with_hubs);
        let scalars = (delta, small_max(), dedup::<P>());
        ResidentRun::new(
            l,
            k,
            shape,
            g.program_args(),
            state_parents,
            queue,
            ctl0,
            scalars,
        )
    }

    /// Block size and co-resident blocks per multiprocessor for the resident
    /// kernel: [`BLOCK`] threads (or `VERTEX_RESIDENT_BLOCK`, a multiple of 32, for
    /// measuring), halved until the device holds one block.
    fn resident_shape(&self, f: &cudarc::driver::CudaFunction, smem: usize) -> Result<(u32, u32)> {
        let mut block = std::env::var("VERTEX_RESIDENT_BLOCK")
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .filter(|b| (32..=1024).contains(b) && b % 32 == 0)
            .unwrap_or(BLOCK);
        while block >= 32 {
            let per_sm = f
                .occupancy_max_active_blocks_per_multiprocessor(block, smem, None)
                .map_err(cuda_err(
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor(resident)",
                ))?;
            if per_sm > 0 {
                return Ok((block, per_sm));
            }
            block /= 2;
        }
        Err(Error::GpuUnavailable(
            "the resident kernel does not fit one block of 32 threads on this device".into(),
        ))
    }
}

/// Bytes of a launch's buffers besides state and parents: two queues and the
/// stamps, and with buckets two far piles and their flags.
fn launch_bytes(n: usize, delta: u32) -> u64 {
    let words = if delta > 0 { 6 } else { 3 };
    words * DevBuf::<u32>::bytes_for(n)
}

/// Runs the resident kernel of `P` on the host: `blocks × threads` OS threads
/// (keep it small, e.g. 2 × 4), `smem_words` words of append buffer per block
/// (small values exercise the overflow path), and a one-block round limit of
/// `small` vertices (`0`: every round uses the whole grid).
pub fn emulate_resident<P: GpuProgram>(
    csr: &Csr<<P as VertexProgram>::Weight>,
    source: u32,
    opts: &ProgramOptions,
    blocks: u32,
    threads: u32,
    smem_words: u32,
    small: u32,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    let n = csr.num_vertices();
    check_run::<P>(n as u64, source, csr.weights().is_some())?;
    check_resident::<P>(opts)?;
    if blocks == 0 || threads == 0 {
        return Err(Error::InvalidArgument(
            "the emulated resident grid needs at least one block of one thread".into(),
        ));
    }
    let delta = kernel_delta::<P>(opts);
    let (queue, ctl0) = initial::<P>(n, source, delta);
    let mut states: Vec<<P as VertexProgram>::State> = (0..n as u32)
        .map(|v| <P as VertexProgram>::init(v, source))
        .collect();
    let mut parents = opts.parents.then(|| {
        (0..n as u32)
            .map(|v| if v == source { source } else { u32::MAX })
            .collect::<Vec<u32>>()
    });
    let t0 = Instant::now();
    let grid = EmulatedGrid {
        blocks,
        threads,
        smem_words,
        small,
    };
    let stats = grid.run::<P>(
        csr,
        &mut states,
        parents.as_deref_mut(),
        &queue,
        ctl0,
        delta,
    )?;
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(run_of(states, parents, stats, time_ms, time_ms))
}

/// The shape of an emulated resident grid (see [`emulate_resident`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EmulatedGrid {
    pub blocks: u32,
    pub threads: u32,
    pub smem_words: u32,
    pub small: u32,
}

impl EmulatedGrid {
    /// The rest of a traversal after emulated level kernels stopped for a
    /// handover (as [`Device::resident_after_levels`]).
    pub(crate) fn after_levels<P: GpuProgram>(
        &self,
        csr: &Csr<<P as VertexProgram>::Weight>,
        states: &mut [<P as VertexProgram>::State],
        parents: Option<&mut [u32]>,
        queue: &[u32],
    ) -> Result<ResidentStats> {
        self.run::<P>(
            csr,
            states,
            parents,
            queue,
            control(queue.len(), u32::MAX),
            0,
        )
    }

    /// Runs the kernel over host buffers from the first queue `queue`.
    fn run<P: GpuProgram>(
        &self,
        csr: &Csr<<P as VertexProgram>::Weight>,
        states: &mut [<P as VertexProgram>::State],
        parents: Option<&mut [u32]>,
        queue: &[u32],
        ctl0: [u32; CTL_WORDS],
        delta: u32,
    ) -> Result<ResidentStats> {
        let shape = TeamShape {
            blocks: self.blocks,
            threads: self.threads,
            smem_words: self.smem_words + k::SMEM_HEADER as u32,
            cooperative: true,
        };
        let weights = super::program_api::host_weights::<P>(csr) as u64;
        let graph = host_graph_args(csr, weights);
        let state_parents = (
            states.as_mut_ptr() as u64,
            parents.map_or(0, |p| p.as_mut_ptr() as u64),
        );
        let k = resident_kernel::<P>(None, hubs(csr.max_degree()));
        let scalars = (delta, self.small, dedup::<P>());
        let l = HostLauncher::new(1);
        let run = ResidentRun::new(&l, k, shape, graph, state_parents, queue, ctl0, scalars)?;
        run.launch()?;
        run.stats()
    }
}
