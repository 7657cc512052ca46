//! `vertex bfs|sssp|cc|widest GRAPH`: run a shipped program on the CPU or the GPU
//! (`cc` by default runs Afforest, `runtime::cc`, rather than a program).
//!
//! One generic path for every program: load the graph with the program's weight
//! type, run it on the chosen backend, summarise the states, optionally write them
//! (`-o`, one `vertex value` line each, written atomically).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use runtime::cpu::compare::schedule_name;
use runtime::cpu::{auto, AsyncOptions, CpuOptions};
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, Device, ProgramOptions};
use runtime::graph::{Graph, WeightKind};
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use runtime::program::{Schedule, VertexProgram};
use serde::Serialize;
use vertex_examples::programs::{bfs, cc, sssp, widest};

use super::common::{human_out, say, warn_unused, write_result};
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

/// `--schedule` of the program commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScheduleArg {
    /// [`runtime::cpu::auto::choose`]: obim for programs with a priority, async for
    /// BFS-like programs on high-diameter graphs, sync otherwise.
    Auto,
    Sync,
    Async,
    Obim,
}

/// Options shared by every program command.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, grid:WxH).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    /// Source vertex (0-based; default: the first vertex with out-edges, which the
    /// output names); ignored by programs where every vertex starts.
    #[arg(long, short)]
    pub source: Option<u32>,
    /// CPU schedule: auto (picked from the program and the graph; the output says
    /// which and why), sync, async or obim.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Auto)]
    pub schedule: ScheduleArg,
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// CPU worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// GPU kernel: auto (picked from the program and the graph; the output says
    /// which and why), naive (seed 000 full scan), balanced (seed 000 edge
    /// chunks), direction (frontier work list, bottom-up for BFS-like programs,
    /// near-far buckets with --delta), resident (one persistent launch with
    /// frontier queues and device-side buckets: high-diameter graphs) or tiles
    /// (one persistent launch, each block relaxing its own range of vertices in
    /// shared memory with no barrier: high-diameter graphs that fit).
    #[arg(long, default_value = "auto")]
    pub kernel: BfsKernel,
    /// Edges per GPU thread (balanced; default 8) or per work item (direction;
    /// default 64).
    #[arg(long)]
    pub max_edge_count: Option<u64>,
    /// Programs with a priority (SSSP): bucket width, a number or `auto` (from the
    /// weights and degree): the GPU direction kernel's near-far buckets, the CPU
    /// obim schedule's buckets.
    #[arg(long)]
    pub delta: Option<String>,
    /// GPUs (> 1: direction kernels on a 1-D partition, NCCL between levels).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// Random integer weights LO..HI (weighted programs default to 1..255 on
    /// graphs without weights; on a weighted file these replace its weights).
    #[arg(long, value_parser = parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Check the result against the sequential oracle.
    #[arg(long)]
    pub validate: bool,
    /// Write `vertex value` lines to FILE (unreached vertices print `inf`;
    /// widest paths print their width, 0). `-o -` writes them to stdout, and
    /// the summary to stderr (not with --json, which also wants stdout).
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
    /// How the source was chosen when none was given.
    source_note: Option<String>,
    backend: &'static str,
    /// The CPU schedule that ran (CPU backend).
    schedule: Option<&'static str>,
    /// Why `--schedule auto` picked it.
    schedule_note: Option<String>,
    /// Worker threads of the CPU run (`null` on the GPU).
    threads: Option<usize>,
    /// What the CPU run changed about the program's states (integer SSSP: 32-bit
    /// distances where no path can overflow them).
    #[serde(skip_serializing_if = "Option::is_none")]
    states_note: Option<String>,
    /// The GPU kernel that ran (GPU backend).
    kernel: Option<&'static str>,
    /// Why `--kernel auto` picked it.
    kernel_note: Option<String>,
    /// The resident kernel's rounds by width (GPU, `--kernel resident`).
    #[serde(skip_serializing_if = "Option::is_none")]
    resident: Option<runtime::gpu::resident::ResidentStats>,
    /// The tiled kernel's work (GPU, `--kernel tiles`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tiles: Option<runtime::gpu::program::TileStats>,
    backend_note: Option<String>,
    /// Traversal only (no loading): CUDA events on the GPU, wall clock on the CPU.
    time_s: f64,
    load_s: f64,
    rounds: u64,
    reached: u64,
    /// Edges out of reached vertices over the traversal time (Graph500-style TEPS
    /// counts input edges; this counts stored directed edges).
    teps: f64,
    /// The largest value of a reached vertex, as a JSON number (unreached
    /// vertices, whose value is the program's infinity, are left out; `null`
    /// when there is no value, or for a float that is not finite).
    max_value: Option<serde_json::Value>,
    validated: Option<bool>,
}

/// Sequential oracle of a program, for `--validate`.
type Oracle<P> = fn(&Graph<<P as VertexProgram>::Weight>, u32) -> Vec<<P as VertexProgram>::State>;

/// How a program runs on the CPU: `runtime::cpu::run` for most; integer SSSP
/// swaps in its 32-bit twin where that is exact. The note says what was swapped.
type CpuRun<P> = fn(
    &Graph<<P as VertexProgram>::Weight>,
    u32,
    Schedule,
    &CpuOptions,
    &AsyncOptions,
) -> runtime::Result<(
    runtime::cpu::RunResult<<P as VertexProgram>::State>,
    Option<String>,
)>;

/// How a program runs on one GPU (the kernels loaded, the graph uploaded):
/// `Device::run_program` for most; integer SSSP swaps in its 32-bit twin where
/// that is exact. The note says what was swapped.
type GpuRun<P> = fn(
    &Graph<<P as VertexProgram>::Weight>,
    &Device,
    &runtime::gpu::program::ProgramKernels,
    &runtime::gpu::DeviceGraph,
    u32,
    &ProgramOptions,
) -> runtime::Result<(
    runtime::gpu::ProgramRun<<P as VertexProgram>::State>,
    Option<String>,
)>;

/// The GPU run of most programs: the program as written.
fn gpu_as_written<P: GpuProgram>(
    _g: &Graph<<P as VertexProgram>::Weight>,
    dev: &Device,
    k: &runtime::gpu::program::ProgramKernels,
    dg: &runtime::gpu::DeviceGraph,
    source: u32,
    po: &ProgramOptions,
) -> runtime::Result<(
    runtime::gpu::ProgramRun<<P as VertexProgram>::State>,
    Option<String>,
)> {
    Ok((dev.run_program::<P>(k, dg, source, po)?, None))
}

/// Which distance width integer SSSP ran with, and why.
fn sssp_width_note(narrow: bool) -> String {
    if narrow {
        "32-bit distances: no simple path reaches 2^32 - 1"
    } else {
        "64-bit distances: a path could exceed 32 bits"
    }
    .to_string()
}

/// The CPU run of most programs: the program as written.
fn cpu_as_written<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    schedule: Schedule,
    co: &CpuOptions,
    aopts: &AsyncOptions,
) -> runtime::Result<(runtime::cpu::RunResult<P::State>, Option<String>)> {
    Ok((
        runtime::cpu::run::<P>(g, source, schedule, co, aopts)?,
        None,
    ))
}

pub fn bfs_cmd(a: RunArgs) -> anyhow::Result<()> {
    run_program::<bfs::Program>(a, |g, s| runtime::oracle::bfs_levels(g.csr(), s))
}

/// How `vertex cc` finds components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcAlgorithm {
    /// Afforest (gapbs `cc`): lock-free linking with subgraph sampling; its
    /// work does not grow with the diameter. Directed inputs: in-edges too.
    Afforest,
    /// Min-label propagation, the `#[vertex_program]` example: one round per
    /// hop of the diameter (slow on grids and roads). Runs on the symmetrized
    /// graph.
    Label,
}

/// `vertex cc`: the shared run options plus the algorithm.
#[derive(Args, Debug, Clone)]
pub struct CcArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[arg(long, value_enum, default_value_t = CcAlgorithm::Afforest)]
    pub algorithm: CcAlgorithm,
}

/// Weakly connected components whatever the input: Afforest walks in- and
/// out-edges; the label program, which only pushes along out-edges, gets the
/// symmetrized graph (an edge list stored one way would otherwise split).
pub fn cc_cmd(a: CcArgs) -> anyhow::Result<()> {
    match a.algorithm {
        CcAlgorithm::Afforest => afforest_cmd(a.run),
        CcAlgorithm::Label => run_program_with::<cc::Program>(
            a.run,
            |g, _| runtime::oracle::components(g.csr()),
            true,
            cpu_as_written::<cc::Program>,
            gpu_as_written::<cc::Program>,
        ),
    }
}

/// `vertex cc --json` for Afforest: the fields of the other programs plus the
/// algorithm and the component counts.
#[derive(Serialize)]
struct CcSummary {
    program: &'static str,
    algorithm: CcAlgorithm,
    graph: String,
    vertices: usize,
    edges: u64,
    /// The input had no reverse twins guaranteed: in-edges were walked too.
    directed_input: bool,
    backend: &'static str,
    backend_note: Option<String>,
    /// Linking and compressing only (no loading, no in-edge build, no upload).
    time_s: f64,
    load_s: f64,
    /// Link passes: the neighbour rounds plus the final one.
    rounds: u64,
    reached: u64,
    teps: f64,
    /// Largest label (the smallest id of the last component), a JSON number.
    max_value: Option<u32>,
    /// Worker threads of the CPU run (`null` on the GPU).
    threads: Option<usize>,
    components: u64,
    largest_component: u64,
    /// Share of the sampled vertices in the component the last pass skipped.
    skipped_share: f64,
    validated: Option<bool>,
}

fn open_cc_gpu() -> Result<(Device, runtime::gpu::cc::CcKernels), String> {
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_cc().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn afforest_cmd(a: RunArgs) -> anyhow::Result<()> {
    super::common::check_output(a.output.as_deref(), a.json)?;
    if a.gpus != 1 {
        bail!("--gpus {}: cc --algorithm afforest runs on one GPU", a.gpus);
    }
    let (gpu, note) = super::common::pick_gpu(a.backend, open_cc_gpu)?;
    if let Some(n) = &note {
        if !a.json {
            eprintln!("{n}");
        }
    }
    warn_unused_afforest(&a, gpu.is_some());
    let opts = LoadOptions {
        ignore_weights: true,
        ..LoadOptions::default()
    };
    let t_load = Instant::now();
    let loaded =
        load_graph::<u32>(&a.graph, &opts).with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    let n = g.num_vertices();
    let ao = runtime::cc::AfforestOptions {
        threads: a.threads,
        ..Default::default()
    };
    let (labels, time_s, share, backend, threads) = match &gpu {
        Some((dev, k)) => {
            let dg = dev.upload_traversal(g, false)?;
            let r = dev.afforest(k, &dg, &ao)?;
            (r.labels, r.time_ms * 1e-3, r.skipped_share, "gpu", None)
        }
        None => {
            let r = runtime::cc::afforest(g, &ao)?;
            let t = Some(r.report.threads);
            (
                r.labels,
                secs(r.report.time),
                r.report.skipped_share,
                "cpu",
                t,
            )
        }
    };
    let validated = a
        .validate
        .then(|| runtime::oracle::components(g.csr()) == labels);
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(
                w,
                "# cc on {}: vertex component (its smallest vertex id)",
                loaded.source
            )?;
            for (v, l) in labels.iter().enumerate() {
                writeln!(w, "{v} {l}")?;
            }
            Ok(())
        })?;
    }
    let edges = g.num_edges();
    let s = CcSummary {
        program: "cc",
        algorithm: CcAlgorithm::Afforest,
        graph: loaded.source.clone(),
        vertices: n,
        edges,
        directed_input: !g.is_symmetric(),
        backend,
        backend_note: note,
        time_s,
        load_s,
        rounds: u64::from(ao.neighbor_rounds) + 1,
        reached: n as u64,
        teps: if time_s > 0.0 {
            edges as f64 / time_s
        } else {
            0.0
        },
        max_value: labels.iter().max().copied(),
        threads,
        components: runtime::cc::count_components(&labels),
        largest_component: runtime::cc::largest_component(&labels),
        skipped_share: share,
        validated,
    };
    if a.json {
        print_json(&s)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "cc (afforest) on {} ({} vertices, {} edges{}), {} backend",
            s.graph,
            n,
            edges,
            if s.directed_input {
                ", directed: weak components"
            } else {
                ""
            },
            backend
        );
        say!(
            h,
            "  time         {:.6} s ({} link passes)",
            time_s,
            s.rounds
        );
        say!(
            h,
            "  components   {} (largest {} vertices)",
            s.components,
            s.largest_component
        );
        if let Some(m) = &s.max_value {
            say!(h, "  max value    {m}");
        }
        say!(h, "  rate         {:.3} M edges/s", s.teps / 1e6);
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}

pub fn widest_cmd(a: RunArgs) -> anyhow::Result<()> {
    run_program::<widest::Program>(a, |g, s| runtime::oracle::widest(g.csr(), s))
}

pub fn sssp_cmd(a: RunArgs) -> anyhow::Result<()> {
    match weight_kind_of(&a.graph)? {
        Some(WeightKind::F32 | WeightKind::F64) => run_program_with::<sssp::sssp_f64::Program>(
            a,
            |g, s| runtime::oracle::dijkstra_f64(g.csr(), s),
            false,
            |g, source, schedule, co, aopts| {
                refuse_negative_cycle(g)?;
                cpu_as_written::<sssp::sssp_f64::Program>(g, source, schedule, co, aopts)
            },
            |g, dev, k, dg, source, po| {
                refuse_negative_cycle(g)?;
                gpu_as_written::<sssp::sssp_f64::Program>(g, dev, k, dg, source, po)
            },
        ),
        _ => run_program_with::<sssp::sssp::Program>(
            a,
            |g, s| runtime::oracle::dijkstra(g.csr(), s),
            false,
            |g, source, schedule, co, aopts| {
                let (r, narrow) = sssp::run_cpu(g, source, schedule, co, aopts)?;
                Ok((r, Some(sssp_width_note(narrow))))
            },
            |g, dev, k, dg, source, po| {
                let (r, narrow) = sssp::run_gpu(g, dev, k, dg, source, po)?;
                Ok((r, Some(sssp_width_note(narrow))))
            },
        ),
    }
}

/// Shortest paths on float weights take negative weights, but a negative cycle
/// would have every engine relax around it forever: refused before the run,
/// naming the cycle as `vertex apsp` does (the check runs only when some weight
/// is negative).
fn refuse_negative_cycle(g: &Graph<f64>) -> runtime::Result<()> {
    let c = g.csr();
    let Some(w) = c.weights() else {
        return Ok(());
    };
    if !w.iter().any(|&x| x < 0.0) {
        return Ok(());
    }
    let (offsets, targets) = (c.offsets(), c.targets());
    match runtime::apsp::johnson::find_negative_cycle(offsets, targets, w) {
        Some(cycle) => Err(runtime::Error::NegativeCycle(
            runtime::apsp::johnson::describe_cycle(&cycle, offsets, targets, w),
        )),
        None => Ok(()),
    }
}

/// Why the GPU cannot be used, or the opened device with the program's kernels.
pub(super) fn open_gpu<P: GpuProgram>(
) -> Result<(Device, runtime::gpu::program::ProgramKernels), String> {
    if P::gpu_ptx().is_none() {
        return Err(format!("no GPU kernels: {}", P::gpu_ptx_status()));
    }
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_program::<P>().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn run_program<P: GpuProgram>(a: RunArgs, oracle: Oracle<P>) -> anyhow::Result<()>
where
    <P as VertexProgram>::State: std::fmt::Display + Serialize,
{
    run_program_with::<P>(a, oracle, false, cpu_as_written::<P>, gpu_as_written::<P>)
}

/// [`run_program`], on the symmetrized graph if `symmetrize`, with `cpu` as the
/// CPU run.
fn run_program_with<P: GpuProgram>(
    a: RunArgs,
    oracle: Oracle<P>,
    symmetrize: bool,
    cpu: CpuRun<P>,
    gpu_run: GpuRun<P>,
) -> anyhow::Result<()>
where
    <P as VertexProgram>::State: std::fmt::Display + Serialize,
{
    super::common::check_output(a.output.as_deref(), a.json)?;
    if a.gpus == 0 || (a.gpus > 1 && a.backend == Backend::Cpu) {
        bail!(
            "--gpus {}: expected 1, or more with --backend gpu|auto",
            a.gpus
        );
    }
    // Pick the backend first: a GPU request that cannot work fails before loading.
    // `--backend auto` keeps the first attempt's error: it is the note's text.
    let (gpu, note) = super::common::pick_gpu(a.backend, open_gpu::<P>)?;
    if let Some(n) = &note {
        if !a.json {
            eprintln!("{n}");
        }
    }
    let mut opts = LoadOptions {
        symmetrize,
        ..LoadOptions::default()
    };
    let file_weighted = weight_kind_of(&a.graph)?.is_some();
    if let (Some((lo, hi)), false) = (a.weights, P::WEIGHTED) {
        warn_unused(
            &format!("--weights {lo}..{hi}"),
            &format!("`{}` reads no edge weights", P::NAME),
        );
    }
    if let Some((lo, hi)) = a.weights {
        if file_weighted && !a.json {
            eprintln!(
                "{}: --weights {lo}..{hi} replaces the weights stored in {}",
                P::NAME,
                a.graph
            );
        }
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
    let (source, source_note) = match a.source {
        Some(s) => (s, None),
        None if !P::NEEDS_SOURCE => (0, None),
        None => match (0..n as u32).find(|&v| g.csr().degree(v) > 0) {
            Some(v) => (
                v,
                Some(format!(
                    "vertex {v}, the first with out-edges (--source to choose)"
                )),
            ),
            None => (0, Some("vertex 0: the graph has no edges".to_string())),
        },
    };
    if a.source.is_some() && !P::NEEDS_SOURCE {
        warn_unused(
            "--source",
            &format!("`{}` starts from every vertex", P::NAME),
        );
    }
    if P::NEEDS_SOURCE && source as usize >= n {
        bail!(
            "source vertex {source} is out of range: the graph has {n} vertices (ids are 0-based)"
        );
    }

    let delta = match a.delta.as_deref() {
        None => None,
        Some("auto") => Some(runtime::gpu::program::gpu_delta::<P>(g, source)),
        Some(d) => Some(
            d.parse::<u64>()
                .ok()
                .filter(|&d| d > 0)
                .with_context(|| format!("--delta {d}: expected a positive integer or `auto`"))?,
        ),
    };
    let (kernel, kernel_note, delta, handover) = match (&gpu, a.kernel) {
        (Some(_), _) if a.gpus > 1 => (BfsKernel::Direction, None, delta, None),
        (Some(_), BfsKernel::Auto) => {
            let c = runtime::gpu::auto::choose::<P>(g, source);
            (c.kernel, Some(c.reason), delta.or(c.delta), c.handover)
        }
        (Some(_), BfsKernel::Resident) => (
            BfsKernel::Resident,
            None,
            delta.or_else(|| runtime::gpu::auto::resident_delta::<P>(g, source)),
            None,
        ),
        (Some(_), BfsKernel::Tiles) => (
            BfsKernel::Tiles,
            None,
            delta.or_else(|| runtime::gpu::auto::tiles_delta::<P>(g, source)),
            None,
        ),
        (_, k) => (k, None, delta, None),
    };
    let po = ProgramOptions {
        kernel,
        max_edge_count: a.max_edge_count,
        delta,
        handover,
        ..ProgramOptions::default()
    };
    warn_unused_backend_options::<P>(&a, gpu.is_some());
    // --delta N is the obim bucket width too (`auto` leaves it to the engine).
    let cpu_delta = delta.filter(|_| a.delta.as_deref() != Some("auto"));
    let mut resident = None;
    let mut tiles = None;
    let mut states_note = None;
    let mut threads = None;
    let (states, time_s, rounds, backend, ran) = match &gpu {
        Some(_) if a.gpus > 1 => {
            let multi = runtime::gpu::multi::MultiGpu::open(a.gpus)?;
            let k = multi.load_program::<P>()?;
            let mg = multi.upload(g, P::WEIGHTED)?;
            let r = multi.run_program::<P>(&k, &mg, source, &po)?;
            (
                r.states,
                r.time_ms * 1e-3,
                r.levels.len() as u64,
                "gpus",
                None,
            )
        }
        Some((dev, k)) => {
            // With in-edges, so that the direction kernel can go bottom-up.
            let dg = dev.upload_traversal(g, P::WEIGHTED)?;
            let (r, note) = gpu_run(g, dev, k, &dg, source, &po)?;
            states_note = note;
            resident = r.resident;
            tiles = r.tiles;
            (
                r.states,
                r.time_ms * 1e-3,
                u64::from(r.num_levels),
                "gpu",
                None,
            )
        }
        None => {
            let co = CpuOptions {
                threads: a.threads,
                ..CpuOptions::default()
            };
            let (schedule, why) = match a.schedule {
                ScheduleArg::Auto => {
                    let c = auto::choose::<P>(g, source);
                    (c.schedule, Some(c.reason))
                }
                ScheduleArg::Sync => (Schedule::Sync, None),
                ScheduleArg::Async => (Schedule::Async, None),
                ScheduleArg::Obim => (Schedule::Obim, None),
            };
            let aopts = AsyncOptions {
                delta: cpu_delta,
                ..AsyncOptions::default()
            };
            if let (Some(d), true, false) = (&a.delta, P::HAS_PRIORITY, schedule == Schedule::Obim)
            {
                warn_unused(
                    &format!("--delta {d}"),
                    &format!(
                        "the CPU schedule is {}; only obim has buckets",
                        schedule_name(schedule)
                    ),
                );
            }
            let (r, note) = cpu(g, source, schedule, &co, &aopts)?;
            states_note = note;
            threads = Some(r.report.threads);
            let rounds = r.report.rounds;
            (
                r.states,
                secs(r.report.time),
                rounds,
                "cpu",
                Some((schedule_name(schedule), why)),
            )
        }
    };

    // Every vertex but the source starts at this value; it stays if unreached.
    // The source is reached by definition (also where it is the only vertex,
    // and no other vertex's initial value can be asked for).
    let unreached = P::NEEDS_SOURCE
        .then(|| <P as VertexProgram>::init(if source == 0 { 1 } else { 0 }, source));
    let is_reached = |v: usize, s: &<P as VertexProgram>::State| {
        !P::NEEDS_SOURCE || v == source as usize || unreached.is_none_or(|u| *s != u)
    };
    let csr = g.csr();
    let (reached, edges) = states
        .iter()
        .enumerate()
        .filter(|&(v, s)| is_reached(v, s))
        .fold((0u64, 0u64), |(r, e), (v, _)| {
            (r + 1, e + csr.degree(v as u32))
        });
    let max_value = states
        .iter()
        .enumerate()
        .filter(|&(v, s)| is_reached(v, s))
        .map(|(_, s)| *s)
        .reduce(|x, y| if y > x { y } else { x });
    let validated = if a.validate {
        Some(oracle(g, source) == states)
    } else {
        None
    };
    if let Some(path) = &a.output {
        // BFS also writes each vertex's parent in a BFS tree.
        let parents = (std::any::TypeId::of::<P>() == std::any::TypeId::of::<bfs::Program>())
            .then(|| bfs_parents::<P>(g, &states, source, &is_reached));
        write_result(path, |w| {
            let from = if P::NEEDS_SOURCE {
                format!(" from {source}")
            } else {
                String::new()
            };
            let columns = if parents.is_some() {
                "vertex level parent"
            } else {
                "vertex value"
            };
            writeln!(w, "# {} on {}{from}: {columns}", P::NAME, loaded.source)?;
            for (v, s) in states.iter().enumerate() {
                let parent = match parents.as_ref().map(|p| p[v]) {
                    None => String::new(),
                    Some(Some(u)) => format!(" {u}"),
                    Some(None) => " -".to_string(),
                };
                // Unreached: an infinite distance or level, but for a program
                // that keeps the largest value (widest paths) its state as is
                // (width 0): `inf` would read as an unlimited width.
                if is_reached(v, s) || P::COMBINE == runtime::program::Combine::Max {
                    writeln!(w, "{v} {s}{parent}")?;
                } else {
                    writeln!(w, "{v} inf{parent}")?;
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
        source: P::NEEDS_SOURCE.then_some(source),
        source_note,
        backend,
        schedule: ran.as_ref().map(|r| r.0),
        schedule_note: ran.and_then(|r| r.1),
        threads,
        states_note,
        // The tiled kernel hands a graph too large for it to the resident one.
        // The direction kernel may hand a long tail over to it.
        kernel: (backend != "cpu").then(|| match (kernel, &resident) {
            (BfsKernel::Tiles, Some(_)) => BfsKernel::Resident.name(),
            (BfsKernel::Direction, Some(_)) => "direction, then resident",
            _ => kernel.name(),
        }),
        kernel_note,
        resident,
        tiles,
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
        // A number (integers exactly, u64 included); a float that is not
        // finite serializes as `null`.
        max_value: max_value.map(serde_json::to_value).transpose()?,
        validated,
    };
    if a.json {
        print_json(&summary)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "{} on {} ({} vertices, {} edges), {} backend",
            summary.program,
            summary.graph,
            n,
            summary.edges,
            backend
        );
        if let Some(s) = summary.source {
            match &summary.source_note {
                Some(why) => say!(h, "  source       {why}"),
                None => say!(h, "  source       {s}"),
            }
        }
        if let Some(s) = summary.schedule {
            match &summary.schedule_note {
                Some(why) => say!(h, "  schedule     {s} (auto: {why})"),
                None => say!(h, "  schedule     {s}"),
            }
        }
        if let Some(n) = &summary.states_note {
            say!(h, "  states       {n}");
        }
        if let Some(k) = summary.kernel {
            match &summary.kernel_note {
                Some(why) => say!(h, "  kernel       {k} (auto: {why})"),
                None => say!(h, "  kernel       {k}"),
            }
        }
        if let Some(t) = &summary.tiles {
            say!(h,
                "  tiles        {} relaxed, {} messages, {} rounds in the busiest tile, chains of up to {} ({} blocks × {} threads, {} vertices a tile; rows in shared memory: {} as they are, {} narrow)",
                t.pops, t.messages, t.rounds, t.chain, t.blocks, t.threads_per_block, t.tile, t.rows_wide, t.rows_narrow
            );
        }
        if let Some(r) = &summary.resident {
            say!(h,
                "  resident     {} rounds: {} on one block, {} on the grid, {} bucket splits ({} blocks × {} threads)",
                r.rounds, r.small_rounds, r.wide_rounds, r.splits, r.blocks, r.threads_per_block
            );
        }
        say!(h, "  time         {:.6} s ({} rounds)", time_s, rounds);
        say!(h, "  reached      {reached} vertices");
        if let Some(m) = &max_value {
            say!(h, "  max value    {m}");
        }
        say!(h, "  rate         {:.3} M edges/s", summary.teps / 1e6);
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}

/// Warns about the options of `vertex cc` that Afforest does not read: it is not
/// a vertex program, so it has no schedule, kernel choice, buckets, source or
/// weights (`--algorithm label` runs the program that has them).
fn warn_unused_afforest(a: &RunArgs, on_gpu: bool) {
    let why =
        "cc --algorithm afforest has no such setting (--algorithm label runs the vertex program)";
    if a.schedule != ScheduleArg::Auto {
        warn_unused(&format!("--schedule {:?}", a.schedule).to_lowercase(), why);
    }
    if !matches!(a.kernel, BfsKernel::Auto) {
        warn_unused(&format!("--kernel {}", a.kernel.name()), why);
    }
    if let Some(m) = a.max_edge_count {
        warn_unused(&format!("--max-edge-count {m}"), why);
    }
    if let Some(d) = &a.delta {
        warn_unused(&format!("--delta {d}"), why);
    }
    if a.source.is_some() {
        warn_unused("--source", "components start from every vertex");
    }
    if let Some((lo, hi)) = a.weights {
        warn_unused(
            &format!("--weights {lo}..{hi}"),
            "components do not read edge weights",
        );
    }
    super::common::warn_threads_on_gpu(a.threads, on_gpu);
}

/// Warns about the options of a program command that the backend that runs
/// does not read: CPU settings on the GPU and GPU settings on the CPU, and
/// bucket widths for a program without a priority. (`--delta` with a CPU
/// schedule other than obim is warned about where the schedule is known.)
fn warn_unused_backend_options<P: VertexProgram>(a: &RunArgs, on_gpu: bool) {
    if on_gpu && a.gpus > 1 && !matches!(a.kernel, BfsKernel::Auto | BfsKernel::Direction) {
        warn_unused(
            &format!("--kernel {}", a.kernel.name()),
            &format!(
                "with --gpus {} the direction kernel runs, on a 1-D partition",
                a.gpus
            ),
        );
    }
    if on_gpu {
        if a.schedule != ScheduleArg::Auto {
            warn_unused(
                &format!("--schedule {:?}", a.schedule).to_lowercase(),
                "the GPU ran; schedules are for the CPU (--backend cpu)",
            );
        }
        super::common::warn_threads_on_gpu(a.threads, true);
    } else {
        if !matches!(a.kernel, BfsKernel::Auto) {
            warn_unused(
                &format!("--kernel {}", a.kernel.name()),
                "the CPU ran; kernels are for the GPU (--backend gpu)",
            );
        }
        if let Some(m) = a.max_edge_count {
            warn_unused(
                &format!("--max-edge-count {m}"),
                "the CPU ran; it sets the GPU kernels' work per thread (--backend gpu)",
            );
        }
    }
    if let (Some(d), false) = (&a.delta, P::HAS_PRIORITY) {
        warn_unused(
            &format!("--delta {d}"),
            &format!("`{}` has no priority, so no buckets", P::NAME),
        );
    }
}

/// BFS's parents for `-o`: the source's is itself; every other reached vertex
/// gets its smallest-id in-neighbour one level up (any such vertex is a parent
/// in a BFS tree, and levels fall by one along it, so it is a tree). Derived
/// from the levels after the run, in one pass over the in-edges, so that no
/// engine pays for parent writes.
fn bfs_parents<P: VertexProgram>(
    g: &Graph<P::Weight>,
    levels: &[P::State],
    source: u32,
    is_reached: &impl Fn(usize, &P::State) -> bool,
) -> Vec<Option<u32>> {
    let csc = g.csc();
    (0..levels.len())
        .map(|v| {
            if v == source as usize {
                return Some(source);
            }
            if !is_reached(v, &levels[v]) {
                return None;
            }
            csc.neighbors(v as u32).iter().copied().find(|&u| {
                is_reached(u as usize, &levels[u as usize])
                    && P::relax(
                        levels[u as usize],
                        <P::Weight as runtime::graph::Weight>::ONE,
                    ) == Some(levels[v])
            })
        })
        .collect()
}
