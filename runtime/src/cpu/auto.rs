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
//! The diameter estimate is a [`probe`] (in [`crate::shape`], below both engines):
//! a bounded sequential BFS from the source.

use crate::graph::Graph;
use crate::program::{Combine, Schedule, VertexProgram};
use crate::shape::{probe, Probe};

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
