//! `vertex`: generate, inspect and convert graphs, and run vertex programs on them.
//!
//! Vertex ids are 0-based everywhere (on the command line and in every output).
//! Formats that count from 1 (Matrix Market, DIMACS `.gr`, METIS) map file id k to
//! k−1. Anywhere a GRAPH is read, a generator spec works too: `kron:S or kron:S:E`,
//! `uniform:N:M`, `grid:WxH`, `mesh:N`.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {}", vertex_dsl::cli::output::error_message(&e));
        std::process::exit(1);
    }
}
