//! Round trips, id maps and the errors of every conversion.

use super::import::{check_vertex_count, MapRepr};
use super::*;
use crate::graph::{BuildOptions, EdgeList, Graph, MAX_VERTICES};
use ::petgraph::csr::Csr as PgCsr;
use ::petgraph::graph::NodeIndex;
use ::petgraph::graph::{DiGraph, UnGraph};
use ::petgraph::stable_graph::StableDiGraph;
use ::petgraph::stable_graph::StableGraph;
use ::petgraph::{Directed, Undirected};
use proptest::prelude::*;

/// (source, target, weight) of every petgraph edge, sorted, by vertex id.
fn pg_edges<S: PetgraphSource>(g: &S, map: &NodeMap) -> Vec<(u32, u32, u32)>
where
    S::EdgeWeight: Copy + Into<u32>,
{
    let mut v: Vec<_> = g
        .edge_list()
        .1
        .map(|(s, t, &w)| (map.vertex(s).unwrap(), map.vertex(t).unwrap(), w.into()))
        .collect();
    v.sort_unstable();
    v
}

fn our_edges(g: &Graph<u32>) -> Vec<(u32, u32, u32)> {
    let c = g.csr();
    let mut v: Vec<_> = (0..c.num_vertices() as u32)
        .flat_map(|u| {
            c.edge_range(u)
                .map(move |e| (u, c.targets()[e], c.weight(e)))
        })
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn directed_graph_both_ways() {
    let mut pg = DiGraph::<(), u16>::new();
    let n: Vec<_> = (0..4).map(|_| pg.add_node(())).collect();
    pg.add_edge(n[0], n[1], 3);
    pg.add_edge(n[0], n[1], 2); // parallel edge: kept
    pg.add_edge(n[2], n[2], 9); // self-loop: kept
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert_eq!(g.num_vertices(), 4); // isolated vertex 3 kept
    assert!(!g.is_symmetric());
    assert_eq!(our_edges(&g), vec![(0, 1, 2), (0, 1, 3), (2, 2, 9)]);
    let back = DiGraph::<(), u32>::try_from(&g).unwrap();
    assert_eq!(back.node_count(), 4);
    assert_eq!(
        pg_edges(
            &back,
            &NodeMap {
                repr: MapRepr::Identity(4)
            }
        ),
        our_edges(&g)
    );
}

#[test]
fn undirected_becomes_symmetric_and_back() {
    let pg = UnGraph::<(), u32>::from_edges([(0, 1, 5), (1, 2, 6), (2, 2, 1)]);
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.csr().neighbors(1), &[0, 2]);
    assert_eq!(g.csr().neighbors(2), &[1, 2]); // self-loop stored once
    assert_eq!(g.num_edges(), 5);
    let back = UnGraph::<(), u32>::try_from(&g).unwrap();
    assert_eq!(back.edge_count(), 3);
    let csr: PgCsr<(), u32, Undirected> = PgCsr::try_from(&g).unwrap();
    let again = Graph::<u32>::try_from(&csr).unwrap();
    assert!(again.is_symmetric());
    assert_eq!(our_edges(&again), our_edges(&g));
}

#[test]
fn unit_weights_give_an_unweighted_graph() {
    let pg = DiGraph::<(), ()>::from_edges([(0, 1), (1, 2)]);
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert!(!g.csr().is_weighted());
    let back: DiGraph<(), u32> = DiGraph::try_from(&g).unwrap();
    assert!(back.edge_weights().all(|&w| w == 1));
}

#[test]
fn stable_graph_holes_are_compacted() {
    let mut pg = StableDiGraph::<char, u32>::new();
    let ids: Vec<_> = "abcdef".chars().map(|c| pg.add_node(c)).collect();
    pg.add_edge(ids[0], ids[5], 1);
    pg.add_edge(ids[5], ids[2], 2);
    pg.add_edge(ids[3], ids[0], 3);
    pg.remove_node(ids[1]);
    pg.remove_node(ids[4]);
    let imp = from_petgraph(&pg, |&w| w).unwrap();
    let m = &imp.nodes;
    assert!(!m.is_identity());
    assert_eq!(m.len(), 4);
    // a c d f -> 0 1 2 3
    assert_eq!(
        [0, 1, 2, 3, 4, 5].map(|i| m.vertex(i)),
        [Some(0), None, Some(1), Some(2), None, Some(3)]
    );
    assert_eq!(m.node_index(3), Some(5));
    assert_eq!(m.node::<u32>(1), Some(ids[2]));
    assert_eq!(m.vertex(6), None);
    assert_eq!(our_edges(&imp.graph), pg_edges(&pg, m));
    assert_eq!(
        m.by_node_index(&[10, 11, 12, 13]),
        vec![Some(10), None, Some(11), Some(12), None, Some(13)]
    );
    // Back: a StableGraph without holes.
    let back: StableGraph<(), u32> = StableGraph::try_from(&imp.graph).unwrap();
    assert_eq!(back.node_count(), 4);
    assert_eq!(back.edge_count(), 3);
}

#[test]
fn closure_weights_and_widening() {
    let pg = DiGraph::<(), f32>::from_edges([(0, 1, 0.5f32)]);
    let g = Graph::<f64>::try_from(&pg).unwrap();
    assert_eq!(g.csr().weights(), Some(&[0.5f64][..]));
    let imp = from_petgraph(&pg, |&w| (w * 10.0) as u32).unwrap();
    assert_eq!(imp.graph.csr().weights(), Some(&[5u32][..]));
    assert!(imp.nodes.is_identity());
    let back: DiGraph<(), String> = to_petgraph(&imp.graph, |w| w.to_string()).unwrap();
    assert_eq!(back.edge_weights().next().map(String::as_str), Some("5"));
}

#[test]
fn errors_instead_of_panics() {
    // Directed graph into an undirected petgraph graph.
    let pg = DiGraph::<(), u32>::from_edges([(0, 1, 1)]);
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert!(UnGraph::<(), u32>::try_from(&g).is_err());
    assert!(PgCsr::<(), u32, Undirected>::try_from(&g).is_err());
    // Parallel edges into a Csr.
    let pg = DiGraph::<(), u32>::from_edges([(0, 1, 1), (0, 1, 2)]);
    let g = Graph::<u32>::try_from(&pg).unwrap();
    let err = PgCsr::<(), u32, Directed>::try_from(&g).unwrap_err();
    assert!(err.to_string().contains("parallel edges"), "{err}");
    // Index types too small for the vertex or edge count.
    let pg = DiGraph::<(), ()>::from_edges((0..300u32).map(|i| (i, (i + 1) % 300)));
    let g = Graph::<u32>::try_from(&pg).unwrap();
    assert!(DiGraph::<(), u32, u8>::try_from(&g).is_err());
    assert!(StableGraph::<(), u32, Directed, u8>::try_from(&g).is_err());
    assert!(PgCsr::<(), u32, Directed, u8>::try_from(&g).is_err());
    assert!(DiGraph::<(), u32, u16>::try_from(&g).is_ok());
    let star = DiGraph::<(), ()>::from_edges((0..300u32).map(|i| (0, i % 3 + 1)));
    let g = Graph::<u32>::try_from(&star).unwrap();
    let err = DiGraph::<(), u32, u8>::try_from(&g).unwrap_err();
    assert!(err.to_string().contains("edges"), "{err}");
    // More vertices than u32 ids name (checked before any allocation).
    assert!(check_vertex_count(MAX_VERTICES).is_ok());
    assert!(check_vertex_count(MAX_VERTICES + 1).is_err());
}

#[test]
fn csr_trailing_isolated_vertices_survive() {
    let el = EdgeList::<u32> {
        num_vertices: 5,
        edges: vec![[0, 1]],
        weights: None,
    };
    let g = super::super::build(&el, BuildOptions::default()).unwrap();
    let pg: PgCsr<(), u32> = PgCsr::try_from(&g).unwrap();
    assert_eq!(pg.node_count(), 5);
    assert_eq!(Graph::<u32>::try_from(&pg).unwrap().num_vertices(), 5);
}

fn edges_strategy() -> impl Strategy<Value = (usize, Vec<(u32, u32, u32)>)> {
    (1usize..30).prop_flat_map(|n| {
        let e = (0..n as u32, 0..n as u32, 0u32..100);
        (Just(n), proptest::collection::vec(e, 0..120))
    })
}

proptest! {
    /// petgraph → vertex → petgraph keeps every node and every edge with its
    /// weight, for all three types, directed and undirected, and a StableGraph
    /// with holes maps through its NodeMap.
    #[test]
    fn round_trip((n, edges) in edges_strategy(), holes in proptest::collection::vec(any::<bool>(), 30)) {
        // Directed Graph: edge multiset preserved exactly.
        let mut dg = DiGraph::<(), u32>::new();
        for _ in 0..n { dg.add_node(()); }
        for &(u, v, w) in &edges { dg.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), w); }
        let g = Graph::<u32>::try_from(&dg).unwrap();
        let id = NodeMap { repr: MapRepr::Identity(n) };
        prop_assert_eq!(our_edges(&g), pg_edges(&dg, &id));
        let back = DiGraph::<(), u32>::try_from(&g).unwrap();
        prop_assert_eq!(back.node_count(), n);
        prop_assert_eq!(pg_edges(&back, &id), pg_edges(&dg, &id));

        // Undirected Graph: the same undirected edges come back (normalised u <= v).
        let mut ug = UnGraph::<(), u32>::new_undirected();
        for _ in 0..n { ug.add_node(()); }
        for &(u, v, w) in &edges { ug.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), w); }
        let sg = Graph::<u32>::try_from(&ug).unwrap();
        prop_assert!(sg.is_symmetric());
        let norm = |v: Vec<(u32, u32, u32)>| {
            let mut v: Vec<_> = v.into_iter().map(|(a, b, w)| (a.min(b), a.max(b), w)).collect();
            v.sort_unstable();
            v
        };
        let back = UnGraph::<(), u32>::try_from(&sg).unwrap();
        prop_assert_eq!(norm(pg_edges(&back, &id)), norm(pg_edges(&ug, &id)));

        // Csr (no parallel edges): directed and undirected round trips.
        let dedup = super::super::build(
            &EdgeList { num_vertices: n, edges: edges.iter().map(|e| [e.0, e.1]).collect(), weights: Some(edges.iter().map(|e| e.2).collect()) },
            BuildOptions { dedup: true, ..BuildOptions::default() },
        ).unwrap();
        let c: PgCsr<(), u32> = PgCsr::try_from(&dedup).unwrap();
        prop_assert_eq!(c.node_count(), n);
        prop_assert_eq!(our_edges(&Graph::<u32>::try_from(&c).unwrap()), our_edges(&dedup));
        let sym = super::super::build(
            &EdgeList { num_vertices: n, edges: edges.iter().map(|e| [e.0, e.1]).collect(), weights: None },
            BuildOptions { symmetrize: true, dedup: true, ..BuildOptions::default() },
        ).unwrap();
        let uc: PgCsr<(), u32, Undirected> = PgCsr::try_from(&sym).unwrap();
        let sym2 = Graph::<u32>::try_from(&uc).unwrap();
        prop_assert!(sym2.is_symmetric());
        prop_assert_eq!(our_edges(&sym2), our_edges(&sym));

        // StableGraph with holes: compacted, edges map through the NodeMap.
        let mut st = StableDiGraph::<(), u32>::new();
        let idx: Vec<_> = (0..n).map(|_| st.add_node(())).collect();
        for &(u, v, w) in &edges { st.add_edge(idx[u as usize], idx[v as usize], w); }
        for (i, &gone) in holes.iter().take(n).enumerate() { if gone { st.remove_node(idx[i]); } }
        let imp = from_petgraph(&st, |&w| w).unwrap();
        prop_assert_eq!(imp.graph.num_vertices(), st.node_count());
        prop_assert_eq!(our_edges(&imp.graph), pg_edges(&st, &imp.nodes));
        for i in st.node_indices() {
            let v = imp.nodes.vertex(i.index()).unwrap();
            prop_assert_eq!(imp.nodes.node_index(v), Some(i.index()));
        }
        let back: StableGraph<(), u32> = StableGraph::try_from(&imp.graph).unwrap();
        prop_assert_eq!(back.node_count(), st.node_count());
        prop_assert_eq!(back.edge_count(), st.edge_count());
    }
}
