//! Gather/apply programs over several GPUs (`runtime::gpu::multi::gather`),
//! emulated: 1–5 parts give the one-GPU answer — PageRank against the power
//! iteration, k-core against peeling, pr-delta's and BC's path counts against
//! the one-GPU emulator — on symmetric, directed and skewed graphs (equal vertex
//! ranges and by-cost cuts), with chunk sizes that split adjacency lists and a
//! capped grid; and what is refused (push rounds, level sweeps).

use runtime::gather::{Direction, GatherOptions, StopReason};
use runtime::gpu::gather::{self as gpu, GatherGpuOptions};
use runtime::gpu::multi::{emulate_gather, Partition};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bc, kcore, pagerank, pagerank_delta};
use vertex_tests as oracle;
use vertex_tests::{directed, unweighted as generated};

fn close(a: &[f64], b: &[f64], rel: f64) {
    assert_eq!(a.len(), b.len());
    for (v, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= rel * y.abs().max(1e-300),
            "vertex {v}: {x} vs {y}"
        );
    }
}

/// A star (vertex 0 joined to every other) over a sparse ring: equal vertex
/// ranges put most in-edges in the first part, so the partition cuts by cost.
fn skewed(n: u32) -> Graph<u32> {
    let mut edges: Vec<[u32; 2]> = (1..n).map(|v| [0, v]).collect();
    edges.extend((1..n).map(|v| [v, v % (n - 1) + 1]));
    build(
        &EdgeList::<u32> {
            num_vertices: n as usize,
            edges,
            weights: None,
        },
        BuildOptions {
            symmetrize: true,
            ..BuildOptions::default()
        },
    )
    .unwrap()
}

fn graphs() -> Vec<(&'static str, Graph<u32>)> {
    vec![
        ("kron:11", generated("kron:11")),
        ("grid:20x15", generated("grid:20x15")),
        ("uniform", generated("uniform:2000:9000")),
        (
            "directed",
            directed(5, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2]]),
        ),
        ("skewed", skewed(3000)),
    ]
}

fn variants() -> [(GatherGpuOptions, u32); 3] {
    let o = |mec, block| GatherGpuOptions {
        max_edge_count: mec,
        block_size: block,
    };
    [(o(1, 32), 2), (o(3, 64), 1000), (o(16, 64), 3)]
}

#[test]
fn the_skewed_graph_is_cut_by_cost() {
    let g = skewed(3000);
    assert_eq!(Partition::for_graph(&g, 4).unwrap().span, None);
}

#[test]
fn pagerank_over_parts_matches_the_power_iteration() {
    for (name, g) in graphs() {
        let (ranks, rounds) = oracle::pagerank(g.csr(), 0.85, 1e-4, 20);
        for parts in 1..=5 {
            for (gopts, blocks) in variants() {
                let out = emulate_gather::<pagerank::Program, _>(
                    &g,
                    parts,
                    &GatherOptions::default(),
                    &gopts,
                    blocks,
                    None,
                )
                .unwrap();
                close(&out.states, &ranks, 1e-9);
                assert_eq!(out.report.rounds, rounds, "{name}, {parts} parts");
            }
        }
    }
}

#[test]
fn kcore_over_parts_matches_peeling() {
    for (name, g) in graphs().into_iter().filter(|(_, g)| g.is_symmetric()) {
        let cores = oracle::core_numbers(g.csr());
        for parts in [1, 2, 3, 4] {
            for direction in [None, Some(Direction::Pull), Some(Direction::Auto)] {
                let opts = GatherOptions {
                    direction,
                    ..Default::default()
                };
                let (gopts, blocks) = variants()[parts % 3];
                let out =
                    emulate_gather::<kcore::Program, _>(&g, parts, &opts, &gopts, blocks, None)
                        .unwrap();
                let got: Vec<u32> = out.states.iter().map(|s| s.core).collect();
                assert_eq!(got, cores, "{name}, {parts} parts, {direction:?}");
                assert_eq!(out.report.stop, StopReason::Quiescent);
                assert_eq!(out.report.push_rounds, 0);
            }
        }
    }
}

/// Frontier-driven programs whose answer has no oracle here: the same states
/// as one GPU's (emulated), pulling there too so the sums run in one order.
#[test]
fn frontier_programs_over_parts_match_one_gpu() {
    let pull = GatherOptions {
        direction: Some(Direction::Pull),
        ..Default::default()
    };
    for (name, g) in graphs() {
        let gopts = GatherGpuOptions::default();
        let one = gpu::emulate::<pagerank_delta::Program, _>(&g, &pull, &gopts, 8).unwrap();
        let source = GatherOptions {
            source: Some(1),
            ..pull.clone()
        };
        let paths = gpu::emulate::<bc::bc_paths::Program, _>(&g, &source, &gopts, 8).unwrap();
        for parts in [2, 3, 4] {
            let out = emulate_gather::<pagerank_delta::Program, _>(
                &g,
                parts,
                &GatherOptions::default(),
                &gopts,
                8,
                None,
            )
            .unwrap();
            let (a, b): (Vec<f64>, Vec<f64>) = out
                .states
                .iter()
                .zip(&one.states)
                .map(|(x, y)| (x.rank, y.rank))
                .unzip();
            close(&a, &b, 1e-12);
            assert_eq!(
                out.report.rounds, one.report.rounds,
                "{name}, {parts} parts"
            );
            let out =
                emulate_gather::<bc::bc_paths::Program, _>(&g, parts, &source, &gopts, 8, None)
                    .unwrap();
            assert_eq!(out.states, paths.states, "{name}, {parts} parts");
        }
    }
}

#[test]
fn push_rounds_and_level_sweeps_are_refused() {
    let g = generated("kron:8");
    let gopts = GatherGpuOptions::default();
    let push = GatherOptions {
        direction: Some(Direction::Push),
        ..Default::default()
    };
    let Err(e) = emulate_gather::<kcore::Program, _>(&g, 2, &push, &gopts, 8, None) else {
        panic!("push over parts ran");
    };
    assert!(e.to_string().contains("pull"), "{e}");
    let n = g.num_vertices();
    let initial = vec![
        bc::bc_deps::Deps {
            delta: 0.0,
            sigma: 1.0,
            depth: 0,
            _pad: 0,
        };
        n
    ];
    let Err(e) = emulate_gather::<bc::bc_deps::Program, _>(
        &g,
        2,
        &GatherOptions::default(),
        &gopts,
        8,
        Some(&initial),
    ) else {
        panic!("a level sweep over parts ran");
    };
    assert!(e.to_string().contains("level sweep"), "{e}");
}
