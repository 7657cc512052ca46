//! The shipped programs on the front end any program crate gets from
//! [`vertex_dsl::cli::App`]: what `vertex run PROGRAM GRAPH ...` runs. Each
//! goes through the one run call, with the sequential oracle for `--validate`
//! where one exists.

use runtime::graph::Graph;
use runtime::oracle;
use vertex_dsl::cli::App;
use vertex_dsl::Intersected;

use crate::programs::{
    bfs, cc, kcore, lcc, pagerank, pagerank_delta, reliability, sssp::sssp, triangles, widest,
};

fn source(s: Option<u32>) -> u32 {
    s.unwrap_or(0)
}

fn bfs_oracle(g: &Graph<u32>, s: Option<u32>) -> Vec<u32> {
    oracle::bfs_levels(g.csr(), source(s))
}

fn sssp_oracle(g: &Graph<u32>, s: Option<u32>) -> Vec<u64> {
    oracle::dijkstra(g.csr(), source(s))
}

fn widest_oracle(g: &Graph<u32>, s: Option<u32>) -> Vec<u32> {
    oracle::widest(g.csr(), source(s))
}

/// Labels agree with union-find on an undirected graph (`--symmetrize` a
/// directed file: propagation along out-edges only is not components).
fn cc_oracle(g: &Graph<u32>, _: Option<u32>) -> Vec<u32> {
    oracle::components(g.csr())
}

fn triangles_oracle(g: &Graph<u32>, _: Option<u32>) -> Intersected<u64, u64> {
    Intersected {
        total: oracle::triangles(g.csr()),
        states: Vec::new(),
    }
}

fn lcc_oracle(g: &Graph<u32>, _: Option<u32>) -> Intersected<u64, f64> {
    Intersected {
        total: 0,
        states: oracle::local_clustering(g.csr()),
    }
}

/// The shipped programs as subcommands of `name`.
pub fn app(name: &str) -> App {
    App::new(name)
        .about("the shipped programs through the one run call (the front end of `vertex_dsl::cli`)")
        .oracle::<bfs::Program>("hops from the source", bfs_oracle)
        .oracle::<sssp::Program>("shortest distances (u32 weights)", sssp_oracle)
        .oracle::<widest::Program>("widest-path widths (u32 weights)", widest_oracle)
        .oracle::<cc::Program>(
            "component labels by min-label propagation (undirected graphs: --symmetrize)",
            cc_oracle,
        )
        .program::<reliability::Program>("most reliable path (f64 weights in 0..1)")
        .program::<pagerank::Program>("PageRank (gather/apply)")
        .program::<pagerank_delta::Program>("residual-push PageRank (--schedule async|obim)")
        .program::<kcore::Program>("core numbers (undirected graphs: --symmetrize)")
        .oracle::<triangles::Program>(
            "triangle count (undirected graphs: --symmetrize)",
            triangles_oracle,
        )
        .oracle::<lcc::Program>(
            "local clustering coefficients (undirected graphs: --symmetrize)",
            lcc_oracle,
        )
}
