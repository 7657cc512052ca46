//! `vertex pr|pr-delta|kcore GRAPH`: the shipped gather/apply programs on the CPU
//! or the GPU.
//!
//! One generic path: load, check the graph suits the program (k-core wants an
//! undirected graph), run on the chosen backend, summarise, optionally validate
//! against the sequential oracle and write `vertex value` lines (`-o`, atomically).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use runtime::cpu::gather_async::AsyncOrder;
use runtime::gather::{Direction, GatherOptions, GatherProgram, GatherReport};
use runtime::gpu::gather::{GatherGpuOptions, GatherKernels};
use runtime::gpu::Device;
use runtime::graph::{BuildOptions, Graph};
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::{kcore, pagerank, pagerank_delta};

use super::common::{gapbs_build, human_out, say, warn_unused, write_result, KernelArgs};
use super::report::{print_json, secs};
use super::run::Backend;

/// Which way a gather round runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DirectionArg {
    Push,
    Pull,
    Auto,
}

/// How a gather/apply program is scheduled on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GatherSchedule {
    /// Rounds (bulk-synchronous, Jacobi: reproducible).
    Sync,
    /// Rounds updated in place (dense programs, CPU): fewer rounds on
    /// high-diameter graphs (about half on grids), not bit-reproducible across
    /// thread counts.
    GaussSeidel,
    /// Data-driven, one shared FIFO of chunks (programs declaring `async`).
    Async,
    /// Data-driven, ordered by the program's priority (programs declaring `obim`).
    Obim,
}

impl GatherSchedule {
    /// The name `--schedule` takes.
    fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_string())
    }
}

/// Options of the gather/apply program commands.
#[derive(Args, Debug, Clone)]
pub struct GatherArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// CPU schedule: rounds, or data-driven for programs that allow it (pr-delta).
    #[arg(long, value_enum, default_value_t = GatherSchedule::Sync)]
    pub schedule: GatherSchedule,
    /// Stop when a round's L1 change is below this (PageRank; default 1e-4).
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Round limit: the run stops there (PageRank default 20). Frontier-driven
    /// programs (kcore, pr-delta) default to max(8 × vertices, 10000) rounds,
    /// and reaching that default is an error (the frontier never emptied);
    /// this option raises it.
    #[arg(long)]
    pub max_rounds: Option<u32>,
    /// Push, pull, or chosen per round from the frontier's size.
    #[arg(long, value_enum)]
    pub direction: Option<DirectionArg>,
    /// In-edges per GPU thread in the gather kernels.
    #[arg(long, default_value_t = GatherGpuOptions::default().max_edge_count)]
    pub max_edge_count: u64,
    /// Make the graph undirected (both directions, no self-loops or duplicates).
    #[arg(long)]
    pub symmetrize: bool,
    /// GPUs of this host to run on (`--backend gpu`): each keeps the in-edges of
    /// its share of the vertices, rounds pull, and the messages are all-gathered
    /// each round.
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// With --gpus N: how the GPUs exchange the messages (default: peer access
    /// where every pair has it, else NCCL; VERTEX_EXCHANGE sets the default too).
    #[arg(long, value_enum)]
    pub exchange: Option<crate::cli::common::Exchange>,
    /// Write `vertex value` lines to FILE; `-o -` writes them to stdout and the
    /// summary to stderr (not with --json, which also wants stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    edges: u64,
    backend: &'static str,
    backend_note: Option<String>,
    /// The rounds only (no loading): CUDA events on the GPU, wall clock on the CPU.
    time_s: f64,
    load_s: f64,
    #[serde(flatten)]
    report: GatherReport,
    /// Program-specific summary (sum and largest rank; largest core number).
    #[serde(flatten)]
    result: serde_json::Value,
    validated: Option<bool>,
}

/// Whether a run's states pass the program's oracle (the report tells how it stopped).
type Agrees<P> =
    fn(&Graph<u32>, &GatherOptions, &GatherReport, &[<P as GatherProgram>::State]) -> bool;

/// What a program command needs besides the program: its oracle check, how a
/// state is printed, and its summary.
struct Shape<P: GatherProgram> {
    /// Needs an undirected simple graph (refused otherwise, whatever the file declares).
    undirected: bool,
    /// Built as gapbs builds it ([`gapbs_build`]): the program promises gapbs's definition.
    simple: bool,
    agrees: Agrees<P>,
    value: fn(&P::State) -> String,
    summary: fn(&[P::State]) -> serde_json::Value,
}

pub fn pr_cmd(a: GatherArgs) -> anyhow::Result<()> {
    run::<pagerank::Program>(
        a,
        Shape {
            undirected: false,
            simple: true,
            agrees: |g, o, report, ranks| {
                let tolerance = o.tolerance.unwrap_or(pagerank::pagerank::TOLERANCE);
                if o.gauss_seidel {
                    // No round-for-round oracle: judge the distance to the fixed
                    // point, which a converged run's last change bounds.
                    let residual = runtime::oracle::pagerank_residual(
                        g.csr(),
                        ranks,
                        pagerank::pagerank::DAMPING,
                    );
                    return residual <= 2.0 * tolerance.max(report.reduced);
                }
                let (expect, _) = runtime::oracle::pagerank(
                    g.csr(),
                    pagerank::pagerank::DAMPING,
                    tolerance,
                    o.max_rounds.unwrap_or(pagerank::pagerank::MAX_ROUNDS),
                );
                ranks
                    .iter()
                    .zip(&expect)
                    .all(|(x, y)| (x - y).abs() <= 1e-6 * y.abs())
            },
            value: |r| format!("{r:.12e}"),
            summary: |ranks| rank_summary(ranks.iter().copied()),
        },
    )
}

pub fn pr_delta_cmd(a: GatherArgs) -> anyhow::Result<()> {
    use pagerank_delta::pagerank_delta::{Residual, DAMPING, TOLERANCE_L1};
    // Its vertices' thresholds come from the program's own bound, not from a
    // round's change, so the option would be silently ignored.
    if let Some(t) = a.tolerance {
        anyhow::bail!(
            "--tolerance {t}: pr-delta stops when no residual reaches its threshold, which \
             keeps the ranks within L1 {TOLERANCE_L1:e} of PageRank's fixed point (the \
             program's TOLERANCE_L1); --tolerance sets `vertex pr`'s stopping rule"
        );
    }
    run::<pagerank_delta::Program>(
        a,
        Shape {
            undirected: false,
            simple: true,
            // Within the program's L1 bound of the converged ranks.
            agrees: |g, _, _, s| {
                let (exact, _) = runtime::oracle::pagerank(g.csr(), DAMPING, 1e-13, 10_000);
                l1(s.iter().map(|r: &Residual| r.rank), &exact) <= TOLERANCE_L1
            },
            value: |r| format!("{:.12e}", r.rank),
            summary: |s| rank_summary(s.iter().map(|r| r.rank)),
        },
    )
}

/// Σ |a − b|.
pub fn l1(a: impl Iterator<Item = f64>, b: &[f64]) -> f64 {
    a.zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// The sum of the ranks and the top-ranked vertex.
fn rank_summary(ranks: impl Iterator<Item = f64>) -> serde_json::Value {
    let (mut sum, mut top, mut max) = (0.0, None, f64::NEG_INFINITY);
    for (v, r) in ranks.enumerate() {
        sum += r;
        if r > max {
            (top, max) = (Some(v), r);
        }
    }
    serde_json::json!({ "rank_sum": sum, "top_vertex": top, "top_rank": max })
}

pub fn kcore_cmd(a: GatherArgs) -> anyhow::Result<()> {
    run::<kcore::Program>(
        a,
        Shape {
            undirected: true,
            simple: false,
            agrees: |g, _, _, s| {
                runtime::oracle::core_numbers(g.csr())
                    .iter()
                    .zip(s)
                    .all(|(c, s)| *c == s.core)
            },
            value: |s| s.core.to_string(),
            summary: |s| serde_json::json!({ "max_core": s.iter().map(|s| s.core).max().unwrap_or(0) }),
        },
    )
}

/// The GPU and `P`'s gather kernels, or why they cannot be had.
pub(super) fn open_gpu<P: GatherProgram>() -> Result<(Device, GatherKernels), String> {
    if P::gpu_ptx().is_none() {
        return Err(format!("no GPU kernels: {}", P::gpu_ptx_status()));
    }
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_gather::<P>().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn run<P: GatherProgram>(a: GatherArgs, shape: Shape<P>) -> anyhow::Result<()> {
    super::common::check_output(a.output.as_deref(), a.common.json)?;
    if a.schedule == GatherSchedule::GaussSeidel && P::FRONTIER {
        bail!(
            "--schedule gauss-seidel: `{}` is frontier-driven; in-place rounds are for dense programs such as `vertex pr`",
            P::NAME
        );
    }
    if a.schedule == GatherSchedule::GaussSeidel && a.common.backend == Backend::Gpu {
        bail!("--schedule gauss-seidel runs on the CPU; the GPU runs Jacobi rounds (use --backend cpu)");
    }
    let order = match a.schedule {
        GatherSchedule::Sync | GatherSchedule::GaussSeidel => None,
        GatherSchedule::Async => Some(AsyncOrder::Fifo),
        GatherSchedule::Obim => Some(AsyncOrder::Obim),
    };
    if order.is_some() && !P::ASYNC {
        bail!(
            "--schedule {}: `{}` runs in rounds only (of the shipped gather programs, \
             `vertex pr-delta` also runs data-driven)",
            a.schedule.name(),
            P::NAME
        );
    }
    let cpu_only = order.is_some() || a.schedule == GatherSchedule::GaussSeidel;
    crate::cli::common::check_exchange(a.gpus, a.exchange)?;
    if a.gpus == 0 || (a.gpus > 1 && (cpu_only || a.common.backend != Backend::Gpu)) {
        bail!(
            "--gpus {}: expected 1, or more with --backend gpu and round schedules",
            a.gpus
        );
    }
    let multi = (a.gpus > 1)
        .then(|| -> anyhow::Result<_> {
            let m = crate::cli::common::open_gpus(a.gpus, a.exchange)?;
            let k = m.load_gather::<P>()?;
            Ok((m, k))
        })
        .transpose()?;
    let (gpu, note) = match (a.common.backend, cpu_only) {
        _ if multi.is_some() => (None, None),
        (Backend::Cpu, _) => (None, None),
        (Backend::Gpu, true) => {
            bail!("--schedule async/obim runs on the CPU; the GPU runs rounds (use --backend cpu)")
        }
        (Backend::Auto, true) => (
            None,
            Some(format!(
                "auto: using the CPU (schedule {})",
                a.schedule.name()
            )),
        ),
        (Backend::Gpu, false) => (
            Some(open_gpu::<P>().map_err(|e| anyhow::anyhow!("--backend gpu: {e}"))?),
            None,
        ),
        (Backend::Auto, false) => match open_gpu::<P>() {
            Ok((d, k)) => {
                let note = format!("auto: using GPU 0 ({})", d.info().name);
                (Some((d, k)), Some(note))
            }
            Err(e) => (None, Some(format!("auto: using the CPU ({e})"))),
        },
    };
    if let (Some(n), false) = (&note, a.common.json) {
        eprintln!("{n}");
    }
    warn_unused_options::<P>(&a, gpu.is_some() || multi.is_some(), order.is_some());
    let opts = GatherOptions {
        max_rounds: a.max_rounds,
        tolerance: a.tolerance,
        direction: a.direction.map(|d| match d {
            DirectionArg::Push => Direction::Push,
            DirectionArg::Pull => Direction::Pull,
            DirectionArg::Auto => Direction::Auto,
        }),
        source: None,
        threads: a.common.threads,
        gauss_seidel: a.schedule == GatherSchedule::GaussSeidel,
    };
    let lo = LoadOptions {
        ignore_weights: true,
        build: if shape.simple {
            Some(gapbs_build(a.symmetrize))
        } else {
            a.symmetrize.then(BuildOptions::undirected)
        },
        symmetrize: a.symmetrize,
        ..LoadOptions::default()
    };
    let t_load = Instant::now();
    let loaded =
        load_graph::<u32>(&a.graph, &lo).with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    // A file that lists each undirected edge both ways is undirected already;
    // one that declares itself undirected may still hold self-loops or
    // repeated entries, which would count in a vertex's degree.
    if shape.undirected && !g.csr().is_simple_and_symmetric() {
        bail!(
            "{}: `{}` needs an undirected simple graph and {} is not one (an edge without \
             its reverse, a self-loop or a repeated edge); add --symmetrize, which makes it one",
            a.graph,
            P::NAME,
            loaded.source
        );
    }
    let go = GatherGpuOptions {
        max_edge_count: a.max_edge_count,
        ..GatherGpuOptions::default()
    };
    let (states, report, backend) = match (&gpu, &multi) {
        (_, Some((m, k))) => {
            let mg = m.upload_gather(g, &go, P::WEIGHTED)?;
            let r = m.run_gather::<P>(k, &mg, &opts, None)?;
            (r.states, r.report, "gpus")
        }
        (Some((dev, k)), None) => {
            let r = dev.run_gather::<P, u32>(k, g, &opts, &go)?;
            (r.states, r.report, "gpu")
        }
        (None, None) => {
            let r = match order {
                None => runtime::cpu::gather::run::<P, u32>(g, &opts)?,
                Some(o) => runtime::cpu::gather_async::run::<P, u32>(g, &opts, o)?,
            };
            (r.states, r.report, "cpu")
        }
    };
    let validated = a
        .common
        .validate
        .then(|| (shape.agrees)(g, &opts, &report, &states));
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(w, "# {} on {}: vertex value", P::NAME, loaded.source)?;
            for (v, s) in states.iter().enumerate() {
                writeln!(w, "{v} {}", (shape.value)(s))?;
            }
            Ok(())
        })?;
    }
    let summary = Summary {
        program: P::NAME,
        graph: loaded.source.clone(),
        vertices: g.num_vertices(),
        edges: g.num_edges(),
        backend,
        backend_note: note,
        time_s: secs(report.time),
        load_s,
        result: (shape.summary)(&states),
        report,
        validated,
    };
    if a.common.json {
        print_json(&summary)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "{} on {} ({} vertices, {} edges), {} backend{}",
            summary.program,
            summary.graph,
            summary.vertices,
            summary.edges,
            backend,
            if a.gpus > 1 {
                format!(" ({} GPUs)", a.gpus)
            } else {
                String::new()
            }
        );
        let r = &summary.report;
        say!(
            h,
            "  time         {:.6} s ({} rounds: {} pushed, {} dense; stopped: {:?})",
            summary.time_s,
            r.rounds,
            r.push_rounds,
            r.dense_rounds,
            r.stop
        );
        say!(
            h,
            "  gathered     {} edges, {} applies",
            r.edges_gathered,
            r.applies
        );
        if let serde_json::Value::Object(m) = &summary.result {
            for (k, v) in m {
                say!(h, "  {k:<12} {v}");
            }
        }
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}

/// Warns about options this run of a gather/apply program does not read:
/// CPU settings on the GPU, GPU settings on the CPU, a tolerance for a
/// frontier-driven program (it stops when its frontier empties), and round
/// settings under the data-driven schedules (which have no rounds) or
/// Gauss–Seidel rounds (which always pull).
fn warn_unused_options<P: GatherProgram>(a: &GatherArgs, on_gpu: bool, data_driven: bool) {
    super::common::warn_threads_on_gpu(a.common.threads, on_gpu);
    if !on_gpu && a.max_edge_count != GatherGpuOptions::default().max_edge_count {
        warn_unused(
            &format!("--max-edge-count {}", a.max_edge_count),
            "the CPU ran; it sets the GPU gather kernels' work per thread (--backend gpu)",
        );
    }
    if let (Some(t), true) = (a.tolerance, P::FRONTIER) {
        warn_unused(
            &format!("--tolerance {t}"),
            &format!(
                "`{}` is frontier-driven: it stops when no vertex is active",
                P::NAME
            ),
        );
    }
    if data_driven {
        if let Some(m) = a.max_rounds {
            warn_unused(
                &format!("--max-rounds {m}"),
                "the data-driven schedules (async, obim) run no rounds",
            );
        }
        if a.direction.is_some() {
            warn_unused(
                "--direction",
                "the data-driven schedules (async, obim) push every update",
            );
        }
    } else if a.schedule == GatherSchedule::GaussSeidel && a.direction.is_some() {
        warn_unused("--direction", "Gauss–Seidel rounds always pull");
    }
}
