//! Ranks as threads of one process, joined over loopback TCP: the protocol,
//! the partitioned generator and the BFS, without GPUs or a launcher.

use std::time::{Duration, Instant};

use super::*;
use crate::generate::Kronecker;
use crate::graph::{build, BuildOptions};

fn free_port() -> u16 {
    threads::free_port().expect("a free loopback port")
}

fn env(rank: usize, world: usize, port: u16, timeout: Duration) -> RankEnv {
    threads::loopback_env(rank, world, port, timeout)
}

/// `f` on every rank of a `world`-rank run (ranks listed in `ranks`; the
/// others never start), each rank's result in rank order.
fn run_ranks<T: Send + 'static>(
    world: usize,
    ranks: &[usize],
    timeout: Duration,
    f: impl Fn(Comm) -> crate::Result<T> + Send + Sync + Clone + 'static,
) -> Vec<crate::Result<T>> {
    threads::run_on_threads(world, ranks, timeout, f).expect("rank threads")
}

/// The edges of a file as listed (weights kept).
fn edges_of(path: &std::path::Path) -> crate::graph::EdgeList<u32> {
    crate::formats::read_edges::<u32>(path, Default::default())
        .unwrap()
        .edges
}

/// The graph the one-process commands build from a file's edges: directed,
/// repeats and self-loops dropped.
fn simple(el: &crate::graph::EdgeList<u32>) -> crate::graph::Graph<u32> {
    let opts = BuildOptions {
        dedup: true,
        remove_self_loops: true,
        ..BuildOptions::default()
    };
    build(el, opts).unwrap()
}

/// BFS from `root` over `world` ranks, each loading its part with `load`;
/// every rank's result validated. Each rank's part and depths, in rank order.
fn bfs_over_ranks(
    world: usize,
    root: u32,
    load: impl Fn(&Comm) -> crate::Result<RankGraph> + Send + Sync + Clone + 'static,
) -> Vec<(RankGraph, RankBfs)> {
    run_ranks(
        world,
        &(0..world).collect::<Vec<_>>(),
        Duration::from_secs(60),
        move |c| {
            let g = load(&c)?;
            let r = bfs(&g, &c, root)?;
            assert_eq!(validate_bfs(&g, &c, root, &r)?, 0, "world {world}");
            Ok((g, r))
        },
    )
    .into_iter()
    .map(|o| o.unwrap())
    .collect()
}

/// The vertex of largest degree (a Kronecker graph's low ids may be isolated).
fn hub(g: &crate::graph::Graph<u32>) -> u32 {
    (0..g.num_vertices() as u32)
        .max_by_key(|&v| g.csr().degree(v))
        .unwrap_or(0)
}

#[test]
fn collectives_carry_every_rank_s_data() {
    for world in 1..=4 {
        let out = run_ranks(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(30),
            |c| {
                let r = c.rank() as u8;
                let all = c.all_gather(&[r; 3])?;
                let sent: Vec<Vec<u8>> = (0..c.world()).map(|d| vec![r, d as u8]).collect();
                let got = c.all_to_all(sent)?;
                let sum = c.all_reduce_sum(c.rank() as u64 + 1)?;
                let min = c.all_reduce_min(10 + c.rank() as u64)?;
                c.barrier()?;
                Ok((all, got, sum, min))
            },
        );
        for (r, o) in out.into_iter().enumerate() {
            let (all, got, sum, min) = o.unwrap();
            assert_eq!(
                all,
                (0..world).map(|s| vec![s as u8; 3]).collect::<Vec<_>>()
            );
            assert_eq!(
                got,
                (0..world)
                    .map(|s| vec![s as u8, r as u8])
                    .collect::<Vec<_>>()
            );
            assert_eq!(sum, (world * (world + 1) / 2) as u64);
            assert_eq!(min, 10);
        }
    }
}

#[test]
fn parts_union_is_the_one_process_graph_and_bfs_matches_the_oracle() {
    let k = Kronecker::graph500(10, 16, 3);
    let whole = build(&k.generate().unwrap(), BuildOptions::undirected()).unwrap();
    let root = hub(&whole);
    let want = crate::oracle::bfs_levels(whole.csr(), root);
    assert!(want.iter().filter(|&&d| d != u32::MAX).count() > 500);
    for world in [1usize, 2, 3, 4] {
        let out = bfs_over_ranks(world, root, |c| {
            kronecker_part(&Kronecker::graph500(10, 16, 3), c, true)
        });
        let mut depths = Vec::new();
        for (g, r) in out {
            for i in 0..g.rows() {
                let v = g.first + i;
                assert_eq!(
                    g.neighbors(v),
                    whole.csr().neighbors(v as u32),
                    "world {world} v {v}"
                );
            }
            assert_eq!(
                r.reached,
                want.iter().filter(|&&d| d != u32::MAX).count() as u64
            );
            depths.extend(r.depth);
        }
        assert_eq!(depths, want, "world {world}");
    }
}

#[test]
fn validation_catches_a_wrong_depth() {
    let root = hub(&build(
        &Kronecker::graph500(10, 16, 3).generate().unwrap(),
        BuildOptions::undirected(),
    )
    .unwrap());
    let out = run_ranks(2, &[0, 1], Duration::from_secs(60), move |c| {
        let g = kronecker_part(&Kronecker::graph500(10, 16, 3), &c, true)?;
        let mut r = bfs(&g, &c, root)?;
        assert!(r.reached > 100);
        if c.rank() == 1 {
            if let Some(d) = r.depth.iter_mut().find(|d| **d != u32::MAX && **d > 1) {
                *d += 2;
            }
        }
        validate_bfs(&g, &c, root, &r)
    });
    for o in out {
        assert!(o.unwrap() > 0);
    }
}

#[test]
fn a_missing_rank_ends_the_rendezvous_with_its_name() {
    let t0 = Instant::now();
    let out = run_ranks(3, &[0, 1], Duration::from_secs(2), |c| c.barrier());
    assert!(t0.elapsed() < Duration::from_secs(30));
    let e0 = out[0].as_ref().unwrap_err().to_string();
    assert!(e0.contains("rank(s) 2 never connected"), "{e0}");
    assert!(out[1].is_err());
}

#[test]
fn a_rank_that_exits_ends_the_others() {
    let t0 = Instant::now();
    let out = run_ranks(3, &[0, 1, 2], Duration::from_secs(20), |c| {
        c.barrier()?;
        if c.rank() == 2 {
            return Err(crate::Error::InvalidArgument("rank 2 gives up".into()));
        }
        c.barrier()
    });
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    let e0 = out[0].as_ref().unwrap_err().to_string();
    assert!(e0.contains("rank 2") && e0.contains("closed"), "{e0}");
    assert!(out[1].is_err());
}

#[test]
fn a_rank_with_another_world_size_is_refused() {
    let port = free_port();
    let t = Duration::from_secs(10);
    let root = std::thread::spawn(move || Comm::connect(&env(0, 2, port, t)).map(|_| ()));
    let leaf = Comm::connect(&env(1, 3, port, t));
    let e = root.join().unwrap().unwrap_err().to_string();
    assert!(e.contains("WORLD_SIZE=3"), "{e}");
    assert!(leaf.is_err());
}

/// A directed edge list with comments, blank lines, repeats and self-loops.
fn edge_file(dir: &std::path::Path, weighted: bool) -> std::path::PathBuf {
    let el = crate::generate::uniform(700, 2500, 9).unwrap();
    let mut text = String::from("# Nodes: 705 (five isolated at the end)\n% a comment\n");
    for (i, [u, v]) in el.edges.iter().enumerate() {
        if i % 97 == 0 {
            text.push_str("\n# between\n");
        }
        if weighted {
            text.push_str(&format!("{u} {v} {}\n", i % 9 + 1));
        } else {
            text.push_str(&format!("{u}\t{v}\n"));
        }
        if i % 50 == 0 {
            let w = if weighted { " 4" } else { "" };
            text.push_str(&format!("{u} {u}{w}\n{u} {v}{w}\n"));
        }
    }
    let p = dir.join(if weighted { "g.wel" } else { "g.el" });
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn edge_list_parts_tile_the_file_and_bfs_follows_edge_directions() {
    let dir = tempfile::tempdir().unwrap();
    for weighted in [false, true] {
        let path = edge_file(dir.path(), weighted);
        let opts = crate::formats::ReadOptions {
            ignore_weights: true,
        };
        let el = crate::formats::read_edges::<u32>(&path, opts)
            .unwrap()
            .edges;
        let whole = simple(&el);
        assert_eq!(whole.num_vertices(), 705);
        let root = hub(&whole);
        let want = crate::oracle::bfs_levels(whole.csr(), root);
        for world in [1usize, 2, 3, 4] {
            let p = path.clone();
            let out = bfs_over_ranks(world, root, move |c| edge_list_part(&p, c, false));
            let mut depths = Vec::new();
            for (g, r) in out {
                assert!(!g.symmetric);
                assert_eq!(g.num_vertices, 705);
                for i in 0..g.rows() {
                    let v = g.first + i;
                    assert_eq!(
                        g.neighbors(v),
                        whole.csc().neighbors(v as u32),
                        "world {world} v {v}"
                    );
                }
                depths.extend(r.depth);
            }
            assert_eq!(depths, want, "world {world}");
        }
    }
}

#[test]
fn a_bad_line_is_named_by_the_rank_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!("{} {}\n", i, (i * 7) % 400));
    }
    text.push_str("12 x\n");
    let path = dir.path().join("bad.el");
    std::fs::write(&path, text).unwrap();
    let p = path.clone();
    let out = run_ranks(3, &[0, 1, 2], Duration::from_secs(20), move |c| {
        edge_list_part(&p, &c, false).map(|_| ())
    });
    let errs: Vec<String> = out
        .iter()
        .filter_map(|o| o.as_ref().err())
        .map(|e| e.to_string())
        .collect();
    assert!(errs.iter().any(|e| e.contains("bad.el:401:")), "{errs:?}");
    assert_eq!(errs.len(), 3, "every rank ends: {errs:?}");
    let gz = dir.path().join("g.el.gz");
    std::fs::write(&gz, b"0 1\n").unwrap();
    let e = crate::formats::read_edge_list_part(&gz, 0, 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gzip"), "{e}");
}

#[test]
fn components_over_ranks_equal_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    // A long path (many rounds without shortcuts), a few small pieces and
    // isolated vertices, listed in one direction only.
    let mut text = String::from("# Nodes: 3000\n");
    for v in (1..2000).rev() {
        text.push_str(&format!("{v} {}\n", v - 1));
    }
    for v in (2100..2400).step_by(3) {
        text.push_str(&format!("{v} {}\n{} {}\n", v + 1, v + 2, v + 1));
    }
    let path = dir.path().join("pieces.el");
    std::fs::write(&path, text).unwrap();
    let el = edges_of(&path);
    let whole = build(&el, BuildOptions::undirected()).unwrap();
    let want = crate::oracle::components(whole.csr());
    for world in [1usize, 2, 3, 4] {
        let p = path.clone();
        let out = run_ranks(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(60),
            move |c| {
                let g = edge_list_part(&p, &c, true)?;
                let r = components(&g, &c)?;
                let bad = validate_components(&g, &c, &r.labels)?;
                Ok((r, bad))
            },
        );
        for o in out {
            let (r, bad) = o.unwrap();
            assert_eq!(bad, 0);
            assert_eq!(r.labels, want, "world {world}");
            assert!(r.rounds < 40, "{} rounds", r.rounds);
            assert_eq!(r.components, 3000 - 1999 - 200);
        }
    }
    // Kronecker, generated by parts.
    let k = Kronecker::graph500(11, 8, 4);
    let want = crate::oracle::components(
        build(&k.generate().unwrap(), BuildOptions::undirected())
            .unwrap()
            .csr(),
    );
    let out = run_ranks(3, &[0, 1, 2], Duration::from_secs(60), move |c| {
        let g = kronecker_part(&Kronecker::graph500(11, 8, 4), &c, true)?;
        components(&g, &c)
    });
    for o in out {
        assert_eq!(o.unwrap().labels, want);
    }
}

#[test]
fn pagerank_over_ranks_equals_the_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let path = edge_file(dir.path(), false);
    let el = edges_of(&path);
    let directed = simple(&el);
    let (want, rounds) = crate::oracle::pagerank(directed.csr(), 0.85, 1e-4, 20);
    let k = Kronecker::graph500(10, 16, 3);
    let kron = simple(&k.generate().unwrap());
    let (want_k, rounds_k) = crate::oracle::pagerank(kron.csr(), 0.85, 1e-4, 20);
    for world in [1usize, 2, 3, 4] {
        let p = path.clone();
        let out = run_ranks(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(60),
            move |c| {
                let part = edge_list_part(&p, &c, false)?;
                let file = pagerank(&part, &c, 0.85, 1e-4, 20)?;
                // The result passes the residual check; a rank off by a
                // thousandth of the total, or dropped degrees, do not.
                let check = validate_pagerank(&part, &c, &file.ranks, 0.85, file.change)?;
                assert!(check.valid, "{check:?}");
                let mut off = file.ranks.clone();
                if c.rank() == 0 {
                    off[0] += 1e-3;
                }
                let bad = validate_pagerank(&part, &c, &off, 0.85, file.change)?;
                assert!(!bad.valid, "{bad:?}");
                let mut flat = file.ranks.clone();
                flat.iter_mut()
                    .for_each(|r| *r = 1.0 / part.num_vertices as f64);
                assert!(!validate_pagerank(&part, &c, &flat, 0.85, file.change)?.valid);
                let gen = pagerank(
                    &kronecker_part(&Kronecker::graph500(10, 16, 3), &c, false)?,
                    &c,
                    0.85,
                    1e-4,
                    20,
                )?;
                Ok((file, gen))
            },
        );
        let (mut got, mut got_k) = (Vec::new(), Vec::new());
        for o in out {
            let (file, gen) = o.unwrap();
            assert_eq!(
                (file.rounds, gen.rounds),
                (rounds, rounds_k),
                "world {world}"
            );
            got.extend(file.ranks);
            got_k.extend(gen.ranks);
        }
        let err = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max)
        };
        assert!(
            err(&got, &want) < 1e-12,
            "world {world}: {}",
            err(&got, &want)
        );
        assert!(
            err(&got_k, &want_k) < 1e-12,
            "world {world}: {}",
            err(&got_k, &want_k)
        );
    }
}

/// A rank's GPU part built from its rows equals the one-process multi-GPU
/// engine's part of the whole graph for the same vertex range: out-slice
/// (edges into the range, by source) and in-edges, on a generated
/// (undirected) graph and a directed file, at 1-4 ranks.
#[test]
fn gpu_rank_parts_equal_the_one_process_parts() {
    use crate::gpu::multi::{part_graph, rank_part_graph, Partition};
    let dir = tempfile::tempdir().unwrap();
    let path = edge_file(dir.path(), false);
    let el = edges_of(&path);
    let directed = simple(&el);
    let k = Kronecker::graph500(9, 8, 5);
    let undirected = build(&k.generate().unwrap(), BuildOptions::undirected()).unwrap();
    for (file, whole) in [(false, undirected), (true, directed)] {
        for world in 1..=4usize {
            let p = path.clone();
            let out = run_ranks(
                world,
                &(0..world).collect::<Vec<_>>(),
                Duration::from_secs(60),
                move |c| match file {
                    true => edge_list_part(&p, &c, false),
                    false => kronecker_part(&Kronecker::graph500(9, 8, 5), &c, true),
                },
            );
            for (rank, g) in out.into_iter().enumerate() {
                let g = g.unwrap();
                let n = whole.num_vertices() as u64;
                let part = Partition::with_span(n, world, g.parts.span() as u64).unwrap();
                assert_eq!(
                    part.range(rank),
                    g.first as u64..(g.first + g.rows()) as u64
                );
                let want = part_graph(&whole, &part, rank).unwrap();
                let got = rank_part_graph(&g, None, None).unwrap();
                for (a, b) in [(&got.out, &want.out), (&got.incoming, &want.incoming)] {
                    assert_eq!(
                        a.offsets(),
                        b.offsets(),
                        "file {file} world {world} rank {rank}"
                    );
                    assert_eq!(
                        a.targets(),
                        b.targets(),
                        "file {file} world {world} rank {rank}"
                    );
                }
                // Hubs first: in-neighbours as the one-process graph orders them.
                if !file {
                    let hubs = whole.clone().hubs_first();
                    let want = part_graph(&hubs, &part, rank).unwrap();
                    let got = rank_part_graph(&g, Some(whole.csr().offsets()), None).unwrap();
                    assert_eq!(got.incoming.targets(), want.incoming.targets());
                }
            }
        }
    }
    // Ranges that do not cover the graph in whole words are refused.
    assert!(Partition::with_span(100, 2, 48).is_err());
    assert!(Partition::with_span(100, 2, 32).is_err());
    assert!(Partition::with_span(100, 2, 64).is_ok());
}

/// Weighted GPU parts carry the one-process weights (pair-keyed random
/// weights, as the CLI assigns them), and the distributed SSSP checks accept
/// Dijkstra's distances and catch a wrong one, at 1-3 ranks.
#[test]
fn weighted_rank_parts_and_sssp_checks() {
    use crate::generate::{edge_weight, weights_for_edges};
    use crate::gpu::multi::{part_graph, rank_part_graph, Partition};
    let k = Kronecker::graph500(9, 8, 5);
    let mut el = k.generate().unwrap();
    el.weights = Some(weights_for_edges::<u32>(&el.edges, 1, 255, 1, true));
    let whole = build(&el, BuildOptions::undirected()).unwrap();
    let root = hub(&whole);
    let want = crate::oracle::dijkstra(whole.csr(), root);
    assert!(want.iter().filter(|&&d| d != u64::MAX).count() > 200);
    for world in 1..=3usize {
        let dists = want.clone();
        let out = run_ranks(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(60),
            move |c| {
                let g = kronecker_part(&Kronecker::graph500(9, 8, 5), &c, true)?;
                let w = |u: u32, v: u32| edge_weight(u, v, 1, 255, 1, true);
                let mine = &dists[g.parts.range(c.rank())];
                let good = validate_sssp(&g, &c, root, mine, w)?;
                let mut wrong = mine.to_vec();
                if let Some(d) = wrong.iter_mut().find(|d| **d != u64::MAX && **d > 0) {
                    *d += 1;
                }
                let bad = validate_sssp(&g, &c, root, &wrong, w)?;
                let found = sssp(&g, &c, root, w)?;
                Ok((g, good, bad, found))
            },
        );
        let mut found = Vec::new();
        for (rank, o) in out.into_iter().enumerate() {
            let (g, good, bad, r) = o.unwrap();
            assert_eq!(good, 0, "world {world}");
            assert!(bad > 0, "world {world}");
            found.extend(r.dist);
            let part =
                Partition::with_span(whole.num_vertices() as u64, world, g.parts.span() as u64)
                    .unwrap();
            let w = |u: u32, v: u32| edge_weight(u, v, 1, 255, 1, true) as u32;
            let got = rank_part_graph(&g, None, Some(&w)).unwrap();
            let want = part_graph(&whole, &part, rank).unwrap();
            assert_eq!(got.out.targets(), want.out.targets());
            assert_eq!(
                got.out.weights(),
                want.out.weights(),
                "world {world} rank {rank}"
            );
        }
        assert_eq!(found, want, "sssp over {world} ranks");
    }
}

/// SSSP over CPU ranks on a directed file (repeats, self-loops, isolated
/// vertices) equals Dijkstra at 1-4 ranks; a source out of range is an error.
#[test]
fn sssp_over_ranks_follows_edge_directions() {
    use crate::generate::{edge_weight, weights_for_edges};
    let dir = tempfile::tempdir().unwrap();
    let path = edge_file(dir.path(), false);
    let mut el = edges_of(&path);
    el.weights = Some(weights_for_edges::<u32>(&el.edges, 1, 40, 1, true));
    let whole = simple(&el);
    let root = hub(&whole);
    let want = crate::oracle::dijkstra(whole.csr(), root);
    for world in 1..=4usize {
        let p = path.clone();
        let out = run_ranks(
            world,
            &(0..world).collect::<Vec<_>>(),
            Duration::from_secs(60),
            move |c| {
                let g = edge_list_part(&p, &c, false)?;
                let w = |u: u32, v: u32| edge_weight(u, v, 1, 40, 1, true);
                let r = sssp(&g, &c, root, w)?;
                assert_eq!(validate_sssp(&g, &c, root, &r.dist, w)?, 0);
                assert!(sssp(&g, &c, 705, w).is_err());
                Ok(r.dist)
            },
        );
        let got: Vec<u64> = out.into_iter().flat_map(|o| o.unwrap()).collect();
        assert_eq!(got, want, "world {world}");
    }
}

/// A `.vgr` snapshot read by rows: on a symmetric one each rank's rows are
/// its own (nothing routed), on a directed one its in-neighbours after
/// routing; BFS over the parts equals the oracle at 1-4 ranks; a truncated
/// file is refused naming it.
#[test]
fn vgr_snapshots_are_read_by_rows() {
    let dir = tempfile::tempdir().unwrap();
    let el = crate::generate::uniform(700, 2500, 9).unwrap();
    let mut with_loops = el.clone();
    with_loops.edges.extend([[3, 3], [5, 9], [5, 9]]);
    let undirected = build(&with_loops, BuildOptions::undirected()).unwrap();
    let directed = build(&el, BuildOptions::default()).unwrap();
    for (name, whole) in [("u.vgr", undirected), ("d.vgr", directed)] {
        let path = dir.path().join(name);
        crate::formats::vgr::save(&whole, &path).unwrap();
        let root = hub(&whole);
        let want = crate::oracle::bfs_levels(whole.csr(), root);
        for world in 1..=4usize {
            let p = path.clone();
            let out = bfs_over_ranks(world, root, move |c| vgr_part(&p, c, false));
            let mut depths = Vec::new();
            for (g, r) in out {
                assert_eq!(g.num_vertices, whole.num_vertices());
                for i in 0..g.rows() {
                    let v = g.first + i;
                    let mut want: Vec<u32> = whole
                        .csc()
                        .neighbors(v as u32)
                        .iter()
                        .copied()
                        .filter(|&u| u as usize != v)
                        .collect();
                    want.sort_unstable();
                    want.dedup();
                    assert_eq!(g.neighbors(v), want, "{name} world {world} v {v}");
                }
                depths.extend(r.depth);
            }
            assert_eq!(depths, want, "{name} world {world}");
        }
    }
    let path = dir.path().join("u.vgr");
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.vgr");
    std::fs::write(&cut, &bytes[..bytes.len() - 8]).unwrap();
    let out = run_ranks(1, &[0], Duration::from_secs(10), move |c| {
        vgr_part(&cut, &c, false).map(|_| ())
    });
    let msg = out[0].as_ref().unwrap_err().to_string();
    assert!(
        msg.contains("cut.vgr") && msg.contains("truncated"),
        "{msg}"
    );
}
