//! A custom vertex program: which vertices are within `MAX_HOPS` hops of a source.
//!
//! The library is compiled twice: for the host (the CPU engines run it) and, by
//! `build.rs`, for `nvptx64-nvidia-cuda`, where the same operators become the GPU
//! kernels. The attribute below is what that second build needs.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

use vertex_dsl::prelude::*;

/// Hop-limited reachability: BFS levels, but nothing travels past `MAX_HOPS`.
#[vertex_program(combine = min)]
pub mod within_hops {
    /// Hops from the source; `u32::MAX` = not within `MAX_HOPS`.
    pub type State = u32;

    /// How far the search goes.
    pub const MAX_HOPS: u32 = 3;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            u32::MAX
        }
    }

    /// One more hop, unless the limit is reached (also stops `u32::MAX` from
    /// overflowing: relax is called on initial values too).
    pub fn relax(hops: State) -> Option<State> {
        if hops < MAX_HOPS {
            Some(hops + 1)
        } else {
            None
        }
    }
}
