//! Result checkers that need no reference answer.
//!
//! A validator is a certificate check: it proves a result right (or names the first
//! thing wrong) in O(V + E) using only the graph, which is what Graph500 asks of
//! every BFS run and what lets benchmarks validate every root without an oracle.

mod bfs;
mod sssp;

pub use bfs::{bfs_levels_from_parents, validate_bfs_tree, BfsValidator};
pub use sssp::validate_sssp;

/// Marks an unreached vertex in levels, parents and integer distances.
pub const UNREACHED: u32 = u32::MAX;
