//! Your own vertex programs, one of each kind:
//!
//! * `within_hops` — a push program: hops from a source, but nothing travels past
//!   `MAX_HOPS`;
//! * `paths` — a gather/apply program whose state is a struct: each vertex's
//!   BFS depth and its number of shortest paths from the source;
//! * `wedges` — an intersection program: triangles through each vertex.
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

/// Shortest-path counting (Brandes's forward phase): a vertex reached in round
/// `r` takes depth `r` and the sum of its parents' path counts.
#[vertex_program(gather = sum)]
pub mod paths {
    /// A vertex's depth (`UNSEEN` until reached) and its shortest-path count.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct State {
        pub depth: u32,
        pub paths: f64,
    }
    pub type Msg = f64;
    pub type Acc = f64;
    pub const UNSEEN: u32 = u32::MAX;

    pub fn init(ctx: Ctx) -> State {
        if ctx.vertex == ctx.source {
            State {
                depth: 0,
                paths: 1.0,
            }
        } else {
            State {
                depth: UNSEEN,
                paths: 0.0,
            }
        }
    }
    /// Only the last round's vertices send their counts.
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        if s.depth == ctx.round {
            s.paths
        } else {
            0.0
        }
    }
    pub fn gather(count: Msg) -> Acc {
        count
    }
    pub fn apply(ctx: Ctx, old: State, sum: Acc) -> State {
        if old.depth == UNSEEN && sum > 0.0 {
            State {
                depth: ctx.round + 1,
                paths: sum,
            }
        } else {
            old
        }
    }
    /// The frontier: the vertices reached this round (and the source at first).
    pub fn active(ctx: Ctx, old: State, new: State) -> bool {
        new != old || (ctx.round == 0 && new.depth == 0)
    }
    /// Reached vertices never change again.
    pub fn accepts(s: State) -> bool {
        s.depth == UNSEEN
    }
}

/// Triangles through each vertex of an undirected graph.
#[vertex_program(intersect = sum, per = vertex)]
pub mod wedges {
    pub type Acc = u64;
    pub fn common() -> Acc {
        1
    }
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;

    /// 0 → 1 → 2 → 3, plus 0 → 2 and 1 → 3, and a vertex 4 on its own.
    fn graph() -> Graph<u32> {
        let el = EdgeList::<u32> {
            num_vertices: 5,
            edges: vec![[0, 1], [1, 2], [2, 3], [0, 2], [1, 3]],
            weights: None,
        };
        build(&el, BuildOptions::default()).unwrap()
    }

    #[test]
    fn every_kind_on_the_cpu() {
        let g = graph();
        let hops = run::<within_hops::Program>(&g)
            .source(0)
            .backend(Backend::Cpu)
            .go()
            .unwrap();
        assert_eq!(hops.values, [0, 1, 1, 2, u32::MAX]);

        let p = run::<paths::Program>(&g)
            .source(0)
            .backend(Backend::Cpu)
            .go()
            .unwrap();
        let depth_paths: Vec<(u32, f64)> = p.values.iter().map(|s| (s.depth, s.paths)).collect();
        // Vertex 3 is 2 hops away along two paths (0-1-3 and 0-2-3).
        assert_eq!(
            depth_paths,
            [(0, 1.0), (1, 1.0), (1, 1.0), (2, 2.0), (paths::UNSEEN, 0.0)]
        );

        let u = build(
            &EdgeList::<u32> {
                num_vertices: 4,
                edges: vec![[0, 1], [1, 2], [2, 0], [2, 3]],
                weights: None,
            },
            BuildOptions::undirected(),
        )
        .unwrap();
        let t = run::<wedges::Program>(&u)
            .backend(Backend::Cpu)
            .go()
            .unwrap();
        assert_eq!(t.values.states, [1, 1, 1, 0]);
    }
}
