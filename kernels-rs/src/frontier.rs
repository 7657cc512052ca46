//! Which vertices an iteration expands.
//!
//! Two kinds: [`Implicit`], where the state itself says (BFS: `dist == level`, the
//! seed 000 full-scan test, no extra memory), and [`Flags`], an explicit
//! one-word-per-vertex frontier for programs whose state cannot tell whether it
//! changed in the last iteration (e.g. Bellman-Ford style SSSP): a vertex is active
//! if `current[v] != 0`, and a vertex whose state changed is marked in `next`.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::program::Program;

/// A frontier representation usable by the level skeletons.
pub trait Frontier<P: Program>: Sync {
    /// If `v` is active in iteration `iter`, its state (read through `load`).
    fn active(&self, v: usize, load: impl FnOnce() -> P::State, iter: u32) -> Option<P::State>;
    /// Marks `v` active for the next iteration (its state just changed).
    fn push(&self, v: usize);
}

/// The state decides: active iff [`Program::is_active`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Implicit;

impl<P: Program> Frontier<P> for Implicit {
    #[inline(always)]
    fn active(&self, _v: usize, load: impl FnOnce() -> P::State, iter: u32) -> Option<P::State> {
        let s = load();
        P::is_active(s, iter).then_some(s)
    }
    #[inline(always)]
    fn push(&self, _v: usize) {}
}

/// Explicit frontier: one word per vertex for this iteration and the next. The
/// host clears `next` before each iteration and swaps the two after it.
#[derive(Clone, Copy, Debug)]
pub struct Flags<'a> {
    pub current: &'a [AtomicU32],
    pub next: &'a [AtomicU32],
}

impl<P: Program> Frontier<P> for Flags<'_> {
    #[inline(always)]
    fn active(&self, v: usize, load: impl FnOnce() -> P::State, _iter: u32) -> Option<P::State> {
        (self.current[v].load(Relaxed) != 0).then(load)
    }
    #[inline(always)]
    fn push(&self, v: usize) {
        if self.next[v].load(Relaxed) == 0 {
            self.next[v].store(1, Relaxed);
        }
    }
}
