//! The sync engine's rounds and the level engine under it: small and large
//! rounds in one run, hubs split over workers, pull after push.

use super::*;

/// The sync engine runs a round on the calling worker alone when its frontier
/// has few edges and lists arrivals as they come, and scans its bitmap when the
/// frontier is large: a Kronecker graph with a long tail has both kinds of
/// round in one run, switching back and forth.
#[test]
fn sync_rounds_small_and_large_in_one_run() {
    let kron = GenSpec::parse("kron:12:16").unwrap().unwrap();
    let mut el = kron.generate().unwrap();
    let n = el.num_vertices as u32;
    let hub = (0..n)
        .max_by_key(|&v| el.edges.iter().filter(|e| e[0] == v).count())
        .unwrap();
    // A 3,000-vertex chain off the hub, and a second Kronecker-sized fan at its end.
    let tail = 3000u32;
    let mut prev = hub;
    for i in 0..tail {
        el.edges.push([prev, n + i]);
        prev = n + i;
    }
    for v in 0..n {
        if v % 3 == 0 {
            el.edges.push([prev, v]);
        }
    }
    el.num_vertices = (n + tail) as usize;
    el.weights = Some(runtime::generate::weights_for_edges::<u32>(
        &el.edges, 1, 255, 7, true,
    ));
    let gw = build(&el, BuildOptions::undirected()).unwrap();
    let unweighted = EdgeList::<u32> {
        weights: None,
        ..el.clone()
    };
    let g = build(&unweighted, BuildOptions::undirected()).unwrap();
    let a = AsyncOptions::default();
    for threads in [1, 2, 4] {
        let o = CpuOptions {
            threads: Some(threads),
            direction: Direction::Push,
        };
        let what = format!("kron:12 + tail, {threads} threads");
        let sssp = cpu::run::<sssp::sssp::Program>(&gw, hub, Schedule::Sync, &o, &a).unwrap();
        assert_eq!(sssp.states, oracle::dijkstra(gw.csr(), hub), "sssp {what}");
        // The chain is walked from both ends (its far end joins the fan).
        assert!(
            sssp.report.rounds > u64::from(tail / 2),
            "{what}: {}",
            sssp.report.rounds
        );
        let w = cpu::run::<widest::Program>(&gw, hub, Schedule::Sync, &o, &a).unwrap();
        assert_eq!(w.states, oracle::widest(gw.csr(), hub), "widest {what}");
        let c = cpu::run::<cc::Program>(&g, hub, Schedule::Sync, &o, &a).unwrap();
        assert_eq!(c.states, oracle::components(g.csr()), "cc {what}");
    }
}

/// The sync engine splits the edges of hubs (out-degree ≥ 8192) over workers:
/// a star with a tail, weighted and not, from the hub and from a leaf.
#[test]
fn sync_splits_hubs() {
    let leaves = 20_000u32;
    let mut edges: Vec<[u32; 2]> = (1..=leaves).map(|v| [0, v]).collect();
    edges.extend((1..50).map(|v| [v, v + 1]));
    let weights: Vec<u32> = (0..edges.len() as u32).map(|i| 1 + i % 97).collect();
    let el = EdgeList {
        num_vertices: leaves as usize + 1,
        edges,
        weights: Some(weights),
    };
    let g = build(
        &el,
        BuildOptions {
            symmetrize: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    for src in [0u32, 7] {
        for t in [1, 4] {
            for direction in [Direction::Push, Direction::Auto] {
                let o = CpuOptions {
                    threads: Some(t),
                    direction,
                };
                let r = cpu::sync::run::<bfs::Program>(&g, src, &o).unwrap();
                assert_eq!(r.states, oracle::bfs_levels(g.csr(), src), "bfs {src} {t}");
                let r = cpu::sync::run::<sssp::sssp::Program>(&g, src, &o).unwrap();
                assert_eq!(r.states, oracle::dijkstra(g.csr(), src), "sssp {src} {t}");
                let r = cpu::sync::run::<cc::Program>(&g, src, &o).unwrap();
                assert_eq!(r.states, oracle::components(g.csr()), "cc {t}");
            }
        }
    }
}

/// The level engine keeps a mask of the vertices a pull level may still change
/// (`remaining`), written by the first pull level and then only narrowed. Two
/// Kronecker blobs joined by a long path make it pull in the first blob, push
/// along the path (reaching vertices the mask still lists) and pull again in
/// the second; directed and undirected, every direction policy, 1–3 threads,
/// sources in both blobs, on the path, and on an isolated vertex.
#[test]
fn level_engine_pulls_again_after_pushing() {
    let blob = generated("kron:11:8", false);
    let nb = blob.num_vertices() as u32;
    let path = 40u32;
    // Blob A: 0..nb, path: nb..nb+path, blob B: nb+path..2nb+path, one isolated
    // vertex at the end.
    let n = 2 * nb + path + 1;
    let mut edges = Vec::new();
    for u in 0..nb {
        for &v in blob.csr().neighbors(u) {
            edges.push([u, v]);
            edges.push([u + nb + path, v + nb + path]);
        }
    }
    // The path leaves blob A at its highest-degree vertex and enters blob B at
    // the same one.
    let hub = (0..nb).max_by_key(|&v| blob.csr().degree(v)).unwrap();
    let mut prev = hub;
    for p in nb..nb + path {
        edges.push([prev, p]);
        prev = p;
    }
    edges.push([prev, hub + nb + path]);
    for symmetrize in [true, false] {
        let el = EdgeList {
            num_vertices: n as usize,
            edges: edges.clone(),
            weights: None,
        };
        let g = build(
            &el,
            BuildOptions {
                symmetrize,
                ..BuildOptions::default()
            },
        )
        .unwrap();
        for src in [hub, nb + path / 2, hub + nb + path, n - 1] {
            let want = oracle::bfs_levels(g.csr(), src);
            for direction in [Direction::Auto, Direction::Pull, Direction::Push] {
                for t in [1, 2, 3] {
                    let o = CpuOptions {
                        threads: Some(t),
                        direction,
                    };
                    let r = cpu::sync::run::<bfs::Program>(&g, src, &o).unwrap();
                    let what = format!("sym {symmetrize} src {src} {direction:?} t{t}");
                    assert_eq!(r.states, want, "{what}");
                    if symmetrize && src == hub && direction == Direction::Auto {
                        // Both blobs were pulled: the mask was reused.
                        assert!(r.report.pull_rounds >= 2, "{what}: {:?}", r.report);
                        assert!(r.report.pull_rounds < r.report.rounds, "{what}");
                    }
                }
            }
        }
    }
}
