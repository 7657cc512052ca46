//! Graph storage: CSR/CSC, the edge-list interchange form, and the builder.

mod buf;
mod builder;
pub(crate) use builder::dedup_row;
mod csr;
mod edge_list;
mod packed;
#[cfg(feature = "petgraph")]
pub mod petgraph;
pub(crate) mod split;
mod stats;
mod weight;

pub use buf::Buf;
pub use builder::{
    build, build_consuming, build_relabeled, relabel_by_degree, BuildOptions, Built,
};
pub use csr::{Csr, Graph, RowOrder};
pub use edge_list::{EdgeList, MAX_VERTICES};
pub use packed::WEdge;
pub use stats::GraphStats;
pub use weight::{Weight, WeightKind};
