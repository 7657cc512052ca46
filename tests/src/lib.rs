//! The sequential oracles every engine's results are compared against. They live in
//! `runtime::oracle` (the GPU check binary uses them on the device too); this crate
//! re-exports them for the integration tests.

pub use runtime::oracle::{
    betweenness, bfs_levels, components, core_numbers, dijkstra, dijkstra_f64, pagerank, widest,
    INF, UNREACHED,
};

use runtime::generate::GenSpec;
use runtime::graph::{build, BuildOptions, EdgeList, Graph};

/// The generated graph `spec` (e.g. `kron:12`, `grid:30x20`) without weights,
/// built as the CLI builds it.
pub fn unweighted(spec: &str) -> Graph<u32> {
    let g = GenSpec::parse(spec)
        .expect("a valid spec")
        .expect("a generator spec");
    let mut el = g.generate().expect("generated");
    el.weights = None;
    build(&el, g.default_build_options()).expect("built")
}

/// A directed graph of `n` vertices from `edges`, built as given.
pub fn directed(n: u32, edges: &[[u32; 2]]) -> Graph<u32> {
    let el = EdgeList::<u32> {
        num_vertices: n as usize,
        edges: edges.to_vec(),
        weights: None,
    };
    build(
        &el,
        BuildOptions {
            symmetrize: false,
            ..BuildOptions::default()
        },
    )
    .expect("built")
}
