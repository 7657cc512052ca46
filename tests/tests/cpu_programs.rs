//! Every shipped program on the CPU sync engine, push / pull / auto, against the
//! sequential oracles, on generated graphs, the gapbs test graphs, edge cases, and
//! random small graphs (proptest).

use proptest::prelude::*;
use runtime::cpu::{sync, tree, CpuOptions, Direction};
use runtime::generate::GenSpec;
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::validate::validate_bfs_tree;
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;

const DIRECTIONS: [Direction; 3] = [Direction::Push, Direction::Pull, Direction::Auto];

fn opts(d: Direction, threads: Option<usize>) -> CpuOptions {
    CpuOptions {
        threads,
        direction: d,
    }
}

fn generated(spec: &str, weights: bool) -> Graph<u32> {
    let g = GenSpec::parse(spec).unwrap().unwrap();
    let mut el = g.generate().unwrap();
    if weights {
        el.weights = Some(runtime::generate::weights_for_edges::<u32>(
            &el.edges, 1, 255, 7, true,
        ));
    } else if el.weights.is_some() && !weights {
        el.weights = None;
    }
    build(&el, g.default_build_options()).unwrap()
}

fn check_bfs(g: &Graph<u32>, src: u32) {
    let expect = oracle::bfs_levels(g.csr(), src);
    for d in DIRECTIONS {
        let out = sync::run::<bfs::Program>(g, src, &opts(d, None)).unwrap();
        assert_eq!(out.states, expect, "BFS levels, {d:?}");
        let parents = tree::parents::<bfs::Program>(g, src, &out.states);
        validate_bfs_tree(g.csr(), src, &parents, Some(&out.states)).unwrap();
    }
}

fn check_sssp(g: &Graph<u32>, src: u32) {
    let expect = oracle::dijkstra(g.csr(), src);
    let out = sync::run::<sssp::sssp::Program>(g, src, &opts(Direction::Auto, None)).unwrap();
    assert_eq!(out.states, expect, "SSSP distances");
}

#[test]
fn kronecker_all_programs() {
    let g = generated("kron:10:8", false);
    let degree_pos = (0..g.num_vertices() as u32)
        .find(|&v| g.csr().degree(v) > 0)
        .unwrap();
    check_bfs(&g, degree_pos);
    let gw = generated("kron:10:8", true);
    check_sssp(&gw, degree_pos);
    let cc_out = sync::run::<cc::Program>(&g, 0, &CpuOptions::default()).unwrap();
    assert_eq!(cc_out.states, oracle::components(g.csr()));
    let w = sync::run::<widest::Program>(&gw, degree_pos, &CpuOptions::default()).unwrap();
    assert_eq!(w.states, oracle::widest(gw.csr(), degree_pos));
}

#[test]
fn grid_and_uniform() {
    let g = generated("grid:30x20", true);
    check_bfs(&g, 0);
    check_sssp(&g, 17);
    let u = generated("uniform:500:1500", true);
    check_bfs(&u, 3);
    check_sssp(&u, 3);
}

#[test]
fn edge_cases() {
    // single vertex
    let one = build(&EdgeList::<u32>::new(1), BuildOptions::default()).unwrap();
    check_bfs(&one, 0);
    // isolated vertices and a directed chain
    let el = EdgeList::<u32> {
        num_vertices: 6,
        edges: vec![[0, 1], [1, 2], [4, 0]],
        weights: Some(vec![3, 4, 1]),
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    check_bfs(&g, 0);
    check_sssp(&g, 0);
    check_bfs(&g, 5);
    // an out-of-range source is an error, not a panic
    let e = sync::run::<bfs::Program>(&g, 6, &CpuOptions::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("out of range"), "{e}");
}

#[test]
fn thread_counts_agree() {
    let g = generated("kron:9", false);
    let expect = oracle::bfs_levels(g.csr(), 1);
    for t in [1, 2, 3, 8] {
        for d in DIRECTIONS {
            let out = sync::run::<bfs::Program>(&g, 1, &opts(d, Some(t))).unwrap();
            assert_eq!(out.states, expect, "threads {t} {d:?}");
        }
    }
}

#[test]
fn float_sssp() {
    let g = generated("grid:15x15", true);
    let csr = g.csr();
    let wf: Vec<f64> = csr
        .weights()
        .unwrap()
        .iter()
        .map(|&w| w as f64 / 7.0)
        .collect();
    let gf = Graph::new(csr.with_weights(wf).unwrap(), true);
    let out = sync::run::<sssp::sssp_f64::Program>(&gf, 0, &CpuOptions::default()).unwrap();
    let expect = oracle::dijkstra_f64(gf.csr(), 0);
    for (a, b) in out.states.iter().zip(&expect) {
        assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
    }
}

fn arb_graph() -> impl Strategy<Value = (EdgeList<u32>, bool)> {
    (1usize..30, any::<bool>()).prop_flat_map(|(n, sym)| {
        proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..50), 0..120).prop_map(
            move |es| {
                (
                    EdgeList {
                        num_vertices: n,
                        edges: es.iter().map(|e| [e.0, e.1]).collect(),
                        weights: Some(es.iter().map(|e| e.2).collect()),
                    },
                    sym,
                )
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_graphs_match_oracles((el, sym) in arb_graph(), src_seed: u32) {
        let o = BuildOptions { symmetrize: sym, ..BuildOptions::default() };
        let g = build(&el, o).unwrap();
        let src = src_seed % el.num_vertices as u32;
        let levels = oracle::bfs_levels(g.csr(), src);
        for d in DIRECTIONS {
            let out = sync::run::<bfs::Program>(&g, src, &opts(d, Some(2))).unwrap();
            prop_assert_eq!(&out.states, &levels);
        }
        let out = sync::run::<sssp::sssp::Program>(&g, src, &CpuOptions::default()).unwrap();
        prop_assert_eq!(out.states, oracle::dijkstra(g.csr(), src));
        let out = sync::run::<widest::Program>(&g, src, &CpuOptions::default()).unwrap();
        prop_assert_eq!(out.states, oracle::widest(g.csr(), src));
        if sym {
            let out = sync::run::<cc::Program>(&g, 0, &CpuOptions::default()).unwrap();
            prop_assert_eq!(out.states, oracle::components(g.csr()));
        }
    }
}
