//! petgraph → vertex: `Graph::try_from(&g)` and [`from_petgraph`], with the
//! [`NodeMap`] between node indices and vertex ids.

use ::petgraph::csr::Csr as PgCsr;
use ::petgraph::graph::{Graph as PgGraph, IndexType, NodeIndex};
use ::petgraph::stable_graph::StableGraph;
use ::petgraph::visit::{EdgeRef, IntoEdgeReferences};
use ::petgraph::EdgeType;

use super::super::{build_consuming, BuildOptions, EdgeList, Graph, Weight, MAX_VERTICES};
use super::sealed;
use crate::error::{Error, Result};

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
    pub(super) repr: MapRepr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum MapRepr {
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
pub(super) fn check_vertex_count(n: usize) -> Result<()> {
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
        /// Imports the petgraph graph (see the [module docs](super) for the id
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
