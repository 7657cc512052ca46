//! Random integer edge weights for any graph, uniform in an inclusive range.
//!
//! Weights are hashes, not draws from a shared stream: the weight of an edge is a
//! function of `(seed, edge)`, so it is reproducible, parallel, and — for an
//! undirected graph — the same in both directions when keyed by the unordered pair
//! `{u, v}`. Keying by the edge rather than by its position also means the weight
//! survives reordering (shuffles, format conversion) unchanged.

use rayon::prelude::*;

use super::rng::{below, hash3, stream};
use crate::graph::Weight;

/// The value for hash `h` in `lo..=hi` (bounds swapped if given backwards).
#[inline]
fn in_range(h: u64, lo: u64, hi: u64) -> u64 {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    match (hi - lo).checked_add(1) {
        Some(span) => lo + below(h, span),
        None => h, // the full u64 range
    }
}

/// The weight in `lo..=hi` of the edge `u → v`; with `symmetric`, of the undirected
/// edge `{u, v}` (so `v → u` gets the same value).
#[inline]
pub fn edge_weight(u: u32, v: u32, lo: u64, hi: u64, seed: u64, symmetric: bool) -> u64 {
    let (a, b) = if symmetric && v < u { (v, u) } else { (u, v) };
    let tag = if symmetric {
        stream::WEIGHTS_BY_PAIR
    } else {
        stream::WEIGHTS_BY_ARC
    };
    in_range(hash3(seed, tag, ((a as u64) << 32) | b as u64), lo, hi)
}

/// `num_edges` independent weights uniform in `lo..=hi`, one per edge index.
///
/// Values convert with [`Weight::from_u64`]: pick a range the weight type holds
/// (e.g. at most `i32::MAX` for `i32`). `lo > hi` is read as `hi..=lo`.
pub fn random_weights<W: Weight>(num_edges: usize, lo: u64, hi: u64, seed: u64) -> Vec<W> {
    (0..num_edges as u64)
        .into_par_iter()
        .map(|i| W::from_u64(in_range(hash3(seed, stream::WEIGHTS_BY_INDEX, i), lo, hi)))
        .collect()
}

/// One weight in `lo..=hi` per edge of `edges`, each a function of the edge itself.
///
/// With `symmetric`, `u → v` and `v → u` get the same weight (use it for graphs that
/// are, or will be built, undirected; parallel copies of an edge then also share
/// their weight). Without it every directed edge `(u, v)` gets its own value.
/// `lo > hi` is read as `hi..=lo`; values convert with [`Weight::from_u64`].
///
/// ```
/// use runtime::generate::weights_for_edges;
/// let w: Vec<u32> = weights_for_edges(&[[0, 1], [1, 0], [2, 3]], 1, 100, 7, true);
/// assert_eq!(w[0], w[1]);
/// assert!(w.iter().all(|&x| (1..=100).contains(&x)));
/// ```
pub fn weights_for_edges<W: Weight>(
    edges: &[[u32; 2]],
    lo: u64,
    hi: u64,
    seed: u64,
    symmetric: bool,
) -> Vec<W> {
    edges
        .par_iter()
        .map(|e| W::from_u64(edge_weight(e[0], e[1], lo, hi, seed, symmetric)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::uniform;

    #[test]
    fn in_range_and_all_values_hit() {
        let w: Vec<u32> = random_weights(100_000, 3, 12, 5);
        assert!(w.iter().all(|&x| (3..=12).contains(&x)));
        for v in 3..=12 {
            let c = w.iter().filter(|&&x| x == v).count();
            // 10,000 expected, σ ≈ 95.
            assert!((9_400..=10_600).contains(&c), "{v}: {c}");
        }
        let same: Vec<u32> = random_weights(10, 7, 7, 1);
        assert!(same.iter().all(|&x| x == 7));
        let swapped: Vec<u64> = random_weights(1000, 12, 3, 5);
        assert!(swapped.iter().all(|&x| (3..=12).contains(&x)));
        let full: Vec<u64> = random_weights(4, 0, u64::MAX, 5);
        assert_eq!(full.len(), 4);
    }

    #[test]
    fn symmetric_weights_agree_both_ways() {
        let el = uniform(500, 20_000, 4).unwrap();
        let w: Vec<f64> = weights_for_edges(&el.edges, 1, 1000, 9, true);
        let rev: Vec<[u32; 2]> = el.edges.iter().map(|e| [e[1], e[0]]).collect();
        let wr: Vec<f64> = weights_for_edges(&rev, 1, 1000, 9, true);
        assert_eq!(w, wr);
        assert!(w
            .iter()
            .all(|&x| (1.0..=1000.0).contains(&x) && x.fract() == 0.0));

        let d: Vec<u32> = weights_for_edges(&el.edges, 1, 1000, 9, false);
        let dr: Vec<u32> = weights_for_edges(&rev, 1, 1000, 9, false);
        let differ = d.iter().zip(&dr).filter(|(a, b)| a != b).count();
        assert!(differ > el.len() * 9 / 10, "{differ}");
    }

    #[test]
    fn reproducible_and_seeded() {
        let e = [[1, 2], [3, 4], [5, 6]];
        let a: Vec<u32> = weights_for_edges(&e, 0, 1 << 30, 1, false);
        assert_eq!(a, weights_for_edges::<u32>(&e, 0, 1 << 30, 1, false));
        assert_ne!(a, weights_for_edges::<u32>(&e, 0, 1 << 30, 2, false));
        let r: Vec<u32> = random_weights(3, 0, 1 << 30, 1);
        assert_eq!(r, random_weights::<u32>(3, 0, 1 << 30, 1));
    }
}
