//! APSP engines against the oracles: the naive triple loop and Dijkstra from
//! every source, on random graphs with negative edges (no negative cycle),
//! generated graphs and the gapbs test graphs; negative cycles and bad input
//! give clear errors.

use proptest::prelude::*;
use runtime::apsp::johnson::Johnson;
use runtime::apsp::output::read_matrix;
use runtime::apsp::{
    self, fw_cpu, path_from_next, Algorithm, ApspOptions, Backend, DistMatrix, MinPlus,
    ProgramSemiring, Semiring,
};
use runtime::generate::GenSpec;
use runtime::gpu::apsp::{emulate_fw, FwKernel};
use runtime::graph::{build, BuildOptions, Csr, EdgeList};
use runtime::Error;
use vertex_examples::programs::apsp as programs;
use vertex_tests as oracle;

/// A directed graph whose weights `w' + h(u) − h(v)` (w' ≥ 0) include negative
/// ones but every cycle keeps its non-negative w' weight.
fn potential_graph(n: usize, edges: &[(u32, u32, i32)], h: &[i32]) -> Csr<i32> {
    let el = EdgeList::<i32> {
        num_vertices: n,
        edges: edges.iter().map(|&(u, v, _)| [u, v]).collect(),
        weights: Some(
            edges
                .iter()
                .map(|&(u, v, w)| w + h[u as usize] - h[v as usize])
                .collect(),
        ),
    };
    build(&el, BuildOptions::default()).unwrap().into_csr()
}

/// The oracle: adjacency matrix and the textbook triple loop.
fn triple_loop(g: &Csr<i32>) -> DistMatrix<i32> {
    let mut m = DistMatrix::adjacency::<MinPlus<i32>, i32>(g, 1, Some).unwrap();
    fw_cpu::naive::<MinPlus<i32>>(&mut m, None);
    m
}

fn first_diff(a: &[i32], b: &[i32], n: usize) -> Option<(usize, usize, i32, i32)> {
    (0..a.len())
        .find(|&p| a[p] != b[p])
        .map(|p| (p / n, p % n, a[p], b[p]))
}

/// Every engine on `g` equals the triple loop; FW next hops give paths of the
/// right length.
fn check_all_engines(g: &Csr<i32>) {
    let n = g.num_vertices();
    let want = triple_loop(g);
    let cpu = |algorithm, tile| {
        let opts = ApspOptions {
            algorithm,
            tile,
            next_hop: algorithm == Algorithm::Fw,
            ..ApspOptions::default()
        };
        apsp::solve::<i32, i32>(g, &opts, None, true).unwrap()
    };
    for tile in fw_cpu::TILES {
        let r = cpu(Algorithm::Fw, *tile);
        let m = r.matrix.unwrap();
        assert_eq!(
            first_diff(m.as_slice(), want.as_slice(), n),
            None,
            "FW tile {tile}"
        );
        let next = r.next.unwrap();
        for i in 0..n.min(6) {
            for j in 0..n {
                let d = want.get(i, j);
                match path_from_next(&next, n, i as u32, j as u32) {
                    None => assert_eq!(d, i32::MAX, "no path {i} → {j}"),
                    Some(p) => {
                        let len: i32 = p
                            .windows(2)
                            .map(|e| {
                                let (u, v) = (e[0], e[1]);
                                g.edge_range(u)
                                    .filter(|&x| g.targets()[x] == v)
                                    .map(|x| g.weight(x))
                                    .min()
                                    .unwrap()
                            })
                            .sum();
                        assert_eq!(len, d, "path {p:?}");
                    }
                }
            }
        }
    }
    // Johnson, streamed in small blocks.
    let j = Johnson::<i32>::prepare(g, 1).unwrap();
    let mut rows = Vec::new();
    j.for_each_block(3, |_, b| {
        rows.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    assert_eq!(first_diff(&rows, want.as_slice(), n), None, "Johnson");
    // The GPU kernels, emulated (exact encoding; the fast one needs w ≥ 0).
    for kernel in [FwKernel::Naive, FwKernel::Blocked] {
        let mut d = DistMatrix::adjacency::<MinPlus<i32>, i32>(g, 1, Some)
            .unwrap()
            .into_vec();
        emulate_fw(&mut d, n, kernel, None).unwrap();
        assert_eq!(first_diff(&d, want.as_slice(), n), None, "GPU {kernel:?}");
    }
    // The shipped semiring program.
    let (m, _) =
        apsp::closure::<ProgramSemiring<programs::apsp::Program>, i32>(g, 1, Some, 64, false)
            .unwrap();
    assert_eq!(
        first_diff(m.as_slice(), want.as_slice(), n),
        None,
        "program"
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    })]
    #[test]
    fn random_graphs_with_negative_edges(
        n in 1usize..90,
        raw in proptest::collection::vec((0u32..90, 0u32..90, 0i32..50), 0..400),
        h in proptest::collection::vec(0i32..40, 90),
    ) {
        let edges: Vec<(u32, u32, i32)> = raw
            .into_iter()
            .map(|(u, v, w)| (u % n as u32, v % n as u32, w))
            .collect();
        check_all_engines(&potential_graph(n, &edges, &h));
    }
}

#[test]
fn larger_graph_crosses_many_tiles() {
    let mut edges = Vec::new();
    let mut x = 12345u64;
    let n = 300;
    for _ in 0..3000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v, w) = ((x >> 20) % n, (x >> 40) % n, ((x >> 8) % 100) as i32);
        edges.push((u as u32, v as u32, w));
    }
    let h: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 61).collect();
    check_all_engines(&potential_graph(n as usize, &edges, &h));
}

/// Non-negative weights: every row equals Dijkstra from that source.
#[test]
fn dijkstra_from_every_source() {
    for spec in ["kron:8:8", "grid:15x12", "uniform:200:900"] {
        let gen = GenSpec::parse(spec).unwrap().unwrap();
        let mut el = gen.generate().unwrap();
        el.weights = Some(runtime::generate::weights_for_edges::<u32>(
            &el.edges, 1, 255, 3, false,
        ));
        let g = build(&el, BuildOptions::default()).unwrap().into_csr();
        let n = g.num_vertices();
        for algorithm in [Algorithm::Fw, Algorithm::Johnson] {
            let opts = ApspOptions {
                algorithm,
                ..ApspOptions::default()
            };
            let r = apsp::solve::<i64, u32>(&g, &opts, None, true);
            let rows: Vec<i64> = match algorithm {
                Algorithm::Fw => r.unwrap().matrix.unwrap().into_vec(),
                _ => {
                    let j = Johnson::<i64>::prepare(&g, 1).unwrap();
                    let mut rows = Vec::new();
                    j.for_each_block(64, |_, b| {
                        rows.extend_from_slice(b);
                        Ok(())
                    })
                    .unwrap();
                    rows
                }
            };
            for s in 0..n {
                let want = oracle::dijkstra(&g, s as u32);
                for v in 0..n {
                    let got = rows[s * n + v];
                    let w = if want[v] == u64::MAX {
                        i64::MAX
                    } else {
                        want[v] as i64
                    };
                    assert_eq!(got, w, "{spec} {algorithm:?} {s} → {v}");
                }
            }
        }
    }
}

#[test]
fn gapbs_test_graph() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/peers/gapbs/test/graphs/4.wel"
    );
    if !std::path::Path::new(path).exists() {
        return;
    }
    let loaded = runtime::load::load_graph::<u32>(path, &Default::default()).unwrap();
    let g = loaded.graph.csr();
    let r = apsp::solve::<i32, u32>(g, &ApspOptions::default(), None, true).unwrap();
    let m = r.matrix.unwrap();
    for s in 0..g.num_vertices() {
        let want = oracle::dijkstra(g, s as u32);
        for (v, &w) in want.iter().enumerate() {
            let w = if w == u64::MAX { i32::MAX } else { w as i32 };
            assert_eq!(m.get(s, v), w);
        }
    }
}

fn cycle_graph() -> Csr<i32> {
    // 0 → 1 → 2 → 3 → 1 with total -1 on the loop 1 → 2 → 3 → 1; 4 hangs off it.
    let el = EdgeList::<i32> {
        num_vertices: 6,
        edges: vec![[0, 1], [1, 2], [2, 3], [3, 1], [3, 4], [5, 0]],
        weights: Some(vec![2, -4, 1, 2, 7, 1]),
    };
    build(&el, BuildOptions::default()).unwrap().into_csr()
}

#[test]
fn negative_cycles_are_reported_with_their_vertices() {
    let g = cycle_graph();
    for algorithm in [Algorithm::Fw, Algorithm::Johnson] {
        let opts = ApspOptions {
            algorithm,
            ..ApspOptions::default()
        };
        match apsp::solve::<i32, i32>(&g, &opts, None, false) {
            Err(Error::NegativeCycle(msg)) => {
                assert!(msg.contains("weight -1"), "{algorithm:?}: {msg}");
                for v in ["1", "2", "3"] {
                    assert!(msg.contains(v), "{msg}");
                }
                assert!(!msg.contains('0') || msg.contains("-1"), "{msg}");
            }
            other => panic!("{algorithm:?}: expected a negative cycle, got {other:?}"),
        }
    }
    // A negative self-loop is a cycle too; so is an undirected negative edge.
    let el = EdgeList::<f64> {
        num_vertices: 3,
        edges: vec![[0, 1], [2, 2]],
        weights: Some(vec![1.0, -0.5]),
    };
    let g = build(&el, BuildOptions::default()).unwrap().into_csr();
    assert!(matches!(
        apsp::solve::<f64, f64>(&g, &ApspOptions::default(), None, false),
        Err(Error::NegativeCycle(_))
    ));
    // The GPU kernels (emulated) leave a negative diagonal for the host to catch.
    let mut d = DistMatrix::adjacency::<MinPlus<i32>, i32>(&cycle_graph(), 1, Some)
        .unwrap()
        .into_vec();
    emulate_fw(&mut d, 6, FwKernel::Blocked, None).unwrap();
    assert!((0..6).any(|i| d[i * 6 + i] < 0));
    // The path command refuses too.
    assert!(matches!(
        apsp::path::<i32, i32>(&cycle_graph(), 0, 4, Algorithm::Fw),
        Err(Error::NegativeCycle(_))
    ));
}

#[test]
fn bad_input_is_a_clear_error() {
    let g = cycle_graph();
    // Vertex out of range.
    let e = apsp::path::<i32, i32>(&g, 0, 99, Algorithm::Auto).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    // Weights that could overflow i32 distances.
    let el = EdgeList::<i64> {
        num_vertices: 3,
        edges: vec![[0, 1], [1, 2]],
        weights: Some(vec![1 << 31, 5]),
    };
    let big = build(&el, BuildOptions::default()).unwrap().into_csr();
    let e = apsp::solve::<i32, i64>(&big, &ApspOptions::default(), None, false).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    let ok = apsp::solve::<i64, i64>(&big, &ApspOptions::default(), None, true).unwrap();
    assert_eq!(ok.matrix.unwrap().get(0, 2), (1 << 31) + 5);
    // NaN / infinite float weights.
    let el = EdgeList::<f64> {
        num_vertices: 2,
        edges: vec![[0, 1]],
        weights: Some(vec![f64::INFINITY]),
    };
    let inf = build(&el, BuildOptions::default()).unwrap().into_csr();
    assert!(apsp::solve::<f64, f64>(&inf, &ApspOptions::default(), None, false).is_err());
    // Unknown algorithm / backend names.
    assert!("floyd".parse::<Algorithm>().is_err());
    assert!("tpu".parse::<Backend>().is_err());
    // The GPU when this build or machine has none: an error, not a CPU answer.
    if !runtime::gpu::available() {
        let fw_on = |backend| ApspOptions {
            algorithm: Algorithm::Fw,
            backend,
            ..ApspOptions::default()
        };
        let opts = fw_on(Backend::Gpu);
        let e = apsp::solve::<i32, i32>(&potential_graph(3, &[], &[0; 3]), &opts, None, false)
            .unwrap_err();
        assert!(
            matches!(e, Error::GpuUnavailable(_) | Error::Io { .. }),
            "{e}"
        );
        // `--backend gpu` picks the GPU closure itself (any element type): the error
        // is the missing GPU, not a request for another algorithm.
        let opts = ApspOptions {
            backend: Backend::Gpu,
            ..ApspOptions::default()
        };
        let el = EdgeList::<f64> {
            num_vertices: 3,
            edges: vec![[0, 1], [1, 2]],
            weights: Some(vec![0.5, 1.25]),
        };
        let real = build(&el, BuildOptions::default()).unwrap().into_csr();
        let e = apsp::solve::<f64, f64>(&real, &opts, None, false).unwrap_err();
        assert!(
            matches!(e, Error::GpuUnavailable(_) | Error::Io { .. }),
            "{e}"
        );
        let g = potential_graph(600, &[], &[0; 600]);
        let e = apsp::path_on::<i32, i32>(&g, 0, 5, Algorithm::Auto, Backend::Gpu).unwrap_err();
        assert!(
            matches!(e, Error::GpuUnavailable(_) | Error::Io { .. }),
            "{e}"
        );
        let (found, placed) =
            apsp::path_on::<i32, i32>(&g, 0, 5, Algorithm::Auto, Backend::Auto).unwrap();
        assert_eq!(placed.backend, Backend::Cpu);
        assert!(
            placed.note.is_some() && found.is_none(),
            "no edges: no path"
        );
        // `auto` falls back to the CPU and says so.
        let opts = fw_on(Backend::Auto);
        let r = apsp::solve::<i32, i32>(&potential_graph(600, &[], &[0; 600]), &opts, None, false)
            .unwrap();
        assert_eq!(r.backend, Backend::Cpu);
        assert!(r.note.is_some());
    }
    // A damaged or foreign matrix file.
    let dir = tempfile_dir();
    let p = dir.join("junk.apsp");
    std::fs::write(
        &p,
        b"not a matrix at all, definitely not one....................................",
    )
    .unwrap();
    assert!(matches!(read_matrix::<i32>(&p), Err(Error::Format { .. })));
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("vertex-apsp-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A folder of a test's own: tests run at once, and each removes its folder.
fn own_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("vertex-apsp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn streamed_output_equals_in_memory_matrix() {
    let gen = GenSpec::parse("uniform:300:1200").unwrap().unwrap();
    let el = gen.generate().unwrap();
    let g = build(&el, BuildOptions::default()).unwrap().into_csr();
    let dir = tempfile_dir();
    let (pf, pj) = (dir.join("fw.apsp"), dir.join("johnson.apsp"));
    let mk = |algorithm| ApspOptions {
        algorithm,
        block_rows: 7,
        ..ApspOptions::default()
    };
    let a = apsp::solve::<i32, u32>(&g, &mk(Algorithm::Fw), Some(&pf), true).unwrap();
    let b = apsp::solve::<i32, u32>(&g, &mk(Algorithm::Johnson), Some(&pj), false).unwrap();
    let (_, ma, _) = read_matrix::<i32>(&pf).unwrap();
    let (_, mb, _) = read_matrix::<i32>(&pj).unwrap();
    assert_eq!(ma, a.matrix.unwrap());
    assert_eq!(ma, mb);
    assert_eq!(a.summary.checksum, b.summary.checksum);
    assert_eq!(a.summary.unreachable, b.summary.unreachable);
    assert_eq!(a.summary.diameter, b.summary.diameter);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closure_semirings_from_programs() {
    // Transitive closure equals BFS reachability; bottleneck equals widest paths.
    let gen = GenSpec::parse("kron:7:4").unwrap().unwrap();
    let mut el = gen.generate().unwrap();
    el.weights = Some(runtime::generate::weights_for_edges::<u32>(
        &el.edges, 1, 1000, 5, false,
    ));
    let g = build(&el, BuildOptions::default()).unwrap().into_csr();
    let n = g.num_vertices();
    let (reach, _) = apsp::closure::<ProgramSemiring<programs::closure::Program>, u32>(
        &g,
        1,
        |_| Some(1),
        32,
        false,
    )
    .unwrap();
    let (wide, _) = apsp::closure::<ProgramSemiring<programs::bottleneck::Program>, u32>(
        &g, 1, Some, 32, false,
    )
    .unwrap();
    for s in 0..n {
        let levels = oracle::bfs_levels(&g, s as u32);
        let widths = oracle::widest(&g, s as u32);
        for v in 0..n {
            assert_eq!(
                reach.get(s, v),
                u32::from(levels[v] != oracle::INF),
                "{s} → {v}"
            );
            assert_eq!(wide.get(s, v), widths[v], "{s} → {v}");
        }
    }
    assert_eq!(
        <ProgramSemiring<programs::closure::Program> as Semiring>::zero(),
        0
    );
}

/// Found by the proptest: a zero-weight cycle (1 ⇄ 38) that blocked FW's phase 3
/// could take as a tie, leaving next hops that circle (1 → 38 → 1 …) instead of
/// reaching 2 through 9 and 40. Ties now go to the path with fewer edges.
#[test]
fn zero_weight_cycle_keeps_next_hops_walkable() {
    let edges = [
        (1, 9, 0),
        (1, 38, 0),
        (38, 1, 0),
        (0, 0, 0),
        (40, 2, 0),
        (9, 10, 0),
        (9, 40, 0),
    ];
    check_all_engines(&potential_graph(49, &edges, &[0; 49]));
}

/// Batched BFS from every vertex (CPU, and the GPU's kernels emulated) against
/// FW's matrix: summaries on Kronecker, a grid and a directed graph with an
/// isolated vertex and unreachable pairs; the streamed rows (more than one
/// batch) equal FW's matrix; `auto` picks it for a sparse unweighted graph; a
/// weighted graph is refused.
#[test]
fn batched_bfs_all_pairs_equals_floyd_warshall() {
    use runtime::apsp::batched::{self, Engine};
    let unweighted = |spec: &str| {
        let gen = GenSpec::parse(spec).unwrap().unwrap();
        let mut el = gen.generate().unwrap();
        el.weights = None;
        build(&el, gen.default_build_options()).unwrap().into_csr()
    };
    let directed = vertex_tests::small_directed(false).into_csr();
    let dir = own_dir("batched");
    for (name, g) in [
        ("kron:7", unweighted("kron:7")),
        ("grid:11x9", unweighted("grid:11x9")),
        ("directed", directed),
    ] {
        let fw = ApspOptions {
            algorithm: Algorithm::Fw,
            ..ApspOptions::default()
        };
        let want = apsp::solve::<i32, u32>(&g, &fw, None, true).unwrap();
        let m = want.matrix.unwrap();
        for engine in [Engine::Cpu, Engine::Emulated] {
            let got = batched::solve::<i32, u32>(&g, engine, None).unwrap();
            let s = (
                &got.summary.checksum,
                got.summary.unreachable,
                &got.summary.diameter,
            );
            let w = (
                &want.summary.checksum,
                want.summary.unreachable,
                &want.summary.diameter,
            );
            assert_eq!(s, w, "{name} {engine:?}: summary");
            let path = dir.join(format!("{name}-{engine:?}.apsp"));
            let rows = batched::solve::<i32, u32>(&g, engine, Some(&path)).unwrap();
            let (_, read, _) = read_matrix::<i32>(&path).unwrap();
            assert_eq!(read, m, "{name} {engine:?}: rows");
            assert_eq!(rows.summary.checksum, want.summary.checksum);
        }
    }
    // `auto` on a sparse unweighted graph (n > 256) runs it; weights refuse it.
    let g = unweighted("grid:40x30");
    let auto = ApspOptions {
        backend: Backend::Cpu,
        ..ApspOptions::default()
    };
    let r = apsp::solve::<i32, u32>(&g, &auto, None, false).unwrap();
    assert_eq!(r.algorithm, Algorithm::Batched);
    assert!(r.note.unwrap().contains("batched"));
    let gen = GenSpec::parse("grid:5x5").unwrap().unwrap();
    let weighted = build(&gen.generate().unwrap(), BuildOptions::default())
        .unwrap()
        .into_csr();
    let asked = ApspOptions {
        algorithm: Algorithm::Batched,
        backend: Backend::Cpu,
        ..ApspOptions::default()
    };
    let e = apsp::solve::<i32, u32>(&weighted, &asked, None, false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unweighted"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Weighted batched all-pairs: the min-plus program from every vertex, 64 a
/// batch (CPU engine through `solve_with_program`, and the GPU's generic
/// kernels under the emulator), equals the triple loop on graphs with negative
/// edges (no negative cycle); a negative cycle is refused before any batch.
#[test]
fn batched_min_plus_program_equals_triple_loop() {
    use runtime::gpu::batched::emulate_batched;
    type P = programs::apsp::Program;
    let dir = own_dir("batched-weighted");
    let n = 90;
    let edges: Vec<(u32, u32, i32)> = (0..n as u32)
        .flat_map(|u| {
            [
                (u, (u * 7 + 3) % n as u32, 5 + (u as i32 % 11)),
                (u, (u + 1) % n as u32, 1 + (u as i32 % 3)),
            ]
        })
        .filter(|&(u, v, _)| u != v)
        .collect();
    let h: Vec<i32> = (0..n).map(|i| (i as i32 * 37) % 23).collect();
    let g = potential_graph(n, &edges, &h);
    assert!(
        g.weights().unwrap().iter().any(|&w| w < 0),
        "negative edges"
    );
    let want = triple_loop(&g);
    let opts = ApspOptions {
        algorithm: Algorithm::Batched,
        backend: Backend::Cpu,
        ..ApspOptions::default()
    };
    let path = dir.join("cpu.apsp");
    let r = apsp::solve_with_program::<P, i32, i32>(&g, &opts, Some(&path), false).unwrap();
    assert_eq!(r.algorithm, Algorithm::Batched);
    let (_, got, _) = read_matrix::<i32>(&path).unwrap();
    assert_eq!(got, want, "CPU batched rows");
    let graph = runtime::graph::Graph::new(g.clone(), false);
    let sources: Vec<u32> = (0..n as u32).collect();
    let mut rows = vec![i32::MAX; n * n];
    emulate_batched::<P>(&graph, &sources, |b| {
        for l in 0..b.lanes() {
            let s = b.sources[l] as usize;
            for v in 0..n {
                rows[s * n + v] = b.get(v, l);
            }
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(rows, want.as_slice(), "emulated GPU batched rows");
    let e =
        apsp::solve_with_program::<P, i32, i32>(&cycle_graph(), &opts, None, false).unwrap_err();
    assert!(matches!(e, Error::NegativeCycle(_)), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
