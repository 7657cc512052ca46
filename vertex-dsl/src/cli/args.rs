//! The options every program subcommand takes, as `vertex`'s program commands
//! spell them.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use runtime::gpu::multi::Route;
use runtime::gpu::BfsKernel;
use runtime::program::Schedule;
use runtime::run::{Backend, Plan};

/// `--backend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Cpu,
    Gpu,
    /// The GPU when the program has kernels and a device opens, else the CPU
    /// (the output says which ran, and why).
    Auto,
}

/// `--schedule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// Picked from the program and the graph (the output says which and why).
    Auto,
    /// Level-synchronous rounds.
    Sync,
    /// Asynchronous work stealing.
    Async,
    /// Ordered priority buckets (programs with a priority).
    Obim,
}

/// Options of a program subcommand.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Graph file (.mtx .gr .el .wel .txt .graph .vgr, optionally .gz) or
    /// generator spec (kron:S, uniform:N:M, grid:WxH, mesh:N).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    /// Source vertex (0-based; default: the first vertex with out-edges, which
    /// the output names). Programs where every vertex starts take none.
    #[arg(long, short)]
    pub source: Option<u32>,
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// CPU schedule.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Auto)]
    pub schedule: ScheduleArg,
    /// CPU worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// GPU kernel of push programs: auto, naive, balanced, direction, resident
    /// or tiles.
    #[arg(long, default_value = "auto")]
    pub kernel: BfsKernel,
    /// Edges per GPU thread or work item.
    #[arg(long)]
    pub max_edge_count: Option<u64>,
    /// Direction kernel of push programs: Beamer's α, bottom-up once the
    /// frontier's out-edges exceed the unexplored edges / α (default 50; a
    /// larger α turns sooner).
    #[arg(long)]
    pub alpha: Option<u64>,
    /// Direction kernel: Beamer's β, back to top-down once the shrinking
    /// frontier holds at most n / β vertices (default 18).
    #[arg(long)]
    pub beta: Option<u64>,
    /// Bucket width of ordered schedules and kernels (programs with a priority).
    #[arg(long)]
    pub delta: Option<u64>,
    /// Round limit (gather/apply programs).
    #[arg(long)]
    pub max_rounds: Option<u32>,
    /// Convergence tolerance (gather/apply programs with a reduction).
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Random integer weights LO..HI (weighted programs get 1..255 on graphs
    /// without weights; on a weighted file these replace its weights).
    #[arg(long, value_parser = super::output::parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Make the graph undirected (add every edge's reverse).
    #[arg(long)]
    pub symmetrize: bool,
    /// GPU to use (0-based).
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// GPUs 0..N of this machine for one run, the graph partitioned among
    /// them (push programs run the direction kernel, gather programs their
    /// rounds; not with --backend cpu).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// With --gpus N: how the GPUs exchange, `peer` (NVLink peer access, the
    /// default where every pair has it) or `nccl`.
    #[arg(long, value_parser = parse_route)]
    pub exchange: Option<Route>,
    /// Check the result against the program's oracle (programs registered
    /// with one).
    #[arg(long)]
    pub validate: bool,
    /// Write `vertex value..` lines to FILE after a `#` header (unreached:
    /// `inf`); `-o -` writes them to stdout and the summary to stderr.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print one JSON object on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

impl RunArgs {
    /// The run's plan (what the one run call takes).
    pub fn plan(&self) -> Plan {
        Plan {
            backend: match self.backend {
                BackendArg::Cpu => Backend::Cpu,
                BackendArg::Gpu => Backend::Gpu,
                BackendArg::Auto => Backend::Auto,
            },
            source: self.source,
            schedule: match self.schedule {
                ScheduleArg::Auto => None,
                ScheduleArg::Sync => Some(Schedule::Sync),
                ScheduleArg::Async => Some(Schedule::Async),
                ScheduleArg::Obim => Some(Schedule::Obim),
            },
            threads: self.threads,
            kernel: (self.kernel != BfsKernel::Auto).then_some(self.kernel),
            max_edge_count: self.max_edge_count,
            delta: self.delta,
            max_rounds: self.max_rounds,
            tolerance: self.tolerance,
            device: self.device,
            gpus: self.gpus,
            exchange: self.exchange,
            heuristic: runtime::gpu::options::heuristic_from(self.alpha, self.beta),
        }
    }
}

/// `--exchange`'s value, by the names the run call's [`Route`] takes.
fn parse_route(name: &str) -> Result<Route, String> {
    Route::from_name(name).map_err(|e| e.to_string())
}
