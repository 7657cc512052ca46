//! A custom program, written from scratch as a user would: the most reliable path.
//!
//! Edge weights are success probabilities in [0, 1]; a path succeeds with the
//! product of its edges' probabilities; every vertex keeps the best path's.
//! (The README walks through this file.)

use vertex_dsl::prelude::*;

#[vertex_program(combine = max)]
pub mod reliability {
    /// Probability that the best path from the source to this vertex works.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            1.0
        } else {
            0.0
        }
    }

    pub fn relax(p: State, w: Weight) -> Option<State> {
        Some(p * w)
    }
}
pub use reliability::Program;
