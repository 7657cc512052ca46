//! Gather/apply programs that read their source, from many sources at once
//! (`runtime::cpu::gather::batched`, and the GPU kernels
//! `runtime::gpu::gather::batched` under the host emulator), against one run per
//! source: personalized PageRank (dense, `f64` sums), hop counts and
//! Bellman–Ford distances (frontier-driven, exact), Brandes's forward phase
//! (frontier-driven, `f64` sums) and a dense program that reads its lane's
//! reduction; on Kronecker, a grid, directed graphs with isolated and
//! unreachable vertices, with repeated sources and more than 64 sources (two
//! batches); the one run call's `go_many` / `go_batched`; and the errors
//! (empty or out-of-range source lists, programs or settings that cannot
//! batch; programs that cannot batch do not compile:
//! `ui/gather_batched_not_batchable.rs`).
//!
//! Equality: the CPU's batched rounds gather each lane in the single run's pull
//! order, so states equal the single run's with `==` (for frontier programs with
//! `f64` sums, against single runs told to pull: their push rounds add in
//! arrival order). The emulated GPU sums in its own order (the single GPU run's
//! chunked pull, too), so `f64` states are compared to a relative 1e-9 there.

use proptest::prelude::*;
use runtime::cpu::gather as cpu;
use runtime::gather::{Direction, GatherOptions, GatherProgram};
use runtime::gpu::batched::LaneStates;
use runtime::gpu::gather::batched::emulate_batched;
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::run::{run, Backend};
use vertex_examples::programs::{bc::bc_paths, pagerank, ppr};
use vertex_tests::{directed, generated, small_directed, unweighted};

/// Each source's states, as `go_batched`-style callbacks hand them over.
fn collect<S: Copy>(
    out: &mut Vec<(u32, Vec<S>)>,
) -> impl FnMut(LaneStates<'_, S>) -> runtime::Result<()> + '_ {
    |b| {
        for l in 0..b.lanes() {
            out.push((b.sources[l], b.column(l)));
        }
        Ok(())
    }
}

/// How two runs' states must agree.
type Same<S> = fn(&[S], &[S], &str);

fn exact<S: PartialEq + std::fmt::Debug>(a: &[S], b: &[S], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (v, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x, y, "{what}: vertex {v}");
    }
}

fn close(a: &[f64], b: &[f64], what: &str) {
    vertex_tests::close_scores(a, b, what)
}

fn close_paths(a: &[bc_paths::Paths], b: &[bc_paths::Paths], what: &str) {
    let sigma = |s: &[bc_paths::Paths]| s.iter().map(|p| p.sigma).collect::<Vec<_>>();
    let depth = |s: &[bc_paths::Paths]| s.iter().map(|p| p.depth).collect::<Vec<_>>();
    assert_eq!(depth(a), depth(b), "{what}: depths");
    close(&sigma(a), &sigma(b), what);
}

/// One single-source CPU run of `P` from each of `sources` (told to pull when
/// `pull`).
fn singles<P: GatherProgram<Weight = ()>>(
    g: &Graph<u32>,
    sources: &[u32],
    opts: &GatherOptions,
    pull: bool,
) -> Vec<Vec<P::State>> {
    sources
        .iter()
        .map(|&s| {
            let o = GatherOptions {
                source: Some(s),
                direction: pull.then_some(Direction::Pull),
                threads: Some(1),
                ..opts.clone()
            };
            cpu::run::<P, u32>(g, &o).expect("single run").states
        })
        .collect()
}

/// The CPU's batched run (1 and 3 threads) equals `single` by `cpu_same`, the
/// emulated GPU's by `gpu_same`; the batch count is one per 64 sources.
fn check<P>(
    g: &Graph<u32>,
    sources: &[u32],
    opts: &GatherOptions,
    single: &[Vec<P::State>],
    cpu_same: Same<P::State>,
    gpu_same: Same<P::State>,
) where
    P: GatherProgram,
{
    let name = P::NAME;
    for threads in [Some(1), Some(3)] {
        let mut got = Vec::new();
        let o = GatherOptions {
            threads,
            ..opts.clone()
        };
        let stats = cpu::batched::run::<P, u32>(g, &o, sources, collect(&mut got)).unwrap();
        assert_eq!(stats.batches as usize, sources.len().div_ceil(64), "{name}");
        assert_eq!(got.len(), sources.len());
        for (i, &s) in sources.iter().enumerate() {
            assert_eq!(got[i].0, s);
            cpu_same(
                &got[i].1,
                &single[i],
                &format!("{name}: CPU batch, source {s}"),
            );
        }
    }
    for max_blocks in [1, 7] {
        let mut emu = Vec::new();
        let stats =
            emulate_batched::<P, u32>(g, opts, sources, max_blocks, collect(&mut emu)).unwrap();
        assert_eq!(stats.batches as usize, sources.len().div_ceil(64), "{name}");
        for (i, &s) in sources.iter().enumerate() {
            assert_eq!(emu[i].0, s);
            gpu_same(
                &emu[i].1,
                &single[i],
                &format!("{name}: emulated GPU batch ({max_blocks} blocks), source {s}"),
            );
        }
    }
}

/// A frontier-driven hop count from the source (`gather = min`; settled
/// vertices accept nothing).
#[vertex_dsl::vertex_program(gather = min)]
mod hops {
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
    pub fn active(old: State, new: State) -> bool {
        // The source starts the frontier (`active(init, init)`), then vertices
        // reached.
        new < old || new == 0
    }
    pub fn accepts(s: State) -> bool {
        s == u32::MAX
    }
}

/// Bellman–Ford distances as a weighted frontier-driven gather: a vertex may
/// improve in several rounds (no `accepts`).
#[vertex_dsl::vertex_program(gather = min)]
mod bellman_ford {
    pub type State = u32;
    pub type Acc = u32;
    pub type Weight = u32;

    pub fn init(ctx: Ctx) -> State {
        if ctx.vertex == ctx.source {
            0
        } else {
            u32::MAX
        }
    }
    pub fn gather(d: State, w: Weight) -> Acc {
        d.saturating_add(w)
    }
    pub fn apply(_ctx: Ctx, old: State, d: Acc) -> State {
        old.min(d)
    }
    pub fn active(ctx: Ctx, old: State, new: State) -> bool {
        // The source starts the frontier (round 0), then vertices that improved.
        new < old || (new == 0 && ctx.round == 0)
    }
}

/// A dense program that reads its lane's reduction in `apply` and `emit`, and
/// the source: each lane's `Ctx::global` must be its own.
#[vertex_dsl::vertex_program(gather = sum, reduce = max)]
mod global_reader {
    pub type State = f64;
    pub type Msg = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: u32 = 12;

    pub fn init(ctx: Ctx) -> State {
        (ctx.vertex == ctx.source) as u32 as f64
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        s * 0.5 + ctx.global.max(0.0) * 1e-3
    }
    pub fn gather(m: Msg) -> Acc {
        m
    }
    pub fn apply(ctx: Ctx, old: State, sum: Acc) -> State {
        let own = (ctx.vertex == ctx.source) as u32 as f64;
        0.25 * old + 0.5 * sum + own + ctx.global.max(0.0) * 1e-4 * ctx.round as f64
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}

/// The graphs every program runs on: Kronecker, a grid, the small directed
/// graph (a cycle, unreachable and isolated vertices), and a directed graph
/// whose last vertex is isolated and whose vertex 3 has no out-edges.
fn graphs() -> Vec<(&'static str, Graph<u32>)> {
    vec![
        ("kron:9", unweighted("kron:9")),
        ("grid:12x9", unweighted("grid:12x9")),
        ("small directed", small_directed(false)),
        (
            "directed, isolated",
            directed(6, &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 2], [4, 0]]),
        ),
    ]
}

/// A few sources: 0, a repeat, the last vertex (isolated in the directed
/// graphs), and two more.
fn few(g: &Graph<u32>) -> Vec<u32> {
    let n = g.num_vertices() as u32;
    vec![0, n / 2, n - 1, 0, n / 3, n - 1]
}

/// Personalized PageRank by the definition: power iteration of
/// `x = (1 − d)·e_s + d · Σ x_u / deg(u)` over in-edges, to a fixed point.
fn ppr_oracle(g: &Graph<u32>, s: u32) -> Vec<f64> {
    let n = g.num_vertices();
    let (csr, csc) = (g.csr(), g.csc());
    let d = ppr::ppr::DAMPING;
    let mut x = vec![0.0; n];
    x[s as usize] = 1.0;
    for _ in 0..2000 {
        let next: Vec<f64> = (0..n)
            .map(|v| {
                let sum: f64 = csc
                    .neighbors(v as u32)
                    .iter()
                    .map(|&u| x[u as usize] / csr.degree(u) as f64)
                    .sum();
                let teleport = if v == s as usize { 1.0 - d } else { 0.0 };
                teleport + d * sum
            })
            .collect();
        let change: f64 = next.iter().zip(&x).map(|(a, b)| (a - b).abs()).sum();
        x = next;
        if change < 1e-13 {
            break;
        }
    }
    x
}

#[test]
fn personalized_pagerank_batched_equals_one_run_per_source() {
    let opts = GatherOptions::default();
    for (name, g) in graphs() {
        let s = few(&g);
        let single = singles::<ppr::Program>(&g, &s, &opts, false);
        check::<ppr::Program>(&g, &s, &opts, &single, exact, close);
        for (i, &src) in s.iter().enumerate() {
            let oracle = ppr_oracle(&g, src);
            for (v, (x, y)) in single[i].iter().zip(&oracle).enumerate() {
                assert!(
                    (x - y).abs() < 1e-5,
                    "{name}: source {src}, vertex {v}: {x} vs {y}"
                );
            }
        }
        // A round limit and a tolerance given by the caller apply to every lane.
        let cut = GatherOptions {
            max_rounds: Some(3),
            tolerance: Some(1e-3),
            ..GatherOptions::default()
        };
        let single = singles::<ppr::Program>(&g, &s, &cut, false);
        check::<ppr::Program>(&g, &s, &cut, &single, exact, close);
    }
}

#[test]
fn dense_lanes_read_their_own_reduction() {
    let opts = GatherOptions::default();
    for (_, g) in graphs() {
        let s = few(&g);
        let single = singles::<global_reader::Program>(&g, &s, &opts, false);
        check::<global_reader::Program>(&g, &s, &opts, &single, exact, close);
    }
}

#[test]
fn frontier_programs_batched_equal_one_run_per_source() {
    let opts = GatherOptions::default();
    for (_, g) in graphs() {
        let s = few(&g);
        let single = singles::<hops::Program>(&g, &s, &opts, false);
        check::<hops::Program>(&g, &s, &opts, &single, exact, exact);
        let single = singles::<bc_paths::Program>(&g, &s, &opts, true);
        check::<bc_paths::Program>(&g, &s, &opts, &single, exact, close_paths);
        // Push rounds sum in arrival order: equal to rounding.
        let pushed = singles::<bc_paths::Program>(&g, &s, &opts, false);
        check::<bc_paths::Program>(&g, &s, &opts, &pushed, close_paths, close_paths);
    }
}

#[test]
fn weighted_frontier_program_batched() {
    for g in [
        generated("kron:8", true),
        generated("grid:9x7", true),
        small_directed(true),
    ] {
        let s = few(&g);
        let single: Vec<Vec<u32>> = s
            .iter()
            .map(|&src| {
                let o = GatherOptions {
                    source: Some(src),
                    ..GatherOptions::default()
                };
                cpu::run::<bellman_ford::Program, u32>(&g, &o)
                    .unwrap()
                    .states
            })
            .collect();
        for (i, &src) in s.iter().enumerate() {
            let d = vertex_tests::dijkstra(g.csr(), src);
            let d: Vec<u32> = d
                .iter()
                .map(|&x| if x == u64::MAX { u32::MAX } else { x as u32 })
                .collect();
            assert_eq!(single[i], d, "source {src}");
        }
        check::<bellman_ford::Program>(&g, &s, &GatherOptions::default(), &single, exact, exact);
    }
}

#[test]
fn more_than_one_batch() {
    let g = unweighted("grid:9x8");
    let n = g.num_vertices() as u32;
    let sources: Vec<u32> = (0..70).map(|i| (i * 5) % n).collect();
    let opts = GatherOptions::default();
    let single = singles::<ppr::Program>(&g, &sources, &opts, false);
    check::<ppr::Program>(&g, &sources, &opts, &single, exact, close);
    let single = singles::<hops::Program>(&g, &sources, &opts, false);
    check::<hops::Program>(&g, &sources, &opts, &single, exact, exact);
}

#[test]
fn run_call_many_and_batched() {
    let g = small_directed(false);
    let sources = [0u32, 8, 4, 0, 2];
    let single: Vec<Vec<f64>> = sources
        .iter()
        .map(|&s| {
            run::<ppr::Program>(&g)
                .source(s)
                .backend(Backend::Cpu)
                .go()
                .unwrap()
                .values
        })
        .collect();
    let many = run::<ppr::Program>(&g)
        .sources(sources)
        .backend(Backend::Cpu)
        .threads(2)
        .go_many()
        .unwrap();
    assert_eq!(many.values, single);
    assert!(
        many.report.strategy.starts_with("batched"),
        "{:?}",
        many.report
    );
    assert!(many.report.rounds > 0 && many.report.edges > 0);
    // Per batch, no n² values held: the best-scored other vertex per source.
    let mut best = Vec::new();
    run::<hops::Program>(&g)
        .sources(sources)
        .backend(Backend::Cpu)
        .go_batched(|b| {
            for l in 0..b.lanes() {
                let far = (0..g.num_vertices())
                    .map(|v| b.get(v, l))
                    .filter(|&d| d != u32::MAX)
                    .max();
                best.push(far);
            }
            Ok(())
        })
        .unwrap();
    // Eccentricities (by reached hops) of 0, 8 (isolated), 4, 0, 2.
    assert_eq!(best, [Some(3), Some(0), Some(3), Some(3), Some(2)]);
    // `auto` places a batched run as it places a single one (the CPU here: the
    // test crate's programs have no PTX).
    let auto = run::<hops::Program>(&g).sources([1, 2]).go_many().unwrap();
    assert_eq!(auto.report.backend, Backend::Cpu);
}

#[test]
fn what_cannot_batch_is_a_clear_error() {
    let g = unweighted("grid:5x5");
    let opts = GatherOptions::default();
    let err = |r: runtime::Result<runtime::gpu::batched::BatchedStats>| r.unwrap_err().to_string();
    let mut sink = Vec::new();
    let e = err(cpu::batched::run::<ppr::Program, u32>(
        &g,
        &opts,
        &[],
        collect(&mut sink),
    ));
    assert!(e.contains("no sources"), "{e}");
    let e = err(cpu::batched::run::<ppr::Program, u32>(
        &g,
        &opts,
        &[3, 25],
        collect(&mut sink),
    ));
    assert!(e.contains("25") && e.contains("out of range"), "{e}");
    let mut none = Vec::new();
    let e = err(emulate_batched::<hops::Program, u32>(
        &g,
        &opts,
        &[99],
        2,
        collect(&mut none),
    ));
    assert!(e.contains("99"), "{e}");
    assert!(none.is_empty());
    // Programs that read no source, or settings of single runs.
    let e = err(cpu::batched::run::<pagerank::Program, u32>(
        &g,
        &opts,
        &[1],
        collect(&mut sink),
    ));
    assert!(e.contains("source"), "{e}");
    let gs = GatherOptions {
        gauss_seidel: true,
        ..GatherOptions::default()
    };
    let e = err(cpu::batched::run::<ppr::Program, u32>(
        &g,
        &gs,
        &[1],
        collect(&mut sink),
    ));
    assert!(e.contains("Gauss"), "{e}");
    let one = GatherOptions {
        source: Some(1),
        ..GatherOptions::default()
    };
    let e = err(cpu::batched::run::<ppr::Program, u32>(
        &g,
        &one,
        &[1],
        collect(&mut sink),
    ));
    assert!(e.contains("lanes"), "{e}");
    assert!(sink.is_empty());
    // Through the run call.
    let e = run::<ppr::Program>(&g)
        .sources([])
        .backend(Backend::Cpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("no sources"), "{e}");
    let e = run::<ppr::Program>(&g)
        .sources([0, 30])
        .backend(Backend::Cpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("30"), "{e}");
    let e = run::<ppr::Program>(&g)
        .backend(Backend::Cpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("sources"), "{e}");
    let e = run::<hops::Program>(&g)
        .sources([1])
        .backend(Backend::Cpu)
        .schedule(runtime::program::Schedule::Async)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("schedule"), "{e}");
    // A forced GPU without kernels says why.
    let e = run::<hops::Program>(&g)
        .sources([1])
        .backend(Backend::Gpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("GPU kernels") || e.contains("no GPU"), "{e}");
}

fn arb_graph() -> impl Strategy<Value = (EdgeList<u32>, bool)> {
    (1usize..40).prop_flat_map(|n| {
        (
            proptest::collection::vec((0..n as u32, 0..n as u32), 0..120),
            any::<bool>(),
        )
            .prop_map(move |(raw, sym)| {
                let el = EdgeList::<u32> {
                    num_vertices: n,
                    edges: raw.into_iter().map(|(a, b)| [a, b]).collect(),
                    weights: None,
                };
                (el, sym)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_graphs_batched_equal_single(
        (el, sym) in arb_graph(),
        picks in proptest::collection::vec(any::<u32>(), 1..80),
    ) {
        let o = BuildOptions { symmetrize: sym, ..BuildOptions::default() };
        let g = build(&el, o).unwrap();
        let n = g.num_vertices() as u32;
        let sources: Vec<u32> = picks.iter().map(|p| p % n).collect();
        let opts = GatherOptions::default();
        let single = singles::<hops::Program>(&g, &sources, &opts, false);
        check::<hops::Program>(&g, &sources, &opts, &single, exact, exact);
        let single = singles::<ppr::Program>(&g, &sources, &opts, false);
        check::<ppr::Program>(&g, &sources, &opts, &single, exact, close);
    }
}
