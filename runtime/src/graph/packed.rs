//! Interleaved out-edges: `(target, weight)` side by side, gapbs's `WNode` layout.
//!
//! Why: a weighted push loop (SSSP's relax) reads both the target and the weight
//! of every edge. Kept as two arrays they are two streams, two cache lines per
//! short neighbour list and two sets of hardware-prefetch slots; interleaved they
//! are one. Bulk delta-stepping on Kronecker 20 ran about a fifth faster with
//! the interleaved copy (one thread, a 2-core machine). The copy is built once
//! per graph, on demand, and kept next to the CSR ([`super::Graph::packed`]):
//! 8 more bytes per edge for `u32` weights.

use rayon::prelude::*;

use super::weight::Weight;

/// One out-edge: its target and weight.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct WEdge<W> {
    pub to: u32,
    pub w: W,
}

/// The interleaved copy of a CSR's targets and weights, indexed like
/// [`Csr::targets`](super::Csr::targets); every weight `W::ONE` when the CSR has
/// none (what a weighted program reads from an unweighted graph). Takes the two
/// arrays, not the CSR, so that this module sits below `csr` (which keeps the
/// copy) rather than beside it.
pub(super) fn build<W: Weight>(targets: &[u32], weights: Option<&[W]>) -> Vec<WEdge<W>> {
    let targets = targets.par_iter();
    match weights {
        Some(ws) => targets
            .zip(ws.par_iter())
            .map(|(&to, &w)| WEdge { to, w })
            .collect(),
        None => targets.map(|&to| WEdge { to, w: W::ONE }).collect(),
    }
}
