//! Single-source shortest paths with non-negative weights.
//!
//! Bellman-Ford-style label correcting under the sync schedule; under the obim
//! schedule the priority `dist` makes it delta-stepping (Meyer & Sanders, 2003):
//! buckets of width Δ processed in order. Two variants: exact integer distances
//! (u64 so that long paths of u32 weights cannot overflow) and f64 distances.

use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod sssp {
    /// Distance from the source; `u64::MAX` = not reached.
    pub type State = u64;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u64::MAX
        }
    }

    pub fn relax(dist: State, w: Weight) -> Option<State> {
        dist.checked_add(w as u64)
    }

    pub fn priority(dist: State) -> u32 {
        dist.min(u32::MAX as u64) as u32
    }
}

#[vertex_program(combine = min)]
pub mod sssp_f64 {
    /// Distance from the source; infinity = not reached.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0.0
        } else {
            f64::INFINITY
        }
    }

    pub fn relax(dist: State, w: Weight) -> Option<State> {
        Some(dist + w)
    }

    pub fn priority(dist: State) -> u32 {
        dist as u32
    }
}
