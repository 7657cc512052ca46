//! The vertex host runtime: graph storage and file formats, generators, CPU engines
//! and the GPU host runtime.
//!
//! Start at [`graph`] (CSR/CSC and the builder), [`formats`] (readers and writers,
//! including the `.vgr` snapshot) and [`generate`] (Kronecker, uniform, grid).
//!
//! Cargo feature `petgraph`: `graph::petgraph` converts to and from petgraph's
//! `Graph`, `StableGraph` and `Csr` (the optional dependency exists only so that
//! graphs users already keep in petgraph reach the engines without a file).

pub(crate) mod alloc;
pub mod apsp;
pub mod ball_batches;
pub mod cc;
pub mod closeness;
pub mod cpu;
pub mod dense;
pub mod dist;
pub mod error;
pub mod formats;
pub mod gather;
pub mod generate;
pub mod gpu;
pub mod graph;
pub mod load;
pub mod oracle;
pub mod program;
pub mod progress;
pub mod run;
pub mod shape;
pub mod tc;
pub mod validate;

pub use error::{Error, Result};

/// The petgraph crate the conversions in `graph::petgraph` are written against:
/// use this re-export so that your graph types and ours agree on its version.
#[cfg(feature = "petgraph")]
pub use petgraph;
