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

/// A Delaunay mesh (degree about 6, about √N levels), loaded as the CLI loads it,
/// with its own weights 1..=100: BFS levels and tree, SSSP and components.
#[test]
fn mesh() {
    let spec = "mesh:2000@3";
    let gw = runtime::load::load_graph::<u32>(spec, &Default::default())
        .unwrap()
        .graph;
    assert!(gw.is_symmetric() && gw.csr().is_weighted());
    check_sssp(&gw, 0);
    check_sssp(&gw, 1999);
    let g = generated(spec, false);
    assert_eq!(g.num_edges(), gw.num_edges());
    check_bfs(&g, 0);
    let cc_out = sync::run::<cc::Program>(&g, 0, &CpuOptions::default()).unwrap();
    assert_eq!(cc_out.states, oracle::components(g.csr()));
    assert!(cc_out.states.iter().all(|&c| c == 0), "a mesh is connected");
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

/// The level engine splits a push level evenly over the workers' blocks of
/// arrivals, in worker order (`cpu::level`): a worker's share may start or end
/// inside another's block, or span several when the blocks are uneven. Grids
/// from a corner and the middle, thin grids, a path, and arms of different
/// lengths around a hub (workers' blocks die out at different levels), at
/// thread counts that do not divide the levels evenly.
#[test]
fn level_engine_shares_across_workers_blocks() {
    let mut graphs: Vec<(String, Graph<u32>, Vec<u32>)> = Vec::new();
    for spec in ["grid:60x40", "grid:200x3", "grid:3x200", "grid:1x700"] {
        let g = generated(spec, false);
        let n = g.num_vertices() as u32;
        graphs.push((spec.to_string(), g, vec![0, n / 2 + 7, n - 1]));
    }
    // A hub with arms of 1, 2, 4, ... 512 vertices.
    let mut edges = Vec::new();
    let mut next = 1u32;
    for k in 0..10 {
        let mut prev = 0u32;
        for _ in 0..1u32 << k {
            edges.push([prev, next]);
            prev = next;
            next += 1;
        }
    }
    let el = EdgeList::<u32> {
        num_vertices: next as usize,
        edges,
        weights: None,
    };
    let arms = build(&el, BuildOptions::undirected()).unwrap();
    graphs.push(("arms".to_string(), arms, vec![0, next - 1, 3]));
    for (what, g, sources) in &graphs {
        for &src in sources {
            let expect = oracle::bfs_levels(g.csr(), src);
            for t in [2, 3, 5, 8] {
                for d in DIRECTIONS {
                    let out = sync::run::<bfs::Program>(g, src, &opts(d, Some(t))).unwrap();
                    assert_eq!(out.states, expect, "{what} from {src}, {t} threads, {d:?}");
                }
            }
        }
    }
}
