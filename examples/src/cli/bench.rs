//! `vertex bench graph500`: the Graph500 BFS benchmark on a CPU or GPU engine.
//!
//! The rules (generation, roots, validation of every tree, TEPS over input edges,
//! statistics) live in `vertex_bench::graph500`; this file only wires a backend
//! into it and writes the output block, `graph500-<backend>-s<scale>.json` and
//! `.svg` (machine and command line recorded in the JSON).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use runtime::cpu::{self, CpuOptions};
use runtime::gpu::{BfsKernel, Device, DeviceInfo, GpuBfsOptions, Heuristic, ProgramOptions};
use serde::Serialize;
use vertex_bench::graph500::{self, BfsRun, Graph500Config, Graph500Graph, Graph500Report};
use vertex_bench::host::HostInfo;
use vertex_bench::plot::{panels_svg, Panel};
use vertex_examples::programs::bfs;

/// Standard benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Graph500 BFS: construction, BFS from random roots, validation, TEPS.
    Graph500(Graph500Args),
    /// The GAP suite's six kernels (bfs sssp pr cc bc tc), ours (CPU, GPU when
    /// usable) vs gapbs on the same graphs, every result verified.
    Gap(super::bench_gap::GapArgs),
    /// Many sources at once: one batched BFS of K sources vs K single-source
    /// runs, on the GPU and the CPU (every batched result checked), and exact
    /// closeness on the GPU.
    Sources(super::bench_sources::SourcesArgs),
    /// Many sources at once for a gather/apply program: personalized PageRank
    /// from K sources as one batched run vs K single-source runs, on the CPU
    /// and the GPU (every batched score checked).
    Ppr(super::bench_ppr::PprArgs),
    /// GPU PageRank: the pagerank program vs the hand-written CUDA pull kernel
    /// (bench/cuda/pr_pull.cu) on the same undirected graphs, side by side,
    /// ranks validated (and gapbs on all cores with --gapbs).
    PrGpu(super::bench_prgpu::PrGpuArgs),
}

/// The engine under test.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// CPU sync engine running the BFS vertex program, parents recovered after.
    Cpu,
    /// Hand-written balanced GPU kernel computing parents on the device.
    Gpu,
    /// The BFS vertex program's generated GPU kernels, parents recovered on the host.
    GpuDsl,
}

impl Backend {
    pub(super) fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
            Backend::GpuDsl => "gpu-dsl",
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct Graph500Args {
    /// log2 of the number of vertices.
    #[arg(long)]
    pub scale: u32,
    /// Input edges per vertex.
    #[arg(long, default_value_t = 16)]
    pub edgefactor: u64,
    /// Number of BFS roots (NBFS).
    #[arg(long, default_value_t = 64)]
    pub roots: usize,
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// Seed of the generator and of the root choice.
    #[arg(long, default_value_t = runtime::generate::DEFAULT_SEED)]
    pub seed: u64,
    /// CPU worker threads (default: all).
    #[arg(long)]
    pub threads: Option<usize>,
    /// GPU level kernels to run, each on the same graph and roots (comma list:
    /// direction, balanced, naive); the first is the reference of the ratios.
    #[arg(long, value_delimiter = ',', default_value = "direction")]
    pub kernel: Vec<BfsKernel>,
    /// Edges per work item (direction: default 32; balanced: 64).
    #[arg(long)]
    pub max_edge_count: Option<u64>,
    /// GPU levels launched between two host waits (comma list; each value runs
    /// every kernel on the same graph and roots). 1: the host reads each level's
    /// counters and picks the next direction itself; more: the direction kernel
    /// plans its levels on the device (`kernels_rs::direction::plan_level`).
    #[arg(long, value_delimiter = ',', default_values_t = [runtime::gpu::DEFAULT_LEVELS_PER_SYNC])]
    pub levels_per_sync: Vec<u32>,
    /// Direction kernel: Beamer's α, bottom-up once the frontier's out-edges
    /// exceed the unexplored edges / α (comma list: each value runs on the same
    /// graph and roots, one after another, so they compare side by side).
    #[arg(long, value_delimiter = ',', default_values_t = [runtime::gpu::direction::ALPHA])]
    pub alpha: Vec<u64>,
    /// Direction kernel: Beamer's β, back to top-down once the shrinking
    /// frontier holds at most n / β vertices.
    #[arg(long, default_value_t = runtime::gpu::direction::BETA)]
    pub beta: u64,
    /// One GPU: each batch of device-planned levels as one CUDA graph (`on`)
    /// or launch by launch (`off`); a comma list runs each on the same graph
    /// and roots, one after another.
    /// (default: on, unless VERTEX_CUDA_GRAPHS=0).
    #[arg(long, value_delimiter = ',')]
    pub cuda_graphs: Vec<crate::cli::common::OnOff>,
    /// GPUs (> 1: the BFS program's direction kernels on a 1-D partition, the
    /// GPUs exchanging frontier slices between levels).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// With --gpus N: how the GPUs exchange (default: peer access where every
    /// pair has it, else NCCL; VERTEX_EXCHANGE sets the default too).
    #[arg(long, value_enum)]
    pub exchange: Option<crate::cli::common::Exchange>,
    /// Order of each vertex's neighbours, set during (timed) construction:
    /// `degree` puts hubs first so bottom-up BFS levels stop early, `id` keeps
    /// the builder's order.
    #[arg(long, value_enum, default_value_t = NeighborOrder::Degree)]
    pub neighbor_order: NeighborOrder,
    /// Where every BFS tree is validated (same Graph500 rules): `host` (16 cores
    /// take ~3 s per tree at scale 27) or `gpu` (the tree the host received,
    /// uploaded back and checked by a separate kernel; GPU backends; with
    /// `--gpus N` each GPU checks its own vertices on the edges it holds).
    #[arg(long, value_enum, default_value_t = Validator::Host)]
    pub validator: Validator,
    /// Where to write the JSON and SVG.
    #[arg(long, default_value = "docs/results")]
    pub out: PathBuf,
    /// Print one JSON object (`{"runs": [...]}`, one entry per kernel and levels per
    /// sync, as written to the files) on stdout; the report goes to stderr.
    #[arg(long)]
    pub json: bool,
}

impl Graph500Args {
    /// The direction kernel's switch points these options ask for, one per
    /// `--alpha` value, each checked.
    pub(super) fn heuristics(&self) -> anyhow::Result<Vec<Heuristic>> {
        if self.alpha.is_empty() {
            bail!("--alpha needs at least one value");
        }
        Ok(self
            .alpha
            .iter()
            .map(|&alpha| {
                let h = Heuristic {
                    alpha,
                    beta: self.beta,
                };
                runtime::gpu::options::validate_heuristic(h).map(|()| h)
            })
            .collect::<runtime::Result<Vec<_>>>()?)
    }

    /// The benchmark's configuration these options ask for.
    pub(super) fn config(&self) -> Graph500Config {
        Graph500Config {
            scale: self.scale,
            edgefactor: self.edgefactor,
            roots: self.roots,
            seed: self.seed,
            hubs_first: self.neighbor_order == NeighborOrder::Degree,
        }
    }
}

/// `--validator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Validator {
    Host,
    Gpu,
}

/// `--neighbor-order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NeighborOrder {
    Degree,
    Id,
}

#[derive(Serialize)]
pub(super) struct Output<'a> {
    pub host: HostInfo,
    pub device: Option<DeviceInfo>,
    pub command_line: String,
    /// GPU backends run untimed searches first (module JIT, first touch; on
    /// one GPU two, the second capturing the CUDA graph).
    pub warmup: bool,
    /// What `bfs_time` covers for this backend.
    pub timing: &'static str,
    /// GPU level kernel and its edges per work item (GPU backends).
    pub kernel: Option<String>,
    pub max_edge_count: Option<u64>,
    /// GPU levels per host wait (single-GPU backends and GPU ranks).
    pub levels_per_sync: Option<u32>,
    /// The direction kernel's switch points (GPU backends in one process).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<u64>,
    /// One GPU: whether planned batches ran as CUDA graphs, and how many did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cuda_graphs: Option<runtime::gpu::graphs::GraphStats>,
    /// Over ranks: rank 0's mean time per BFS in the exchanges (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange_ms_mean: Option<f64>,
    /// GPU ranks: each rank's mean per BFS of its per-level time split and
    /// of its host time outside the levels (ms), in rank order (a rank's
    /// all-gather includes waiting for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_split_mean: Option<Vec<(runtime::gpu::multi::TimeSplit, f64)>>,
    pub report: &'a Graph500Report,
}

pub fn run(c: BenchCommand) -> anyhow::Result<()> {
    match c {
        BenchCommand::Graph500(a) => graph500_cmd(a),
        BenchCommand::Gap(a) => super::bench_gap::run(a),
        BenchCommand::Sources(a) => super::bench_sources::run_sources(a),
        BenchCommand::Ppr(a) => super::bench_ppr::run_ppr(a),
        BenchCommand::PrGpu(a) => super::bench_prgpu::run(a),
    }
}

fn graph500_cmd(a: Graph500Args) -> anyhow::Result<()> {
    if let Some(env) = runtime::dist::RankEnv::from_env()?.filter(|e| e.world > 1) {
        return super::dist_graph500::graph500_ranks(a, env);
    }
    let cfg = a.config();
    crate::cli::common::check_exchange(a.gpus, a.exchange)?;
    if a.gpus > 1 && !a.cuda_graphs.is_empty() {
        // The parts' exchange sits between their levels on the stream, so their
        // batches are never captured: a comparison would compare nothing.
        bail!(
            "--cuda-graphs applies to one GPU: with --gpus {} the levels launch directly",
            a.gpus
        );
    }
    if a.validator == Validator::Gpu && a.backend == Backend::Cpu {
        bail!("--validator gpu needs --backend gpu or gpu-dsl");
    }
    let heuristics = a.heuristics()?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    // Open the device before generating so a missing GPU fails fast.
    let dev = match a.backend {
        Backend::Cpu => None,
        Backend::Gpu | Backend::GpuDsl => Some(Device::open(0)?),
    };
    eprintln!(
        "graph500: scale {} edgefactor {} ({} backend)",
        a.scale,
        a.edgefactor,
        a.backend.name()
    );
    // A scale the GPU cannot hold stops here, before minutes of construction
    // (the exact check runs again on the built graph); the host side is checked
    // by `construct` itself.
    if let (Some(dev), 1) = (&dev, a.gpus) {
        let (n, m) = graph500::size_bound(&cfg);
        let chunk = a
            .kernel
            .iter()
            .map(|&k| a.max_edge_count.unwrap_or(default_mec(k)))
            .min()
            .unwrap_or(1);
        let validation = match a.validator {
            Validator::Gpu => 2 * 4 * n,
            Validator::Host => 0,
        };
        dev.check_traversal_size_fits(n, m, true, 4, true, chunk, validation)?;
    }
    let g = graph500::construct(&cfg)?;
    eprintln!(
        "  {} vertices, {} CSR entries; generation {:.3} s, construction {:.3} s",
        g.graph.num_vertices(),
        g.graph.num_edges(),
        g.generation_time,
        g.construction_time
    );
    if a.levels_per_sync.is_empty() || a.levels_per_sync.iter().any(|&l| !(1..=64).contains(&l)) {
        bail!("--levels-per-sync takes values in 1..=64");
    }
    // Every kernel at every levels-per-sync value (one GPU) and every α (GPUs);
    // the CPU has no such choice, the multi-GPU loop no levels per sync.
    #[allow(clippy::type_complexity)]
    let runs: Vec<(
        Option<BfsKernel>,
        Option<u32>,
        Option<Heuristic>,
        Option<bool>,
    )> = match dev {
        Some(_) => {
            let lps: Vec<Option<u32>> = match a.gpus > 1 {
                true => vec![None],
                false => a.levels_per_sync.iter().map(|&l| Some(l)).collect(),
            };
            let graphs: Vec<Option<bool>> = match a.gpus > 1 {
                true => vec![None],
                false if a.cuda_graphs.is_empty() => vec![None],
                false => a.cuda_graphs.iter().map(|g| Some(g.on())).collect(),
            };
            let mut runs = Vec::new();
            for &g in &graphs {
                for &h in &heuristics {
                    for &l in &lps {
                        runs.extend(a.kernel.iter().map(|&k| (Some(k), l, Some(h), g)));
                    }
                }
            }
            runs
        }
        None => vec![(None, None, None, None)],
    };
    let mut first_hmean = None;
    let mut invalid = Vec::new();
    let mut results = Vec::new();
    for (kernel, lps, h, graphs) in runs {
        let mec = kernel.map(|k| a.max_edge_count.unwrap_or(default_mec(k)));
        let before = match (&dev, graphs, a.gpus) {
            (Some(d), g, 1) => {
                if let Some(on) = g {
                    d.set_cuda_graphs(on)?;
                }
                Some(d.graph_stats()?.0)
            }
            _ => None,
        };
        let sync = lps.unwrap_or(runtime::gpu::DEFAULT_LEVELS_PER_SYNC);
        let heuristic = h.unwrap_or_default();
        let launch = |kernel, max_edge_count| Launch {
            kernel,
            max_edge_count,
            levels_per_sync: sync,
            heuristic,
        };
        let (report, timing) = match (&dev, a.backend, kernel, mec) {
            (Some(_), _, Some(_), Some(mec)) if a.gpus > 1 => (
                run_multi(a.gpus, a.exchange, &cfg, &g, mec, heuristic, a.validator)?,
                GPU_MULTI_TIMING,
            ),
            (Some(dev), Backend::Gpu, Some(k), Some(mec)) => (
                run_gpu(dev, &cfg, &g, launch(k, mec), a.validator)?,
                GPU_TIMING,
            ),
            (Some(dev), Backend::GpuDsl, Some(k), Some(mec)) => {
                let timing = if k == BfsKernel::Direction {
                    GPU_DSL_DIRECTION_TIMING
                } else {
                    GPU_DSL_TIMING
                };
                (
                    run_gpu_dsl(dev, &cfg, &g, launch(k, mec), a.validator)?,
                    timing,
                )
            }
            _ => (run_cpu(&cfg, &g, a.threads)?, CPU_TIMING),
        };
        let kname = kernel.map(kernel_name);
        let cuda_graphs = match (&dev, before) {
            (Some(d), Some(b)) => {
                let (now, off) = d.graph_stats()?;
                let used = now.since(b);
                eprintln!(
                    "CUDA graphs: {} batches replayed, {} captured, {} launch by launch{}",
                    used.replayed,
                    used.captured,
                    used.direct,
                    off.map_or(String::new(), |r| format!(" ({r})"))
                );
                Some(used)
            }
            _ => None,
        };
        if let Some(k) = &kname {
            eprintln!(
                "kernel: {k} (max_edge_count {}, levels per sync {}, α {}, β {})",
                mec.unwrap_or(0),
                lps.map_or("-".into(), |l| l.to_string()),
                heuristic.alpha,
                heuristic.beta
            );
        }
        if a.json {
            eprint!("{}", report.output_block());
        } else {
            print!("{}", report.output_block());
        }
        match (first_hmean, report.teps.harmonic_mean) {
            (None, Some(h)) => first_hmean = Some(h),
            (Some(f), Some(h)) => {
                eprintln!("harmonic-mean TEPS vs the first kernel: {:.3}x", h / f)
            }
            _ => {}
        }
        let out = Output {
            host: HostInfo::read(),
            device: dev.as_ref().map(|d| d.info().clone()),
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            warmup: dev.is_some(),
            timing,
            kernel: kname.clone(),
            max_edge_count: mec,
            levels_per_sync: lps,
            alpha: h.map(|h| h.alpha),
            beta: h.map(|h| h.beta),
            cuda_graphs,
            exchange_ms_mean: None,
            rank_split_mean: None,
            report: &report,
        };
        // The default levels per sync, α and β keep the plain name.
        let mut sync_tag = match lps {
            Some(l) if l != runtime::gpu::DEFAULT_LEVELS_PER_SYNC => format!("-sync{l}"),
            _ => String::new(),
        };
        if heuristic.alpha != runtime::gpu::direction::ALPHA {
            sync_tag += &format!("-a{}", heuristic.alpha);
        }
        if heuristic.beta != runtime::gpu::direction::BETA {
            sync_tag += &format!("-b{}", heuristic.beta);
        }
        if graphs == Some(false) {
            sync_tag += "-nographs";
        }
        let stem = match &kname {
            Some(k) if a.gpus > 1 => {
                format!("graph500-gpu-x{}-{k}{sync_tag}-s{}", a.gpus, a.scale)
            }
            Some(k) => format!("graph500-{}-{k}{sync_tag}-s{}", a.backend.name(), a.scale),
            None => format!("graph500-{}-s{}", a.backend.name(), a.scale),
        };
        let json = a.out.join(format!("{stem}.json"));
        std::fs::write(&json, serde_json::to_string_pretty(&out)?)
            .with_context(|| format!("writing {}", json.display()))?;
        results.push(serde_json::to_value(&out)?);
        let svg = a.out.join(format!("{stem}.svg"));
        chart(&report, &svg)?;
        eprintln!("wrote {} and {}", json.display(), svg.display());
        if !report.valid {
            for (root, msg) in report.failures.iter().take(5) {
                eprintln!("  root {root}: {msg}");
            }
            invalid.push(format!(
                "{}{sync_tag}: {} of {} BFS trees failed Graph500 validation",
                kname.unwrap_or_else(|| "cpu".into()),
                report.failures.len(),
                report.roots.len()
            ));
        }
    }
    if a.json {
        super::report::print_json(&serde_json::json!({ "runs": results }))?;
    }
    if !invalid.is_empty() {
        bail!("{}", invalid.join("; "));
    }
    Ok(())
}

pub(super) fn kernel_name(k: BfsKernel) -> String {
    format!("{k:?}").to_lowercase()
}

/// Edges per work item when none is given: the best of the sweeps on the H200
/// (74e218a:docs/results/h200/gpu-bfs.json).
fn default_mec(k: BfsKernel) -> u64 {
    match k {
        BfsKernel::Direction => runtime::gpu::direction::DEFAULT_CHUNK,
        _ => 64,
    }
}

const CPU_TIMING: &str = "wall time of the sync engine run plus parent recovery";
const GPU_TIMING: &str =
    "host wall time of the device traversal (parents on device, download excluded); device_seconds = CUDA events";
const GPU_MULTI_TIMING: &str =
    "host wall time of the multi-GPU traversal (direction kernels per GPU, NCCL all-gather per level, parents on device)";
const GPU_DSL_DIRECTION_TIMING: &str =
    "host wall time of the device traversal (the program's direction kernels, parents on device, download excluded); device_seconds = CUDA events";
const GPU_DSL_TIMING: &str =
    "host wall time of the device traversal plus host parent recovery from the downloaded levels; device_seconds = CUDA events";

fn run_cpu(
    cfg: &Graph500Config,
    g: &Graph500Graph,
    threads: Option<usize>,
) -> runtime::Result<Graph500Report> {
    let opts = CpuOptions {
        threads,
        ..CpuOptions::default()
    };
    graph500::run(cfg, g, "cpu", |root| {
        let t = Instant::now();
        let res = cpu::sync::run::<bfs::Program>(&g.graph, root, &opts)?;
        let parents = cpu::tree::parents::<bfs::Program>(&g.graph, root, &res.states);
        let seconds = t.elapsed().as_secs_f64();
        Ok(BfsRun {
            parents,
            levels: Some(res.states),
            seconds,
            device_seconds: None,
        })
    })
}

/// The GPU's verdict on a BFS tree (`root`, levels, parents): one GPU's
/// `check_bfs_tree` or a partition's.
type TreeCheck<'a> =
    dyn FnMut(u32, &[u32], &[u32]) -> runtime::Result<std::result::Result<(), String>> + 'a;

/// [`graph500::run`] with the trees validated where `validator` says: on the
/// host, or by `gpu_check`.
fn run_checked<F>(
    cfg: &Graph500Config,
    g: &Graph500Graph,
    backend: &str,
    validator: Validator,
    gpu_check: &mut TreeCheck,
    bfs: F,
) -> runtime::Result<Graph500Report>
where
    F: FnMut(u32) -> runtime::Result<BfsRun>,
{
    match validator {
        Validator::Host => graph500::run(cfg, g, backend, bfs),
        Validator::Gpu => graph500::run_validated(cfg, g, backend, bfs, "gpu", |root, r| {
            let levels = r.levels.as_deref().ok_or_else(|| {
                runtime::Error::InvalidArgument("GPU validation needs the BFS levels".into())
            })?;
            gpu_check(root, levels, &r.parents)
        }),
    }
}

/// One GPU run's kernel settings.
#[derive(Clone, Copy)]
struct Launch {
    kernel: BfsKernel,
    max_edge_count: u64,
    levels_per_sync: u32,
    heuristic: Heuristic,
}

/// Untimed searches before the timed roots on one GPU (see [`run_gpu`]).
const WARM_UP_SEARCHES: usize = 2;

fn run_gpu(
    dev: &Device,
    cfg: &Graph500Config,
    g: &Graph500Graph,
    launch: Launch,
    validator: Validator,
) -> anyhow::Result<Graph500Report> {
    dev.check_traversal_fits(&g.graph, 4, true, launch.max_edge_count)?;
    runtime::progress::status("graph500: uploading the graph to the GPU, warm-up run...");
    let dg = dev.upload_traversal(&g.graph, false)?;
    let opts = GpuBfsOptions {
        parents: true,
        kernel: launch.kernel,
        max_edge_count: launch.max_edge_count,
        levels_per_sync: launch.levels_per_sync,
        heuristic: launch.heuristic,
        ..GpuBfsOptions::default()
    };
    // Two warm-up searches: a batch of planned levels is captured as a CUDA
    // graph the second time it comes (`runtime::gpu::graphs`), a one-time cost
    // (~0.4 ms) that would otherwise land on the first timed root.
    if let Some(&r) = g.roots.first() {
        for _ in 0..WARM_UP_SEARCHES {
            dev.bfs(&dg, r, &opts)?;
        }
    }
    let mut check = |root, l: &[u32], p: &[u32]| dev.check_bfs_tree(&dg, root, l, p);
    Ok(run_checked(cfg, g, "gpu", validator, &mut check, |root| {
        let r = dev.bfs(&dg, root, &opts)?;
        let parents = r.parents.ok_or_else(|| runtime::Error::Cuda {
            call: "bfs".into(),
            msg: "no parent tree returned although parents were requested".into(),
        })?;
        Ok(BfsRun {
            parents,
            levels: Some(r.levels),
            seconds: r.wall_ms / 1e3,
            device_seconds: Some(r.time_ms / 1e3),
        })
    })?)
}

fn run_gpu_dsl(
    dev: &Device,
    cfg: &Graph500Config,
    g: &Graph500Graph,
    launch: Launch,
    validator: Validator,
) -> anyhow::Result<Graph500Report> {
    let k = dev.load_program::<bfs::Program>()?;
    dev.check_traversal_fits(&g.graph, 4, true, launch.max_edge_count)?;
    runtime::progress::status("graph500: uploading the graph to the GPU, warm-up run...");
    let dg = dev.upload_traversal(&g.graph, false)?;
    // The direction kernel records parents on the device (BFS has a uniform
    // frontier); the seed 000 kernels leave them to a host pass.
    let opts = ProgramOptions {
        kernel: launch.kernel,
        max_edge_count: Some(launch.max_edge_count),
        levels_per_sync: launch.levels_per_sync,
        parents: launch.kernel == BfsKernel::Direction,
        heuristic: launch.heuristic,
        ..ProgramOptions::default()
    };
    if let Some(&r) = g.roots.first() {
        for _ in 0..WARM_UP_SEARCHES {
            dev.run_program::<bfs::Program>(&k, &dg, r, &opts)?;
        }
    }
    let mut check = |root, l: &[u32], p: &[u32]| dev.check_bfs_tree(&dg, root, l, p);
    Ok(run_checked(
        cfg,
        g,
        "gpu-dsl",
        validator,
        &mut check,
        |root| {
            let r = dev.run_program::<bfs::Program>(&k, &dg, root, &opts)?;
            let t = Instant::now();
            let parents = match r.parents {
                Some(p) => p,
                None => cpu::tree::parents::<bfs::Program>(&g.graph, root, &r.states),
            };
            let host = t.elapsed().as_secs_f64();
            Ok(BfsRun {
                parents,
                levels: Some(r.states),
                seconds: r.wall_ms / 1e3 + host,
                device_seconds: Some(r.time_ms / 1e3),
            })
        },
    )?)
}

fn run_multi(
    gpus: usize,
    exchange: Option<crate::cli::common::Exchange>,
    cfg: &Graph500Config,
    g: &Graph500Graph,
    max_edge_count: u64,
    heuristic: Heuristic,
    validator: Validator,
) -> anyhow::Result<Graph500Report> {
    let multi = crate::cli::common::open_gpus(gpus, exchange)?;
    let opts = ProgramOptions {
        kernel: BfsKernel::Direction,
        max_edge_count: Some(max_edge_count),
        parents: true,
        heuristic,
        ..ProgramOptions::default()
    };
    let k = multi.load_program::<bfs::Program>()?;
    runtime::progress::status("graph500: uploading the graph to the GPUs, warm-up run...");
    let mg = multi.upload(&g.graph, false)?;
    if let Some(&r) = g.roots.first() {
        multi.run_program::<bfs::Program>(&k, &mg, r, &opts)?;
    }
    // The exchange's route is part of what was measured.
    let route = multi.route().name();
    let backend = format!("gpu-x{gpus} ({route} exchange)");
    let bfs = |root| {
        let r = multi.run_program::<bfs::Program>(&k, &mg, root, &opts)?;
        let parents = r.parents.ok_or_else(|| runtime::Error::Cuda {
            call: "multi-GPU bfs".into(),
            msg: "no parent tree returned although parents were requested".into(),
        })?;
        Ok(BfsRun {
            parents,
            levels: Some(r.states),
            seconds: r.time_ms / 1e3,
            device_seconds: None,
        })
    };
    let mut check = |root, l: &[u32], p: &[u32]| multi.check_bfs_tree(&mg, root, l, p);
    Ok(run_checked(cfg, g, &backend, validator, &mut check, bfs)?)
}

/// Two panels: TEPS per root (with the harmonic mean) and BFS time per root.
pub(super) fn chart(r: &Graph500Report, path: &Path) -> anyhow::Result<()> {
    let idx = |f: &dyn Fn(&graph500::RootResult) -> f64| {
        r.roots
            .iter()
            .enumerate()
            .map(|(i, x)| (i as f64, f(x)))
            .collect::<Vec<_>>()
    };
    let mut teps = vec![("GTEPS per root".to_string(), 0, idx(&|x| x.teps / 1e9))];
    if let Some(hm) = r.teps.harmonic_mean {
        let last = r.roots.len().saturating_sub(1) as f64;
        teps.push((
            format!("harmonic mean {:.3} GTEPS", hm / 1e9),
            1,
            vec![(0.0, hm / 1e9), (last, hm / 1e9)],
        ));
    }
    let panels = [
        Panel {
            title: "TEPS (input edges)".into(),
            x_desc: "root #".into(),
            y_desc: "GTEPS".into(),
            series: teps,
            log_y: false,
        },
        Panel {
            title: "BFS time".into(),
            x_desc: "root #".into(),
            y_desc: "ms".into(),
            series: vec![("time per root".into(), 2, idx(&|x| x.seconds * 1e3))],
            log_y: false,
        },
    ];
    let title = format!(
        "Graph500 BFS, {} backend, scale {} edgefactor {}",
        r.backend, r.config.scale, r.config.edgefactor
    );
    panels_svg(path, &title, &panels)?;
    Ok(())
}
