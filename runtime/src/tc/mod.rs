//! Triangle counting (TC) on the CPU, as the GAP benchmark suite's `tc` defines
//! it: the number of unordered vertex triples that are pairwise adjacent in an
//! undirected graph (self loops and parallel edges count for nothing).
//!
//! Method (Schank & Wagner 2005, gapbs `tc.cc`): order the vertices, meet every
//! triangle once at one edge between two of its corners, and count it as an
//! entry common to two sorted rows ([`kernels_rs::tc::triangles_at`]: a merge,
//! or galloping search when one list is 16× longer). The GPU kernel runs the very
//! same functions per edge. [`orientation`] picks the order and the rows:
//!
//! * **In place** ([`Orientation::InPlace`]), when ranking by degree is not worth
//!   it (`worth_ranking_by_degree`, gapbs's `WorthRelabelling`: grids, roads,
//!   meshes, uniform graphs) and the graph's rows are strictly increasing (what
//!   a build makes; [`Graph::row_order`] knows it): the order is the id, and the
//!   graph's own rows hold it already. Each triangle `a < b < c` is met at the
//!   edge `c → b`, as the entries common to `c`'s row before `b` and `b`'s row
//!   (gapbs's `OrderedCount`, [`kernels_rs::tc::triangles_below`]). Nothing is
//!   copied: on sparse graphs the copy, its allocation and its page faults cost
//!   more than the intersections (with the copy, 6.6× gapbs's time on a 1000²
//!   grid at 16 threads, 4.2× at 1).
//! * **A degree-ordered copy** ([`orient`], [`Orientation::Copy`]) otherwise:
//!   vertices renamed by rank (degree, id) ascending, each row keeping only the
//!   neighbours of higher rank, sorted and distinct. Every triangle `a < b < c`
//!   is then met at `a → b`, and rows are at most `√(2m)` long, so Kronecker
//!   hubs no longer make quadratic work (gapbs copies too, to relabel).
//!   [`Oriented::ids`] keeps the renaming for programs that report per vertex.
//!   Rows that may be unsorted or repeat entries (a graph loaded without
//!   `--dedup`, or reordered hubs first) take this path as well, ordered by id,
//!   since it sorts and deduplicates every row it writes.
//!
//! [`program`] is the same engine for DSL intersection programs
//! (`#[vertex_program(intersect = ..)]`): [`orientation`] shared, the user's
//! operator at every common neighbour in place of the count's `+1`.
//!
//! Parallelism: the rows' edge array is cut into equal chunks (rayon tasks),
//! each of which finds its first row by binary search over the offsets;
//! balancing by edges rather than by vertices is what keeps a hub's row from
//! being one task's whole share.

use std::time::{Duration, Instant};

use kernels_rs::skeleton::CsrView;
use kernels_rs::tc::{source_of, triangles_at, triangles_below, TriangleRows};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::split::split_at_bounds;
use crate::graph::{Csr, Graph, Weight};

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

/// The rows a count reads (see the module docs): the graph's own, or a
/// degree-ordered copy.
#[derive(Clone, Debug)]
pub enum Orientation<'g> {
    /// The graph's rows, each strictly increasing; only edges towards lower ids
    /// close triangles.
    InPlace {
        graph: CsrView<'g>,
        /// Rows holding their own vertex (not edges of the simple graph).
        self_loops: u64,
    },
    /// An oriented copy.
    Copy(Oriented),
}

impl Orientation<'_> {
    /// The rows as the kernels read them.
    pub fn rows(&self) -> TriangleRows<'_> {
        match self {
            Orientation::InPlace { graph, .. } => TriangleRows {
                graph: *graph,
                in_place: true,
            },
            Orientation::Copy(o) => TriangleRows {
                graph: o.view(),
                in_place: false,
            },
        }
    }

    /// Whether the graph's own rows are read.
    pub fn in_place(&self) -> bool {
        matches!(self, Orientation::InPlace { .. })
    }

    /// Rank → graph id (empty: ranks are ids).
    pub fn ids(&self) -> &[u32] {
        match self {
            Orientation::InPlace { .. } => &[],
            Orientation::Copy(o) => &o.ids,
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.rows().graph.num_vertices()
    }

    /// Entries of the rows read (each undirected edge twice in place, once in
    /// a copy): what the parallel tasks split.
    pub fn num_entries(&self) -> u64 {
        self.rows().graph.targets.len() as u64
    }

    /// Undirected edges of the simple graph (duplicates and self loops gone).
    pub fn undirected_edges(&self) -> u64 {
        match self {
            // Rows strictly increasing and symmetric: every other entry is one
            // of an edge's two directions.
            Orientation::InPlace { graph, self_loops } => {
                (graph.targets.len() as u64 - self_loops) / 2
            }
            Orientation::Copy(o) => o.num_edges(),
        }
    }

    /// The degree of vertex `v` (graph id) in the simple graph, if the rows say
    /// it without a pass ([`Orientation::InPlace`]).
    #[inline]
    pub(crate) fn in_place_degree(&self, v: u32) -> Option<u32> {
        match self {
            Orientation::InPlace { graph, self_loops } => {
                let row = &graph.targets
                    [graph.offsets[v as usize] as usize..graph.offsets[v as usize + 1] as usize];
                let looped = *self_loops > 0 && row.binary_search(&v).is_ok();
                Some(row.len() as u32 - u32::from(looped))
            }
            Orientation::Copy(_) => None,
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
    /// Choosing the order, and ranking and copying when a copy is made
    /// ([`orientation`]).
    pub orient_time: Duration,
    /// The intersections ([`count_rows`]).
    pub count_time: Duration,
    /// Whether the graph's own rows were read ([`Orientation::InPlace`]).
    pub in_place: bool,
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
/// `u`, copied as they are, with no rank arrays, sort or deduplication.
/// [`orientation`] reads such rows in place instead; this copy is what [`orient`]
/// returns for them (the in-place count's reference in tests). `None` when some
/// row is unsorted or has duplicates: the general path handles it.
fn orient_by_id<W: Weight>(csr: &Csr<W>) -> Option<Oriented> {
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
fn worth_ranking_by_degree<W: Weight>(csr: &Csr<W>) -> bool {
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

/// The rows to count on (see the module docs): the graph's own when the order
/// by id is the one to use and they are strictly increasing, else a
/// degree-ordered copy ([`orient`]). Fails on a directed graph.
pub fn orientation<W: Weight>(g: &Graph<W>) -> Result<Orientation<'_>> {
    check_undirected(g)?;
    let csr = g.csr();
    if !worth_ranking_by_degree(csr) {
        let rows = g.row_order();
        if rows.strictly_increasing {
            return Ok(Orientation::InPlace {
                graph: CsrView {
                    offsets: csr.offsets(),
                    targets: csr.targets(),
                },
                self_loops: rows.self_loops,
            });
        }
    }
    Ok(Orientation::Copy(orient(g)?))
}

/// Builds the oriented copy of an undirected `g` (see the module docs): ranked
/// by degree when worth it, by id otherwise. [`orientation`] makes it only when
/// the graph's own rows will not do.
///
/// Rows of `g` need not be sorted or free of duplicates and self loops: each
/// oriented row is sorted and deduplicated here, so a symmetric graph loaded
/// without `--dedup` still counts every triangle once.
pub fn orient<W: Weight>(g: &Graph<W>) -> Result<Oriented> {
    check_undirected(g)?;
    let csr = g.csr();
    let ranked = worth_ranking_by_degree(csr);
    if !ranked {
        if let Some(o) = orient_by_id(csr) {
            return Ok(o);
        }
    }
    Ok(orient_ranked(
        csr,
        ranked,
        g.row_order().strictly_increasing,
    ))
}

/// The general orientation: ranks by (degree, id) when `ranked`, else by id;
/// `distinct` says every row is strictly increasing (no duplicates to drop).
///
/// Every step is parallel and the copy is written once, in place: its row
/// lengths are counted first (exact when `distinct`), then each block of rows
/// fills, sorts and (if needed) deduplicates its own slice of the one target
/// array. Only rows that lost duplicates are moved again.
fn orient_ranked<W: Weight>(csr: &Csr<W>, ranked: bool, distinct: bool) -> Oriented {
    use kernels_rs::StateWord;
    let n = csr.num_vertices();
    let order: Vec<u32> = if ranked {
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.par_sort_unstable_by_key(|&v| (csr.degree(v), v));
        order
    } else {
        // Any total order counts each triangle once, and ids cost no sort and
        // keep the rows' locality.
        (0..n as u32).collect()
    };
    let mut rank = vec![0u32; n];
    {
        // `order` is a permutation: every slot is stored exactly once.
        let cells = u32::atomics_from_mut(&mut rank);
        order
            .par_iter()
            .enumerate()
            .with_min_len(4096)
            .for_each(|(r, &v)| u32::store(&cells[v as usize], r as u32));
    }
    // Row lengths (upper bounds while duplicates may remain), then offsets.
    let upper: Vec<u64> = order
        .par_iter()
        .enumerate()
        .with_min_len(1024)
        .map(|(r, &v)| {
            csr.neighbors(v)
                .iter()
                .filter(|&&w| rank[w as usize] > r as u32)
                .count() as u64
        })
        .collect();
    let start = offsets_of(&upper);
    let total = start[n] as usize;
    let mut targets = vec![0u32; total];
    let per_block = (total as u64 / 1024).max(4096);
    let cuts = blocks(n, per_block, |r| upper[r]);
    let bounds: Vec<usize> = cuts.iter().map(|&r| start[r] as usize).collect();
    let pieces = split_at_bounds(&mut targets, &bounds);
    // Each block fills, sorts and deduplicates its rows in place; with
    // duplicates it returns their lengths after deduplication.
    let lens: Vec<Vec<u64>> = cuts
        .par_windows(2)
        .zip(pieces)
        .map(|(c, piece)| {
            let base = start[c[0]];
            let mut lens = Vec::new();
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
                if !distinct {
                    let mut kept = 0usize;
                    for i in 0..row.len() {
                        if kept == 0 || row[i] != row[kept - 1] {
                            row[kept] = row[i];
                            kept += 1;
                        }
                    }
                    lens.push(kept as u64);
                }
            }
            lens
        })
        .collect();
    let ids = if ranked { order } else { Vec::new() };
    if distinct {
        return Oriented {
            offsets: start,
            targets,
            ids,
        };
    }
    let lens: Vec<u64> = lens.into_iter().flatten().collect();
    let offsets = offsets_of(&lens);
    if offsets[n] != start[n] {
        // Duplicates were dropped: pack the rows to the front (rare: built graphs
        // are deduplicated by default).
        for r in 0..n {
            let (from, to, len) = (start[r] as usize, offsets[r] as usize, lens[r] as usize);
            targets.copy_within(from..from + len, to);
        }
        targets.truncate(offsets[n] as usize);
    }
    Oriented {
        offsets,
        targets,
        ids,
    }
}

/// Row offsets from row lengths (`n + 1` entries).
fn offsets_of(lens: &[u64]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(lens.len() + 1);
    offsets.push(0u64);
    let mut acc = 0u64;
    for &l in lens {
        acc += l;
        offsets.push(acc);
    }
    offsets
}

/// Edges per rayon task in the counts (at least).
const MIN_CHUNK: u64 = 1024;

/// `[lo, hi)` ranges of about equal numbers of the rows' entries for the
/// current pool.
pub(crate) fn chunks(m: u64) -> impl ParallelIterator<Item = (u64, u64)> {
    let chunk = (m / (64 * rayon::current_num_threads() as u64)).max(MIN_CHUNK);
    (0..m.div_ceil(chunk))
        .into_par_iter()
        .map(move |c| (c * chunk, ((c + 1) * chunk).min(m)))
}

/// The edges in `[lo, hi)` of `rows` that close triangles, in order, each with
/// its row: all of them in an oriented copy; in place, each row's edges up to
/// its first target `>= u` (the rest lead upwards).
///
/// An iterator, so that the caller's loop body (the intersection) is compiled
/// in line with the walk: as a closure called per edge it was not inlined, and
/// on the short rows of a grid the call cost a quarter of the count.
pub(crate) struct ClosingEdges<'a> {
    offsets: &'a [u64],
    targets: &'a [u32],
    in_place: bool,
    /// The current row, the next edge, where the row (or the range) ends.
    u: u32,
    e: usize,
    row_end: usize,
    hi: usize,
}

/// [`ClosingEdges`] of `[lo, hi)`.
#[inline(always)]
pub(crate) fn closing_edges<'a>(rows: &TriangleRows<'a>, lo: u64, hi: u64) -> ClosingEdges<'a> {
    let (offsets, targets) = (rows.graph.offsets, rows.graph.targets);
    let (lo, hi) = (lo as usize, hi as usize);
    let (u, row_end) = if lo < hi {
        let u = source_of(offsets, lo as u64);
        (u, (offsets[u as usize + 1] as usize).min(hi))
    } else {
        (0, hi)
    };
    ClosingEdges {
        offsets,
        targets,
        in_place: rows.in_place,
        u,
        e: lo.min(hi),
        row_end,
        hi,
    }
}

impl Iterator for ClosingEdges<'_> {
    type Item = (u32, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(u32, usize)> {
        loop {
            if self.e < self.row_end {
                let e = self.e;
                if self.in_place && self.targets[e] >= self.u {
                    self.e = self.row_end;
                    continue;
                }
                self.e += 1;
                return Some((self.u, e));
            }
            if self.e >= self.hi {
                return None;
            }
            // The next non-empty row holds edge `e`.
            self.u += 1;
            while self.offsets[self.u as usize + 1] as usize <= self.e {
                self.u += 1;
            }
            self.row_end = (self.offsets[self.u as usize + 1] as usize).min(self.hi);
        }
    }
}

/// Triangles of an oriented graph, in parallel over equal chunks of edges.
pub fn count_oriented(o: &Oriented) -> u64 {
    let rows = TriangleRows {
        graph: o.view(),
        in_place: false,
    };
    chunks(o.num_edges())
        .map(|(lo, hi)| {
            closing_edges(&rows, lo, hi)
                .map(|(u, e)| triangles_at(&rows.graph, u, e))
                .sum::<u64>()
        })
        .sum()
}

/// Triangles of an undirected graph's own rows, each strictly increasing
/// ([`Orientation::InPlace`]), in parallel over equal chunks of edges.
pub fn count_in_place(g: CsrView<'_>) -> u64 {
    let rows = TriangleRows {
        graph: g,
        in_place: true,
    };
    chunks(g.targets.len() as u64)
        .map(|(lo, hi)| {
            closing_edges(&rows, lo, hi)
                .map(|(u, e)| triangles_below(&g, u, e))
                .sum::<u64>()
        })
        .sum()
}

/// Triangles on the rows [`orientation`] chose.
pub fn count_rows(o: &Orientation<'_>) -> u64 {
    match o {
        Orientation::InPlace { graph, .. } => count_in_place(*graph),
        Orientation::Copy(o) => count_oriented(o),
    }
}

/// Counts the triangles of an undirected graph with `threads` workers (or the
/// global pool). Fails on a directed graph ([`check_undirected`]).
pub fn count<W: Weight>(g: &Graph<W>, threads: Option<usize>) -> Result<TcRun> {
    check_undirected(g)?;
    let (run, threads) = crate::cpu::in_pool(threads, || -> Result<TcRun> {
        let t0 = Instant::now();
        let o = orientation(g)?;
        let orient_time = t0.elapsed();
        let t1 = Instant::now();
        let triangles = count_rows(&o);
        Ok(TcRun {
            triangles,
            oriented_edges: o.undirected_edges(),
            orient_time,
            count_time: t1.elapsed(),
            in_place: o.in_place(),
            threads: 0,
        })
    })?;
    let mut run = run?;
    run.threads = threads;
    Ok(run)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::generate::GenSpec;
    use crate::graph::{build, BuildOptions, EdgeList};
    use proptest::prelude::*;

    pub(crate) fn graph(n: usize, edges: &[[u32; 2]], opts: BuildOptions) -> Graph<u32> {
        let el = EdgeList::<u32> {
            num_vertices: n,
            edges: edges.to_vec(),
            weights: None,
        };
        build(&el, opts).unwrap()
    }

    /// The simple undirected graph of `g`'s rows as an adjacency matrix.
    fn matrix<W: Weight>(g: &Csr<W>) -> Vec<Vec<bool>> {
        let n = g.num_vertices();
        let mut a = vec![vec![false; n]; n];
        for u in 0..n as u32 {
            for &v in g.neighbors(u) {
                if u != v {
                    a[u as usize][v as usize] = true;
                    a[v as usize][u as usize] = true;
                }
            }
        }
        a
    }

    /// Every triple tried: the oracle of last resort, for small graphs.
    pub(crate) fn brute_force<W: Weight>(g: &Csr<W>) -> u64 {
        brute_per_vertex(g).iter().sum::<u64>() / 3
    }

    /// Triangles through each vertex, every triple tried.
    pub(crate) fn brute_per_vertex<W: Weight>(g: &Csr<W>) -> Vec<u64> {
        let a = matrix(g);
        let n = a.len();
        let mut t = vec![0u64; n];
        for i in 0..n {
            for j in i + 1..n {
                if !a[i][j] {
                    continue;
                }
                for (k, (&ik, &jk)) in a[i].iter().zip(&a[j]).enumerate().skip(j + 1) {
                    if ik && jk {
                        for v in [i, j, k] {
                            t[v] += 1;
                        }
                    }
                }
            }
        }
        t
    }

    fn generated(spec: GenSpec) -> Graph<u32> {
        let mut el = spec.generate().unwrap();
        el.weights = None;
        build(&el, BuildOptions::undirected()).unwrap()
    }

    /// Small graphs of every generated shape: (name, graph, in place expected).
    pub(crate) fn shapes() -> Vec<(&'static str, Graph<u32>, bool)> {
        vec![
            (
                "kron",
                generated(GenSpec::Kron {
                    scale: 9,
                    edgefactor: 16,
                    seed: 3,
                }),
                false,
            ),
            (
                "uniform",
                generated(GenSpec::Uniform {
                    n: 600,
                    m: 6000,
                    seed: 4,
                }),
                true,
            ),
            (
                "grid",
                generated(GenSpec::Grid {
                    w: 40,
                    h: 30,
                    seed: 5,
                }),
                true,
            ),
        ]
    }

    #[test]
    fn clique_of_four_has_four_triangles() {
        let e = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
        let g = graph(4, &e, BuildOptions::undirected());
        let o = orient(&g).unwrap();
        assert_eq!(o.num_edges(), 6);
        assert_eq!(count_oriented(&o), 4);
        let r = count(&g, Some(1)).unwrap();
        assert_eq!((r.triangles, r.oriented_edges, r.in_place), (4, 6, true));
    }

    #[test]
    fn in_place_agrees_with_the_copy_and_the_oracles_on_generated_graphs() {
        for (name, g, in_place) in shapes() {
            let expect = crate::oracle::triangles(g.csr());
            assert!(expect > 0, "{name} has triangles");
            assert_eq!(brute_force(g.csr()), expect, "{name}");
            let o = orientation(&g).unwrap();
            assert_eq!(o.in_place(), in_place, "{name}");
            let copy = orient(&g).unwrap();
            assert_eq!(o.undirected_edges(), copy.num_edges(), "{name}");
            assert_eq!(count_oriented(&copy), expect, "{name}");
            // In place is exact on any sorted rows, skewed or not.
            let own = CsrView {
                offsets: g.csr().offsets(),
                targets: g.csr().targets(),
            };
            for threads in [1, 3] {
                let (c, _) = crate::cpu::in_pool(Some(threads), || count_in_place(own)).unwrap();
                assert_eq!(c, expect, "{name}, {threads} threads");
                let r = count(&g, Some(threads)).unwrap();
                assert_eq!(r.triangles, expect, "{name}, {threads} threads");
                assert_eq!(r.in_place, in_place, "{name}");
            }
        }
    }

    #[test]
    fn duplicates_and_self_loops_kept_by_the_build_do_not_count() {
        // Symmetrized but neither deduplicated nor stripped of loops: rows repeat
        // entries, so the copy (which deduplicates) is made.
        let opts = BuildOptions {
            symmetrize: true,
            ..BuildOptions::default()
        };
        let e = [[0, 1], [1, 0], [0, 1], [1, 2], [2, 0], [2, 2], [0, 0]];
        let g = graph(3, &e, opts);
        assert!(!g.row_order().strictly_increasing);
        let o = orientation(&g).unwrap();
        assert!(!o.in_place());
        assert_eq!(o.undirected_edges(), 3);
        assert_eq!(count_rows(&o), 1);
        // Deduplicated with the loops kept: in place, the loops skipped.
        let opts = BuildOptions {
            dedup: true,
            ..opts
        };
        let g = graph(3, &e, opts);
        let o = orientation(&g).unwrap();
        assert!(o.in_place());
        assert_eq!(o.undirected_edges(), 3);
        assert_eq!(count_rows(&o), 1);
        assert_eq!(o.in_place_degree(0), Some(2));
    }

    #[test]
    fn unsorted_rows_are_copied_and_counted_exactly() {
        for (name, g, _) in shapes() {
            let expect = crate::oracle::triangles(g.csr());
            // Hubs first: every row reordered by the neighbours' degrees.
            let h = g.hubs_first();
            assert!(!h.row_order().strictly_increasing, "{name}");
            let o = orientation(&h).unwrap();
            assert!(!o.in_place(), "{name}");
            assert_eq!(count_rows(&o), expect, "{name}");
            assert_eq!(count(&h, Some(2)).unwrap().triangles, expect, "{name}");
        }
    }

    #[test]
    fn closing_edges_split_anywhere_walk_the_same_edges() {
        // Rows 0..6 with empty rows 1 and 4, a self loop on 3, every neighbour
        // listed (in place) — and the same arrays read as an oriented copy.
        let offsets = [0u64, 3, 3, 6, 10, 10, 13];
        let targets = [2u32, 3, 5, 0, 3, 5, 0, 2, 3, 5, 0, 2, 3];
        for in_place in [true, false] {
            let rows = TriangleRows {
                graph: CsrView {
                    offsets: &offsets,
                    targets: &targets,
                },
                in_place,
            };
            let m = targets.len() as u64;
            let whole: Vec<(u32, usize)> = closing_edges(&rows, 0, m).collect();
            let expect: Vec<(u32, usize)> = (0..6u32)
                .flat_map(|u| {
                    (offsets[u as usize]..offsets[u as usize + 1]).map(move |e| (u, e as usize))
                })
                .filter(|&(u, e)| !in_place || targets[e] < u)
                .collect();
            assert_eq!(whole, expect, "in place: {in_place}");
            for a in 0..=m {
                for b in a..=m {
                    let mut parts: Vec<(u32, usize)> = closing_edges(&rows, 0, a).collect();
                    parts.extend(closing_edges(&rows, a, b));
                    parts.extend(closing_edges(&rows, b, m));
                    assert_eq!(parts, whole, "cuts {a}, {b}, in place: {in_place}");
                }
            }
        }
    }

    #[test]
    fn directed_graphs_are_refused() {
        let g = graph(3, &[[0, 1], [1, 2], [2, 0]], BuildOptions::default());
        let e = count(&g, None).unwrap_err().to_string();
        assert!(e.contains("--symmetrize"), "{e}");
    }

    /// Small random edge lists, loops and repeats included.
    pub(crate) fn arb_edges() -> impl Strategy<Value = (usize, Vec<[u32; 2]>)> {
        (1usize..24).prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec((0..n as u32, 0..n as u32), 0..120)
                    .prop_map(|es| es.into_iter().map(|(a, b)| [a, b]).collect()),
            )
        })
    }

    /// A symmetric build of `edges` under each combination of the options that
    /// change the rows' order, repeats and loops.
    pub(crate) fn builds(n: usize, edges: &[[u32; 2]]) -> Vec<Graph<u32>> {
        let mut out = Vec::new();
        for dedup in [false, true] {
            for remove_self_loops in [false, true] {
                let opts = BuildOptions {
                    symmetrize: true,
                    dedup,
                    remove_self_loops,
                    relabel_by_degree: false,
                };
                out.push(graph(n, edges, opts));
            }
        }
        let hubs = graph(n, edges, BuildOptions::undirected()).hubs_first();
        out.push(hubs);
        out
    }

    proptest! {
        #[test]
        fn every_path_counts_what_brute_force_counts((n, edges) in arb_edges()) {
            for g in builds(n, &edges) {
                let expect = brute_force(g.csr());
                let o = orientation(&g).unwrap();
                // Unsorted rows or repeats never go in place (and sorted ones do
                // unless ranking by degree is worth it, which the shapes test).
                prop_assert!(!o.in_place() || g.csr().row_order().strictly_increasing);
                prop_assert_eq!(count_rows(&o), expect);
                prop_assert_eq!(count_oriented(&orient(&g).unwrap()), expect);
                if o.in_place() {
                    prop_assert_eq!(o.undirected_edges(), orient(&g).unwrap().num_edges());
                }
            }
        }
    }
}
