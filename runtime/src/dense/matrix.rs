//! A dense `n × n` matrix in row-major order, built from a graph's adjacency.
//!
//! Entries are semiring values: `d[i][j]` is the best known `i → j` path, the
//! semiring's zero (∞) where there is none. Building it is where graph weights are
//! converted and range-checked, so that the closure itself cannot overflow (see
//! [`super::semiring::Semiring::check_range`]).

use super::semiring::{Elem, Semiring};
use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

/// Largest `n` a dense matrix may have (`n²` entries must be addressable).
pub const MAX_DENSE_N: usize = 1 << 20;

/// A dense row-major `n × n` matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct DistMatrix<T> {
    n: usize,
    data: Vec<T>,
}

impl<T: Elem> DistMatrix<T> {
    /// An `n × n` matrix filled with `v`; fails cleanly if it cannot be allocated.
    pub fn filled(n: usize, v: T) -> Result<Self> {
        let len = dense_len::<T>(n)?;
        let mut data = Vec::new();
        data.try_reserve_exact(len).map_err(|_| {
            Error::InvalidArgument(format!(
                "a dense {n} × {n} matrix needs {} bytes, which cannot be allocated; use --algorithm johnson with -o to stream rows to disk",
                len as u128 * std::mem::size_of::<T>() as u128
            ))
        })?;
        data.resize(len, v);
        Ok(DistMatrix { n, data })
    }

    /// Wraps row-major data of length `n²`.
    pub fn from_vec(n: usize, data: Vec<T>) -> Result<Self> {
        if Some(data.len()) != n.checked_mul(n) {
            return Err(Error::InvalidArgument(format!(
                "matrix data has {} entries, expected {n}²",
                data.len()
            )));
        }
        Ok(DistMatrix { n, data })
    }

    /// The adjacency matrix of `g` over semiring `S`: `1̄` on the diagonal, each edge's
    /// weight (parallel edges ⊕-combined, a self-loop ⊕-combined with `1̄`), `0̄`
    /// elsewhere. `conv` maps a graph weight to `S::T` (an error for weights the
    /// element type cannot hold); an unweighted graph gives every edge `unit`.
    pub fn adjacency<S: Semiring<T = T>, W: Weight>(
        g: &Csr<W>,
        unit: T,
        conv: impl Fn(W) -> Option<T>,
    ) -> Result<Self> {
        let n = g.num_vertices();
        let mut m = DistMatrix::filled(n, S::zero())?;
        let mut range: Option<(T, T)> = None;
        for u in 0..n {
            let row = &mut m.data[u * n..(u + 1) * n];
            row[u] = S::one();
            let weights = g.neighbor_weights(u as u32);
            for (e, &v) in g.neighbors(u as u32).iter().enumerate() {
                let w = match weights {
                    Some(ws) => conv(ws[e]).ok_or_else(|| weight_refused(u, v, &ws[e], T::KIND))?,
                    None => unit,
                };
                range = Some(match range {
                    None => (w, w),
                    Some((lo, hi)) => (if w < lo { w } else { lo }, if w > hi { w } else { hi }),
                });
                let cell = &mut row[v as usize];
                *cell = S::add(*cell, w);
            }
        }
        if let Some((lo, hi)) = range {
            S::check_range(n, lo, hi)?;
        }
        Ok(m)
    }

    pub fn n(&self) -> usize {
        self.n
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> T {
        self.data[i * self.n + j]
    }

    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        self.data[i * self.n + j] = v;
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.n..(i + 1) * self.n]
    }

    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
}

/// `n²`, or an error if the matrix is too large to address.
pub fn dense_len<T>(n: usize) -> Result<usize> {
    if n > MAX_DENSE_N {
        return Err(Error::InvalidArgument(format!(
            "{n} vertices is too many for a dense matrix (at most {MAX_DENSE_N})"
        )));
    }
    n.checked_mul(n)
        .filter(|l| l.checked_mul(std::mem::size_of::<T>()).is_some())
        .ok_or_else(|| Error::InvalidArgument(format!("{n} × {n} matrix is too large")))
}

/// The next-hop matrix of a closure: `next[i·n + j]` is the vertex after `i` on a
/// best `i → j` path, [`NO_HOP`] when there is none (or `i == j`). Paths read
/// from it are exact for min-plus without negative cycles; for max-min and or-and
/// ties may make them wander (the walk then gives up after `n` hops).
pub const NO_HOP: u32 = u32::MAX;

/// Initial next hops: `next[i][j] = j` where the adjacency has an entry.
pub fn initial_next<S: Semiring>(m: &DistMatrix<S::T>) -> Vec<u32> {
    let n = m.n();
    let mut next = vec![NO_HOP; n * n];
    for i in 0..n {
        for j in 0..n {
            if i != j && !S::is_zero(m.get(i, j)) {
                next[i * n + j] = j as u32;
            }
        }
    }
    next
}

/// The path `from → … → to` by following next hops; `None` if unreachable.
/// Stops after `n` hops (a cycle in `next` can only come from a negative cycle,
/// which is reported before any path is read).
pub fn path_from_next(next: &[u32], n: usize, from: u32, to: u32) -> Option<Vec<u32>> {
    if from == to {
        return Some(vec![from]);
    }
    let mut path = vec![from];
    let mut at = from;
    while at != to {
        let h = *next.get(at as usize * n + to as usize)?;
        if h == NO_HOP || path.len() > n {
            return None;
        }
        path.push(h);
        at = h;
    }
    Some(path)
}

/// The error for an edge weight the matrix element type does not take. An
/// infinite weight gets its own reason: the element type may well hold ∞, but
/// APSP keeps ∞ for "no path", so such an edge would be one that cannot be used.
pub(crate) fn weight_refused(
    u: impl std::fmt::Display,
    v: impl std::fmt::Display,
    w: &impl crate::graph::Weight,
    kind: crate::graph::WeightKind,
) -> Error {
    if w.is_infinite() {
        Error::InvalidArgument(format!(
            "edge {u} → {v}: weight {w}: APSP keeps ∞ for \"no path\", so an edge of \
             infinite weight is refused (leave the edge out)"
        ))
    } else {
        Error::InvalidArgument(format!(
            "edge {u} → {v}: weight {w} does not fit the {kind} matrix element type"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::semiring::MinPlus;
    use crate::graph::{build, BuildOptions, EdgeList};

    #[test]
    fn adjacency_keeps_best_parallel_edge_and_checks_range() {
        let el = EdgeList::<i32> {
            num_vertices: 3,
            edges: vec![[0, 1], [0, 1], [1, 2], [2, 2]],
            weights: Some(vec![5, 3, -2, 4]),
        };
        let opts = BuildOptions {
            dedup: false,
            ..BuildOptions::default()
        };
        let g = build(&el, opts).unwrap().into_csr();
        let m = DistMatrix::adjacency::<MinPlus<i32>, i32>(&g, 1, Some).unwrap();
        assert_eq!(m.get(0, 1), 3);
        assert_eq!(m.get(1, 2), -2);
        assert_eq!(m.get(2, 2), 0);
        assert_eq!(m.get(2, 0), i32::MAX);
        let big = EdgeList::<i64> {
            num_vertices: 2,
            edges: vec![[0, 1]],
            weights: Some(vec![1 << 40]),
        };
        let g = build(&big, BuildOptions::default()).unwrap().into_csr();
        let conv = |w: i64| i32::try_from(w).ok();
        assert!(DistMatrix::adjacency::<MinPlus<i32>, i64>(&g, 1, conv).is_err());
        assert!(DistMatrix::<i32>::filled(MAX_DENSE_N + 1, 0).is_err());
    }

    #[test]
    fn path_following() {
        // 0 → 1 → 2
        let next = vec![NO_HOP, 1, 1, NO_HOP, NO_HOP, 2, NO_HOP, NO_HOP, NO_HOP];
        assert_eq!(path_from_next(&next, 3, 0, 2), Some(vec![0, 1, 2]));
        assert_eq!(path_from_next(&next, 3, 2, 0), None);
        assert_eq!(path_from_next(&next, 3, 1, 1), Some(vec![1]));
    }

    #[test]
    fn an_infinite_weight_is_refused_for_what_it_is() {
        use crate::graph::{Weight, WeightKind};
        let inf = weight_refused(1, 2, &f64::INFINITY, WeightKind::F64).to_string();
        assert!(inf.contains("infinite weight is refused"), "{inf}");
        let big = weight_refused(1, 2, &5_000_000_000u64, WeightKind::I32).to_string();
        assert!(big.contains("does not fit the"), "{big}");
        assert!(!f32::MAX.is_infinite() && Weight::is_infinite(&f32::INFINITY));
        assert!(!Weight::is_infinite(&u32::MAX));
    }
}
