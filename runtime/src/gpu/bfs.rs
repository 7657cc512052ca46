//! BFS on the GPU: the seed 000 kernels (naive full scan, edge-chunk balanced)
//! driven through `driver`, or the direction-optimizing kernel through
//! [`super::direction`], timed with CUDA events. A front end: the options and
//! result types of the built-in BFS, and [`Device::bfs`].
//!
//! [`Device`], [`DeviceGraph`] ([`super::device`]) and the kernel settings
//! ([`super::options`]) are re-exported here, where they were first defined.

use std::time::Instant;

use kernels_rs::bfs::{Bfs, BfsAtomicMin};
use rayon::prelude::*;

use super::cuda::{DevBuf, Gpu};
use super::direction::{self, DirGraph, DirectionKernels, DirectionRun, LevelLog};
use super::driver;
use super::launcher::{graph_args, Arg, DeviceLauncher, Launcher};
use super::levels::{LevelKernels, LevelRun, LevelSetup};
use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

pub use super::device::{Device, DeviceGraph};
use super::options::Pull;
pub use super::options::{BfsKernel, DEFAULT_LEVELS_PER_SYNC, DEFAULT_MAX_EDGE_COUNT};
use kernels_rs::direction::Heuristic;

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
    /// Direction kernel: Beamer's α and β, where it switches direction.
    #[serde(with = "super::options::HeuristicJson")]
    pub heuristic: Heuristic,
}

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
            heuristic: Heuristic::DEFAULT,
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
            BfsKernel::Resident | BfsKernel::Tiles => Err(Error::InvalidArgument(
                "the resident and tiled kernels run #[vertex_program] programs (e.g. `vertex bfs --kernel resident`), not the built-in BFS kernels".into(),
            )),
            _ => Ok(*self),
        }
    }

    /// Checks the settings against a graph.
    pub fn validate(&self) -> Result<()> {
        super::options::validate_launch(
            self.kernel,
            self.max_edge_count,
            self.block_size,
            self.levels_per_sync,
        )?;
        super::options::validate_heuristic(self.heuristic)
    }
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

/// Vertices reached and CSR entries out of them (`u32::MAX` = unreached): the
/// numerator of a BFS's TEPS, public so that benchmarks count as a run does.
pub fn reach_counts(offsets: &[u64], levels: &[u32]) -> (u64, u64) {
    levels
        .par_iter()
        .enumerate()
        .filter(|(_, &l)| l != u32::MAX)
        .map(|(v, _)| (1u64, offsets[v + 1] - offsets[v]))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

impl Device {
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
        let balanced = opts.kernel == BfsKernel::Balanced;
        let ring = driver::ring_size(opts.levels_per_sync);
        let arrays = if opts.parents { 2 } else { 1 } * DevBuf::<u32>::bytes_for(g.n as usize);
        let extra =
            LevelRun::<DeviceLauncher>::bytes(g.n, g.m, balanced, opts.max_edge_count, ring, false);
        self.gpu.check_fits(
            &format!(
                "BFS arrays (levels{}, SV)",
                if opts.parents { ", parents" } else { "" }
            ),
            arrays + extra,
        )?;
        let k = &self.k;
        let (naive, balanced_fn, name) = match opts.combine {
            BfsCombine::Store => (&k.naive, &k.balanced, "bfs"),
            BfsCombine::AtomicMin => (&k.min_naive, &k.min_balanced, "bfs_min"),
        };
        let devices = [&k.init, &k.build_sv, naive, balanced_fn];
        let names = [
            "bfs_init",
            "vertex_build_sv",
            &format!("{name}_naive_level"),
            &format!("{name}_balanced_level"),
        ];
        let kernels = match opts.combine {
            BfsCombine::Store => LevelKernels::of::<Bfs>(names, Some(devices)),
            BfsCombine::AtomicMin => LevelKernels::of::<BfsAtomicMin>(names, Some(devices)),
        };
        let l = DeviceLauncher { gpu: &self.gpu };
        let graph = graph_args(g.n, g.m, g.offsets.ptr, g.targets.ptr, 0);
        bfs_levels(&l, kernels, graph, &g.host_offsets, source, opts)
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
            arrays + DirectionRun::<DeviceLauncher>::bytes(g.n, g.m, chunk, 4),
        )?;
        let state = self.gpu.alloc::<u32>(n, "BFS levels")?;
        let parents = match opts.parents {
            true => Some(self.gpu.alloc::<u32>(n, "BFS parents")?),
            false => None,
        };
        let k = &self.k;
        let fns = [
            &k.init,
            &k.td_chunks,
            &k.td_select,
            &k.td_relax,
            &k.bottom_up,
            &k.plan,
            &k.plan_pass,
            &k.td_scan,
            &k.build_sv,
            &k.level,
        ];
        let names = [
            "bfs_init",
            "bfs_td_chunks",
            "bfs_td_select",
            "bfs_td_relax",
            "bfs_bottom_up",
            "vertex_plan_level",
            "vertex_plan_pass",
            "bfs_td_scan",
            "vertex_build_sv",
            "bfs_level",
        ];
        let kernels = DirectionKernels::of::<Bfs>("bfs", names, Some(fns));
        let pptr = parents.as_ref().map_or(0, |p| p.ptr);
        let l = DeviceLauncher { gpu: &self.gpu };
        let mut exec = DirectionRun::new(
            l,
            kernels,
            DirGraph::of(g),
            chunk,
            opts.block_size,
            state.ptr,
            pptr,
            4,
        )?;
        exec.heuristic = opts.heuristic;
        // One GPU: each batch of planned levels is one CUDA graph.
        exec.graphs = true;
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
        drop(exec);
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

/// The seed 000 BFS on any launcher: `graph` the CSR's arguments, `offsets`
/// its host copy (for the reach counts). The device and the emulator both run
/// this, with their own launcher.
pub(crate) fn bfs_levels<L: Launcher>(
    l: &L,
    kernels: LevelKernels<'_>,
    graph: [Arg; 5],
    offsets: &[u64],
    source: u32,
    opts: &GpuBfsOptions,
) -> Result<GpuBfsResult> {
    let n = graph[0].u64();
    let balanced = opts.kernel == BfsKernel::Balanced;
    let state = l.zeros::<u32>(n as usize, "BFS levels")?;
    let parents = match opts.parents {
        true => Some(l.zeros::<u32>(n as usize, "BFS parents")?),
        false => None,
    };
    let mut exec = LevelRun::new(
        l,
        kernels,
        LevelSetup {
            graph,
            block: opts.block_size,
            balanced,
            max_edge_count: opts.max_edge_count,
            ring: driver::ring_size(opts.levels_per_sync),
            state: L::addr(&state),
            parents: parents.as_ref().map_or(0, L::addr),
            stamps: None,
            time_levels: true,
        },
    )?;
    // Allocation and uploads are done before the clock starts.
    l.sync("BFS buffer allocation")?;
    let wall = Instant::now();
    let stats = driver::run_levels(&mut exec, source, balanced, opts.levels_per_sync, n)?;
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
    let m = &exec.marks;
    let (Some(start), Some(end)) = (m.start.as_ref(), m.end.as_ref()) else {
        return Err(Error::Cuda {
            call: "BFS timing".into(),
            msg: "no events were recorded".into(),
        });
    };
    let time_ms = l.elapsed_ms(start, end)?;
    let pair = |p: &Option<(L::Mark, L::Mark)>| match p {
        Some((a, b)) => l.elapsed_ms(a, b),
        None => Ok(0.0),
    };
    let init_ms = pair(&m.init)?;
    let sv_build_ms = pair(&m.sv)?;
    let per_level_ms = m
        .levels
        .iter()
        .take(stats.num_levels as usize)
        .map(|(a, b)| l.elapsed_ms(a, b))
        .collect::<Result<Vec<f64>>>()?;
    let kernels: f64 = init_ms + sv_build_ms + per_level_ms.iter().sum::<f64>();
    let levels = l.read(&state, "BFS levels")?;
    let parents = parents.map(|p| l.read(&p, "BFS parents")).transpose()?;
    let (reached, edges_traversed) = reach_counts(offsets, &levels);
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

/// One-shot BFS: open device 0, upload, run.
pub fn bfs<W: Weight>(graph: &Csr<W>, source: u32, opts: &GpuBfsOptions) -> Result<GpuBfsResult> {
    let dev = Device::open(0)?;
    let g = dev.upload(graph)?;
    dev.bfs(&g, source, opts)
}
