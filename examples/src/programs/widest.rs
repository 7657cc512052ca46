//! Widest path (maximum bottleneck, the max-min semiring): the largest capacity
//! `c` such that the source reaches `v` using only edges of weight ≥ `c`.

use vertex_dsl::prelude::*;

#[vertex_program(combine = max)]
pub mod widest {
    /// Bottleneck capacity from the source; 0 = not reached.
    pub type State = u32;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            u32::MAX
        } else {
            0
        }
    }

    pub fn relax(width: State, w: Weight) -> Option<State> {
        Some(width.min(w))
    }
}
pub use widest::Program;
