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
//! `span` is a multiple of 32, so a part's vertices are whole words of the frontier
//! bitmap and the per-level exchange is an all-gather of equal word slices.

use std::ops::Range;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, Weight};

/// Which part owns which vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Partition {
    pub parts: usize,
    pub n: u64,
    /// Vertices per part (a multiple of 32; the last part may own fewer).
    pub span: u64,
}

impl Partition {
    pub fn new(n: u64, parts: usize) -> Result<Partition> {
        if parts == 0 {
            return Err(Error::InvalidArgument("at least one GPU is needed".into()));
        }
        let per = n.div_ceil(parts as u64).max(1);
        Ok(Partition {
            parts,
            n,
            span: per.div_ceil(32) * 32,
        })
    }

    /// Vertices of part `p`.
    pub fn range(&self, p: usize) -> Range<u64> {
        let lo = (p as u64 * self.span).min(self.n);
        let hi = ((p as u64 + 1) * self.span).min(self.n);
        lo..hi
    }

    /// Bitmap words per part.
    pub fn words(&self) -> u64 {
        self.span / 32
    }

    /// Bitmap words of the exchanged (padded) frontier: `parts · words`.
    pub fn padded_words(&self) -> u64 {
        self.words() * self.parts as u64
    }
}

/// What one part holds (see the module docs).
pub struct PartGraph<W: Weight> {
    pub out: Csr<W>,
    pub incoming: Csr<W>,
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
                assert_eq!(part.span % 32, 0);
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
}
