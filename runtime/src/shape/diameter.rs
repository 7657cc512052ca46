//! Is the graph high-diameter? A bounded BFS from the source ([`probe`]) tells
//! a mesh or a road network (levels run out first) from a graph where a few hops
//! reach most vertices (the edge budget runs out first). Every `auto` choice that
//! depends on the diameter reads it: the CPU schedule, obim's lock-step buckets and
//! Δ, the GPU kernel.

use std::collections::VecDeque;

use crate::graph::Graph;

/// Levels the probe walks before calling a graph high-diameter.
pub const PROBE_LEVELS: u32 = 24;

/// What a bounded BFS from the source saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Probe {
    /// Levels completed.
    pub levels: u32,
    /// Vertices reached.
    pub reached: u64,
    /// Edges scanned.
    pub edges: u64,
    /// [`PROBE_LEVELS`] levels fit in the edge budget with the frontier still
    /// non-empty: vertices keep getting farther (a grid, a road network).
    pub high_diameter: bool,
    /// Levels a whole BFS from the source would take, extrapolated from how the
    /// probe's ball grew ([`estimate_levels`]); exact when the probe reached
    /// everything it could. A mid-sized mesh runs out of edge budget before
    /// [`PROBE_LEVELS`] levels (so `high_diameter` is false) yet needs a hundred.
    pub estimated_levels: u32,
}

/// Levels to reach `n` vertices from a ball that held `half` vertices after
/// `levels / 2` levels (rounded up) and `reached` after `levels`. In a
/// `d`-dimensional mesh a ball of radius `r` holds about `r^d` vertices, so
/// `d ≈ log(reached / half) / log(levels / (levels/2))` and the whole graph
/// needs `levels · (n / reached)^(1/d)`; on a Kronecker or random graph the
/// ball grows by a factor of the degree per level, `d` comes out large and
/// the estimate stays at a few levels. `d` is kept in `[1, 8]` (a path, a
/// near-exponential ball).
pub fn estimate_levels(levels: u32, half_levels: u32, half: u64, reached: u64, n: u64) -> u32 {
    if levels == 0 || reached == 0 {
        return levels;
    }
    let d = if half_levels == 0 || half_levels >= levels || half == 0 {
        8.0
    } else {
        ((reached as f64 / half as f64).ln() / (levels as f64 / half_levels as f64).ln())
            .clamp(1.0, 8.0)
    };
    let ratio = (n.max(reached) as f64 / reached as f64).powf(1.0 / d);
    (levels as f64 * ratio).round().min(f64::from(u32::MAX)) as u32
}

/// A bounded BFS from `source`: at most [`PROBE_LEVELS`] levels and about `m/32`
/// edges (so it costs a small fraction of any traversal). On a graph where a few
/// hops reach most vertices (Kronecker, uniform random, social) the edge budget
/// runs out within a few levels; on a mesh or road network the levels run out
/// first, having touched a few hundred vertices.
pub fn probe<W: crate::graph::Weight>(g: &Graph<W>, source: u32) -> Probe {
    let csr = g.csr();
    let n = csr.num_vertices();
    let budget = csr.num_edges() / 32 + 1024;
    let mut seen = vec![false; n];
    let mut p = Probe {
        levels: 0,
        reached: 0,
        edges: 0,
        high_diameter: false,
        estimated_levels: 0,
    };
    if source as usize >= n {
        return p;
    }
    seen[source as usize] = true;
    p.reached = 1;
    // Vertices reached after each completed level (index = levels).
    let mut balls = vec![1u64];
    let mut frontier = VecDeque::from([source]);
    let estimate = |p: &Probe, balls: &[u64]| {
        let half_levels = p.levels.div_ceil(2);
        estimate_levels(
            p.levels,
            half_levels,
            balls[half_levels as usize],
            balls[p.levels as usize],
            n as u64,
        )
    };
    while !frontier.is_empty() && p.levels < PROBE_LEVELS {
        for _ in 0..frontier.len() {
            let Some(u) = frontier.pop_front() else { break };
            for &v in csr.neighbors(u) {
                p.edges += 1;
                if !std::mem::replace(&mut seen[v as usize], true) {
                    p.reached += 1;
                    frontier.push_back(v);
                }
            }
            if p.edges > budget {
                // Many vertices within a few hops (low diameter), or a mesh
                // whose ball outgrew the budget: the estimate tells them apart.
                p.estimated_levels = estimate(&p, &balls);
                return p;
            }
        }
        p.levels += 1;
        balls.push(p.reached);
    }
    p.high_diameter = p.levels == PROBE_LEVELS && !frontier.is_empty();
    p.estimated_levels = if frontier.is_empty() {
        p.levels.saturating_sub(1) // the last level found nothing new
    } else {
        estimate(&p, &balls)
    };
    p
}

/// Whether `g`'s vertex ids follow its geometry: the share of a sample of
/// edges whose ends are within `n / 64` ids of each other. Row-major grids and
/// files written in a space-filling or traversal order score near 1; a mesh
/// or road network with ids in random order near 0. Kernels that give each
/// block a range of ids (the GPU's tiles) only keep their work local on the
/// former.
pub fn id_locality<W: crate::graph::Weight>(g: &Graph<W>) -> f64 {
    let csr = g.csr();
    let n = csr.num_vertices() as u64;
    let m = csr.num_edges();
    if m == 0 {
        return 1.0;
    }
    let near = (n / 64).max(1);
    let step = (m / 65_536).max(1);
    let offsets = csr.offsets();
    let targets = csr.targets();
    let (mut local, mut sampled) = (0u64, 0u64);
    let mut u = 0usize;
    let mut e = 0u64;
    while e < m {
        // The row holding edge `e` (rows are visited in order, so this walks
        // the offsets once).
        while offsets[u + 1] <= e {
            u += 1;
        }
        let v = u64::from(targets[e as usize]);
        local += u64::from((u as u64).abs_diff(v) < near);
        sampled += 1;
        e += step;
    }
    local as f64 / sampled as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{grid, kronecker};
    use crate::graph::{build, BuildOptions};

    #[test]
    fn probe_tells_grids_from_kronecker() {
        let g = build(&grid(300, 300, 1).unwrap(), BuildOptions::undirected()).unwrap();
        let p = probe(&g, 45_150);
        assert!(p.high_diameter, "{p:?}");
        let k = build(&kronecker(14, 16, 1).unwrap(), BuildOptions::undirected()).unwrap();
        let src = (0..k.num_vertices() as u32)
            .find(|&v| k.csr().degree(v) > 0)
            .unwrap();
        let p = probe(&k, src);
        assert!(!p.high_diameter, "{p:?}");
        assert!(p.edges <= k.num_edges() / 32 + 1024 + k.csr().degree(src) + 30_000);
    }

    #[test]
    fn level_estimates_tell_meshes_from_small_worlds() {
        use crate::generate::mesh;
        let m = build(&mesh(65_536, 7).unwrap(), BuildOptions::undirected()).unwrap();
        let p = probe(&m, 0);
        // A whole BFS takes ~110 levels; the probe's edge budget ends first.
        assert!(!p.high_diameter, "{p:?}");
        assert!((64..=250).contains(&p.estimated_levels), "{p:?}");
        let g = build(&grid(300, 300, 1).unwrap(), BuildOptions::undirected()).unwrap();
        let p = probe(&g, 45_150); // the middle: 300 levels
        assert!((150..=600).contains(&p.estimated_levels), "{p:?}");
        let k = build(&kronecker(16, 16, 1).unwrap(), BuildOptions::undirected()).unwrap();
        let src = (0..k.num_vertices() as u32)
            .find(|&v| k.csr().degree(v) > 0)
            .unwrap();
        let p = probe(&k, src);
        assert!(p.estimated_levels < 16, "{p:?}");
        // Probes that see everything report what they saw.
        let path = build(&grid(10, 1, 1).unwrap(), BuildOptions::undirected()).unwrap();
        assert_eq!(probe(&path, 0).estimated_levels, 9);
    }

    #[test]
    fn estimates_follow_the_ball_dimension() {
        // A square's ball: 2·r² after r levels.
        assert_eq!(estimate_levels(20, 10, 200, 800, 80_000), 200);
        // A path: r after r levels.
        assert_eq!(estimate_levels(20, 10, 10, 20, 2_000), 2_000);
        // Exponential growth: d capped at 8.
        assert!(estimate_levels(2, 1, 30, 1_000, 1 << 22) < 16);
        assert_eq!(estimate_levels(0, 0, 0, 0, 100), 0);
    }

    #[test]
    fn id_locality_of_grids_and_shuffled_meshes() {
        let g = build(&grid(200, 200, 1).unwrap(), BuildOptions::undirected()).unwrap();
        assert!(id_locality(&g) > 0.99);
        let m = build(
            &crate::generate::mesh(16_384, 3).unwrap(),
            BuildOptions::undirected(),
        )
        .unwrap();
        assert!(id_locality(&m) < 0.2, "{}", id_locality(&m));
    }

    #[test]
    fn probe_of_a_lone_vertex_is_not_high_diameter() {
        let g = build(&grid(1, 1, 1).unwrap(), BuildOptions::undirected()).unwrap();
        assert!(!probe(&g, 0).high_diameter);
        assert_eq!(probe(&g, 5).reached, 0, "out-of-range source: nothing");
    }
}
