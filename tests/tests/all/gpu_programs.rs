//! Every shipped program's GPU path — the kernels `#[vertex_program]` generates,
//! run by the host emulation launcher over a simulated grid with real atomics —
//! against the sequential oracles, with both level kernels (full scan and edge
//! chunks), several chunk sizes and grid caps, and random small graphs (proptest).
//! The same kernel bodies run on the device in `vertex-gpu-bench programs`.

use proptest::prelude::*;
use runtime::generate::GenSpec;
use runtime::gpu::program::{emulate, emulate_direction};
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;

fn generated(spec: &str, weights: bool) -> Graph<u32> {
    let g = GenSpec::parse(spec).unwrap().unwrap();
    let mut el = g.generate().unwrap();
    el.weights =
        weights.then(|| runtime::generate::weights_for_edges::<u32>(&el.edges, 1, 255, 7, true));
    build(&el, g.default_build_options()).unwrap()
}

/// Both kernels; chunk sizes that split and do not split adjacencies; a small
/// grid cap so that grid-stride loops run too.
fn variants() -> Vec<(ProgramOptions, u32)> {
    let mut v = vec![(
        ProgramOptions {
            kernel: BfsKernel::Naive,
            ..ProgramOptions::default()
        },
        4,
    )];
    for (mec, blocks) in [(1, 3), (7, 64), (16, 2)] {
        v.push((
            ProgramOptions {
                kernel: BfsKernel::Direction,
                max_edge_count: Some(mec),
                block_size: 32,
                ..ProgramOptions::default()
            },
            blocks,
        ));
        v.push((
            ProgramOptions {
                kernel: BfsKernel::Balanced,
                max_edge_count: Some(mec),
                block_size: 32,
                ..ProgramOptions::default()
            },
            blocks,
        ));
    }
    v
}

fn check_all(g: &Graph<u32>, gw: &Graph<u32>, src: u32) {
    let levels = oracle::bfs_levels(g.csr(), src);
    let comps = oracle::components(g.csr());
    let dist = oracle::dijkstra(gw.csr(), src);
    let wide = oracle::widest(gw.csr(), src);
    for (o, blocks) in variants() {
        let r = emulate::<bfs::Program>(g.csr(), src, &o, blocks).unwrap();
        assert_eq!(r.states, levels, "BFS {o:?}");
        let r = emulate::<cc::Program>(g.csr(), src, &o, blocks).unwrap();
        assert_eq!(r.states, comps, "CC {o:?}");
        let r = emulate::<sssp::sssp::Program>(gw.csr(), src, &o, blocks).unwrap();
        assert_eq!(r.states, dist, "SSSP {o:?}");
        let r = emulate::<widest::Program>(gw.csr(), src, &o, blocks).unwrap();
        assert_eq!(r.states, wide, "widest {o:?}");
        if o.kernel != BfsKernel::Direction {
            continue;
        }
        // With the graph: bottom-up levels for BFS (in-edges known), parents.
        let with_parents = ProgramOptions { parents: true, ..o };
        let r = emulate_direction::<bfs::Program>(g, src, &with_parents, blocks).unwrap();
        assert_eq!(r.states, levels, "BFS direction {o:?}");
        let parents = r.parents.as_ref().unwrap();
        runtime::validate::validate_bfs_tree(g.csr(), src, parents, Some(&r.states))
            .unwrap_or_else(|e| panic!("BFS direction {o:?}: {e}"));
        let host = ProgramOptions {
            levels_per_sync: 1,
            ..with_parents
        };
        let h = emulate_direction::<bfs::Program>(g, src, &host, blocks).unwrap();
        assert_eq!(
            h.directions, r.directions,
            "BFS planned vs host levels {o:?}"
        );
        let r = emulate_direction::<cc::Program>(g, src, &o, blocks).unwrap();
        assert_eq!(r.states, comps, "CC direction {o:?}");
        let r = emulate_direction::<sssp::sssp::Program>(gw, src, &o, blocks).unwrap();
        assert_eq!(r.states, dist, "SSSP direction {o:?}");
        assert!(emulate_direction::<sssp::sssp::Program>(gw, src, &with_parents, blocks).is_err());
        // Near-far buckets: tiny, automatic and huge Δ (one bucket) all give the
        // exact distances.
        let auto = runtime::gpu::program::gpu_delta::<sssp::sssp::Program>(gw, src);
        for delta in [1, auto, 1 << 40] {
            let b = ProgramOptions {
                delta: Some(delta),
                ..o
            };
            let r = emulate_direction::<sssp::sssp::Program>(gw, src, &b, blocks).unwrap();
            assert_eq!(r.states, dist, "SSSP buckets Δ {delta} {o:?}");
            assert!(r.directions.iter().all(|d| d.bucket_limit.is_some()));
            // Passes planned on the device (the default, and 2 per wait) are the
            // host loop's passes (1 per wait): same limits, same selections. A
            // pass's improvements depend on the order of its threads, so the
            // three runs use one emulated block (threads in a fixed order).
            let log = |levels_per_sync| {
                let h = ProgramOptions {
                    levels_per_sync,
                    ..b
                };
                let h = emulate_direction::<sssp::sssp::Program>(gw, src, &h, 1).unwrap();
                assert_eq!(
                    h.states, dist,
                    "SSSP buckets Δ {delta}, {levels_per_sync}/sync"
                );
                h.directions
            };
            let host = log(1);
            for levels_per_sync in [2, 8] {
                assert_eq!(
                    log(levels_per_sync),
                    host,
                    "Δ {delta}, {levels_per_sync}/sync"
                );
            }
            let r = emulate_direction::<widest::Program>(gw, src, &b, blocks).unwrap();
            assert_eq!(r.states, wide, "widest buckets Δ {delta} {o:?}");
        }
    }
}

#[test]
fn bfs_direction_goes_bottom_up_on_kronecker() {
    let g = generated("kron:10", false);
    let src = (0..g.num_vertices() as u32)
        .find(|&v| g.csr().degree(v) > 0)
        .unwrap();
    let o = ProgramOptions {
        kernel: BfsKernel::Direction,
        block_size: 64,
        ..ProgramOptions::default()
    };
    let r = emulate_direction::<bfs::Program>(&g, src, &o, 8).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), src));
    assert!(
        r.directions.iter().any(|d| d.bottom_up),
        "{:?}",
        r.directions
    );
}

#[test]
fn generated_graphs() {
    for spec in ["kron:9:8", "grid:17x9", "uniform:300:900"] {
        let g = generated(spec, false);
        let gw = generated(spec, true);
        let src = (0..g.num_vertices() as u32)
            .find(|&v| g.csr().degree(v) > 0)
            .unwrap();
        check_all(&g, &gw, src);
    }
}

#[test]
fn float_sssp_matches_f64_dijkstra() {
    let spec = GenSpec::parse("kron:8:8").unwrap().unwrap();
    let mut el = spec.generate().unwrap();
    let w = runtime::generate::weights_for_edges::<u32>(&el.edges, 1, 1000, 3, true);
    let el = EdgeList::<f64> {
        num_vertices: el.num_vertices,
        edges: std::mem::take(&mut el.edges),
        weights: Some(w.iter().map(|&x| f64::from(x) / 7.0).collect()),
    };
    let g = build(&el, spec.default_build_options()).unwrap();
    let want = oracle::dijkstra_f64(g.csr(), 0);
    for (o, blocks) in variants() {
        let r = emulate::<sssp::sssp_f64::Program>(g.csr(), 0, &o, blocks).unwrap();
        for (v, (a, b)) in r.states.iter().zip(&want).enumerate() {
            assert!(
                a == b || (a - b).abs() <= 1e-9 * b.abs(),
                "vertex {v}: {a} vs {b}"
            );
        }
    }
}

#[test]
fn edge_cases_and_errors() {
    // A single vertex; isolated vertices; a source with no edges.
    let one = build(
        &EdgeList::<u32> {
            num_vertices: 1,
            edges: vec![],
            weights: None,
        },
        BuildOptions::default(),
    )
    .unwrap();
    for (o, b) in variants() {
        assert_eq!(
            emulate::<bfs::Program>(one.csr(), 0, &o, b).unwrap().states,
            vec![0]
        );
    }
    let iso = build(
        &EdgeList::<u32> {
            num_vertices: 6,
            edges: vec![[1, 2], [2, 3]],
            weights: Some(vec![4, 5]),
        },
        BuildOptions::undirected(),
    )
    .unwrap();
    for (o, b) in variants() {
        let r = emulate::<bfs::Program>(iso.csr(), 1, &o, b).unwrap();
        assert_eq!(r.states, oracle::bfs_levels(iso.csr(), 1));
        let r = emulate::<bfs::Program>(iso.csr(), 5, &o, b).unwrap();
        assert_eq!(r.states, oracle::bfs_levels(iso.csr(), 5));
        let r = emulate::<sssp::sssp::Program>(iso.csr(), 1, &o, b).unwrap();
        assert_eq!(r.states, oracle::dijkstra(iso.csr(), 1));
    }
    // Clear errors: source out of range; a weighted program on an unweighted graph.
    let o = ProgramOptions::default();
    let e = emulate::<bfs::Program>(iso.csr(), 6, &o, 4).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let g = generated("kron:6:4", false);
    let e = emulate::<sssp::sssp::Program>(g.csr(), 0, &o, 4).unwrap_err();
    assert!(e.to_string().contains("weights"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_small_graphs(
        n in 1u32..40,
        raw in prop::collection::vec((0u32..40, 0u32..40, 1u32..20), 0..120),
        undirected in any::<bool>(),
        mec in 1u64..9,
    ) {
        let edges: Vec<[u32; 2]> = raw.iter().map(|&(a, b, _)| [a % n, b % n]).collect();
        let weights: Vec<u32> = raw.iter().map(|&(_, _, w)| w).collect();
        let opts = if undirected { BuildOptions::undirected() } else { BuildOptions::default() };
        let g = build(&EdgeList { num_vertices: n as usize, edges, weights: Some(weights) }, opts).unwrap();
        let o = ProgramOptions { kernel: BfsKernel::Balanced, max_edge_count: Some(mec), block_size: 8, ..ProgramOptions::default() };
        let r = emulate::<bfs::Program>(g.csr(), 0, &o, 3).unwrap();
        prop_assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
        let r = emulate::<sssp::sssp::Program>(g.csr(), 0, &o, 3).unwrap();
        prop_assert_eq!(r.states, oracle::dijkstra(g.csr(), 0));
        let r = emulate::<widest::Program>(g.csr(), 0, &o, 3).unwrap();
        prop_assert_eq!(r.states, oracle::widest(g.csr(), 0));
        if undirected {
            let r = emulate::<cc::Program>(g.csr(), 0, &o, 3).unwrap();
            prop_assert_eq!(r.states, oracle::components(g.csr()));
        }
    }
}
