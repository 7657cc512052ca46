//! 1-D partition of the vertices over `G` parts, by destination owner (seed 004's
//! scheme): part `p` owns the vertex range `[p·span, (p+1)·span)` and holds
//!
//! * the edges *into* its range, for every source (`out`: a CSR over all `n`
//!   sources whose targets all lie in the range), which is what its top-down
//!   levels relax — a frontier vertex's edges are spread over the owners of their
//!   targets, so no part writes another part's vertices;
//! * the in-edges of its own vertices (`incoming`: rows of other vertices empty),
//!   which is what its bottom-up levels scan.
//!
//! Part boundaries are multiples of 32, so a part's vertices are whole words of
//! the frontier bitmap. Equal ranges (`span` vertices each) make the per-level
//! exchange one all-gather of equal word slices; where equal ranges hold very
//! unequal numbers of edges (a file numbered hubs first), [`Partition::for_graph`]
//! cuts the ranges by in-edges instead, and the exchange becomes one in-place
//! broadcast per part.

use std::ops::Range;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::gpu::cuda::DevBuf;
use crate::gpu::device::{Device, DeviceGraph, Incoming};
use crate::graph::{Csr, Graph, Weight};

/// Which part owns which vertices.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Partition {
    pub parts: usize,
    pub n: u64,
    /// Part `p` owns `[bounds[p], bounds[p + 1])`; `parts + 1` entries, the inner
    /// ones multiples of 32, the last `n`.
    pub bounds: Vec<u64>,
    /// `Some(span)` when part `p` owns `[p·span, (p+1)·span) ∩ [0, n)` (span a
    /// multiple of 32): the exchange is an all-gather of equal slices.
    pub span: Option<u64>,
}

/// A part's cost is its in-edges plus its vertices; the equal ranges are kept
/// unless their costliest part exceeds the balanced cut's by this factor.
pub const IMBALANCE: f64 = 1.10;

impl Partition {
    /// Equal ranges of a multiple of 32 vertices (the last part may own fewer).
    pub fn new(n: u64, parts: usize) -> Result<Partition> {
        if parts == 0 {
            return Err(Error::InvalidArgument("at least one GPU is needed".into()));
        }
        let per = n.div_ceil(parts as u64).max(1);
        let span = per.div_ceil(32) * 32;
        Ok(Partition {
            parts,
            n,
            bounds: (0..=parts as u64).map(|p| (p * span).min(n)).collect(),
            span: Some(span),
        })
    }

    /// Equal ranges of `span` vertices (a multiple of 32 with `span · parts ≥
    /// n`): the vertex ranges of ranks ([`crate::dist::RankParts`]), which
    /// their GPUs must keep.
    pub fn with_span(n: u64, parts: usize, span: u64) -> Result<Partition> {
        if parts == 0 || span % 32 != 0 || span.saturating_mul(parts as u64) < n {
            return Err(Error::InvalidArgument(format!(
                "{parts} ranges of {span} vertices do not cut {n} vertices into whole 32-vertex words"
            )));
        }
        Ok(Partition {
            parts,
            n,
            bounds: (0..=parts as u64).map(|p| (p * span).min(n)).collect(),
            span: Some(span),
        })
    }

    /// Ranges of about equal cost `in-edges + vertices` (`in_offsets`: the
    /// offsets of the in-edge CSR, `n + 1`), cut at multiples of 32.
    pub fn balanced(in_offsets: &[u64], parts: usize) -> Result<Partition> {
        if parts == 0 {
            return Err(Error::InvalidArgument("at least one GPU is needed".into()));
        }
        let n = in_offsets.len().saturating_sub(1) as u64;
        let cost = |v: u64| in_offsets[v as usize] + v;
        let total = cost(n);
        let mut bounds = vec![0u64];
        let mut v = 0u64;
        for p in 1..parts as u64 {
            let goal = total as u128 * p as u128 / parts as u128;
            // First multiple of 32 at or past v whose prefix cost reaches the goal.
            while v < n && u128::from(cost(v)) < goal {
                v = (v + 32).min(n);
            }
            let b = if v >= n { n } else { v };
            bounds.push(b);
        }
        bounds.push(n);
        Ok(Partition {
            parts,
            n,
            bounds,
            span: None,
        })
    }

    /// The partition a graph's parts use: equal ranges, unless by-cost ranges
    /// make the costliest part [`IMBALANCE`] times cheaper.
    pub fn for_graph<W: Weight>(g: &Graph<W>, parts: usize) -> Result<Partition> {
        let n = g.num_vertices() as u64;
        let equal = Partition::new(n, parts)?;
        let t = if g.is_symmetric() { g.csr() } else { g.csc() };
        let balanced = Partition::balanced(t.offsets(), parts)?;
        let worst = |p: &Partition| {
            (0..parts)
                .map(|i| {
                    let r = p.range(i);
                    let o = t.offsets();
                    (o[r.end as usize] - o[r.start as usize]) + (r.end - r.start)
                })
                .max()
                .unwrap_or(0) as f64
        };
        Ok(if worst(&equal) > IMBALANCE * worst(&balanced) {
            balanced
        } else {
            equal
        })
    }

    /// Vertices of part `p`.
    pub fn range(&self, p: usize) -> Range<u64> {
        self.bounds[p]..self.bounds[p + 1]
    }

    /// Bitmap words of part `p`'s slice: `[first, first + count)` of the
    /// exchanged bitmap (equal slices of `span / 32` words when `span` is set).
    pub fn word_slice(&self, p: usize) -> (u64, u64) {
        match self.span {
            Some(span) => (p as u64 * span / 32, span / 32),
            // An empty part owns no word (its bound may sit inside the last one).
            None => match self.range(p) {
                r if r.is_empty() => (r.start / 32, 0),
                r => (r.start / 32, r.end.div_ceil(32) - r.start / 32),
            },
        }
    }

    /// States of part `p`'s slice: `[first, first + count)` of the exchanged
    /// state array.
    pub fn state_slice(&self, p: usize) -> (u64, u64) {
        match self.span {
            Some(span) => (p as u64 * span, span),
            None => {
                let r = self.range(p);
                (r.start, r.end - r.start)
            }
        }
    }

    /// Words of the exchanged bitmap: `parts · span / 32` (padded) with equal
    /// slices, else the graph's.
    pub fn padded_words(&self) -> u64 {
        match self.span {
            Some(span) => span / 32 * self.parts as u64,
            None => self.n.div_ceil(32),
        }
    }

    /// Entries of the exchanged state array (padded like the bitmap).
    pub fn padded_states(&self) -> u64 {
        match self.span {
            Some(span) => span * self.parts as u64,
            None => self.n,
        }
    }
}

/// What one part holds (see the module docs).
pub struct PartGraph<W: Weight> {
    pub out: Csr<W>,
    pub incoming: Csr<W>,
}

impl Device {
    /// Uploads one part of a multi-GPU partition: its slice of the out-edges (and
    /// their weights if `weights`) and its vertices' in-edges.
    pub fn upload_part<W: Weight>(&self, pg: &PartGraph<W>, weights: bool) -> Result<DeviceGraph> {
        let n = pg.incoming.num_vertices();
        let m_in = pg.incoming.num_edges() as usize;
        self.gpu.check_fits(
            &format!("in-edges of a graph part ({m_in} edges)"),
            DevBuf::<u64>::bytes_for(n + 1) + DevBuf::<u32>::bytes_for(m_in),
        )?;
        let offsets = self
            .gpu
            .upload(pg.incoming.offsets(), "part in-edge offsets")?;
        let sources = self
            .gpu
            .upload(pg.incoming.targets(), "part in-edge sources")?;
        let mut d = self.upload_graph(&pg.out, weights)?;
        d.incoming = Incoming::Transpose { offsets, sources };
        Ok(d)
    }
}

/// Rows `0..n` of a CSR filled in parallel: `row(u, out)` writes vertex `u`'s
/// entries into `out` (exactly `counts[u]` of them).
fn fill<T: Copy + Default + Send>(offsets: &[u64], row: impl Fn(usize, &mut [T]) + Sync) -> Vec<T> {
    let n = offsets.len() - 1;
    let mut data = vec![T::default(); offsets[n] as usize];
    // Cut the output at block boundaries so rayon can hand out disjoint slices.
    const BLOCK: usize = 4096;
    let mut pieces = Vec::with_capacity(n.div_ceil(BLOCK));
    let mut rest: &mut [T] = &mut data;
    for b in (0..n).step_by(BLOCK) {
        let end = (b + BLOCK).min(n);
        let len = (offsets[end] - offsets[b]) as usize;
        let (head, tail) = rest.split_at_mut(len);
        pieces.push((b, end, head));
        rest = tail;
    }
    pieces.into_par_iter().for_each(|(b, end, piece)| {
        let base = offsets[b];
        for u in b..end {
            let (lo, hi) = (
                (offsets[u] - base) as usize,
                (offsets[u + 1] - base) as usize,
            );
            row(u, &mut piece[lo..hi]);
        }
    });
    data
}

fn prefix(counts: impl IndexedParallelIterator<Item = u64>) -> Vec<u64> {
    let counts: Vec<u64> = counts.collect();
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0);
    let mut acc = 0;
    for c in counts {
        acc += c;
        offsets.push(acc);
    }
    offsets
}

/// Part `p`'s graph.
pub fn part_graph<W: Weight>(g: &Graph<W>, part: &Partition, p: usize) -> Result<PartGraph<W>> {
    let csr = g.csr();
    let n = csr.num_vertices();
    if n as u64 != part.n {
        return Err(Error::InvalidArgument(format!(
            "partition is for {} vertices, the graph has {n}",
            part.n
        )));
    }
    let r = part.range(p);
    let (lo, hi) = (r.start as u32, r.end as u32);
    let inside = move |t: u32| (lo..hi).contains(&t);
    // Edges into [lo, hi), every source.
    let offsets = prefix(
        (0..n as u32)
            .into_par_iter()
            .map(|u| csr.neighbors(u).iter().filter(|&&t| inside(t)).count() as u64),
    );
    let targets = fill(&offsets, |u, out| {
        let kept = csr.neighbors(u as u32).iter().filter(|&&t| inside(t));
        for (o, &t) in out.iter_mut().zip(kept) {
            *o = t;
        }
    });
    let weights = csr.weights().map(|w| {
        fill(&offsets, |u, out| {
            let r = csr.edge_range(u as u32);
            let kept = r.filter(|&e| inside(csr.targets()[e])).map(|e| w[e]);
            for (o, x) in out.iter_mut().zip(kept) {
                *o = x;
            }
        })
    });
    let out = Csr::from_parts_unchecked(offsets, targets, weights);
    // In-edges of [lo, hi): a contiguous run of the transpose's rows.
    let t = if g.is_symmetric() { csr } else { g.csc() };
    let to = t.offsets();
    let (a, b) = (to[lo as usize], to[hi as usize]);
    let in_offsets: Vec<u64> = (0..=n)
        .map(|v| to[v.clamp(lo as usize, hi as usize)] - a)
        .collect();
    let in_targets = t.targets()[a as usize..b as usize].to_vec();
    let incoming = Csr::from_parts_unchecked(in_offsets, in_targets, None);
    Ok(PartGraph { out, incoming })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};

    #[test]
    fn parts_cover_the_graph_exactly() {
        let el = crate::generate::kronecker(8, 8, 3).unwrap();
        for (sym, opts) in [
            (true, BuildOptions::undirected()),
            (false, BuildOptions::default()),
        ] {
            let g = build(&el, opts).unwrap();
            assert_eq!(g.is_symmetric(), sym);
            for parts in [1, 2, 3, 7] {
                let part = Partition::new(g.num_vertices() as u64, parts).unwrap();
                assert_eq!(part.span.unwrap() % 32, 0);
                assert!(part.padded_words() * 32 >= part.n);
                let (mut out_edges, mut in_edges) = (0, 0);
                for p in 0..parts {
                    let pg = part_graph(&g, &part, p).unwrap();
                    let r = part.range(p);
                    assert!(pg.out.targets().iter().all(|&t| r.contains(&(t as u64))));
                    for v in 0..g.num_vertices() as u32 {
                        let mut want: Vec<u32> = g
                            .csr()
                            .neighbors(v)
                            .iter()
                            .copied()
                            .filter(|&t| r.contains(&(t as u64)))
                            .collect();
                        let mut got = pg.out.neighbors(v).to_vec();
                        want.sort();
                        got.sort();
                        assert_eq!(got, want);
                        if !r.contains(&(v as u64)) {
                            assert!(pg.incoming.neighbors(v).is_empty());
                        } else {
                            let mut want = g.csc().neighbors(v).to_vec();
                            let mut got = pg.incoming.neighbors(v).to_vec();
                            want.sort();
                            got.sort();
                            assert_eq!(got, want, "in-edges of {v}");
                        }
                    }
                    out_edges += pg.out.num_edges();
                    in_edges += pg.incoming.num_edges();
                }
                assert_eq!(out_edges, g.num_edges());
                assert_eq!(in_edges, g.num_edges());
            }
        }
        assert!(Partition::new(10, 0).is_err());
    }

    #[test]
    fn skewed_graphs_are_cut_by_in_edges() {
        // Vertex 0..64 are hubs joined to everything: equal halves are unequal.
        let n = 4096u32;
        let mut edges = Vec::new();
        for h in 0..64 {
            for v in 64..n {
                edges.push([h, v]);
            }
        }
        for v in 64..n - 1 {
            edges.push([v, v + 1]);
        }
        let el = crate::graph::EdgeList::<u32> {
            num_vertices: n as usize,
            edges,
            weights: None,
        };
        let g = build(&el, BuildOptions::undirected()).unwrap();
        let part = Partition::for_graph(&g, 2).unwrap();
        assert_eq!(part.span, None, "{part:?}");
        assert_eq!(part.bounds.len(), 3);
        assert_eq!(part.bounds[1] % 32, 0);
        let cost = |p: usize| {
            let r = part.range(p);
            let o = g.csr().offsets();
            o[r.end as usize] - o[r.start as usize] + (r.end - r.start)
        };
        let (a, b) = (cost(0) as f64, cost(1) as f64);
        assert!(a.max(b) < 1.1 * a.min(b) + 40.0 * 64.0, "{a} {b}");
        assert_eq!(part.word_slice(1).0, part.bounds[1] / 32);
        assert_eq!(part.padded_words(), u64::from(n).div_ceil(32));
        // A Kronecker graph (ids scrambled) keeps equal ranges.
        let el = crate::generate::kronecker(12, 16, 3).unwrap();
        let g = build(&el, BuildOptions::undirected()).unwrap();
        assert!(Partition::for_graph(&g, 2).unwrap().span.is_some());
        // Many parts on few vertices: empty parts at the end.
        let p = Partition::balanced(&[0, 1, 2, 3], 4).unwrap();
        assert_eq!(p.bounds, vec![0, 3, 3, 3, 3]);
        assert_eq!(p.word_slice(0), (0, 1));
        assert_eq!(p.word_slice(2), (0, 0));
    }
}
