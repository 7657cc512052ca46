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
    oracle::close_within(a, b, rel, "states")
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

/// A directed edge list with id gaps, self-loops and repeated edges, as a
/// file (what ranks read by byte ranges) and as the simple graph one process
/// builds from it.
fn directed_file(dir: &std::path::Path) -> (std::path::PathBuf, Graph<u32>) {
    let mut edges = Vec::new();
    let mut text = String::from("# directed, ids with gaps\n");
    for i in 0..4000u32 {
        let (u, v) = ((i * 7919) % 6007 * 3, (i * 104_729 + 11) % 6007 * 3 + 1);
        edges.push([u, v]);
        text.push_str(&format!("{u}\t{v}\n"));
        if i % 41 == 0 {
            edges.push([u, u]);
            edges.push([u, v]);
            text.push_str(&format!("{u} {u}\n{u} {v}\n"));
        }
    }
    let path = dir.join("gaps.el");
    std::fs::write(&path, text).unwrap();
    let n = edges.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    let g = build(
        &EdgeList::<u32> {
            num_vertices: n,
            edges,
            weights: None,
        },
        BuildOptions {
            dedup: true,
            remove_self_loops: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    (path, g)
}

/// The rank path of gather programs (`MultiGpu::upload_gather_rank` +
/// `run_gather`) with each rank's GPU emulated and the exchanges over the
/// ranks' TCP link: 1-4 ranks (threads) give PageRank's power iteration on a
/// directed file with id gaps and on Kronecker, rounds included (the stopping
/// rule reads the reduction over all ranks), and k-core's peeling.
#[test]
fn gather_programs_over_emulated_gpu_ranks_match_the_oracles() {
    use runtime::dist::threads::run_on_threads;
    use runtime::dist::{edge_list_part, kronecker_part};
    use runtime::generate::Kronecker;
    use runtime::gpu::multi::emulate_gather_rank;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let (path, file_graph) = directed_file(dir.path());
    let kron = || Kronecker::graph500(10, 16, 3);
    let kron_graph = build(
        &kron().generate().unwrap(),
        BuildOptions {
            dedup: true,
            remove_self_loops: true,
            symmetrize: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    let kron_directed = build(
        &kron().generate().unwrap(),
        BuildOptions {
            dedup: true,
            remove_self_loops: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    let want_file = oracle::pagerank(file_graph.csr(), 0.85, 1e-4, 20);
    let want_kron = oracle::pagerank(kron_directed.csr(), 0.85, 1e-4, 20);
    let cores = oracle::core_numbers(kron_graph.csr());
    for world in 1..=4usize {
        let p = path.clone();
        let out = run_on_threads(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(60),
            move |c| {
                let gopts = GatherGpuOptions {
                    max_edge_count: 3,
                    block_size: 64,
                };
                let opts = GatherOptions::default();
                let file = edge_list_part(&p, &c, false)?;
                let pr_file =
                    emulate_gather_rank::<pagerank::Program>(&file, &c, &opts, &gopts, 4)?;
                let directed = kronecker_part(&kron(), &c, false)?;
                let pr_kron =
                    emulate_gather_rank::<pagerank::Program>(&directed, &c, &opts, &gopts, 4)?;
                let sym = kronecker_part(&kron(), &c, true)?;
                let core = emulate_gather_rank::<kcore::Program>(&sym, &c, &opts, &gopts, 4)?;
                Ok((pr_file, pr_kron, core))
            },
        )
        .unwrap();
        let (mut file, mut kr, mut core) = (Vec::new(), Vec::new(), Vec::new());
        for o in out {
            let (f, k, c) = o.unwrap();
            assert_eq!(f.report.rounds, want_file.1, "file, {world} ranks");
            assert_eq!(k.report.rounds, want_kron.1, "kron, {world} ranks");
            file.extend(f.states);
            kr.extend(k.states);
            core.extend(c.states.iter().map(|s| s.core));
        }
        close(&file, &want_file.0, 1e-9);
        close(&kr, &want_kron.0, 1e-9);
        assert_eq!(core, cores, "{world} ranks");
    }
}
