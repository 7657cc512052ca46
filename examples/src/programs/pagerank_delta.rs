//! Data-driven PageRank (residual push; Galois's "PageRank-push", McSherry's
//! delta form): the same ranks as [`super::pagerank`], reached by pushing only
//! where something is still changing.
//!
//! Every vertex starts from the guess `x₀ = 1/n` that the power iteration of
//! `pagerank` starts from (its exact base score `(1 − d)/n` if nothing points to
//! it), as if it had already absorbed that much rank: it scatters `d · x₀ /
//! out-degree` along its out-edges and holds `(1 − d)/n − x₀` as pending residual,
//! so what it holds once all first messages are in is the guess's residual
//! `b + d·P·x₀ − x₀`, negative where the guess was too high. Residual whose size
//! reaches the vertex's threshold `ε_v = tol · (1 − d) · (out-degree + 1) / (m + n)`
//! is added to the rank and scattered on, `d · r / out-degree` per edge; smaller
//! residual waits (`pending`). The rank is the guess plus all residual absorbed,
//! which converges to the GAP definition's fixed point; what is left unabsorbed
//! is below `Σ ε_v = tol · (1 − d)` in size, so the L1 distance to the fixed
//! point is below `tol` (`TOLERANCE_L1`, default 1e-4). Thresholds grow with the
//! degree because a scatter costs the degree: a hub waits until it has enough to
//! send to be worth its edges.
//!
//! Why the guess: starting from the base scores instead (rank `b`, all of it
//! scattered), the residual carries the whole rank mass, `d·(1 − d)` of it, and on
//! a graph without dangling vertices the mass only shrinks by `d` a scatter
//! generation: about 55 sweeps' worth of edges to get it under the threshold sum on
//! Kronecker 18 and the 1000² grid. `x₀ = 1/n` already has the right mass on such a
//! graph, so the residual holds only the fast-mixing part: 9 sweeps in rounds on
//! Kronecker 18 (pagerank: 8), 13 asynchronously on the grid (pagerank: 20).
//!
//! Because `apply` accumulates deltas, the program may run asynchronously
//! (`schedule(sync, async, obim)`): under obim a vertex whose arrived residual is
//! worth a scatter runs before one whose residual would only wait.

use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, direction = push, schedule(sync, async, obim))]
pub mod pagerank_delta {
    /// A vertex's rank and the residual it holds.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Residual {
        /// The first guess plus the residual absorbed so far.
        pub rank: f64,
        /// Residual held but below the threshold in size.
        pub pending: f64,
        /// Residual absorbed by the last apply, to be scattered.
        pub sent: f64,
    }
    pub type State = Residual;
    pub type Msg = f64;
    pub type Acc = f64;
    pub const DAMPING: f64 = 0.85;
    /// Bound on the L1 distance of the result to PageRank's fixed point.
    pub const TOLERANCE_L1: f64 = 1e-4;

    fn base(ctx: Ctx) -> f64 {
        (1.0 - DAMPING) / ctx.num_vertices as f64
    }
    fn threshold(ctx: Ctx) -> f64 {
        let share =
            (ctx.out_degree as f64 + 1.0) / (ctx.num_edges + ctx.num_vertices as u64) as f64;
        TOLERANCE_L1 * (1.0 - DAMPING) * share
    }
    /// The first guess: `1/n` (where the power iteration of `pagerank` starts),
    /// except at a vertex nothing points to, whose rank is exactly its base score.
    fn guess(ctx: Ctx) -> f64 {
        if ctx.in_degree == 0 {
            base(ctx)
        } else {
            1.0 / ctx.num_vertices as f64
        }
    }
    pub fn init(ctx: Ctx) -> State {
        Residual {
            rank: guess(ctx),
            pending: base(ctx) - guess(ctx),
            sent: guess(ctx),
        }
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        DAMPING * s.sent / ctx.out_degree as f64
    }
    pub fn gather(share: Msg) -> Acc {
        share
    }
    pub fn apply(ctx: Ctx, s: State, arrived: Acc) -> State {
        let r = s.pending + arrived;
        if r >= threshold(ctx) || -r >= threshold(ctx) {
            Residual {
                rank: s.rank + r,
                pending: 0.0,
                sent: r,
            }
        } else {
            Residual {
                rank: s.rank,
                pending: r,
                sent: 0.0,
            }
        }
    }
    pub fn active(_old: State, new: State) -> bool {
        new.sent != 0.0
    }
    /// Two buckets: a vertex whose arrived residual is already worth a scatter
    /// runs first; one that would only add to `pending` waits behind all of
    /// those, gathering more meanwhile. Finer orders by residual size (powers
    /// of two, largest first — Gauss–Southwell) ran 4–12× the applies and 2–4×
    /// the edges of FIFO on Kronecker graphs: they chase the largest residuals
    /// round the dense core, applying its vertices with partial sums.
    pub fn priority(ctx: Ctx, arrived: Acc) -> u32 {
        let t = threshold(ctx);
        if arrived >= t || -arrived >= t {
            0
        } else {
            1
        }
    }
}
pub use pagerank_delta::Program;
