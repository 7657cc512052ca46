//! `--schedule auto`: pick the CPU schedule from the program and the graph, so that
//! a user who types `vertex sssp road.gr` gets the obim-class time, not the
//! level-synchronous one (ten times slower on a 1000² grid).
//!
//! What decides, measured on Kronecker, uniform random and grid graphs
//! (`vertex compare`, `vertex bench gap`; H100 host and a 2-core machine):
//! * a program with a priority (SSSP): **obim** with Δ from the weights. Sync
//!   rounds re-relax every improved vertex each round (190 % redundant work on
//!   Kronecker, ten times the time on grids); obim's buckets approach Dijkstra's
//!   order at parallel speed. On a high-diameter graph obim runs its buckets in
//!   lock-step (gapbs's bulk Δ-stepping, [`super::obim::lockstep`]), faster
//!   there than soft priorities at every thread count measured.
//! * a single-source, unweighted, idempotent program (BFS-like) whose combine is
//!   `min` or `max`: **sync**, whatever the diameter. Sync runs it on the
//!   level engine (`level`: one team of workers, a spinning barrier per level),
//!   whose levels cost far less than generic rounds: on the 1000² grid it beat
//!   async at 1, 2, 4 and 8 threads on the 16-core host (41 vs 52 ms at one
//!   thread, 24 vs 27 at eight; `vertex bench-cpu`, issue 20) and at 1 and 2
//!   threads on a 2-core machine (40 vs 47, 25 vs 27 ms). Async won only at 16
//!   threads there (25 vs 35 ms).
//! * another BFS-like program (e.g. an `or` combine) on a **high-diameter**
//!   graph: **async**. The generic sync rounds pay several pool calls per level
//!   and a grid has thousands of levels; work stealing's FIFO-ish bags follow the
//!   level order closely.
//! * everything else: **sync**. Direction-optimizing rounds win on low-diameter
//!   graphs, and programs whose every vertex starts (label propagation) or whose
//!   values race (widest path) do far more redundant work unordered (async label
//!   propagation on a grid: 150× sync).
//!
//! The diameter estimate is a [`probe`]: a bounded sequential BFS from the source.

use std::collections::VecDeque;

use crate::graph::Graph;
use crate::program::{Combine, Schedule, VertexProgram};

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

/// The schedule `auto` picked, and why (shown to the user).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Choice {
    pub schedule: Schedule,
    pub reason: String,
    /// The probe, when the choice needed one.
    pub probe: Option<Probe>,
}

/// Picks the schedule for `P` on `g` from `source` (see the module docs).
pub fn choose<P: VertexProgram>(g: &Graph<P::Weight>, source: u32) -> Choice {
    let allowed = |s: Schedule| P::SCHEDULES.contains(&s);
    if P::HAS_PRIORITY && allowed(Schedule::Obim) {
        let p = P::NEEDS_SOURCE.then(|| probe(g, source));
        return Choice {
            schedule: Schedule::Obim,
            // The same test as `obim::lockstep`, on the probe already taken.
            reason: if let Some(p) = p.filter(|p| p.high_diameter) {
                format!(
                    "the program has a priority: ordered buckets, Δ from the weights; high \
                     diameter ({} levels reached only {} vertices): buckets in lock-step \
                     (bulk Δ-stepping with bin fusion)",
                    p.levels, p.reached
                )
            } else {
                "the program has a priority: ordered buckets, Δ from the weights, soft \
                 priorities"
                    .into()
            },
            probe: p,
        };
    }
    let bfs_like = P::NEEDS_SOURCE && !P::WEIGHTED && P::IDEMPOTENT;
    let levels = bfs_like && matches!(P::COMBINE, Combine::Min | Combine::Max);
    if levels && allowed(Schedule::Sync) {
        let p = probe(g, source);
        return Choice {
            schedule: Schedule::Sync,
            reason: if p.high_diameter {
                format!(
                    "BFS-like, high diameter ({} levels reached only {} vertices): one team \
                     of workers, a spinning barrier per level",
                    p.levels, p.reached
                )
            } else {
                "BFS-like, low diameter: direction-optimizing levels".into()
            },
            probe: Some(p),
        };
    }
    if bfs_like && allowed(Schedule::Async) {
        let p = probe(g, source);
        if p.high_diameter {
            return Choice {
                schedule: Schedule::Async,
                reason: format!(
                    "high diameter ({} levels reached only {} vertices): work stealing, \
                     no barrier per level",
                    p.levels, p.reached
                ),
                probe: Some(p),
            };
        }
        return Choice {
            schedule: Schedule::Sync,
            reason: "low diameter: direction-optimizing rounds".into(),
            probe: Some(p),
        };
    }
    Choice {
        schedule: Schedule::Sync,
        reason: if P::NEEDS_SOURCE {
            "no priority to order work by: level-synchronous rounds".into()
        } else {
            "every vertex starts: level-synchronous rounds".into()
        },
        probe: None,
    }
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
