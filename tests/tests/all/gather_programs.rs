//! Gather/apply programs (PageRank, k-core) on the CPU engine and through the GPU
//! kernels' host emulation, against the sequential oracles, on generated graphs,
//! directed edge lists, isolated vertices and edge cases; a level sweep against
//! its definition.

use runtime::cpu::gather as cpu;
use runtime::cpu::gather_async::{self, AsyncOrder};
use runtime::gather::{Direction, GatherOptions, StopReason};
use runtime::gpu::gather::{self as gpu, GatherGpuOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{kcore, pagerank, pagerank_delta};
use vertex_tests as oracle;

use vertex_tests::unweighted as generated;

use vertex_tests::directed;

fn close(a: &[f64], b: &[f64], rel: f64) {
    oracle::close_within(a, b, rel, "states")
}

fn check_pagerank(g: &Graph<u32>) {
    let (expect, rounds) = oracle::pagerank(g.csr(), 0.85, 1e-4, 20);
    for threads in [Some(1), Some(3), None] {
        let out = cpu::run::<pagerank::Program, _>(
            g,
            &GatherOptions {
                threads,
                ..Default::default()
            },
        )
        .unwrap();
        close(&out.states, &expect, 1e-9);
        assert_eq!(out.report.rounds, rounds);
    }
}

fn check_kcore(g: &Graph<u32>) {
    let expect = oracle::core_numbers(g.csr());
    for direction in [Direction::Push, Direction::Pull, Direction::Auto] {
        for threads in [Some(1), Some(3)] {
            let out = cpu::run::<kcore::Program, _>(
                g,
                &GatherOptions {
                    threads,
                    direction: Some(direction),
                    ..Default::default()
                },
            )
            .unwrap();
            let cores: Vec<u32> = out.states.iter().map(|s| s.core).collect();
            assert_eq!(cores, expect, "{direction:?}, {threads:?}");
            assert_eq!(out.report.stop, StopReason::Quiescent);
        }
    }
}

#[test]
fn pagerank_matches_power_iteration() {
    for spec in ["kron:12", "uniform:3000:20000", "grid:30x20"] {
        check_pagerank(&generated(spec));
    }
    // Directed, with a dangling vertex (3) and an isolated one (4).
    check_pagerank(&directed(5, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2]]));
}

#[test]
fn kcore_matches_peeling() {
    for spec in ["kron:12", "uniform:3000:20000", "grid:30x20"] {
        check_kcore(&generated(spec));
    }
    // A 4-clique with a tail and an isolated vertex: cores 3,3,3,3,1,1,0.
    let el = EdgeList::<u32> {
        num_vertices: 7,
        edges: vec![
            [0, 1],
            [0, 2],
            [0, 3],
            [1, 2],
            [1, 3],
            [2, 3],
            [3, 4],
            [4, 5],
        ],
        weights: None,
    };
    let g = build(&el, BuildOptions::undirected()).unwrap();
    assert_eq!(oracle::core_numbers(g.csr()), vec![3, 3, 3, 3, 1, 1, 0]);
    check_kcore(&g);
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// The graphs the PageRank variants are checked on: Kronecker, grid, uniform, and
/// a directed graph with a dangling and an isolated vertex.
fn pagerank_shapes() -> [Graph<u32>; 4] {
    [
        generated("kron:12"),
        generated("grid:30x20"),
        generated("uniform:3000:20000"),
        directed(5, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2]]),
    ]
}

/// Residual-push PageRank, in rounds, asynchronously (FIFO and obim) and through
/// the emulated GPU kernels, ends within its L1 bound of the converged ranks.
#[test]
fn pagerank_delta_reaches_the_fixed_point() {
    let graphs = pagerank_shapes();
    for g in &graphs {
        let (exact, _) = oracle::pagerank(g.csr(), 0.85, 1e-13, 10_000);
        let bound = pagerank_delta::pagerank_delta::TOLERANCE_L1;
        let ranks = |s: &[pagerank_delta::pagerank_delta::Residual]| -> Vec<f64> {
            s.iter().map(|r| r.rank).collect()
        };
        for threads in [Some(1), Some(3)] {
            let opts = GatherOptions {
                threads,
                ..Default::default()
            };
            let sync = cpu::run::<pagerank_delta::Program, _>(g, &opts).unwrap();
            let d = l1(&ranks(&sync.states), &exact);
            assert!(d <= bound, "sync: L1 {d}");
            for order in [AsyncOrder::Fifo, AsyncOrder::Obim] {
                let out = gather_async::run::<pagerank_delta::Program, _>(g, &opts, order).unwrap();
                let d = l1(&ranks(&out.states), &exact);
                assert!(d <= bound, "{order:?} {threads:?}: L1 {d}");
                assert!(out.report.applies > 0);
            }
        }
        let gpu = gpu::emulate::<pagerank_delta::Program, _>(
            g,
            &GatherOptions::default(),
            &GatherGpuOptions::default(),
            64,
        )
        .unwrap();
        let d = l1(&ranks(&gpu.states), &exact);
        assert!(d <= bound, "gpu: L1 {d}");
    }
}

/// Gauss–Seidel rounds (in place) reach the same fixed point as Jacobi, within
/// the tolerance's bound on the residual (in fewer rounds on the grid; on
/// Kronecker graphs the in-place L1 change falls more slowly, as in gapbs); and
/// they are refused for frontier-driven programs and on the GPU.
#[test]
fn pagerank_gauss_seidel_reaches_the_fixed_point() {
    let graphs = pagerank_shapes();
    for g in &graphs {
        let tolerance = 1e-6;
        let (_, jacobi_rounds) = oracle::pagerank(g.csr(), 0.85, tolerance, 200);
        for threads in [Some(1), Some(3)] {
            let opts = GatherOptions {
                threads,
                gauss_seidel: true,
                tolerance: Some(tolerance),
                max_rounds: Some(200),
                ..Default::default()
            };
            let out = cpu::run::<pagerank::Program, _>(g, &opts).unwrap();
            assert_eq!(out.report.stop, StopReason::Converged);
            let residual = runtime::oracle::pagerank_residual(g.csr(), &out.states, 0.85);
            assert!(
                residual <= 2.0 * tolerance,
                "{threads:?}: residual {residual}"
            );
            if g.num_vertices() == 600 {
                // The grid: in-place rounds carry changes along rows within a round.
                assert!(
                    out.report.rounds < jacobi_rounds,
                    "{threads:?}: {} Gauss-Seidel rounds, {jacobi_rounds} Jacobi",
                    out.report.rounds
                );
            }
        }
    }
    let g = generated("kron:8");
    let opts = GatherOptions {
        gauss_seidel: true,
        ..Default::default()
    };
    assert!(cpu::run::<kcore::Program, _>(&g, &opts).is_err());
    assert!(gather_async::run::<pagerank_delta::Program, _>(&g, &opts, AsyncOrder::Fifo).is_err());
    let e = gpu::emulate::<pagerank::Program, _>(&g, &opts, &GatherGpuOptions::default(), 64);
    assert!(e.is_err());
}

/// PageRank in data-driven sweeps (`cpu::run_driven`) stops only where a
/// further Jacobi round would change the ranks by less than `d·τ` in L1 (the
/// sync run's own stopping test), so its ranks lie within `d·τ / (1 − d)` of the
/// fixed point: at 1 and several threads, on Kronecker, grid, uniform, a
/// directed graph with dangling and isolated vertices, the empty graph and a
/// single vertex. Dense sweeps turn sparse on the larger graphs, and programs
/// the schedule cannot run are refused.
#[test]
fn pagerank_driven_reaches_the_fixed_point() {
    let d = pagerank::pagerank::DAMPING;
    let mut graphs: Vec<Graph<u32>> = pagerank_shapes().into_iter().collect();
    graphs.push(generated("grid:100x100"));
    graphs.push(directed(0, &[]));
    graphs.push(directed(1, &[]));
    for g in &graphs {
        let n = g.num_vertices();
        let (exact, _) = oracle::pagerank(g.csr(), 0.85, 1e-13, 10_000);
        for tolerance in [1e-4, 1e-6] {
            // Messages are `f32`: their rounding adds to the residual.
            let slack = 1e-7;
            for threads in [Some(1), Some(2), Some(4)] {
                let opts = GatherOptions {
                    threads,
                    tolerance: Some(tolerance),
                    max_rounds: Some(1000),
                    ..Default::default()
                };
                let out = cpu::run_driven::<pagerank::Program, _>(g, &opts).unwrap();
                let r = &out.report;
                assert_eq!(r.stop, StopReason::Converged, "{n} {threads:?}");
                assert_eq!(out.states.len(), n);
                let residual = runtime::oracle::pagerank_residual(g.csr(), &out.states, d);
                assert!(
                    residual <= d * tolerance + slack,
                    "n {n}, τ {tolerance}, {threads:?}: residual {residual}"
                );
                let dist = l1(&out.states, &exact);
                assert!(
                    dist <= (d * tolerance + slack) / (1.0 - d),
                    "n {n}, τ {tolerance}, {threads:?}: L1 {dist}"
                );
                // Every vertex is gathered in the first sweep.
                assert!(r.applies >= n as u64);
                if n == 0 {
                    assert_eq!(r.edges_gathered, 0);
                }
            }
        }
    }
    // On the 100² grid most vertices settle long before the last sweep: fewer
    // vertex updates than Jacobi rounds at the same tolerance.
    let g = generated("grid:100x100");
    let opts = GatherOptions {
        tolerance: Some(1e-6),
        max_rounds: Some(1000),
        ..Default::default()
    };
    let out = cpu::run_driven::<pagerank::Program, _>(&g, &opts).unwrap();
    let jacobi = cpu::run::<pagerank::Program, _>(&g, &opts).unwrap();
    assert!(
        out.report.applies < jacobi.report.applies,
        "{:?} vs {:?}",
        out.report,
        jacobi.report
    );
    // The round limit bounds the work: three rounds' worth of edges.
    let out = cpu::run_driven::<pagerank::Program, _>(
        &g,
        &GatherOptions {
            tolerance: Some(1e-12),
            max_rounds: Some(3),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(out.report.rounds <= 3, "{:?}", out.report);
    assert!(
        out.report.edges_gathered >= 3 * g.num_edges(),
        "{:?}",
        out.report
    );
    assert_eq!(out.report.stop, StopReason::MaxRounds);
    // Refused: a frontier-driven program, Gauss–Seidel rounds asked for, a
    // program without a tolerance.
    let g = generated("kron:8");
    assert!(cpu::run_driven::<kcore::Program, _>(&g, &GatherOptions::default()).is_err());
    let gs = GatherOptions {
        gauss_seidel: true,
        ..Default::default()
    };
    assert!(cpu::run_driven::<pagerank::Program, _>(&g, &gs).is_err());
    let e = cpu::run_driven::<emit_reads_round::Program, _>(&g, &GatherOptions::default());
    let Err(e) = e else {
        panic!("a program without a tolerance ran data-driven")
    };
    assert!(e.to_string().contains("tolerance"), "{e}");
}

#[test]
fn async_needs_an_async_program() {
    let g = generated("kron:8");
    let e =
        gather_async::run::<pagerank::Program, _>(&g, &GatherOptions::default(), AsyncOrder::Fifo);
    let Err(e) = e else {
        panic!("a dense program ran asynchronously")
    };
    assert!(e.to_string().contains("synchronous rounds only"), "{e}");
}

#[test]
fn options_are_checked() {
    let g = generated("kron:8");
    for tolerance in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = cpu::run::<pagerank::Program, _>(
            &g,
            &GatherOptions {
                tolerance: Some(tolerance),
                ..Default::default()
            },
        );
        assert!(e.is_err(), "tolerance {tolerance} accepted");
    }
    let e = cpu::run::<pagerank::Program, _>(
        &g,
        &GatherOptions {
            max_rounds: Some(0),
            ..Default::default()
        },
    );
    assert!(e.is_err());
    // One round, no tolerance: exactly one round runs.
    let out = cpu::run::<pagerank::Program, _>(
        &g,
        &GatherOptions {
            max_rounds: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.report.rounds, 1);
    assert_eq!(out.report.stop, StopReason::MaxRounds);
}

/// The GPU kernels, emulated on the host: chunk sizes that split adjacency lists
/// and ones that do not, a capped grid so grid-stride loops run.
fn gpu_variants() -> Vec<(GatherGpuOptions, u32)> {
    let mut v = Vec::new();
    for mec in [1, 3, 16, 64] {
        for (block, max_blocks) in [(32, 2), (64, 1000)] {
            v.push((
                GatherGpuOptions {
                    max_edge_count: mec,
                    block_size: block,
                },
                max_blocks,
            ));
        }
    }
    v
}

#[test]
fn gpu_kernels_emulated_match_the_oracles() {
    let graphs = [
        generated("kron:11"),
        generated("grid:20x15"),
        generated("uniform:2000:9000"),
        directed(5, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2]]),
    ];
    for g in &graphs {
        let (ranks, rounds) = oracle::pagerank(g.csr(), 0.85, 1e-4, 20);
        let cores = g.is_symmetric().then(|| oracle::core_numbers(g.csr()));
        for (gopts, max_blocks) in gpu_variants() {
            let out = gpu::emulate::<pagerank::Program, _>(
                g,
                &GatherOptions::default(),
                &gopts,
                max_blocks,
            )
            .unwrap();
            close(&out.states, &ranks, 1e-9);
            assert_eq!(out.report.rounds, rounds);
            if let Some(cores) = &cores {
                for direction in [Direction::Push, Direction::Pull, Direction::Auto] {
                    let opts = GatherOptions {
                        direction: Some(direction),
                        ..Default::default()
                    };
                    let out =
                        gpu::emulate::<kcore::Program, _>(g, &opts, &gopts, max_blocks).unwrap();
                    let got: Vec<u32> = out.states.iter().map(|s| s.core).collect();
                    assert_eq!(&got, cores, "{gopts:?} {direction:?}");
                }
            }
        }
    }
}

/// A level sweep that is not Brandes: levels with gaps and vertices without one;
/// each vertex sums `1 + x` over its in-neighbours of the previous (non-empty)
/// level, doubles it and adds its id mod 3 and the round.
#[vertex_dsl::vertex_program(gather = sum)]
mod level_sums {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct S {
        pub x: u64,
        pub level: u32,
        pub _pad: u32,
    }
    pub type State = S;
    pub type Msg = u64;
    pub type Acc = u64;

    pub fn init(ctx: Ctx) -> State {
        S {
            x: 0,
            level: if ctx.vertex % 7 == 3 {
                u32::MAX
            } else {
                (ctx.vertex * 13) % 5 * 2
            },
            _pad: 0,
        }
    }
    pub fn level(s: State) -> u32 {
        s.level
    }
    pub fn emit(s: State) -> Msg {
        s.x + 1
    }
    pub fn gather(m: Msg) -> Acc {
        m
    }
    pub fn apply(ctx: Ctx, s: State, a: Acc) -> State {
        S {
            x: a.wrapping_mul(2) + (ctx.vertex % 3) as u64 + ctx.round as u64,
            ..s
        }
    }
}

/// The sweep's definition, sequentially: levels highest first, each vertex
/// gathering from the level applied just before its own.
fn level_sums_oracle(g: &Graph<u32>) -> (Vec<u64>, u32) {
    use runtime::gather::GatherProgram;
    let states = runtime::cpu::gather::run::<level_sums::Program, _>(
        g,
        &GatherOptions {
            max_rounds: Some(1),
            ..Default::default()
        },
    )
    .unwrap()
    .states;
    let level: Vec<u32> = states
        .iter()
        .map(|&s| level_sums::Program::level(s))
        .collect();
    let mut levels: Vec<u32> = level.iter().copied().filter(|&l| l != u32::MAX).collect();
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    let (off, src) = (g.csc().offsets(), g.csc().targets());
    let mut x = vec![0u64; level.len()];
    for (r, &l) in levels.iter().enumerate() {
        for v in (0..level.len()).filter(|&v| level[v] == l) {
            let mut acc = 0u64;
            if r > 0 {
                for &u in &src[off[v] as usize..off[v + 1] as usize] {
                    if level[u as usize] == levels[r - 1] {
                        acc = acc.wrapping_add(x[u as usize] + 1);
                    }
                }
            }
            x[v] = acc.wrapping_mul(2) + (v % 3) as u64 + r as u64;
        }
    }
    (x, levels.len() as u32)
}

#[test]
fn level_sweeps_match_their_definition() {
    let graphs = [
        generated("kron:9"),
        generated("grid:12x7"),
        directed(
            9,
            &[
                [0, 1],
                [1, 2],
                [2, 0],
                [2, 3],
                [0, 2],
                [4, 8],
                [8, 5],
                [5, 6],
            ],
        ),
    ];
    for g in &graphs {
        let (expect, rounds) = level_sums_oracle(g);
        for direction in [Direction::Push, Direction::Pull, Direction::Auto] {
            for threads in [Some(1), Some(3)] {
                let opts = GatherOptions {
                    direction: Some(direction),
                    threads,
                    ..Default::default()
                };
                let out = cpu::run::<level_sums::Program, _>(g, &opts).unwrap();
                let got: Vec<u64> = out.states.iter().map(|s| s.x).collect();
                assert_eq!(got, expect, "{direction:?} {threads:?}");
                assert_eq!(out.report.rounds, rounds);
                assert_eq!(out.report.stop, StopReason::Quiescent);
                if direction == Direction::Push && rounds > 1 {
                    assert_eq!(out.report.push_rounds, rounds - 1);
                }
            }
        }
        for (gopts, max_blocks) in gpu_variants() {
            let out = gpu::emulate::<level_sums::Program, _>(
                g,
                &GatherOptions::default(),
                &gopts,
                max_blocks,
            )
            .unwrap();
            let got: Vec<u64> = out.states.iter().map(|s| s.x).collect();
            assert_eq!(got, expect, "{gopts:?}");
            assert_eq!(out.report.rounds, rounds);
        }
    }
}

/// A frontier program whose `init` reads `ctx.source` (hops from it): the macro
/// must mark it as needing a source, so a run without one is refused instead of
/// starting from `u32::MAX` (every vertex unreached, silently).
#[vertex_dsl::vertex_program(gather = min)]
mod hops_from_source {
    pub type State = u32;
    pub type Acc = u32;

    pub fn init(ctx: Ctx) -> State {
        if ctx.vertex == ctx.source {
            0
        } else {
            u32::MAX
        }
    }
    pub fn gather(hops: State) -> Acc {
        hops.saturating_add(1)
    }
    pub fn apply(_ctx: Ctx, old: State, hops: Acc) -> State {
        old.min(hops)
    }
    pub fn active(ctx: Ctx, old: State, new: State) -> bool {
        // The source starts the frontier (round 0), then vertices that improved.
        new < old || (new == 0 && ctx.round == 0)
    }
}

/// The same, reading the source through a helper that takes the `Ctx` and
/// through a destructuring pattern, not in `init` itself.
#[vertex_dsl::vertex_program(gather = min)]
mod source_in_helpers {
    pub type State = u32;
    pub type Acc = u32;

    fn is_source(c: Ctx) -> bool {
        let Ctx { vertex, source, .. } = c;
        vertex == source
    }
    pub fn init(ctx: Ctx) -> State {
        if is_source(ctx) {
            0
        } else {
            u32::MAX
        }
    }
    pub fn gather(hops: State) -> Acc {
        hops.saturating_add(1)
    }
    pub fn apply(_ctx: Ctx, old: State, hops: Acc) -> State {
        old.min(hops)
    }
}

#[test]
fn a_gather_program_reading_the_source_needs_one() {
    use runtime::gather::GatherProgram;
    const {
        assert!(hops_from_source::Program::NEEDS_SOURCE);
        assert!(source_in_helpers::Program::NEEDS_SOURCE);
        // Programs that never read it need none.
        assert!(!pagerank::Program::NEEDS_SOURCE);
        assert!(!kcore::Program::NEEDS_SOURCE);
        assert!(!level_sums::Program::NEEDS_SOURCE);
    }

    let g = directed(5, &[[0, 1], [1, 2], [2, 3], [4, 0]]);
    let expect = "program `hops_from_source` starts from a source vertex: give one";
    let Err(e) = cpu::run::<hops_from_source::Program, _>(&g, &GatherOptions::default()) else {
        panic!("ran without a source")
    };
    assert!(e.to_string().contains(expect), "{e}");
    let Err(e) = gpu::emulate::<hops_from_source::Program, _>(
        &g,
        &GatherOptions::default(),
        &GatherGpuOptions::default(),
        2,
    ) else {
        panic!("ran without a source (GPU emulation)")
    };
    assert!(e.to_string().contains(expect), "{e}");
    let Err(e) = cpu::run::<source_in_helpers::Program, _>(&g, &GatherOptions::default()) else {
        panic!("ran without a source")
    };
    assert!(e.to_string().contains("starts from a source vertex"), "{e}");

    let opts = GatherOptions {
        source: Some(1),
        ..Default::default()
    };
    let out = cpu::run::<hops_from_source::Program, _>(&g, &opts).unwrap();
    assert_eq!(out.states, [u32::MAX, 0, 1, 2, u32::MAX]);
    let out =
        gpu::emulate::<hops_from_source::Program, _>(&g, &opts, &GatherGpuOptions::default(), 2)
            .unwrap();
    assert_eq!(out.states, [u32::MAX, 0, 1, 2, u32::MAX]);
}

/// A frontier program whose `active` rule never turns off: every vertex stays
/// active every round.
#[vertex_dsl::vertex_program(gather = sum)]
mod never_done {
    pub type State = u32;
    pub type Acc = u32;

    pub fn init(_ctx: Ctx) -> State {
        0
    }
    pub fn gather(x: State) -> Acc {
        x
    }
    pub fn apply(_ctx: Ctx, old: State, _acc: Acc) -> State {
        old.wrapping_add(1)
    }
    pub fn active(_old: State, _new: State) -> bool {
        true
    }
}

/// An asynchronous program whose vertices re-send whatever arrives: on a cycle
/// the work never runs out.
#[vertex_dsl::vertex_program(gather = sum, direction = push, schedule(sync, async, obim))]
mod never_settles {
    pub type State = u32;
    pub type Acc = u32;

    pub fn init(_ctx: Ctx) -> State {
        1
    }
    pub fn gather(x: State) -> Acc {
        x
    }
    pub fn apply(_ctx: Ctx, old: State, acc: Acc) -> State {
        old.wrapping_add(acc) | 1
    }
    pub fn active(_old: State, _new: State) -> bool {
        true
    }
    pub fn priority(_ctx: Ctx, acc: Acc) -> u32 {
        acc % 4
    }
}

/// The asynchronous engines have no rounds, so their bound is the same work:
/// the round bound's rounds of every vertex. Reaching it is an error, as in rounds.
#[test]
fn an_asynchronous_program_that_never_settles_is_an_error() {
    let g = directed(4, &[[0, 1], [1, 2], [2, 0], [3, 3]]);
    let bound = runtime::gather::frontier_round_bound(4);
    for order in [AsyncOrder::Fifo, AsyncOrder::Obim] {
        for threads in [Some(1), Some(3)] {
            let opts = GatherOptions {
                threads,
                ..Default::default()
            };
            let Err(e) = gather_async::run::<never_settles::Program, _>(&g, &opts, order) else {
                panic!("a run that never settles returned states ({order:?})")
            };
            let e = e.to_string();
            for part in [
                "program `never_settles`",
                "applies",
                &format!("{bound} rounds' worth"),
                "MAX_ROUNDS",
            ] {
                assert!(e.contains(part), "`{part}` not in: {e}");
            }
        }
    }
}

#[test]
fn a_frontier_program_that_never_ends_is_an_error() {
    use runtime::gather::{frontier_round_bound, GatherProgram};
    assert_eq!(never_done::Program::MAX_ROUNDS, u32::MAX); // no limit set
    let g = directed(4, &[[0, 1], [1, 2], [2, 0], [3, 3]]);
    let bound = frontier_round_bound(4);
    assert_eq!(bound, 10_000);
    assert_eq!(frontier_round_bound(1 << 20), 8 << 20);
    let check = |e: runtime::Error| {
        let e = e.to_string();
        for part in [
            "program `never_done`",
            &format!("after {bound} rounds"),
            "MAX_ROUNDS",
            "--max-rounds",
        ] {
            assert!(e.contains(part), "`{part}` not in: {e}");
        }
    };
    for threads in [Some(1), Some(2)] {
        let opts = GatherOptions {
            threads,
            ..Default::default()
        };
        let Err(e) = cpu::run::<never_done::Program, _>(&g, &opts) else {
            panic!("a run that never ends returned states")
        };
        check(e);
    }
    let Err(e) = gpu::emulate::<never_done::Program, _>(
        &g,
        &GatherOptions::default(),
        &GatherGpuOptions::default(),
        1,
    ) else {
        panic!("a run that never ends returned states (GPU emulation)")
    };
    check(e);
    // A limit the caller sets stops the run quietly, as for dense programs.
    let opts = GatherOptions {
        max_rounds: Some(7),
        ..Default::default()
    };
    let out = cpu::run::<never_done::Program, _>(&g, &opts).unwrap();
    assert_eq!(out.report.stop, StopReason::MaxRounds);
    assert_eq!(out.report.rounds, 7);
    let out =
        gpu::emulate::<never_done::Program, _>(&g, &opts, &GatherGpuOptions::default(), 1).unwrap();
    assert_eq!(out.report.stop, StopReason::MaxRounds);
    // Shipped frontier programs end well inside the bound.
    let g = generated("kron:10");
    let out = cpu::run::<kcore::Program, _>(&g, &GatherOptions::default()).unwrap();
    assert_eq!(out.report.stop, StopReason::Quiescent);
}

/// Dense programs whose `emit` reads the round (its message changes every
/// round): the CPU's Jacobi rounds emit each vertex's next message right after
/// its apply, with the next round's number.
#[vertex_dsl::vertex_program(gather = sum, reduce = sum)]
mod emit_reads_round {
    pub type State = f64;
    pub type Msg = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: u32 = 5;

    pub fn init(ctx: Ctx) -> State {
        ctx.vertex as f64
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        (s + ctx.round as f64) / (ctx.out_degree as f64 + 1.0)
    }
    pub fn gather(m: Msg) -> Acc {
        m
    }
    pub fn apply(_ctx: Ctx, _old: State, acc: Acc) -> State {
        0.5 * acc + 1.0
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}

/// ... and one whose `emit` reads the previous round's reduction, through a
/// helper: its messages wait for the round's end.
#[vertex_dsl::vertex_program(gather = sum, reduce = sum)]
mod emit_reads_global {
    pub type State = f64;
    pub type Msg = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: u32 = 5;

    fn shift(c: Ctx) -> f64 {
        c.global * 1e-3 + c.round as f64
    }
    pub fn init(ctx: Ctx) -> State {
        ctx.vertex as f64
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        (s + shift(ctx)) / (ctx.out_degree as f64 + 1.0)
    }
    pub fn gather(m: Msg) -> Acc {
        m
    }
    pub fn apply(_ctx: Ctx, _old: State, acc: Acc) -> State {
        0.5 * acc + 1.0
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}

/// Jacobi rounds of `emit(round, global, out_degree, state)`, `apply` = ½·acc + 1,
/// reduction Σ|new − old|, sequentially; the first round's messages see global 0.
fn emit_program_oracle(
    g: &Graph<u32>,
    rounds: u32,
    emit: impl Fn(u32, f64, u32, f64) -> f64,
) -> Vec<f64> {
    let n = g.num_vertices();
    let mut s: Vec<f64> = (0..n).map(|v| v as f64).collect();
    let mut global = 0.0;
    for round in 0..rounds {
        let msg: Vec<f64> = (0..n as u32)
            .map(|u| emit(round, global, g.csr().degree(u) as u32, s[u as usize]))
            .collect();
        let mut change = 0.0;
        for v in 0..n as u32 {
            let acc: f64 = g.csc().neighbors(v).iter().map(|&u| msg[u as usize]).sum();
            let new = 0.5 * acc + 1.0;
            change += (new - s[v as usize]).abs();
            s[v as usize] = new;
        }
        global = change;
    }
    s
}

#[test]
fn jacobi_rounds_emit_with_the_round_and_reduction_they_promise() {
    use runtime::gather::GatherProgram;
    const {
        assert!(!emit_reads_round::Program::EMIT_READS_GLOBAL);
        assert!(emit_reads_global::Program::EMIT_READS_GLOBAL);
        assert!(!pagerank::Program::EMIT_READS_GLOBAL);
        // `emit(state)` sees no context at all.
        assert!(!level_sums::Program::EMIT_READS_GLOBAL);
    }
    let by_round = |r: u32, _: f64, d: u32, s: f64| (s + r as f64) / (d as f64 + 1.0);
    let by_global =
        |r: u32, gl: f64, d: u32, s: f64| (s + (gl * 1e-3 + r as f64)) / (d as f64 + 1.0);
    for g in [
        generated("grid:7x5"),
        generated("kron:8"),
        directed(5, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2]]),
    ] {
        for threads in [Some(1), Some(3)] {
            let opts = GatherOptions {
                threads,
                ..Default::default()
            };
            let out = cpu::run::<emit_reads_round::Program, _>(&g, &opts).unwrap();
            assert_eq!(out.report.rounds, 5);
            close(&out.states, &emit_program_oracle(&g, 5, by_round), 1e-12);
            let out = cpu::run::<emit_reads_global::Program, _>(&g, &opts).unwrap();
            assert_eq!(out.report.rounds, 5);
            close(&out.states, &emit_program_oracle(&g, 5, by_global), 1e-12);
        }
        // The GPU's rounds: apply writes the next messages itself when `emit`
        // reads no global (`round + 1` in its context), an emit launch otherwise.
        for (gopts, max_blocks) in gpu_variants() {
            let opts = GatherOptions::default();
            let out = gpu::emulate::<emit_reads_round::Program, _>(&g, &opts, &gopts, max_blocks)
                .unwrap();
            assert_eq!(out.report.rounds, 5);
            close(&out.states, &emit_program_oracle(&g, 5, by_round), 1e-12);
            let out = gpu::emulate::<emit_reads_global::Program, _>(&g, &opts, &gopts, max_blocks)
                .unwrap();
            assert_eq!(out.report.rounds, 5);
            close(&out.states, &emit_program_oracle(&g, 5, by_global), 1e-12);
        }
    }
}
