//! Command-line front end: one module per subcommand.

mod convert;
mod demo;
mod gen;
mod info;
mod report;

use clap::{Parser, Subcommand};

/// Graph algorithms written once as vertex programs, run on CPU and GPU.
///
/// Vertex ids are 0-based. GRAPH is a file (.mtx, .gr, .el, .wel, .graph, .vgr,
/// optionally .gz) or a generator spec: kron:S[:E] (Graph500 Kronecker, scale S,
/// edgefactor E=16), uniform:N:M, grid:WxH. Run with no subcommand for a demo on a
/// built-in Kronecker graph.
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
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        None => demo::run(demo::DemoArgs::default()),
        Some(Command::Gen(c)) => gen::run(c),
        Some(Command::Info(a)) => info::run(a),
        Some(Command::Convert(a)) => convert::run(a),
        Some(Command::Demo(a)) => demo::run(a),
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
