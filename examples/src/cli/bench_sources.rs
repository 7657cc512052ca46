//! `vertex bench sources`: what batching many sources buys. On each graph, the
//! same K sources (default 64) as one batched BFS — every source's distance sum,
//! reach and depth — against K single-source BFS runs of the shipped program
//! through the one run call (its `auto` kernel and schedule), on the GPU and on
//! the CPU; optionally exact closeness of every vertex on the GPU. Every batched
//! result is checked against the single runs. Writes `sources-<label>.json` and
//! `.svg`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use runtime::cpu::msbfs;
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use runtime::run::{run, Backend as RunBackend};
use serde::Serialize;
use vertex_bench::host::HostInfo;
use vertex_bench::plot::{panels_svg, Panel};
use vertex_examples::programs::bfs;

use super::bench_cpu::median;

#[derive(Args, Debug, Clone)]
pub struct SourcesArgs {
    /// Graphs: generator specs or files.
    #[arg(default_values_t = ["kron:16".to_string(), "grid:300x300".to_string()])]
    pub graphs: Vec<String>,
    /// Sources per graph: random vertices with out-edges (gapbs's picker).
    #[arg(long, default_value_t = 64)]
    pub sources: usize,
    /// Runs of each measurement; the median is kept.
    #[arg(long, default_value_t = 3)]
    pub trials: usize,
    /// Also time exact closeness of every vertex on the GPU, on these of the
    /// graphs (comma-separated specs, as given above).
    #[arg(long, value_delimiter = ',')]
    pub closeness: Vec<String>,
    /// Skip the GPU even when one is usable.
    #[arg(long)]
    pub no_gpu: bool,
    /// Where to write `sources-<label>.json` and `.svg`.
    #[arg(long, default_value = "docs/results/many-sources")]
    pub out: PathBuf,
    /// The file name's label (default: `cpu`, or `gpu` when the GPU ran).
    #[arg(long)]
    pub label: Option<String>,
}

/// Batched vs single runs on one backend.
#[derive(Serialize, Clone, Copy)]
struct Pair {
    /// One batched BFS of every source (median, ms).
    batched_ms: f64,
    /// The single-source runs, summed (medians per source, ms).
    single_ms: f64,
    /// single / batched.
    speedup: f64,
    /// The batched sums equal those of the single runs.
    verified: bool,
}

#[derive(Serialize)]
struct Closeness {
    vertices: usize,
    seconds: f64,
    /// `n × m / seconds`: edge visits a one-source-at-a-time BFS would make.
    edge_visits_per_s: f64,
}

#[derive(Serialize)]
struct Row {
    graph: String,
    vertices: usize,
    csr_entries: u64,
    sources: usize,
    gpu: Option<Pair>,
    gpu_note: Option<String>,
    cpu: Pair,
    /// The BFS program run batched through the one run call (`go_batched`:
    /// the generic many-sources kernels any push program gets) vs the same
    /// single runs.
    program_gpu: Option<Pair>,
    program_cpu: Pair,
    closeness_gpu: Option<Closeness>,
}

#[derive(Serialize)]
struct Report {
    benchmark: &'static str,
    command_line: String,
    host: HostInfo,
    gpu: Option<String>,
    trials: usize,
    rows: Vec<Row>,
}

/// `(distance sum, reached)` of a single run's levels.
fn sums_of(levels: &[u32]) -> (u64, u64) {
    let reached: Vec<u64> = levels
        .iter()
        .filter(|&&d| d != u32::MAX)
        .map(|&d| u64::from(d))
        .collect();
    (reached.iter().sum(), reached.len() as u64 - 1)
}

/// Median of `trials` runs of `f` (ms).
fn timed(trials: usize, mut f: impl FnMut() -> anyhow::Result<f64>) -> anyhow::Result<f64> {
    let mut t = Vec::new();
    for _ in 0..trials.max(1) {
        t.push(f()?);
    }
    Ok(median(t))
}

/// The single-source runs of the BFS program on `backend`: per source, its sums
/// and the median time (the run's own report).
fn singles(
    g: &Graph<u32>,
    roots: &[u32],
    backend: RunBackend,
    trials: usize,
) -> anyhow::Result<(Vec<(u64, u64)>, f64)> {
    let mut sums = Vec::new();
    let mut total = 0.0;
    for &r in roots {
        let mut levels = Vec::new();
        total += timed(trials, || {
            let o = run::<bfs::Program>(g).source(r).backend(backend).go()?;
            let ms = o.report.time.as_secs_f64() * 1e3;
            levels = o.values;
            Ok(ms)
        })?;
        sums.push(sums_of(&levels));
    }
    Ok((sums, total))
}

fn cpu_batched(g: &Graph<u32>, roots: &[u32]) -> anyhow::Result<(Vec<(u64, u64)>, f64)> {
    // In-edges (bottom-up levels): built before the clock starts.
    let incoming = if g.is_symmetric() { g.csr() } else { g.csc() };
    let t = Instant::now();
    let mut out = Vec::with_capacity(roots.len());
    for batch in roots.chunks(msbfs::LANES) {
        let mut sums = vec![(0u64, 0u64); batch.len()];
        msbfs::run_with(g.csr(), Some(incoming), batch, |lv| {
            for &(_, lanes) in lv.reached {
                msbfs::each_lane(lanes, |l| {
                    sums[l].0 += u64::from(lv.depth);
                    sums[l].1 += u64::from(lv.depth > 0);
                });
            }
        })?;
        out.extend(sums);
    }
    Ok((out, t.elapsed().as_secs_f64() * 1e3))
}

/// The BFS program from every root at once through `go_batched`: per-root sums
/// and the median time (the run's report).
fn program_batched(
    g: &Graph<u32>,
    roots: &[u32],
    backend: RunBackend,
    trials: usize,
) -> anyhow::Result<(Vec<(u64, u64)>, f64)> {
    let mut sums = Vec::new();
    let ms = timed(trials, || {
        sums.clear();
        let report = run::<bfs::Program>(g)
            .sources(roots.iter().copied())
            .backend(backend)
            .go_batched(|b| {
                sums.extend((0..b.lanes()).map(|l| sums_of(&b.column(l))));
                Ok(())
            })?;
        Ok(report.time.as_secs_f64() * 1e3)
    })?;
    Ok((sums, ms))
}

fn pair(batched_ms: f64, single_ms: f64, verified: bool) -> Pair {
    Pair {
        batched_ms,
        single_ms,
        speedup: single_ms / batched_ms.max(1e-9),
        verified,
    }
}

type Gpu = (runtime::gpu::Device, runtime::gpu::msbfs::MsbfsKernels);

fn gpu_row(
    (dev, k): &Gpu,
    g: &Graph<u32>,
    roots: &[u32],
    a: &SourcesArgs,
    spec: &str,
) -> anyhow::Result<(Pair, Pair, Option<Closeness>)> {
    // With its in-edges, so that large levels go bottom-up.
    let dg = dev.upload_traversal(g, false)?;
    dev.msbfs_sums(k, &dg, roots, |_| {})?; // warm-up
    let mut batched = Vec::new();
    let ms = timed(a.trials, || {
        let run = dev.msbfs_sums(k, &dg, roots, |_| {})?;
        batched = run.sums;
        Ok(run.time_ms)
    })?;
    let (single, single_ms) = singles(g, roots, RunBackend::Gpu, a.trials)?;
    let ok = batched
        .iter()
        .zip(&single)
        .all(|(b, s)| (b.distance_sum, b.reached) == *s);
    let closeness = if a.closeness.iter().any(|c| c == spec) {
        let all: Vec<u32> = (0..g.num_vertices() as u32).collect();
        let measure = runtime::closeness::Measure::Closeness;
        let (_, ms) = runtime::closeness::centrality_gpu(
            dev,
            k,
            g,
            &all,
            measure,
            runtime::ball_batches::Batching::Auto,
            |_| {},
        )?;
        let seconds = ms / 1e3;
        Some(Closeness {
            vertices: all.len(),
            seconds,
            edge_visits_per_s: all.len() as f64 * g.num_edges() as f64 / seconds,
        })
    } else {
        None
    };
    program_batched(g, roots, RunBackend::Gpu, 1)?; // warm-up (kernels, upload)
    let (psums, pms) = program_batched(g, roots, RunBackend::Gpu, a.trials)?;
    let program = pair(pms, single_ms, psums == single);
    eprintln!(
        "  gpu: bfs program batched {pms:.2} ms ({:.1}x){}",
        program.speedup,
        if program.verified { "" } else { " WRONG" }
    );
    Ok((pair(ms, single_ms, ok), program, closeness))
}

pub fn run_sources(a: SourcesArgs) -> anyhow::Result<()> {
    if a.graphs.is_empty() || a.sources == 0 {
        bail!("nothing to run: give at least one graph and --sources ≥ 1");
    }
    let gpu: Result<Gpu, String> = if a.no_gpu {
        Err("--no-gpu".into())
    } else {
        runtime::gpu::Device::open(0)
            .and_then(|d| d.load_msbfs().map(|k| (d, k)))
            .map_err(|e| e.to_string())
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
        let (cpu_sums, _) = cpu_batched(&g, &roots)?;
        let cpu_ms = timed(a.trials, || Ok(cpu_batched(&g, &roots)?.1))?;
        let (single, single_ms) = singles(&g, &roots, RunBackend::Cpu, a.trials)?;
        let cpu = pair(cpu_ms, single_ms, cpu_sums == single);
        eprintln!(
            "  cpu: batched {cpu_ms:.2} ms, single {single_ms:.2} ms ({:.1}x){}",
            cpu.speedup,
            if cpu.verified { "" } else { " WRONG" }
        );
        let (psums, pms) = program_batched(&g, &roots, RunBackend::Cpu, a.trials)?;
        let program_cpu = pair(pms, single_ms, psums == single);
        eprintln!(
            "  cpu: bfs program batched {pms:.2} ms ({:.1}x){}",
            program_cpu.speedup,
            if program_cpu.verified { "" } else { " WRONG" }
        );
        let (gpu_pair, program_gpu, gpu_note, closeness) = match &gpu {
            Ok(d) => match gpu_row(d, &g, &roots, &a, spec) {
                Ok((p, prog, c)) => {
                    eprintln!(
                        "  gpu: batched {:.2} ms, single {:.2} ms ({:.1}x){}",
                        p.batched_ms,
                        p.single_ms,
                        p.speedup,
                        if p.verified { "" } else { " WRONG" }
                    );
                    if let Some(c) = &c {
                        eprintln!(
                            "  gpu closeness, all {} vertices: {:.3} s ({:.3e} edge visits/s)",
                            c.vertices, c.seconds, c.edge_visits_per_s
                        );
                    }
                    (Some(p), Some(prog), None, c)
                }
                Err(e) => (None, None, Some(format!("GPU run failed: {e:#}")), None),
            },
            Err(e) => (None, None, Some(e.clone()), None),
        };
        rows.push(Row {
            graph: spec.clone(),
            vertices: g.num_vertices(),
            csr_entries: g.num_edges(),
            sources: roots.len(),
            gpu: gpu_pair,
            gpu_note,
            cpu,
            program_gpu,
            program_cpu,
            closeness_gpu: closeness,
        });
    }
    let ok = rows.iter().all(|r| {
        r.cpu.verified
            && r.program_cpu.verified
            && r.gpu.is_none_or(|p| p.verified)
            && r.program_gpu.is_none_or(|p| p.verified)
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
        benchmark: "many sources: batched vs single-source BFS",
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        host: HostInfo::read(),
        gpu: gpu.as_ref().ok().map(|(d, _)| d.info().name.clone()),
        trials: a.trials,
        rows,
    };
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let json = a.out.join(format!("sources-{label}.json"));
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    let series = |name: &str, c: usize, f: &dyn Fn(&Row) -> Option<f64>| {
        super::report::row_series(&report.rows, name, c, f)
    };
    let panel = Panel {
        title: format!(
            "{} sources: single-source runs / one batch ({})",
            a.sources,
            report
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| format!("{}={}", i + 1, r.graph))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        x_desc: "graph".into(),
        y_desc: "speedup of batching (x)".into(),
        series: vec![
            series("GPU", 0, &|r| r.gpu.map(|p| p.speedup)),
            series("CPU", 1, &|r| Some(r.cpu.speedup)),
            series("GPU, BFS program batched", 2, &|r| {
                r.program_gpu.map(|p| p.speedup)
            }),
            series("CPU, BFS program batched", 3, &|r| {
                Some(r.program_cpu.speedup)
            }),
        ],
        log_y: true,
    };
    let svg = a.out.join(format!("sources-{label}.svg"));
    panels_svg(&svg, "many sources at once (batched BFS)", &[panel])?;
    eprintln!("wrote {} and {}", json.display(), svg.display());
    if !ok {
        bail!("a batched result disagreed with the single-source runs");
    }
    Ok(())
}
