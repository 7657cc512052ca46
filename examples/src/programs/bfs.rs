//! Breadth-first search: the level (hop count) of every vertex from a source.
//!
//! Level-synchronous BFS as in Graph500: `relax` adds one hop, arrivals keep the
//! minimum. On the CPU the sync engine runs it top-down early and bottom-up late
//! (Beamer et al., "Direction-Optimizing Breadth-First Search", SC'12); the
//! Graph500 parent tree is recovered afterwards by `runtime::cpu::tree::parents`.

use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod bfs {
    /// Hops from the source; `u32::MAX` = not reached.
    pub type State = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u32::MAX
        }
    }

    pub fn relax(level: State) -> Option<State> {
        level.checked_add(1)
    }
}

pub use bfs::Program;
