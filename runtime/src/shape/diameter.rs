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
    };
    if source as usize >= n {
        return p;
    }
    seen[source as usize] = true;
    p.reached = 1;
    let mut frontier = VecDeque::from([source]);
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
                return p; // many vertices within a few hops: low diameter
            }
        }
        p.levels += 1;
    }
    p.high_diameter = p.levels == PROBE_LEVELS && !frontier.is_empty();
    p
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
    fn probe_of_a_lone_vertex_is_not_high_diameter() {
        let g = build(&grid(1, 1, 1).unwrap(), BuildOptions::undirected()).unwrap();
        assert!(!probe(&g, 0).high_diameter);
        assert_eq!(probe(&g, 5).reached, 0, "out-of-range source: nothing");
    }
}
