//! The one run call (`vertex_dsl::run::<P>(&graph)…go()`) for every program kind,
//! against the sequential oracles, and the settings it refuses. The GPU runs take
//! the GPU when this machine has one and say why not otherwise.

use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use runtime::oracle;
use vertex_dsl::prelude::*;
use vertex_dsl::runtime::run::{Columns, Kind};
use vertex_dsl::{cli::Values, Intersected};
use vertex_examples::programs::{apsp, bfs, kcore, lcc, pagerank, sssp::sssp, triangles};

/// A gather program with a struct state written as `pub struct State`: BFS
/// depths with the smallest parent of each vertex.
#[vertex_program(gather = min)]
pub mod depth_parent {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct State {
        pub depth: u32,
        pub parent: u32,
    }
    pub type Msg = u32;
    pub type Acc = u32;
    pub const NONE: u32 = u32::MAX;
    pub fn init(ctx: Ctx) -> State {
        let depth = if ctx.vertex == ctx.source { 0 } else { NONE };
        State {
            depth,
            parent: NONE,
        }
    }
    /// Vertices reached last round offer themselves as parents.
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        if s.depth == ctx.round {
            ctx.vertex
        } else {
            NONE
        }
    }
    pub fn gather(parent: Msg) -> Acc {
        parent
    }
    pub fn apply(ctx: Ctx, old: State, parent: Acc) -> State {
        if old.depth == NONE && parent != NONE {
            State {
                depth: ctx.round + 1,
                parent,
            }
        } else {
            old
        }
    }
    pub fn active(ctx: Ctx, old: State, new: State) -> bool {
        new != old || (ctx.round == 0 && new.depth == 0)
    }
    pub fn accepts(s: State) -> bool {
        s.depth == NONE
    }
}

fn kron(scale: u32) -> Graph<u32> {
    vertex_dsl::load(&format!("kron:{scale}")).unwrap()
}

fn weighted(spec: &str) -> Graph<u32> {
    let opts = vertex_dsl::LoadOptions {
        random_weights: Some((1, 255, 3)),
        ..Default::default()
    };
    vertex_dsl::load_with(spec, &opts).unwrap()
}

#[test]
fn push_programs_under_every_schedule_match_the_oracle() {
    for g in [kron(10), vertex_dsl::load("grid:40x30").unwrap()] {
        let want = oracle::bfs_levels(g.csr(), 3);
        for s in [Schedule::Sync, Schedule::Async, Schedule::Obim] {
            let r = run::<bfs::Program>(&g)
                .source(3)
                .backend(Backend::Cpu)
                .schedule(s)
                .threads(2)
                .go();
            match (s, r) {
                (_, Ok(out)) => {
                    assert_eq!(out.values, want, "{s:?}");
                    assert_eq!(out.report.kind, Kind::Push);
                    assert_eq!(out.report.threads, 2);
                }
                // obim needs a priority, and bfs has none: refused, saying so.
                (Schedule::Obim, Err(e)) => assert!(e.to_string().contains("priority"), "{e}"),
                (_, Err(e)) => panic!("{s:?}: {e}"),
            }
        }
        // auto picks, and says why.
        let out = run::<bfs::Program>(&g)
            .source(3)
            .backend(Backend::Cpu)
            .go()
            .unwrap();
        assert_eq!(out.values, want);
        assert!(out.report.strategy_reason.is_some());
    }
    let g = weighted("kron:10");
    let want: Vec<u64> = oracle::dijkstra(g.csr(), 0);
    let out = run::<sssp::Program>(&g)
        .source(0)
        .backend(Backend::Cpu)
        .go()
        .unwrap();
    assert_eq!(out.values, want);
    assert_eq!(out.report.strategy, "obim");
}

#[test]
fn the_source_defaults_to_the_first_vertex_with_edges_and_is_checked() {
    let el = EdgeList::<u32> {
        num_vertices: 4,
        edges: vec![[2, 3]],
        weights: None,
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    let out = run::<bfs::Program>(&g).backend(Backend::Cpu).go().unwrap();
    assert_eq!(out.report.source, Some(2));
    assert!(out.report.source_reason.is_some());
    assert_eq!(out.values, [u32::MAX, u32::MAX, 0, 1]);
    let e = run::<bfs::Program>(&g).source(9).go().unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
}

#[test]
fn settings_that_cannot_apply_are_refused() {
    let g = kron(8);
    let e = run::<bfs::Program>(&g)
        .backend(Backend::Cpu)
        .kernel(Kernel::Tiles)
        .go()
        .unwrap_err();
    assert!(e.to_string().contains("GPU settings"), "{e}");
    let e = run::<bfs::Program>(&g).max_rounds(3).go().unwrap_err();
    assert!(e.to_string().contains("push program"), "{e}");
    let e = run::<pagerank::Program>(&g).source(1).go().unwrap_err();
    assert!(e.to_string().contains("takes no source"), "{e}");
    let e = run::<pagerank::Program>(&g).delta(4).go().unwrap_err();
    assert!(e.to_string().contains("gather/apply"), "{e}");
    let e = run::<bfs::Program>(&g).sources([1, 2]).go().unwrap_err();
    assert!(e.to_string().contains("go_each"), "{e}");
    // Beamer's α and β: the GPU direction kernel's, checked wherever the run lands.
    let h = Heuristic {
        alpha: 100,
        beta: 18,
    };
    let e = run::<bfs::Program>(&g)
        .backend(Backend::Cpu)
        .heuristic(h)
        .go()
        .unwrap_err();
    assert!(e.to_string().contains("GPU settings"), "{e}");
    let e = run::<pagerank::Program>(&g).heuristic(h).go().unwrap_err();
    assert!(e.to_string().contains("gather/apply"), "{e}");
    let plan = |heuristic| vertex_dsl::Plan {
        heuristic,
        ..Default::default()
    };
    let json = |p| serde_json::to_value(p).unwrap()["heuristic"].clone();
    assert_eq!(
        json(plan(Some(h))),
        serde_json::json!({"alpha": 100, "beta": 18})
    );
    assert_eq!(json(plan(None)), serde_json::Value::Null);
    let zero = Heuristic { alpha: 0, beta: 18 };
    let e = run::<bfs::Program>(&g).heuristic(zero).go().unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
}

#[test]
fn a_gpu_run_happens_or_says_why_not() {
    let g = kron(10);
    let want = oracle::bfs_levels(g.csr(), 0);
    match run::<bfs::Program>(&g).source(0).backend(Backend::Gpu).go() {
        Ok(out) => {
            assert_eq!(out.values, want);
            assert_eq!(out.report.backend, Backend::Gpu);
            // The second call finds the kernels and the graph on the device.
            let again = run::<bfs::Program>(&g).source(5).backend(Backend::Gpu).go();
            assert_eq!(again.unwrap().values, oracle::bfs_levels(g.csr(), 5));
        }
        Err(e) => assert!(
            matches!(e, runtime::Error::GpuUnavailable(_)),
            "a GPU that cannot run must say why: {e}"
        ),
    }
    let out = run::<bfs::Program>(&g).source(0).go().unwrap();
    assert_eq!(out.values, want);
    if out.report.backend == Backend::Cpu {
        assert!(
            out.report.backend_reason.starts_with("auto: the CPU ("),
            "{}",
            out.report.backend_reason
        );
    }
}

#[test]
fn one_run_per_source() {
    let g = vertex_dsl::load("grid:10x10").unwrap();
    let outs = run::<bfs::Program>(&g)
        .sources([0, 55, 99])
        .backend(Backend::Cpu)
        .go_each()
        .unwrap();
    assert_eq!(outs.len(), 3);
    for (o, s) in outs.iter().zip([0u32, 55, 99]) {
        assert_eq!(o.report.source, Some(s));
        assert_eq!(o.values, oracle::bfs_levels(g.csr(), s));
    }
}

#[test]
fn gather_programs_match_the_oracle() {
    let g = kron(10);
    let out = run::<pagerank::Program>(&g).go().unwrap();
    assert_eq!(out.report.kind, Kind::Gather);
    let residual = oracle::pagerank_residual(g.csr(), &out.values, 0.85);
    assert!(residual < 1e-3, "residual {residual}");

    let u: Graph<u32> = vertex_dsl::load_with(
        "kron:10",
        &vertex_dsl::LoadOptions {
            symmetrize: true,
            ..Default::default()
        },
    )
    .unwrap();
    let cores = run::<kcore::Program>(&u)
        .backend(Backend::Cpu)
        .go()
        .unwrap()
        .values;
    let got: Vec<u32> = cores.iter().map(|p| p.core).collect();
    assert_eq!(got, oracle::core_numbers(u.csr()));
}

#[test]
fn a_struct_state_written_as_a_struct_runs_and_prints_as_columns() {
    let el = EdgeList::<u32> {
        num_vertices: 5,
        edges: vec![[0, 1], [1, 2], [2, 3], [0, 2], [1, 3]],
        weights: None,
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    let out = run::<depth_parent::Program>(&g)
        .source(0)
        .backend(Backend::Cpu)
        .go()
        .unwrap();
    let got: Vec<(u32, u32)> = out.values.iter().map(|s| (s.depth, s.parent)).collect();
    let none = depth_parent::NONE;
    assert_eq!(got, [(0, none), (1, 0), (1, 0), (2, 1), (none, none)]);
    let mut names = Vec::new();
    <depth_parent::State as Columns>::names("", &mut names);
    assert_eq!(names, ["depth", "parent"]);
    let mut text = Vec::new();
    out.values.write_rows("t", &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("\n3 2 1\n4 inf inf\n"), "{text}");
}

#[test]
fn intersection_programs_reduce_per_graph_and_per_vertex() {
    let u: Graph<u32> = vertex_dsl::load_with(
        "kron:9",
        &vertex_dsl::LoadOptions {
            symmetrize: true,
            ..Default::default()
        },
    )
    .unwrap();
    let t = run::<triangles::Program>(&u).go().unwrap();
    assert_eq!(t.report.kind, Kind::Intersect);
    assert_eq!(t.values.total, oracle::triangles(u.csr()));
    let c: Intersected<u64, f64> = run::<lcc::Program>(&u).go().unwrap().values;
    let want = oracle::local_clustering(u.csr());
    assert!(c
        .states
        .iter()
        .zip(&want)
        .all(|(a, b)| (a - b).abs() < 1e-9));
    let e = run::<triangles::Program>(&u).source(0).go().unwrap_err();
    assert!(e.to_string().contains("no source"), "{e}");
}

#[test]
fn semiring_programs_close_over_all_pairs() {
    let el = EdgeList::<i32> {
        num_vertices: 4,
        edges: vec![[0, 1], [1, 2], [2, 3], [0, 3]],
        weights: Some(vec![1, 2, -1, 5]),
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    let m = run::<apsp::Program>(&g)
        .backend(Backend::Cpu)
        .all_pairs()
        .unwrap()
        .values;
    assert_eq!(m.get(0, 3), 2); // 0-1-2-3 beats the direct 5
    assert_eq!(m.get(3, 0), i32::MAX);
    for s in 0..4u32 {
        let row = run::<apsp::Program>(&g)
            .source(s)
            .backend(Backend::Cpu)
            .go()
            .unwrap()
            .values;
        assert_eq!(
            row,
            (0..4).map(|t| m.get(s as usize, t)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn several_gpus_are_refused_where_they_cannot_run() {
    use runtime::gpu::multi::Route;
    let g = kron(8);
    let refused = |e: runtime::Error, starts: &str| {
        let e = e.to_string();
        assert!(e.starts_with(starts), "{e}");
    };
    let e = run::<bfs::Program>(&g).backend(Backend::Cpu).gpus(2);
    refused(e.go().unwrap_err(), "gpus 2:");
    let e = run::<pagerank::Program>(&g).backend(Backend::Cpu).gpus(2);
    refused(e.go().unwrap_err(), "gpus 2:");
    let e = run::<bfs::Program>(&g).gpus(2).kernel(Kernel::Tiles);
    refused(e.go().unwrap_err(), "kernel tiles:");
    let e = run::<bfs::Program>(&g).exchange(Route::Nccl);
    refused(e.go().unwrap_err(), "exchange nccl:");
    let e = run::<bfs::Program>(&g).gpus(1).exchange(Route::Peer);
    refused(e.go().unwrap_err(), "exchange peer:");
    let e = run::<triangles::Program>(&g).gpus(2).go().unwrap_err();
    assert!(e.to_string().contains("intersection"), "{e}");
    let e = run::<bfs::Program>(&g).sources([0, 1]).gpus(2);
    let e = e.go_many::<u32>().unwrap_err();
    assert!(e.to_string().contains("batched"), "{e}");
    let el = EdgeList::<i32> {
        num_vertices: 2,
        edges: vec![[0, 1]],
        weights: Some(vec![1]),
    };
    let w = build(&el, BuildOptions::default()).unwrap();
    let e = run::<apsp::Program>(&w).gpus(2).all_pairs().unwrap_err();
    assert!(e.to_string().contains("all-pairs"), "{e}");
}

#[test]
fn several_gpus_run_or_say_why_not() {
    let g = kron(10);
    // `auto` asked for 2 GPUs takes them or fails: no quiet CPU run.
    for b in [Backend::Gpu, Backend::Auto] {
        match run::<bfs::Program>(&g).source(0).backend(b).gpus(2).go() {
            Ok(out) => {
                assert_eq!(out.values, oracle::bfs_levels(g.csr(), 0));
                assert_eq!(out.report.backend, Backend::Gpu);
                let device = out.report.device.unwrap_or_default();
                assert!(device.starts_with("2 x "), "{device}");
                assert!(
                    out.report.strategy.contains("direction"),
                    "{}",
                    out.report.strategy
                );
            }
            Err(e) => assert!(
                matches!(e, runtime::Error::GpuUnavailable(_)),
                "GPUs that cannot run must say why: {e}"
            ),
        }
    }
}
