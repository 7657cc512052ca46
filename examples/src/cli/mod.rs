//! Command-line front end: one module per subcommand.

mod apsp;
mod bc;
mod bench;
mod bench_cpu;
mod bench_gap;
mod bench_ppr;
mod bench_prgpu;
mod bench_sources;
mod closeness;
mod common;
mod compare;
mod convert;
mod demo;
mod dist_gpu;
mod dist_graph500;
mod dist_run;
mod gather;
mod gen;
mod info;
mod launch;
mod lcc;
mod report;
mod run;
mod tc;

use clap::{Parser, Subcommand};

/// Graph algorithms written once as vertex programs, run on CPU and GPU.
///
/// Vertex ids are 0-based. GRAPH is a file (.mtx, .gr, .el, .wel, .graph, .vgr,
/// optionally .gz) or a generator spec: kron:S or kron:S:E (Graph500 Kronecker, scale S,
/// edgefactor E=16), uniform:N:M, urand:S (gapbs: uniform:2^S:16·2^S), grid:WxH
/// (road-like grid), mesh:N (Delaunay mesh of N random points); any of them with
/// @SEED. Run with no subcommand for a demo on a built-in Kronecker graph.
#[derive(Parser, Debug)]
#[command(name = "vertex", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a graph and write it to a file.
    #[command(subcommand)]
    Gen(gen::GenCommand),
    /// Print vertex/edge counts, degree statistics and memory of a graph.
    Info(info::InfoArgs),
    /// Convert between formats (chosen by file extension).
    Convert(convert::ConvertArgs),
    /// The default job on a built-in graph (what `cargo run --release` does).
    Demo(demo::DemoArgs),
    /// Run one program under several schedules and thread counts, side by side.
    Compare(compare::CompareArgs),
    /// Benchmark our CPU BFS/SSSP against gapbs on the same graphs (writes docs/results).
    BenchCpu(bench_cpu::BenchCpuArgs),
    /// Standard benchmarks (Graph500 BFS, the GAP suite), results under docs/results.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    #[command(flatten)]
    Apsp(apsp::ApspCommand),
    /// Breadth-first search: hop count from the source. Under `vertex launch`
    /// (or RANK/WORLD_SIZE from another launcher) each rank generates its part
    /// of a kron:S graph (or reads its part of an .el/.wel/.vgr file) and the
    /// ranks search it together, on one GPU each with --backend gpu.
    Bfs(run::RunArgs),
    /// Start N ranks of a distributed run on this host: `vertex launch -n 4 --
    /// vertex bfs kron:20 --validate` (each process gets RANK, WORLD_SIZE,
    /// LOCAL_RANK, MASTER_ADDR, MASTER_PORT as a cluster launcher sets them).
    /// Ranks run bfs, cc, sssp, pr and `bench graph500`; with --backend gpu
    /// each rank drives GPU LOCAL_RANK and the GPUs talk over NCCL.
    Launch(launch::LaunchArgs),
    /// Single-source shortest paths (integer or float weights). Integer weights must be non-negative; a file with a fractional or negative weight written as a float (e.g. -2.0) runs on float weights, which take negative weights (a graph with a negative cycle is refused, whether the source reaches it or not).
    Sssp(run::RunArgs),
    /// Connected components, weakly connected for directed inputs (edge lists are
    /// directed: both edge directions count, as in gapbs): each vertex is labelled
    /// with the smallest vertex id of its component. Afforest by default (fast on
    /// any diameter); `--algorithm label` runs the label-propagation program on the
    /// symmetrized graph.
    Cc(run::CcArgs),
    /// Widest (max-min bottleneck) paths from the source (non-negative integer weights, u32).
    Widest(run::RunArgs),
    /// PageRank as gapbs defines it (damping 0.85, stop at L1 change < 1e-4 or 20 rounds), on the graph as gapbs builds it: self-loops and repeated edges dropped.
    Pr(gather::GatherArgs),
    /// Core number of every vertex (undirected graphs; --symmetrize for directed files).
    Kcore(gather::GatherArgs),
    /// Betweenness centrality from a few sources (Brandes, as gapbs `bc`; scores normalized by the largest), on the graph as gapbs builds it: self-loops and repeated edges dropped.
    Bc(bc::BcArgs),
    /// Data-driven PageRank (residual push), in rounds or asynchronously
    /// (--schedule async|obim): the same ranks within L1 1e-4, on the same graph
    /// as `pr` (self-loops and repeated edges dropped).
    PrDelta(gather::GatherArgs),
    /// Closeness (or --harmonic) centrality as networkx defines it: distances to
    /// each vertex, Wasserman–Faust scaling on graphs that are not connected;
    /// exact when affordable, else --sources K random vertices. 64 breadth-first
    /// searches share each edge visit (CPU or GPU).
    Closeness(closeness::ClosenessArgs),
    /// Triangle count (gapbs tc); the input is made undirected first.
    Tc(tc::TcArgs),
    /// Local clustering coefficient of every vertex (triangles through it over
    /// its neighbour pairs); the input is made undirected first.
    Lcc(lcc::LccArgs),
    /// Any shipped program through the one run call, on the front end a program
    /// crate of your own gets from `vertex_dsl::cli::App`: `vertex run bfs
    /// kron:16 --backend cpu -o out.txt`, `vertex run compare pagerank grid:300x300`,
    /// `vertex run --help` for the list.
    #[command(disable_help_flag = true)]
    Run {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => demo::run(demo::DemoArgs::default()),
        Some(Command::Gen(c)) => gen::run(c),
        Some(Command::Info(a)) => info::run(a),
        Some(Command::Convert(a)) => convert::run(a),
        Some(Command::Demo(a)) => demo::run(a),
        Some(Command::Compare(a)) => compare::run(a),
        Some(Command::BenchCpu(a)) => bench_cpu::run(a),
        Some(Command::Bench(c)) => bench::run(c),
        Some(Command::Apsp(c)) => apsp::run(c),
        Some(Command::Bfs(a)) => match runtime::dist::RankEnv::from_env()? {
            Some(env) if env.world > 1 => dist_run::dist_bfs_cmd(a, env),
            _ => run::bfs_cmd(a),
        },
        Some(Command::Launch(a)) => launch::run(a),
        Some(Command::Sssp(a)) => match runtime::dist::RankEnv::from_env()? {
            Some(env) if env.world > 1 => dist_run::dist_sssp_cmd(a, env),
            _ => run::sssp_cmd(a),
        },
        Some(Command::Cc(a)) => match runtime::dist::RankEnv::from_env()? {
            Some(env) if env.world > 1 => dist_run::dist_cc_cmd(a.run, env),
            _ => run::cc_cmd(a),
        },
        Some(Command::Widest(a)) => run::widest_cmd(a),
        Some(Command::Pr(a)) => match runtime::dist::RankEnv::from_env()? {
            Some(env) if env.world > 1 => dist_run::dist_pr_cmd(a, env),
            _ => gather::pr_cmd(a),
        },
        Some(Command::Kcore(a)) => gather::kcore_cmd(a),
        Some(Command::Bc(a)) => bc::bc_cmd(a),
        Some(Command::PrDelta(a)) => gather::pr_delta_cmd(a),
        Some(Command::Tc(a)) => tc::tc_cmd(a),
        Some(Command::Closeness(a)) => closeness::closeness_cmd(a),
        Some(Command::Lcc(a)) => lcc::lcc_cmd(a),
        Some(Command::Run { args }) => vertex_examples::app::app("vertex run")
            .run_args(std::iter::once("vertex run".to_string()).chain(args)),
    }
}

/// Calls `$body` with `$W` bound to the Rust type of a run-time weight kind
/// (unweighted graphs use `u32`).
#[macro_export]
macro_rules! with_weight_type {
    ($kind:expr, $W:ident => $body:expr) => {{
        use runtime::graph::WeightKind;
        match $kind {
            None | Some(WeightKind::U32) => {
                type $W = u32;
                $body
            }
            Some(WeightKind::I32) => {
                type $W = i32;
                $body
            }
            Some(WeightKind::U64) => {
                type $W = u64;
                $body
            }
            Some(WeightKind::I64) => {
                type $W = i64;
                $body
            }
            Some(WeightKind::F32) => {
                type $W = f32;
                $body
            }
            Some(WeightKind::F64) => {
                type $W = f64;
                $body
            }
        }
    }};
}
