//! Conversions between [`Graph`] and petgraph's `Graph`, `StableGraph` and `Csr`
//! (cargo feature `petgraph`).
//!
//! Rust code that already keeps its graph in petgraph hands it to the engines here
//! and takes results back by the same vertex numbering, without writing a file.
//!
//! # petgraph → vertex
//!
//! * `Graph::<W>::try_from(&g)` for `petgraph::Graph` (`DiGraph`, `UnGraph`),
//!   `StableGraph` and `Csr`, when the edge weight converts to `W` without loss
//!   ([`ToWeight`]: `()` gives an unweighted graph; `u8`, `u16`, `u32`, `i32`,
//!   `f32`, ... widen to the `W` that can hold them);
//! * [`from_petgraph`] for any edge weight, through a closure, returning the
//!   graph together with its [`NodeMap`].
//!
//! Edges keep their direction; an undirected petgraph graph becomes a symmetric
//! graph (each edge stored both ways, a self-loop once), so pull engines and
//! undirected programs (CC, k-core) see it as undirected. Parallel edges and
//! self-loops are kept as they are.
//!
//! **Vertex ids.** petgraph's `Graph` and `Csr` number their nodes `0..n` with no
//! gaps, so node index `i` is vertex `i`. A `StableGraph` keeps the indices of
//! removed nodes vacant; those holes are compacted: the live nodes, in increasing
//! index order, become vertices `0, 1, 2, ...` (the relative order is kept).
//! [`NodeMap`] translates both ways. Graphs with more than [`MAX_VERTICES`] nodes
//! (more than `u32` ids can name) are rejected with an error before anything is
//! allocated.
//!
//! # vertex → petgraph
//!
//! `petgraph::Graph::<(), W, Ty, Ix>::try_from(&g)` (likewise `StableGraph` and
//! `Csr`), or [`to_petgraph`] with a closure to map the weights. Vertex `v` becomes
//! node index `v`; node weights are `N::default()`; an unweighted graph's edges
//! weigh `W::ONE`. A directed target (`Directed`) gets every stored edge. An
//! undirected target (`Undirected`) needs a symmetric graph and gets each edge once
//! (both stored directions are one petgraph edge). Errors, never panics, when the
//! graph does not fit: an index type too small for the vertex or edge count, a
//! directed graph asked to become undirected, or parallel edges for a `Csr` (which
//! holds none).
//!
//! ```
//! use petgraph::graph::DiGraph;
//! use runtime::graph::{petgraph::to_petgraph, Graph};
//!
//! let mut pg = DiGraph::<&str, u32>::new();
//! let (a, b, c) = (pg.add_node("a"), pg.add_node("b"), pg.add_node("c"));
//! pg.extend_with_edges([(a, b, 4), (b, c, 1), (a, c, 7)]);
//!
//! let g = Graph::<u64>::try_from(&pg)?; // u32 weights widen to u64
//! assert_eq!(g.csr().neighbors(0), &[1, 2]);
//! assert_eq!(g.csr().neighbor_weights(0), Some(&[4u64, 7][..]));
//!
//! let back: DiGraph<(), f64> = to_petgraph(&g, |w| w as f64 / 2.0)?;
//! assert_eq!(back.edge_count(), 3);
//! # Ok::<(), runtime::Error>(())
//! ```
//!
//! Running a shipped program on a petgraph graph is shown in the `vertex-examples`
//! crate's front page.

use ::petgraph::csr::Csr as PgCsr;
use ::petgraph::graph::{Graph as PgGraph, IndexType, NodeIndex};
use ::petgraph::stable_graph::StableGraph;
use ::petgraph::visit::{EdgeRef, IntoEdgeReferences};
use ::petgraph::EdgeType;

use super::{build_consuming, BuildOptions, EdgeList, Graph, Weight, MAX_VERTICES};
use crate::error::{Error, Result};

mod sealed {
    pub trait Sealed {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::graph::Graph<N, E, Ty, Ix> {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::stable_graph::StableGraph<N, E, Ty, Ix> {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::csr::Csr<N, E, Ty, Ix> {}
}

/// An edge weight that converts to the graph's weight type `W` without loss.
///
/// Implemented for `()` (the graph is stored unweighted; engines see `W::ONE`) and
/// for every primitive number that `W: From` accepts (`u8 → u32`, `u32 → u64`,
/// `i16 → f32`, `f32 → f64`, ...). Lossy conversions (`f64 → u32`, `u64 → u32`) are
/// left to a closure in [`from_petgraph`], where the rounding is the caller's choice.
pub trait ToWeight<W: Weight> {
    /// `false` only for `()`: the graph carries no weight array.
    const WEIGHTED: bool = true;
    /// The weight as `W`.
    fn to_weight(&self) -> W;
}

impl<W: Weight> ToWeight<W> for () {
    const WEIGHTED: bool = false;
    fn to_weight(&self) -> W {
        W::ONE
    }
}

macro_rules! to_weight {
    ($w:ty: $($s:ty),*) => {$(
        impl ToWeight<$w> for $s {
            fn to_weight(&self) -> $w {
                <$w>::from(*self)
            }
        }
    )*};
}
to_weight!(u32: u8, u16, u32);
to_weight!(u64: u8, u16, u32, u64);
to_weight!(i32: u8, u16, i8, i16, i32);
to_weight!(i64: u8, u16, u32, i8, i16, i32, i64);
to_weight!(f32: u8, u16, i8, i16, f32);
to_weight!(f64: u8, u16, u32, i8, i16, i32, f32, f64);

/// A petgraph graph the import reads: `Graph`, `StableGraph` or `Csr`, with any
/// node weight, edge type and index type.
pub trait PetgraphSource: sealed::Sealed {
    /// The petgraph edge weight.
    type EdgeWeight;
    /// Whether an undirected graph's edges are listed once (`Graph`,
    /// `StableGraph`: the import adds the reverse) or twice (`Csr` stores both).
    #[doc(hidden)]
    const LISTS_BOTH_DIRECTIONS: bool;
    #[doc(hidden)]
    fn directed(&self) -> bool;
    /// Live nodes.
    #[doc(hidden)]
    fn live_nodes(&self) -> usize;
    /// One past the largest live node index (`live_nodes()` when there are no holes).
    #[doc(hidden)]
    fn index_bound(&self) -> usize;
    /// Live node indices, in increasing order.
    #[doc(hidden)]
    fn live_indices(&self) -> impl Iterator<Item = usize> + '_;
    /// Edges as (source index, target index, weight), and a capacity hint.
    #[doc(hidden)]
    fn edge_list(
        &self,
    ) -> (
        usize,
        impl Iterator<Item = (usize, usize, &Self::EdgeWeight)> + '_,
    );
}

impl<N, E, Ty: EdgeType, Ix: IndexType> PetgraphSource for PgGraph<N, E, Ty, Ix> {
    type EdgeWeight = E;
    const LISTS_BOTH_DIRECTIONS: bool = false;
    fn directed(&self) -> bool {
        self.is_directed()
    }
    fn live_nodes(&self) -> usize {
        self.node_count()
    }
    fn index_bound(&self) -> usize {
        self.node_count()
    }
    fn live_indices(&self) -> impl Iterator<Item = usize> + '_ {
        0..self.node_count()
    }
    fn edge_list(&self) -> (usize, impl Iterator<Item = (usize, usize, &E)> + '_) {
        let it = self
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), e.weight()));
        (self.edge_count(), it)
    }
}

impl<N, E, Ty: EdgeType, Ix: IndexType> PetgraphSource for StableGraph<N, E, Ty, Ix> {
    type EdgeWeight = E;
    const LISTS_BOTH_DIRECTIONS: bool = false;
    fn directed(&self) -> bool {
        self.is_directed()
    }
    fn live_nodes(&self) -> usize {
        self.node_count()
    }
    fn index_bound(&self) -> usize {
        self.node_indices().next_back().map_or(0, |i| i.index() + 1)
    }
    fn live_indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.node_indices().map(|i| i.index())
    }
    fn edge_list(&self) -> (usize, impl Iterator<Item = (usize, usize, &E)> + '_) {
        let it = self
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), e.weight()));
        (self.edge_count(), it)
    }
}

impl<N, E, Ty: EdgeType, Ix: IndexType> PetgraphSource for PgCsr<N, E, Ty, Ix> {
    type EdgeWeight = E;
    const LISTS_BOTH_DIRECTIONS: bool = true;
    fn directed(&self) -> bool {
        self.is_directed()
    }
    fn live_nodes(&self) -> usize {
        self.node_count()
    }
    fn index_bound(&self) -> usize {
        self.node_count()
    }
    fn live_indices(&self) -> impl Iterator<Item = usize> + '_ {
        0..self.node_count()
    }
    fn edge_list(&self) -> (usize, impl Iterator<Item = (usize, usize, &E)> + '_) {
        let it = self
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), e.weight()));
        (self.edge_count(), it)
    }
}

/// How petgraph node indices and vertex ids correspond after an import.
///
/// The identity for `Graph` and `Csr`, and for a `StableGraph` without holes; for
/// a `StableGraph` with removed nodes, the live nodes in increasing index order are
/// vertices `0, 1, 2, ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeMap {
    repr: MapRepr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum MapRepr {
    Identity(usize),
    Compacted {
        /// `vertex[i]`: the vertex of node index `i`, `None` for a hole.
        vertex: Vec<Option<u32>>,
        /// `index[v]`: the node index of vertex `v` (increasing).
        index: Vec<usize>,
    },
}

impl NodeMap {
    /// The vertex id of petgraph node index `index` (`NodeIndex::index()`), or
    /// `None` for a removed node or an index past the graph.
    pub fn vertex(&self, index: usize) -> Option<u32> {
        match &self.repr {
            MapRepr::Identity(n) => (index < *n).then_some(index as u32),
            MapRepr::Compacted { vertex, .. } => vertex.get(index).copied().flatten(),
        }
    }

    /// The petgraph node index of vertex `v`, or `None` past the last vertex.
    pub fn node_index(&self, v: u32) -> Option<usize> {
        match &self.repr {
            MapRepr::Identity(n) => ((v as usize) < *n).then_some(v as usize),
            MapRepr::Compacted { index, .. } => index.get(v as usize).copied(),
        }
    }

    /// The petgraph node of vertex `v` with the source graph's index type.
    pub fn node<Ix: IndexType>(&self, v: u32) -> Option<NodeIndex<Ix>> {
        self.node_index(v).map(NodeIndex::new)
    }

    /// Whether node index `i` is vertex `i` for every node (no holes were removed).
    pub fn is_identity(&self) -> bool {
        matches!(self.repr, MapRepr::Identity(_))
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        match &self.repr {
            MapRepr::Identity(n) => *n,
            MapRepr::Compacted { index, .. } => index.len(),
        }
    }

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reorders per-vertex results (e.g. a program's `states`) by petgraph node
    /// index: entry `i` belongs to node index `i`, `None` at holes.
    pub fn by_node_index<T: Copy>(&self, per_vertex: &[T]) -> Vec<Option<T>> {
        match &self.repr {
            MapRepr::Identity(_) => per_vertex.iter().copied().map(Some).collect(),
            MapRepr::Compacted { vertex, .. } => vertex
                .iter()
                .map(|v| v.and_then(|v| per_vertex.get(v as usize).copied()))
                .collect(),
        }
    }
}

/// A petgraph graph converted by [`from_petgraph`]: the graph and how its vertex
/// ids relate to the petgraph node indices.
#[derive(Clone, Debug)]
pub struct Imported<W: Weight> {
    /// The graph; symmetric when the petgraph graph was undirected.
    pub graph: Graph<W>,
    /// Node index ↔ vertex id (the identity unless a `StableGraph` had holes).
    pub nodes: NodeMap,
}

/// Converts any petgraph graph, mapping each edge weight with `weight`.
///
/// The general form of the `TryFrom` conversions: any edge weight type, and the
/// [`NodeMap`] back, which a `StableGraph` with removed nodes needs to read the
/// results by node index.
///
/// ```
/// use petgraph::stable_graph::StableDiGraph;
/// use runtime::graph::petgraph::from_petgraph;
///
/// struct Road { km: f64 }
/// let mut pg = StableDiGraph::<(), Road>::new();
/// let (a, b, c) = (pg.add_node(()), pg.add_node(()), pg.add_node(()));
/// pg.add_edge(a, c, Road { km: 2.5 });
/// pg.remove_node(b); // node index 1 is now a hole
///
/// let imported = from_petgraph(&pg, |r: &Road| r.km)?;
/// assert_eq!(imported.graph.num_vertices(), 2);
/// assert_eq!(imported.nodes.vertex(c.index()), Some(1)); // compacted
/// assert_eq!(imported.nodes.node_index(1), Some(c.index()));
/// assert_eq!(imported.graph.csr().neighbor_weights(0), Some(&[2.5][..]));
/// # Ok::<(), runtime::Error>(())
/// ```
pub fn from_petgraph<S, W>(g: &S, weight: impl FnMut(&S::EdgeWeight) -> W) -> Result<Imported<W>>
where
    S: PetgraphSource,
    W: Weight,
{
    import(g, true, weight)
}

/// Rejects vertex counts that `u32` ids cannot name, before anything is allocated.
fn check_vertex_count(n: usize) -> Result<()> {
    if n > MAX_VERTICES {
        return Err(Error::InvalidGraph(format!(
            "the petgraph graph has {n} nodes; vertex ids are 32-bit (at most {MAX_VERTICES} vertices)"
        )));
    }
    Ok(())
}

fn import<S, W, F>(g: &S, weighted: bool, mut weight: F) -> Result<Imported<W>>
where
    S: PetgraphSource + ?Sized,
    W: Weight,
    F: FnMut(&S::EdgeWeight) -> W,
{
    let n = g.live_nodes();
    check_vertex_count(n)?;
    let bound = g.index_bound();
    let nodes = if bound == n {
        NodeMap {
            repr: MapRepr::Identity(n),
        }
    } else {
        // Holes: live nodes keep their relative order and close up.
        let mut vertex = vec![None; bound];
        let mut index = Vec::with_capacity(n);
        for (v, i) in g.live_indices().enumerate() {
            vertex[i] = Some(v as u32);
            index.push(i);
        }
        NodeMap {
            repr: MapRepr::Compacted { vertex, index },
        }
    };
    let (hint, list) = g.edge_list();
    let mut edges = Vec::with_capacity(hint);
    let mut weights = weighted.then(|| Vec::with_capacity(hint));
    for (s, t, w) in list {
        let end = |i: usize| {
            nodes.vertex(i).ok_or_else(|| {
                Error::InvalidGraph(format!("petgraph edge end {i} is not a live node"))
            })
        };
        edges.push([end(s)?, end(t)?]);
        if let Some(ws) = weights.as_mut() {
            ws.push(weight(w));
        }
    }
    let el = EdgeList {
        num_vertices: n,
        edges,
        weights,
    };
    let undirected = !g.directed();
    let opts = BuildOptions {
        symmetrize: undirected && !S::LISTS_BOTH_DIRECTIONS,
        ..BuildOptions::default()
    };
    let built = build_consuming(el, opts)?;
    // A `Csr` already lists both directions: symmetric as stored.
    let graph = if undirected && S::LISTS_BOTH_DIRECTIONS {
        Graph::new(built.into_csr(), true)
    } else {
        built
    };
    Ok(Imported { graph, nodes })
}

macro_rules! try_from_petgraph {
    ($pg:ident) => {
        /// Imports the petgraph graph (see the [module docs](self) for the id
        /// mapping); the edge weight converts through [`ToWeight`].
        impl<N, E, Ty, Ix, W> TryFrom<&$pg<N, E, Ty, Ix>> for Graph<W>
        where
            Ty: EdgeType,
            Ix: IndexType,
            W: Weight,
            E: ToWeight<W>,
        {
            type Error = Error;
            fn try_from(g: &$pg<N, E, Ty, Ix>) -> Result<Self> {
                Ok(import(g, E::WEIGHTED, E::to_weight)?.graph)
            }
        }
    };
}
try_from_petgraph!(PgGraph);
try_from_petgraph!(StableGraph);
try_from_petgraph!(PgCsr);

/// A petgraph graph type [`to_petgraph`] can produce: `Graph`, `StableGraph` or
/// `Csr` with `N: Default` node weights.
pub trait PetgraphTarget: Sized + sealed::Sealed {
    /// The petgraph edge weight.
    type EdgeWeight;
    #[doc(hidden)]
    fn from_graph<W: Weight>(
        g: &Graph<W>,
        weight: impl FnMut(W) -> Self::EdgeWeight,
    ) -> Result<Self>;
}

/// Converts to a petgraph graph, mapping each weight with `weight` (vertex `v`
/// becomes node index `v`; see the [module docs](self) for directions).
pub fn to_petgraph<T: PetgraphTarget, W: Weight>(
    g: &Graph<W>,
    weight: impl FnMut(W) -> T::EdgeWeight,
) -> Result<T> {
    T::from_graph(g, weight)
}

/// Whether `count` nodes or edges get indices below the index type's `max()`
/// (petgraph reserves it as the end marker, except for `usize`).
fn fits<Ix: IndexType>(count: usize) -> bool {
    let max = <Ix as IndexType>::max().index();
    max == usize::MAX || count <= max
}

fn index_too_small<Ix: IndexType>(what: &str, count: u64) -> Error {
    Error::InvalidArgument(format!(
        "{count} {what} do not fit the petgraph index type {} (max index {}); use a wider one",
        std::any::type_name::<Ix>(),
        <Ix as IndexType>::max().index()
    ))
}

/// An undirected target needs a symmetric graph: a directed edge `u→v` alone has
/// no undirected meaning, and dropping its direction silently would change paths.
fn check_direction<W: Weight>(g: &Graph<W>, directed: bool) -> Result<()> {
    if !directed && !g.is_symmetric() {
        return Err(Error::InvalidArgument(
            "an undirected petgraph graph needs a symmetric graph; build with \
             `symmetrize` or convert to a directed petgraph graph"
                .into(),
        ));
    }
    Ok(())
}

/// The stored edges a petgraph graph of edge type `Ty` gets, as
/// (source, target, edge index). Directed: all of them. Undirected: needs a
/// symmetric graph; each pair once, from its smaller end (`u <= v`), so the two
/// stored directions become one petgraph edge.
fn edges_for<W: Weight>(
    g: &Graph<W>,
    directed: bool,
) -> Result<impl Iterator<Item = (u32, u32, usize)> + '_> {
    check_direction(g, directed)?;
    let csr = g.csr();
    Ok((0..csr.num_vertices() as u32).flat_map(move |u| {
        csr.edge_range(u)
            .map(move |e| (u, csr.targets()[e], e))
            .filter(move |&(u, v, _)| directed || u <= v)
    }))
}

impl<N, E, Ty, Ix> PetgraphTarget for PgGraph<N, E, Ty, Ix>
where
    N: Default,
    Ty: EdgeType,
    Ix: IndexType,
{
    type EdgeWeight = E;
    fn from_graph<W: Weight>(g: &Graph<W>, mut weight: impl FnMut(W) -> E) -> Result<Self> {
        let n = g.num_vertices();
        if !fits::<Ix>(n) {
            return Err(index_too_small::<Ix>("vertices", n as u64));
        }
        let stored = g.num_edges();
        let m = if Ty::is_directed() {
            stored
        } else {
            stored / 2 + 1
        };
        let mut pg = PgGraph::with_capacity(n, usize::try_from(m).unwrap_or(usize::MAX));
        for _ in 0..n {
            pg.try_add_node(N::default())
                .map_err(|_| index_too_small::<Ix>("vertices", n as u64))?;
        }
        let csr = g.csr();
        for (u, v, e) in edges_for(g, Ty::is_directed())? {
            pg.try_add_edge(
                NodeIndex::new(u as usize),
                NodeIndex::new(v as usize),
                weight(csr.weight(e)),
            )
            .map_err(|_| index_too_small::<Ix>("edges", stored))?;
        }
        Ok(pg)
    }
}

impl<N, E, Ty, Ix> PetgraphTarget for StableGraph<N, E, Ty, Ix>
where
    N: Default,
    Ty: EdgeType,
    Ix: IndexType,
{
    type EdgeWeight = E;
    fn from_graph<W: Weight>(g: &Graph<W>, weight: impl FnMut(W) -> E) -> Result<Self> {
        // No holes to make: the dense graph converts index for index.
        Ok(StableGraph::from(PgGraph::<N, E, Ty, Ix>::from_graph(
            g, weight,
        )?))
    }
}

impl<N, E, Ty, Ix> PetgraphTarget for PgCsr<N, E, Ty, Ix>
where
    N: Default,
    E: Clone,
    Ty: EdgeType,
    Ix: IndexType,
{
    type EdgeWeight = E;
    fn from_graph<W: Weight>(g: &Graph<W>, mut weight: impl FnMut(W) -> E) -> Result<Self> {
        let n = g.num_vertices();
        if !fits::<Ix>(n) {
            return Err(index_too_small::<Ix>("vertices", n as u64));
        }
        check_direction(g, Ty::is_directed())?;
        // petgraph's Csr takes every stored direction (an undirected one lists both),
        // rows sorted by target with no parallel edges.
        let csr = g.csr();
        let mut sorted = Vec::with_capacity(csr.num_edges() as usize);
        let mut row = Vec::new();
        for u in 0..n as u32 {
            row.clear();
            row.extend(csr.edge_range(u).map(|e| (csr.targets()[e], e)));
            row.sort_unstable_by_key(|&(t, _)| t);
            if let Some(w) = row.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(Error::InvalidArgument(format!(
                    "vertex {u} has parallel edges to {}, which petgraph's Csr cannot hold; \
                     build with `dedup` or convert to a petgraph Graph",
                    w[0].0
                )));
            }
            for &(t, e) in &row {
                // petgraph's Csr names nodes by the bare index type.
                sorted.push((
                    Ix::new(u as usize),
                    Ix::new(t as usize),
                    weight(csr.weight(e)),
                ));
            }
        }
        let mut pg = PgCsr::from_sorted_edges(&sorted).map_err(|e| {
            Error::InvalidGraph(format!("rows not sorted for petgraph's Csr: {e:?}"))
        })?;
        // `from_sorted_edges` stops at the largest endpoint: add isolated trailing
        // vertices.
        while pg.node_count() < n {
            pg.add_node(N::default());
        }
        Ok(pg)
    }
}

macro_rules! try_into_petgraph {
    ($pg:ident) => {
        /// Converts to petgraph with the weights as they are (see
        /// [`to_petgraph`] to map them).
        impl<N, W, Ty, Ix> TryFrom<&Graph<W>> for $pg<N, W, Ty, Ix>
        where
            N: Default,
            W: Weight,
            Ty: EdgeType,
            Ix: IndexType,
        {
            type Error = Error;
            fn try_from(g: &Graph<W>) -> Result<Self> {
                <Self as PetgraphTarget>::from_graph(g, |w| w)
            }
        }
    };
}
try_into_petgraph!(PgGraph);
try_into_petgraph!(StableGraph);
try_into_petgraph!(PgCsr);

#[cfg(test)]
mod tests {
    use super::*;
    use ::petgraph::graph::{DiGraph, UnGraph};
    use ::petgraph::stable_graph::StableDiGraph;
    use ::petgraph::{Directed, Undirected};
    use proptest::prelude::*;

    /// (source, target, weight) of every petgraph edge, sorted, by vertex id.
    fn pg_edges<S: PetgraphSource>(g: &S, map: &NodeMap) -> Vec<(u32, u32, u32)>
    where
        S::EdgeWeight: Copy + Into<u32>,
    {
        let mut v: Vec<_> = g
            .edge_list()
            .1
            .map(|(s, t, &w)| (map.vertex(s).unwrap(), map.vertex(t).unwrap(), w.into()))
            .collect();
        v.sort_unstable();
        v
    }

    fn our_edges(g: &Graph<u32>) -> Vec<(u32, u32, u32)> {
        let c = g.csr();
        let mut v: Vec<_> = (0..c.num_vertices() as u32)
            .flat_map(|u| {
                c.edge_range(u)
                    .map(move |e| (u, c.targets()[e], c.weight(e)))
            })
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn directed_graph_both_ways() {
        let mut pg = DiGraph::<(), u16>::new();
        let n: Vec<_> = (0..4).map(|_| pg.add_node(())).collect();
        pg.add_edge(n[0], n[1], 3);
        pg.add_edge(n[0], n[1], 2); // parallel edge: kept
        pg.add_edge(n[2], n[2], 9); // self-loop: kept
        let g = Graph::<u32>::try_from(&pg).unwrap();
        assert_eq!(g.num_vertices(), 4); // isolated vertex 3 kept
        assert!(!g.is_symmetric());
        assert_eq!(our_edges(&g), vec![(0, 1, 2), (0, 1, 3), (2, 2, 9)]);
        let back = DiGraph::<(), u32>::try_from(&g).unwrap();
        assert_eq!(back.node_count(), 4);
        assert_eq!(
            pg_edges(
                &back,
                &NodeMap {
                    repr: MapRepr::Identity(4)
                }
            ),
            our_edges(&g)
        );
    }

    #[test]
    fn undirected_becomes_symmetric_and_back() {
        let pg = UnGraph::<(), u32>::from_edges([(0, 1, 5), (1, 2, 6), (2, 2, 1)]);
        let g = Graph::<u32>::try_from(&pg).unwrap();
        assert!(g.is_symmetric());
        assert_eq!(g.csr().neighbors(1), &[0, 2]);
        assert_eq!(g.csr().neighbors(2), &[1, 2]); // self-loop stored once
        assert_eq!(g.num_edges(), 5);
        let back = UnGraph::<(), u32>::try_from(&g).unwrap();
        assert_eq!(back.edge_count(), 3);
        let csr: PgCsr<(), u32, Undirected> = PgCsr::try_from(&g).unwrap();
        let again = Graph::<u32>::try_from(&csr).unwrap();
        assert!(again.is_symmetric());
        assert_eq!(our_edges(&again), our_edges(&g));
    }

    #[test]
    fn unit_weights_give_an_unweighted_graph() {
        let pg = DiGraph::<(), ()>::from_edges([(0, 1), (1, 2)]);
        let g = Graph::<u32>::try_from(&pg).unwrap();
        assert!(!g.csr().is_weighted());
        let back: DiGraph<(), u32> = DiGraph::try_from(&g).unwrap();
        assert!(back.edge_weights().all(|&w| w == 1));
    }

    #[test]
    fn stable_graph_holes_are_compacted() {
        let mut pg = StableDiGraph::<char, u32>::new();
        let ids: Vec<_> = "abcdef".chars().map(|c| pg.add_node(c)).collect();
        pg.add_edge(ids[0], ids[5], 1);
        pg.add_edge(ids[5], ids[2], 2);
        pg.add_edge(ids[3], ids[0], 3);
        pg.remove_node(ids[1]);
        pg.remove_node(ids[4]);
        let imp = from_petgraph(&pg, |&w| w).unwrap();
        let m = &imp.nodes;
        assert!(!m.is_identity());
        assert_eq!(m.len(), 4);
        // a c d f -> 0 1 2 3
        assert_eq!(
            [0, 1, 2, 3, 4, 5].map(|i| m.vertex(i)),
            [Some(0), None, Some(1), Some(2), None, Some(3)]
        );
        assert_eq!(m.node_index(3), Some(5));
        assert_eq!(m.node::<u32>(1), Some(ids[2]));
        assert_eq!(m.vertex(6), None);
        assert_eq!(our_edges(&imp.graph), pg_edges(&pg, m));
        assert_eq!(
            m.by_node_index(&[10, 11, 12, 13]),
            vec![Some(10), None, Some(11), Some(12), None, Some(13)]
        );
        // Back: a StableGraph without holes.
        let back: StableGraph<(), u32> = StableGraph::try_from(&imp.graph).unwrap();
        assert_eq!(back.node_count(), 4);
        assert_eq!(back.edge_count(), 3);
    }

    #[test]
    fn closure_weights_and_widening() {
        let pg = DiGraph::<(), f32>::from_edges([(0, 1, 0.5f32)]);
        let g = Graph::<f64>::try_from(&pg).unwrap();
        assert_eq!(g.csr().weights(), Some(&[0.5f64][..]));
        let imp = from_petgraph(&pg, |&w| (w * 10.0) as u32).unwrap();
        assert_eq!(imp.graph.csr().weights(), Some(&[5u32][..]));
        assert!(imp.nodes.is_identity());
        let back: DiGraph<(), String> = to_petgraph(&imp.graph, |w| w.to_string()).unwrap();
        assert_eq!(back.edge_weights().next().map(String::as_str), Some("5"));
    }

    #[test]
    fn errors_instead_of_panics() {
        // Directed graph into an undirected petgraph graph.
        let pg = DiGraph::<(), u32>::from_edges([(0, 1, 1)]);
        let g = Graph::<u32>::try_from(&pg).unwrap();
        assert!(UnGraph::<(), u32>::try_from(&g).is_err());
        assert!(PgCsr::<(), u32, Undirected>::try_from(&g).is_err());
        // Parallel edges into a Csr.
        let pg = DiGraph::<(), u32>::from_edges([(0, 1, 1), (0, 1, 2)]);
        let g = Graph::<u32>::try_from(&pg).unwrap();
        let err = PgCsr::<(), u32, Directed>::try_from(&g).unwrap_err();
        assert!(err.to_string().contains("parallel edges"), "{err}");
        // Index types too small for the vertex or edge count.
        let pg = DiGraph::<(), ()>::from_edges((0..300u32).map(|i| (i, (i + 1) % 300)));
        let g = Graph::<u32>::try_from(&pg).unwrap();
        assert!(DiGraph::<(), u32, u8>::try_from(&g).is_err());
        assert!(StableGraph::<(), u32, Directed, u8>::try_from(&g).is_err());
        assert!(PgCsr::<(), u32, Directed, u8>::try_from(&g).is_err());
        assert!(DiGraph::<(), u32, u16>::try_from(&g).is_ok());
        let star = DiGraph::<(), ()>::from_edges((0..300u32).map(|i| (0, i % 3 + 1)));
        let g = Graph::<u32>::try_from(&star).unwrap();
        let err = DiGraph::<(), u32, u8>::try_from(&g).unwrap_err();
        assert!(err.to_string().contains("edges"), "{err}");
        // More vertices than u32 ids name (checked before any allocation).
        assert!(check_vertex_count(MAX_VERTICES).is_ok());
        assert!(check_vertex_count(MAX_VERTICES + 1).is_err());
    }

    #[test]
    fn csr_trailing_isolated_vertices_survive() {
        let el = EdgeList::<u32> {
            num_vertices: 5,
            edges: vec![[0, 1]],
            weights: None,
        };
        let g = super::super::build(&el, BuildOptions::default()).unwrap();
        let pg: PgCsr<(), u32> = PgCsr::try_from(&g).unwrap();
        assert_eq!(pg.node_count(), 5);
        assert_eq!(Graph::<u32>::try_from(&pg).unwrap().num_vertices(), 5);
    }

    fn edges_strategy() -> impl Strategy<Value = (usize, Vec<(u32, u32, u32)>)> {
        (1usize..30).prop_flat_map(|n| {
            let e = (0..n as u32, 0..n as u32, 0u32..100);
            (Just(n), proptest::collection::vec(e, 0..120))
        })
    }

    proptest! {
        /// petgraph → vertex → petgraph keeps every node and every edge with its
        /// weight, for all three types, directed and undirected, and a StableGraph
        /// with holes maps through its NodeMap.
        #[test]
        fn round_trip((n, edges) in edges_strategy(), holes in proptest::collection::vec(any::<bool>(), 30)) {
            // Directed Graph: edge multiset preserved exactly.
            let mut dg = DiGraph::<(), u32>::new();
            for _ in 0..n { dg.add_node(()); }
            for &(u, v, w) in &edges { dg.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), w); }
            let g = Graph::<u32>::try_from(&dg).unwrap();
            let id = NodeMap { repr: MapRepr::Identity(n) };
            prop_assert_eq!(our_edges(&g), pg_edges(&dg, &id));
            let back = DiGraph::<(), u32>::try_from(&g).unwrap();
            prop_assert_eq!(back.node_count(), n);
            prop_assert_eq!(pg_edges(&back, &id), pg_edges(&dg, &id));

            // Undirected Graph: the same undirected edges come back (normalised u <= v).
            let mut ug = UnGraph::<(), u32>::new_undirected();
            for _ in 0..n { ug.add_node(()); }
            for &(u, v, w) in &edges { ug.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v as usize), w); }
            let sg = Graph::<u32>::try_from(&ug).unwrap();
            prop_assert!(sg.is_symmetric());
            let norm = |v: Vec<(u32, u32, u32)>| {
                let mut v: Vec<_> = v.into_iter().map(|(a, b, w)| (a.min(b), a.max(b), w)).collect();
                v.sort_unstable();
                v
            };
            let back = UnGraph::<(), u32>::try_from(&sg).unwrap();
            prop_assert_eq!(norm(pg_edges(&back, &id)), norm(pg_edges(&ug, &id)));

            // Csr (no parallel edges): directed and undirected round trips.
            let dedup = super::super::build(
                &EdgeList { num_vertices: n, edges: edges.iter().map(|e| [e.0, e.1]).collect(), weights: Some(edges.iter().map(|e| e.2).collect()) },
                BuildOptions { dedup: true, ..BuildOptions::default() },
            ).unwrap();
            let c: PgCsr<(), u32> = PgCsr::try_from(&dedup).unwrap();
            prop_assert_eq!(c.node_count(), n);
            prop_assert_eq!(our_edges(&Graph::<u32>::try_from(&c).unwrap()), our_edges(&dedup));
            let sym = super::super::build(
                &EdgeList { num_vertices: n, edges: edges.iter().map(|e| [e.0, e.1]).collect(), weights: None },
                BuildOptions { symmetrize: true, dedup: true, ..BuildOptions::default() },
            ).unwrap();
            let uc: PgCsr<(), u32, Undirected> = PgCsr::try_from(&sym).unwrap();
            let sym2 = Graph::<u32>::try_from(&uc).unwrap();
            prop_assert!(sym2.is_symmetric());
            prop_assert_eq!(our_edges(&sym2), our_edges(&sym));

            // StableGraph with holes: compacted, edges map through the NodeMap.
            let mut st = StableDiGraph::<(), u32>::new();
            let idx: Vec<_> = (0..n).map(|_| st.add_node(())).collect();
            for &(u, v, w) in &edges { st.add_edge(idx[u as usize], idx[v as usize], w); }
            for (i, &gone) in holes.iter().take(n).enumerate() { if gone { st.remove_node(idx[i]); } }
            let imp = from_petgraph(&st, |&w| w).unwrap();
            prop_assert_eq!(imp.graph.num_vertices(), st.node_count());
            prop_assert_eq!(our_edges(&imp.graph), pg_edges(&st, &imp.nodes));
            for i in st.node_indices() {
                let v = imp.nodes.vertex(i.index()).unwrap();
                prop_assert_eq!(imp.nodes.node_index(v), Some(i.index()));
            }
            let back: StableGraph<(), u32> = StableGraph::try_from(&imp.graph).unwrap();
            prop_assert_eq!(back.node_count(), st.node_count());
            prop_assert_eq!(back.edge_count(), st.edge_count());
        }
    }
}
