//! Multi-GPU traversal (1-D partition, per-level exchange), emulated: any number
//! of simulated GPUs gives the oracle's answer, for BFS (with bottom-up levels and
//! parents), CC, SSSP (plain and near-far buckets) and widest path, on symmetric
//! and directed graphs; with host-driven levels (one counter read per level) and
//! device-planned ones (counters summed over the parts, one read per batch),
//! which must pick the same directions as one GPU.

use proptest::prelude::*;
use runtime::generate::{weights_for_edges, GenSpec};
use runtime::gpu::multi::emulate::emulate_multi;
use runtime::gpu::multi::Partition;
use runtime::gpu::program::emulate_direction;
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;

fn with_weights(mut el: EdgeList<u32>, opts: BuildOptions) -> (Graph<u32>, Graph<u32>) {
    let g = build(
        &EdgeList::<u32> {
            num_vertices: el.num_vertices,
            edges: el.edges.clone(),
            weights: None,
        },
        opts,
    )
    .unwrap();
    el.weights = Some(weights_for_edges::<u32>(
        &el.edges,
        1,
        255,
        7,
        opts.symmetrize,
    ));
    (g, build(&el, opts).unwrap())
}

fn generated(spec: &str, opts: BuildOptions) -> (Graph<u32>, Graph<u32>) {
    let el = GenSpec::parse(spec).unwrap().unwrap().generate().unwrap();
    with_weights(el, opts)
}

fn check(g: &Graph<u32>, gw: &Graph<u32>, src: u32, gpus: &[usize]) {
    let levels = oracle::bfs_levels(g.csr(), src);
    let comps = oracle::components(g.csr());
    let dist = oracle::dijkstra(gw.csr(), src);
    let wide = oracle::widest(gw.csr(), src);
    for &k in gpus {
        for (mec, blocks, lps) in [(1, 3, 1), (32, 16, 3)] {
            let o = ProgramOptions {
                kernel: BfsKernel::Direction,
                max_edge_count: Some(mec),
                block_size: 32,
                levels_per_sync: lps,
                ..ProgramOptions::default()
            };
            let p = ProgramOptions { parents: true, ..o };
            let r = emulate_multi::<bfs::Program>(g, k, src, &p, blocks).unwrap();
            assert_eq!(r.states, levels, "BFS on {k} GPUs, mec {mec}, lps {lps}");
            runtime::validate::validate_bfs_tree(
                g.csr(),
                src,
                r.parents.as_ref().unwrap(),
                Some(&r.states),
            )
            .unwrap_or_else(|e| panic!("BFS parents on {k} GPUs: {e}"));
            // CC labels follow out-edges: the oracle's components only on
            // symmetric graphs.
            if g.is_symmetric() {
                let r = emulate_multi::<cc::Program>(g, k, src, &o, blocks).unwrap();
                assert_eq!(r.states, comps, "CC on {k} GPUs");
            }
            let r = emulate_multi::<sssp::sssp::Program>(gw, k, src, &o, blocks).unwrap();
            assert_eq!(r.states, dist, "SSSP on {k} GPUs");
            for delta in [1, 200] {
                let b = ProgramOptions {
                    delta: Some(delta),
                    ..o
                };
                let r = emulate_multi::<sssp::sssp::Program>(gw, k, src, &b, blocks).unwrap();
                assert_eq!(
                    r.states, dist,
                    "SSSP near-far Δ {delta} on {k} GPUs, lps {lps}"
                );
            }
            let r = emulate_multi::<widest::Program>(gw, k, src, &o, blocks).unwrap();
            assert_eq!(r.states, wide, "widest on {k} GPUs");
        }
    }
}

fn first_with_edges(g: &Graph<u32>) -> u32 {
    (0..g.num_vertices() as u32)
        .find(|&v| g.csr().degree(v) > 0)
        .unwrap_or(0)
}

#[test]
fn generated_graphs_on_1_to_4_gpus() {
    for (spec, opts) in [
        ("kron:10", BuildOptions::undirected()),
        ("kron:9:8", BuildOptions::default()),
        ("grid:20x13", BuildOptions::undirected()),
        ("uniform:300:900", BuildOptions::default()),
    ] {
        let (g, gw) = generated(spec, opts);
        check(&g, &gw, first_with_edges(&g), &[1, 2, 3, 4]);
    }
}

#[test]
fn bottom_up_happens_on_two_gpus() {
    let (g, _) = generated("kron:11", BuildOptions::undirected());
    let src = first_with_edges(&g);
    let o = ProgramOptions {
        kernel: BfsKernel::Direction,
        block_size: 64,
        ..ProgramOptions::default()
    };
    let r = emulate_multi::<bfs::Program>(&g, 2, src, &o, 8).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), src));
    assert!(
        r.directions.iter().any(|d| d.bottom_up),
        "{:?}",
        r.directions
    );
}

/// Planned and host-driven levels, on 1 to 3 simulated GPUs, take the same
/// directions as one GPU (the parts' counters are summed before the planner
/// reads them), and the planned loop waits once per batch.
#[test]
fn planned_levels_match_one_gpu() {
    for (spec, opts) in [
        ("kron:11", BuildOptions::undirected()),
        ("kron:10:8", BuildOptions::default()),
    ] {
        let (g, _) = generated(spec, opts);
        let src = first_with_edges(&g);
        let o = |lps| ProgramOptions {
            kernel: BfsKernel::Direction,
            block_size: 64,
            levels_per_sync: lps,
            parents: true,
            ..ProgramOptions::default()
        };
        let one = emulate_direction::<bfs::Program>(&g, src, &o(1), 8).unwrap();
        assert!(one.directions.iter().any(|d| d.bottom_up), "{spec}");
        for gpus in [1, 2, 3] {
            for lps in [1, 4] {
                let r = emulate_multi::<bfs::Program>(&g, gpus, src, &o(lps), 8).unwrap();
                assert_eq!(r.states, one.states, "{spec} on {gpus} GPUs, lps {lps}");
                assert_eq!(
                    r.directions, one.directions,
                    "{spec} on {gpus} GPUs, lps {lps}"
                );
                let batches = (r.directions.len() as u32).div_ceil(lps) + 1;
                assert!(r.syncs <= batches, "{} syncs for lps {lps}", r.syncs);
            }
        }
    }
}

/// Hubs first (as many files number their vertices): equal vertex ranges hold
/// very unequal edge counts, so the parts are cut by in-edges and exchanged by
/// unequal slices; the answers stay the oracle's.
#[test]
fn hubs_first_graphs_get_edge_balanced_parts() {
    let n = 1000u32;
    let mut edges = Vec::new();
    for h in 0..40 {
        for v in (40..n).step_by(1 + h as usize % 3) {
            edges.push([h, v]);
        }
    }
    for v in 40..n - 1 {
        edges.push([v, v + 1]);
    }
    for (opts, directed) in [
        (BuildOptions::undirected(), false),
        (BuildOptions::default(), true),
    ] {
        let el = EdgeList::<u32> {
            num_vertices: n as usize,
            edges: edges.clone(),
            weights: None,
        };
        let (g, gw) = with_weights(el, opts);
        for gpus in [2, 3] {
            let part = Partition::for_graph(&g, gpus).unwrap();
            if !directed {
                assert_eq!(part.span, None, "{part:?}");
            }
            assert!(part.bounds[1..gpus].iter().all(|b| b % 32 == 0));
        }
        check(&g, &gw, 0, &[2, 3]);
        check(&g, &gw, 500, &[2]);
    }
}

#[test]
fn more_gpus_than_vertex_words_and_bad_arguments() {
    let (g, gw) = generated("uniform:40:60", BuildOptions::undirected());
    check(&g, &gw, first_with_edges(&g), &[5]);
    let o = ProgramOptions {
        kernel: BfsKernel::Direction,
        ..ProgramOptions::default()
    };
    assert!(emulate_multi::<bfs::Program>(&g, 0, 0, &o, 4).is_err());
    assert!(emulate_multi::<bfs::Program>(&g, 2, 40, &o, 4).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_small_graphs(
        n in 1usize..120,
        raw in proptest::collection::vec((0u32..120, 0u32..120), 0..300),
        directed in any::<bool>(),
        gpus in 1usize..5,
        src in 0u32..120,
    ) {
        let el = EdgeList::<u32> {
            num_vertices: n,
            edges: raw.into_iter().map(|(a, b)| [a % n as u32, b % n as u32]).collect(),
            weights: None,
        };
        let opts = if directed { BuildOptions::default() } else { BuildOptions::undirected() };
        let (g, gw) = with_weights(el, opts);
        check(&g, &gw, src % n as u32, &[gpus]);
    }
}
