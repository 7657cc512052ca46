//! Closeness and harmonic centrality as networkx defines them, from batches of
//! 64 breadth-first searches sharing their edge visits ([`crate::cpu::msbfs`]).
//!
//! networkx (`closeness_centrality`, `harmonic_centrality`) measures distances
//! *to* a vertex: on a directed graph the searches run on the transpose. For a
//! vertex `u` reaching `r` vertices (itself included) at total distance `d` in
//! a graph of `n` vertices, closeness is `(r − 1) / d`, scaled by
//! `(r − 1) / (n − 1)` (Wasserman and Faust's correction for graphs that are
//! not connected, networkx's `wf_improved=True`), and 0 when `d = 0`; harmonic
//! centrality is `Σ 1/d(v, u)` over the vertices `v ≠ u` that reach it.
//!
//! Each batch keeps 64 running sums, not distances: an exact all-vertices run
//! needs `O(n)` memory and `n/64` sweeps over the edges.
//!
//! On graphs that are not small worlds the vertices go into batches as balls
//! of nearby vertices ([`crate::ball_batches`]), the scores coming back in the
//! caller's order: on grids and meshes a batch in id order reaches a vertex at
//! up to 64 depths and expands it as often (grid:300x300, exact: 54.5
//! expansions per vertex a batch in id order, 12.9 in balls; mesh:90000: 45.8
//! and 8.1).

use rayon::prelude::*;

use crate::ball_batches::{BallBatches, Batching};
use crate::cpu::msbfs::{self, LANES};
use crate::error::Result;
use crate::graph::{Graph, Weight};

/// Which centrality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// networkx `closeness_centrality(G)` (with `wf_improved=True`).
    Closeness,
    /// networkx `harmonic_centrality(G)`.
    Harmonic,
}

/// The centrality of each of `vertices` in `g` (networkx's definitions, see the
/// module docs), in the same order, with `threads` workers (or the global
/// pool).
pub fn centrality<W: Weight>(
    g: &Graph<W>,
    vertices: &[u32],
    measure: Measure,
    threads: Option<usize>,
) -> Result<Vec<f64>> {
    centrality_with(g, vertices, measure, threads, Batching::Auto)
}

/// [`centrality`] with the sources cut into batches as `batching` says: the
/// scores are the same either way (each lane's totals add the same counts
/// level by level), only the work differs (see [`crate::ball_batches`]).
pub fn centrality_with<W: Weight>(
    g: &Graph<W>,
    vertices: &[u32],
    measure: Measure,
    threads: Option<usize>,
    batching: Batching,
) -> Result<Vec<f64>> {
    let n = g.num_vertices();
    for &v in vertices {
        crate::program::check_source(v, n)?;
    }
    let csr = searched(g);
    let balls = BallBatches::with(g, vertices, batching);
    let (scores, _) = crate::cpu::in_pool(threads, || -> Result<Vec<f64>> {
        if !crate::shape::small_world(g) {
            return side_by_side(csr, &balls.sources, measure, n);
        }
        let batches: Vec<Result<Vec<f64>>> = balls
            .sources
            .chunks(LANES)
            .map(|batch| {
                let mut reached = [0u64; LANES];
                let mut total = [0f64; LANES];
                // The searched graph's in-edges: `g`'s own CSR either way (the
                // transpose's transpose when directed).
                msbfs::run_with(csr, Some(g.csr()), batch, |level| {
                    if level.depth == 0 {
                        return; // the vertex itself: distance 0, counted below
                    }
                    let (count, sum) = per_lane(level.reached, level.depth, measure);
                    for i in 0..batch.len() {
                        reached[i] += count[i];
                        total[i] += sum[i];
                    }
                })?;
                Ok((0..batch.len())
                    .map(|i| score(measure, reached[i] + 1, total[i], n))
                    .collect())
            })
            .collect();
        batches.into_iter().try_fold(Vec::new(), |mut all, b| {
            all.extend(b?);
            Ok(all)
        })
    })?;
    Ok(balls.back(scores?))
}

/// Distances to a vertex are distances from it on the transpose: the CSR the
/// searches walk.
fn searched<W: Weight>(g: &Graph<W>) -> &crate::graph::Csr<W> {
    if g.is_symmetric() {
        g.csr()
    } else {
        g.csc()
    }
}

/// Scores from each vertex's per-search totals (the GPU's reduction).
fn from_sums(measure: Measure, sums: &[crate::gpu::msbfs::LaneSums], n: usize) -> Vec<f64> {
    sums.iter()
        .map(|s| {
            let total = match measure {
                Measure::Closeness => s.distance_sum as f64,
                Measure::Harmonic => s.inverse_sum,
            };
            score(measure, s.reached + 1, total, n)
        })
        .collect()
}

/// [`centrality`] on the GPU: batches of 64 searches on the device
/// ([`crate::gpu::msbfs`]), reduced there to per-vertex totals, so only 4 words
/// per scored vertex come back. `progress` gets the vertices done after each
/// batch. Returns the scores and the kernel time in ms (the upload excluded).
pub fn centrality_gpu<W: Weight>(
    dev: &crate::gpu::Device,
    k: &crate::gpu::msbfs::MsbfsKernels,
    g: &Graph<W>,
    vertices: &[u32],
    measure: Measure,
    batching: Batching,
    progress: impl FnMut(usize),
) -> Result<(Vec<f64>, f64)> {
    // The searched graph with its in-edges, so large levels can go bottom-up.
    let transposed = (!g.is_symmetric()).then(|| g.transposed());
    let dg = dev.upload_traversal(transposed.as_ref().unwrap_or(g), false)?;
    let balls = BallBatches::with(g, vertices, batching);
    let run = dev.msbfs_sums(k, &dg, &balls.sources, progress)?;
    let scores = from_sums(measure, &run.sums, g.num_vertices());
    Ok((balls.back(scores), run.time_ms))
}

/// [`centrality_gpu`] with the GPU kernels under the host emulator (tests).
pub fn centrality_emulated<W: Weight>(
    g: &Graph<W>,
    vertices: &[u32],
    measure: Measure,
    batching: Batching,
) -> Result<Vec<f64>> {
    let transposed = (!g.is_symmetric()).then(|| g.transposed());
    let searched = transposed.as_ref().unwrap_or(g);
    let balls = BallBatches::with(g, vertices, batching);
    let run = crate::gpu::msbfs::emulate_sums(searched, &balls.sources, crate::gpu::msbfs::ALPHA)?;
    Ok(balls.back(from_sums(measure, &run.sums, g.num_vertices())))
}

/// Per lane: the vertices of this level it reached, and what they add (the
/// depth each, or its inverse for harmonic centrality).
fn per_lane(reached: &[(u32, u64)], depth: u32, measure: Measure) -> ([u64; LANES], [f64; LANES]) {
    let counts = reached
        .par_iter()
        .fold(
            || [0u64; LANES],
            |mut c, &(_, bits)| {
                msbfs::each_lane(bits, |l| c[l] += 1);
                c
            },
        )
        .reduce(
            || [0u64; LANES],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    let weight = depth_weight(measure, depth);
    (counts, counts.map(|c| c as f64 * weight))
}

/// What a vertex at distance `depth` adds to a total: the distance, or its
/// inverse for harmonic centrality.
fn depth_weight(measure: Measure, depth: u32) -> f64 {
    match measure {
        Measure::Closeness => f64::from(depth),
        Measure::Harmonic => 1.0 / f64::from(depth),
    }
}

/// [`centrality`] on sparse graphs (not a [`crate::shape::small_world`]:
/// grids, roads, meshes): batches run side by side, one per worker at a time,
/// each on its thread alone ([`msbfs::run_serial`]: plain words, no fork-join
/// per level). Searches from different sources of such graphs reach a vertex at
/// different depths, so a batch shares few edge visits, while its thousands of
/// small levels, each split over the pool, cost more than their edges. Batches
/// hold at most [`LANES`] sources and are cut smaller when there are too few to
/// keep every worker busy.
fn side_by_side<W: Weight>(
    csr: &crate::graph::Csr<W>,
    vertices: &[u32],
    measure: Measure,
    n: usize,
) -> Result<Vec<f64>> {
    let workers = rayon::current_num_threads();
    let size = vertices.len().div_ceil(workers).clamp(1, LANES);
    vertices
        .par_chunks(size)
        .with_max_len(1)
        .map(|batch| {
            let mut reached = [0u64; LANES];
            let mut total = [0f64; LANES];
            msbfs::run_serial(csr, batch, |level| {
                if level.depth == 0 {
                    return;
                }
                let w = depth_weight(measure, level.depth);
                for &(_, bits) in level.reached {
                    msbfs::each_lane(bits, |l| {
                        reached[l] += 1;
                        total[l] += w;
                    });
                }
            })?;
            Ok((0..batch.len())
                .map(|i| score(measure, reached[i] + 1, total[i], n))
                .collect::<Vec<f64>>())
        })
        .collect::<Result<Vec<Vec<f64>>>>()
        .map(|b| b.concat())
}

/// networkx's formula for a vertex reaching `reached` vertices (itself
/// included) at a total of `total` (distances, or inverse distances).
fn score(measure: Measure, reached: u64, total: f64, n: usize) -> f64 {
    match measure {
        Measure::Harmonic => total,
        Measure::Closeness if total > 0.0 && n > 1 => {
            let r = (reached - 1) as f64;
            (r / total) * (r / (n - 1) as f64)
        }
        Measure::Closeness => 0.0,
    }
}

/// One BFS per vertex (the definition, for tests and `--validate`).
pub fn oracle<W: Weight>(g: &Graph<W>, vertices: &[u32], measure: Measure) -> Vec<f64> {
    let csr = if g.is_symmetric() { g.csr() } else { g.csc() };
    let n = g.num_vertices();
    vertices
        .par_iter()
        .map(|&u| {
            let d = crate::oracle::bfs_levels(csr, u);
            let reach: Vec<u32> = d.into_iter().filter(|&x| x != u32::MAX).collect();
            let total: f64 = match measure {
                Measure::Closeness => reach.iter().map(|&x| f64::from(x)).sum(),
                Measure::Harmonic => reach
                    .iter()
                    .filter(|&&x| x > 0)
                    .map(|&x| 1.0 / f64::from(x))
                    .sum(),
            };
            score(measure, reach.len() as u64, total, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList, Graph};

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                "vertex {i}: {x} vs {y}"
            );
        }
    }

    #[test]
    fn batches_match_one_bfs_per_vertex() {
        for spec in ["kron:9", "grid:12x11"] {
            let g = crate::load::load_graph::<u32>(spec, &Default::default())
                .unwrap()
                .graph;
            let all: Vec<u32> = (0..g.num_vertices() as u32).collect();
            for m in [Measure::Closeness, Measure::Harmonic] {
                let want = oracle(&g, &all, m);
                close(&centrality(&g, &all, m, Some(2)).unwrap(), &want);
                // Fewer sources than a batch per worker: batches cut smaller.
                let few = [7, 3, 7, 100, 0];
                close(
                    &centrality(&g, &few, m, Some(3)).unwrap(),
                    &oracle(&g, &few, m),
                );
                // The GPU kernels (emulated) reduce the same totals on the device.
                close(
                    &centrality_emulated(&g, &all, m, Batching::Auto).unwrap(),
                    &want,
                );
            }
        }
    }

    /// A directed graph with a few components, isolated vertices and
    /// one-way edges: the `u < v` half of a grid's edges, another grid beside
    /// it, 7 vertices with no edge.
    fn directed_parts() -> Graph<u32> {
        let a = crate::load::load_graph::<u32>("grid:15x12", &Default::default())
            .unwrap()
            .graph;
        let n = a.num_vertices() as u32;
        let mut edges = Vec::new();
        for v in 0..n {
            for &u in a.csr().neighbors(v) {
                if v < u {
                    edges.push([v, u]);
                }
                // A second copy, both ways, after the first.
                edges.push([n + v, n + u]);
            }
        }
        let el = EdgeList::<u32> {
            num_vertices: 2 * n as usize + 7,
            edges,
            weights: None,
        };
        let opts = BuildOptions {
            symmetrize: false,
            ..Default::default()
        };
        build(&el, opts).unwrap()
    }

    /// Balls and the order given give the same scores, in the caller's order:
    /// bit for bit on the CPU (each lane adds the same counts level by level),
    /// and the emulated GPU kernels agree with them (their f64 sums of inverse
    /// distances add up in any order: to 1e-12).
    #[test]
    fn ball_batches_change_no_score() {
        let graphs = [
            ("grid:30x20", load("grid:30x20")),
            ("mesh:700", load("mesh:700")),
            ("directed parts", directed_parts()),
            // A small world: balls only when asked for.
            ("kron:9", load("kron:9")),
        ];
        for (name, g) in &graphs {
            let n = g.num_vertices() as u32;
            let all: Vec<u32> = (0..n).collect();
            // Repeats, and an order of the caller's own.
            let mixed: Vec<u32> = (0..n).rev().step_by(3).chain([5, 5, 0, n - 1, 5]).collect();
            for vertices in [&all, &mixed] {
                assert_eq!(
                    crate::ball_batches::BallBatches::new(g, vertices).reordered(),
                    !crate::shape::small_world(g),
                    "{name}"
                );
                for m in [Measure::Closeness, Measure::Harmonic] {
                    let run = |b| centrality_with(g, vertices, m, Some(2), b).unwrap();
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    let given = run(Batching::Given);
                    for b in [Batching::Auto, Batching::Balls] {
                        assert_eq!(bits(&run(b)), bits(&given), "{name} {m:?} {b:?}");
                        close(&centrality_emulated(g, vertices, m, b).unwrap(), &given);
                    }
                    close(&given, &oracle(g, vertices, m));
                }
            }
        }
    }

    fn load(spec: &str) -> Graph<u32> {
        crate::load::load_graph::<u32>(spec, &Default::default())
            .unwrap()
            .graph
    }

    /// networkx's definitions worked by hand on a directed graph of 5 vertices
    /// with an isolated one: 3 → 0 → 1 → 2 and 0 → 2.
    #[test]
    fn directed_graphs_use_distances_to_the_vertex() {
        let el = EdgeList::<u32> {
            num_vertices: 5,
            edges: vec![[0, 1], [1, 2], [0, 2], [3, 0]],
            weights: None,
        };
        let g = build(&el, BuildOptions::default()).unwrap();
        let all: Vec<u32> = (0..5).collect();
        let c = centrality(&g, &all, Measure::Closeness, None).unwrap();
        // Vertex 2 is reached by 0 (1), 1 (1), 3 (2): r − 1 = 3, total 4.
        // Vertex 0 by 3 (1): (1/1)·(1/4). Vertex 1 by 0 (1), 3 (2): (2/3)·(2/4).
        close(&c, &[0.25, 1.0 / 3.0, 0.75 * 0.75, 0.0, 0.0]);
        close(
            &centrality_emulated(&g, &all, Measure::Closeness, Batching::Auto).unwrap(),
            &c,
        );
        let h = centrality(&g, &all, Measure::Harmonic, None).unwrap();
        close(&h, &[1.0, 1.5, 2.5, 0.0, 0.0]);
        close(
            &centrality_emulated(&g, &all, Measure::Harmonic, Batching::Auto).unwrap(),
            &h,
        );
    }
}
