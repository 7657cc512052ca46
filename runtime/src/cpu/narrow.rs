//! Narrow states: when may a program whose values are sums of edge weights
//! (shortest paths) run with 32-bit states instead of 64-bit ones?
//!
//! Why: SSSP's inner loop is memory-bound — one state load per edge, scattered.
//! Half the bytes per state means more of them per cache line and per TLB page;
//! gapbs always uses 32-bit distances. The 64-bit path stays for graphs where a
//! path could overflow.
//!
//! The rule: every tentative distance a label-correcting engine writes (sync,
//! async, obim, delta-stepping alike) is the length of a *simple* path from the
//! source — a value is only written when it improves, and with non-negative
//! weights a walk through a vertex twice is never shorter than the value that
//! vertex already holds. A simple path has at most `n − 1` edges, and at most one
//! per vertex with an in-edge (its end vertices; an undirected graph's path of
//! `k` hops visits `k + 1` vertices with edges), each of weight at most the
//! largest one. So if
//! `max weight × that edge count < u32::MAX`, no distance (final or tentative)
//! reaches `u32::MAX`, which the 32-bit program keeps for "not reached".

use rayon::prelude::*;

use crate::graph::Graph;

/// What [`path_bound`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PathBound {
    /// Largest edge weight (0 for a graph without edges).
    pub max_weight: u64,
    /// Most edges a simple path can have.
    pub max_hops: u64,
    /// `max_weight × max_hops` (saturating): no simple path is longer.
    pub bound: u64,
}

impl PathBound {
    /// Whether every simple path's length is below `u32::MAX` (the 32-bit
    /// program's "not reached").
    pub fn fits_u32(&self) -> bool {
        self.bound < u64::from(u32::MAX)
    }
}

/// The longest a simple path of `g` can be (see the module docs). One parallel
/// pass over the weights and one over the offsets (undirected: a vertex has an
/// in-edge iff it has an out-edge; a Kronecker graph has many isolated ones) or
/// the targets (directed: a bitmap of the vertices edges point to).
pub fn path_bound(g: &Graph<u32>) -> PathBound {
    let csr = g.csr();
    let n = csr.num_vertices() as u64;
    let max_weight = match csr.weights() {
        Some(w) => w.par_iter().copied().max().map_or(0, u64::from),
        None if csr.num_edges() > 0 => 1,
        None => 0,
    };
    let hops = if g.is_symmetric() {
        let with_edges = csr.offsets().par_windows(2).filter(|o| o[1] > o[0]).count() as u64;
        // A simple path of k hops visits k + 1 distinct vertices, all on edges.
        with_edges.saturating_sub(1)
    } else {
        // k hops end at k distinct vertices, each with an in-edge.
        let hit = super::frontier::Bitmap::new(csr.num_vertices());
        csr.targets().par_iter().for_each(|&v| {
            hit.insert(v);
        });
        hit.count() as u64
    };
    let max_hops = n.saturating_sub(1).min(hops);
    PathBound {
        max_weight,
        max_hops,
        bound: max_weight.saturating_mul(max_hops),
    }
}

/// 32-bit distances as 64-bit ones: `u32::MAX` ("not reached") becomes
/// `u64::MAX`, every other value keeps its value.
pub fn widen(states: &[u32]) -> Vec<u64> {
    states
        .par_iter()
        .map(|&d| {
            if d == u32::MAX {
                u64::MAX
            } else {
                u64::from(d)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn graph(n: usize, edges: &[(u32, u32, u32)], undirected: bool) -> Graph<u32> {
        let mut el = EdgeList::<u32>::new(n);
        el.edges = edges.iter().map(|&(u, v, _)| [u, v]).collect();
        el.weights = Some(edges.iter().map(|&(_, _, w)| w).collect());
        let o = if undirected {
            BuildOptions::undirected()
        } else {
            BuildOptions::default()
        };
        build(&el, o).unwrap()
    }

    #[test]
    fn bound_counts_vertices_with_edges_when_undirected() {
        // 10 vertices, 3 of them on edges: 2 hops at most.
        let g = graph(10, &[(0, 1, 7), (1, 2, 9)], true);
        let b = path_bound(&g);
        assert_eq!((b.max_weight, b.max_hops, b.bound), (9, 2, 18));
        assert!(b.fits_u32());
        // Directed: vertices with an in-edge (1 and 2).
        let g = graph(10, &[(0, 1, 7), (1, 2, 9)], false);
        assert_eq!(path_bound(&g).max_hops, 2);
        let g = graph(3, &[(0, 1, 7), (1, 2, 9), (2, 0, 1)], false);
        assert_eq!(path_bound(&g).max_hops, 2, "never more than n − 1");
    }

    #[test]
    fn bound_at_the_limit() {
        // One edge of weight u32::MAX − 1: a path of exactly that length fits.
        let g = graph(2, &[(0, 1, u32::MAX - 1)], false);
        assert!(path_bound(&g).fits_u32());
        // Weight u32::MAX would collide with "not reached".
        let g = graph(2, &[(0, 1, u32::MAX)], false);
        assert!(!path_bound(&g).fits_u32());
        // Two hops of 2^31: overflows.
        let g = graph(3, &[(0, 1, 1 << 31), (1, 2, 1 << 31)], false);
        assert!(!path_bound(&g).fits_u32());
        // An isolated vertex adds no hop.
        let half = (u32::MAX - 1) / 2;
        let g = graph(4, &[(0, 1, half), (1, 2, half)], false);
        assert!(path_bound(&g).fits_u32());
    }

    #[test]
    fn widen_keeps_values_and_maps_unreached() {
        assert_eq!(
            widen(&[0, 5, u32::MAX - 1, u32::MAX]),
            vec![0, 5, u64::from(u32::MAX - 1), u64::MAX]
        );
    }
}
