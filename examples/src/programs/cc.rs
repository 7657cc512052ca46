//! Connected components by label propagation (min-label, Shiloach-Vishkin style
//! without hooking): every vertex starts with its own id as label and adopts the
//! smallest label it hears of. Run on an undirected graph (the CLI symmetrizes).

use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod cc {
    /// The smallest vertex id known in this vertex's component.
    pub type State = u32;

    pub fn init(v: u32) -> State {
        v
    }

    pub fn relax(label: State) -> Option<State> {
        Some(label)
    }
}
pub use cc::Program;
