//! 2-D grids and road-like graphs with integer weights.
//!
//! Road networks are the other classic shortest-path input (the DIMACS challenge
//! graphs): low, nearly uniform degree, very large diameter, weights that matter.
//! A `W × H` lattice with random weights has exactly that shape. Vertex `(x, y)` is
//! `y·W + x`; each vertex links to its right and lower neighbours, stored in both
//! directions with the same weight, so the pure lattice has `2·(2WH − W − H)`
//! directed edges.
//!
//! A pure lattice is too regular (every shortest path is a staircase, BFS levels
//! are exact diagonals), so [`Grid::road`] perturbs it, decided per edge by a
//! seeded hash:
//! * a fraction of lattice edges is removed (default 2 %: dead ends and detours; a
//!   vertex loses all four edges with probability 0.02⁴ ≈ 1.6·10⁻⁷, so the graph
//!   stays connected in practice but not by guarantee);
//! * a fraction of cells gets one diagonal shortcut, `(x, y)–(x+1, y+1)` or
//!   `(x+1, y)–(x, y+1)` (default 2 %).
//!
//! Weights are uniform in `lo..=hi` (default 1..=100), the same in both directions:
//! they equal `weights_for_edges(&edges, lo, hi, seed, true)` of [`super::weights`].

use rayon::prelude::*;

use super::rng::{chance, hash3, stream};
use super::weights::edge_weight;
use crate::error::{Error, Result};
use crate::graph::{EdgeList, MAX_VERTICES};

/// A grid generator configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Vertices per row (≥ 1).
    pub width: usize,
    /// Rows (≥ 1).
    pub height: usize,
    /// Seed of the weights, removals and diagonals.
    pub seed: u64,
    /// Inclusive weight range (within `u32`).
    pub weights: (u64, u64),
    /// Fraction of lattice edges removed, `0..=1`.
    pub removed_fraction: f64,
    /// Fraction of cells that get a diagonal shortcut, `0..=1`.
    pub diagonal_fraction: f64,
}

impl Grid {
    /// A road-like grid: weights 1..=100, 2 % of lattice edges removed, 2 % of cells
    /// with a diagonal.
    pub fn road(width: usize, height: usize, seed: u64) -> Self {
        Grid {
            width,
            height,
            seed,
            weights: (1, 100),
            removed_fraction: 0.02,
            diagonal_fraction: 0.02,
        }
    }

    /// The pure lattice (no removals, no diagonals), weights 1..=100.
    pub fn lattice(width: usize, height: usize, seed: u64) -> Self {
        Grid {
            removed_fraction: 0.0,
            diagonal_fraction: 0.0,
            ..Grid::road(width, height, seed)
        }
    }

    /// `W·H`, or an error if a side is 0 or the ids do not fit 32 bits.
    pub fn num_vertices(&self) -> Result<usize> {
        if self.width == 0 || self.height == 0 {
            return Err(Error::InvalidArgument(format!(
                "grid sides must be at least 1, got {}x{}",
                self.width, self.height
            )));
        }
        self.width
            .checked_mul(self.height)
            .filter(|&n| n <= MAX_VERTICES)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "grid {}x{} has more vertices than 32-bit ids allow ({MAX_VERTICES})",
                    self.width, self.height
                ))
            })
    }

    /// Directed edges of the pure lattice, `2·(2WH − W − H)`.
    pub fn lattice_edges(&self) -> Result<usize> {
        let n = self.num_vertices()?;
        // 2WH − W − H = (W−1)·H + W·(H−1) ≤ 2n, so ·2 fits when 4n does.
        // With diagonals at most 6n directed edges of 8 bytes each are stored.
        let undirected = (self.width - 1) * self.height + self.width * (self.height - 1);
        n.checked_mul(6 * std::mem::size_of::<[u32; 2]>())
            .filter(|&bytes| bytes <= isize::MAX as usize)
            .map(|_| 2 * undirected)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "grid {}x{} has more edges than memory can address",
                    self.width, self.height
                ))
            })
    }

    /// Generates the grid: both directions of every edge, weighted.
    pub fn generate(&self) -> Result<EdgeList<u32>> {
        let n = self.num_vertices()?;
        self.lattice_edges()?;
        for (name, p) in [
            ("removed_fraction", self.removed_fraction),
            ("diagonal_fraction", self.diagonal_fraction),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::InvalidArgument(format!(
                    "grid {name} must be in 0..=1, got {p}"
                )));
            }
        }
        if self.weights.0.max(self.weights.1) > u32::MAX as u64 {
            return Err(Error::InvalidArgument(format!(
                "grid weights {}..={} do not fit u32",
                self.weights.0, self.weights.1
            )));
        }
        let (w, h) = (self.width, self.height);
        // Tasks of whole rows, ~16 K vertices each, so the order is fixed.
        let rows_per_task = (16_384 / w).max(1);
        let tasks = h.div_ceil(rows_per_task);
        let pb = crate::progress::bar(n as u64, "grid");
        let parts: Vec<(Vec<[u32; 2]>, Vec<u32>)> = (0..tasks)
            .into_par_iter()
            .map(|t| {
                let rows = t * rows_per_task..((t + 1) * rows_per_task).min(h);
                let mut edges = Vec::with_capacity(rows.len() * w * 6);
                let mut weights = Vec::with_capacity(rows.len() * w * 6);
                for y in rows {
                    self.row(y, &mut edges, &mut weights);
                    pb.inc(w as u64);
                }
                (edges, weights)
            })
            .collect();
        pb.finish_and_clear();
        let total: usize = parts.iter().map(|p| p.0.len()).sum();
        let mut edges = Vec::with_capacity(total);
        let mut weights = Vec::with_capacity(total);
        for (e, wt) in parts {
            edges.extend_from_slice(&e);
            weights.extend_from_slice(&wt);
        }
        Ok(EdgeList {
            num_vertices: n,
            edges,
            weights: Some(weights),
        })
    }

    /// Appends row `y`'s edges: right, down, and the cell's diagonal.
    fn row(&self, y: usize, edges: &mut Vec<[u32; 2]>, weights: &mut Vec<u32>) {
        let (w, h) = (self.width, self.height);
        let (lo, hi) = self.weights;
        let seed = self.seed;
        let mut both = |a: u32, b: u32| {
            let wt = edge_weight(a, b, lo, hi, seed, true) as u32;
            edges.push([a, b]);
            edges.push([b, a]);
            weights.push(wt);
            weights.push(wt);
        };
        let kept = |a: u32, b: u32| {
            !chance(
                hash3(seed, stream::GRID_REMOVE, ((a as u64) << 32) | b as u64),
                self.removed_fraction,
            )
        };
        for x in 0..w {
            let id = (y * w + x) as u32;
            if x + 1 < w && kept(id, id + 1) {
                both(id, id + 1);
            }
            if y + 1 < h && kept(id, id + w as u32) {
                both(id, id + w as u32);
            }
            if x + 1 < w && y + 1 < h {
                let r = hash3(seed, stream::GRID_DIAGONAL, id as u64);
                if chance(r, self.diagonal_fraction) {
                    let below_right = id + w as u32 + 1;
                    // The low hash bit picks the direction; `chance` looks at the
                    // high bits, so the two are independent enough.
                    if r & 1 == 0 {
                        both(id, below_right);
                    } else {
                        both(id + 1, below_right - 1);
                    }
                }
            }
        }
    }
}

/// A road-like `width × height` grid ([`Grid::road`]): weights 1..=100, a few
/// edges removed and a few diagonal shortcuts, both directions stored.
pub fn grid(width: usize, height: usize, seed: u64) -> Result<EdgeList<u32>> {
    Grid::road(width, height, seed).generate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::weights_for_edges;
    use crate::graph::{build, BuildOptions};
    use std::collections::HashSet;

    #[test]
    fn lattice_structure() {
        for (w, h) in [(1, 1), (1, 5), (5, 1), (2, 2), (7, 3), (100, 80)] {
            let g = Grid::lattice(w, h, 1);
            let el = g.generate().unwrap();
            assert_eq!(el.num_vertices, w * h);
            assert_eq!(el.len(), 2 * (2 * w * h - w - h), "{w}x{h}");
            assert_eq!(el.len(), g.lattice_edges().unwrap());
            el.validate().unwrap();
            let set: HashSet<[u32; 2]> = el.edges.iter().copied().collect();
            assert_eq!(set.len(), el.len(), "no duplicates");
            for e in &el.edges {
                assert!(set.contains(&[e[1], e[0]]));
                let (a, b) = (e[0] as usize, e[1] as usize);
                let (ax, ay, bx, by) = (a % w, a / w, b % w, b / w);
                assert_eq!(
                    ax.abs_diff(bx) + ay.abs_diff(by),
                    1,
                    "{a}-{b} not neighbours"
                );
            }
            let g = build(&el, BuildOptions::undirected()).unwrap();
            assert_eq!(g.num_edges() as usize, el.len());
            if w > 2 && h > 2 {
                assert_eq!(g.csr().degree((w + 1) as u32), 4);
                assert_eq!(g.csr().degree(0), 2);
            }
        }
    }

    #[test]
    fn weights_in_range_and_symmetric() {
        let el = grid(60, 40, 3).unwrap();
        let w = el.weights.as_ref().unwrap();
        assert!(w.iter().all(|&x| (1..=100).contains(&x)));
        for (i, e) in el.edges.iter().enumerate().step_by(2) {
            assert_eq!(el.edges[i + 1], [e[1], e[0]]);
            assert_eq!(w[i], w[i + 1]);
        }
        assert_eq!(*w, weights_for_edges::<u32>(&el.edges, 1, 100, 3, true));
    }

    #[test]
    fn road_perturbation() {
        let (w, h) = (300, 300);
        let lattice = 2 * (2 * w * h - w - h);
        let el = grid(w, h, 5).unwrap();
        el.validate().unwrap();
        let diagonals = el
            .edges
            .iter()
            .filter(|e| {
                let (a, b) = (e[0] as usize, e[1] as usize);
                (a % w).abs_diff(b % w) == 1 && (a / w).abs_diff(b / w) == 1
            })
            .count()
            / 2;
        let cells = (w - 1) * (h - 1);
        let removed = (lattice - (el.len() - 2 * diagonals)) / 2;
        // Expect 2 % of 88,209 cells ≈ 1,764 diagonals (σ ≈ 42) and 2 % of 179,400
        // lattice edges ≈ 3,588 removals (σ ≈ 59); ±6σ.
        assert!(
            diagonals.abs_diff(cells / 50) < 260,
            "{diagonals} diagonals"
        );
        assert!(
            removed.abs_diff(lattice / 2 / 50) < 360,
            "{removed} removed"
        );
    }

    #[test]
    fn reproducible_on_any_pool_size() {
        let run = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| grid(400, 300, 9).unwrap())
        };
        assert_eq!(run(1), run(2));
        assert_ne!(run(1), grid(400, 300, 10).unwrap());
    }

    #[test]
    fn rejects_bad_sizes() {
        assert!(grid(0, 5, 0).is_err());
        assert!(grid(1 << 20, 1 << 20, 0).is_err());
        assert!(grid(usize::MAX, 2, 0).is_err());
        let bad = Grid {
            removed_fraction: 1.5,
            ..Grid::road(3, 3, 0)
        };
        assert!(bad.generate().is_err());
    }
}
