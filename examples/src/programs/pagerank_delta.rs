//! Data-driven PageRank (residual push; Galois's "PageRank-push", McSherry's
//! delta form): the same ranks as [`super::pagerank`], reached by pushing only
//! where something is still changing.
//!
//! Every vertex starts with its base score `(1 − d)/n` already in its rank and
//! scatters `d · base / out-degree` along its out-edges. What arrives at a vertex is
//! residual; once the residual waiting at `v` reaches its threshold
//! `ε_v = tol · (1 − d) · (out-degree + 1) / (m + n)` it is added to the rank and
//! scattered on, `d · r / out-degree` per edge. Smaller residual waits (`pending`).
//! The rank is the sum of all residual absorbed, which converges to the GAP
//! definition's fixed point; what is left unabsorbed is below `Σ ε_v = tol · (1 −
//! d)`, so the L1 distance to the fixed point is below `tol` (`TOLERANCE_L1`,
//! default 1e-4). Thresholds grow with the degree because a scatter costs the
//! degree: a hub waits until it has enough to send to be worth its edges.
//!
//! Because `apply` accumulates deltas, the program may run asynchronously
//! (`schedule(sync, async, obim)`): under obim a vertex is ordered by how far the
//! residual that arrived exceeds its threshold (in powers of two).

use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, direction = push, schedule(sync, async, obim))]
pub mod pagerank_delta {
    /// A vertex's rank and the residual it holds.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Residual {
        /// Residual absorbed so far.
        pub rank: f64,
        /// Residual arrived but below the threshold.
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
    pub fn init(ctx: Ctx) -> State {
        Residual {
            rank: base(ctx),
            pending: 0.0,
            sent: base(ctx),
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
        if r >= threshold(ctx) {
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
        new.sent > 0.0
    }
    /// Residual ≥ 1024 × threshold → bucket 0; each halving one bucket later.
    pub fn priority(ctx: Ctx, arrived: Acc) -> u32 {
        let exponent = ((arrived / threshold(ctx)).to_bits() >> 52) as u32 & 0x7ff;
        1033u32.saturating_sub(exponent) / 8
    }
}
pub use pagerank_delta::Program;
