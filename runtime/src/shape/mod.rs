//! Graph-shape probes: what the engines ask of a graph before they run, the
//! inputs of every `auto` choice (`cpu::auto`, `gpu::auto`, obim's lock-step and
//! Δ, the GPU's Δ). They sit below both engines so that the CPU and the GPU read
//! the same estimates and neither reaches into the other for them.
//!
//! * [`diameter`]: a bounded BFS from the source ([`probe`]): high diameter or not;
//! * [`delta`]: the bucket width the weights suggest ([`auto_delta`]).
//!
//! Hubs are read off the graph directly ([`Graph::max_out_degree`](crate::graph::Graph::max_out_degree)),
//! each engine against its own limit.

pub mod delta;
pub mod diameter;

pub use delta::{auto_delta, mean_step};
pub use diameter::{probe, Probe, PROBE_LEVELS};
