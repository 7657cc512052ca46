//! `vertex bfs|sssp|cc|widest GRAPH`: run a shipped program on the CPU or the GPU
//! (`cc` by default runs Afforest, `runtime::cc`, rather than a program).
//!
//! One generic path for every program: load the graph with the program's weight
//! type, run it on the chosen backend, summarise the states, optionally write them
//! (`-o`, one `vertex value` line each, written atomically).
//!
//! This module holds the flags and the per-program entry points;
//! [`program`] is the generic path, [`components`] the `vertex cc` command.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use runtime::cpu::{AsyncOptions, CpuOptions};
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, Device, ProgramOptions};
use runtime::graph::{Graph, WeightKind};
use runtime::load::weight_kind_of;
use runtime::program::{Schedule, VertexProgram};
use serde::Serialize;
use vertex_examples::programs::{bfs, sssp, widest};

use super::gen::parse_range;

mod components;
mod program;

pub use components::{cc_cmd, CcArgs};
use program::run_program_with;

pub use super::common::Backend;

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
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
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
    /// GPUs (> 1: direction kernels on a 1-D partition, the GPUs exchanging
    /// frontier slices between levels).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// With --gpus N: how the GPUs exchange (default: peer access where every
    /// pair has it, else NCCL; VERTEX_EXCHANGE sets the default too).
    #[arg(long, value_enum)]
    pub exchange: Option<crate::cli::common::Exchange>,
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
                sssp::refuse_negative_cycle(g)?;
                cpu_as_written::<sssp::sssp_f64::Program>(g, source, schedule, co, aopts)
            },
            |g, dev, k, dg, source, po| {
                sssp::refuse_negative_cycle(g)?;
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
