//! `vertex bench ppr`: what batching buys a gather/apply program that reads its
//! source. On each graph, personalized PageRank ([`ppr`]) from K sources
//! (default 64) as one batched run (`go_batched`: a lane per source at every
//! vertex, one in-edge walk per round for all of them) against K single-source
//! runs through the one run call, on the CPU and (when usable) the GPU. Every
//! batched score is checked against the single run's (relative 1e-9: the GPU
//! sums in its own order) and the GPU's against the CPU's. Writes
//! `ppr-<label>.json`; exits non-zero when a check fails, so it is also the
//! device check of the batched gather kernels (`gpu-run.sh gathermany`). For
//! that, each backend also runs Brandes's forward phase ([`bc_paths`]: a
//! frontier-driven program with `accepts`) batched and checks it against the
//! single runs (depths equal, path counts to 1e-9).

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use runtime::run::{run, Backend as RunBackend};
use serde::Serialize;
use vertex_bench::host::HostInfo;
use vertex_examples::programs::bc::bc_paths;
use vertex_examples::programs::ppr;

use super::bench_cpu::median;

#[derive(Args, Debug, Clone)]
pub struct PprArgs {
    /// Graphs: generator specs or files.
    #[arg(default_values_t = ["kron:14".to_string(), "grid:200x200".to_string()])]
    pub graphs: Vec<String>,
    /// Sources per graph: random vertices with out-edges (gapbs's picker);
    /// more than 64 run in several batches.
    #[arg(long, default_value_t = 64)]
    pub sources: usize,
    /// Runs of each measurement; the median is kept.
    #[arg(long, default_value_t = 3)]
    pub trials: usize,
    /// Skip the GPU even when one is usable.
    #[arg(long)]
    pub no_gpu: bool,
    /// Where to write `ppr-<label>.json`.
    #[arg(long, default_value = "docs/results/many-sources")]
    pub out: PathBuf,
    /// The file name's label (default: `cpu`, or `gpu` when the GPU ran).
    #[arg(long)]
    pub label: Option<String>,
}

/// Batched vs single runs on one backend.
#[derive(Serialize, Clone, Copy)]
struct Pair {
    /// The batched run of every source (median, ms, the run's own time).
    batched_ms: f64,
    /// The single-source runs, summed (medians per source, ms).
    single_ms: f64,
    /// single / batched.
    speedup: f64,
    /// Largest relative difference of a batched score from its single run's.
    max_rel_diff: f64,
    /// Brandes's forward phase batched: depths equal to the single runs' and
    /// path counts within the tolerance.
    paths_verified: bool,
    verified: bool,
}

#[derive(Serialize)]
struct Row {
    graph: String,
    vertices: usize,
    csr_entries: u64,
    sources: usize,
    cpu: Pair,
    gpu: Option<Pair>,
    gpu_note: Option<String>,
    /// Largest relative difference of the GPU's batched scores from the CPU's.
    gpu_vs_cpu: Option<f64>,
}

#[derive(Serialize)]
struct Report {
    benchmark: &'static str,
    command_line: String,
    host: HostInfo,
    trials: usize,
    rows: Vec<Row>,
}

/// Scores this far apart, relative to the larger, count as equal.
const TOLERANCE: f64 = 1e-9;

fn rel_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut worst = if a.len() == b.len() {
        0.0
    } else {
        f64::INFINITY
    };
    for (x, y) in a.iter().zip(b) {
        if x.len() != y.len() {
            return f64::INFINITY;
        }
        for (p, q) in x.iter().zip(y) {
            let d = (p - q).abs() / p.abs().max(q.abs()).max(1e-300);
            if p != q {
                worst = f64::max(worst, d);
            }
        }
    }
    worst
}

fn timed(trials: usize, mut f: impl FnMut() -> anyhow::Result<f64>) -> anyhow::Result<f64> {
    let mut t = Vec::new();
    for _ in 0..trials.max(1) {
        t.push(f()?);
    }
    Ok(median(t))
}

/// One batched run: every source's scores and the median time.
fn batched(
    g: &Graph<u32>,
    roots: &[u32],
    backend: RunBackend,
    trials: usize,
) -> anyhow::Result<(Vec<Vec<f64>>, f64)> {
    let mut scores = Vec::new();
    let ms = timed(trials, || {
        scores.clear();
        let report = run::<ppr::Program>(g)
            .sources(roots.iter().copied())
            .backend(backend)
            .go_batched(|b| {
                scores.extend((0..b.lanes()).map(|l| b.column(l)));
                Ok(())
            })?;
        Ok(report.time.as_secs_f64() * 1e3)
    })?;
    Ok((scores, ms))
}

/// The single-source runs: per source, its scores; the medians summed.
fn singles(
    g: &Graph<u32>,
    roots: &[u32],
    backend: RunBackend,
    trials: usize,
) -> anyhow::Result<(Vec<Vec<f64>>, f64)> {
    let mut all = Vec::new();
    let mut total = 0.0;
    for &r in roots {
        let mut scores = Vec::new();
        total += timed(trials, || {
            let o = run::<ppr::Program>(g).source(r).backend(backend).go()?;
            scores = o.values;
            Ok(o.report.time.as_secs_f64() * 1e3)
        })?;
        all.push(scores);
    }
    Ok((all, total))
}

/// Brandes's forward phase from `roots`, batched, against single runs on
/// `backend`: whether depths agree and path counts are within [`TOLERANCE`].
fn check_paths(g: &Graph<u32>, roots: &[u32], backend: RunBackend) -> anyhow::Result<bool> {
    let many = run::<bc_paths::Program>(g)
        .sources(roots.iter().copied())
        .backend(backend)
        .go_many()?
        .values;
    let mut ok = true;
    for (states, &r) in many.iter().zip(roots) {
        let one = run::<bc_paths::Program>(g)
            .source(r)
            .backend(backend)
            .go()?
            .values;
        let depths = |s: &[bc_paths::Paths]| s.iter().map(|p| p.depth).collect::<Vec<_>>();
        let sigma = |s: &[bc_paths::Paths]| vec![s.iter().map(|p| p.sigma).collect::<Vec<_>>()];
        ok &= depths(states) == depths(&one) && rel_diff(&sigma(states), &sigma(&one)) <= TOLERANCE;
    }
    Ok(ok)
}

/// Batched vs single on `backend`; the batched scores.
fn measure(
    g: &Graph<u32>,
    roots: &[u32],
    backend: RunBackend,
    trials: usize,
) -> anyhow::Result<(Pair, Vec<Vec<f64>>)> {
    batched(g, roots, backend, 1)?; // warm-up (GPU: kernels, upload)
    let (scores, batched_ms) = batched(g, roots, backend, trials)?;
    let (single, single_ms) = singles(g, roots, backend, trials)?;
    let max_rel_diff = rel_diff(&scores, &single);
    let paths_verified = check_paths(g, roots, backend)?;
    let p = Pair {
        batched_ms,
        single_ms,
        speedup: single_ms / batched_ms.max(1e-9),
        max_rel_diff,
        paths_verified,
        verified: max_rel_diff <= TOLERANCE && paths_verified,
    };
    eprintln!(
        "  {}: batched {batched_ms:.2} ms, single {single_ms:.2} ms ({:.1}x), max rel diff {max_rel_diff:.1e}, bc paths {}{}",
        backend.name(),
        p.speedup,
        if paths_verified { "ok" } else { "WRONG" },
        if p.verified { "" } else { " WRONG" }
    );
    Ok((p, scores))
}

pub fn run_ppr(a: PprArgs) -> anyhow::Result<()> {
    if a.graphs.is_empty() || a.sources == 0 {
        bail!("nothing to run: give at least one graph and --sources ≥ 1");
    }
    let gpu = if a.no_gpu {
        Err("--no-gpu".to_string())
    } else {
        runtime::run::device_cache::device_name(0).map_err(|e| e.to_string())
    };
    let mut rows = Vec::new();
    for spec in &a.graphs {
        let lo = LoadOptions {
            ignore_weights: true,
            ..LoadOptions::default()
        };
        let g = load_graph::<u32>(spec, &lo)
            .with_context(|| format!("loading {spec}"))?
            .graph;
        let roots = runtime::generate::pick_roots(g.csr(), a.sources, 27491095);
        if roots.is_empty() {
            bail!("{spec}: no vertex has an out-edge");
        }
        eprintln!("{spec}: {} sources", roots.len());
        let (cpu, cpu_scores) = measure(&g, &roots, RunBackend::Cpu, a.trials)?;
        let (gpu_pair, gpu_note, gpu_vs_cpu) = match &gpu {
            Ok(_) => match measure(&g, &roots, RunBackend::Gpu, a.trials) {
                Ok((p, s)) => {
                    let d = rel_diff(&s, &cpu_scores);
                    eprintln!(
                        "  gpu vs cpu batched: max rel diff {d:.1e}{}",
                        if d <= TOLERANCE { "" } else { " WRONG" }
                    );
                    (Some(p), None, Some(d))
                }
                Err(e) => (None, Some(format!("GPU run failed: {e:#}")), None),
            },
            Err(e) => (None, Some(e.clone()), None),
        };
        if let Some(note) = &gpu_note {
            eprintln!("  gpu: {note}");
        }
        rows.push(Row {
            graph: spec.clone(),
            vertices: g.num_vertices(),
            csr_entries: g.num_edges(),
            sources: roots.len(),
            cpu,
            gpu: gpu_pair,
            gpu_note,
            gpu_vs_cpu,
        });
    }
    let ok = rows.iter().all(|r| {
        r.cpu.verified
            && r.gpu.is_none_or(|p| p.verified)
            && r.gpu_vs_cpu.is_none_or(|d| d <= TOLERANCE)
            // A GPU that opened but failed to run is a failure, not a skip.
            && !(gpu.is_ok() && r.gpu.is_none())
    });
    let label = a.label.clone().unwrap_or_else(|| {
        if rows.iter().any(|r| r.gpu.is_some()) {
            "gpu"
        } else {
            "cpu"
        }
        .into()
    });
    let report = Report {
        benchmark: "many sources: batched vs single-source personalized PageRank",
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        host: HostInfo::read(),
        trials: a.trials,
        rows,
    };
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let json = a.out.join(format!("ppr-{label}.json"));
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    eprintln!("wrote {}", json.display());
    if !ok {
        bail!("a batched result differed from its single-source runs (see WRONG above)");
    }
    Ok(())
}
