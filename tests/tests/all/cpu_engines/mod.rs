//! The asynchronous CPU engines (async work stealing, obim / delta-stepping) on every
//! shipped program, against the sequential oracles: 1–16 threads, one and several
//! packages (forced through the API, not the environment, so tests stay parallel),
//! several chunk sizes, and a stress loop over many random graphs.

use runtime::cpu::topology::Topology;
use runtime::cpu::{self, AsyncOptions, CpuOptions, Direction};
use runtime::generate::{rng, GenSpec};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::program::{Schedule, VertexProgram};
use runtime::Error;
use vertex_bench::compare::{compare, states_agree, CpuRunner, Runner};
use vertex_dsl::prelude::*;
use vertex_examples::programs::{bfs, cc, reliability, sssp, widest};
use vertex_tests as oracle;

mod bulk;
mod narrow_sssp;
mod sync_rounds;

/// BFS with a priority (its level), so obim has buckets on unweighted graphs too.
#[vertex_program(combine = min)]
mod bfs_prio {
    pub type State = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u32::MAX
        }
    }

    pub fn relax(level: State) -> Option<State> {
        level.checked_add(1)
    }

    pub fn priority(level: State) -> u32 {
        level
    }
}

/// Components with the label as priority: every vertex starts active, so bulk
/// delta-stepping seeds all of them (spread over the workers' far lists).
#[vertex_program(combine = min)]
mod cc_prio {
    pub type State = u32;

    pub fn init(v: u32) -> State {
        v
    }

    pub fn relax(label: State) -> Option<State> {
        Some(label)
    }

    pub fn priority(label: State) -> u32 {
        label
    }
}

/// BFS whose `relax` panics past level 3: a panicking worker must not leave the
/// others waiting at a barrier.
#[vertex_program(combine = min)]
mod bfs_panics {
    pub type State = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u32::MAX
        }
    }

    pub fn relax(level: State) -> Option<State> {
        assert!(level < 3, "deliberate panic in relax");
        level.checked_add(1)
    }

    pub fn priority(level: State) -> u32 {
        level
    }
}

/// Path counting: `sum` is not idempotent, so only sync may run it.
#[vertex_program(combine = sum)]
mod walks {
    pub type State = u64;

    pub fn init(v: u32, source: u32) -> State {
        (v == source) as u64
    }

    pub fn relax(x: State) -> Option<State> {
        Some(x)
    }
}

const THREADS: [usize; 6] = [1, 2, 3, 4, 8, 16];

fn topologies() -> Vec<Topology> {
    vec![
        Topology::uniform(1, 2).unwrap(),
        Topology::parse("2x2").unwrap(),
        Topology::uniform(4, 1).unwrap(),
    ]
}

fn generated(spec: &str, weights: bool) -> Graph<u32> {
    let g = GenSpec::parse(spec).unwrap().unwrap();
    let mut el = g.generate().unwrap();
    el.weights =
        weights.then(|| runtime::generate::weights_for_edges::<u32>(&el.edges, 1, 255, 7, true));
    build(&el, g.default_build_options()).unwrap()
}

fn to_f64(g: &Graph<u32>, scale: f64) -> Graph<f64> {
    let wf: Vec<f64> = g
        .csr()
        .weights()
        .unwrap()
        .iter()
        .map(|&w| w as f64 * scale)
        .collect();
    Graph::new(g.csr().with_weights(wf).unwrap(), g.is_symmetric())
}

/// Sequential label-correcting fixpoint of any program (FIFO worklist): the
/// textbook definition of what every engine must compute.
fn fixpoint<P: VertexProgram>(g: &Graph<P::Weight>, src: u32) -> Vec<P::State> {
    let n = g.num_vertices();
    let mut s: Vec<P::State> = (0..n as u32).map(|v| P::init(v, src)).collect();
    let mut queue: std::collections::VecDeque<u32> = if P::NEEDS_SOURCE {
        [src].into()
    } else {
        (0..n as u32).collect()
    };
    let mut queued = vec![false; n];
    for &v in &queue {
        queued[v as usize] = true;
    }
    let csr = g.csr();
    while let Some(u) = queue.pop_front() {
        queued[u as usize] = false;
        for e in csr.edge_range(u) {
            let v = csr.targets()[e] as usize;
            let Some(c) = P::relax(s[u as usize], csr.weight(e)) else {
                continue;
            };
            let new = P::combine(s[v], c);
            if new != s[v] {
                s[v] = new;
                if !queued[v] {
                    queued[v] = true;
                    queue.push_back(v as u32);
                }
            }
        }
    }
    s
}

/// Dijkstra's distances in 32 bits (`u64::MAX` → `u32::MAX`); the caller knows
/// they fit.
fn narrow_oracle(g: &Graph<u32>, src: u32) -> Vec<u32> {
    oracle::dijkstra(g.csr(), src)
        .into_iter()
        .map(|d| u32::try_from(d).unwrap_or(u32::MAX))
        .collect()
}

fn aopts(t: &Topology, chunk: usize) -> AsyncOptions {
    AsyncOptions {
        topology: Some(t.clone()),
        chunk,
        ..AsyncOptions::default()
    }
}

/// Runs `P` under async (and obim when it has a priority) with every thread count
/// and topology, and checks against `expect`.
fn check_all<P: VertexProgram>(g: &Graph<P::Weight>, src: u32, expect: &[P::State], what: &str) {
    let mut schedules = vec![Schedule::Async];
    if P::HAS_PRIORITY {
        schedules.push(Schedule::Obim);
    }
    for &s in &schedules {
        for topo in topologies() {
            for &t in &THREADS {
                let o = CpuOptions {
                    threads: Some(t),
                    direction: Direction::Auto,
                };
                let out = cpu::run::<P>(g, src, s, &o, &aopts(&topo, 16)).unwrap();
                assert!(
                    states_agree(expect, &out.states),
                    "{what}: {} {s:?} threads {t} topology {}",
                    P::NAME,
                    topo.describe()
                );
                assert_eq!(out.report.threads, t);
                assert_eq!(out.report.packages, topo.num_packages());
            }
        }
    }
}

#[test]
fn every_program_on_generated_graphs() {
    for (spec, src) in [
        ("kron:9:8", 1u32),
        ("grid:20x15", 17),
        ("uniform:300:1200", 3),
    ] {
        let g = generated(spec, false);
        let src = (src..).find(|&v| g.csr().degree(v) > 0).unwrap();
        let gw = generated(spec, true);
        let levels = oracle::bfs_levels(g.csr(), src);
        check_all::<bfs::Program>(&g, src, &levels, spec);
        check_all::<bfs_prio::Program>(&g, src, &levels, spec);
        check_all::<cc::Program>(&g, src, &oracle::components(g.csr()), spec);
        check_all::<widest::Program>(&gw, src, &oracle::widest(gw.csr(), src), spec);
        check_all::<sssp::sssp::Program>(&gw, src, &oracle::dijkstra(gw.csr(), src), spec);
        assert!(sssp::fits_u32(&gw), "{spec}");
        let d32 = narrow_oracle(&gw, src);
        check_all::<sssp::sssp32::Program>(&gw, src, &d32, spec);
        let gf = to_f64(&gw, 1.0 / 7.0);
        check_all::<sssp::sssp_f64::Program>(&gf, src, &oracle::dijkstra_f64(gf.csr(), src), spec);
        let gp = to_f64(&gw, 1.0 / 256.0);
        let rel = fixpoint::<reliability::Program>(&gp, src);
        check_all::<reliability::Program>(&gp, src, &rel, spec);
    }
}

#[test]
fn gapbs_test_graphs() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/peers/gapbs/test/graphs"
    );
    if !std::path::Path::new(dir).exists() {
        eprintln!("skipping: {dir} not found");
        return;
    }
    let opts = runtime::load::LoadOptions::default();
    let g = runtime::load::load_graph::<u32>(&format!("{dir}/4.el"), &opts)
        .unwrap()
        .graph;
    let gw = runtime::load::load_graph::<u32>(&format!("{dir}/4.wel"), &opts)
        .unwrap()
        .graph;
    for src in [0u32, 3, 9] {
        check_all::<bfs::Program>(&g, src, &oracle::bfs_levels(g.csr(), src), "4.el");
        check_all::<sssp::sssp::Program>(&gw, src, &oracle::dijkstra(gw.csr(), src), "4.wel");
        check_all::<widest::Program>(&gw, src, &oracle::widest(gw.csr(), src), "4.wel");
    }
}

#[test]
fn delta_and_chunk_sizes() {
    let gw = generated("kron:9:8", true);
    let expect = oracle::dijkstra(gw.csr(), 1);
    let topo = Topology::parse("2x2").unwrap();
    for delta in [None, Some(1), Some(7), Some(64), Some(1 << 20)] {
        for chunk in [1, 2, 8, 64] {
            let a = AsyncOptions {
                delta,
                ..aopts(&topo, chunk)
            };
            let o = CpuOptions {
                threads: Some(4),
                direction: Direction::Auto,
            };
            let out = cpu::obim::run::<sssp::sssp::Program>(&gw, 1, &o, &a).unwrap();
            assert_eq!(out.states, expect, "delta {delta:?} chunk {chunk}");
            assert!(out.report.delta.unwrap() >= 1);
            let out = cpu::steal::run::<sssp::sssp::Program>(&gw, 1, &o, &a).unwrap();
            assert_eq!(out.states, expect, "async chunk {chunk}");
        }
    }
    // Auto Δ follows the weights through the program: weights 1..255 on a graph of
    // mean degree ~13 give a Δ of a few tens, never 0.
    let d = runtime::shape::auto_delta::<sssp::sssp::Program>(&gw, 1);
    assert!((2..=64).contains(&d), "auto delta {d}");
    assert_eq!(
        runtime::shape::auto_delta::<bfs_prio::Program>(&generated("kron:8", false), 0),
        1
    );
}

#[test]
fn refusals_are_clear_errors() {
    let g = generated("grid:5x5", false);
    let o = CpuOptions::default();
    let a = AsyncOptions::default();
    for s in [Schedule::Async, Schedule::Obim] {
        let e = cpu::run::<walks::Program>(&g, 0, s, &o, &a).err().unwrap();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("not idempotent"), "{e}");
    }
    // sync still runs it (on a DAG, where walk counts are finite): 0→1, 0→2, 1→2.
    let dag = EdgeList::<u32> {
        num_vertices: 3,
        edges: vec![[0, 1], [0, 2], [1, 2]],
        weights: None,
    };
    let dag = build(&dag, BuildOptions::default()).unwrap();
    let out = cpu::run::<walks::Program>(&dag, 0, Schedule::Sync, &o, &a).unwrap();
    assert_eq!(out.states, vec![1, 1, 2]);
    // A vertex that receives in two rounds pushes only what is new each time
    // (it pushed its whole count again, so walks past it were counted twice).
    for (edges, walks) in [
        (vec![[0, 1], [0, 2], [1, 2], [2, 3]], vec![1u64, 1, 2, 2]),
        (
            vec![[0, 1], [0, 2], [1, 2], [2, 3], [1, 3], [3, 4]],
            vec![1, 1, 2, 3, 3],
        ),
    ] {
        let el = EdgeList::<u32> {
            num_vertices: walks.len(),
            edges,
            weights: None,
        };
        let dag = build(&el, BuildOptions::default()).unwrap();
        for threads in [1, 2, 4] {
            let o = CpuOptions {
                threads: Some(threads),
                ..CpuOptions::default()
            };
            let out = cpu::run::<walks::Program>(&dag, 0, Schedule::Sync, &o, &a).unwrap();
            assert_eq!(out.states, walks, "{threads} threads");
        }
        // The GPU kernels would count twice: refused, with the reason.
        let e =
            runtime::gpu::program::emulate::<walks::Program>(dag.csr(), 0, &Default::default(), 2)
                .err()
                .unwrap()
                .to_string();
        assert!(e.contains("sum") && e.contains("CPU"), "{e}");
    }
    let e = cpu::run::<bfs::Program>(&g, 0, Schedule::Obim, &o, &a)
        .err()
        .unwrap();
    assert!(e.to_string().contains("priority"), "{e}");
    // A weighted program on a graph without weights is refused on every
    // schedule (it ran with every weight 1, silently), as on the GPU.
    for s in [Schedule::Sync, Schedule::Async, Schedule::Obim] {
        let e = cpu::run::<sssp::sssp::Program>(&g, 0, s, &o, &a)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("weights"), "{s:?}: {e}");
    }
    let e = cpu::run::<bfs::Program>(&g, 99, Schedule::Async, &o, &a)
        .err()
        .unwrap();
    assert!(e.to_string().contains("out of range"), "{e}");
    let bad = [
        AsyncOptions {
            chunk: 0,
            ..AsyncOptions::default()
        },
        AsyncOptions {
            delta: Some(0),
            ..AsyncOptions::default()
        },
    ];
    for b in &bad {
        let e =
            cpu::run::<sssp::sssp::Program>(&generated("grid:5x5", true), 0, Schedule::Obim, &o, b);
        assert!(matches!(e, Err(Error::InvalidArgument(_))));
    }
    let zero = CpuOptions {
        threads: Some(0),
        direction: Direction::Auto,
    };
    assert!(cpu::run::<bfs::Program>(&g, 0, Schedule::Async, &zero, &a).is_err());
}

#[test]
fn edge_cases() {
    let one = build(&EdgeList::<u32>::new(1), BuildOptions::default()).unwrap();
    let empty = build(&EdgeList::<u32>::new(0), BuildOptions::default()).unwrap();
    let topo = Topology::parse("2x2").unwrap();
    for t in [1, 4] {
        let o = CpuOptions {
            threads: Some(t),
            direction: Direction::Auto,
        };
        let out = cpu::steal::run::<bfs::Program>(&one, 0, &o, &aopts(&topo, 8)).unwrap();
        assert_eq!(out.states, vec![0]);
        let out = cpu::steal::run::<cc::Program>(&empty, 0, &o, &aopts(&topo, 8)).unwrap();
        assert!(out.states.is_empty());
        let out = cpu::obim::run::<bfs_prio::Program>(&one, 0, &o, &aopts(&topo, 8)).unwrap();
        assert_eq!(out.states, vec![0]);
    }
    // A directed chain with isolated vertices, from several sources.
    let el = EdgeList::<u32> {
        num_vertices: 6,
        edges: vec![[0, 1], [1, 2], [4, 0]],
        weights: Some(vec![3, 4, 1]),
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    for src in 0..6 {
        check_all::<sssp::sssp::Program>(&g, src, &oracle::dijkstra(g.csr(), src), "chain");
    }
}

/// Distances at or past 2³² − 1 share the last bucket (the priority saturates);
/// with Δ 1 that bucket is `u32::MAX`, which soft obim's scans stopped short of:
/// the work filed there was never found and the run waited for ever (9 of 20
/// runs at two threads, found by a differential hunt). Each run gets a deadline
/// so that a regression fails instead of hanging.
#[test]
fn obim_finds_work_in_the_last_bucket() {
    let n = 500u32;
    let mut edges = vec![[0, 1]];
    let mut weights = vec![u32::MAX];
    for i in 2..n {
        edges.push([1, i]);
        weights.push(1);
    }
    for i in 2..n - 1 {
        edges.push([i, i + 1]);
        weights.push(1);
    }
    let el = EdgeList::<u32> {
        num_vertices: n as usize,
        edges,
        weights: Some(weights),
    };
    let g = std::sync::Arc::new(build(&el, BuildOptions::default()).unwrap());
    let want = oracle::dijkstra(g.csr(), 0);
    assert_eq!(want[2], 1 << 32);
    let topo = Topology::parse("1x4").unwrap();
    for threads in [2, 4] {
        for rep in 0..10 {
            let (tx, rx) = std::sync::mpsc::channel();
            let (g2, a) = (g.clone(), aopts(&topo, 8));
            std::thread::spawn(move || {
                let o = CpuOptions {
                    threads: Some(threads),
                    direction: Direction::Auto,
                };
                let a = AsyncOptions {
                    delta: Some(1),
                    ..a
                };
                let _ = tx.send(cpu::obim::run::<sssp::sssp::Program>(&g2, 0, &o, &a));
            });
            let out = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("obim Δ 1 on {threads} threads hung (run {rep})"))
                .unwrap();
            assert_eq!(out.states, want, "{threads} threads, run {rep}");
        }
    }
}

/// Many random graphs (seeded, reproducible), every run oversubscribed (8 or 16
/// workers on this machine's cores) over several packages with tiny chunks, so
/// stealing, idling and termination are exercised constantly.
#[test]
fn stress_random_graphs() {
    let topo = Topology::parse("2x2").unwrap();
    let three = Topology::uniform(3, 2).unwrap();
    for seed in 0..600u64 {
        let mut k = 0u64;
        let mut rnd = |below: u64| {
            k += 1;
            rng::below(rng::hash3(seed, 99, k), below)
        };
        let n = 1 + rnd(199) as usize;
        let m = rnd(n as u64 * 6) as usize;
        let sym = rnd(2) == 0;
        let edges: Vec<[u32; 2]> = (0..m)
            .map(|_| [rnd(n as u64) as u32, rnd(n as u64) as u32])
            .collect();
        let weights: Vec<u32> = (0..m).map(|_| rnd(60) as u32).collect();
        let src = rnd(n as u64) as u32;
        let el = EdgeList {
            num_vertices: n,
            edges,
            weights: Some(weights),
        };
        let g = build(
            &el,
            BuildOptions {
                symmetrize: sym,
                ..BuildOptions::default()
            },
        )
        .unwrap();
        let t = if seed % 2 == 0 { 8 } else { 16 };
        let o = CpuOptions {
            threads: Some(t),
            direction: Direction::Auto,
        };
        let a = aopts(
            if seed % 3 == 0 { &three } else { &topo },
            1 + (seed as usize % 4),
        );
        let dist = oracle::dijkstra(g.csr(), src);
        let levels = oracle::bfs_levels(g.csr(), src);
        let r = cpu::steal::run::<sssp::sssp::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(r.states, dist, "async sssp seed {seed}");
        let r = cpu::obim::run::<sssp::sssp::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(r.states, dist, "obim sssp seed {seed}");
        let r = cpu::steal::run::<bfs::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(r.states, levels, "async bfs seed {seed}");
        let r = cpu::obim::run::<bfs_prio::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(r.states, levels, "obim bfs seed {seed}");
        let r = cpu::steal::run::<widest::Program>(&g, src, &o, &a).unwrap();
        assert_eq!(
            r.states,
            oracle::widest(g.csr(), src),
            "async widest seed {seed}"
        );
        if sym {
            let r = cpu::steal::run::<cc::Program>(&g, 0, &o, &a).unwrap();
            assert_eq!(
                r.states,
                oracle::components(g.csr()),
                "async cc seed {seed}"
            );
        }
    }
}

#[test]
fn compare_agrees_and_counts_work() {
    let gw = generated("kron:9:8", true);
    let topo = Topology::parse("2x2").unwrap();
    let mut runners: Vec<Box<dyn Runner<sssp::sssp::Program>>> = Vec::new();
    for s in [Schedule::Sync, Schedule::Async, Schedule::Obim] {
        for t in [1, 3] {
            runners.push(Box::new(CpuRunner {
                schedule: s,
                opts: CpuOptions {
                    threads: Some(t),
                    direction: Direction::Auto,
                },
                aopts: aopts(&topo, 16),
            }));
        }
    }
    let c = compare(&gw, 1, &runners, 2, |_| {});
    assert!(c.all_agree);
    assert_eq!(c.rows.len(), 6);
    assert!(c.useful_work > 0 && c.reached > 1);
    for r in &c.rows {
        assert_eq!(r.agrees, Some(true));
        assert!(r.edges_relaxed.unwrap() >= c.useful_work, "{r:?}");
        assert_eq!(r.times_s.len(), 2);
        assert!(r.speedup_vs_sync.is_some());
    }
    // A refused schedule is a row with a reason, not a failure of the comparison.
    let runners: Vec<Box<dyn Runner<bfs::Program>>> = vec![
        Box::new(CpuRunner {
            schedule: Schedule::Sync,
            opts: CpuOptions::default(),
            aopts: AsyncOptions::default(),
        }),
        Box::new(CpuRunner {
            schedule: Schedule::Obim,
            opts: CpuOptions::default(),
            aopts: AsyncOptions::default(),
        }),
    ];
    let g = generated("kron:8", false);
    let c = compare(&g, 0, &runners, 1, |_| {});
    assert!(c.all_agree);
    assert!(c.rows[1].error.as_deref().unwrap().contains("priority"));
}
