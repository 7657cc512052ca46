//! Personalized PageRank (Page, Brin, Motwani & Winograd 1999, §6; Jeh & Widom,
//! WWW 2003): PageRank whose random surfer, instead of jumping to a uniformly
//! random vertex, jumps back to one source vertex. The score of `v` for source
//! `s` is the probability that a walk from `s`, stopping at each step with
//! probability 1 − d, stops at `v`: the proximity of `v` to `s` that
//! recommendation ("who to follow", Gupta et al., WWW 2013) and local graph
//! clustering (Andersen, Chung & Lang, FOCS 2006) rank by.
//!
//! Dense gather/apply, as the shipped [`super::pagerank`]: each vertex emits
//! rank / out-degree, sums what its in-neighbours emitted (`gather = sum`, in
//! `f64`), and takes `teleport + d · sum`, the teleport (1 − d) going to the
//! source alone. Rank reaching a vertex without out-edges is not passed on
//! (gapbs's `pr` convention), so scores sum to at most 1. The round's
//! reduction is the L1 change; runs stop under [`ppr::TOLERANCE`] or after
//! [`ppr::MAX_ROUNDS`] rounds.
//!
//! Why it ships: a personalized score is per source, and the question is
//! usually asked of many sources (every user's recommendations, the seeds of a
//! clustering). One run per source reads every in-edge list once per source and
//! round; a batched run (`go_batched` / `go_many` of the one run call) carries
//! 64 sources as lanes of every vertex, so each round reads the graph once for
//! all of them (the CPU's [`runtime::cpu::gather::batched`], the GPU's
//! [`runtime::gpu::gather::batched`]), each lane stopping by its own tolerance.
//!
//! ```
//! use runtime::graph::{build, BuildOptions, EdgeList};
//! use runtime::run::{run, Backend};
//! use vertex_examples::programs::ppr;
//!
//! // A directed triangle 0 → 1 → 2 → 0 with a tail 2 → 3.
//! let el = EdgeList::<u32> {
//!     num_vertices: 4,
//!     edges: vec![[0, 1], [1, 2], [2, 0], [2, 3]],
//!     weights: None,
//! };
//! let g = build(&el, BuildOptions::default())?;
//! // Scores from sources 0 and 3 at once, one state vector per source.
//! let out = run::<ppr::Program>(&g)
//!     .sources([0, 3])
//!     .backend(Backend::Cpu)
//!     .go_many()?;
//! let (from0, from3) = (&out.values[0], &out.values[1]);
//! assert!(from0[0] > from0[1] && from0[1] > from0[2]); // nearer the source scores higher
//! assert_eq!(from3[3], 1.0 - ppr::ppr::DAMPING); // 3 reaches nothing: only its teleport
//! assert_eq!(from3[0], 0.0);
//! # Ok::<(), runtime::Error>(())
//! ```

use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, reduce = sum)]
pub mod ppr {
    pub type State = f64;
    pub type Msg = f64;
    pub type Acc = f64;
    /// The probability that the walk goes on at each step.
    pub const DAMPING: f64 = 0.85;
    pub const MAX_ROUNDS: u32 = 100;
    /// On the L1 change of a round: the scores' error is then below
    /// `TOLERANCE · d / (1 − d)`.
    pub const TOLERANCE: f64 = 1e-7;

    pub fn init(ctx: Ctx) -> State {
        if ctx.vertex == ctx.source {
            1.0
        } else {
            0.0
        }
    }
    pub fn emit(ctx: Ctx, rank: State) -> Msg {
        if ctx.out_degree == 0 {
            0.0 // nothing reads it: no out-edges
        } else {
            rank / ctx.out_degree as f64
        }
    }
    pub fn gather(contribution: Msg) -> Acc {
        contribution
    }
    pub fn apply(ctx: Ctx, _old: State, incoming: Acc) -> State {
        let teleport = if ctx.vertex == ctx.source {
            1.0 - DAMPING
        } else {
            0.0
        };
        teleport + DAMPING * incoming
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}
pub use ppr::Program;
