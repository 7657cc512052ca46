//! `vertex`: generate, inspect and convert graphs, and run vertex programs on them.
//!
//! Vertex ids are 0-based everywhere (on the command line and in every output).
//! Formats that count from 1 (Matrix Market, DIMACS `.gr`, METIS) map file id k to
//! k−1. Anywhere a GRAPH is read, a generator spec works too: `kron:S or kron:S:E`,
//! `uniform:N:M`, `grid:WxH`.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {}", message(&e));
        std::process::exit(1);
    }
}

/// The error and its causes, each cause once: library errors already name their
/// source in their own text (`file: No such file or directory`), so a cause the
/// message so far contains is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.is_empty() {
            text = c;
        } else if !text.contains(&c) {
            text = format!("{text}: {c}");
        }
    }
    text
}
