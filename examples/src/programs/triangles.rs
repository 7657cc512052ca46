//! Triangle counting (gapbs `tc`): the number of unordered vertex triples of an
//! undirected graph that are pairwise adjacent (self loops and parallel edges
//! count for nothing).
//!
//! Method (Schank & Wagner 2005, "Finding, counting and listing all triangles in
//! large graphs"; gapbs `tc.cc`'s ordered count), all of it the engine's: rank
//! the vertices by degree when the degrees are skewed (gapbs's `WorthRelabelling`
//! test), keep each edge once, towards the higher rank, and intersect, for every
//! kept edge `u → v`, the rest of `u`'s row with `v`'s row (a merge, or galloping
//! when one is 16× longer; on the GPU one thread per edge). Each triangle is met
//! once, and the program only says that it counts one.
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
