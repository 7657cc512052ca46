//! Compressed sparse rows: the storage every engine reads.
//!
//! Vertex ids are `u32` (4 G vertices) and edge offsets `u64`, so graphs with more
//! than 4 G edges load; neighbour lists are sorted by target id after a build.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::buf::Buf;
use super::packed::WEdge;
use super::split::split_at_bounds;
use super::weight::Weight;
use crate::error::{Error, Result};

/// One direction of adjacency: `targets[offsets[v]..offsets[v+1]]` are `v`'s
/// neighbours, with `weights` (if any) aligned to `targets`.
#[derive(Clone, Debug)]
pub struct Csr<W: Weight = u32> {
    offsets: Buf<u64>,
    targets: Buf<u32>,
    weights: Option<Buf<W>>,
}

impl<W: Weight> Csr<W> {
    /// Assembles a CSR from raw arrays, checking every invariant (monotone offsets,
    /// ids in range, weight count) so that later indexing cannot go out of bounds.
    pub fn from_parts(
        offsets: Buf<u64>,
        targets: Buf<u32>,
        weights: Option<Buf<W>>,
    ) -> Result<Self> {
        if offsets.is_empty() {
            return Err(Error::InvalidGraph(
                "offset array is empty (needs n + 1 entries)".into(),
            ));
        }
        let n = offsets.len() - 1;
        if n > super::edge_list::MAX_VERTICES {
            return Err(Error::InvalidGraph(format!(
                "{n} vertices do not fit 32-bit ids"
            )));
        }
        if offsets[0] != 0 {
            return Err(Error::InvalidGraph("first offset is not 0".into()));
        }
        if offsets[n] != targets.len() as u64 {
            return Err(Error::InvalidGraph(format!(
                "last offset {} does not match the {} stored edges",
                offsets[n],
                targets.len()
            )));
        }
        if let Some(v) = offsets.par_windows(2).position_any(|w| w[0] > w[1]) {
            return Err(Error::InvalidGraph(format!(
                "offsets decrease at vertex {v}"
            )));
        }
        if let Some(i) = targets.par_iter().position_any(|&t| t as usize >= n) {
            return Err(Error::InvalidGraph(format!(
                "edge {i} points to vertex {} but there are {n} vertices",
                targets[i]
            )));
        }
        if let Some(w) = &weights {
            if w.len() != targets.len() {
                return Err(Error::InvalidGraph(format!(
                    "{} weights for {} edges",
                    w.len(),
                    targets.len()
                )));
            }
        }
        Ok(Csr {
            offsets,
            targets,
            weights,
        })
    }

    /// Like [`Csr::from_parts`] for arrays the caller built correctly itself
    /// (the builder); skips the O(E) validation.
    pub(crate) fn from_parts_unchecked(
        offsets: Vec<u64>,
        targets: Vec<u32>,
        weights: Option<Vec<W>>,
    ) -> Self {
        debug_assert_eq!(*offsets.last().unwrap_or(&0), targets.len() as u64);
        Csr {
            offsets: offsets.into(),
            targets: targets.into(),
            weights: weights.map(Buf::from),
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of stored (directed) edges.
    pub fn num_edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Offsets array (`n + 1` entries).
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Concatenated neighbour lists.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Edge weights aligned with [`Csr::targets`], if the graph is weighted.
    pub fn weights(&self) -> Option<&[W]> {
        self.weights.as_deref()
    }

    /// Whether the graph carries weights.
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Whether the arrays point into a memory-mapped file.
    pub fn is_mapped(&self) -> bool {
        self.targets.is_mapped()
    }

    /// Out-degree of `v`.
    #[inline]
    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// Edge index range of `v`.
    #[inline]
    pub fn edge_range(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// Neighbours of `v`.
    #[inline]
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.targets[self.edge_range(v)]
    }

    /// The largest out-degree (0 without vertices), computed in parallel on
    /// every call ([`Graph::max_out_degree`] keeps it).
    pub fn max_degree(&self) -> u64 {
        self.offsets
            .par_windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// Whether this is already what an undirected build would make: every
    /// edge `u→v` has its reverse `v→u` (weights not compared), no self-loops,
    /// no repeated edges. Inputs that list an undirected graph's edges both
    /// ways without being declared undirected (SNAP's road networks) pass.
    /// Rows must be sorted, as the builder leaves them; unsorted rows fail.
    pub fn is_simple_and_symmetric(&self) -> bool {
        use rayon::prelude::*;
        let n = self.num_vertices() as u32;
        (0..n).into_par_iter().all(|u| {
            let row = self.neighbors(u);
            row.windows(2).all(|w| w[0] < w[1])
                && row
                    .iter()
                    .all(|&v| v != u && self.neighbors(v).binary_search(&u).is_ok())
        })
    }

    /// Whether every row is strictly increasing, and its self loops: one
    /// parallel pass over the rows, stopped at the first unsorted one
    /// ([`Graph::row_order`] keeps the answer).
    pub fn row_order(&self) -> RowOrder {
        let n = self.num_vertices() as u32;
        let loops = (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .map(|u| {
                let row = self.neighbors(u);
                row.windows(2)
                    .all(|w| w[0] < w[1])
                    .then(|| u64::from(row.binary_search(&u).is_ok()))
            })
            .try_reduce(|| 0, |a, b| Some(a + b));
        RowOrder {
            strictly_increasing: loops.is_some(),
            self_loops: loops.unwrap_or(0),
        }
    }

    /// Weights of `v`'s edges, aligned with [`Csr::neighbors`].
    #[inline]
    pub fn neighbor_weights(&self, v: u32) -> Option<&[W]> {
        let r = self.edge_range(v);
        self.weights.as_ref().map(|w| &w[r])
    }

    /// Weight of edge `e`, or `W::ONE` for an unweighted graph.
    #[inline]
    pub fn weight(&self, e: usize) -> W {
        match &self.weights {
            Some(w) => w[e],
            None => W::ONE,
        }
    }

    /// Bytes of the arrays (what a copy to the GPU would move).
    pub fn memory_bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * 4) as u64
            + self
                .weights
                .as_ref()
                .map_or(0, |w| (w.len() * std::mem::size_of::<W>()) as u64)
    }

    /// The transposed graph (in-edges as rows), built with a parallel counting sort.
    /// Rows come out sorted by source id because sources are visited in order.
    pub fn transpose(&self) -> Csr<W> {
        let n = self.num_vertices();
        let m = self.targets.len();
        let mut counts = vec![0u64; n + 1];
        for &t in self.targets.iter() {
            counts[t as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let offsets = counts.clone();
        let mut cursor = counts;
        let mut targets = vec![0u32; m];
        let mut weights = self.weights.as_ref().map(|_| vec![W::default(); m]);
        for u in 0..n as u32 {
            for e in self.edge_range(u) {
                let t = self.targets[e] as usize;
                let pos = cursor[t] as usize;
                cursor[t] += 1;
                targets[pos] = u;
                if let (Some(dst), Some(src)) = (weights.as_mut(), self.weights.as_ref()) {
                    dst[pos] = src[e];
                }
            }
        }
        Csr::from_parts_unchecked(offsets, targets, weights)
    }

    /// The same graph with every row reordered by decreasing degree of the
    /// neighbour (ties by id), weights kept with their edges.
    ///
    /// Why: a bottom-up BFS level scans a vertex's neighbours until one is in the
    /// frontier, and on skewed graphs the frontier is where the hubs are, so
    /// trying hubs first ends most scans at the first edge. Row order changes
    /// no result of any program, only which of several equal parents is found.
    ///
    /// ```
    /// use runtime::graph::{build, BuildOptions, EdgeList};
    ///
    /// // A star around 0 plus the edge 1–2: vertex 2's row becomes [0, 1].
    /// let e = EdgeList::<u32> {
    ///     num_vertices: 4,
    ///     edges: vec![[2, 1], [0, 1], [0, 2], [0, 3]],
    ///     weights: None,
    /// };
    /// let g = build(&e, BuildOptions::undirected())?.into_csr().hubs_first();
    /// assert_eq!(g.neighbors(2), &[0, 1]);
    /// # Ok::<(), runtime::Error>(())
    /// ```
    pub fn hubs_first(self) -> Csr<W> {
        let Csr {
            offsets,
            targets,
            weights,
        } = self.into_owned();
        let mut targets = targets.into_vec();
        let mut weights = weights.map(Buf::into_vec);
        let n = offsets.len() - 1;
        let key = |t: u32| {
            let t = t as usize;
            (std::cmp::Reverse(offsets[t + 1] - offsets[t]), t)
        };
        // Rows in blocks of ~m/4096 edges, each block one slice, sorted in parallel.
        let per_block = (targets.len() / 4096).max(1024) as u64;
        let mut cuts = vec![0usize];
        for v in 0..n {
            if offsets[v + 1] - offsets[cuts[cuts.len() - 1]] >= per_block {
                cuts.push(v + 1);
            }
        }
        if cuts[cuts.len() - 1] != n {
            cuts.push(n);
        }
        let bounds: Vec<usize> = cuts.iter().map(|&v| offsets[v] as usize).collect();
        let t_blocks = split_at_bounds(&mut targets, &bounds);
        let w_blocks: Vec<Option<&mut [W]>> = match weights.as_deref_mut() {
            Some(w) => split_at_bounds(w, &bounds).into_iter().map(Some).collect(),
            None => t_blocks.iter().map(|_| None).collect(),
        };
        cuts.par_windows(2)
            .zip(t_blocks)
            .zip(w_blocks)
            .for_each(|((c, t), mut w)| {
                let (v0, v1) = (c[0], c[1]);
                let base = offsets[v0];
                let mut pairs = Vec::new();
                for v in v0..v1 {
                    let r = (offsets[v] - base) as usize..(offsets[v + 1] - base) as usize;
                    match w.as_deref_mut() {
                        None => t[r].sort_unstable_by_key(|&x| key(x)),
                        Some(w) => {
                            pairs.clear();
                            pairs.extend(
                                t[r.clone()]
                                    .iter()
                                    .copied()
                                    .zip(w[r.clone()].iter().copied()),
                            );
                            pairs.sort_unstable_by_key(|&(x, _)| key(x));
                            for (i, (x, y)) in r.zip(pairs.iter().copied()) {
                                t[i] = x;
                                w[i] = y;
                            }
                        }
                    }
                }
            });
        Csr {
            offsets,
            targets: Buf::Owned(targets),
            weights: weights.map(Buf::Owned),
        }
    }

    /// Copies mapped arrays into owned memory.
    pub fn into_owned(self) -> Csr<W> {
        Csr {
            offsets: Buf::Owned(self.offsets.into_vec()),
            targets: Buf::Owned(self.targets.into_vec()),
            weights: self.weights.map(|w| Buf::Owned(w.into_vec())),
        }
    }

    /// Same structure with every weight mapped through `f` (or added, if absent).
    pub fn with_weights<V: Weight>(&self, weights: Vec<V>) -> Result<Csr<V>> {
        if weights.len() != self.targets.len() {
            return Err(Error::InvalidGraph(format!(
                "{} weights for {} edges",
                weights.len(),
                self.targets.len()
            )));
        }
        Ok(Csr {
            offsets: self.offsets.clone(),
            targets: self.targets.clone(),
            weights: Some(Buf::Owned(weights)),
        })
    }
}

/// What is known of a graph's rows (see [`Graph::row_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowOrder {
    /// Every row sorted by target without repeats: what lets triangle counting
    /// read the rows in place instead of copying them.
    pub strictly_increasing: bool,
    /// Rows that hold their own vertex; counted only when `strictly_increasing`
    /// (0 otherwise).
    pub self_loops: u64,
}

/// A graph: out-edges (CSR) plus in-edges (CSC) and interleaved weighted
/// out-edges ([`Graph::packed`]), both built on first use.
///
/// For a symmetric graph the CSC *is* the CSR and is never built.
#[derive(Debug)]
pub struct Graph<W: Weight = u32> {
    csr: Csr<W>,
    csc: OnceLock<Csr<W>>,
    packed: OnceLock<Vec<WEdge<W>>>,
    max_out_degree: OnceLock<u64>,
    row_order: OnceLock<RowOrder>,
    symmetric: bool,
    /// See [`Graph::id`].
    id: u64,
}

/// Ids handed out by [`Graph::new`].
static NEXT_GRAPH_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl<W: Weight> Clone for Graph<W> {
    fn clone(&self) -> Self {
        let csc = OnceLock::new();
        if let Some(c) = self.csc.get() {
            let _ = csc.set(c.clone());
        }
        let packed = OnceLock::new();
        if let Some(p) = self.packed.get() {
            let _ = packed.set(p.clone());
        }
        Graph {
            csr: self.csr.clone(),
            csc,
            packed,
            max_out_degree: self.max_out_degree.clone(),
            row_order: self.row_order.clone(),
            symmetric: self.symmetric,
            id: self.id,
        }
    }
}

impl<W: Weight> Graph<W> {
    /// Wraps a CSR. `symmetric` promises that every edge `u→v` has a twin `v→u`
    /// with the same weight; pull engines then reuse the CSR as the CSC.
    pub fn new(csr: Csr<W>, symmetric: bool) -> Self {
        Graph {
            csr,
            csc: OnceLock::new(),
            packed: OnceLock::new(),
            max_out_degree: OnceLock::new(),
            row_order: OnceLock::new(),
            symmetric,
            id: NEXT_GRAPH_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// This graph's identity in the process: what caches of derived data (a copy
    /// uploaded to a GPU by `runtime::run`) are keyed by. A graph is immutable
    /// once built, so equal ids mean equal graphs: a clone keeps its original's
    /// id, and every graph built anew (from a file, a generator, a transpose)
    /// gets a fresh one.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Out-edges.
    pub fn csr(&self) -> &Csr<W> {
        &self.csr
    }

    /// The largest out-degree, computed (in parallel) once: the BFS level
    /// engine bounds a frontier's out-edges with it on every run.
    pub fn max_out_degree(&self) -> u64 {
        *self.max_out_degree.get_or_init(|| self.csr.max_degree())
    }

    /// [`Csr::row_order`] of the out-edges, found once (or recorded by the
    /// build, which knows it): triangle counting asks on every run, and the
    /// pass reads every edge.
    pub fn row_order(&self) -> RowOrder {
        *self.row_order.get_or_init(|| self.csr.row_order())
    }

    /// Records what the caller knows of the rows (the builder: sorted,
    /// deduplicated, loops dropped), so [`Self::row_order`] costs no pass.
    pub(crate) fn with_row_order(self, known: RowOrder) -> Self {
        let _ = self.row_order.set(known);
        self
    }

    /// The same graph declared undirected (`symmetric` as in [`Self::new`]),
    /// keeping what is known of its rows but not its in-edges.
    pub(crate) fn declared_symmetric(self) -> Self {
        let known = self.row_order.get().copied();
        let g = Graph::new(self.csr, true);
        match known {
            Some(r) => g.with_row_order(r),
            None => g,
        }
    }

    /// In-edges, built (once) on demand.
    pub fn csc(&self) -> &Csr<W> {
        if self.symmetric {
            return &self.csr;
        }
        self.csc.get_or_init(|| self.csr.transpose())
    }

    /// The out-edges as `(target, weight)` pairs, indexed like
    /// [`Csr::targets`] (weights `W::ONE` if the graph has none), built once,
    /// in parallel, on first use. Weighted push engines ask for it before their
    /// timed region, as gapbs's graph build is outside its trial time.
    #[inline]
    pub fn packed(&self) -> &[WEdge<W>] {
        self.packed
            .get_or_init(|| super::packed::build(self.csr.targets(), self.csr.weights()))
    }

    /// Whether the graph was built or declared undirected.
    pub fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.csr.num_vertices()
    }

    /// Number of stored directed edges.
    pub fn num_edges(&self) -> u64 {
        self.csr.num_edges()
    }

    /// [`Csr::hubs_first`] on the out-edges; a symmetric graph's in-edges are the
    /// same rows, so bottom-up traversals benefit too.
    pub fn hubs_first(self) -> Graph<W> {
        Graph::new(self.csr.hubs_first(), self.symmetric)
    }

    /// The graph with every edge reversed (its CSR is this graph's CSC): what a
    /// phase that walks edges backwards runs on (Brandes's dependency sweep). An
    /// undirected graph is its own transpose, returned as a copy.
    pub fn transposed(&self) -> Graph<W> {
        let t = Graph::new(self.csc().clone(), self.symmetric);
        if !self.symmetric {
            let _ = t.csc.set(self.csr.clone());
        }
        t
    }

    /// Unwraps the CSR.
    pub fn into_csr(self) -> Csr<W> {
        self.csr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Csr<u32> {
        // 0->1 (5), 0->2 (3), 2->1 (1)
        Csr::from_parts(
            vec![0u64, 2, 2, 3].into(),
            vec![1u32, 2, 1].into(),
            Some(vec![5u32, 3, 1].into()),
        )
        .unwrap()
    }

    #[test]
    fn accessors() {
        let g = small();
        assert_eq!(g.num_vertices(), 3);
        assert_eq!(g.num_edges(), 3);
        assert_eq!(g.neighbors(0), &[1, 2]);
        assert_eq!(g.neighbor_weights(0), Some(&[5u32, 3][..]));
        assert_eq!(g.degree(1), 0);
        assert_eq!(g.max_degree(), 2);
    }

    #[test]
    fn simple_and_symmetric_by_content() {
        let csr = |offsets: Vec<u64>, targets: Vec<u32>| {
            Csr::<u32>::from_parts(offsets.into(), targets.into(), None).unwrap()
        };
        // 0-1, 1-2 listed both ways.
        assert!(csr(vec![0, 1, 3, 4], vec![1, 0, 2, 1]).is_simple_and_symmetric());
        assert!(!small().is_simple_and_symmetric());
        // A reverse edge missing, a self-loop, a repeated edge, an unsorted row.
        assert!(!csr(vec![0, 1, 2, 3], vec![1, 0, 1]).is_simple_and_symmetric());
        assert!(!csr(vec![0, 2, 3], vec![0, 1, 0]).is_simple_and_symmetric());
        assert!(!csr(vec![0, 2, 4], vec![1, 1, 0, 0]).is_simple_and_symmetric());
        assert!(!csr(vec![0, 2, 3, 4], vec![2, 1, 0, 0]).is_simple_and_symmetric());
    }

    fn csr(offsets: Vec<u64>, targets: Vec<u32>) -> Csr<u32> {
        Csr::<u32>::from_parts(offsets.into(), targets.into(), None).unwrap()
    }

    #[test]
    fn row_order_finds_unsorted_rows_repeats_and_loops() {
        let order = |offsets: Vec<u64>, targets: Vec<u32>| csr(offsets, targets).row_order();
        let strict = |self_loops| RowOrder {
            strictly_increasing: true,
            self_loops,
        };
        let not = RowOrder {
            strictly_increasing: false,
            self_loops: 0,
        };
        assert_eq!(order(vec![0, 1, 3, 4], vec![1, 0, 2, 1]), strict(0));
        assert_eq!(order(vec![0, 2, 3], vec![0, 1, 0]), strict(1));
        assert_eq!(order(vec![0, 2, 4], vec![0, 1, 0, 1]), strict(2));
        assert_eq!(order(vec![0, 2, 4], vec![1, 1, 0, 0]), not);
        assert_eq!(order(vec![0, 2, 3, 4], vec![2, 1, 0, 0]), not);
        assert_eq!(order(vec![0], vec![]), strict(0));
        // A graph keeps what its build recorded, and finds it otherwise.
        let g = Graph::new(csr(vec![0, 2, 3], vec![1, 0, 0]), false);
        assert_eq!(g.row_order(), not);
        assert_eq!(g.clone().row_order(), not);
    }

    #[test]
    fn transpose_twice_is_identity() {
        let g = small();
        let t = g.transpose();
        assert_eq!(t.neighbors(1), &[0, 2]);
        assert_eq!(t.neighbor_weights(1), Some(&[5u32, 1][..]));
        let tt = t.transpose();
        assert_eq!(tt.offsets(), g.offsets());
        assert_eq!(tt.targets(), g.targets());
        assert_eq!(tt.weights(), g.weights());
    }

    #[test]
    fn rejects_bad_parts() {
        assert!(Csr::<u32>::from_parts(vec![0u64, 1].into(), vec![5u32].into(), None).is_err());
        assert!(Csr::<u32>::from_parts(vec![0u64, 2].into(), vec![0u32].into(), None).is_err());
        assert!(Csr::<u32>::from_parts(vec![1u64, 1].into(), vec![0u32].into(), None).is_err());
        assert!(Csr::<u32>::from_parts(vec![].into(), vec![].into(), None).is_err());
        assert!(Csr::<u32>::from_parts(
            vec![0u64, 1].into(),
            vec![0u32].into(),
            Some(vec![].into())
        )
        .is_err());
    }

    proptest::proptest! {
        /// Every row keeps its edges (with their weights) and ends up in
        /// decreasing neighbour degree, ties by id.
        #[test]
        fn hubs_first_permutes_rows(
            n in 1usize..40,
            raw in proptest::collection::vec((0u32..40, 0u32..40, 0u32..100), 0..300),
        ) {
            let mut rows = vec![Vec::new(); n];
            for &(u, v, w) in &raw {
                rows[u as usize % n].push((v % n as u32, w));
            }
            let mut offsets = vec![0u64];
            let (mut targets, mut weights) = (Vec::new(), Vec::new());
            for r in &rows {
                targets.extend(r.iter().map(|p| p.0));
                weights.extend(r.iter().map(|p| p.1));
                offsets.push(targets.len() as u64);
            }
            let g = Csr::<u32>::from_parts(offsets.into(), targets.into(), Some(weights.into()))
                .unwrap();
            let h = g.clone().hubs_first();
            proptest::prop_assert_eq!(h.offsets(), g.offsets());
            for v in 0..n as u32 {
                let pairs = |c: &Csr<u32>| {
                    let w = c.neighbor_weights(v).unwrap();
                    c.neighbors(v).iter().copied().zip(w.iter().copied()).collect::<Vec<_>>()
                };
                let (mut a, b) = (pairs(&g), pairs(&h));
                let key = |t: u32| (std::cmp::Reverse(g.degree(t)), t);
                proptest::prop_assert!(b.windows(2).all(|p| key(p[0].0) <= key(p[1].0)));
                let mut b2 = b.clone();
                a.sort_unstable();
                b2.sort_unstable();
                proptest::prop_assert_eq!(a, b2);
            }
        }
    }
}
