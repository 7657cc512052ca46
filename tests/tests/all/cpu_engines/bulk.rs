//! Bulk Δ-stepping (`obim::run_bulk`, the gapbs-style lock-step path): every
//! program with a priority, random graphs, a panicking program, even passes.

use super::*;

/// Bulk delta-stepping (`obim::run_bulk`, the gapbs-style lock-step path) on every
/// program with a priority, 1–16 workers, several Δ (Δ = 1 on kron has hundreds of
/// passes; 2^20 puts everything in one bucket).
#[test]
fn bulk_delta_stepping_every_program() {
    let topo = Topology::uniform(1, 2).unwrap();
    for (spec, src) in [
        ("kron:9:8", 1u32),
        ("grid:20x15", 17),
        ("uniform:300:1200", 3),
    ] {
        let g = generated(spec, false);
        let src = (src..).find(|&v| g.csr().degree(v) > 0).unwrap();
        let gw = generated(spec, true);
        let gf = to_f64(&gw, 1.0 / 7.0);
        let levels = oracle::bfs_levels(g.csr(), src);
        let dist = oracle::dijkstra(gw.csr(), src);
        let distf = oracle::dijkstra_f64(gf.csr(), src);
        let comps = oracle::components(g.csr());
        for &t in &THREADS {
            for delta in [None, Some(1), Some(5), Some(1 << 20)] {
                let o = CpuOptions {
                    threads: Some(t),
                    direction: Direction::Auto,
                };
                let a = AsyncOptions {
                    delta,
                    ..aopts(&topo, 64)
                };
                let what = format!("{spec} threads {t} delta {delta:?}");
                let r = cpu::obim::run_bulk::<sssp::sssp::Program>(&gw, src, &o, &a).unwrap();
                assert_eq!(r.states, dist, "sssp {what}");
                assert_eq!(r.report.threads, t);
                assert!(r.report.rounds >= 1 && r.report.bucket_switches >= 1);
                let r = cpu::obim::run_bulk::<sssp::sssp_f64::Program>(&gf, src, &o, &a).unwrap();
                assert!(states_agree(&distf, &r.states), "sssp_f64 {what}");
                let r = cpu::obim::run_bulk::<bfs_prio::Program>(&g, src, &o, &a).unwrap();
                assert_eq!(r.states, levels, "bfs {what}");
                let r = cpu::obim::run_bulk::<cc_prio::Program>(&g, 0, &o, &a).unwrap();
                assert_eq!(r.states, comps, "cc {what}");
            }
        }
    }
}

/// Random graphs, oversubscribed (8 or 16 workers on this machine's cores), small
/// Δ: many passes, so the barrier, the gather and the far lists are exercised.
#[test]
fn bulk_delta_stepping_random_graphs() {
    let topo = Topology::parse("2x2").unwrap();
    for seed in 0..200u64 {
        let mut k = 0u64;
        let mut rnd = |below: u64| {
            k += 1;
            rng::below(rng::hash3(seed, 77, k), below)
        };
        let n = 1 + rnd(199) as usize;
        let m = rnd(n as u64 * 6) as usize;
        let edges: Vec<[u32; 2]> = (0..m)
            .map(|_| [rnd(n as u64) as u32, rnd(n as u64) as u32])
            .collect();
        // Wide weights with Δ 1: far more buckets than the ring holds.
        let weights: Vec<u32> = (0..m).map(|_| rnd(5000) as u32).collect();
        let src = rnd(n as u64) as u32;
        let el = EdgeList {
            num_vertices: n,
            edges,
            weights: Some(weights),
        };
        let g = build(
            &el,
            BuildOptions {
                symmetrize: seed % 2 == 0,
                ..BuildOptions::default()
            },
        )
        .unwrap();
        let o = CpuOptions {
            threads: Some(if seed % 2 == 0 { 8 } else { 16 }),
            direction: Direction::Auto,
        };
        let a = AsyncOptions {
            delta: Some(1 + seed % 3),
            ..aopts(&topo, 64)
        };
        let r = cpu::obim::run_bulk::<sssp::sssp::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(
            r.states,
            oracle::dijkstra(g.csr(), src),
            "bulk sssp seed {seed}"
        );
    }
}

#[test]
fn bulk_delta_stepping_survives_a_panicking_program() {
    let g = generated("grid:20x15", false);
    let a = aopts(&Topology::uniform(1, 2).unwrap(), 64);
    for t in [1, 4] {
        let o = CpuOptions {
            threads: Some(t),
            direction: Direction::Auto,
        };
        let r = std::panic::catch_unwind(|| {
            cpu::obim::run_bulk::<bfs_panics::Program>(&g, 0, &o, &a).map(|r| r.states)
        });
        assert!(r.is_err(), "threads {t}: the panic must reach the caller");
    }
    let o = CpuOptions {
        threads: Some(2),
        direction: Direction::Auto,
    };
    let bad = cpu::obim::run_bulk::<sssp::sssp::Program>(&generated("grid:4x4", true), 99, &o, &a);
    assert!(matches!(bad, Err(Error::InvalidArgument(_))));
    let zero = AsyncOptions {
        delta: Some(0),
        ..a.clone()
    };
    let bad =
        cpu::obim::run_bulk::<sssp::sssp::Program>(&generated("grid:4x4", true), 0, &o, &zero);
    assert!(matches!(bad, Err(Error::InvalidArgument(_))));
}

/// Bulk Δ-stepping splits every pass evenly on graphs without hubs, whatever
/// its size (`cpu::delta`): passes of thousands of ids on a grid with a large
/// Δ, at thread counts that do not divide them evenly.
#[test]
fn bulk_passes_split_evenly_on_low_degree_graphs() {
    let gw = generated("grid:150x120", true);
    assert!(gw.max_out_degree() <= 16);
    for src in [0u32, 9_031, 17_999] {
        let expect = oracle::dijkstra(gw.csr(), src);
        for delta in [Some(50), Some(4096), Some(1 << 20)] {
            for threads in [2, 3, 5] {
                let a = AsyncOptions {
                    delta,
                    ..AsyncOptions::default()
                };
                let o = CpuOptions {
                    threads: Some(threads),
                    direction: Direction::Auto,
                };
                let out = cpu::delta::run::<sssp::sssp::Program>(&gw, src, &o, &a).unwrap();
                assert_eq!(
                    out.states, expect,
                    "from {src}, Δ {delta:?}, {threads} threads"
                );
            }
        }
    }
}
