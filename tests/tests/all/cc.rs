//! Connected components by Afforest, on the CPU (`runtime::cc`) and through the
//! GPU kernels under the host emulator (`runtime::gpu::cc::emulate`), against
//! the sequential union-find oracle: the same labels (the smallest vertex id of
//! each component), hence the same partition. Graphs: Kronecker and uniform
//! (one giant component, many small ones), grids and long paths (high diameter,
//! where label propagation needs thousands of rounds), directed edge lists
//! (weak components), isolated vertices, the empty graph, and random small edge
//! lists (proptest) with sampling settings that make the skipped component
//! anything but the giant one.

use proptest::prelude::*;
use runtime::cc::{afforest, count_components, AfforestOptions};
use runtime::gpu::cc::emulate;
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_tests as oracle;

use vertex_tests::unweighted as generated;

fn graph(n: usize, edges: Vec<[u32; 2]>, undirected: bool) -> Graph<u32> {
    let el = EdgeList::<u32> {
        num_vertices: n,
        edges,
        weights: None,
    };
    let o = if undirected {
        BuildOptions::undirected()
    } else {
        BuildOptions::default()
    };
    build(&el, o).unwrap()
}

/// CPU and emulated GPU Afforest both give the oracle's labels.
fn check(g: &Graph<u32>, o: &AfforestOptions, what: &str) {
    let want = oracle::components(g.csr());
    let cpu = afforest(g, o).unwrap();
    assert_eq!(cpu.labels, want, "CPU afforest on {what}");
    let gpu = emulate(g, o).unwrap();
    assert_eq!(gpu.labels, want, "emulated GPU afforest on {what}");
    assert_eq!(
        gpu.skipped, cpu.report.skipped,
        "sampled component on {what}"
    );
}

#[test]
fn generated_graphs() {
    let o = AfforestOptions::default();
    for spec in [
        "kron:10",
        "kron:11",
        "kron:12",
        "kron:13",
        "kron:14",
        "kron:12:4@9",
    ] {
        check(&generated(spec), &o, spec);
    }
    for spec in ["uniform:5000:4000", "uniform:20000:100000", "grid:200x200"] {
        check(&generated(spec), &o, spec);
    }
}

#[test]
fn one_thread_and_no_sampling() {
    let g = generated("kron:12");
    let want = oracle::components(g.csr());
    for o in [
        AfforestOptions {
            threads: Some(1),
            ..Default::default()
        },
        AfforestOptions {
            samples: 0,
            ..Default::default()
        },
        AfforestOptions {
            neighbor_rounds: 0,
            ..Default::default()
        },
        AfforestOptions {
            neighbor_rounds: 5,
            samples: 3,
            seed: 1,
            threads: Some(2),
        },
    ] {
        assert_eq!(afforest(&g, &o).unwrap().labels, want, "{o:?}");
        assert_eq!(emulate(&g, &o).unwrap().labels, want, "{o:?}");
    }
}

/// High diameter: paths whose ids run in both directions and shuffled, and a
/// path that is only connected through edges stored in one direction.
#[test]
fn long_paths() {
    let n = 100_000u32;
    let o = AfforestOptions::default();
    let forward: Vec<[u32; 2]> = (0..n - 1).map(|v| [v, v + 1]).collect();
    check(&graph(n as usize, forward.clone(), true), &o, "path");
    // Ids decreasing along the path: every link must climb.
    let backward: Vec<[u32; 2]> = (0..n - 1).map(|v| [n - 1 - v, n - 2 - v]).collect();
    check(
        &graph(n as usize, backward.clone(), false),
        &o,
        "directed reverse path",
    );
    check(&graph(n as usize, forward, false), &o, "directed path");
    // Interleaved ids: 0, n/2, 1, n/2 + 1, ...
    let h = n / 2;
    let zig: Vec<[u32; 2]> = (0..h - 1)
        .flat_map(|i| [[i, h + i], [h + i, i + 1]])
        .collect();
    check(&graph(n as usize, zig, true), &o, "zigzag path");
}

/// A directed edge list that is one weak component but whose edges all point
/// towards a hub: following out-edges alone, labels never leave the leaves.
#[test]
fn directed_edge_lists_give_weak_components() {
    let o = AfforestOptions::default();
    // Two in-stars, 1..=9 -> 0 and 11..=19 -> 10, joined by 3 -> 15; 20 alone.
    let mut e: Vec<[u32; 2]> = (1..10).map(|v| [v, 0]).collect();
    e.extend((11..20).map(|v| [v, 10]));
    e.push([3, 15]);
    let g = graph(21, e, false);
    check(&g, &o, "two in-stars");
    let l = afforest(&g, &o).unwrap().labels;
    assert!(l[..20].iter().all(|&x| x == 0), "{l:?}");
    assert_eq!(l[20], 20);
    // A social graph with each friendship stored once (u > v): one component.
    let s = generated("kron:11");
    let once: Vec<[u32; 2]> = (0..s.num_vertices() as u32)
        .flat_map(|u| {
            s.csr()
                .neighbors(u)
                .iter()
                .filter(move |&&v| v < u)
                .map(move |&v| [u, v])
        })
        .collect();
    let d = graph(s.num_vertices(), once, false);
    check(&d, &o, "kron:11 stored once");
    assert_eq!(
        afforest(&d, &o).unwrap().labels,
        oracle::components(s.csr()),
        "stored once vs both ways"
    );
}

#[test]
fn isolated_vertices_and_empty_graph() {
    let o = AfforestOptions::default();
    check(&graph(0, vec![], true), &o, "empty");
    check(&graph(1, vec![], true), &o, "one vertex");
    check(&graph(1000, vec![], true), &o, "1000 isolated");
    check(&graph(1000, vec![], false), &o, "1000 isolated, directed");
    let g = graph(10, vec![[9, 9], [2, 7], [7, 2]], false);
    check(&g, &o, "self-loop and a pair");
    let r = afforest(&g, &o).unwrap();
    assert_eq!(r.labels, vec![0, 1, 2, 3, 4, 5, 6, 2, 8, 9]);
    assert_eq!(count_components(&r.labels), 9);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_edge_lists(
        n in 1usize..60,
        raw in prop::collection::vec((0u32..60, 0u32..60), 0..120),
        undirected in any::<bool>(),
        samples in 0u32..8,
        rounds in 0u32..4,
        seed in any::<u64>(),
    ) {
        let edges: Vec<[u32; 2]> = raw
            .into_iter()
            .map(|(u, v)| [u % n as u32, v % n as u32])
            .collect();
        let g = graph(n, edges, undirected);
        let want = oracle::components(g.csr());
        let o = AfforestOptions { neighbor_rounds: rounds, samples, seed, threads: None };
        prop_assert_eq!(&afforest(&g, &o).unwrap().labels, &want);
        prop_assert_eq!(&emulate(&g, &o).unwrap().labels, &want);
    }
}
