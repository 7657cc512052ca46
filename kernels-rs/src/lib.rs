//! GPU kernel skeletons, written once in `#![no_std]` Rust, compiled two ways.
//!
//! * For `nvptx64-nvidia-cuda` (by `nvptx-builder`), the `extern "ptx-kernel"`
//!   entry points made by [`ptx_kernels!`] become PTX that the runtime loads with
//!   cudarc.
//! * For the host, the very same bodies (the functions in [`entry`], which take raw
//!   pointers exactly as the GPU passes them, plus a [`ThreadCtx`]) are called by the
//!   runtime's emulation launcher over a simulated grid of threads with real
//!   `core::sync::atomic` atomics. That is how CI without a GPU tests kernel logic.
//!
//! The skeletons are generic over a [`Program`]: the per-vertex [`StateWord`], the
//! edge operator `relax`, the reduction `combine` (an atomic merge), and the
//! frontier test. BFS ([`bfs::Bfs`], [`bfs::BfsAtomicMin`]) is the first program;
//! the `#[vertex_program]` macro instantiates the same skeletons for user programs.
//!
//! Kernels (seed 000, Chernoskutov): the naive full-scan level kernel (Alg. 2, one
//! thread per vertex), the edge-chunk balanced level kernel (Alg. 3: one thread per
//! chunk of `max_edge_count` edges) and the parallel start-vertex array `SV`
//! construction (Alg. 4). Frontier-empty detection uses a device flag per level
//! (see [`skeleton::LevelFlags`]) instead of a vertex scan.
//!
//! Beyond the seed: direction-optimizing traversal ([`direction`]: top-down work
//! lists of frontier edge chunks, bottom-up levels over a bitmap frontier, and a
//! one-thread [`direction::plan_level`] that picks each level's direction on the
//! device so the host need not wait between levels) and the Graph500 tree check
//! ([`tree_check`]). Triangle counting ([`tc`]) runs one thread per edge of a
//! degree-ordered graph; intersection programs ([`intersect`],
//! `#[vertex_program(intersect = ..)]`) generalize it: the same per-edge
//! intersection calls the program's operator at every common neighbour. Both share long adjacency rows across a
//! warp through [`warp::Warp`] (vote and shuffle); in the host emulator a warp is
//! one lane ([`warp::SoloLane`]), and the crate's tests also run them with real
//! 32-lane warps of OS threads in lockstep.
//!
//! Connected components by Afforest ([`cc`]): link, compress and sampling-skip
//! kernels, fast on any diameter.
//!
//! Many sources at once ([`msbfs`]): batched BFS, 64 lanes per word, and
//! betweenness over it.
//!
//! Dense closures ([`closure`]): blocked Floyd–Warshall generic over a semiring,
//! with next hops; [`apsp`] instantiates it for min-plus, the macro for every
//! `#[vertex_program(semiring)]` ([`closure_kernels!`]).
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        asm_experimental_arch,
        stdarch_nvptx,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        link_llvm_intrinsics
    )
)]

pub mod apsp;
pub mod batched;
pub mod bfs;
pub mod cc;
pub mod closure;
pub mod combine;
pub mod direction;
pub mod entry;
pub mod frontier;
pub mod gather;
pub mod intersect;
#[cfg(test)]
mod lockstep;
pub mod msbfs;
pub mod peer;
pub mod program;
pub mod resident;
pub mod skeleton;
pub mod tc;
pub mod thread;
pub mod tiles;
pub mod tree_check;
pub mod warp;
pub mod word;

#[cfg(target_arch = "nvptx64")]
mod ptx;

pub use frontier::{Flags, Frontier, Implicit};
pub use program::Program;
pub use skeleton::{CsrView, Level, LevelFlags};
pub use thread::ThreadCtx;
pub use word::StateWord;
