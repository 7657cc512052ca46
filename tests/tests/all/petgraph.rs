//! The petgraph conversions (feature `petgraph`, enabled by this crate so that
//! `cargo test --workspace` covers it) with the shipped programs: the same answers
//! on a petgraph graph as on the graph built directly, and results read back by
//! petgraph node index through a `StableGraph` with removed nodes.

use proptest::prelude::*;
use runtime::cpu::{sync, CpuOptions};
use runtime::graph::petgraph::{from_petgraph, to_petgraph};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::petgraph::graph::{DiGraph, NodeIndex, UnGraph};
use runtime::petgraph::stable_graph::StableDiGraph;
use vertex_examples::programs::{bfs, cc, sssp::sssp};
use vertex_tests as oracle;

#[test]
fn sssp_on_a_petgraph_graph_matches_dijkstra() {
    let g = oracle::unweighted("kron:9:8");
    let weighted = g
        .csr()
        .with_weights((0..g.num_edges()).map(|e| (e % 17 + 1) as u32).collect())
        .unwrap();
    let g = Graph::new(weighted, false);
    let pg: DiGraph<(), u32> = to_petgraph(&g, |w| w).unwrap();
    let back = Graph::<u32>::try_from(&pg).unwrap();
    let src = (0..g.num_vertices() as u32)
        .find(|&v| g.csr().degree(v) > 0)
        .unwrap();
    let out = sync::run::<sssp::Program>(&back, src, &CpuOptions::default()).unwrap();
    assert_eq!(out.states, oracle::dijkstra(g.csr(), src));
}

#[test]
fn components_of_an_undirected_petgraph_graph() {
    // Two triangles and an isolated node.
    let pg = UnGraph::<(), ()>::from_edges([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]);
    let mut pg = pg;
    pg.add_node(());
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert!(g.is_symmetric());
    let out = sync::run::<cc::Program>(&g, 0, &CpuOptions::default()).unwrap();
    assert_eq!(out.states, oracle::components(g.csr()));
    assert_eq!(out.states[0], out.states[2]);
    assert_ne!(out.states[0], out.states[3]);
    assert_ne!(out.states[6], out.states[3]);
}

proptest! {
    /// BFS on a StableGraph with holes, read back by node index, equals BFS on the
    /// same graph built without the removed nodes.
    #[test]
    fn bfs_through_a_stable_graph(
        n in 2usize..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40), 0..150),
        gone in proptest::collection::vec(any::<bool>(), 40),
    ) {
        let mut st = StableDiGraph::<u32, ()>::new();
        let idx: Vec<NodeIndex> = (0..n as u32).map(|i| st.add_node(i)).collect();
        for &(u, v) in &raw {
            st.add_edge(idx[u as usize % n], idx[v as usize % n], ());
        }
        // Keep node 0 (the source); remove the others marked gone.
        for i in 1..n {
            if gone[i] {
                st.remove_node(idx[i]);
            }
        }
        let imp = from_petgraph(&st, |_| 1u32).unwrap();
        let out = sync::run::<bfs::Program>(&imp.graph, 0, &CpuOptions::default()).unwrap();
        let by_index = imp.nodes.by_node_index(&out.states);

        // Reference: relabel the survivors by hand and run the oracle.
        let alive: Vec<usize> = st.node_indices().map(|i| i.index()).collect();
        let new_id = |i: usize| alive.binary_search(&i).unwrap() as u32;
        let el = EdgeList::<u32> {
            num_vertices: alive.len(),
            edges: st.edge_indices().map(|e| {
                let (s, t) = st.edge_endpoints(e).unwrap();
                [new_id(s.index()), new_id(t.index())]
            }).collect(),
            weights: None,
        };
        let expect = oracle::bfs_levels(build(&el, BuildOptions::default()).unwrap().csr(), 0);
        for (k, &i) in alive.iter().enumerate() {
            prop_assert_eq!(by_index[i], Some(expect[k]));
        }
        for (i, &g) in gone.iter().enumerate().take(n).skip(1) {
            if g {
                prop_assert_eq!(by_index.get(i).copied().flatten(), None);
            }
        }
    }
}
