//! Kernel logic tested on the host through the emulation launcher, against the
//! sequential oracle — what CI runs in place of a GPU.

use kernels_rs::entry::{self, RawLevel};
use kernels_rs::{combine, Program, ThreadCtx};
use proptest::prelude::*;

use super::direction::{Heuristic, Pull};
use super::emulate::{self, launch};
use super::{BfsCombine, BfsKernel, GpuBfsOptions};
use crate::generate;
use crate::graph::{build, BuildOptions, Csr, EdgeList, Graph};
use crate::{oracle, validate};

fn graph(n: usize, edges: Vec<[u32; 2]>, undirected: bool) -> Csr<u32> {
    let el = EdgeList::<u32> {
        num_vertices: n,
        edges,
        weights: None,
    };
    let opts = if undirected {
        BuildOptions::undirected()
    } else {
        BuildOptions::default()
    };
    build(&el, opts).unwrap().into_csr()
}

fn all_options() -> Vec<GpuBfsOptions> {
    let mut v = Vec::new();
    for kernel in [BfsKernel::Naive, BfsKernel::Balanced, BfsKernel::Direction] {
        for combine in [BfsCombine::Store, BfsCombine::AtomicMin] {
            for (mec, lps) in [(1, 1), (3, 2), (16, 1), (64, 4)] {
                if kernel == BfsKernel::Naive && mec != 16
                    || kernel == BfsKernel::Direction && combine == BfsCombine::AtomicMin
                {
                    continue;
                }
                v.push(GpuBfsOptions {
                    kernel,
                    combine,
                    max_edge_count: mec,
                    parents: true,
                    levels_per_sync: lps,
                    block_size: 32,
                    pull: Pull::Auto,
                    heuristic: Heuristic::DEFAULT,
                });
            }
        }
    }
    v
}

/// Emulated GPU BFS equals the oracle, parents form a valid BFS tree.
fn check(g: &Csr<u32>, source: u32) {
    let want = oracle::bfs(g, source).unwrap();
    for opts in all_options() {
        let got = emulate::bfs(g, source, &opts, 7).unwrap();
        assert_eq!(got.levels, want.levels, "{opts:?} from {source}");
        assert_eq!(got.num_levels, want.num_levels(), "{opts:?}");
        assert_eq!(got.reached, want.reached(), "{opts:?}");
        let parents = got.parents.as_ref().unwrap();
        validate::validate_bfs_tree(g, source, parents, Some(&got.levels))
            .unwrap_or_else(|e| panic!("{opts:?}: {e}"));
        assert_eq!(got.per_level_ms.len() as u32, got.num_levels);
        assert!(got.launched_levels >= got.num_levels);
    }
    check_direction(g, source, &want);
}

/// The direction kernel with bottom-up levels: in-edges from the transpose, and
/// from the CSR itself when the graph is symmetric. Returns how many levels went
/// bottom-up (over all runs).
fn check_direction(g: &Csr<u32>, source: u32, want: &oracle::BfsTree) -> usize {
    let t = g.transpose();
    let symmetric = t.offsets() == g.offsets() && t.targets() == g.targets();
    let mut bottom_up = 0;
    for sym in [false, true] {
        if sym && !symmetric {
            continue;
        }
        let graph = Graph::new(g.clone(), sym);
        // α = 1: bottom-up only once the frontier holds more edges than are
        // left; α = u64::MAX: from the first level with any edges.
        let d = Heuristic::DEFAULT;
        let late = Heuristic { alpha: 1, ..d };
        let early = Heuristic {
            alpha: u64::MAX,
            ..d
        };
        let mut by_alpha = [0usize; 3];
        for (mec, pull, lps, heuristic) in [
            (1, Pull::Auto, 1, d),
            (1, Pull::Auto, 2, d),
            (5, Pull::Auto, 3, d),
            (32, Pull::Auto, 1, d),
            (32, Pull::Auto, 8, d),
            (32, Pull::Never, 1, d),
            (32, Pull::Never, 8, d),
            (32, Pull::Auto, 1, late),
            (32, Pull::Auto, 8, late),
            (32, Pull::Auto, 1, early),
            (32, Pull::Auto, 8, early),
        ] {
            let opts = GpuBfsOptions {
                kernel: BfsKernel::Direction,
                max_edge_count: mec,
                parents: true,
                block_size: 32,
                pull,
                levels_per_sync: lps,
                heuristic,
                ..GpuBfsOptions::default()
            };
            let got = emulate::bfs_direction(&graph, source, &opts, 5).unwrap();
            // Levels planned on the device take the host loop's directions.
            let host = GpuBfsOptions {
                levels_per_sync: 1,
                ..opts
            };
            let want_log = emulate::bfs_direction(&graph, source, &host, 5).unwrap();
            assert_eq!(got.directions, want_log.directions, "{opts:?}");
            if lps > 1 {
                // One wait per batch of `lps` levels; the last may run past the end.
                assert_eq!(got.syncs, got.num_levels.div_ceil(lps), "{opts:?}");
                assert_eq!(got.launched_levels, got.syncs * lps, "{opts:?}");
            } else {
                assert_eq!(got.syncs, got.num_levels, "{opts:?}");
            }
            assert_eq!(
                got.levels, want.levels,
                "{opts:?} symmetric {sym} from {source}"
            );
            assert_eq!(got.num_levels, want.num_levels(), "{opts:?}");
            let parents = got.parents.as_ref().unwrap();
            validate::validate_bfs_tree(g, source, parents, Some(&got.levels))
                .unwrap_or_else(|e| panic!("{opts:?} symmetric {sym}: {e}"));
            assert_eq!(got.directions.len() as u32, got.num_levels);
            if pull == Pull::Never {
                assert!(got.directions.iter().all(|d| !d.bottom_up));
            }
            let pulled = got.directions.iter().filter(|d| d.bottom_up).count();
            bottom_up += pulled;
            if (mec, pull, lps) == (32, Pull::Auto, 8) {
                by_alpha[[late, d, early]
                    .iter()
                    .position(|&h| h == heuristic)
                    .unwrap()] = pulled;
            }
        }
        // A larger α goes bottom-up sooner, so at least as many levels pull.
        assert!(
            by_alpha[0] <= by_alpha[1] && by_alpha[1] <= by_alpha[2],
            "bottom-up levels by α 1 / 15 / max: {by_alpha:?}"
        );
    }
    bottom_up
}

#[test]
fn kronecker_matches_oracle() {
    let el = generate::kronecker(10, 16, 3).unwrap();
    let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
    let src = (0..g.num_vertices() as u32)
        .find(|&v| g.degree(v) > 0)
        .unwrap();
    check(&g, src);
    let want = oracle::bfs(&g, src).unwrap();
    assert!(
        check_direction(&g, src, &want) > 0,
        "no level went bottom-up"
    );
    // Edges traversed = sum of degrees of the reached vertices.
    let r = emulate::bfs(&g, src, &GpuBfsOptions::default(), 16).unwrap();
    let want: u64 = (0..g.num_vertices() as u32)
        .filter(|&v| r.levels[v as usize] != u32::MAX)
        .map(|v| g.degree(v))
        .sum();
    assert_eq!(r.edges_traversed, want);
}

#[test]
fn grid_isolated_and_single_vertex() {
    let el = generate::grid(17, 9, 1).unwrap();
    let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
    let mut g_unweighted_edges = Vec::new();
    for u in 0..g.num_vertices() as u32 {
        for &v in g.neighbors(u) {
            g_unweighted_edges.push([u, v]);
        }
    }
    let g = graph(g.num_vertices(), g_unweighted_edges, false);
    check(&g, 0);
    check(&g, 77);
    // Isolated vertices, including the last ones (zero-degree runs in SV walks).
    let g = graph(12, vec![[0, 3], [3, 7], [7, 8], [2, 9]], true);
    check(&g, 0);
    check(&g, 5);
    check(&g, 11);
    let g = graph(1, vec![], false);
    check(&g, 0);
}

#[test]
fn high_degree_vertex_spans_many_chunks() {
    // A star with a tail: vertex 0 has 300 edges, split across chunks.
    let mut edges: Vec<[u32; 2]> = (1..301).map(|v| [0, v]).collect();
    edges.push([300, 301]);
    edges.push([301, 302]);
    let g = graph(303, edges, true);
    check(&g, 0);
    check(&g, 302);
}

#[test]
fn sv_matches_direct_computation() {
    let el = generate::kronecker(8, 8, 5).unwrap();
    let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
    let m = g.num_edges();
    for mec in [1u64, 2, 5, 16, 100, 10_000] {
        let nchunks = kernels_rs::skeleton::num_chunks(m, mec) as usize;
        let mut sv = vec![u32::MAX; nchunks];
        let n = g.num_vertices() as u64;
        let (offs, svp) = (g.offsets().as_ptr() as usize, sv.as_mut_ptr() as usize);
        launch(3, 32, |t| {
            // SAFETY: offsets has n + 1 entries, sv `nchunks` (atomic writes).
            unsafe {
                entry::build_sv(
                    t,
                    n,
                    offs as *const u64,
                    mec,
                    svp as *mut u32,
                    nchunks as u64,
                )
            }
        });
        for (i, &v) in sv.iter().enumerate() {
            let e = i as u64 * mec;
            assert!(
                g.offsets()[v as usize] <= e && e < g.offsets()[v as usize + 1],
                "mec {mec} chunk {i}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_graphs_match_oracle(
        n in 1usize..60,
        raw in proptest::collection::vec((0u32..60, 0u32..60), 0..200),
        directed in any::<bool>(),
        src in 0u32..60,
    ) {
        let edges: Vec<[u32; 2]> = raw.into_iter().map(|(a, b)| [a % n as u32, b % n as u32]).collect();
        let g = graph(n, edges, !directed);
        check(&g, src % n as u32);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let g = graph(3, vec![[0, 1]], true);
    assert!(emulate::bfs(&g, 3, &GpuBfsOptions::default(), 4).is_err());
    let zero = GpuBfsOptions {
        max_edge_count: 0,
        ..Default::default()
    };
    assert!(emulate::bfs(&g, 0, &zero, 4).is_err());
    for (alpha, beta) in [(0, 18), (15, 0)] {
        let h = GpuBfsOptions {
            kernel: BfsKernel::Direction,
            heuristic: Heuristic { alpha, beta },
            ..Default::default()
        };
        let e = h.validate().unwrap_err().to_string();
        assert!(e.contains("at least 1"), "{e}");
    }
}

#[test]
fn device_without_driver_is_gpu_unavailable() {
    if super::cuda::driver_present() {
        return; // a machine with a driver: covered by the device tests instead
    }
    match super::Device::open(0) {
        Err(crate::Error::GpuUnavailable(msg)) => assert!(!msg.is_empty()),
        Err(e) => panic!("expected GpuUnavailable, got {e}"),
        Ok(_) => panic!("opened a GPU without a driver"),
    }
}

/// A weighted min-plus program (Bellman-Ford SSSP) with the explicit frontier:
/// shows the skeletons are generic — what `#[vertex_program]` will instantiate.
struct Sssp;
impl Program for Sssp {
    type State = u64;
    type Weight = u32;
    fn init(v: u32, source: u32) -> u64 {
        if v == source {
            0
        } else {
            u64::MAX
        }
    }
    fn is_active(_: u64, _: u32) -> bool {
        unreachable!("SSSP uses the explicit frontier")
    }
    fn relax(d: u64, w: u32, _iter: u32) -> Option<u64> {
        Some(d + w as u64)
    }
    fn combine(slot: &core::sync::atomic::AtomicU64, cand: u64) -> bool {
        combine::min::<u64>(slot, cand)
    }
    fn improves(d: u64, cand: u64) -> bool {
        cand < d
    }
}

fn dijkstra(g: &Csr<u32>, w: &[u32], s: u32) -> Vec<u64> {
    use std::cmp::Reverse;
    let mut dist = vec![u64::MAX; g.num_vertices()];
    let mut heap = std::collections::BinaryHeap::new();
    dist[s as usize] = 0;
    heap.push(Reverse((0u64, s)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.targets()[e] as usize;
            let nd = d + w[e] as u64;
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Reverse((nd, v as u32)));
            }
        }
    }
    dist
}

#[test]
fn weighted_program_with_flag_frontier_on_both_kernels() {
    let el = generate::kronecker(9, 8, 11).unwrap();
    let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
    let m = g.num_edges() as usize;
    let w: Vec<u32> = (0..m)
        .map(|e| (generate::rng::mix64(e as u64) % 50 + 1) as u32)
        .collect();
    let n = g.num_vertices();
    let src = (0..n as u32).find(|&v| g.degree(v) > 0).unwrap();
    let want = dijkstra(&g, &w, src);
    for balanced in [false, true] {
        let mec = 5u64;
        let nchunks = kernels_rs::skeleton::num_chunks(m as u64, mec);
        let mut sv = vec![0u32; nchunks as usize];
        let mut dist = vec![0u64; n];
        let mut cur = vec![0u32; n];
        let mut next = vec![0u32; n];
        let mut flags = vec![1u32, 0, 0];
        let ptr = |p: *const u8| p as usize;
        let (offs, tg, wt) = (
            ptr(g.offsets().as_ptr().cast()),
            ptr(g.targets().as_ptr().cast()),
            ptr(w.as_ptr().cast()),
        );
        let (dp, svp) = (dist.as_mut_ptr() as usize, sv.as_mut_ptr() as usize);
        launch(2, 32, |t: ThreadCtx| {
            // SAFETY: n-element buffer, atomic writes.
            unsafe { entry::init::<Sssp>(t, n as u64, src, dp as *mut u64, std::ptr::null_mut()) }
        });
        launch(2, 32, |t| {
            // SAFETY: n + 1 offsets, nchunks SV slots.
            unsafe {
                entry::build_sv(
                    t,
                    n as u64,
                    offs as *const u64,
                    mec,
                    svp as *mut u32,
                    nchunks,
                )
            }
        });
        cur[src as usize] = 1;
        let mut iter = 0u32;
        loop {
            let (cp, np, fp) = (
                cur.as_mut_ptr() as usize,
                next.as_mut_ptr() as usize,
                flags.as_mut_ptr() as usize,
            );
            let slot_in = iter % 3;
            let slot_out = (iter + 1) % 3;
            launch(3, 32, |t| {
                let a = RawLevel::<Sssp> {
                    n: n as u64,
                    m: m as u64,
                    offsets: offs as *const u64,
                    targets: tg as *const u32,
                    weights: wt as *const u32,
                    state: dp as *mut u64,
                    parents: std::ptr::null_mut(),
                    frontier_current: cp as *mut u32,
                    frontier_next: np as *mut u32,
                    flags: fp as *mut u32,
                    nflags: 3,
                    slot_in,
                    slot_out,
                    iter,
                };
                // SAFETY: every buffer lives for the launch with the documented length.
                unsafe {
                    if balanced {
                        entry::balanced::<Sssp>(t, a, svp as *const u32, nchunks, mec)
                    } else {
                        entry::naive::<Sssp>(t, a)
                    }
                }
            });
            if flags[slot_out as usize] == 0 {
                break;
            }
            std::mem::swap(&mut cur, &mut next);
            iter += 1;
            assert!(iter < 10 * n as u32, "no convergence");
        }
        assert_eq!(dist, want, "balanced = {balanced}");
    }
}
