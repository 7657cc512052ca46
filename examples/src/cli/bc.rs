//! `vertex bc GRAPH`: betweenness centrality (Brandes, as gapbs `bc` defines it)
//! from a few sources, on the CPU or the GPU, with the two shipped gather/apply
//! programs of `programs::bc` composed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use runtime::gpu::msbfs::MsbfsKernels;
use runtime::gpu::{Device, DeviceGraph};
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::bc;

use super::common::{gapbs_build, human_out, say, write_result, KernelArgs};
use super::report::{print_json, secs};

#[derive(Args, Debug, Clone)]
pub struct BcArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    /// Files are read as given (edge lists directed); dependencies follow edge
    /// directions, as in gapbs.
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// How many sources: K random vertices with out-degree > 0, reproducible
    /// from --seed (gapbs `-i`), or `all` (every vertex with out-edges: exact
    /// betweenness; the GPU runs them 64 per sweep). Default: 4, or every such
    /// vertex where there are fewer.
    #[arg(long)]
    pub sources: Option<String>,
    /// Explicit sources instead (comma-separated, 0-based).
    #[arg(long, value_delimiter = ',', conflicts_with = "sources")]
    pub source: Vec<u32>,
    /// Seed of the source picker.
    #[arg(long, default_value_t = 27491095)]
    pub seed: u64,
    /// Make the graph undirected (both directions, no self-loops or duplicates).
    #[arg(long)]
    pub symmetrize: bool,
    /// CPU engine: `solo` (one source at a time), `batch` (up to 64 sources
    /// share each edge visit) or `auto` (`batch` for 64 sources or more on a
    /// graph of mean out-degree 10 or more, else `solo`).
    #[arg(long, value_enum, default_value_t = CpuEngine::Auto)]
    pub engine: CpuEngine,
    /// Write `vertex score` lines to FILE; `-o -` writes them to stdout and the
    /// summary to stderr (not with --json, which also wants stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// `--engine`: [`runtime::cpu::brandes::Engine`] on the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum CpuEngine {
    Auto,
    Batch,
    Solo,
}

impl From<CpuEngine> for runtime::cpu::brandes::Engine {
    fn from(e: CpuEngine) -> Self {
        use runtime::cpu::brandes::Engine;
        match e {
            CpuEngine::Auto => Engine::Auto,
            CpuEngine::Batch => Engine::Batch,
            CpuEngine::Solo => Engine::Solo,
        }
    }
}

/// Sources when `--sources` is not given (where the graph has that many).
const DEFAULT_SOURCES: usize = 4;

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    edges: u64,
    backend: &'static str,
    backend_note: Option<String>,
    /// Worker threads of the CPU run (`null` on the GPU).
    threads: Option<usize>,
    /// The CPU engine that ran (`null` on the GPU).
    engine: Option<&'static str>,
    source_count: usize,
    /// The sources (the first 64 when there are more).
    sources: Vec<u32>,
    /// Both phases for every source (wall clock, uploads included on the GPU).
    time_s: f64,
    load_s: f64,
    /// The five highest normalized scores, `(vertex, score)`.
    top: Vec<(u32, f64)>,
    validated: Option<bool>,
}

/// The GPU with the batched kernels loaded, or why not.
fn open_gpu() -> Result<(Device, MsbfsKernels), String> {
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_msbfs().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

/// Normalized scores from `sources` on the GPU: the batched kernels (64 sources
/// share each edge sweep), `g` uploaded once. Dependencies follow out-edges in
/// both phases, so a directed graph needs no transpose.
pub(super) fn gpu_scores(
    dev: &Device,
    k: &MsbfsKernels,
    g: &DeviceGraph,
    sources: &[u32],
) -> runtime::Result<Vec<f64>> {
    let pb = runtime::progress::bar(sources.len() as u64, "betweenness");
    let run = dev.betweenness(k, g, sources, |d| pb.inc(d as u64))?;
    pb.finish_and_clear();
    Ok(bc::normalize(run.scores))
}

pub fn bc_cmd(a: BcArgs) -> anyhow::Result<()> {
    super::common::check_output(a.output.as_deref(), a.common.json)?;
    let (gpu, note) = super::common::pick_gpu(a.common.backend, open_gpu)?;
    super::common::warn_threads_on_gpu(a.common.threads, gpu.is_some());
    let lo = LoadOptions {
        ignore_weights: true,
        build: Some(gapbs_build(a.symmetrize)),
        symmetrize: a.symmetrize,
        ..LoadOptions::default()
    };
    let t_load = Instant::now();
    let loaded =
        load_graph::<u32>(&a.graph, &lo).with_context(|| format!("loading {}", a.graph))?;
    let g = &loaded.graph;
    let n = g.num_vertices();
    let sources = if a.sources.as_deref() == Some("all") {
        let all: Vec<u32> = (0..n as u32).filter(|&v| g.csr().degree(v) > 0).collect();
        if all.is_empty() {
            bail!(
                "{}: no vertex has an out-edge, so there is no source",
                loaded.source
            );
        }
        all
    } else if a.source.is_empty() {
        let wanted = match a.sources.as_deref() {
            None => DEFAULT_SOURCES,
            Some(k) => k
                .parse::<usize>()
                .map_err(|_| anyhow::anyhow!("--sources {k}: expected a count or `all`"))?,
        };
        if wanted == 0 {
            bail!("--sources 0: give at least one source");
        }
        let s = runtime::generate::pick_roots(g.csr(), wanted, a.seed);
        if s.is_empty() {
            bail!(
                "{}: no vertex has an out-edge, so there is no source to pick",
                loaded.source
            );
        }
        if s.len() < wanted {
            if a.sources.is_some() {
                bail!(
                    "--sources {wanted}: only {} vertices of {} have out-edges (sources are distinct); ask for at most {}, or list sources with --source",
                    s.len(),
                    loaded.source,
                    s.len()
                );
            }
            eprintln!(
                "bc: only {} vertices of {} have out-edges; using them all as sources",
                s.len(),
                loaded.source
            );
        }
        s
    } else {
        for &s in &a.source {
            if s as usize >= n {
                bail!("--source {s}: the graph has {n} vertices (ids are 0-based)");
            }
        }
        a.source.clone()
    };
    let load_s = secs(t_load.elapsed());
    let t_run = Instant::now();
    let (scores, backend) = match &gpu {
        Some((dev, k)) => {
            let dg = dev.upload(g.csr())?;
            (gpu_scores(dev, k, &dg, &sources)?, "gpu")
        }
        None => (
            bc::normalize(runtime::cpu::brandes::betweenness_by(
                g,
                &sources,
                a.common.threads,
                a.engine.into(),
            )?),
            "cpu",
        ),
    };
    let time_s = secs(t_run.elapsed());
    let validated = a.common.validate.then(|| {
        let expect = runtime::oracle::betweenness(g.csr(), &sources);
        scores
            .iter()
            .zip(&expect)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * y.abs().max(1e-12))
    });
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(
                w,
                "# betweenness centrality on {} from {} sources: vertex score",
                loaded.source,
                sources.len()
            )?;
            for (v, s) in scores.iter().enumerate() {
                writeln!(w, "{v} {s:.12e}")?;
            }
            Ok(())
        })?;
    }
    let mut top: Vec<(u32, f64)> = scores
        .iter()
        .enumerate()
        .map(|(v, &s)| (v as u32, s))
        .collect();
    top.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    top.truncate(5);
    let summary = Summary {
        program: "bc",
        graph: loaded.source.clone(),
        vertices: n,
        edges: g.num_edges(),
        backend,
        backend_note: note,
        threads: (backend == "cpu").then(|| runtime::cpu::threads_for(a.common.threads)),
        engine: (backend == "cpu")
            .then(|| runtime::cpu::brandes::Engine::from(a.engine).describe(g, sources.len())),
        source_count: sources.len(),
        sources: sources.iter().copied().take(64).collect(),
        time_s,
        load_s,
        top,
        validated,
    };
    if a.common.json {
        print_json(&summary)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "betweenness centrality on {} ({} vertices, {} edges), {} backend",
            summary.graph,
            summary.vertices,
            summary.edges,
            backend
        );
        if let Some(note) = &summary.backend_note {
            say!(h, "  note         {note}");
        }
        if let Some(engine) = summary.engine {
            say!(h, "  engine       {engine}");
        }
        if summary.source_count <= 16 {
            say!(h, "  sources      {:?}", summary.sources);
        } else {
            say!(h, "  sources      {}", summary.source_count);
        }
        say!(h, "  time         {:.6} s", summary.time_s);
        for (v, s) in &summary.top {
            say!(h, "  top          {v} {s:.9}");
        }
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the scores disagree with the sequential Brandes oracle");
    }
    Ok(())
}
