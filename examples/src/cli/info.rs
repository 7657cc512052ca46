//! `vertex info`: counts, degree statistics and memory of a graph.

use clap::Args;
use runtime::graph::GraphStats;
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use serde_json::json;

use super::report::{human_bytes, human_count, peak_rss_bytes, print_json, secs};
use crate::with_weight_type;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// File or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    pub graph: String,
    /// Make the graph undirected before measuring.
    #[arg(long)]
    pub symmetrize: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: InfoArgs) -> anyhow::Result<()> {
    runtime::progress::set_quiet(a.json);
    let kind = weight_kind_of(&a.graph)?;
    let opts = LoadOptions {
        symmetrize: a.symmetrize,
        ..LoadOptions::default()
    };
    with_weight_type!(kind, W => {
        let loaded = load_graph::<W>(&a.graph, &opts)?;
        let stats = GraphStats::of(&loaded.graph);
        if a.json {
            print_json(&json!({
                "graph": a.graph,
                "stats": stats,
                "zero_copy": loaded.graph.csr().is_mapped(),
                "read_s": secs(loaded.read_time),
                "build_s": secs(loaded.build_time),
                "peak_rss_bytes": peak_rss_bytes(),
            }))?;
        } else {
            print_stats(&a.graph, &stats);
            println!(
                "  loaded in    {:.3}s read + {:.3}s build{}",
                secs(loaded.read_time),
                secs(loaded.build_time),
                if loaded.graph.csr().is_mapped() { " (zero-copy mmap)" } else { "" }
            );
        }
    });
    Ok(())
}

/// The human-readable block shared by `info` and the demo.
pub fn print_stats(name: &str, s: &GraphStats) {
    println!("{name}");
    println!(
        "  vertices     {} ({})",
        s.vertices,
        human_count(s.vertices)
    );
    println!(
        "  edges        {} ({}) stored, {}",
        s.edges,
        human_count(s.edges),
        if s.symmetric {
            "undirected (both directions)"
        } else {
            "directed"
        }
    );
    println!(
        "  weights      {}",
        s.weight_type.map_or("none".to_string(), |k| k.to_string())
    );
    println!(
        "  out-degree   min {}  max {}  mean {:.2}",
        s.min_out_degree, s.max_out_degree, s.mean_out_degree
    );
    println!("  self-loops   {}", s.self_loops);
    println!("  isolated     {}", s.isolated_vertices);
    println!("  memory       {}", human_bytes(s.memory_bytes));
}
