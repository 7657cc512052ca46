//! BFS on the GPU: the seed 000 kernels (naive full scan, edge-chunk balanced)
//! driven through `driver`, timed with CUDA events.

use std::time::Instant;

use cudarc::driver::{CudaEvent, CudaFunction, PushKernelArg};
use rayon::prelude::*;

use super::cuda::{DevBuf, DeviceInfo, Gpu};
use super::direction::{self, DirectionKernels, GpuDirection, LevelLog, Pull};
use super::driver::{self, LevelExec};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, Weight};

/// Which level kernel to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BfsKernel {
    /// Seed 000 Alg. 2: one thread per vertex, full scan every level.
    Naive,
    /// Seed 000 Alg. 3 + 4: one thread per chunk of `max_edge_count` edges.
    Balanced,
    /// Direction-optimizing: top-down over a work list of the frontier's edge
    /// chunks (`max_edge_count` edges each), bottom-up when the frontier is large
    /// (see [`super::direction`]).
    Direction,
    /// One persistent cooperative launch runs every level on the device, with
    /// compacted frontier queues and device-side near-far buckets (see
    /// [`super::resident`]): the strategy for high-diameter graphs. Programs only.
    Resident,
    /// Picked from the program and the graph ([`super::auto`]).
    Auto,
}

impl BfsKernel {
    /// The name the command line takes.
    pub fn name(self) -> &'static str {
        match self {
            BfsKernel::Naive => "naive",
            BfsKernel::Balanced => "balanced",
            BfsKernel::Direction => "direction",
            BfsKernel::Resident => "resident",
            BfsKernel::Auto => "auto",
        }
    }
}

impl std::str::FromStr for BfsKernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "naive" => Ok(BfsKernel::Naive),
            "balanced" => Ok(BfsKernel::Balanced),
            "direction" => Ok(BfsKernel::Direction),
            "resident" => Ok(BfsKernel::Resident),
            "auto" => Ok(BfsKernel::Auto),
            _ => Err(Error::InvalidArgument(format!(
                "unknown GPU kernel `{s}` (expected auto, naive, balanced, direction or resident)"
            ))),
        }
    }
}

/// How a newly reached vertex is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BfsCombine {
    /// Plain store when still unreached (seed 000): `kernels_rs::bfs::Bfs`.
    Store,
    /// `atom.global.min`: `kernels_rs::bfs::BfsAtomicMin`.
    AtomicMin,
}

/// Settings of one GPU BFS.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct GpuBfsOptions {
    pub kernel: BfsKernel,
    /// Edges per thread for the balanced kernel (seed 000 found 16 best on Fermi).
    pub max_edge_count: u64,
    pub combine: BfsCombine,
    /// Also compute a BFS parent tree (Graph500 output).
    pub parents: bool,
    /// Level launches between two reads of the frontier flags (1 = check every level).
    pub levels_per_sync: u32,
    /// Threads per block.
    pub block_size: u32,
    /// Whether the direction kernel may go bottom-up.
    pub pull: Pull,
}

/// Default edges per thread (balanced) or per work item (direction): the best of
/// the sweep on an H100 (docs/results/h100/gpu-bfs.json: 50.4 vs 42.8 GTEPS at
/// seed 000's 16, Kronecker 20). One value for the hand kernels, the programs'
/// kernels and the CLI.
pub const DEFAULT_MAX_EDGE_COUNT: u64 = 64;

/// Levels launched between two host waits. The balanced/naive kernels read a
/// ring of level flags once per batch; the direction kernel plans each level's
/// direction on the device (`kernels_rs::direction::plan_level`), so the host
/// neither reads counters nor decides between levels. Levels launched past the
/// end return at once (a few microseconds each). 1 restores one host round trip
/// per level (the host then chooses the direction).
pub const DEFAULT_LEVELS_PER_SYNC: u32 = 8;

impl Default for GpuBfsOptions {
    fn default() -> Self {
        GpuBfsOptions {
            kernel: BfsKernel::Balanced,
            max_edge_count: DEFAULT_MAX_EDGE_COUNT,
            combine: BfsCombine::Store,
            parents: false,
            levels_per_sync: DEFAULT_LEVELS_PER_SYNC,
            block_size: 256,
            pull: Pull::Auto,
        }
    }
}

impl GpuBfsOptions {
    /// The options the built-in BFS kernels run: `auto` is the direction kernel
    /// (Graph500's choice); the resident kernel exists for programs only.
    pub(crate) fn builtin(&self) -> Result<GpuBfsOptions> {
        match self.kernel {
            BfsKernel::Auto => Ok(GpuBfsOptions {
                kernel: BfsKernel::Direction,
                ..*self
            }),
            BfsKernel::Resident => Err(Error::InvalidArgument(
                "the resident kernel runs #[vertex_program] programs (e.g. `vertex bfs --kernel resident`), not the built-in BFS kernels".into(),
            )),
            _ => Ok(*self),
        }
    }

    /// Checks the settings against a graph.
    pub fn validate(&self) -> Result<()> {
        validate_launch(
            self.kernel,
            self.max_edge_count,
            self.block_size,
            self.levels_per_sync,
        )
    }
}

/// The launch settings every level-kernel run shares (hand-written BFS and
/// `#[vertex_program]` kernels alike).
pub(crate) fn validate_launch(
    kernel: BfsKernel,
    max_edge_count: u64,
    block_size: u32,
    levels_per_sync: u32,
) -> Result<()> {
    if kernel != BfsKernel::Naive && max_edge_count == 0 {
        return Err(Error::InvalidArgument(
            "--max-edge-count must be at least 1".into(),
        ));
    }
    if block_size == 0 || block_size > 1024 {
        return Err(Error::InvalidArgument(format!(
            "block size {block_size} is not in 1..=1024"
        )));
    }
    if levels_per_sync == 0 || levels_per_sync > 64 {
        return Err(Error::InvalidArgument(format!(
            "levels per sync {levels_per_sync} is not in 1..=64"
        )));
    }
    Ok(())
}

/// Result and timings of one BFS (GPU or emulated).
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuBfsResult {
    /// Level of every vertex, `u32::MAX` if unreached.
    #[serde(skip)]
    pub levels: Vec<u32>,
    /// BFS tree (`parents[source] == source`, `u32::MAX` unreached), if asked for.
    #[serde(skip)]
    pub parents: Option<Vec<u32>>,
    /// Non-empty levels, the source's included.
    pub num_levels: u32,
    /// Vertices reached, the source included.
    pub reached: u64,
    /// CSR entries (directed edges) out of reached vertices: the edges the
    /// traversal had to inspect, the TEPS numerator of seed 000's Table 1.
    pub edges_traversed: u64,
    /// Device time from the first kernel to the last flag read (CUDA events);
    /// host time for the emulator.
    pub time_ms: f64,
    /// Host wall-clock time of the same span, launches and waits included.
    pub wall_ms: f64,
    pub init_ms: f64,
    /// `SV` construction (balanced only).
    pub sv_build_ms: f64,
    /// Each non-empty level's kernel time.
    pub per_level_ms: Vec<f64>,
    /// End detection: `time_ms` minus init, SV and level kernels — the flag reads,
    /// the host round trips and the launches past the last level.
    pub check_end_ms: f64,
    pub launched_levels: u32,
    pub syncs: u32,
    /// Direction kernel: what each level did (empty for the seed 000 kernels).
    pub directions: Vec<LevelLog>,
}

impl GpuBfsResult {
    /// Billions of traversed edges per second.
    pub fn gteps(&self) -> f64 {
        if self.time_ms <= 0.0 {
            return 0.0;
        }
        self.edges_traversed as f64 / (self.time_ms * 1e-3) / 1e9
    }
}

/// Vertices reached and CSR entries out of them.
pub(crate) fn reach_counts(offsets: &[u64], levels: &[u32]) -> (u64, u64) {
    levels
        .par_iter()
        .enumerate()
        .filter(|(_, &l)| l != u32::MAX)
        .map(|(v, _)| (1u64, offsets[v + 1] - offsets[v]))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// A graph resident on the device (CSR: `u64` offsets, `u32` targets).
pub struct DeviceGraph {
    pub(super) n: u64,
    pub(super) m: u64,
    pub(super) offsets: DevBuf<u64>,
    pub(super) targets: DevBuf<u32>,
    /// Edge weights as bytes (only uploaded for programs that read them).
    pub(super) weights: Option<DevBuf<u8>>,
    /// Host copy of the offsets, for counting traversed edges.
    pub(super) host_offsets: Vec<u64>,
    /// Where bottom-up levels find in-edges.
    pub(super) incoming: Incoming,
}

/// In-edges of a device graph, which bottom-up traversal reads.
pub(super) enum Incoming {
    /// Uploaded from a bare CSR: not known (bottom-up is not used).
    Unknown,
    /// Symmetric graph: the CSR is its own transpose.
    Symmetric,
    /// The transpose, uploaded next to the CSR.
    Transpose {
        offsets: DevBuf<u64>,
        sources: DevBuf<u32>,
    },
}

impl DeviceGraph {
    pub fn num_vertices(&self) -> u64 {
        self.n
    }
    pub fn num_edges(&self) -> u64 {
        self.m
    }

    /// Device pointers of the in-edge offsets and sources and their count, if known.
    pub(super) fn incoming(&self) -> Option<(u64, u64, u64)> {
        match &self.incoming {
            Incoming::Unknown => None,
            Incoming::Symmetric => Some((self.offsets.ptr, self.targets.ptr, self.m)),
            Incoming::Transpose { offsets, sources } => {
                Some((offsets.ptr, sources.ptr, sources.len as u64))
            }
        }
    }
}

/// A GPU with the vertex kernels loaded; reusable across graphs and runs.
pub struct Device {
    pub(super) gpu: Gpu,
    pub(super) k: Kernels,
}

pub(super) struct Kernels {
    init: CudaFunction,
    td_chunks: CudaFunction,
    td_select: CudaFunction,
    td_relax: CudaFunction,
    bottom_up: CudaFunction,
    build_sv: CudaFunction,
    pub(super) check_tree: CudaFunction,
    pub(super) plan: CudaFunction,
    pub(super) plan_pass: CudaFunction,
    naive: CudaFunction,
    balanced: CudaFunction,
    min_naive: CudaFunction,
    min_balanced: CudaFunction,
}

impl Device {
    /// Opens CUDA device `ordinal` and loads the kernels.
    pub fn open(ordinal: usize) -> Result<Device> {
        let ptx = super::ptx::source()?;
        let gpu = Gpu::open(ordinal, &ptx)?;
        let k = Kernels {
            init: gpu.function("bfs_init")?,
            td_chunks: gpu.function("bfs_td_chunks")?,
            td_select: gpu.function("bfs_td_select")?,
            td_relax: gpu.function("bfs_td_relax")?,
            bottom_up: gpu.function("bfs_bottom_up")?,
            build_sv: gpu.function("vertex_build_sv")?,
            check_tree: gpu.function("vertex_check_bfs_tree")?,
            plan: gpu.function("vertex_plan_level")?,
            plan_pass: gpu.function("vertex_plan_pass")?,
            naive: gpu.function("bfs_naive_level")?,
            balanced: gpu.function("bfs_balanced_level")?,
            min_naive: gpu.function("bfs_min_naive_level")?,
            min_balanced: gpu.function("bfs_min_balanced_level")?,
        };
        Ok(Device { gpu, k })
    }

    /// Name, memory and so on.
    pub fn info(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        self.gpu.free_memory()
    }

    /// Measured device-to-device copy bandwidth, GB/s (see [`Gpu::copy_bandwidth_gbs`]).
    pub fn copy_bandwidth_gbs(&self) -> Result<f64> {
        self.gpu.copy_bandwidth_gbs()
    }

    /// Copies a graph's CSR to the device (weights are not needed by BFS and stay
    /// behind). Checks free memory first.
    pub fn upload<W: Weight>(&self, csr: &Csr<W>) -> Result<DeviceGraph> {
        self.upload_graph(csr, false)
    }

    /// Like [`Self::upload`], and the edge weights too (for weighted programs).
    pub fn upload_weighted<W: Weight>(&self, csr: &Csr<W>) -> Result<DeviceGraph> {
        self.upload_graph(csr, true)
    }

    /// Checks, before anything is uploaded or allocated, that a direction-optimizing
    /// traversal of `g` fits: the CSR (and its transpose unless symmetric), state
    /// and parents, bitmaps and the work list. The error names what was asked for
    /// and how much is free ([`Error::GpuOutOfMemory`]).
    pub fn check_traversal_fits<W: Weight>(
        &self,
        g: &Graph<W>,
        state_size: usize,
        parents: bool,
        chunk: u64,
    ) -> Result<()> {
        let (n, m) = (g.num_vertices() as u64, g.num_edges());
        self.check_traversal_size_fits(n, m, g.is_symmetric(), state_size, parents, chunk, 0)
    }

    /// [`Self::check_traversal_fits`] for a graph known by its size only, e.g.
    /// an upper bound before the graph is generated, so that a run that cannot
    /// fit stops before minutes of construction; `extra` bytes are added (other
    /// buffers the caller will hold at the same time).
    #[allow(clippy::too_many_arguments)]
    pub fn check_traversal_size_fits(
        &self,
        n: u64,
        m: u64,
        symmetric: bool,
        state_size: usize,
        parents: bool,
        chunk: u64,
        extra: u64,
    ) -> Result<()> {
        let (nu, mu) = (n as usize, m as usize);
        let csr = DevBuf::<u64>::bytes_for(nu + 1) + DevBuf::<u32>::bytes_for(mu);
        let graph = if symmetric { csr } else { 2 * csr };
        let arrays = DevBuf::<u8>::bytes_for(nu.saturating_mul(state_size))
            + if parents {
                DevBuf::<u32>::bytes_for(nu)
            } else {
                0
            }
            + GpuDirection::bytes(n, m, chunk.max(1), state_size);
        self.gpu.check_fits(
            &format!(
                "a traversal of {n} vertices and {m} edges (graph, state, bitmaps, work list{})",
                if extra > 0 {
                    ", validation buffers"
                } else {
                    ""
                }
            ),
            graph.saturating_add(arrays).saturating_add(extra),
        )
    }

    /// Uploads one part of a multi-GPU partition: its slice of the out-edges (and
    /// their weights if `weights`) and its vertices' in-edges.
    pub fn upload_part<W: Weight>(
        &self,
        pg: &super::multi::PartGraph<W>,
        weights: bool,
    ) -> Result<DeviceGraph> {
        let n = pg.incoming.num_vertices();
        let m_in = pg.incoming.num_edges() as usize;
        self.gpu.check_fits(
            &format!("in-edges of a graph part ({m_in} edges)"),
            DevBuf::<u64>::bytes_for(n + 1) + DevBuf::<u32>::bytes_for(m_in),
        )?;
        let offsets = self
            .gpu
            .upload(pg.incoming.offsets(), "part in-edge offsets")?;
        let sources = self
            .gpu
            .upload(pg.incoming.targets(), "part in-edge sources")?;
        let mut d = self.upload_graph(&pg.out, weights)?;
        d.incoming = Incoming::Transpose { offsets, sources };
        Ok(d)
    }

    /// Uploads a graph with what direction-optimizing traversal needs: nothing
    /// more for a symmetric graph, the transpose (in-edges) otherwise; weights too
    /// if `weights`. Memory is checked for both before anything is allocated.
    pub fn upload_traversal<W: Weight>(&self, g: &Graph<W>, weights: bool) -> Result<DeviceGraph> {
        if g.is_symmetric() {
            let mut d = self.upload_graph(g.csr(), weights)?;
            d.incoming = Incoming::Symmetric;
            return Ok(d);
        }
        let (n, m) = (g.num_vertices(), g.num_edges() as usize);
        self.gpu.check_fits(
            &format!("graph CSR and transpose ({n} vertices, {m} edges)"),
            2 * (DevBuf::<u64>::bytes_for(n + 1) + DevBuf::<u32>::bytes_for(m)),
        )?;
        let csc = g.csc();
        let offsets = self.gpu.upload(csc.offsets(), "transpose offsets")?;
        let sources = self.gpu.upload(csc.targets(), "transpose sources")?;
        let mut d = self.upload_graph(g.csr(), weights)?;
        d.incoming = Incoming::Transpose { offsets, sources };
        Ok(d)
    }

    fn upload_graph<W: Weight>(&self, csr: &Csr<W>, with_weights: bool) -> Result<DeviceGraph> {
        let n = csr.num_vertices();
        let m = csr.num_edges() as usize;
        let weight_bytes = match (with_weights, csr.weights()) {
            (true, Some(w)) => Some(bytemuck::cast_slice::<W, u8>(w)),
            _ => None,
        };
        let bytes = DevBuf::<u64>::bytes_for(n + 1)
            + DevBuf::<u32>::bytes_for(m)
            + weight_bytes.map_or(0, |w| DevBuf::<u8>::bytes_for(w.len()));
        self.gpu
            .check_fits(&format!("graph CSR ({n} vertices, {m} edges)"), bytes)?;
        let offsets = self.gpu.upload(csr.offsets(), "CSR offsets")?;
        let targets = self.gpu.upload(csr.targets(), "CSR targets")?;
        let weights = match weight_bytes {
            Some(w) => Some(self.gpu.upload(w, "edge weights")?),
            None => None,
        };
        self.gpu.sync("graph upload")?;
        Ok(DeviceGraph {
            n: n as u64,
            m: m as u64,
            offsets,
            targets,
            weights,
            host_offsets: csr.offsets().to_vec(),
            incoming: Incoming::Unknown,
        })
    }

    /// BFS from `source` on an uploaded graph.
    pub fn bfs(&self, g: &DeviceGraph, source: u32, opts: &GpuBfsOptions) -> Result<GpuBfsResult> {
        let opts = &opts.builtin()?;
        opts.validate()?;
        if u64::from(source) >= g.n {
            return Err(Error::InvalidArgument(format!(
                "source {source} is not a vertex (the graph has {} vertices)",
                g.n
            )));
        }
        if opts.kernel == BfsKernel::Direction {
            return self.bfs_direction(g, source, opts);
        }
        let n = g.n as usize;
        let balanced = opts.kernel == BfsKernel::Balanced;
        let nchunks = if balanced {
            kernels_rs::skeleton::num_chunks(g.m, opts.max_edge_count)
        } else {
            0
        };
        let ring = driver::ring_size(opts.levels_per_sync) as usize;
        let bytes = DevBuf::<u32>::bytes_for(n)
            + if opts.parents {
                DevBuf::<u32>::bytes_for(n)
            } else {
                0
            }
            + DevBuf::<u32>::bytes_for(nchunks as usize)
            + DevBuf::<u32>::bytes_for(ring);
        self.gpu.check_fits(
            &format!(
                "BFS arrays (levels{}, SV of {nchunks} chunks)",
                if opts.parents { ", parents" } else { "" }
            ),
            bytes,
        )?;
        let mut exec = GpuExec {
            dev: self,
            g,
            opts,
            state: self.gpu.alloc::<u32>(n, "BFS levels")?,
            parents: if opts.parents {
                Some(self.gpu.alloc::<u32>(n, "BFS parents")?)
            } else {
                None
            },
            sv: self.gpu.alloc::<u32>(nchunks as usize, "SV")?,
            nchunks,
            flags: self.gpu.alloc::<u32>(ring, "level flags")?,
            host_flags: vec![0; ring],
            events: Events::default(),
        };
        self.gpu.sync("BFS buffer allocation")?;

        let wall = Instant::now();
        let stats = driver::run_levels(&mut exec, source, balanced, opts.levels_per_sync, g.n)?;
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;

        let ev = &exec.events;
        let (Some(start), Some(end)) = (ev.start.as_ref(), ev.last_read.as_ref()) else {
            return Err(Error::Cuda {
                call: "BFS timing".into(),
                msg: "no events were recorded".into(),
            });
        };
        let time_ms = Gpu::elapsed_ms(start, end)?;
        let init_ms = pair_ms(&ev.init)?;
        let sv_build_ms = pair_ms(&ev.sv)?;
        let mut per_level_ms = Vec::with_capacity(stats.num_levels as usize);
        for (a, b) in ev.levels.iter().take(stats.num_levels as usize) {
            per_level_ms.push(Gpu::elapsed_ms(a, b)?);
        }
        let kernels: f64 = init_ms + sv_build_ms + per_level_ms.iter().sum::<f64>();

        let mut levels = vec![0u32; n];
        self.gpu.download(&exec.state, &mut levels, "BFS levels")?;
        let parents = match &exec.parents {
            Some(p) => {
                let mut out = vec![0u32; n];
                self.gpu.download(p, &mut out, "BFS parents")?;
                Some(out)
            }
            None => None,
        };
        let (reached, edges_traversed) = reach_counts(&g.host_offsets, &levels);
        Ok(GpuBfsResult {
            levels,
            parents,
            num_levels: stats.num_levels,
            reached,
            edges_traversed,
            time_ms,
            wall_ms,
            init_ms,
            sv_build_ms,
            per_level_ms,
            check_end_ms: (time_ms - kernels).max(0.0),
            launched_levels: stats.launched,
            syncs: stats.syncs,
            directions: Vec::new(),
        })
    }

    /// [`BfsKernel::Direction`]: the direction-optimizing loop over the
    /// `kernels_rs::bfs::Bfs` kernels.
    fn bfs_direction(
        &self,
        g: &DeviceGraph,
        source: u32,
        opts: &GpuBfsOptions,
    ) -> Result<GpuBfsResult> {
        let n = g.n as usize;
        let chunk = opts.max_edge_count;
        let arrays = if opts.parents { 2 } else { 1 } * DevBuf::<u32>::bytes_for(n);
        self.gpu.check_fits(
            "direction-optimizing BFS arrays (levels, bitmaps, work list)",
            arrays + GpuDirection::bytes(g.n, g.m, chunk, 4),
        )?;
        let state = self.gpu.alloc::<u32>(n, "BFS levels")?;
        let parents = match opts.parents {
            true => Some(self.gpu.alloc::<u32>(n, "BFS parents")?),
            false => None,
        };
        let k = DirectionKernels {
            init: &self.k.init,
            td_chunks: &self.k.td_chunks,
            td_select: &self.k.td_select,
            td_relax: &self.k.td_relax,
            bottom_up: &self.k.bottom_up,
            plan: &self.k.plan,
            plan_pass: &self.k.plan_pass,
            name: "bfs",
        };
        let pptr = parents.as_ref().map_or(0, |p| p.ptr);
        let mut exec =
            GpuDirection::new(&self.gpu, k, g, chunk, opts.block_size, state.ptr, pptr, 4)?;
        self.gpu.sync("BFS buffer allocation")?;
        let wall = Instant::now();
        let pull = opts.pull == Pull::Auto && g.incoming().is_some();
        let (log, syncs) = direction::drive_levels(
            &mut exec,
            g.n,
            g.m,
            Some(source),
            pull.then_some(0u32),
            |l| Some(l + 1),
            opts.levels_per_sync,
        )?;
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let (Some(start), Some(end)) = (exec.start.as_ref(), exec.end.as_ref()) else {
            return Err(Error::Cuda {
                call: "BFS timing".into(),
                msg: "no events were recorded".into(),
            });
        };
        let time_ms = Gpu::elapsed_ms(start, end)?;
        let launched_levels = exec.levels.len() as u32;
        let per_level_ms = exec
            .levels
            .iter()
            .take(log.len())
            .map(|(a, b)| Gpu::elapsed_ms(a, b))
            .collect::<Result<Vec<f64>>>()?;
        let mut levels = vec![0u32; n];
        self.gpu.download(&state, &mut levels, "BFS levels")?;
        let parents = match &parents {
            Some(p) => {
                let mut out = vec![0u32; n];
                self.gpu.download(p, &mut out, "BFS parents")?;
                Some(out)
            }
            None => None,
        };
        let (reached, edges_traversed) = reach_counts(&g.host_offsets, &levels);
        let rounds = log.len() as u32;
        Ok(GpuBfsResult {
            levels,
            parents,
            num_levels: rounds,
            reached,
            edges_traversed,
            time_ms,
            wall_ms,
            init_ms: 0.0,
            sv_build_ms: 0.0,
            check_end_ms: (time_ms - per_level_ms.iter().sum::<f64>()).max(0.0),
            per_level_ms,
            launched_levels,
            syncs,
            directions: log,
        })
    }
}

fn pair_ms(p: &Option<(CudaEvent, CudaEvent)>) -> Result<f64> {
    match p {
        Some((a, b)) => Gpu::elapsed_ms(a, b),
        None => Ok(0.0),
    }
}

#[derive(Default)]
struct Events {
    start: Option<CudaEvent>,
    init: Option<(CudaEvent, CudaEvent)>,
    sv: Option<(CudaEvent, CudaEvent)>,
    levels: Vec<(CudaEvent, CudaEvent)>,
    last_read: Option<CudaEvent>,
}

/// [`LevelExec`] on the GPU: launches, with an event pair around each kernel.
struct GpuExec<'a> {
    dev: &'a Device,
    g: &'a DeviceGraph,
    opts: &'a GpuBfsOptions,
    state: DevBuf<u32>,
    parents: Option<DevBuf<u32>>,
    sv: DevBuf<u32>,
    nchunks: u64,
    flags: DevBuf<u32>,
    host_flags: Vec<u32>,
    events: Events,
}

impl GpuExec<'_> {
    fn gpu(&self) -> &Gpu {
        &self.dev.gpu
    }

    fn parents_ptr(&self) -> u64 {
        self.parents.as_ref().map_or(0, |p| p.ptr)
    }
}

/// Launches kernel `$f` on `$gpu`'s stream with the listed arguments (each a
/// reference to a `u64`/`u32` matching the kernel's parameter list), mapping errors.
macro_rules! launch {
    ($gpu:expr, $f:expr, $cfg:expr, $what:expr; $($arg:expr),+ $(,)?) => {{
        let mut b = $gpu.stream.launch_builder($f);
        $( b.arg($arg); )+
        // SAFETY: every kernel's parameter list is the one documented in
        // kernels_rs::entry, and the arguments above follow it exactly (u64 device
        // pointers into live buffers of the documented lengths, u64/u32 scalars).
        unsafe { b.launch($cfg) }
            .map(|_| ())
            .map_err(super::cuda::cuda_err(&format!("cuLaunchKernel({})", $what)))
    }};
}

impl LevelExec for GpuExec<'_> {
    fn init(&mut self, source: u32, ring: u32) -> Result<()> {
        let mut ring_init = vec![0u32; ring as usize];
        ring_init[0] = 1;
        self.dev
            .gpu
            .write(&mut self.flags, &ring_init, "level flags")?;
        self.events.start = Some(self.gpu().record()?);
        let n = self.g.n;
        let (state, parents) = (self.state.ptr, self.parents_ptr());
        let cfg = Gpu::grid_for(n, self.opts.block_size);
        let a = self.gpu().record()?;
        launch!(self.gpu(), &self.dev.k.init, cfg, "bfs_init"; &n, &source, &state, &parents)?;
        self.events.init = Some((a, self.gpu().record()?));
        Ok(())
    }

    fn build_sv(&mut self) -> Result<()> {
        let (n, offsets, mec, sv, nchunks) = (
            self.g.n,
            self.g.offsets.ptr,
            self.opts.max_edge_count,
            self.sv.ptr,
            self.nchunks,
        );
        let cfg = Gpu::grid_for(n, self.opts.block_size);
        let a = self.gpu().record()?;
        launch!(self.gpu(), &self.dev.k.build_sv, cfg, "vertex_build_sv"; &n, &offsets, &mec, &sv, &nchunks)?;
        self.events.sv = Some((a, self.gpu().record()?));
        Ok(())
    }

    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
        let k = &self.dev.k;
        let balanced = self.opts.kernel == BfsKernel::Balanced;
        let (f, name) = match (balanced, self.opts.combine) {
            (false, BfsCombine::Store) => (&k.naive, "bfs_naive_level"),
            (true, BfsCombine::Store) => (&k.balanced, "bfs_balanced_level"),
            (false, BfsCombine::AtomicMin) => (&k.min_naive, "bfs_min_naive_level"),
            (true, BfsCombine::AtomicMin) => (&k.min_balanced, "bfs_min_balanced_level"),
        };
        let (n, m, offsets, targets) = (self.g.n, self.g.m, self.g.offsets.ptr, self.g.targets.ptr);
        let (weights, state, parents, null) = (0u64, self.state.ptr, self.parents_ptr(), 0u64);
        let (flags, nflags) = (self.flags.ptr, self.flags.len as u32);
        let (sv, nchunks, mec) = (self.sv.ptr, self.nchunks, self.opts.max_edge_count);
        let work = if balanced { nchunks } else { n };
        let cfg = Gpu::grid_for(work, self.opts.block_size);
        let a = self.gpu().record()?;
        if balanced {
            launch!(self.gpu(), f, cfg, name;
                &n, &m, &offsets, &targets, &weights, &state, &parents, &null, &null,
                &flags, &nflags, &slot_in, &slot_out, &iter, &sv, &nchunks, &mec)?;
        } else {
            launch!(self.gpu(), f, cfg, name;
                &n, &m, &offsets, &targets, &weights, &state, &parents, &null, &null,
                &flags, &nflags, &slot_in, &slot_out, &iter)?;
        }
        let e = self.gpu().record()?;
        self.events.levels.push((a, e));
        Ok(())
    }

    fn read_flags(&mut self) -> Result<Vec<u32>> {
        let gpu = &self.dev.gpu;
        let mut host = std::mem::take(&mut self.host_flags);
        gpu.stream
            .memcpy_dtoh(&self.flags.slice.slice(0..self.flags.len), &mut host[..])
            .map_err(super::cuda::cuda_err("cuMemcpyDtoH(level flags)"))?;
        self.events.last_read = Some(gpu.record()?);
        gpu.sync("BFS level kernels")?;
        self.host_flags = host.clone();
        Ok(host)
    }
}

/// One-shot BFS: open device 0, upload, run.
pub fn bfs<W: Weight>(graph: &Csr<W>, source: u32, opts: &GpuBfsOptions) -> Result<GpuBfsResult> {
    let dev = Device::open(0)?;
    let g = dev.upload(graph)?;
    dev.bfs(&g, source, opts)
}
