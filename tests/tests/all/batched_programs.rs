//! Any push program from many sources at once (`runtime::cpu::batched`, and the
//! GPU kernels `runtime::gpu::batched` under the host emulator) against one run
//! per source: BFS, SSSP (64- and 32-bit distances) and widest paths on Kronecker,
//! a weighted grid and a directed graph with isolated and unreachable vertices,
//! with repeated sources and more than 64 sources (two batches); and the one run
//! call's `go_many`. Empty and out-of-range source lists are clear errors
//! (programs that cannot batch do not compile: `ui/batched_not_batchable.rs`).

use runtime::gpu::batched::{emulate_batched, LaneStates};
use runtime::gpu::GpuProgram;
use runtime::graph::Graph;
use runtime::program::VertexProgram;
use runtime::run::{run, Backend, Runnable};
use vertex_examples::programs::{bfs, sssp, widest};
use vertex_tests::{generated, small_directed};

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

/// Batched runs (CPU engine, emulated GPU kernels, the run call) equal one
/// single-source run of `P` per source.
fn check<P>(g: &Graph<u32>, sources: &[u32])
where
    P: GpuProgram
        + Runnable<Weight = u32, Output = Vec<<P as VertexProgram>::State>>
        + VertexProgram<Weight = u32>
        + runtime::program::Batchable<LaneState = <P as VertexProgram>::State>,
{
    let single: Vec<Vec<<P as VertexProgram>::State>> = sources
        .iter()
        .map(|&s| {
            run::<P>(g)
                .source(s)
                .backend(Backend::Cpu)
                .go()
                .expect("single run")
                .values
        })
        .collect();
    let mut cpu = Vec::new();
    let stats = runtime::cpu::batched::run::<P>(g, sources, Some(2), collect(&mut cpu)).unwrap();
    assert_eq!(stats.batches as usize, sources.len().div_ceil(64));
    let mut emu = Vec::new();
    emulate_batched::<P>(g, sources, collect(&mut emu)).unwrap();
    let many = run::<P>(g)
        .sources(sources.iter().copied())
        .backend(Backend::Cpu)
        .go_many()
        .unwrap();
    for (i, &s) in sources.iter().enumerate() {
        let name = <P as VertexProgram>::NAME;
        assert_eq!(cpu[i].0, s);
        assert_eq!(cpu[i].1, single[i], "{name}: CPU batch, source {s}");
        assert_eq!(emu[i].0, s);
        assert_eq!(
            emu[i].1, single[i],
            "{name}: emulated GPU batch, source {s}"
        );
        assert_eq!(many.values[i], single[i], "{name}: go_many, source {s}");
    }
    assert!(many.report.strategy.starts_with("batched"));
    assert!(many.report.edges > 0);
}

fn graphs() -> Vec<Graph<u32>> {
    vec![
        generated("kron:8", true),
        generated("grid:9x6", true),
        small_directed(true),
    ]
}

/// A few sources, a repeat, the last vertex (isolated in the directed graph).
fn few(g: &Graph<u32>) -> Vec<u32> {
    let n = g.num_vertices() as u32;
    vec![0, n / 2, n - 1, 0, n / 3]
}

#[test]
fn batched_push_programs_equal_one_run_per_source() {
    for g in graphs() {
        let s = few(&g);
        check::<bfs::Program>(&g, &s);
        check::<sssp::sssp::Program>(&g, &s);
        check::<sssp::sssp32::Program>(&g, &s);
        check::<widest::Program>(&g, &s);
    }
}

#[test]
fn more_than_one_batch() {
    let g = generated("grid:9x8", true);
    let n = g.num_vertices() as u32;
    let sources: Vec<u32> = (0..70).map(|i| (i * 5) % n).collect();
    check::<sssp::sssp32::Program>(&g, &sources);
    check::<bfs::Program>(&g, &sources);
}

#[test]
fn what_cannot_batch_is_a_clear_error() {
    // A program that cannot batch (cc starts from every vertex) is refused at
    // compile time: `ui/batched_not_batchable.rs`.
    let g = generated("grid:5x5", true);
    let e = run::<bfs::Program>(&g)
        .sources([])
        .backend(Backend::Cpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("no sources"), "{e}");
    let e = run::<bfs::Program>(&g)
        .sources([3, 25])
        .backend(Backend::Cpu)
        .go_many()
        .unwrap_err()
        .to_string();
    assert!(e.contains("25"), "{e}");
    let mut none = Vec::new();
    assert!(emulate_batched::<bfs::Program>(&g, &[99], collect(&mut none)).is_err());
}
