//! Graph-shape probes: what the engines ask of a graph before they run, the
//! inputs of every `auto` choice (`cpu::auto`, `gpu::auto`, obim's lock-step and
//! Δ, the GPU's Δ). They sit below both engines so that the CPU and the GPU read
//! the same estimates and neither reaches into the other for them.
//!
//! * [`diameter`]: a bounded BFS from the source ([`probe`]): high diameter or not;
//! * [`delta`]: the bucket width the weights suggest ([`auto_delta`]);
//! * [`small_world`]: whether searches from different sources meet a vertex at
//!   the same depth (mean degree), for the many-sources engines.
//!
//! Hubs are read off the graph directly ([`Graph::max_out_degree`](crate::graph::Graph::max_out_degree)),
//! each engine against its own limit.

pub mod delta;
pub mod diameter;

pub use delta::{auto_delta, mean_step};
pub use diameter::{probe, Probe, PROBE_LEVELS};

/// Mean out-degree from which [`small_world`] holds.
pub const SMALL_WORLD_DEGREE: u64 = 10;

/// Whether `g` looks like a small world (Kronecker, uniform random: mean
/// out-degree at least [`SMALL_WORLD_DEGREE`]), where searches from different
/// sources reach most vertices at the same few depths, so a batch of them
/// shares its edge visits; on sparse graphs (grids, roads, meshes) each source
/// reaches a vertex at a depth of its own.
pub fn small_world<W: crate::graph::Weight>(g: &crate::graph::Graph<W>) -> bool {
    g.num_edges() >= SMALL_WORLD_DEGREE * g.num_vertices() as u64
}
