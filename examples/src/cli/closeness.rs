//! `vertex closeness GRAPH`: closeness (or, with `--harmonic`, harmonic)
//! centrality as networkx defines it, from batches of 64 breadth-first searches
//! sharing their edge visits (`runtime::closeness`): on the CPU, or on the GPU
//! (`runtime::gpu::msbfs`, the per-vertex totals reduced on the device).
//!
//! Exact (every vertex) by default when `n/64` sweeps over the edges stay
//! cheap; otherwise, and with `--sources K`, the scores of K vertices picked at
//! random (gapbs's picker: vertices with edges). `--validate` runs one
//! sequential BFS per scored vertex and compares (relative 1e-12).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use runtime::ball_batches::{BallBatches, Batching};
use runtime::closeness::{centrality_gpu, centrality_with, oracle, Measure};
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;

use super::common::{human_out, pick_gpu, say, write_result, KernelArgs};
use super::report::{print_json, secs};

/// Edge visits (`n/64` sweeps × `m`) above which the default is sampled.
const EXACT_BUDGET: f64 = 4e10;
/// Vertices scored when the default is sampled.
const SAMPLED: usize = 1024;

/// Options of `vertex closeness`.
#[derive(Args, Debug, Clone)]
pub struct ClosenessArgs {
    /// Graph file or generator spec (kron:S, uniform:N:M, urand:S, grid:WxH, mesh:N).
    #[arg(default_value = "kron:14")]
    pub graph: String,
    /// `all` (exact), or K: the scores of K vertices picked at random. Default:
    /// all when that takes at most about 4·10^10 edge visits, else 1024.
    #[arg(long)]
    pub sources: Option<String>,
    /// Seed of the random pick.
    #[arg(long, default_value_t = 27491095)]
    pub seed: u64,
    /// Harmonic centrality (Σ 1/d) instead of closeness.
    #[arg(long)]
    pub harmonic: bool,
    /// Make the graph undirected first.
    #[arg(long)]
    pub symmetrize: bool,
    /// `--backend` (auto: the GPU when one is usable), `--threads`, `--validate`
    /// (one sequential BFS per scored vertex), `--json`: as every kernel command.
    #[command(flatten)]
    pub common: KernelArgs,
    /// How the scored vertices are cut into batches of 64: `auto`, balls of
    /// nearby vertices on graphs that are not small worlds (grids, roads,
    /// meshes: several times fewer vertex expansions) and the order given
    /// elsewhere; `balls` on any graph, or `given` (id order, or the random
    /// pick's), for comparisons. The scores are the same.
    #[arg(long, value_enum, default_value_t = BatchOrder::Auto)]
    pub batching: BatchOrder,
    /// Also count the batches' vertex expansions (level-list entries) with
    /// the CPU's batched BFS, batched as `--batching` says: the work the batch
    /// order costs (a second run's time).
    #[arg(long)]
    pub count_expansions: bool,
    /// Stop after about this many seconds: the vertices are scored a slice of
    /// 2,048 at a time (32 batches, one GPU group), balls first as
    /// `--batching` orders them, and the run ends after the slice that passes
    /// the limit, reporting the vertices scored and the time all of them would
    /// take at that pace (`projected_s`). How to learn what an exact run of a
    /// large graph costs before paying for it.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Write `vertex score` per scored vertex; `-o -` writes them to stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Vertices a `--time-limit` run scores between two looks at the clock: one
/// GPU group of 32 batches.
const SLICE: usize = 32 * runtime::cpu::msbfs::LANES;

/// `--batching`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchOrder {
    Auto,
    Balls,
    Given,
}

impl From<BatchOrder> for Batching {
    fn from(b: BatchOrder) -> Self {
        match b {
            BatchOrder::Auto => Batching::Auto,
            BatchOrder::Balls => Batching::Balls,
            BatchOrder::Given => Batching::Given,
        }
    }
}

#[derive(Serialize)]
struct Summary<'a> {
    program: &'static str,
    graph: &'a str,
    vertices: usize,
    edges: u64,
    measure: Measure,
    /// Vertices scored (all of them when exact).
    scored: usize,
    exact: bool,
    why: String,
    backend: &'static str,
    backend_note: Option<String>,
    batches: usize,
    /// `--batching`, and whether the sources were reordered into balls.
    batching: Batching,
    reordered: bool,
    /// Level-list entries of all batches (`--count-expansions`), and per batch.
    expansions: Option<u64>,
    expansions_per_batch: Option<f64>,
    /// GPU kernel time (the graph's upload excluded), when the GPU ran.
    kernel_s: Option<f64>,
    /// `--time-limit` ended the run before every asked-for vertex was scored.
    stopped_early: bool,
    /// `--time-limit`: the time every asked-for vertex would take at the pace
    /// of the slices run.
    projected_s: Option<f64>,
    load_s: f64,
    time_s: f64,
    /// The highest score and its vertex.
    top: Option<(u32, f64)>,
    mean: f64,
    validated: Option<bool>,
}

pub fn closeness_cmd(a: ClosenessArgs) -> anyhow::Result<()> {
    super::common::check_output(a.output.as_deref(), a.common.json)?;
    runtime::progress::set_quiet(a.common.json);
    let t0 = Instant::now();
    let opts = LoadOptions {
        symmetrize: a.symmetrize,
        ignore_weights: true,
        ..LoadOptions::default()
    };
    let loaded = load_graph::<u32>(&a.graph, &opts)?;
    let load_s = secs(t0.elapsed());
    let g = &loaded.graph;
    let n = g.num_vertices();
    let cost = (n as f64 / 64.0).ceil() * g.num_edges() as f64;
    if let Some(t) = a.time_limit {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-limit {t}: expected a positive number of seconds");
        }
    }
    let (vertices, mut exact, mut why) = match a.sources.as_deref() {
        Some("all") => ((0..n as u32).collect::<Vec<_>>(), true, "--sources all".into()),
        Some(k) => {
            let Ok(k) = k.parse::<usize>() else {
                bail!("--sources {k}: expected a count or `all`");
            };
            if k == 0 {
                bail!("--sources 0: expected at least 1");
            }
            let picked = runtime::generate::pick_roots(g.csr(), k, a.seed);
            let exact = picked.len() == n;
            (picked, exact, format!("--sources {k}"))
        }
        None if cost <= EXACT_BUDGET => (
            (0..n as u32).collect(),
            true,
            format!("exact: {:.1e} edge visits", cost),
        ),
        None => (
            runtime::generate::pick_roots(g.csr(), SAMPLED, a.seed),
            false,
            format!(
                "exact would take {cost:.1e} edge visits: {SAMPLED} random vertices (--sources all forces it)"
            ),
        ),
    };
    let batching = Batching::from(a.batching);
    let measure = if a.harmonic {
        Measure::Harmonic
    } else {
        Measure::Closeness
    };
    let (gpu, backend_note) = pick_gpu(a.common.backend, || {
        let dev = runtime::gpu::Device::open(0).map_err(|e| e.to_string())?;
        let k = dev.load_msbfs().map_err(|e| e.to_string())?;
        Ok((dev, k))
    })?;
    super::common::warn_threads_on_gpu(a.common.threads, gpu.is_some());
    let t1 = Instant::now();
    let asked = vertices.len();
    // Under a time limit, slices of the batch order run one after another;
    // otherwise one call takes them all.
    let (vertices, batching, sliced_in_balls) = match a.time_limit {
        Some(_) => {
            let b = BallBatches::with(g, &vertices, batching);
            let reordered = b.reordered();
            (b.sources, Batching::Given, reordered)
        }
        None => (vertices, batching, false),
    };
    let slice = if a.time_limit.is_some() {
        SLICE
    } else {
        vertices.len().max(1)
    };
    let pb = runtime::progress::bar(asked as u64, "closeness");
    let mut scores = Vec::with_capacity(asked);
    let mut kernel_ms = gpu.as_ref().map(|_| 0.0);
    for part in vertices.chunks(slice) {
        match &gpu {
            Some((dev, k)) => {
                let (s, ms) =
                    centrality_gpu(dev, k, g, part, measure, batching, |d| pb.inc(d as u64))?;
                scores.extend(s);
                kernel_ms = kernel_ms.map(|t| t + ms);
            }
            None => {
                scores.extend(centrality_with(
                    g,
                    part,
                    measure,
                    a.common.threads,
                    batching,
                )?);
                pb.inc(part.len() as u64);
            }
        }
        if a.time_limit
            .is_some_and(|t| t1.elapsed().as_secs_f64() >= t)
        {
            break;
        }
    }
    pb.finish_and_clear();
    let kernel_s = kernel_ms.map(|ms| ms / 1e3);
    let time_s = secs(t1.elapsed());
    let stopped_early = scores.len() < asked;
    let vertices = &vertices[..scores.len()];
    let projected_s = a
        .time_limit
        .map(|_| time_s * asked as f64 / scores.len().max(1) as f64);
    if stopped_early {
        exact = false;
        why = format!(
            "{why}, stopped by --time-limit after {} of {asked}",
            scores.len()
        );
    }
    let balls = BallBatches::with(g, vertices, batching);
    let expansions = if a.count_expansions {
        let searched = if g.is_symmetric() { g.csr() } else { g.csc() };
        let (count, _) = runtime::cpu::in_pool(a.common.threads, || {
            runtime::ball_batches::expansions(searched, &balls.sources)
        })?;
        Some(count?)
    } else {
        None
    };
    let validated = a.common.validate.then(|| {
        let want = oracle(g, vertices, measure);
        want.iter()
            .zip(&scores)
            .all(|(w, x)| (w - x).abs() <= 1e-12 * w.abs().max(1.0))
    });
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(
                w,
                "# {} centrality on {} (networkx's definition; distances to the vertex): vertex score",
                if a.harmonic { "harmonic" } else { "closeness" },
                loaded.source
            )?;
            for (v, s) in vertices.iter().zip(&scores) {
                writeln!(w, "{v} {s:.12e}")?;
            }
            Ok(())
        })?;
    }
    let top = vertices
        .iter()
        .zip(&scores)
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(&v, &s)| (v, s));
    let mean = if scores.is_empty() {
        0.0
    } else {
        scores.iter().sum::<f64>() / scores.len() as f64
    };
    let s = Summary {
        program: if a.harmonic { "harmonic" } else { "closeness" },
        graph: &loaded.source,
        vertices: n,
        edges: g.num_edges(),
        measure,
        scored: vertices.len(),
        exact,
        why,
        backend: if gpu.is_some() { "gpu" } else { "cpu" },
        backend_note,
        kernel_s,
        stopped_early,
        projected_s,
        batches: vertices.len().div_ceil(runtime::cpu::msbfs::LANES),
        batching,
        reordered: balls.reordered() || sliced_in_balls,
        expansions,
        expansions_per_batch: expansions
            .map(|e| e as f64 / vertices.len().div_ceil(runtime::cpu::msbfs::LANES).max(1) as f64),
        load_s,
        time_s,
        top,
        mean,
        validated,
    };
    if a.common.json {
        print_json(&s)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "{} on {}: {} vertices, {} edges",
            s.program,
            s.graph,
            s.vertices,
            s.edges
        );
        say!(h, "  scored    {} vertices ({})", s.scored, s.why);
        say!(h, "  backend   {}", s.backend);
        if let Some(note) = &s.backend_note {
            say!(h, "  note      {note}");
        }
        say!(
            h,
            "  time      {:.3} s in {} batches of 64 sources (loaded in {:.3} s)",
            s.time_s,
            s.batches,
            s.load_s
        );
        if let Some(p) = s.projected_s {
            say!(
                h,
                "  projected {p:.1} s for all {asked} vertices at this pace{}",
                if s.stopped_early { "" } else { " (all scored)" }
            );
        }
        say!(
            h,
            "  batching  {}",
            if s.reordered {
                "balls of nearby sources"
            } else {
                "as given"
            }
        );
        if let (Some(e), Some(per)) = (s.expansions, s.expansions_per_batch) {
            say!(
                h,
                "  expanded  {e} vertices ({per:.0} a batch, {:.1} per vertex a batch)",
                per / s.vertices.max(1) as f64
            );
        }
        if let Some((v, x)) = s.top {
            say!(h, "  highest   vertex {v}: {x:.6}   mean {:.6}", s.mean);
        }
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the scores disagree with one BFS per vertex");
    }
    Ok(())
}
