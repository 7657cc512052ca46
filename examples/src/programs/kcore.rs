//! k-core decomposition: the core number of every vertex of an undirected graph
//! (the largest k such that the vertex belongs to a subgraph whose vertices all have
//! degree ≥ k), by parallel peeling (Batagelj & Zaveršnik's order, run level by level
//! as in Julienne / ParK).
//!
//! Frontier-driven gather/apply: the frontier is the set of vertices removed in the
//! last round; each remaining vertex counts its removed neighbours (`gather = sum` of
//! 1s, pushed while the frontier is small) and loses that much degree; one whose
//! degree falls to the current level is removed with that core number. When a
//! level's cascade ends the frontier is empty, and the engine's dense round hands
//! every vertex `ctx.global`: the smallest remaining degree (`reduce = min`), which
//! is the next level. All vertices removed in one round share one core number.
//!
//! Degrees count stored edges: run on a simple undirected graph (the CLI
//! symmetrizes and drops self-loops and duplicate edges).

use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, reduce = min)]
pub mod kcore {
    /// A vertex's peeling state.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Peel {
        /// The core number, or `ALIVE` while the vertex remains.
        pub core: u32,
        /// Neighbours not yet removed.
        pub degree: u32,
        /// The level being peeled, as of the last dense round.
        pub level: u32,
    }
    pub const ALIVE: u32 = u32::MAX;
    pub type State = Peel;
    pub type Acc = u32;

    pub fn init(ctx: Ctx) -> State {
        Peel {
            core: ALIVE,
            degree: ctx.out_degree,
            level: 0,
        }
    }
    pub fn gather(_removed_neighbour: State) -> Acc {
        1
    }
    pub fn apply(ctx: Ctx, s: State, removed: Acc) -> State {
        if s.core != ALIVE {
            return s;
        }
        // No removed neighbour: a dense round, the level moves up to the smallest degree.
        let level = if removed == 0 {
            ctx.global as u32
        } else {
            s.level
        };
        let degree = s.degree - removed;
        let core = if degree <= level { level } else { ALIVE };
        Peel {
            core,
            degree,
            level,
        }
    }
    pub fn active(old: State, new: State) -> bool {
        old.core == ALIVE && new.core != ALIVE
    }
    pub fn accepts(s: State) -> bool {
        s.core == ALIVE // peeled vertices ignore removals
    }
    pub fn reduce(_old: State, s: State) -> f64 {
        if s.core == ALIVE {
            s.degree as f64
        } else {
            f64::INFINITY
        }
    }
}
pub use kcore::Program;
