//! The programs that ship with vertex, each written with `#[vertex_program]` exactly
//! as a user would write their own. One file per program, each opening with the
//! method it implements and ending with its oracle test.
//!
//! New to vertex? Start at [`vertex_dsl`]'s front page: adding the crate, the
//! `build.rs` line, and a program of your own from end to end.
//!
//! The crate is compiled twice: for the host (the CLI and the CPU engines use it)
//! and for `nvptx64-nvidia-cuda` (the same operators become GPU kernels).
//!
//! # A shipped program on a petgraph graph
//!
//! With `vertex-dsl`'s `petgraph` feature, a graph kept in petgraph converts with
//! `Graph::try_from` (or `from_petgraph` with a closure for other edge weights; see
//! `runtime::graph::petgraph`) and any program runs on it. Results are indexed by
//! vertex id, which is the petgraph node index for `Graph` and `Csr`.
//!
//! ```
//! use vertex_dsl::petgraph::graph::UnGraph;
//! use vertex_dsl::prelude::*;
//! use vertex_examples::programs::{bfs, sssp::sssp};
//!
//! // Four towns and the roads between them (undirected, lengths in km).
//! let mut roads = UnGraph::<&str, u32>::new_undirected();
//! let a = roads.add_node("Aston");
//! let b = roads.add_node("Brill");
//! let c = roads.add_node("Crewe");
//! let d = roads.add_node("Dover");
//! roads.extend_with_edges([(a, b, 7), (b, c, 2), (a, c, 12), (c, d, 5)]);
//!
//! let g = Graph::<u32>::try_from(&roads)?; // undirected: a symmetric graph
//! let from = a.index() as u32;
//! let km = run::<sssp::Program>(&g).source(from).go()?.values; // the GPU when there is one
//! let hops = run::<bfs::Program>(&g).source(from).go()?.values;
//! assert_eq!(km, vec![0, 7, 9, 14]); // Aston→Brill→Crewe beats the direct road
//! assert_eq!(hops, vec![0, 1, 1, 2]);
//! assert_eq!(km[d.index()], 14);
//! # Ok::<(), vertex_dsl::runtime::Error>(())
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
pub mod app;
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub mod gapbs_output;
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub mod pr_pull_output;
pub mod programs;
