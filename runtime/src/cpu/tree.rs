//! Predecessor trees recovered from final states, for any program.
//!
//! `v`'s parent is an in-neighbour `u` whose candidate `relax(state[u], w)` equals
//! `state[v]`: the edge that produced the final value. For BFS this is a Graph500
//! parent tree; for SSSP a shortest-path tree. One pass over the in-edges, in
//! parallel, after any engine (CPU or GPU) — so engines need not track parents.

use rayon::prelude::*;

use crate::graph::{Graph, Weight};
use crate::program::VertexProgram;
use crate::validate::UNREACHED;

/// `parents[v]` (`source` for the source, [`UNREACHED`] where `state` is still the
/// initial value or no in-edge explains it).
pub fn parents<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    states: &[P::State],
) -> Vec<u32> {
    let csc = g.csc();
    (0..states.len() as u32)
        .into_par_iter()
        .map(|v| {
            if v == source {
                return source;
            }
            let sv = states[v as usize];
            if sv == P::init(v, source) {
                return UNREACHED;
            }
            let ws = csc.neighbor_weights(v);
            csc.neighbors(v)
                .iter()
                .enumerate()
                .find(|&(k, &u)| {
                    let w = if P::WEIGHTED {
                        ws.map_or(<P::Weight as Weight>::ONE, |ws| ws[k])
                    } else {
                        <P::Weight as Weight>::ONE
                    };
                    u != v && P::relax(states[u as usize], w) == Some(sv)
                })
                .map_or(UNREACHED, |(_, &u)| u)
        })
        .collect()
}
