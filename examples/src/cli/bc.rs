//! `vertex bc GRAPH`: betweenness centrality (Brandes, as gapbs `bc` defines it)
//! from a few sources, on the CPU or the GPU, with the two shipped gather/apply
//! programs of `programs::bc` composed.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use runtime::gather::GatherOptions;
use runtime::gpu::gather::{GatherGpuOptions, GatherGraph};
use runtime::gpu::Device;
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::bc;

use super::common::{gapbs_build, human_out, say, write_result, KernelArgs};
use super::report::{print_json, secs};

#[derive(Args, Debug, Clone)]
pub struct BcArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, grid:WxH).
    /// Files are read as given (edge lists directed); dependencies follow edge
    /// directions, as in gapbs.
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// How many sources: random vertices with out-degree > 0, reproducible from
    /// --seed (gapbs `-i`). Default: 4, or every such vertex where there are fewer.
    #[arg(long)]
    pub sources: Option<usize>,
    /// Explicit sources instead (comma-separated, 0-based).
    #[arg(long, value_delimiter = ',', conflicts_with = "sources")]
    pub source: Vec<u32>,
    /// Seed of the source picker.
    #[arg(long, default_value_t = 27491095)]
    pub seed: u64,
    /// Make the graph undirected (both directions, no self-loops or duplicates).
    #[arg(long)]
    pub symmetrize: bool,
    /// Write `vertex score` lines to FILE; `-o -` writes them to stdout and the
    /// summary to stderr (not with --json, which also wants stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
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
    sources: Vec<u32>,
    /// Both phases for every source (wall clock, uploads included on the GPU).
    time_s: f64,
    load_s: f64,
    /// The five highest normalized scores, `(vertex, score)`.
    top: Vec<(u32, f64)>,
    validated: Option<bool>,
}

/// The GPU with both phases' kernels loaded, or why not.
fn open_gpu() -> Result<(Device, [runtime::gpu::gather::GatherKernels; 2]), String> {
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = load_kernels(&dev).map_err(|e| e.to_string())?;
    Ok((dev, k))
}

/// Both phases' kernels (forward path counts, backward dependencies) on `dev`.
pub(super) fn load_kernels(
    dev: &Device,
) -> runtime::Result<[runtime::gpu::gather::GatherKernels; 2]> {
    let f = dev.load_gather::<bc::bc_paths::Program>()?;
    let b = dev.load_gather::<bc::bc_deps::Program>()?;
    Ok([f, b])
}

/// `g` and, when directed, its transpose `t`, on the device for both phases.
pub(super) struct BcGraphs<'g> {
    fwd: GatherGraph<'g, u32>,
    back: Option<GatherGraph<'g, u32>>,
}

impl<'g> BcGraphs<'g> {
    /// Uploads `g` and `t` once, for every source and both phases.
    pub(super) fn upload(
        dev: &Device,
        g: &'g Graph<u32>,
        t: Option<&'g Graph<u32>>,
    ) -> runtime::Result<Self> {
        let go = GatherGpuOptions::default();
        Ok(BcGraphs {
            fwd: dev.upload_gather_graph(g, &go, false)?,
            back: t
                .map(|t| dev.upload_gather_graph(t, &go, false))
                .transpose()?,
        })
    }
}

/// Scores from `sources` on the GPU, on graphs already uploaded.
pub(super) fn gpu_scores(
    dev: &Device,
    k: &[runtime::gpu::gather::GatherKernels; 2],
    gs: &BcGraphs<'_>,
    sources: &[u32],
) -> runtime::Result<Vec<f64>> {
    let back = gs.back.as_ref().unwrap_or(&gs.fwd);
    bc::scores(gs.fwd.graph().num_vertices(), sources, |s| {
        let opts = GatherOptions {
            source: Some(s),
            ..Default::default()
        };
        let fwd = dev.run_gather_on::<bc::bc_paths::Program, u32>(&k[0], &gs.fwd, &opts, None)?;
        let deps = bc::deps_from_paths(&fwd.states);
        let opts = GatherOptions::default();
        Ok(dev
            .run_gather_on::<bc::bc_deps::Program, u32>(&k[1], back, &opts, Some(&deps))?
            .states)
    })
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
    let sources = if a.source.is_empty() {
        let wanted = a.sources.unwrap_or(DEFAULT_SOURCES);
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
    let transposed = (!g.is_symmetric()).then(|| g.transposed());
    let load_s = secs(t_load.elapsed());
    let t_run = Instant::now();
    let (scores, backend) = match &gpu {
        Some((dev, k)) => {
            let gs = BcGraphs::upload(dev, g, transposed.as_ref())?;
            (gpu_scores(dev, k, &gs, &sources)?, "gpu")
        }
        None => (
            bc::cpu(g, transposed.as_ref(), &sources, a.common.threads)?,
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
        sources,
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
        say!(h, "  sources      {:?}", summary.sources);
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
