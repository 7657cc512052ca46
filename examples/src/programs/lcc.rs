//! Local clustering coefficient (Watts & Strogatz 1998): for every vertex of an
//! undirected graph, the share of its neighbour pairs that are adjacent,
//! `2·t(v) / (d(v)·(d(v) − 1))`, where `t(v)` counts the triangles through `v`
//! and `d(v)` its distinct neighbours (0 below two neighbours).
//!
//! Written as a per-vertex intersection program: the engine enumerates every
//! triangle once (in place or degree-ordered, as for [`super::triangles`]) and
//! adds its value to each of its three corners; `apply` turns a vertex's count
//! into its coefficient with the degree the engine hands it.
//!
//! Checked against `runtime::oracle::local_clustering` in `tests/tests/all/tc.rs`.

use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum, per = vertex)]
pub mod lcc {
    pub type Acc = u64;
    pub type State = f64;

    pub fn common() -> Acc {
        1
    }
    pub fn apply(ctx: Ctx, triangles: Acc) -> State {
        let d = ctx.degree as u64;
        if d < 2 {
            0.0
        } else {
            (2 * triangles) as f64 / (d * (d - 1)) as f64
        }
    }
}
pub use lcc::Program;
