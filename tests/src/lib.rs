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

/// A small directed graph: a cycle (0 → 1 → 2 → 0), paths out of it, a vertex
/// reaching the cycle's exits only (5), a pair apart (6 → 7) and an isolated
/// vertex (8) — the shapes many-sources runs must get right.
pub const SMALL_DIRECTED: [[u32; 2]; 9] = [
    [0, 1],
    [1, 2],
    [2, 0],
    [2, 3],
    [3, 4],
    [5, 4],
    [6, 7],
    [0, 4],
    [4, 1],
];

/// [`SMALL_DIRECTED`] over 9 vertices, weighted 1..5 by edge position when
/// `weighted`.
pub fn small_directed(weighted: bool) -> Graph<u32> {
    let el = EdgeList::<u32> {
        num_vertices: 9,
        edges: SMALL_DIRECTED.to_vec(),
        weights: weighted.then(|| {
            (0..SMALL_DIRECTED.len() as u32)
                .map(|i| 1 + i * 7 % 5)
                .collect()
        }),
    };
    let opts = BuildOptions {
        symmetrize: false,
        ..BuildOptions::default()
    };
    build(&el, opts).expect("built")
}

/// The generated graph `spec`, with weights 1..255 (seed 7) when `weights`, built
/// as the CLI builds it.
pub fn generated(spec: &str, weights: bool) -> Graph<u32> {
    let g = GenSpec::parse(spec)
        .expect("a valid spec")
        .expect("a generator spec");
    let mut el = g.generate().expect("generated");
    el.weights =
        weights.then(|| runtime::generate::weights_for_edges::<u32>(&el.edges, 1, 255, 7, true));
    build(&el, g.default_build_options()).expect("built")
}

/// The smallest vertex with out-edges (0 when none has any).
pub fn first_with_edges(g: &Graph<u32>) -> u32 {
    (0..g.num_vertices() as u32)
        .find(|&v| g.csr().degree(v) > 0)
        .unwrap_or(0)
}

/// A star glued to a path, undirected and weighted: vertex 0 of degree 250
/// (within the tiled kernel's rows, 256 edges), then 550 levels, and vertex
/// 801 isolated (a hub and a high diameter at once).
pub fn star_and_path() -> Graph<u32> {
    let mut edges: Vec<[u32; 2]> = (1..=250).map(|v| [0, v]).collect();
    edges.extend((250..800).map(|v| [v, v + 1]));
    let w: Vec<u32> = (0..edges.len() as u32).map(|i| 1 + i % 13).collect();
    let el = EdgeList::<u32> {
        num_vertices: 802,
        edges,
        weights: Some(w),
    };
    build(&el, BuildOptions::undirected()).expect("built")
}

/// Asserts that per-vertex scores agree to a relative 1e-9 (betweenness and the
/// like, summed in another order), naming `what` and the vertex otherwise.
pub fn close_scores(ours: &[f64], expect: &[f64], what: &str) {
    close_within(ours, expect, 1e-9, what)
}

/// Asserts that per-vertex values agree to a relative `rel` (sums in another
/// order, another number of parts), naming `what` and the vertex otherwise.
pub fn close_within(ours: &[f64], expect: &[f64], rel: f64, what: &str) {
    assert_eq!(ours.len(), expect.len(), "{what}: lengths");
    for (v, (x, y)) in ours.iter().zip(expect).enumerate() {
        assert!(
            (x - y).abs() <= rel * y.abs().max(1e-12),
            "{what}: vertex {v}: {x} vs {y}"
        );
    }
}
