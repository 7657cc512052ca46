//! Triangle counting (TC) on the CPU, as the GAP benchmark suite's `tc` defines
//! it: the number of unordered vertex triples that are pairwise adjacent in an
//! undirected graph (self loops and parallel edges count for nothing).
//!
//! Method (Schank & Wagner 2005, gapbs `tc.cc`'s ordered count):
//! 1. [`orient`]: rank vertices by (degree, id) ascending, rename them by rank,
//!    and keep in each row only the neighbours of higher rank, sorted, without
//!    duplicates (self loops drop out because no vertex outranks itself). Every
//!    triangle `a < b < c` is then the oriented edges `a→b`, `a→c`, `b→c`, and
//!    rows are at most `√(2m)` long, so Kronecker hubs no longer make
//!    quadratic work.
//! 2. [`count_oriented`]: for every oriented edge `a→b`, count the entries
//!    common to `a`'s row after `b` and `b`'s row
//!    ([`kernels_rs::tc::triangles_at`]: a merge, or galloping search when one
//!    list is 16× longer). The GPU kernel runs the very same function per edge.
//!
//! Like gapbs, we rank by degree only when a sampled degree distribution looks
//! skewed (`worth_ranking_by_degree`, gapbs's `WorthRelabelling`); otherwise
//! the rank is the id, which still keeps each edge once (towards the higher id)
//! and so counts each triangle once, without the sort. [`Oriented::ids`] keeps
//! the renaming for programs that report per vertex.
//!
//! [`program`] is the same engine for DSL intersection programs
//! (`#[vertex_program(intersect = ..)]`): [`orient`] shared, the user's operator
//! at every common neighbour in place of the count's `+1`.
//!
//! Parallelism: the oriented edge array is cut into equal chunks (rayon tasks),
//! each of which finds its first row by binary search over the offsets; balancing
//! by edges rather than by vertices is what keeps a hub's row from being one
//! task's whole share.

use std::time::{Duration, Instant};

use kernels_rs::skeleton::CsrView;
use kernels_rs::tc::{source_of, triangles_at};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::split::split_at_bounds;
use crate::graph::{Graph, Weight};

pub mod program;

/// The degree-ordered graph: ids are ranks, `targets[offsets[r]..offsets[r+1]]`
/// are `r`'s higher-ranked neighbours, ascending and distinct.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Oriented {
    pub offsets: Vec<u64>,
    pub targets: Vec<u32>,
    /// Rank → the graph's vertex id; empty when the ranks are the ids (no
    /// degree ordering), which saves programs that report per vertex a renaming.
    pub ids: Vec<u32>,
}

impl Oriented {
    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of oriented edges (each undirected edge once).
    pub fn num_edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The arrays as the kernels read them.
    pub fn view(&self) -> CsrView<'_> {
        CsrView {
            offsets: &self.offsets,
            targets: &self.targets,
        }
    }
}

/// A CPU count and where its time went.
#[derive(Clone, Debug)]
pub struct TcRun {
    /// Number of triangles.
    pub triangles: u64,
    /// Undirected edges after orientation (duplicates and self loops gone).
    pub oriented_edges: u64,
    /// Ranking and renaming ([`orient`]).
    pub orient_time: Duration,
    /// The intersections ([`count_oriented`]).
    pub count_time: Duration,
    /// Worker threads used.
    pub threads: usize,
}

/// Fails unless `g` is undirected: a directed graph has no triangles in this
/// sense, and counting its rows as if symmetric would give a wrong number.
pub fn check_undirected<W: Weight>(g: &Graph<W>) -> Result<()> {
    if !g.is_symmetric() {
        return Err(Error::InvalidArgument(
            "triangle counting needs an undirected graph and this one is directed: \
             pass --symmetrize (or build it with BuildOptions::undirected())"
                .into(),
        ));
    }
    Ok(())
}

/// Vertex blocks of about `per_block` row entries each (by `row_len`), as
/// `[start, end)` cuts, so that parallel tasks get similar work.
fn blocks(n: usize, per_block: u64, row_len: impl Fn(usize) -> u64) -> Vec<usize> {
    let mut cuts = vec![0usize];
    let mut acc = 0u64;
    for v in 0..n {
        acc += row_len(v) + 1;
        if acc >= per_block {
            cuts.push(v + 1);
            acc = 0;
        }
    }
    if cuts[cuts.len() - 1] != n {
        cuts.push(n);
    }
    cuts
}

/// The orientation by vertex id when every row is strictly increasing (what a
/// build produces): row `u`'s oriented edges are then the suffix of its row above
/// `u`, copied as they are, with no rank arrays, sort or deduplication. On a 1000²
/// grid this is most of the count's time otherwise (the general path makes five
/// O(n) arrays and sorts every row). `None` when some row is unsorted or has
/// duplicates: the general path handles it.
fn orient_by_id<W: Weight>(csr: &crate::graph::Csr<W>) -> Option<Oriented> {
    let n = csr.num_vertices();
    // Per row: the length of the suffix above the row's vertex.
    let lens: Option<Vec<u32>> = (0..n)
        .into_par_iter()
        .map(|u| {
            let row = csr.neighbors(u as u32);
            row.windows(2)
                .all(|w| w[0] < w[1])
                .then(|| (row.len() - row.partition_point(|&w| w <= u as u32)) as u32)
        })
        .collect();
    let lens = lens?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    for (u, &l) in lens.iter().enumerate() {
        offsets.push(offsets[u] + u64::from(l));
    }
    let total = offsets[n] as usize;
    let mut targets = vec![0u32; total];
    let per_block = (total as u64 / 1024).max(4096);
    let cuts = blocks(n, per_block, |u| u64::from(lens[u]));
    let bounds: Vec<usize> = cuts.iter().map(|&u| offsets[u] as usize).collect();
    cuts.par_windows(2)
        .zip(split_at_bounds(&mut targets, &bounds))
        .for_each(|(c, piece)| {
            let base = offsets[c[0]] as usize;
            for u in c[0]..c[1] {
                let row = csr.neighbors(u as u32);
                let len = lens[u] as usize;
                let at = offsets[u] as usize - base;
                piece[at..at + len].copy_from_slice(&row[row.len() - len..]);
            }
        });
    Some(Oriented {
        offsets,
        targets,
        ids: Vec::new(),
    })
}

/// gapbs's `WorthRelabelling`: rank by degree only when the degrees are skewed
/// (average degree at least 10 and 1.3× above the median of a sample); otherwise
/// hubs are rare and the sort costs more than it saves.
fn worth_ranking_by_degree<W: Weight>(csr: &crate::graph::Csr<W>) -> bool {
    let n = csr.num_vertices();
    if n == 0 || csr.num_edges() / (n as u64) < 10 {
        return false;
    }
    let samples = n.min(1000);
    let mut degrees: Vec<u64> = (0..samples)
        .map(|k| {
            let v =
                crate::generate::rng::below(crate::generate::rng::hash3(31, 7, k as u64), n as u64);
            csr.degree(v as u32)
        })
        .collect();
    degrees.sort_unstable();
    let average = degrees.iter().sum::<u64>() as f64 / samples as f64;
    average / 1.3 > degrees[samples / 2] as f64
}

/// Builds the degree-ordered graph of an undirected `g` (see the module docs).
///
/// Rows of `g` need not be sorted or free of duplicates and self loops: each
/// oriented row is sorted and deduplicated here, so a symmetric graph loaded
/// without `--dedup` still counts every triangle once.
pub fn orient<W: Weight>(g: &Graph<W>) -> Result<Oriented> {
    check_undirected(g)?;
    let csr = g.csr();
    let n = csr.num_vertices();
    let ranked = worth_ranking_by_degree(csr);
    if !ranked {
        if let Some(o) = orient_by_id(csr) {
            return Ok(o);
        }
    }
    let order: Vec<u32> = if ranked {
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.par_sort_unstable_by_key(|&v| (csr.degree(v), v));
        order
    } else {
        // Even degrees (grids, meshes): any total order counts each triangle once,
        // and ids cost no sort and keep the rows' locality.
        (0..n as u32).collect()
    };
    let mut rank = vec![0u32; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    // Upper bounds of the row lengths (duplicates still in), then their offsets.
    let upper: Vec<u64> = order
        .par_iter()
        .enumerate()
        .map(|(r, &v)| {
            csr.neighbors(v)
                .iter()
                .filter(|&&w| rank[w as usize] > r as u32)
                .count() as u64
        })
        .collect();
    let mut start = Vec::with_capacity(n + 1);
    start.push(0u64);
    for (r, &c) in upper.iter().enumerate() {
        start.push(start[r] + c);
    }
    let total = start[n] as usize;
    let mut targets = vec![0u32; total];
    let per_block = (total as u64 / 1024).max(4096);
    let cuts = blocks(n, per_block, |r| upper[r]);
    let bounds: Vec<usize> = cuts.iter().map(|&r| start[r] as usize).collect();
    let pieces = split_at_bounds(&mut targets, &bounds);
    // Each block fills, sorts and deduplicates its rows in place and returns their
    // lengths after deduplication.
    let lens: Vec<Vec<u64>> = cuts
        .par_windows(2)
        .zip(pieces)
        .map(|(c, piece)| {
            let base = start[c[0]];
            let mut lens = Vec::with_capacity(c[1] - c[0]);
            for r in c[0]..c[1] {
                let row = &mut piece[(start[r] - base) as usize..(start[r + 1] - base) as usize];
                let mut k = 0;
                for &w in csr.neighbors(order[r]) {
                    let rw = rank[w as usize];
                    if rw > r as u32 {
                        row[k] = rw;
                        k += 1;
                    }
                }
                row.sort_unstable();
                let mut kept = 0usize;
                for i in 0..row.len() {
                    if kept == 0 || row[i] != row[kept - 1] {
                        row[kept] = row[i];
                        kept += 1;
                    }
                }
                lens.push(kept as u64);
            }
            lens
        })
        .collect();
    let lens: Vec<u64> = lens.into_iter().flatten().collect();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    for (r, &l) in lens.iter().enumerate() {
        offsets.push(offsets[r] + l);
    }
    if offsets[n] != start[n] {
        // Duplicates were dropped: pack the rows to the front (rare: built graphs
        // are deduplicated by default).
        for r in 0..n {
            let (from, to, len) = (start[r] as usize, offsets[r] as usize, lens[r] as usize);
            targets.copy_within(from..from + len, to);
        }
        targets.truncate(offsets[n] as usize);
    }
    let ids = if ranked { order } else { Vec::new() };
    Ok(Oriented {
        offsets,
        targets,
        ids,
    })
}

/// Oriented edges per rayon task in [`count_oriented`] (at least).
const MIN_CHUNK: u64 = 1024;

/// Triangles of an oriented graph, in parallel over equal chunks of edges.
pub fn count_oriented(o: &Oriented) -> u64 {
    let m = o.num_edges();
    if m == 0 {
        return 0;
    }
    let g = o.view();
    let chunk = (m / (64 * rayon::current_num_threads() as u64)).max(MIN_CHUNK);
    (0..m.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(m));
            let mut u = source_of(g.offsets, lo);
            let mut sum = 0u64;
            for e in lo..hi {
                while g.offsets[u as usize + 1] <= e {
                    u += 1;
                }
                sum += triangles_at(&g, u, e as usize);
            }
            sum
        })
        .sum()
}

/// Counts the triangles of an undirected graph with `threads` workers (or the
/// global pool). Fails on a directed graph ([`check_undirected`]).
pub fn count<W: Weight>(g: &Graph<W>, threads: Option<usize>) -> Result<TcRun> {
    check_undirected(g)?;
    let (run, threads) = crate::cpu::in_pool(threads, || -> Result<TcRun> {
        let t0 = Instant::now();
        let o = orient(g)?;
        let orient_time = t0.elapsed();
        let t1 = Instant::now();
        let triangles = count_oriented(&o);
        Ok(TcRun {
            triangles,
            oriented_edges: o.num_edges(),
            orient_time,
            count_time: t1.elapsed(),
            threads: 0,
        })
    })?;
    let mut run = run?;
    run.threads = threads;
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn graph(n: usize, edges: &[[u32; 2]], opts: BuildOptions) -> Graph<u32> {
        let el = EdgeList::<u32> {
            num_vertices: n,
            edges: edges.to_vec(),
            weights: None,
        };
        build(&el, opts).unwrap()
    }

    #[test]
    fn clique_of_four_has_four_triangles() {
        let e = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
        let g = graph(4, &e, BuildOptions::undirected());
        let o = orient(&g).unwrap();
        assert_eq!(o.num_edges(), 6);
        assert_eq!(count_oriented(&o), 4);
        assert_eq!(count(&g, Some(1)).unwrap().triangles, 4);
    }

    #[test]
    fn duplicates_and_self_loops_kept_by_the_build_do_not_count() {
        // Symmetrized but neither deduplicated nor stripped of loops.
        let opts = BuildOptions {
            symmetrize: true,
            ..BuildOptions::default()
        };
        let e = [[0, 1], [1, 0], [0, 1], [1, 2], [2, 0], [2, 2], [0, 0]];
        let g = graph(3, &e, opts);
        let o = orient(&g).unwrap();
        assert_eq!(o.num_edges(), 3);
        assert_eq!(count_oriented(&o), 1);
    }

    #[test]
    fn directed_graphs_are_refused() {
        let g = graph(3, &[[0, 1], [1, 2], [2, 0]], BuildOptions::default());
        let e = count(&g, None).unwrap_err().to_string();
        assert!(e.contains("--symmetrize"), "{e}");
    }
}
