//! GPU BFS benchmarks of seed 000: balanced vs naive over Kronecker scales, the
//! `max_edge_count` sweep, and the cost of end detection — results as JSON + SVG.
//!
//! Method (Graph500-like, seed 000 graphs): Kronecker edgefactor 48, both
//! directions stored, self-loops dropped and duplicates *kept*, so the CSR sizes
//! match seed 000's Table 1; roots drawn at random among vertices with degree > 0
//! (same roots for every kernel at a scale); every configuration measured in the
//! same process on the same uploaded graph; GTEPS = CSR entries out of reached
//! vertices / device time (CUDA events), summarised by the harmonic mean over
//! roots. The first roots of every configuration are checked against the
//! sequential oracle; all runs of a root must agree on levels reached.

use std::path::{Path, PathBuf};

pub mod dsl;
pub mod gunrock;
mod plot;

use crate::host::HostInfo;
use runtime::error::{Error, Result};
use runtime::generate::{pick_roots, GenSpec};
use runtime::gpu::bfs::{reach_counts, BfsCombine, GpuBfsOptions, GpuBfsResult};
use runtime::gpu::cuda::DeviceInfo;
use runtime::gpu::device::{Device, DeviceGraph};
use runtime::gpu::options::BfsKernel;
use runtime::graph::{build, BuildOptions, Csr, Graph};
use runtime::oracle;

/// What to run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchConfig {
    pub scales: Vec<u32>,
    pub edgefactor: u64,
    /// Roots per scale for the balanced kernel.
    pub roots: usize,
    /// Roots per scale for the naive kernel (slow on skewed graphs).
    pub naive_roots: usize,
    /// `max_edge_count` of the balanced kernel in the scale comparison.
    pub max_edge_count: u64,
    pub sweep_scale: u32,
    pub sweep_max_edge_counts: Vec<u64>,
    pub sweep_roots: usize,
    /// Levels per flag read tried at `sweep_scale` (end-detection experiment).
    pub levels_per_sync: Vec<u32>,
    pub seed: u64,
    /// Roots per configuration checked against the CPU oracle.
    pub oracle_roots: usize,
    /// Edges per work item of the direction-optimizing kernel.
    pub direction_chunk: u64,
    /// Chunk sizes tried for the direction kernel at `sweep_scale`.
    pub sweep_direction_chunks: Vec<u64>,
    /// Roots per scale for the CPU baselines (seed 000 Fig. 7: sequential and
    /// parallel CPU next to the GPU kernels); 0 = skip them.
    pub cpu_roots: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            scales: (16..=21).collect(),
            edgefactor: 48,
            roots: 64,
            naive_roots: 8,
            max_edge_count: 16,
            sweep_scale: 20,
            sweep_max_edge_counts: vec![4, 8, 16, 32, 64, 128, 256, 512],
            sweep_roots: 16,
            levels_per_sync: vec![1, 2, 4, 8],
            seed: 1,
            oracle_roots: 2,
            direction_chunk: runtime::gpu::direction::DEFAULT_CHUNK,
            sweep_direction_chunks: vec![8, 16, 32, 64, 128, 256],
            cpu_roots: 8,
        }
    }
}

/// Summary of one configuration on one graph.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunSummary {
    pub scale: u32,
    pub kernel: BfsKernel,
    pub combine: BfsCombine,
    pub max_edge_count: u64,
    pub levels_per_sync: u32,
    pub roots: usize,
    /// Harmonic mean over roots (Graph500 style).
    pub gteps_hmean: f64,
    pub time_ms_median: f64,
    pub time_ms_mean: f64,
    pub time_ms_min: f64,
    pub time_ms_max: f64,
    pub wall_ms_median: f64,
    pub sv_build_ms_mean: f64,
    pub check_end_ms_mean: f64,
    pub init_ms_mean: f64,
    pub num_levels_mean: f64,
    pub edges_traversed_mean: f64,
    /// Direction kernel: levels that went bottom-up (mean over roots).
    pub bottom_up_levels_mean: f64,
    /// Per-level kernel times of the median-time root.
    pub per_level_ms_median_root: Vec<f64>,
    /// Direction kernel: which of those levels went bottom-up.
    pub bottom_up_median_root: Vec<bool>,
    /// Bytes a BFS must touch at least once (CSR offsets and targets, a level per
    /// vertex) over the median time, GB/s: compare with `copy_bandwidth_gbs`.
    pub effective_gbs: f64,
    pub oracle_checked_roots: usize,
}

/// The CPU baselines of one scale, same graph and roots as the GPU runs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuSummary {
    pub scale: u32,
    pub roots: usize,
    /// Sequential queue BFS (the oracle), median ms and harmonic-mean GTEPS.
    pub sequential_ms_median: f64,
    pub sequential_gteps_hmean: f64,
    /// The parallel CPU engine the caller supplied (all threads), if any.
    pub parallel_ms_median: Option<f64>,
    pub parallel_gteps_hmean: Option<f64>,
    pub threads: usize,
}

/// A parallel CPU BFS for the baselines: levels from `root` (the caller's
/// engine, e.g. the sync engine running the BFS vertex program).
pub type CpuBfs<'a> = &'a (dyn Fn(&Graph<u32>, u32) -> Result<Vec<u32>> + Sync);

fn cpu_baseline(
    graph: &Graph<u32>,
    scale: u32,
    roots: &[u32],
    parallel: Option<CpuBfs>,
) -> Result<CpuSummary> {
    let teps = |ms: &[f64], edges: &[u64]| {
        let k = ms.len() as f64;
        k / ms
            .iter()
            .zip(edges)
            .map(|(t, &e)| (t * 1e-3) / (e as f64 / 1e9).max(1e-12))
            .sum::<f64>()
    };
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let csr = graph.csr();
    let (mut seq, mut par, mut edges) = (Vec::new(), Vec::new(), Vec::new());
    for &r in roots {
        let t = std::time::Instant::now();
        let want = oracle::bfs(csr, r)?;
        seq.push(t.elapsed().as_secs_f64() * 1e3);
        edges.push(reach_counts(csr.offsets(), &want.levels).1);
        if let Some(f) = parallel {
            let t = std::time::Instant::now();
            let levels = f(graph, r)?;
            par.push(t.elapsed().as_secs_f64() * 1e3);
            if levels != want.levels {
                return Err(Error::InvalidGraph(format!(
                    "parallel CPU BFS from {r} differs from the sequential oracle"
                )));
            }
        }
    }
    Ok(CpuSummary {
        scale,
        roots: roots.len(),
        sequential_gteps_hmean: teps(&seq, &edges),
        sequential_ms_median: median(&mut seq),
        parallel_gteps_hmean: parallel.map(|_| teps(&par, &edges)),
        parallel_ms_median: parallel.map(|_| median(&mut par)),
        threads: rayon::current_num_threads(),
    })
}

/// Sizes of one generated graph.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GraphInfo {
    pub scale: u32,
    pub edgefactor: u64,
    pub vertices: u64,
    pub csr_entries: u64,
    /// CSR entries in seed 000's Table 1, for comparison.
    pub seed000_table1_edges: Option<u64>,
    pub generate_ms: f64,
    pub upload_ms: f64,
}

/// Everything a benchmark run produced.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    pub config: BenchConfig,
    pub device: DeviceInfo,
    pub host: HostInfo,
    pub command_line: String,
    pub graphs: Vec<GraphInfo>,
    /// Balanced vs naive per scale.
    pub scaling: Vec<RunSummary>,
    /// `balanced / naive` GTEPS ratio per scale (harmonic means).
    pub ratios: Vec<(u32, f64)>,
    /// `direction / balanced` GTEPS ratio per scale (harmonic means).
    pub direction_ratios: Vec<(u32, f64)>,
    /// The direction kernel's chunk sweep at `sweep_scale`.
    pub direction_sweep: Vec<RunSummary>,
    /// CPU baselines per scale (seed 000 Fig. 7).
    pub cpu: Vec<CpuSummary>,
    /// Device-to-device copy bandwidth measured at the start, GB/s (read + write).
    pub copy_bandwidth_gbs: f64,
    pub sweep: Vec<RunSummary>,
    pub levels_per_sync: Vec<RunSummary>,
    pub combine: Vec<RunSummary>,
}

/// seed 000 Table 1 (CSR entries) for scales 16..=21 at edgefactor 48.
pub fn seed000_table1(scale: u32) -> Option<u64> {
    match scale {
        16 => Some(6_289_992),
        17 => Some(12_581_183),
        18 => Some(25_163_641),
        19 => Some(50_328_927),
        20 => Some(100_659_854),
        21 => Some(201_322_399),
        _ => None,
    }
}

/// Seed 000's graph construction: symmetric, no self-loops, duplicates kept.
pub fn seed000_build_options() -> BuildOptions {
    BuildOptions {
        symmetrize: true,
        remove_self_loops: true,
        dedup: false,
        relabel_by_degree: false,
    }
}

/// Generates `kron:scale:edgefactor@seed` as seed 000 built it.
pub fn kronecker_csr(scale: u32, edgefactor: u64, seed: u64) -> Result<Csr<u32>> {
    let spec = GenSpec::Kron {
        scale,
        edgefactor,
        seed,
    };
    let el = spec.generate()?;
    Ok(build(&el, seed000_build_options())?.into_csr())
}

/// Runs `opts` from each root; checks the first `oracle_roots` against the oracle.
pub fn measure(
    dev: &Device,
    g: &DeviceGraph,
    csr: &Csr<u32>,
    scale: u32,
    roots: &[u32],
    opts: &GpuBfsOptions,
    oracle_roots: usize,
) -> Result<RunSummary> {
    if roots.is_empty() {
        return Err(Error::InvalidArgument("no roots with degree > 0".into()));
    }
    // Warm-up (module JIT, first-touch), not timed.
    dev.bfs(g, roots[0], opts)?;
    let mut runs: Vec<GpuBfsResult> = Vec::with_capacity(roots.len());
    let mut checked = 0;
    for (i, &r) in roots.iter().enumerate() {
        let res = dev.bfs(g, r, opts)?;
        if i < oracle_roots {
            let want = oracle::bfs(csr, r)?;
            if res.levels != want.levels {
                let v = res
                    .levels
                    .iter()
                    .zip(&want.levels)
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                return Err(Error::InvalidGraph(format!(
                    "GPU BFS ({opts:?}) from {r} disagrees with the oracle at vertex {v}: {} vs {}",
                    res.levels[v], want.levels[v]
                )));
            }
            checked += 1;
        }
        runs.push(res);
    }
    let mut s = summarize(scale, opts, &runs, checked);
    let n = csr.num_vertices() as f64;
    let bytes = 8.0 * (n + 1.0) + 4.0 * csr.num_edges() as f64 + 4.0 * n;
    s.effective_gbs = bytes / (s.time_ms_median * 1e-3) / 1e9;
    Ok(s)
}

fn summarize(
    scale: u32,
    opts: &GpuBfsOptions,
    runs: &[GpuBfsResult],
    checked: usize,
) -> RunSummary {
    let k = runs.len() as f64;
    let mut times: Vec<f64> = runs.iter().map(|r| r.time_ms).collect();
    times.sort_by(f64::total_cmp);
    let mut walls: Vec<f64> = runs.iter().map(|r| r.wall_ms).collect();
    walls.sort_by(f64::total_cmp);
    let median = |v: &[f64]| v[v.len() / 2];
    let med_t = median(&times);
    let median_root = runs.iter().min_by(|a, b| {
        (a.time_ms - med_t)
            .abs()
            .total_cmp(&(b.time_ms - med_t).abs())
    });
    let median_run = median_root
        .map(|r| r.per_level_ms.clone())
        .unwrap_or_default();
    let median_dirs = median_root
        .map(|r| r.directions.iter().map(|d| d.bottom_up).collect())
        .unwrap_or_default();
    let hmean = k / runs.iter().map(|r| 1.0 / r.gteps().max(1e-12)).sum::<f64>();
    let mean = |f: &dyn Fn(&GpuBfsResult) -> f64| runs.iter().map(f).sum::<f64>() / k;
    RunSummary {
        scale,
        kernel: opts.kernel,
        combine: opts.combine,
        max_edge_count: opts.max_edge_count,
        levels_per_sync: opts.levels_per_sync,
        roots: runs.len(),
        gteps_hmean: hmean,
        time_ms_median: med_t,
        time_ms_mean: mean(&|r| r.time_ms),
        time_ms_min: times[0],
        time_ms_max: times[times.len() - 1],
        wall_ms_median: median(&walls),
        sv_build_ms_mean: mean(&|r| r.sv_build_ms),
        check_end_ms_mean: mean(&|r| r.check_end_ms),
        init_ms_mean: mean(&|r| r.init_ms),
        num_levels_mean: mean(&|r| r.num_levels as f64),
        edges_traversed_mean: mean(&|r| r.edges_traversed as f64),
        bottom_up_levels_mean: mean(&|r| {
            r.directions.iter().filter(|d| d.bottom_up).count() as f64
        }),
        per_level_ms_median_root: median_run,
        bottom_up_median_root: median_dirs,
        effective_gbs: 0.0,
        oracle_checked_roots: checked,
    }
}

/// Runs the whole benchmark; `log` receives one line per finished configuration.
pub fn run(
    dev: &Device,
    cfg: &BenchConfig,
    command_line: &str,
    cpu_parallel: Option<CpuBfs>,
    mut log: impl FnMut(&str),
) -> Result<BenchReport> {
    let mut report = BenchReport {
        config: cfg.clone(),
        device: dev.info().clone(),
        host: HostInfo::read(),
        command_line: command_line.to_string(),
        graphs: Vec::new(),
        scaling: Vec::new(),
        ratios: Vec::new(),
        direction_ratios: Vec::new(),
        direction_sweep: Vec::new(),
        cpu: Vec::new(),
        copy_bandwidth_gbs: dev.copy_bandwidth_gbs()?,
        sweep: Vec::new(),
        levels_per_sync: Vec::new(),
        combine: Vec::new(),
    };
    let mut scales = cfg.scales.clone();
    if !scales.contains(&cfg.sweep_scale) {
        scales.push(cfg.sweep_scale);
    }
    for &scale in &scales {
        let t = std::time::Instant::now();
        // Undirected: the CSR is its own transpose (bottom-up reads it as in-edges).
        let graph = Graph::new(kronecker_csr(scale, cfg.edgefactor, cfg.seed)?, true);
        let csr = graph.csr();
        let generate_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = std::time::Instant::now();
        let g = dev.upload_traversal(&graph, false)?;
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        report.graphs.push(GraphInfo {
            scale,
            edgefactor: cfg.edgefactor,
            vertices: csr.num_vertices() as u64,
            csr_entries: csr.num_edges(),
            seed000_table1_edges: seed000_table1(scale),
            generate_ms,
            upload_ms,
        });
        log(&format!(
            "scale {scale}: {} vertices, {} CSR entries (generated in {:.1} s)",
            csr.num_vertices(),
            csr.num_edges(),
            generate_ms / 1e3
        ));
        let nroots = cfg.roots.max(cfg.naive_roots).max(cfg.sweep_roots);
        let roots = pick_roots(csr, nroots, cfg.seed ^ u64::from(scale));
        let base = GpuBfsOptions {
            max_edge_count: cfg.max_edge_count,
            ..GpuBfsOptions::default()
        };
        if cfg.scales.contains(&scale) {
            let bal = measure(
                dev,
                &g,
                csr,
                scale,
                &roots[..cfg.roots.min(roots.len())],
                &base,
                cfg.oracle_roots,
            )?;
            log(&summary_line(&bal));
            let naive_opts = GpuBfsOptions {
                kernel: BfsKernel::Naive,
                ..base
            };
            let naive = measure(
                dev,
                &g,
                csr,
                scale,
                &roots[..cfg.naive_roots.min(roots.len())],
                &naive_opts,
                cfg.oracle_roots.min(1),
            )?;
            log(&summary_line(&naive));
            report
                .ratios
                .push((scale, bal.gteps_hmean / naive.gteps_hmean));
            log(&format!(
                "  balanced / naive = {:.2}x",
                bal.gteps_hmean / naive.gteps_hmean
            ));
            let dir_opts = GpuBfsOptions {
                kernel: BfsKernel::Direction,
                max_edge_count: cfg.direction_chunk,
                ..base
            };
            let dir = measure(
                dev,
                &g,
                csr,
                scale,
                &roots[..cfg.roots.min(roots.len())],
                &dir_opts,
                cfg.oracle_roots,
            )?;
            log(&summary_line(&dir));
            report
                .direction_ratios
                .push((scale, dir.gteps_hmean / bal.gteps_hmean));
            log(&format!(
                "  direction / balanced = {:.2}x",
                dir.gteps_hmean / bal.gteps_hmean
            ));
            report.scaling.push(bal);
            report.scaling.push(naive);
            report.scaling.push(dir);
            if cfg.cpu_roots > 0 {
                let c = cpu_baseline(
                    &graph,
                    scale,
                    &roots[..cfg.cpu_roots.min(roots.len())],
                    cpu_parallel,
                )?;
                log(&format!(
                    "  cpu: sequential {:.3} GTEPS (median {:.1} ms), parallel {:.3} GTEPS ({} threads)",
                    c.sequential_gteps_hmean,
                    c.sequential_ms_median,
                    c.parallel_gteps_hmean.unwrap_or(0.0),
                    c.threads
                ));
                report.cpu.push(c);
            }
        }
        if scale == cfg.sweep_scale {
            let sroots = &roots[..cfg.sweep_roots.min(roots.len())];
            for &mec in &cfg.sweep_max_edge_counts {
                let o = GpuBfsOptions {
                    max_edge_count: mec,
                    ..base
                };
                let s = measure(dev, &g, csr, scale, sroots, &o, 1)?;
                log(&summary_line(&s));
                report.sweep.push(s);
            }
            for &chunk in &cfg.sweep_direction_chunks {
                let o = GpuBfsOptions {
                    kernel: BfsKernel::Direction,
                    max_edge_count: chunk,
                    ..base
                };
                let s = measure(dev, &g, csr, scale, sroots, &o, 1)?;
                log(&summary_line(&s));
                report.direction_sweep.push(s);
            }
            for &lps in &cfg.levels_per_sync {
                let o = GpuBfsOptions {
                    levels_per_sync: lps,
                    ..base
                };
                let s = measure(dev, &g, csr, scale, sroots, &o, 0)?;
                log(&summary_line(&s));
                report.levels_per_sync.push(s);
            }
            for combine in [BfsCombine::Store, BfsCombine::AtomicMin] {
                let o = GpuBfsOptions { combine, ..base };
                let s = measure(dev, &g, csr, scale, sroots, &o, 1)?;
                log(&summary_line(&s));
                report.combine.push(s);
            }
        }
    }
    Ok(report)
}

/// One log line for a finished configuration.
pub fn summary_line(s: &RunSummary) -> String {
    format!(
        "  {:9} {:10} mec {:4} lps {}: {:8.3} GTEPS  median {:9.3} ms  sv {:.3} ms  check_end {:.3} ms  {:6.0} GB/s effective  ({} roots)",
        format!("{:?}", s.kernel).to_lowercase(),
        format!("{:?}", s.combine).to_lowercase(),
        s.max_edge_count,
        s.levels_per_sync,
        s.gteps_hmean,
        s.time_ms_median,
        s.sv_build_ms_mean,
        s.check_end_ms_mean,
        s.effective_gbs,
        s.roots
    )
}

/// Writes `gpu-bfs.json` and the SVG charts into `dir`; returns the paths.
pub fn write_report(report: &BenchReport, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let json = dir.join("gpu-bfs.json");
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::InvalidArgument(format!("serialising the report: {e}")))?;
    std::fs::write(&json, text + "\n").map_err(|e| Error::io(&json, e))?;
    let mut out = vec![json];
    out.extend(plot::all(report, dir)?);
    Ok(out)
}

#[cfg(test)]
mod tests;
