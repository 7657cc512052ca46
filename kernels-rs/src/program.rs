//! The operators a vertex program supplies to the skeletons.
//!
//! This is the GPU-side half of the program model (see the architecture notes):
//! `init`, the frontier test, the edge operator `relax` and the reduction `combine`.
//! Everything is an associated function on a type, so a program is a zero-sized
//! marker and the skeletons are monomorphized per program — no indirect calls on
//! the GPU.

use crate::word::StateWord;

/// A level-synchronous vertex program.
pub trait Program: 'static {
    /// The per-vertex value.
    type State: StateWord;
    /// The edge weight `relax` reads (`()` for unweighted programs: zero cost).
    type Weight: Copy + Send + Sync + 'static;

    /// Whether any thread that wins `combine` in an iteration writes the same
    /// value, so a parent recorded by any winner is valid (BFS: yes; a general
    /// min-plus program: no, parents must then come from a separate pass).
    const PARENTS_VALID: bool = false;

    /// Initial state of vertex `v` for a run from `source`.
    fn init(v: u32, source: u32) -> Self::State;

    /// Implicit frontier test: is a vertex with this state active in iteration
    /// `iter`? (BFS: `state == iter`.) Not used with an explicit [`crate::Flags`]
    /// frontier.
    fn is_active(state: Self::State, iter: u32) -> bool;

    /// The edge operator: the candidate an active vertex with `state` pushes along
    /// an edge of weight `weight`, or `None` to push nothing.
    fn relax(state: Self::State, weight: Self::Weight, iter: u32) -> Option<Self::State>;

    /// The reduction on arrival: merge `candidate` into `slot` atomically; return
    /// whether the slot changed (which activates the target). See
    /// [`crate::combine`] for the building blocks (min, max, store-if-unset, CAS).
    fn combine(slot: &<Self::State as StateWord>::Atomic, candidate: Self::State) -> bool;

    /// `combine` as one atomic, with no read first, where the kind allows
    /// (`min`/`max`): a latency-bound phase (the resident kernel's one-block
    /// rounds) saves a round trip per winning candidate. `combine` otherwise.
    #[inline(always)]
    fn combine_now(slot: &<Self::State as StateWord>::Atomic, candidate: Self::State) -> bool {
        Self::combine(slot, candidate)
    }

    /// Whether `combine` would change a slot holding `current` (its non-atomic
    /// test). The bottom-up kernel ([`crate::direction`]) uses it to skip vertices
    /// the frontier's candidate cannot improve.
    fn improves(current: Self::State, candidate: Self::State) -> bool;

    /// Scheduling priority of a state (lower first): the bucketed (near-far)
    /// traversal expands pending vertices below a moving limit first. Programs
    /// without one leave every vertex in one bucket.
    #[inline(always)]
    fn priority(_state: Self::State) -> u32 {
        0
    }

    /// The order in which the tiled kernel ([`crate::tiles`]) relaxes a tile's
    /// pending vertices (lower first, within its Δ of the lowest): relaxing out
    /// of order re-relaxes whatever a later, better state reaches again. The
    /// priority by default; the macro makes it the state itself for a `min` over
    /// an unsigned integer (BFS levels).
    #[inline(always)]
    fn order(state: Self::State) -> u32 {
        Self::priority(state)
    }
}
