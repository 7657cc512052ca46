//! Graph generators: Graph500 Kronecker, uniform random, road-like grids, planar
//! Delaunay meshes, and random weights for any graph.
//!
//! Benchmarks need inputs of any size without data files, and tests need the same
//! input every time. So every generator is seeded and parallel, and its output is a
//! function of its parameters and seed alone — not of the number of threads (see
//! [`rng`] for how). Generators emit an [`EdgeList`](crate::graph::EdgeList) of
//! directed edges exactly as drawn; how to build it (symmetrize, drop self-loops,
//! dedup) is the caller's choice, with [`GenSpec::default_build_options`] as the
//! usual one. [`GenSpec`] parses the `kron:S`, `uniform:N:M`, `grid:WxH`, `mesh:N`
//! strings the CLI accepts wherever it reads a graph.

mod grid;
mod kronecker;
mod mesh;
pub mod rng;
mod roots;
mod shuffle;
mod spec;
mod uniform;
mod weights;

pub use grid::{grid, Grid};
pub use kronecker::{kronecker, Kronecker, GRAPH500_INITIATOR, MAX_SCALE};
pub use mesh::{mesh, Mesh, MIN_MESH_POINTS};
pub use roots::{pick_roots, pick_roots_by_offsets};
pub use shuffle::{random_permutation, shuffle};
pub use spec::{parse_weight_range, GenSpec, DEFAULT_EDGEFACTOR, DEFAULT_SEED};
pub use uniform::uniform;
pub use weights::{edge_weight, random_weights, weights_for_edges};
