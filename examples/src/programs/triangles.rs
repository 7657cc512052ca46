//! Triangle counting (gapbs `tc`): the number of unordered vertex triples of an
//! undirected graph that are pairwise adjacent (self loops and parallel edges
//! count for nothing).
//!
//! Method (Schank & Wagner 2005, "Finding, counting and listing all triangles in
//! large graphs"; gapbs `tc.cc`'s ordered count), all of it the engine's: when
//! the degrees are skewed (gapbs's `WorthRelabelling` test), rank the vertices by
//! degree in a copy that keeps each edge once, towards the higher rank, and
//! intersect, for every kept edge `u → v`, the rest of `u`'s row with `v`'s row;
//! otherwise count on the graph's own sorted rows, in place, intersecting for
//! every edge `u → v` with `v < u` the part of `u`'s row below `v` with `v`'s row
//! (a merge or scan, or galloping when one list is 16× longer; on the GPU one
//! thread per edge). Each triangle is met once, and the program only says that
//! it counts one.
//!
//! Checked against `runtime::oracle::triangles` (a marked-array count) in
//! `tests/tests/all/tc.rs` and by `vertex tc --validate`.

use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod triangles {
    pub type Acc = u64;

    pub fn common() -> Acc {
        1
    }
}
pub use triangles::Program;
