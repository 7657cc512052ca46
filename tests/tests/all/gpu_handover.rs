//! The direction kernel's handover to the resident kernel (`auto`'s
//! [`TAIL_HANDOVER`]) on the host emulator: a low-diameter core with a long
//! tail behind it (a path behind a hub, a path hung off a Kronecker graph), from
//! the core and from the tail's far end, against the sequential oracles; and no
//! handover where the small levels are few (Kronecker alone).

use runtime::gpu::auto;
use runtime::gpu::direction::{Handover, TAIL_HANDOVER};
use runtime::gpu::program::{emulate, emulate_direction};
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;
use vertex_tests::{first_with_edges, generated, star_and_path};

/// A Kronecker graph with a path of `tail` vertices hung off its first vertex
/// with edges; weights 1..13.
fn kron_with_tail(tail: u32) -> (Graph<u32>, u32, u32) {
    let core = generated("kron:10:8", false);
    let n = core.num_vertices() as u32;
    let hang = first_with_edges(&core);
    let mut edges: Vec<[u32; 2]> = (0..n)
        .flat_map(|v| core.csr().neighbors(v).iter().map(move |&t| [v, t]))
        .filter(|[a, b]| a < b)
        .collect();
    edges.push([hang, n]);
    edges.extend((n..n + tail - 1).map(|v| [v, v + 1]));
    let el = EdgeList::<u32> {
        num_vertices: (n + tail) as usize,
        weights: Some((0..edges.len() as u32).map(|i| 1 + i % 13).collect()),
        edges,
    };
    let g = build(&el, BuildOptions::undirected()).expect("built");
    (g, hang, n + tail - 1)
}

fn direction(handover: Option<Handover>, levels_per_sync: u32) -> ProgramOptions {
    ProgramOptions {
        kernel: BfsKernel::Direction,
        handover,
        levels_per_sync,
        ..ProgramOptions::default()
    }
}

/// Every BFS-like and label-correcting program through the direction kernel
/// with `h`, both level loops; returns whether BFS handed over.
fn check(g: &Graph<u32>, src: u32, h: Handover) -> bool {
    let levels = oracle::bfs_levels(g.csr(), src);
    let mut handed = None;
    for per_sync in [1, 8] {
        let o = direction(Some(h), per_sync);
        // With in-edges: bottom-up levels before the handover.
        let r =
            emulate_direction::<bfs::Program>(g, src, &ProgramOptions { parents: true, ..o }, 4)
                .unwrap();
        assert_eq!(r.states, levels, "BFS, {per_sync} levels a sync");
        let p = r.parents.unwrap();
        for v in 0..g.num_vertices() {
            if v as u32 == src || levels[v] == oracle::UNREACHED {
                continue;
            }
            let u = p[v];
            assert_eq!(levels[u as usize] + 1, levels[v], "parent of {v}");
            assert!(g.csr().neighbors(u).contains(&(v as u32)));
        }
        let went = r.resident.is_some();
        assert_eq!(*handed.get_or_insert(went), went, "both loops agree");
        if went {
            assert_eq!(
                r.num_levels,
                r.directions.len() as u32 + r.resident.unwrap().rounds
            );
        }
        // The edge-chunk levels hand over the same way.
        for kernel in [BfsKernel::Direction, BfsKernel::Balanced] {
            let o = ProgramOptions { kernel, ..o };
            let what = format!("{kernel:?}, {per_sync} levels a sync");
            let r = emulate::<bfs::Program>(g.csr(), src, &o, 4).unwrap();
            assert_eq!(r.states, levels, "BFS {what}");
            assert_eq!(r.resident.is_some(), went, "BFS {what}");
            let r = emulate::<sssp::sssp::Program>(g.csr(), src, &o, 4).unwrap();
            assert_eq!(r.states, oracle::dijkstra(g.csr(), src), "SSSP {what}");
            let r = emulate::<widest::Program>(g.csr(), src, &o, 4).unwrap();
            assert_eq!(r.states, oracle::widest(g.csr(), src), "widest {what}");
            let r = emulate::<cc::Program>(g.csr(), src, &o, 4).unwrap();
            assert_eq!(r.states, oracle::components(g.csr()), "CC {what}");
        }
    }
    handed.unwrap_or(false)
}

#[test]
fn a_tail_behind_a_hub_goes_to_the_resident_kernel() {
    // Hub 0 with 500 leaves, then a path of 300 levels.
    let g = star_and_path();
    assert!(check(&g, 0, TAIL_HANDOVER));
    // `auto` probes from a hub too big for its edge budget, sees a low
    // diameter, and asks for the handover.
    let mut edges: Vec<[u32; 2]> = (1..=50_000).map(|v| [0, v]).collect();
    edges.extend((50_000..50_300).map(|v| [v, v + 1]));
    let el = EdgeList::<u32> {
        num_vertices: 50_301,
        edges,
        weights: None,
    };
    let g = build(&el, BuildOptions::undirected()).expect("built");
    let c = auto::choose::<bfs::Program>(&g, 0);
    assert_eq!(c.kernel, BfsKernel::Direction, "{}", c.reason);
    assert_eq!(c.handover, Some(TAIL_HANDOVER));
    let r = emulate::<bfs::Program>(g.csr(), 0, &c.options(ProgramOptions::default()), 4).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
    assert!(r.resident.is_some());
    // SSSP gets the edge-chunk levels, with the same handover.
    let gw = {
        let mut el = el.clone();
        el.weights = Some((0..el.edges.len() as u32).map(|i| 1 + i % 9).collect());
        build(&el, BuildOptions::undirected()).expect("built")
    };
    let c = auto::choose::<sssp::sssp::Program>(&gw, 0);
    assert_eq!(c.kernel, BfsKernel::Balanced, "{}", c.reason);
    assert_eq!(c.handover, Some(TAIL_HANDOVER));
    let r = emulate::<sssp::sssp::Program>(gw.csr(), 0, &c.options(ProgramOptions::default()), 4)
        .unwrap();
    assert_eq!(r.states, oracle::dijkstra(gw.csr(), 0));
    assert!(r.resident.is_some());
    // A forced direction kernel runs every level itself.
    let r = emulate::<bfs::Program>(g.csr(), 0, &direction(None, 8), 4).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
    assert!(r.resident.is_none());
}

#[test]
fn kronecker_with_a_tail_from_the_core_and_from_the_tail() {
    let (g, hang, end) = kron_with_tail(200);
    assert!(check(&g, hang, TAIL_HANDOVER));
    // From the tail's far end: 200 small levels, then the whole core on the
    // resident kernel (its wide rounds).
    assert!(check(&g, end, TAIL_HANDOVER));
    // Short runs of small levels with a tiny limit: handed over mid-core.
    let eager = Handover {
        levels: 2,
        frontier: 1,
    };
    check(&g, end, eager);
}

#[test]
fn no_handover_on_kronecker_alone() {
    let g = generated("kron:11:8", true);
    let s = first_with_edges(&g);
    assert!(!check(&g, s, TAIL_HANDOVER));
}
