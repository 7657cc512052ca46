//! Several GPUs on one traversal: a 1-D partition of the vertices (seed 004's
//! scheme, [`partition`]), every part running the direction-optimizing kernels on
//! its slice of the graph, and after each level an all-gather of the parts' slices
//! of the frontier bitmap (and, for programs whose frontier is not uniform — SSSP,
//! CC — of the state array, since a part's top-down step reads the states of other
//! parts' frontier vertices).
//!
//! [`emulate`] runs the same loop over simulated parts on the host (CI); the device
//! side drives one GPU per part through NCCL (`device`), all GPUs of a host from
//! one process or one GPU per process ([`ranks`]: the path to several hosts).

pub mod device;
pub mod emulate;
pub mod gather;
mod nccl;
pub mod ordinals;
pub mod partition;
mod peer;
pub mod ranks;
pub mod timing;
mod tree_check;

pub use device::{MultiGpu, MultiGraph, MultiRun};
pub use gather::{emulate_gather, emulate_gather_rank, MultiGatherGraph, MultiGatherRun};
pub use partition::{part_graph, PartGraph, Partition};
pub use peer::{Barrier, Route};
pub use ranks::{rank_gpu_missing, rank_part_graph, EdgeWeight};
pub use timing::{LevelTime, TimeSplit};
pub use tree_check::check_bfs_tree_parts_emulated;

use super::direction::{FrontierSize, Pass};

/// Sums the parts' next-frontier counts (each part counts its own vertices).
fn sum_sizes(sizes: &[FrontierSize]) -> FrontierSize {
    sizes
        .iter()
        .fold(FrontierSize::default(), |a, s| FrontierSize {
            vertices: a.vertices + s.vertices,
            edges: a.edges + s.edges,
        })
}

/// Combines the parts' bucketed passes: every part selects the same pending
/// vertices (pending set and states are replicated), each inserts its own.
fn combine_passes(passes: &[Pass]) -> crate::Result<Pass> {
    let first = passes.first().copied().unwrap_or_default();
    if passes.iter().any(|p| p.selected != first.selected) {
        return Err(crate::Error::InvalidGraph(format!(
            "parts selected different pending sets: {:?}",
            passes.iter().map(|p| p.selected).collect::<Vec<_>>()
        )));
    }
    Ok(Pass {
        selected: first.selected,
        inserted: passes.iter().map(|p| p.inserted).sum(),
        min_pending: passes.iter().filter_map(|p| p.min_pending).min(),
    })
}
