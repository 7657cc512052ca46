//! The Graph500 harness (`vertex_bench::graph500`) end to end on the CPU engine at
//! CI size: every tree validates, the statistics are consistent, and a corrupted
//! tree is reported as a validation failure rather than a panic or a silent pass.

use runtime::cpu::{sync, tree, CpuOptions};
use runtime::validate::UNREACHED;
use vertex_bench::graph500::{self, BfsRun, Graph500Config, Stats};
use vertex_examples::programs::bfs;

fn config(scale: u32, roots: usize) -> Graph500Config {
    Graph500Config {
        scale,
        edgefactor: 16,
        roots,
        seed: 3,
        hubs_first: scale % 2 == 0,
    }
}

fn cpu_bfs(g: &graph500::Graph500Graph, root: u32) -> runtime::Result<BfsRun> {
    let t = std::time::Instant::now();
    let res = sync::run::<bfs::Program>(&g.graph, root, &CpuOptions::default())?;
    let parents = tree::parents::<bfs::Program>(&g.graph, root, &res.states);
    Ok(BfsRun {
        parents,
        levels: Some(res.states),
        seconds: t.elapsed().as_secs_f64(),
        device_seconds: None,
    })
}

fn ordered(s: &Stats) -> bool {
    s.min <= s.firstquartile
        && s.firstquartile <= s.median
        && s.median <= s.thirdquartile
        && s.thirdquartile <= s.max
}

#[test]
fn cpu_graph500_validates_every_root() {
    let cfg = config(11, 64);
    let g = graph500::construct(&cfg).unwrap();
    let r = graph500::run(&cfg, &g, "cpu", |root| cpu_bfs(&g, root)).unwrap();
    assert!(r.valid, "failures: {:?}", r.failures);
    assert_eq!(r.roots.len(), 64);
    assert_eq!(r.input_edges, 16 << 11);
    assert_eq!(r.vertices, 1 << 11);
    // Distinct roots, all with degree > 0.
    let mut roots: Vec<u32> = r.roots.iter().map(|x| x.root).collect();
    roots.sort_unstable();
    roots.dedup();
    assert_eq!(roots.len(), 64);
    assert!(roots.iter().all(|&v| g.graph.csr().degree(v) > 0));
    for x in &r.roots {
        assert!(x.nedge > 0 && x.nedge <= r.input_edges, "{x:?}");
        assert!(x.teps > 0.0 && x.seconds > 0.0);
    }
    for s in [&r.bfs_time, &r.nedge, &r.teps] {
        assert!(ordered(s), "{s:?}");
    }
    let hm = r.teps.harmonic_mean.unwrap();
    assert!(r.teps.min <= hm && hm <= r.teps.max);
    // Most input edges lie in the giant component of a Kronecker graph.
    assert!(r.nedge.median > 0.5 * r.input_edges as f64);
    let block = r.output_block();
    for key in [
        "SCALE: 11",
        "edgefactor: 16",
        "NBFS: 64",
        "construction_time:",
        "median_time:",
        "max_nedge:",
        "harmonic_mean_TEPS:",
        "harmonic_stddev_TEPS:",
    ] {
        assert!(block.contains(key), "missing {key} in\n{block}");
    }
    // Same seed, same roots.
    let again = graph500::pick_roots(&g.graph, 64, cfg.seed);
    assert_eq!(again, r.roots.iter().map(|x| x.root).collect::<Vec<_>>());
}

#[test]
fn corrupted_trees_are_reported_not_panicked() {
    let cfg = config(10, 4);
    let g = graph500::construct(&cfg).unwrap();
    let mut calls = 0;
    let r = graph500::run(&cfg, &g, "corrupt", |root| {
        calls += 1;
        let mut run = cpu_bfs(&g, root)?;
        match calls {
            // A reached vertex whose parent is not a neighbour one level up.
            1 => {
                let v = (0..run.parents.len())
                    .find(|&v| v as u32 != root && run.parents[v] != UNREACHED)
                    .unwrap();
                run.parents[v] = v as u32;
            }
            // Parent out of range.
            2 => {
                let v = run
                    .parents
                    .iter()
                    .position(|&p| p != UNREACHED && p != root);
                if let Some(v) = v {
                    run.parents[v] = u32::MAX - 1;
                }
            }
            // Wrong length.
            3 => {
                run.parents.pop();
            }
            _ => {}
        }
        Ok(run)
    })
    .unwrap();
    assert!(!r.valid);
    assert_eq!(r.failures.len(), 3, "{:?}", r.failures);
    assert!(r.roots[3].validation_error.is_none());
    assert!(r.roots[..3].iter().all(|x| x.validation_error.is_some()));
}

#[test]
fn backend_errors_end_the_run() {
    let cfg = config(10, 4);
    let g = graph500::construct(&cfg).unwrap();
    let err = graph500::run(&cfg, &g, "failing", |_| {
        Err(runtime::Error::InvalidArgument("backend failed".into()))
    });
    assert!(err.is_err());
}

/// The GPU backends' kernels, emulated on the host: the hand-written balanced
/// kernel's device parents and the DSL program's levels + host parents must both
/// pass Graph500 validation through the same harness the `gpu` backends use.
#[test]
fn emulated_gpu_backends_validate() {
    use runtime::gpu::program::emulate;
    use runtime::gpu::{emulate as gpu_emulate, GpuBfsOptions, ProgramOptions};
    let cfg = config(10, 8);
    let g = graph500::construct(&cfg).unwrap();
    let opts = GpuBfsOptions {
        parents: true,
        ..GpuBfsOptions::default()
    };
    let r = graph500::run(&cfg, &g, "gpu-emulated", |root| {
        let r = gpu_emulate::bfs(g.graph.csr(), root, &opts, 64)?;
        Ok(BfsRun {
            parents: r.parents.expect("parents were requested"),
            levels: Some(r.levels),
            seconds: r.wall_ms / 1e3,
            device_seconds: Some(r.time_ms / 1e3),
        })
    })
    .unwrap();
    assert!(r.valid, "hand-written kernel: {:?}", r.failures);
    let popts = ProgramOptions::default();
    let r = graph500::run(&cfg, &g, "gpu-dsl-emulated", |root| {
        let run = emulate::<bfs::Program>(g.graph.csr(), root, &popts, 64)?;
        let parents = tree::parents::<bfs::Program>(&g.graph, root, &run.states);
        Ok(BfsRun {
            parents,
            levels: Some(run.states),
            seconds: run.wall_ms / 1e3,
            device_seconds: None,
        })
    })
    .unwrap();
    assert!(r.valid, "DSL program: {:?}", r.failures);
}

/// The GPU tree validator (its kernel body, emulated) in the harness: valid trees
/// pass, each corruption is one recorded failure, as with the host validator.
#[test]
fn gpu_tree_validator_in_the_harness() {
    use runtime::gpu::tree_check::check_bfs_tree_emulated;
    let cfg = config(10, 4);
    let g = graph500::construct(&cfg).unwrap();
    let mut calls = 0;
    let r = graph500::run_validated(
        &cfg,
        &g,
        "cpu",
        |root| {
            calls += 1;
            let mut run = cpu_bfs(&g, root)?;
            let v = (0..run.parents.len())
                .find(|&v| v as u32 != root && run.parents[v] != UNREACHED)
                .unwrap();
            match calls {
                1 => run.parents[v] = v as u32,
                2 => run.parents[v] = u32::MAX - 1,
                3 => {
                    run.parents.pop();
                }
                _ => {}
            }
            Ok(run)
        },
        "gpu-emulated",
        |root, run| {
            check_bfs_tree_emulated(
                g.graph.csr(),
                root,
                run.levels.as_deref().unwrap(),
                &run.parents,
            )
        },
    )
    .unwrap();
    assert_eq!(r.validator, "gpu-emulated");
    assert_eq!(r.failures.len(), 3, "{:?}", r.failures);
    assert!(r.roots[3].validation_error.is_none());
}
