//! Triangle counting on the CPU engine and through the GPU kernel's host
//! emulation, against the sequential oracle: generated graphs, hand-made graphs
//! with known counts (cliques, loops and parallel edges, empty and isolated
//! vertices), and random small edge lists. Every count is taken four ways: the
//! library count (`runtime::tc::count`, its GPU kernel emulated) and the DSL
//! program `programs::triangles` (`runtime::tc::program::run`, its generated
//! kernel emulated); the per-vertex DSL program `programs::lcc` is checked
//! against `oracle::local_clustering` on the same graphs.

use proptest::prelude::*;
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::oracle;

use runtime::gpu::intersect;
use runtime::tc::program;
use vertex_examples::programs::{lcc, triangles};
use vertex_tests::unweighted as generated;

fn graph(n: usize, edges: &[[u32; 2]], opts: BuildOptions) -> Graph<u32> {
    let el = EdgeList::<u32> {
        num_vertices: n,
        edges: edges.to_vec(),
        weights: None,
    };
    build(&el, opts).unwrap()
}

/// Loops and parallel edges kept: only the triangle counters may drop them.
fn raw_symmetric() -> BuildOptions {
    BuildOptions {
        symmetrize: true,
        ..BuildOptions::default()
    }
}

/// The library count and the DSL program, on the CPU (1, 3 and all threads)
/// and the emulated GPU, all give `expect`; the DSL's per-vertex coefficients
/// match the oracle's.
fn check(g: &Graph<u32>, expect: u64) {
    for threads in [Some(1), Some(3), None] {
        let r = runtime::tc::count(g, threads).unwrap();
        assert_eq!(r.triangles, expect, "CPU, {threads:?} threads");
        let r = program::run::<triangles::Program, _>(g, threads).unwrap();
        assert_eq!(r.total, expect, "DSL on the CPU, {threads:?} threads");
    }
    assert_eq!(
        runtime::gpu::tc::emulate(g).unwrap(),
        expect,
        "emulated GPU"
    );
    let dsl_gpu = intersect::emulate::<triangles::Program, _>(g).unwrap();
    assert_eq!(dsl_gpu.total, expect, "DSL kernel, emulated");
    check_lcc(g);
}

/// `programs::lcc` on the CPU and the emulated GPU against the oracle.
fn check_lcc(g: &Graph<u32>) {
    let expect = oracle::local_clustering(g.csr());
    let cpu = program::run::<lcc::Program, _>(g, Some(2)).unwrap().states;
    let gpu = intersect::emulate::<lcc::Program, _>(g).unwrap().states;
    assert_eq!(cpu.len(), expect.len());
    for (v, e) in expect.iter().enumerate() {
        assert!(
            (cpu[v] - e).abs() < 1e-12,
            "lcc on the CPU, vertex {v}: {} vs {e}",
            cpu[v]
        );
        assert!(
            (gpu[v] - e).abs() < 1e-12,
            "lcc kernel, vertex {v}: {} vs {e}",
            gpu[v]
        );
    }
}

#[test]
fn generated_graphs_match_the_oracle() {
    for spec in [
        "kron:10",
        "kron:11",
        "kron:12",
        "kron:10:4",
        "uniform:3000:40000",
        "grid:40x30",
    ] {
        let g = generated(spec);
        let expect = oracle::triangles(g.csr());
        assert_eq!(
            oracle::triangles_in_parallel(g.csr()),
            expect,
            "{spec}: the block-parallel oracle"
        );
        if spec.starts_with("kron") {
            assert!(expect > 0, "{spec}: a Kronecker graph has triangles");
        }
        check(&g, expect);
    }
}

#[test]
fn the_block_parallel_oracle_counts_what_the_sequential_one_does() {
    // Several blocks of vertices, hubs in more than one of them.
    for spec in ["kron:13", "uniform:5000:60000"] {
        let g = generated(spec);
        assert_eq!(
            oracle::triangles_in_parallel(g.csr()),
            oracle::triangles(g.csr()),
            "{spec}"
        );
    }
}

#[test]
fn a_four_clique_has_four_triangles() {
    let e = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
    let g = graph(4, &e, BuildOptions::undirected());
    assert_eq!(oracle::triangles(g.csr()), 4);
    check(&g, 4);
}

#[test]
fn cliques_have_n_choose_3_triangles() {
    for n in [3u32, 5, 8, 20] {
        let e: Vec<[u32; 2]> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| [u, v]))
            .collect();
        let g = graph(n as usize, &e, BuildOptions::undirected());
        let k = u64::from(n);
        check(&g, k * (k - 1) * (k - 2) / 6);
    }
}

#[test]
fn self_loops_and_parallel_edges_do_not_count() {
    // One triangle 0-1-2, each edge written several times and both ways, loops
    // on every vertex, and a pendant 2-3 with its own duplicate.
    let e = [
        [0, 1],
        [1, 0],
        [0, 1],
        [1, 2],
        [2, 1],
        [2, 0],
        [0, 2],
        [0, 0],
        [1, 1],
        [2, 2],
        [2, 3],
        [3, 2],
    ];
    let g = graph(4, &e, raw_symmetric());
    assert_eq!(oracle::triangles(g.csr()), 1);
    check(&g, 1);
    let clean = graph(4, &e, BuildOptions::undirected());
    check(&clean, 1);
}

#[test]
fn empty_and_isolated_vertices() {
    check(&graph(0, &[], BuildOptions::undirected()), 0);
    check(&graph(1, &[], BuildOptions::undirected()), 0);
    check(&graph(100, &[], BuildOptions::undirected()), 0);
    // A triangle among many isolated vertices, at the end of the id range.
    let g = graph(
        1000,
        &[[997, 998], [998, 999], [999, 997]],
        BuildOptions::undirected(),
    );
    check(&g, 1);
    // A path and a star have none.
    check(
        &graph(
            5,
            &[[0, 1], [1, 2], [2, 3], [3, 4]],
            BuildOptions::undirected(),
        ),
        0,
    );
    check(
        &graph(
            6,
            &[[0, 1], [0, 2], [0, 3], [0, 4], [0, 5]],
            BuildOptions::undirected(),
        ),
        0,
    );
}

#[test]
fn directed_graphs_are_refused_with_a_hint() {
    let g = graph(3, &[[0, 1], [1, 2], [2, 0]], BuildOptions::default());
    let cpu = runtime::tc::count(&g, None).unwrap_err().to_string();
    assert!(cpu.contains("--symmetrize"), "{cpu}");
    let gpu = runtime::gpu::tc::emulate(&g).unwrap_err().to_string();
    assert!(gpu.contains("--symmetrize"), "{gpu}");
    let dsl = program::run::<triangles::Program, _>(&g, None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(dsl.contains("--symmetrize"), "{dsl}");
    let dsl_gpu = intersect::emulate::<lcc::Program, _>(&g)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(dsl_gpu.contains("--symmetrize"), "{dsl_gpu}");
}

/// A directed input made undirected as gapbs's builder does (`-s`): both
/// directions, loops and parallel edges dropped. The directed 3-cycle and a
/// one-way chord make a 4-cycle with one diagonal: two triangles.
#[test]
fn directed_input_symmetrized_as_gapbs_does() {
    let e = [[0, 1], [1, 2], [2, 0], [2, 3], [3, 0], [0, 0], [1, 2]];
    let g = graph(4, &e, BuildOptions::undirected());
    assert_eq!(oracle::triangles(g.csr()), 2);
    check(&g, 2);
    // A directed generator, symmetrized.
    let el = runtime::generate::GenSpec::parse("uniform:2000:30000")
        .unwrap()
        .unwrap()
        .generate()
        .unwrap();
    let g = build(&el, BuildOptions::undirected()).unwrap();
    check(&g, oracle::triangles(g.csr()));
}

/// A hub joined to a long path: degrees 2 to 1999 side by side (the oriented
/// rows stay short, which is the point of the orientation).
#[test]
fn hub_and_path() {
    let n = 2000u32;
    let mut e: Vec<[u32; 2]> = (1..n).map(|v| [0, v]).collect();
    e.extend((1..n - 1).map(|v| [v, v + 1]));
    // Plus a few chords among the path vertices.
    e.extend([[10, 500], [10, 11], [500, 11], [700, 1500]]);
    let g = graph(n as usize, &e, BuildOptions::undirected());
    let expect = oracle::triangles(g.csr());
    check(&g, expect);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random small edge lists (loops and duplicates included), built with and
    /// without cleaning: every counter equals the oracle.
    #[test]
    fn random_edge_lists_match_the_oracle(
        n in 1usize..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40), 0..300),
        clean in any::<bool>(),
    ) {
        let e: Vec<[u32; 2]> = raw.iter().map(|&(u, v)| [u % n as u32, v % n as u32]).collect();
        let opts = if clean { BuildOptions::undirected() } else { raw_symmetric() };
        let g = graph(n, &e, opts);
        let expect = oracle::triangles(g.csr());
        prop_assert_eq!(runtime::tc::count(&g, Some(2)).unwrap().triangles, expect);
        prop_assert_eq!(runtime::gpu::tc::emulate(&g).unwrap(), expect);
        prop_assert_eq!(program::run::<triangles::Program, _>(&g, Some(2)).unwrap().total, expect);
        prop_assert_eq!(intersect::emulate::<triangles::Program, _>(&g).unwrap().total, expect);
        let lcc_cpu = program::run::<lcc::Program, _>(&g, Some(2)).unwrap().states;
        let lcc_gpu = intersect::emulate::<lcc::Program, _>(&g).unwrap().states;
        let lcc = oracle::local_clustering(g.csr());
        for v in 0..n {
            prop_assert!((lcc_cpu[v] - lcc[v]).abs() < 1e-12);
            prop_assert!((lcc_gpu[v] - lcc[v]).abs() < 1e-12);
        }
    }
}
