//! Many sources at once: the batched GPU kernels (`runtime::gpu::msbfs`, run by the
//! host emulator) against one search per source — BFS levels against the CPU's
//! batched BFS and the BFS oracle, betweenness against sequential Brandes — on
//! Kronecker, grid, directed edge lists with isolated and unreachable vertices,
//! repeated sources and batches of more than 64 sources.

use runtime::cpu::msbfs;
use runtime::gpu::msbfs as gpu;
use runtime::graph::Graph;
use vertex_examples::programs::bc;

use vertex_tests::close_scores as close;
use vertex_tests::{betweenness, bfs_levels, directed, unweighted, UNREACHED};

/// Distances from each source (rows) as the batched levels give them.
fn distances_from_levels(n: usize, batch: &[u32], levels: &[msbfs::Level<'_>]) -> Vec<Vec<u32>> {
    let mut d = vec![vec![UNREACHED; n]; batch.len()];
    for lv in levels {
        for &(v, lanes) in lv.reached {
            for (l, row) in d.iter_mut().enumerate() {
                if lanes >> l & 1 != 0 {
                    assert_eq!(
                        row[v as usize], UNREACHED,
                        "vertex {v} listed twice in lane {l}"
                    );
                    row[v as usize] = lv.depth;
                }
            }
        }
    }
    d
}

fn graphs() -> Vec<(&'static str, Graph<u32>)> {
    vec![
        ("kron:9", unweighted("kron:9")),
        ("grid:13x7", unweighted("grid:13x7")),
        ("directed", vertex_tests::small_directed(false)),
    ]
}

fn sources_of(g: &Graph<u32>, k: usize) -> Vec<u32> {
    let n = g.num_vertices() as u32;
    // Spread over the ids, a repeat, and vertex 8 of the directed graph (isolated).
    let mut s: Vec<u32> = (0..k as u32).map(|i| (i * 7919) % n).collect();
    s.push(s[0]);
    s
}

#[test]
fn batched_levels_equal_one_bfs_per_source() {
    for (name, g) in graphs() {
        for k in [1, 5, 70] {
            let sources = sources_of(&g, k);
            // Top-down only, Beamer's rule, bottom-up whenever possible.
            for alpha in [0, gpu::ALPHA, u64::MAX] {
                let mut rows = Vec::new();
                gpu::emulate_levels(&g, &sources, alpha, |batch, levels| {
                    rows.extend(distances_from_levels(g.num_vertices(), batch, levels));
                })
                .unwrap();
                assert_eq!(rows.len(), sources.len());
                for (s, row) in sources.iter().zip(&rows) {
                    assert_eq!(
                        row,
                        &bfs_levels(g.csr(), *s),
                        "{name}: source {s}, α {alpha}"
                    );
                }
            }
            // The CPU's batched BFS agrees level by level too.
            let mut cpu = Vec::new();
            for batch in sources.chunks(msbfs::LANES) {
                msbfs::run(g.csr(), batch, |lv| {
                    let mut r = lv.reached.to_vec();
                    r.sort_unstable();
                    cpu.push((lv.depth, r));
                })
                .unwrap();
            }
            let mut ours = Vec::new();
            gpu::emulate_levels(&g, &sources, gpu::ALPHA, |_, levels| {
                for lv in levels {
                    let mut r = lv.reached.to_vec();
                    r.sort_unstable();
                    ours.push((lv.depth, r));
                }
            })
            .unwrap();
            assert_eq!(ours, cpu, "{name}: {k} sources");
        }
    }
}

#[test]
fn lane_sums_are_each_sources_distance_totals() {
    for (name, g) in graphs() {
        let sources = sources_of(&g, 66);
        let run = gpu::emulate_sums(&g, &sources, u64::MAX).unwrap();
        assert!(run.bottom_up_levels > 0, "{name}: no level ran bottom-up");
        for (s, got) in sources.iter().zip(&run.sums) {
            let d = bfs_levels(g.csr(), *s);
            let reached: Vec<u64> = d
                .iter()
                .filter(|&&x| x != UNREACHED)
                .map(|&x| u64::from(x))
                .collect();
            let inverse: f64 = reached
                .iter()
                .filter(|&&d| d > 0)
                .map(|&d| 1.0 / d as f64)
                .sum();
            assert_eq!(
                got.distance_sum,
                reached.iter().sum::<u64>(),
                "{name}: source {s}"
            );
            assert_eq!(got.reached, reached.len() as u64 - 1, "{name}: source {s}");
            assert_eq!(
                got.deepest,
                reached.iter().copied().max().unwrap_or(0),
                "{name}: source {s}"
            );
            assert!(
                (got.inverse_sum - inverse).abs() <= 1e-9 * inverse.max(1.0),
                "{name}: source {s}"
            );
        }
    }
}

#[test]
fn batched_betweenness_equals_brandes() {
    for (name, g) in graphs() {
        for k in [1, 4, 70] {
            let sources = sources_of(&g, k);
            let got = gpu::emulate_betweenness(&g, &sources).unwrap();
            let expect = betweenness(g.csr(), &sources);
            close(
                &bc::normalize(got.scores),
                &expect,
                &format!("{name}, {k} sources"),
            );
        }
    }
}

/// The CPU's Brandes (`runtime::cpu::brandes`), each engine, at several thread
/// counts.
#[test]
fn cpu_batched_betweenness_equals_brandes() {
    use runtime::cpu::brandes::{betweenness_by, Engine};
    for (name, g) in graphs() {
        for k in [1, 4, 70] {
            let sources = sources_of(&g, k);
            let expect = betweenness(g.csr(), &sources);
            for (threads, engine) in [
                (1, Engine::Auto),
                (2, Engine::Batch),
                (5, Engine::Solo),
                (3, Engine::Auto),
            ] {
                let got = betweenness_by(&g, &sources, Some(threads), engine).unwrap();
                close(
                    &bc::normalize(got),
                    &expect,
                    &format!("{name}, {k} sources, {threads} threads, {engine:?}"),
                );
            }
        }
    }
    // Edge cases: a source without out-edges (vertex 8 of the directed graph is
    // isolated), the same source over and over, no sources, a bad id.
    let g = vertex_tests::small_directed(false);
    for sources in [vec![8], vec![8, 8, 0], vec![3; 65]] {
        let got = runtime::cpu::brandes::betweenness(&g, &sources, Some(2)).unwrap();
        close(
            &bc::normalize(got),
            &betweenness(g.csr(), &sources),
            &format!("{sources:?}"),
        );
    }
    assert!(runtime::cpu::brandes::betweenness(&g, &[], None).is_err());
    assert!(runtime::cpu::brandes::betweenness(&g, &[0, 9], None).is_err());
}

#[test]
fn level_lists_grow_when_full() {
    // 70 sources on a path: every vertex sits at up to 64 distinct depths in one
    // batch, far more entries than the first buffers hold.
    let edges: Vec<[u32; 2]> = (0..2999).map(|v| [v, v + 1]).collect();
    let mut both = edges.clone();
    both.extend(edges.iter().map(|&[a, b]| [b, a]));
    let g = directed(3000, &both);
    let sources: Vec<u32> = (0..70).map(|i| i * 41).collect();
    let got = gpu::emulate_betweenness(&g, &sources).unwrap();
    let expect = betweenness(g.csr(), &sources);
    close(&bc::normalize(got.scores), &expect, "path");
    // The CPU's queue of level entries grows by segments the same way.
    let got = runtime::cpu::brandes::betweenness(&g, &sources, Some(3)).unwrap();
    close(&bc::normalize(got), &expect, "path, cpu");
}

#[test]
fn bad_sources_are_clear_errors() {
    let g = unweighted("grid:4x4");
    let e = gpu::emulate_betweenness(&g, &[]).unwrap_err().to_string();
    assert!(e.contains("no sources"), "{e}");
    let e = gpu::emulate_betweenness(&g, &[3, 16])
        .unwrap_err()
        .to_string();
    assert!(e.contains("16"), "{e}");
}

#[test]
fn bottom_up_only_without_hubs() {
    // A grid-like graph (degree 4 of mean 4) may go bottom-up; a hub of 1000 edges
    // in a graph of mean degree 4 keeps every level top-down.
    assert_eq!(gpu::alpha_for(1000, 4000, 4), gpu::ALPHA);
    assert_eq!(gpu::alpha_for(1000, 4000, 1000), 0);
    assert_eq!(gpu::alpha_for(0, 0, 0), gpu::ALPHA);
}
