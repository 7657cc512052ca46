//! Shipped vertex programs.

pub mod apsp;
pub mod bc;
pub mod bfs;
pub mod cc;
pub mod kcore;
pub mod lcc;
pub mod pagerank;
pub mod pagerank_delta;
pub mod ppr;
pub mod reliability;
pub mod semirings;
pub mod sssp;
pub mod triangles;
pub mod widest;
