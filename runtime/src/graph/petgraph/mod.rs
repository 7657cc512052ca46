//! Conversions between [`Graph`](super::Graph) and petgraph's `Graph`,
//! `StableGraph` and `Csr` (cargo feature `petgraph`).
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
//! [`NodeMap`] translates both ways. Graphs with more than
//! [`MAX_VERTICES`](super::MAX_VERTICES) nodes (more than `u32` ids can name) are
//! rejected with an error before anything is allocated.
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

mod export;
mod import;
#[cfg(test)]
mod tests;

pub use export::{to_petgraph, PetgraphTarget};
pub use import::{from_petgraph, Imported, NodeMap, PetgraphSource, ToWeight};

mod sealed {
    pub trait Sealed {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::graph::Graph<N, E, Ty, Ix> {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::stable_graph::StableGraph<N, E, Ty, Ix> {}
    impl<N, E, Ty, Ix> Sealed for ::petgraph::csr::Csr<N, E, Ty, Ix> {}
}
