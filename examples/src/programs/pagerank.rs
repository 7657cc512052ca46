//! PageRank as the GAP benchmark suite defines it (gapbs `pr`, Beamer, Asanović &
//! Patterson 2015), so results compare with gapbs: damping 0.85, base score
//! (1 − d)/n, each vertex spreads rank/out-degree over its out-edges, the rank of
//! vertices without out-edges is not redistributed, and the run stops when the L1
//! change of a round is below 1e-4 or after 20 rounds (`--tolerance`,
//! `--max-rounds`).
//!
//! Pull form, Jacobi iteration: each vertex sums the contributions its
//! in-neighbours emitted the round before (`emit`, one `f32` per vertex, the array
//! random in-edge reads touch; `gather = sum`, in `f64`) and takes its new rank
//! (`apply`). The round's reduction is the L1 change. `emit` reads only the
//! out-degree, not the reduction, so the CPU emits each vertex's next contribution
//! right after its apply, in the same pass (`EMIT_READS_GLOBAL` is false). Ranks
//! are `f64`, so CPU and GPU agree to ~1e-12 whatever order their sums run in.
//! `vertex pr --schedule gauss-seidel` (and `bench gap`'s second schedule) runs
//! gapbs's in-place rounds instead.

use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, reduce = sum)]
pub mod pagerank {
    pub type State = f64;
    pub type Msg = f32;
    pub type Acc = f64;
    pub const DAMPING: f64 = 0.85;
    pub const MAX_ROUNDS: u32 = 20;
    pub const TOLERANCE: f64 = 1e-4;

    pub fn init(ctx: Ctx) -> State {
        1.0 / ctx.num_vertices as f64
    }
    pub fn emit(ctx: Ctx, rank: State) -> Msg {
        (rank / ctx.out_degree as f64) as f32
    }
    pub fn gather(contribution: Msg) -> Acc {
        contribution as f64
    }
    pub fn apply(ctx: Ctx, _old: State, incoming: Acc) -> State {
        (1.0 - DAMPING) / ctx.num_vertices as f64 + DAMPING * incoming
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}
pub use pagerank::Program;
