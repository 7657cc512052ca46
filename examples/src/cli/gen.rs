//! `vertex gen`: write a generated graph to a file.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use runtime::generate::GenSpec;
use runtime::graph::{build, BuildOptions, EdgeList, GraphStats};
use serde_json::json;

use super::report::{peak_rss_bytes, print_json, secs};

#[derive(Subcommand, Debug)]
pub enum GenCommand {
    /// Graph500 Kronecker graph (A=0.57, B=C=0.19, D=0.05), 2^S vertices.
    Kron {
        /// log2 of the vertex count.
        #[arg(long)]
        scale: u32,
        /// Generated edges per vertex.
        #[arg(long, default_value_t = 16)]
        edgefactor: u32,
        #[command(flatten)]
        common: GenArgs,
    },
    /// Uniform random graph G(n, m).
    Uniform {
        /// Vertex count.
        #[arg(long)]
        vertices: u64,
        /// Generated edge count.
        #[arg(long)]
        edges: u64,
        #[command(flatten)]
        common: GenArgs,
    },
    /// Road-like 2-D grid with integer weights.
    Grid {
        #[arg(long)]
        width: u32,
        #[arg(long)]
        height: u32,
        #[command(flatten)]
        common: GenArgs,
    },
    /// Planar mesh: the Delaunay triangulation of N random points in the unit
    /// square (degree about 6, diameter about √N), with integer weights.
    Mesh {
        /// Point (= vertex) count, at least 3.
        #[arg(long)]
        points: u64,
        #[command(flatten)]
        common: GenArgs,
    },
}

/// Options every generator takes.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// Random seed (same seed, same graph, whatever the thread count). The
    /// default is the generator specs' (`kron:20` is `kron:20:16@0`), so a
    /// written graph is the one the spec names.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Add uniform random integer weights in LO..HI (inclusive), e.g. 1..255.
    #[arg(long, value_parser = parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Keep edges one-way as generated (default: undirected, both directions).
    #[arg(long)]
    pub directed: bool,
    /// Keep parallel edges (default: one copy, smallest weight).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Keep self-loops (default: dropped).
    #[arg(long)]
    pub keep_self_loops: bool,
    /// Output file; the format follows the extension (.vgr, .el, .wel, .mtx, .gr, .graph, + .gz).
    /// Stdout (`-o -`) has no extension, so it is refused: give a file name.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    pub json: bool,
}

pub use vertex_dsl::cli::output::parse_range;

pub fn run(cmd: GenCommand) -> anyhow::Result<()> {
    let (spec, a) = match cmd {
        GenCommand::Kron {
            scale,
            edgefactor,
            common,
        } => (format!("kron:{scale}:{edgefactor}@{}", common.seed), common),
        GenCommand::Uniform {
            vertices,
            edges,
            common,
        } => (
            format!("uniform:{vertices}:{edges}@{}", common.seed),
            common,
        ),
        GenCommand::Grid {
            width,
            height,
            common,
        } => (format!("grid:{width}x{height}@{}", common.seed), common),
        GenCommand::Mesh { points, common } => (format!("mesh:{points}@{}", common.seed), common),
    };
    super::common::refuse_stdout("a graph", Some(&a.output))?;
    runtime::progress::set_quiet(a.json);
    let gen = GenSpec::parse(&spec).expect("spec built above is a generator spec")?;
    let t0 = Instant::now();
    let mut el: EdgeList<u32> = gen.generate()?;
    if let Some((lo, hi)) = a.weights {
        el.weights = Some(runtime::generate::weights_for_edges::<u32>(
            &el.edges,
            lo,
            hi,
            a.seed,
            !a.directed,
        ));
    }
    let t_gen = t0.elapsed();
    let t1 = Instant::now();
    let mut opts: BuildOptions = gen.default_build_options();
    opts.symmetrize = !a.directed;
    opts.dedup = !a.keep_duplicates;
    opts.remove_self_loops = !a.keep_self_loops;
    let g = build(&el, opts)?;
    drop(el);
    let t_build = t1.elapsed();
    let t2 = Instant::now();
    runtime::load::save_graph(&g, &a.output)?;
    let t_write = t2.elapsed();
    let stats = GraphStats::of(&g);
    if a.json {
        print_json(&json!({
            "spec": spec,
            "output": a.output,
            "build": opts,
            "stats": stats,
            "generate_s": secs(t_gen),
            "build_s": secs(t_build),
            "write_s": secs(t_write),
            "peak_rss_bytes": peak_rss_bytes(),
        }))?;
    } else {
        eprintln!(
            "{spec}: {} vertices, {} edges -> {} (generate {:.2}s, build {:.2}s, write {:.2}s)",
            stats.vertices,
            stats.edges,
            a.output.display(),
            secs(t_gen),
            secs(t_build),
            secs(t_write)
        );
    }
    Ok(())
}
