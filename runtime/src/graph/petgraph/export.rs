//! vertex → petgraph: `petgraph::Graph::try_from(&g)` (likewise `StableGraph`
//! and `Csr`) and [`to_petgraph`].

use ::petgraph::csr::Csr as PgCsr;
use ::petgraph::graph::{Graph as PgGraph, IndexType, NodeIndex};
use ::petgraph::stable_graph::StableGraph;
use ::petgraph::EdgeType;

use super::super::{Graph, Weight};
use super::sealed;
use crate::error::{Error, Result};

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
/// becomes node index `v`; see the [module docs](super) for directions).
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
