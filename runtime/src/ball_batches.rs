//! Sources of a many-sources run ordered into compact batches: runs of
//! [`LANES`] vertices that lie close together in the graph ("balls"), for the
//! batched searches of [`crate::cpu::msbfs`] and [`crate::gpu::msbfs`].
//!
//! Why: a batch of 64 searches does one level-list entry (an expansion of the
//! vertex's edges) per vertex and *distinct* depth among its lanes. On a
//! high-diameter graph (grid, road, mesh) 64 sources far apart — random picks,
//! or a grid's ids `0..64`, one row — reach most vertices at up to 64
//! different depths, so the batch expands each vertex up to 64 times and
//! shares almost nothing. The depths of a vertex from a ball of radius `r` span
//! at most `2r + 1` values (a 64-vertex ball of a grid: about a dozen), so the
//! same sources cut into balls do several times fewer expansions. On small
//! worlds (Kronecker, uniform) every source reaches most vertices within the
//! same few levels whatever the batch, and the order is left alone
//! ([`crate::shape::small_world`]).
//!
//! [`ball_order`] lists every vertex once, in balls; [`BallBatches`] applies it
//! to a caller's sources (any subset, repeats allowed) and puts per-source
//! results back in the caller's order, so only callers whose results are per
//! source (closeness, all-pairs summaries) or order-free may use it.

use std::collections::VecDeque;

use crate::cpu::msbfs::LANES;
use crate::graph::{Csr, Graph, Weight};

/// Every vertex of `out` once, in runs of [`LANES`] that are balls: a sweep
/// (breadth-first, over out- and, when given, in-edges `back`, component after
/// component) picks each ball's seed, the first vertex of the sweep not taken
/// yet, and a breadth-first search from it through vertices not taken yet
/// collects the ball, nearest first. A ball that runs out of room (a pocket
/// of untaken vertices, a small component) is filled from the next seed, which
/// the sweep keeps close by. `O(n + m)`, one thread: a 1,000² grid takes a
/// fraction of one batch's time.
///
/// Tried and dropped: re-centring each ball (seeding it a quarter, half or
/// three quarters of the way into a scouting search from the sweep's vertex,
/// away from the taken region) gave 13.0 / 13.2 / 14.5 expansions per vertex
/// a batch on a 100² grid and 7.9 / 8.2 / 9.0 on a 10,000-point mesh,
/// against 13.0 and 8.0 as here.
///
/// Seeds along a sweep, not in id order: on a mesh with random ids the lowest
/// untaken id lies anywhere, and balls started at random places leave
/// scattered pockets behind, whose remains then make straggly batches.
pub fn ball_order<W: Weight>(out: &Csr<W>, back: Option<&Csr<W>>) -> Vec<u32> {
    let n = out.num_vertices();
    let each_neighbor = |v: u32, f: &mut dyn FnMut(u32)| {
        out.neighbors(v).iter().for_each(|&u| f(u));
        if let Some(b) = back {
            b.neighbors(v).iter().for_each(|&u| f(u));
        }
    };
    let sweep = sweep_order(n, &each_neighbor);
    let mut taken = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut queue = VecDeque::new();
    let mut full = LANES;
    for &seed in &sweep {
        if taken[seed as usize] {
            continue;
        }
        taken[seed as usize] = true;
        order.push(seed);
        queue.clear();
        queue.push_back(seed);
        // A vertex is taken when found, so the ball is the seed's nearest
        // untaken vertices in search order and the queue never holds one twice.
        'ball: while let Some(v) = queue.pop_front() {
            if order.len() >= full {
                break;
            }
            let mut stop = false;
            each_neighbor(v, &mut |u| {
                if stop || taken[u as usize] {
                    return;
                }
                taken[u as usize] = true;
                order.push(u);
                queue.push_back(u);
                stop = order.len() >= full;
            });
            if stop {
                break 'ball;
            }
        }
        if order.len() >= full {
            full += LANES;
        }
    }
    order
}

/// Calls its callback with each neighbour of a vertex.
type EachNeighbor<'a> = dyn Fn(u32, &mut dyn FnMut(u32)) + 'a;

/// Every vertex once, breadth-first from vertex 0, then from the lowest vertex
/// not reached yet (the next component), over the neighbours `each_neighbor`
/// lists.
fn sweep_order(n: usize, each_neighbor: &EachNeighbor<'_>) -> Vec<u32> {
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut head = 0;
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        order.push(start as u32);
        while head < order.len() {
            let v = order[head];
            head += 1;
            each_neighbor(v, &mut |u| {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    order.push(u);
                }
            });
        }
    }
    order
}

/// How a many-sources run cuts its sources into batches of [`LANES`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Batching {
    /// Balls of nearby sources where that helps ([`BallBatches::new`]).
    #[default]
    Auto,
    /// Balls whatever the graph (for comparisons on small worlds).
    Balls,
    /// Runs of [`LANES`] in the order given (for comparisons, and callers
    /// that ordered their sources already).
    Given,
}

/// A caller's sources reordered into ball batches, and the way back.
#[derive(Clone, Debug)]
pub struct BallBatches {
    /// The sources to run, in batches of [`LANES`] (fewer only at the end).
    pub sources: Vec<u32>,
    /// `positions[i]`: where `sources[i]` stood in the caller's list; `None`
    /// when the order was left alone.
    positions: Option<Vec<usize>>,
}

impl BallBatches {
    /// `sources` (ids checked by the caller's run, not here: out-of-range ids
    /// keep their place after every valid one) ordered by their vertices'
    /// places in [`ball_order`] of the graph the searches walk (`out`, with
    /// `back` its other direction when not symmetric), repeats side by side —
    /// when that helps: more than one batch, on a graph that is not a
    /// [`crate::shape::small_world`]. Otherwise the order is kept.
    pub fn new<W: Weight>(g: &Graph<W>, sources: &[u32]) -> Self {
        if sources.len() <= LANES || crate::shape::small_world(g) {
            return Self::unchanged(sources);
        }
        Self::balls(g, sources)
    }

    /// As `batching` says: [`Self::new`], [`Self::balls`] or [`Self::unchanged`].
    pub fn with<W: Weight>(g: &Graph<W>, sources: &[u32], batching: Batching) -> Self {
        match batching {
            Batching::Auto => Self::new(g, sources),
            Batching::Balls => Self::balls(g, sources),
            Batching::Given => Self::unchanged(sources),
        }
    }

    /// `sources` in balls of [`ball_order`], whatever the graph.
    pub fn balls<W: Weight>(g: &Graph<W>, sources: &[u32]) -> Self {
        let back = (!g.is_symmetric()).then(|| g.csc());
        Self::by(&ball_order(g.csr(), back), sources)
    }

    /// `sources` as they come (the identity permutation).
    pub fn unchanged(sources: &[u32]) -> Self {
        BallBatches {
            sources: sources.to_vec(),
            positions: None,
        }
    }

    /// `sources` sorted by their vertices' places in `order` (every vertex
    /// once), ties by position; a source `order` does not hold goes last.
    pub fn by(order: &[u32], sources: &[u32]) -> Self {
        let mut place = vec![u32::MAX; order.len()];
        for (i, &v) in order.iter().enumerate() {
            place[v as usize] = i as u32;
        }
        let rank = |s: u32| place.get(s as usize).copied().unwrap_or(u32::MAX);
        let mut positions: Vec<usize> = (0..sources.len()).collect();
        positions.sort_by_key(|&i| (rank(sources[i]), i));
        BallBatches {
            sources: positions.iter().map(|&i| sources[i]).collect(),
            positions: Some(positions),
        }
    }

    /// Whether the sources were reordered.
    pub fn reordered(&self) -> bool {
        self.positions.is_some()
    }

    /// Per-source `values` (in the order of [`Self::sources`]) in the caller's
    /// order.
    pub fn back<T: Copy + Default>(&self, values: Vec<T>) -> Vec<T> {
        let Some(pos) = &self.positions else {
            return values;
        };
        let mut out = vec![T::default(); values.len()];
        for (&p, v) in pos.iter().zip(values) {
            out[p] = v;
        }
        out
    }
}

/// Level-list entries (vertex expansions) of batched searches from `sources`
/// over `g`, [`LANES`] a batch in the order given: the work a batch order
/// costs, for measurements (`vertex closeness --json` reports it on request).
pub fn expansions<W: Weight>(g: &Csr<W>, sources: &[u32]) -> crate::error::Result<u64> {
    use rayon::prelude::*;
    sources
        .par_chunks(LANES)
        .with_max_len(1)
        .map(|batch| {
            let mut entries = 0u64;
            crate::cpu::msbfs::run_serial(g, batch, |l| entries += l.reached.len() as u64)?;
            Ok(entries)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn load(spec: &str) -> Graph<u32> {
        crate::load::load_graph::<u32>(spec, &Default::default())
            .unwrap()
            .graph
    }

    fn is_permutation(order: &[u32], n: usize) {
        let mut s = order.to_vec();
        s.sort_unstable();
        assert_eq!(s, (0..n as u32).collect::<Vec<u32>>());
    }

    /// Every vertex once; on a grid a ball's vertices lie close together, and
    /// the batches do far fewer expansions than id order.
    #[test]
    fn balls_are_compact_permutations() {
        let g = load("grid:40x30");
        let order = ball_order(g.csr(), None);
        is_permutation(&order, 1200);
        // The first ball: 64 vertices within a few hops of vertex 0.
        let d = crate::oracle::bfs_levels(g.csr(), 0);
        assert!(order[..64].iter().all(|&v| d[v as usize] <= 11));
        // Every ball: within a small radius of its first vertex, bar the odd
        // pocket filled from the next seed.
        let wide = order
            .chunks(LANES)
            .filter(|b| {
                let d = crate::oracle::bfs_levels(g.csr(), b[0]);
                b.iter().any(|&v| d[v as usize] > 16)
            })
            .count();
        assert!(wide * 5 <= order.len() / LANES, "{wide} wide balls");
        let ids: Vec<u32> = (0..1200).collect();
        let (a, b) = (
            expansions(g.csr(), &ids).unwrap(),
            expansions(g.csr(), &order).unwrap(),
        );
        assert!(b * 2 < a, "balls {b} vs ids {a}");
    }

    /// Directed graphs with isolated vertices, unreachable parts and
    /// components smaller than a ball.
    #[test]
    fn odd_graphs_give_permutations() {
        let el = EdgeList::<u32> {
            num_vertices: 70,
            edges: vec![[0, 1], [1, 2], [5, 4], [69, 3]],
            weights: None,
        };
        let opts = BuildOptions {
            symmetrize: false,
            ..Default::default()
        };
        let g = build(&el, opts).unwrap();
        is_permutation(&ball_order(g.csr(), None), 70);
        is_permutation(&ball_order(g.csr(), Some(g.csc())), 70);
        let empty = build(&EdgeList::<u32>::new(0), BuildOptions::default()).unwrap();
        assert!(ball_order(empty.csr(), None).is_empty());
    }

    /// Reordered sources come back in the caller's order, repeats and
    /// out-of-range ids included.
    #[test]
    fn values_come_back_in_the_callers_order() {
        let g = load("grid:20x20");
        let sources: Vec<u32> = (0..400).rev().chain([7, 7, 399, 1000]).collect();
        let b = BallBatches::new(&g, &sources);
        assert!(b.reordered());
        let mut sorted = b.sources.clone();
        sorted.sort_unstable();
        let mut want = sources.clone();
        want.sort_unstable();
        assert_eq!(sorted, want);
        assert_eq!(b.sources.last(), Some(&1000));
        assert_eq!(b.back(b.sources.clone()), sources);
        // One batch, or a small world: left alone.
        assert!(!BallBatches::new(&g, &sources[..64]).reordered());
        assert!(!BallBatches::new(&load("kron:10"), &sources).reordered());
    }
}
