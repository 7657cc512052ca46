//! `my-vertex-programs PROGRAM GRAPH [--backend cpu|gpu|auto] [-o FILE] [--json] ...`
//! and `my-vertex-programs compare PROGRAM GRAPH`: the `vertex` command's front
//! end over this crate's programs (`--help` lists everything).
use my_vertex_programs::{paths, wedges, within_hops};

fn main() -> std::process::ExitCode {
    vertex_dsl::cli::App::new("my-vertex-programs")
        .program::<within_hops::Program>("hops from a source, up to MAX_HOPS")
        .program::<paths::Program>("BFS depth and shortest-path count of every vertex")
        .program::<wedges::Program>("triangles through each vertex (undirected graphs)")
        .main()
}
