//! Betweenness centrality (two composed gather/apply programs) on the CPU engine
//! and through the GPU kernels' host emulation, against the sequential Brandes
//! oracle, on generated graphs, directed edge lists and edge cases.

use runtime::gather::GatherOptions;
use runtime::gpu::gather::{self as gpu, GatherGpuOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::bc;

use vertex_tests::close_scores as close;
use vertex_tests::unweighted as generated;

use vertex_tests::directed;

/// The GPU path through the emulator: forward, then backward from its states.
fn emulated(g: &Graph<u32>, t: Option<&Graph<u32>>, sources: &[u32], mec: u64) -> Vec<f64> {
    let gopts = GatherGpuOptions {
        max_edge_count: mec,
        ..Default::default()
    };
    bc::scores(g.num_vertices(), sources, |s| {
        let opts = GatherOptions {
            source: Some(s),
            ..Default::default()
        };
        let fwd = gpu::emulate::<bc::bc_paths::Program, _>(g, &opts, &gopts, 8)?;
        let deps = bc::deps_from_paths(&fwd.states);
        let back = t.unwrap_or(g);
        Ok(gpu::emulate_from::<bc::bc_deps::Program, _>(
            back,
            &GatherOptions::default(),
            &gopts,
            8,
            &deps,
        )?
        .states)
    })
    .unwrap()
}

fn check(g: &Graph<u32>, sources: &[u32]) {
    let expect = vertex_tests::betweenness(g.csr(), sources);
    let t = (!g.is_symmetric()).then(|| g.transposed());
    for threads in [Some(1), Some(3)] {
        let ours = bc::cpu(g, t.as_ref(), sources, threads).unwrap();
        close(&ours, &expect, &format!("cpu {threads:?}"));
    }
    for mec in [1, 16] {
        close(
            &emulated(g, t.as_ref(), sources, mec),
            &expect,
            &format!("gpu mec {mec}"),
        );
    }
}

#[test]
fn brandes_matches_the_oracle_on_generated_graphs() {
    for spec in ["kron:10", "grid:12x9", "uniform:800:4000"] {
        let g = generated(spec);
        let sources = runtime::generate::pick_roots(g.csr(), 4, 7);
        check(&g, &sources);
    }
}

/// The backward sweep pushing and pulling every level gives the same scores.
#[test]
fn brandes_sweep_in_both_directions() {
    use runtime::gather::Direction;
    for spec in ["kron:9", "grid:9x7"] {
        let g = generated(spec);
        let sources = runtime::generate::pick_roots(g.csr(), 3, 5);
        let expect = vertex_tests::betweenness(g.csr(), &sources);
        for direction in [Direction::Push, Direction::Pull] {
            let ours = bc::scores(g.num_vertices(), &sources, |s| {
                let opts = GatherOptions {
                    source: Some(s),
                    threads: Some(2),
                    ..Default::default()
                };
                let fwd = runtime::cpu::gather::run::<bc::bc_paths::Program, _>(&g, &opts)?;
                let opts = GatherOptions {
                    source: None,
                    direction: Some(direction),
                    ..opts
                };
                let deps = bc::deps_from_paths(&fwd.states);
                let back =
                    runtime::cpu::gather::run_from::<bc::bc_deps::Program, _>(&g, &opts, deps)?;
                let depth = fwd
                    .states
                    .iter()
                    .map(|p| p.depth)
                    .filter(|&d| d != u32::MAX)
                    .max();
                assert_eq!(
                    back.report.rounds,
                    depth.map_or(0, |d| d + 1),
                    "one round per level"
                );
                Ok(back.states)
            })
            .unwrap();
            close(&ours, &expect, &format!("{spec} {direction:?}"));
        }
    }
}

#[test]
fn brandes_on_directed_graphs_and_edge_cases() {
    // Directed: 0→1→3, 0→2→3, 3→4, 4→0 (a cycle back), 5 isolated, 6→3 unreachable from 0.
    let g = directed(7, &[[0, 1], [0, 2], [1, 3], [2, 3], [3, 4], [4, 0], [6, 3]]);
    check(&g, &[0]);
    check(&g, &[0, 6, 4]);
    // Source without out-edges, and a repeated source.
    check(&g, &[5, 5]);
    // Hand-checked, gapbs's definition (a source's own dependency counts): on the
    // path 0-1-2 from every vertex, δ = (2, 1, 0) from 0, (0, 2, 0) from 1 and
    // (0, 1, 2) from 2: totals 2, 4, 2, normalized 0.5, 1, 0.5.
    let el = EdgeList::<u32> {
        num_vertices: 3,
        edges: vec![[0, 1], [1, 2]],
        weights: None,
    };
    let path = build(&el, BuildOptions::undirected()).unwrap();
    let s = bc::cpu(&path, None, &[0, 1, 2], Some(1)).unwrap();
    assert_eq!(s, vec![0.5, 1.0, 0.5]);
}
