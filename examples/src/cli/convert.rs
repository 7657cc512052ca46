//! `vertex convert IN OUT`: any readable format to any writable one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use runtime::graph::BuildOptions;
use runtime::load::{load_graph, save_graph, weight_kind_of, LoadOptions};
use serde_json::json;

use super::report::{print_json, secs};
use crate::with_weight_type;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input file or generator spec.
    pub input: String,
    /// Output file; format by extension (.vgr, .el, .wel, .mtx, .gr, .graph, + .gz).
    /// Stdout (`-`) has no extension, so it is refused: give a file name.
    pub output: PathBuf,
    /// Add reverse edges (undirected output).
    #[arg(long)]
    pub symmetrize: bool,
    /// Drop self-loops.
    #[arg(long)]
    pub remove_self_loops: bool,
    /// Keep one of each parallel edge (the smallest weight).
    #[arg(long)]
    pub dedup: bool,
    /// Renumber vertices by decreasing degree.
    #[arg(long)]
    pub relabel: bool,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ConvertArgs) -> anyhow::Result<()> {
    super::common::refuse_stdout("a graph", Some(&a.output))?;
    runtime::progress::set_quiet(a.json);
    let kind = weight_kind_of(&a.input)?;
    let build =
        (a.symmetrize || a.remove_self_loops || a.dedup || a.relabel).then_some(BuildOptions {
            symmetrize: a.symmetrize,
            remove_self_loops: a.remove_self_loops,
            dedup: a.dedup,
            relabel_by_degree: a.relabel,
        });
    let opts = LoadOptions {
        build,
        ..LoadOptions::default()
    };
    with_weight_type!(kind, W => {
        let loaded = load_graph::<W>(&a.input, &opts)?;
        warn_lost_vertices(&loaded.graph, &a.output);
        let t = Instant::now();
        save_graph(&loaded.graph, &a.output)?;
        let write = t.elapsed();
        if a.json {
            print_json(&json!({
                "input": a.input,
                "output": a.output,
                "vertices": loaded.graph.num_vertices(),
                "edges": loaded.graph.num_edges(),
                "read_s": secs(loaded.read_time),
                "build_s": secs(loaded.build_time),
                "write_s": secs(write),
            }))?;
        } else {
            eprintln!(
                "{} -> {}: {} vertices, {} edges (read {:.2}s, build {:.2}s, write {:.2}s)",
                a.input,
                a.output.display(),
                loaded.graph.num_vertices(),
                loaded.graph.num_edges(),
                secs(loaded.read_time),
                secs(loaded.build_time),
                secs(write)
            );
        }
    });
    Ok(())
}

/// Edge lists (`.el`, `.wel`) carry no vertex count: a reader sees the vertices
/// up to the largest id an edge names, so isolated vertices after it are lost
/// (their count, components, PageRank's base share change). Said before
/// writing; the file is still written, as asked.
fn warn_lost_vertices<W: runtime::graph::Weight>(g: &runtime::graph::Graph<W>, out: &Path) {
    use runtime::formats::Format;
    let Ok((format, _)) = Format::from_path(out) else {
        return;
    };
    if !matches!(format, Format::EdgeList | Format::WeightedEdgeList) {
        return;
    }
    let c = g.csr();
    let n = c.num_vertices();
    let last_source = (0..n as u32).rev().find(|&v| c.degree(v) > 0);
    let last_target = c.targets().iter().copied().max();
    let named = last_source.max(last_target).map_or(0, |v| v as usize + 1);
    if named < n {
        eprintln!(
            "warning: {}: an edge list carries no vertex count; the {} isolated vertices \
             after id {} will not be read back (.vgr, .mtx, .gr and .graph keep them)",
            out.display(),
            n - named,
            named.saturating_sub(1)
        );
    }
}
