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
//!   the forward phase's states ([`runtime::cpu::gather::run_from`]): a *level
//!   sweep* (`fn level` = the depth), so the engine groups the vertices by depth
//!   once and runs one round per level, deepest first. In the round of depth `d`
//!   each vertex of depth `d` sums `(1 + δ)/σ` over its transposed in-edges from
//!   depth `d + 1`, i.e. over its successors on shortest paths, and takes `σ·Σ` as
//!   its δ: gapbs's pull over successors, at the cost of two levels per round.
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

/// Backward phase: dependencies, deepest level first (run on the transposed graph):
/// a level sweep over the BFS depths, so each level is one round over its own
/// vertices and edges.
#[vertex_program(gather = sum)]
pub mod bc_deps {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Deps {
        pub sigma: f64,
        /// The dependency (final once the vertex's level has run).
        pub delta: f64,
        /// BFS depth, or `UNREACHED` (no level: takes no part).
        pub depth: u32,
        pub _pad: u32,
    }
    pub type State = Deps;
    pub type Msg = f64;
    pub type Acc = f64;

    pub fn init(_ctx: Ctx) -> State {
        Deps {
            sigma: 0.0,
            delta: 0.0,
            depth: u32::MAX,
            _pad: 0,
        } // runs start from `bc_paths`'s states
    }
    pub fn level(s: State) -> u32 {
        s.depth
    }
    pub fn emit(s: State) -> Msg {
        (1.0 + s.delta) / s.sigma
    }
    pub fn gather(share: Msg) -> Acc {
        share // from the successors: in-neighbours one level deeper
    }
    pub fn apply(_ctx: Ctx, s: State, shares: Acc) -> State {
        Deps {
            delta: s.sigma * shares,
            ..s
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

    /// The backward phase's starting states: reached vertices wait for their level
    /// (their depth), the others (`UNREACHED`, no level) take no part.
    pub fn deps_from_paths(paths: &[bc_paths::Paths]) -> Vec<bc_deps::Deps> {
        paths
            .iter()
            .map(|p| bc_deps::Deps {
                sigma: p.sigma,
                delta: 0.0,
                depth: p.depth,
                _pad: 0,
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
        Ok(normalize(total))
    }

    /// Scores divided by the largest, as gapbs reports them (one function for
    /// every betweenness path: CPU batches, GPU batches, these programs).
    pub use runtime::cpu::brandes::normalize;

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
