//! `vertex bfs|sssp|cc|widest GRAPH`: run a shipped program on the CPU or the GPU.
//!
//! One generic path for every program: load the graph with the program's weight
//! type, run it on the chosen backend, summarise the states, optionally write them
//! (`-o`, one `vertex value` line each, written atomically).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use runtime::cpu::{sync, CpuOptions};
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, Device, ProgramOptions};
use runtime::graph::{Graph, WeightKind};
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use runtime::program::VertexProgram;
use serde::Serialize;
use vertex_examples::programs::{bfs, cc, sssp, widest};

use super::gen::parse_range;
use super::report::{print_json, secs};

/// Where a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cpu,
    Gpu,
    /// The GPU when one is usable, else the CPU (the output says which ran).
    Auto,
}

/// Options shared by every program command.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, grid:WxH).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    /// Source vertex (0-based); ignored by programs where every vertex starts.
    #[arg(long, short, default_value_t = 0)]
    pub source: u32,
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// CPU worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// GPU level kernel: naive (seed 000 full scan), balanced (seed 000 edge
    /// chunks) or direction (frontier work list, bottom-up for BFS-like programs,
    /// near-far buckets with --delta).
    #[arg(long, default_value = "balanced")]
    pub kernel: BfsKernel,
    /// Edges per GPU thread (balanced) or per work item (direction).
    #[arg(long, default_value_t = runtime::gpu::bfs::DEFAULT_MAX_EDGE_COUNT)]
    pub max_edge_count: u64,
    /// Direction kernel, programs with a priority (SSSP): near-far bucket width,
    /// a number or `auto` (from the weights and degree).
    #[arg(long)]
    pub delta: Option<String>,
    /// GPUs (> 1: direction kernels on a 1-D partition, NCCL between levels).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// Random integer weights LO..HI for graphs without weights (weighted
    /// programs default to 1..255 then).
    #[arg(long, value_parser = parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Check the result against the sequential oracle.
    #[arg(long)]
    pub validate: bool,
    /// Write `vertex value` lines to FILE (unreached vertices print `inf`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    edges: u64,
    source: Option<u32>,
    backend: &'static str,
    backend_note: Option<String>,
    /// Traversal only (no loading): CUDA events on the GPU, wall clock on the CPU.
    time_s: f64,
    load_s: f64,
    rounds: u64,
    reached: u64,
    /// Edges out of reached vertices over the traversal time (Graph500-style TEPS
    /// counts input edges; this counts stored directed edges).
    teps: f64,
    max_value: Option<String>,
    validated: Option<bool>,
}

/// Sequential oracle of a program, for `--validate`.
type Oracle<P> = fn(&Graph<<P as VertexProgram>::Weight>, u32) -> Vec<<P as VertexProgram>::State>;

pub fn bfs_cmd(a: RunArgs) -> anyhow::Result<()> {
    run_program::<bfs::Program>(a, |g, s| runtime::oracle::bfs_levels(g.csr(), s))
}

pub fn cc_cmd(a: RunArgs) -> anyhow::Result<()> {
    run_program::<cc::Program>(a, |g, _| runtime::oracle::components(g.csr()))
}

pub fn widest_cmd(a: RunArgs) -> anyhow::Result<()> {
    run_program::<widest::Program>(a, |g, s| runtime::oracle::widest(g.csr(), s))
}

pub fn sssp_cmd(a: RunArgs) -> anyhow::Result<()> {
    match weight_kind_of(&a.graph)? {
        Some(WeightKind::F32 | WeightKind::F64) => {
            run_program::<sssp::sssp_f64::Program>(a, |g, s| {
                runtime::oracle::dijkstra_f64(g.csr(), s)
            })
        }
        _ => run_program::<sssp::sssp::Program>(a, |g, s| runtime::oracle::dijkstra(g.csr(), s)),
    }
}

/// Why the GPU cannot be used, or the opened device with the program's kernels.
fn open_gpu<P: GpuProgram>() -> Result<(Device, runtime::gpu::program::ProgramKernels), String> {
    if P::gpu_ptx().is_none() {
        return Err(format!("no GPU kernels: {}", P::gpu_ptx_status()));
    }
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_program::<P>().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn run_program<P: GpuProgram>(a: RunArgs, oracle: Oracle<P>) -> anyhow::Result<()>
where
    <P as VertexProgram>::State: std::fmt::Display,
{
    if a.gpus == 0 || (a.gpus > 1 && a.backend == Backend::Cpu) {
        bail!(
            "--gpus {}: expected 1, or more with --backend gpu|auto",
            a.gpus
        );
    }
    // Pick the backend first: a GPU request that cannot work fails before loading.
    // `--backend auto` keeps the first attempt's error: it is the note's text.
    let (gpu, note) = match a.backend {
        Backend::Cpu => (None, None),
        Backend::Gpu => (
            Some(open_gpu::<P>().map_err(|e| anyhow::anyhow!("--backend gpu: {e}"))?),
            None,
        ),
        Backend::Auto => match open_gpu::<P>() {
            Ok((d, k)) => {
                let note = format!("auto: using GPU 0 ({})", d.info().name);
                (Some((d, k)), Some(note))
            }
            Err(e) => (None, Some(format!("auto: using the CPU ({e})"))),
        },
    };
    if let Some(n) = &note {
        if !a.json {
            eprintln!("{n}");
        }
    }
    let mut opts = LoadOptions::default();
    let file_weighted = weight_kind_of(&a.graph)?.is_some();
    if let Some((lo, hi)) = a.weights {
        opts.random_weights = Some((lo, hi, 1));
    } else if P::WEIGHTED && !file_weighted {
        if !a.json {
            eprintln!(
                "{}: the graph has no weights; using random weights 1..255 (--weights to choose)",
                P::NAME
            );
        }
        opts.random_weights = Some((1, 255, 1));
    } else if !P::WEIGHTED {
        opts.ignore_weights = true;
    }
    let t_load = Instant::now();
    let loaded = load_graph::<<P as VertexProgram>::Weight>(&a.graph, &opts)
        .with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    let n = g.num_vertices();
    if P::NEEDS_SOURCE && a.source as usize >= n {
        bail!(
            "source vertex {} is out of range: the graph has {n} vertices (ids are 0-based)",
            a.source
        );
    }

    let delta = match a.delta.as_deref() {
        None => None,
        Some("auto") => Some(runtime::gpu::program::gpu_delta::<P>(g, a.source)),
        Some(d) => Some(
            d.parse::<u64>()
                .ok()
                .filter(|&d| d > 0)
                .with_context(|| format!("--delta {d}: expected a positive integer or `auto`"))?,
        ),
    };
    let po = ProgramOptions {
        kernel: if a.gpus > 1 {
            BfsKernel::Direction
        } else {
            a.kernel
        },
        max_edge_count: a.max_edge_count,
        delta,
        ..ProgramOptions::default()
    };
    let (states, time_s, rounds, backend) = match &gpu {
        Some(_) if a.gpus > 1 => {
            let multi = runtime::gpu::multi::MultiGpu::open(a.gpus)?;
            let k = multi.load_program::<P>()?;
            let mg = multi.upload(g, P::WEIGHTED)?;
            let r = multi.run_program::<P>(&k, &mg, a.source, &po)?;
            (r.states, r.time_ms * 1e-3, r.levels.len() as u64, "gpus")
        }
        Some((dev, k)) => {
            // With in-edges, so that the direction kernel can go bottom-up.
            let dg = dev.upload_traversal(g, P::WEIGHTED)?;
            let r = dev.run_program::<P>(k, &dg, a.source, &po)?;
            (r.states, r.time_ms * 1e-3, u64::from(r.num_levels), "gpu")
        }
        None => {
            let co = CpuOptions {
                threads: a.threads,
                ..CpuOptions::default()
            };
            let r = sync::run::<P>(g, a.source, &co)?;
            (r.states, secs(r.report.time), r.report.rounds, "cpu")
        }
    };

    let unreached = if P::NEEDS_SOURCE {
        // Every vertex but the source starts at this value; it stays if unreached.
        let other = if a.source == 0 && n > 1 { 1 } else { 0 };
        Some(<P as VertexProgram>::init(other, a.source))
    } else {
        None
    };
    let is_reached = |s: &<P as VertexProgram>::State| unreached.is_none_or(|u| *s != u);
    let csr = g.csr();
    let (reached, edges) = states
        .iter()
        .enumerate()
        .filter(|(_, s)| is_reached(s))
        .fold((0u64, 0u64), |(r, e), (v, _)| {
            (r + 1, e + csr.degree(v as u32))
        });
    let max_value = states
        .iter()
        .filter(|s| is_reached(s))
        .copied()
        .reduce(|x, y| if y > x { y } else { x })
        .map(|m| m.to_string());
    let validated = if a.validate {
        Some(oracle(g, a.source) == states)
    } else {
        None
    };
    if let Some(path) = &a.output {
        runtime::formats::vgr::atomic_write(path, |w| {
            for (v, s) in states.iter().enumerate() {
                if is_reached(s) {
                    writeln!(w, "{v} {s}")?;
                } else {
                    writeln!(w, "{v} inf")?;
                }
            }
            Ok(())
        })?;
    }
    let summary = Summary {
        program: P::NAME,
        graph: loaded.source.clone(),
        vertices: n,
        edges: csr.num_edges(),
        source: P::NEEDS_SOURCE.then_some(a.source),
        backend,
        backend_note: note,
        time_s,
        load_s,
        rounds,
        reached,
        teps: if time_s > 0.0 {
            edges as f64 / time_s
        } else {
            0.0
        },
        max_value,
        validated,
    };
    if a.json {
        print_json(&summary)?;
    } else {
        println!(
            "{} on {} ({} vertices, {} edges), {} backend",
            summary.program, summary.graph, n, summary.edges, backend
        );
        if let Some(s) = summary.source {
            println!("  source       {s}");
        }
        println!("  time         {:.6} s ({} rounds)", time_s, rounds);
        println!("  reached      {reached} vertices");
        if let Some(m) = &summary.max_value {
            println!("  max value    {m}");
        }
        println!("  rate         {:.3} M edges/s", summary.teps / 1e6);
        if let Some(v) = validated {
            println!("  oracle       {}", if v { "agrees" } else { "DISAGREES" });
        }
        if let Some(p) = &a.output {
            println!("  wrote        {}", p.display());
        }
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}
