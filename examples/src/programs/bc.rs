//! Betweenness centrality by Brandes's algorithm (Brandes 2001), as the GAP
//! benchmark suite defines it (gapbs `bc`, with Madduri et al.'s level-synchronous
//! phases): from each of a few sources, a forward BFS counts shortest paths σ
//! level by level, then a backward sweep from the deepest level up accumulates
//! each vertex's dependency δ(v) = Σ over successors w of σ(v)/σ(w)·(1 + δ(w)).
//! A vertex's score is the sum of its dependencies over the sources (the source's
//! own included, as gapbs does), normalized by the largest score.
//!
//! Two gather/apply programs composed, each one module for both back ends:
//! * [`bc_paths`] on the graph: frontier-driven; round `r` reaches depth `r + 1`,
//!   whose path count is the sum of its in-neighbours' counts in the frontier
//!   (exactly the vertices of depth `r`).
//! * [`bc_deps`] on the transposed graph (same graph when undirected), started from
//!   the forward phase's states ([`runtime::cpu::gather::run_from`]): a dense round
//!   finds the deepest pending level (the global max of pending depths) and puts it
//!   in the frontier; the next round sends `(1 + δ)/σ` from that level along
//!   transposed edges, i.e. to predecessors, which add `σ·Σ` to their δ. Two rounds
//!   per level; a level is finished before the one above it starts.
//!
//! Path counts are `f64` as in gapbs (`CountT = double`): on graphs with
//! astronomically many shortest paths (large grids) they overflow alike.

use vertex_dsl::prelude::*;

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// Forward phase: depth and shortest-path count from the source.
#[vertex_program(gather = sum)]
pub mod bc_paths {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Paths {
        /// Shortest paths from the source (0: not reached).
        pub sigma: f64,
        /// BFS depth, or `UNREACHED`.
        pub depth: u32,
        /// 1 in the round the vertex is reached: it sends its count next round.
        pub fresh: u32,
    }
    pub const UNREACHED: u32 = u32::MAX;
    pub type State = Paths;
    pub type Msg = f64;
    pub type Acc = f64;

    pub fn init(ctx: Ctx) -> State {
        let source = ctx.vertex == ctx.source;
        Paths {
            sigma: if source { 1.0 } else { 0.0 },
            depth: if source { 0 } else { UNREACHED },
            fresh: source as u32,
        }
    }
    pub fn emit(s: State) -> Msg {
        s.sigma
    }
    pub fn gather(paths: Msg) -> Acc {
        paths
    }
    pub fn apply(ctx: Ctx, s: State, paths: Acc) -> State {
        if s.depth == UNREACHED && paths > 0.0 {
            Paths {
                sigma: paths,
                depth: ctx.round + 1,
                fresh: 1,
            }
        } else {
            Paths { fresh: 0, ..s }
        }
    }
    pub fn active(_old: State, new: State) -> bool {
        new.fresh != 0
    }
    pub fn accepts(s: State) -> bool {
        s.depth == UNREACHED // reached vertices keep their count: skip their edges
    }
}

/// Backward phase: dependencies, deepest level first (run on the transposed graph).
#[vertex_program(gather = sum, reduce = max)]
pub mod bc_deps {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Deps {
        pub sigma: f64,
        /// The dependency accumulated so far (final once `done`).
        pub delta: f64,
        pub depth: u32,
        /// 0 while the vertex's level waits; 1 once its level has been sent.
        pub done: u32,
    }
    pub type State = Deps;
    pub type Msg = f64;
    pub type Acc = f64;

    pub fn init(_ctx: Ctx) -> State {
        Deps {
            sigma: 0.0,
            delta: 0.0,
            depth: 0,
            done: 1,
        } // runs start from `bc_paths`'s states
    }
    pub fn emit(s: State) -> Msg {
        (1.0 + s.delta) / s.sigma
    }
    pub fn gather(share: Msg) -> Acc {
        share
    }
    pub fn apply(ctx: Ctx, s: State, share: Acc) -> State {
        if s.done != 0 {
            s
        } else if s.depth as f64 == ctx.global {
            Deps { done: 1, ..s } // a dense round: the deepest pending level goes next
        } else {
            Deps {
                delta: s.delta + s.sigma * share,
                ..s
            }
        }
    }
    pub fn active(old: State, new: State) -> bool {
        old.done == 0 && new.done != 0
    }
    pub fn accepts(s: State) -> bool {
        s.done == 0
    }
    pub fn reduce(_old: State, s: State) -> f64 {
        if s.done == 0 {
            s.depth as f64
        } else {
            f64::NEG_INFINITY
        }
    }
}

/// The composition, on the host (the kernels above are all the GPU needs).
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::{bc_deps, bc_paths};
    use runtime::error::Result;
    use runtime::gather::GatherOptions;
    use runtime::graph::{Graph, Weight};

    /// The backward phase's starting states: reached vertices wait for their level,
    /// the others take no part.
    pub fn deps_from_paths(paths: &[bc_paths::Paths]) -> Vec<bc_deps::Deps> {
        paths
            .iter()
            .map(|p| bc_deps::Deps {
                sigma: p.sigma,
                delta: 0.0,
                depth: p.depth,
                done: (p.depth == bc_paths::UNREACHED) as u32,
            })
            .collect()
    }

    /// Sums the per-source dependencies `one_source(s)` gives and normalizes by the
    /// largest score (all zeros stay zeros), as gapbs reports them.
    pub fn scores(
        n: usize,
        sources: &[u32],
        mut one_source: impl FnMut(u32) -> Result<Vec<bc_deps::Deps>>,
    ) -> Result<Vec<f64>> {
        let mut total = vec![0.0f64; n];
        for &s in sources {
            for (t, d) in total.iter_mut().zip(one_source(s)?) {
                if d.depth != bc_paths::UNREACHED {
                    *t += d.delta;
                }
            }
        }
        let biggest = total.iter().copied().fold(0.0, f64::max);
        if biggest > 0.0 {
            total.iter_mut().for_each(|t| *t /= biggest);
        }
        Ok(total)
    }

    /// Brandes on the CPU engine: `g` and its transpose (`None` when `g` is undirected).
    pub fn cpu<W: Weight>(
        g: &Graph<W>,
        transposed: Option<&Graph<W>>,
        sources: &[u32],
        threads: Option<usize>,
    ) -> Result<Vec<f64>> {
        scores(g.num_vertices(), sources, |s| {
            let opts = GatherOptions {
                source: Some(s),
                threads,
                ..Default::default()
            };
            let fwd = runtime::cpu::gather::run::<bc_paths::Program, W>(g, &opts)?;
            let opts = GatherOptions {
                source: None,
                ..opts
            };
            let back = transposed.unwrap_or(g);
            let deps = deps_from_paths(&fwd.states);
            Ok(runtime::cpu::gather::run_from::<bc_deps::Program, W>(back, &opts, deps)?.states)
        })
    }
}
