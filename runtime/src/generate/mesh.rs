//! Planar meshes: the Delaunay triangulation of random points in the unit square.
//!
//! The fourth shape next to Kronecker (skewed), uniform (balanced, tiny diameter)
//! and grids (road-like, huge diameter): a finite-element-like mesh with degrees
//! around 6 (rarely above 12), about `3N` undirected edges and a diameter that
//! grows as `√N` — mid-diameter, the graphs where a traversal's levels are many
//! but wide. It is the family of the DIMACS10 `delaunay_nXX` graphs.
//!
//! * Points: `N` points drawn uniformly in `[0, 1)²` (53-bit coordinates), in
//!   fixed blocks of 2^14 points, each block from its own seeded generator
//!   ([`super::rng`]), so the points are a function of `(N, seed)` alone.
//! * Triangulation: [`delaunator`] (the Rust port of Mapbox's Delaunator: a
//!   sweep-hull algorithm, `O(N log N)`, robust orientation tests, and a
//!   collinear / near-duplicate handling that never fails). It is sequential and
//!   deterministic; to keep its memory accesses local the points are handed to
//!   it in Hilbert-curve order, and its output is mapped back to the ids below.
//! * Vertex ids: point `i` (in drawing order) is vertex `i`. The points are
//!   independent and identically distributed, so the ids are a uniformly random
//!   labelling of the mesh — neighbours get unrelated ids, as in a Graph500
//!   graph after its random relabelling, and unlike [`super::grid`]'s row-major
//!   ids. This is the honest default for a benchmark: a traversal pays the cache
//!   misses a mesh of unknown origin costs, and no run profits from an order the
//!   generator happened to choose. (A spatially ordered mesh, as mesh tools
//!   often write them, would be a relabelling of this one: the points sorted
//!   along a space-filling curve, as the triangulation step sorts them
//!   internally.)
//! * Edges: every triangulation edge once in each direction, with the same
//!   integer weight both ways, uniform in `lo..=hi` (default 1..=100) — the
//!   weights of [`super::grid`], i.e. `weights_for_edges(&edges, lo, hi, seed, true)`
//!   of [`super::weights`].
//!
//! With `h` points on the convex hull (about `(8/3)·ln N` for uniform points, so
//! a few dozen), a triangulation of `N` points in general position has exactly
//! `3N − 3 − h` edges and `2N − 2 − h` triangles (Euler's formula), so the
//! average degree is just under 6 and the graph is connected.
//!
//! Degenerate inputs cannot come from the generator in practice (two of `N`
//! random 53-bit points coincide with probability about `N² / 2^107`), but the
//! triangulation step handles them without failing: points closer than
//! [`delaunator::EPSILON`] to an earlier one are left out (their vertex stays
//! isolated), and if all points are collinear the "triangulation" is the path
//! through them in order along the line.

use delaunator::{next_halfedge, Point, EMPTY};
use rand::RngCore;
use rayon::prelude::*;

use super::rng::{block_rng, stream};
use super::weights::edge_weight;
use crate::error::{Error, Result};
use crate::graph::{EdgeList, MAX_VERTICES};

/// Points per independently seeded block.
const BLOCK: usize = 1 << 14;

/// Smallest mesh: three points make one triangle.
pub const MIN_MESH_POINTS: usize = 3;

/// Peak memory per point while generating, in bytes: during the triangulation,
/// the points twice (as drawn and in Hilbert order, 16 B each), the order (4 B),
/// the triangulation's `usize` triangle and half-edge arrays (about 6 of each per
/// point), its distance sort (16 B) and hull links (3 `usize`). The edge lists
/// made afterwards (3 undirected and 6 directed edges with weights per point,
/// 96 B) fit in what the triangulation frees.
const BYTES_PER_POINT: u64 = 2 * 16 + 4 + 2 * 6 * 8 + 16 + 3 * 8;

/// A mesh generator configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// Points, i.e. vertices (`3..=MAX_VERTICES`).
    pub points: usize,
    /// Seed of the points and the weights.
    pub seed: u64,
    /// Inclusive weight range (within `u32`).
    pub weights: (u64, u64),
}

impl Mesh {
    /// The Delaunay mesh of `points` random points, weights 1..=100.
    pub fn new(points: usize, seed: u64) -> Self {
        Mesh {
            points,
            seed,
            weights: (1, 100),
        }
    }

    /// Checks the point count: at least 3, and ids that fit 32 bits.
    pub fn check(&self) -> Result<()> {
        if self.points < MIN_MESH_POINTS {
            return Err(Error::InvalidArgument(format!(
                "a mesh needs at least {MIN_MESH_POINTS} points, got {}",
                self.points
            )));
        }
        if self.points > MAX_VERTICES {
            return Err(Error::InvalidArgument(format!(
                "mesh of {} points has more vertices than 32-bit ids allow ({MAX_VERTICES})",
                self.points
            )));
        }
        Ok(())
    }

    /// The `N` points, vertex `i` at `points()[i]`: uniform in `[0, 1)²`.
    pub fn random_points(&self) -> Vec<[f64; 2]> {
        let n = self.points;
        (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .flat_map_iter(|b| {
                let mut rng = block_rng(self.seed, stream::MESH_POINTS, b as u64);
                let len = BLOCK.min(n - b * BLOCK);
                (0..len).map(move |_| [unit(rng.next_u64()), unit(rng.next_u64())])
            })
            .collect()
    }

    /// Generates the mesh: both directions of every edge, weighted.
    pub fn generate(&self) -> Result<EdgeList<u32>> {
        self.check()?;
        let (lo, hi) = self.weights;
        if lo.max(hi) > u32::MAX as u64 {
            return Err(Error::InvalidArgument(format!(
                "mesh weights {lo}..={hi} do not fit u32"
            )));
        }
        let n = self.points;
        let needed = (n as u64).saturating_mul(BYTES_PER_POINT);
        if crate::error::available_memory().is_some_and(|free| needed > free) {
            return Err(Error::host_memory(format!("a mesh of {n} points"), needed));
        }
        let d = delaunay(&self.random_points());
        // Euler's formula for the points kept (all of them, but for coincident ones).
        debug_assert!(d.triangles > 0 && d.edges.len() + d.hull + 3 <= 3 * n);
        let undirected = d.edges;
        let mut edges = vec![[0u32; 2]; 2 * undirected.len()];
        let mut weights = vec![0u32; 2 * undirected.len()];
        let seed = self.seed;
        edges
            .par_chunks_mut(2)
            .zip(weights.par_chunks_mut(2))
            .zip(undirected.par_iter())
            .for_each(|((e, w), &[a, b])| {
                let wt = edge_weight(a, b, lo, hi, seed, true) as u32;
                e.copy_from_slice(&[[a, b], [b, a]]);
                w.copy_from_slice(&[wt, wt]);
            });
        Ok(EdgeList {
            num_vertices: n,
            edges,
            weights: Some(weights),
        })
    }
}

/// The Delaunay mesh of `points` random points in the unit square ([`Mesh::new`]):
/// about `3·points` edges, each stored in both directions, weights 1..=100.
pub fn mesh(points: usize, seed: u64) -> Result<EdgeList<u32>> {
    Mesh::new(points, seed).generate()
}

/// A uniform value in `[0, 1)` from 53 random bits.
#[inline]
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A triangulation as a graph.
#[derive(Debug)]
pub(crate) struct Delaunay {
    /// Every edge once, as `[a, b]` in point ids (unordered pairs).
    pub edges: Vec<[u32; 2]>,
    /// Triangles (0 when the points are all collinear).
    pub triangles: usize,
    /// Points on the convex hull (for collinear points: the distinct points).
    pub hull: usize,
}

/// The Delaunay triangulation of `points` (at most 2^32 of them, finite),
/// as undirected edges in the points' ids.
pub(crate) fn delaunay(points: &[[f64; 2]]) -> Delaunay {
    debug_assert!(points.len() <= MAX_VERTICES);
    // Triangulate in Hilbert-curve order: neighbours in the plane are then
    // neighbours in memory, and the sweep's accesses stay in cache.
    let order = hilbert_order(points);
    let sorted: Vec<Point> = order
        .par_iter()
        .map(|&i| {
            let [x, y] = points[i as usize];
            Point { x, y }
        })
        .collect();
    let t = delaunator::triangulate(&sorted);
    drop(sorted);
    let id = |k: usize| order[k];
    let edges: Vec<[u32; 2]> = if t.triangles.is_empty() {
        // All points collinear (or fewer than 3 distinct): the hull lists the
        // distinct points in order along the line.
        t.hull.windows(2).map(|w| [id(w[0]), id(w[1])]).collect()
    } else {
        // Half-edge `e` runs from `triangles[e]` to `triangles[next(e)]`; an
        // interior edge has a twin, so keep the half with the smaller index.
        t.halfedges
            .par_iter()
            .enumerate()
            .filter(|&(e, &twin)| twin == EMPTY || e < twin)
            .map(|(e, _)| [id(t.triangles[e]), id(t.triangles[next_halfedge(e)])])
            .collect()
    };
    Delaunay {
        edges,
        triangles: t.len(),
        hull: t.hull.len(),
    }
}

/// Indices of `points` sorted along a Hilbert curve over their bounding box
/// (a `2^16 × 2^16` grid; ties broken by index, so the order is a function of
/// the points alone).
fn hilbert_order(points: &[[f64; 2]]) -> Vec<u32> {
    let (lo, hi) = points.iter().fold(
        ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]),
        |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            )
        },
    );
    let cell = |v: f64, d: usize| {
        let span = hi[d] - lo[d];
        if span > 0.0 {
            (((v - lo[d]) / span) * 65535.0) as u32
        } else {
            0
        }
    };
    let mut keys: Vec<u64> = points
        .par_iter()
        .enumerate()
        .map(|(i, p)| ((hilbert(cell(p[0], 0), cell(p[1], 1)) as u64) << 32) | i as u64)
        .collect();
    keys.par_sort_unstable();
    keys.into_par_iter().map(|k| k as u32).collect()
}

/// The position of cell `(x, y)` (each `< 2^16`) along the Hilbert curve that
/// fills the `2^16 × 2^16` grid.
fn hilbert(mut x: u32, mut y: u32) -> u32 {
    const N: u32 = 1 << 16;
    let mut d = 0;
    let mut s = N / 2;
    while s > 0 {
        let rx = u32::from(x & s != 0);
        let ry = u32::from(y & s != 0);
        d += s * s * ((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = N - 1 - x;
                y = N - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::weights_for_edges;
    use crate::graph::{build, BuildOptions};
    use proptest::prelude::*;
    use std::collections::{HashSet, VecDeque};

    /// Vertices reached from `s` and the BFS depth, over undirected `edges`.
    fn bfs(n: usize, edges: &[[u32; 2]], s: u32) -> (usize, usize) {
        let mut adj = vec![Vec::new(); n];
        for &[a, b] in edges {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut level = vec![usize::MAX; n];
        level[s as usize] = 0;
        let mut queue = VecDeque::from([s]);
        let (mut reached, mut depth) = (0, 0);
        while let Some(u) = queue.pop_front() {
            reached += 1;
            depth = depth.max(level[u as usize]);
            for &v in &adj[u as usize] {
                if level[v as usize] == usize::MAX {
                    level[v as usize] = level[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        (reached, depth)
    }

    /// The checks every triangulation of `n` points passes: ids in range, no
    /// self-loops, no edge twice (either way round).
    fn simple(n: usize, d: &Delaunay) -> HashSet<[u32; 2]> {
        let mut set = HashSet::new();
        for &[a, b] in &d.edges {
            assert!((a as usize) < n && (b as usize) < n, "{a}-{b} out of range");
            assert_ne!(a, b, "self-loop");
            assert!(set.insert([a.min(b), a.max(b)]), "{a}-{b} twice");
        }
        set
    }

    /// Points in general position: the exact counts of a planar triangulation.
    fn check_general(points: &[[f64; 2]]) {
        let n = points.len();
        let d = delaunay(points);
        simple(n, &d);
        let (e, t, h) = (d.edges.len(), d.triangles, d.hull);
        assert!((3..=n).contains(&h), "hull {h}");
        assert_eq!(e, 3 * n - 3 - h, "edges");
        assert_eq!(t, 2 * n - 2 - h, "triangles");
        assert!((2 * n - 3..=3 * n - 6).contains(&e), "{e} edges");
        // Euler: V − E + F = 2, the outer face included.
        assert_eq!(n + t + 1, e + 2, "Euler");
        assert_eq!(bfs(n, &d.edges, 0).0, n, "connected");
    }

    #[test]
    fn counts_of_small_meshes() {
        for n in [3, 4, 5, 10, 100, 1000, 20_000] {
            for seed in [0, 1] {
                check_general(&Mesh::new(n, seed).random_points());
            }
        }
    }

    /// The empty-circle property: no point lies inside a triangle's circumcircle.
    #[test]
    fn is_delaunay() {
        let pts = Mesh::new(200, 4).random_points();
        let d = delaunay(&pts);
        let set = simple(pts.len(), &d);
        let adj = |a: u32, b: u32| set.contains(&[a.min(b), a.max(b)]);
        let mut triangles = 0;
        for a in 0..pts.len() as u32 {
            for b in a + 1..pts.len() as u32 {
                for c in b + 1..pts.len() as u32 {
                    if !(adj(a, b) && adj(b, c) && adj(a, c)) {
                        continue;
                    }
                    let [p, q, r] = [a, b, c].map(|v| pts[v as usize]);
                    // A triangle of the graph that contains a point is no face.
                    let inside = |s: [f64; 2]| {
                        let o = |p: [f64; 2], q: [f64; 2]| {
                            (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0])
                        };
                        let (x, y, z) = (o(p, q), o(q, r), o(r, p));
                        (x > 0.0 && y > 0.0 && z > 0.0) || (x < 0.0 && y < 0.0 && z < 0.0)
                    };
                    if pts.iter().any(|&s| inside(s)) {
                        continue;
                    }
                    triangles += 1;
                    for (v, &s) in pts.iter().enumerate() {
                        if [a, b, c].contains(&(v as u32)) {
                            continue;
                        }
                        let det = incircle(p, q, r, s);
                        assert!(det <= 1e-12, "point {v} inside the circle of {a} {b} {c}");
                    }
                }
            }
        }
        assert_eq!(triangles, d.triangles);
    }

    /// `> 0` when `s` is inside the circle through `p, q, r` (any orientation).
    fn incircle(p: [f64; 2], q: [f64; 2], r: [f64; 2], s: [f64; 2]) -> f64 {
        let d = |a: [f64; 2]| [a[0] - s[0], a[1] - s[1]];
        let (a, b, c) = (d(p), d(q), d(r));
        let l = |a: [f64; 2]| a[0] * a[0] + a[1] * a[1];
        let det = a[0] * (b[1] * l(c) - l(b) * c[1]) - a[1] * (b[0] * l(c) - l(b) * c[0])
            + l(a) * (b[0] * c[1] - b[1] * c[0]);
        let orient = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
        det * orient.signum()
    }

    #[test]
    fn degenerate_points_do_not_fail() {
        // Collinear: the path along the line, in order.
        let line: Vec<[f64; 2]> = [3.0, 0.0, 2.0, 1.0, 4.0].map(|x| [x, 2.0 * x]).to_vec();
        let d = delaunay(&line);
        let mut e: Vec<[u32; 2]> = d.edges.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
        e.sort_unstable();
        // x = 0, 1, 2, 3, 4 are points 1, 3, 2, 0, 4.
        assert_eq!(e, [[0, 2], [0, 4], [1, 3], [2, 3]]);
        assert_eq!(d.triangles, 0);
        // Vertical line (all x equal), with a duplicate: 3 distinct points.
        let d = delaunay(&[[1.0, 0.0], [1.0, 5.0], [1.0, 2.0], [1.0, 5.0]]);
        assert_eq!(d.edges.len(), 2);
        // All the same point, or two distinct ones.
        assert!(delaunay(&[[0.5, 0.5]; 4]).edges.is_empty());
        assert_eq!(
            delaunay(&[[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]).edges.len(),
            1
        );
        assert!(delaunay(&[]).edges.is_empty());
        // A lattice: every cell's four corners are cocircular, many points
        // collinear; any triangulation of a w×h lattice has the counts below.
        let (w, h) = (13, 9);
        let lattice: Vec<[f64; 2]> = (0..w * h)
            .map(|i| [(i % w) as f64, (i / w) as f64])
            .collect();
        let d = delaunay(&lattice);
        simple(lattice.len(), &d);
        assert_eq!(d.triangles, 2 * (w - 1) * (h - 1));
        assert_eq!(d.edges.len(), (w - 1) * h + w * (h - 1) + (w - 1) * (h - 1));
        assert_eq!(bfs(lattice.len(), &d.edges, 0).0, lattice.len());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Generated meshes of any size and seed: exact planar counts, connected.
        #[test]
        fn generated_meshes_are_triangulations(n in 3usize..400, seed in any::<u64>()) {
            check_general(&Mesh::new(n, seed).random_points());
        }

        /// Points on a tiny lattice (duplicates, collinear runs, cocircular
        /// quadruples): simple graph over the distinct points, which it connects.
        #[test]
        fn degenerate_inputs_give_simple_connected_graphs(
            pts in prop::collection::vec((0u8..8, 0u8..8), 0..80),
        ) {
            let points: Vec<[f64; 2]> = pts.iter().map(|&(x, y)| [x as f64, y as f64]).collect();
            let n = points.len();
            let d = delaunay(&points);
            simple(n, &d);
            let distinct: HashSet<(u8, u8)> = pts.iter().copied().collect();
            let mut touched: Vec<u32> = d.edges.iter().flatten().copied().collect();
            touched.sort_unstable();
            touched.dedup();
            if distinct.len() >= 2 {
                // One vertex per distinct point, and they are connected.
                prop_assert_eq!(touched.len(), distinct.len());
                let (reached, _) = bfs(n, &d.edges, touched[0]);
                prop_assert_eq!(reached, distinct.len());
                if d.triangles > 0 {
                    prop_assert_eq!(distinct.len() + d.triangles + 1, d.edges.len() + 2);
                } else {
                    prop_assert_eq!(d.edges.len(), distinct.len() - 1);
                }
            } else {
                prop_assert!(d.edges.is_empty());
            }
        }
    }

    #[test]
    fn edges_both_ways_with_grid_weights() {
        let n = 5_000;
        let el = mesh(n, 3).unwrap();
        el.validate().unwrap();
        assert_eq!(el.num_vertices, n);
        let w = el.weights.as_ref().unwrap();
        assert!(w.iter().all(|&x| (1..=100).contains(&x)));
        for (i, e) in el.edges.iter().enumerate().step_by(2) {
            assert_eq!(el.edges[i + 1], [e[1], e[0]]);
            assert_eq!(w[i], w[i + 1]);
        }
        assert_eq!(*w, weights_for_edges::<u32>(&el.edges, 1, 100, 3, true));
        let g = build(&el, BuildOptions::undirected()).unwrap();
        assert_eq!(g.num_edges() as usize, el.len(), "nothing dropped");
        let degrees: Vec<u64> = (0..n as u32).map(|v| g.csr().degree(v)).collect();
        assert!(
            degrees.iter().all(|&d| d >= 2),
            "every vertex in a triangle"
        );
        assert!(
            *degrees.iter().max().unwrap() <= 20,
            "Delaunay degrees stay small"
        );
        let mean = el.len() as f64 / n as f64;
        assert!((5.9..6.0).contains(&mean), "mean degree {mean}");
    }

    /// Ids are a random labelling: neighbours are not close in id, the points
    /// are spread over the square, and BFS needs about √N levels.
    #[test]
    fn random_ids_and_sqrt_diameter() {
        let n = 40_000;
        let pts = Mesh::new(n, 8).random_points();
        let d = delaunay(&pts);
        let gap: f64 = d
            .edges
            .iter()
            .map(|&[a, b]| a.abs_diff(b) as f64)
            .sum::<f64>()
            / d.edges.len() as f64;
        // A random pair is n/3 apart on average.
        assert!(
            (gap - n as f64 / 3.0).abs() < 0.05 * n as f64,
            "mean id gap {gap}"
        );
        let quadrant = pts.iter().filter(|p| p[0] < 0.5 && p[1] < 0.5).count();
        assert!(quadrant.abs_diff(n / 4) < 600, "{quadrant} in a quarter");
        let (reached, depth) = bfs(n, &d.edges, 0);
        assert_eq!(reached, n);
        let root = (n as f64).sqrt();
        assert!(
            (0.3 * root..3.0 * root).contains(&(depth as f64)),
            "depth {depth}"
        );
    }

    #[test]
    fn reproducible_on_any_pool_size() {
        let run = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| mesh(50_000, 9).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(3));
        assert_ne!(one, mesh(50_000, 10).unwrap());
    }

    #[test]
    fn hilbert_curve_visits_neighbours_in_turn() {
        // The first 4^8 positions fill the 256 × 256 corner, one step at a time.
        let mut cells: Vec<(u32, u32, u32)> = (0..1u32 << 16)
            .map(|i| (i % 256, i / 256))
            .map(|(x, y)| (hilbert(x, y), x, y))
            .collect();
        cells.sort_unstable();
        for (i, w) in cells.windows(2).enumerate() {
            assert_eq!(w[0].0, i as u32);
            assert_eq!(w[0].1.abs_diff(w[1].1) + w[0].2.abs_diff(w[1].2), 1);
        }
        assert_eq!(hilbert(0, 0), 0);
        assert_eq!(hilbert(0xFFFF, 0), u32::MAX);
    }

    #[test]
    fn rejects_bad_sizes() {
        for n in [0, 1, 2] {
            let e = mesh(n, 0).unwrap_err().to_string();
            assert!(e.contains("at least 3 points"), "{e}");
        }
        let e = Mesh::new(MAX_VERTICES + 1, 0)
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("32-bit"), "{e}");
        let bad = Mesh {
            weights: (1, 1 << 40),
            ..Mesh::new(10, 0)
        };
        assert!(bad.generate().is_err());
    }
}
