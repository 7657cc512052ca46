//! The GPU backend: seed 000 BFS kernels from `kernels-rs`, run through cudarc.
//!
//! Layers, bottom up:
//! * [`cuda`] — the thin layer: context/stream/module, device buffers that free on
//!   drop, memory checks before allocation, event timing; every CUDA error becomes
//!   a [`crate::Error`] (`Cuda`, `GpuOutOfMemory`, `GpuUnavailable`).
//! * [`ptx`] — the PTX `build.rs` compiled from `kernels-rs` (or why there is none).
//! * `driver` (private) — the level loop with device-side frontier flags, shared
//!   by the GPU and the emulator.
//! * [`bfs`](mod@bfs) — [`Device`], [`DeviceGraph`], [`GpuBfsOptions`], [`GpuBfsResult`].
//! * [`emulate`] — the same kernels on the host over a simulated grid (CI tests).
//! * [`closure`] — the dense closure of any semiring (blocked FW, next hops).
//! * [`cc`](mod@cc) — connected components by Afforest, on the device or emulated.
//! * [`compare`](mod@compare) — the GPU as a column of `vertex compare`.
//! * [`tc`] — triangle counting over the degree-ordered graph.
//! * [`bench`](mod@bench) — balanced vs naive and the `max_edge_count` sweep (JSON + SVG).
//!
//! ```no_run
//! use runtime::gpu::{Device, GpuBfsOptions};
//! # fn main() -> runtime::Result<()> {
//! # let csr: runtime::graph::Csr<u32> = unimplemented!();
//! let dev = Device::open(0)?;                // Error::GpuUnavailable without a GPU
//! let g = dev.upload(&csr)?;                 // Error::GpuOutOfMemory if it does not fit
//! for root in [0, 5, 9] {
//!     let r = dev.bfs(&g, root, &GpuBfsOptions::default())?;
//!     println!("{} levels, {:.2} GTEPS", r.num_levels, r.gteps());
//! }
//! # Ok(()) }
//! ```

pub mod apsp;
pub mod bench;
pub mod bfs;
pub mod cc;
pub mod closure;
pub mod compare;
pub mod cuda;
pub mod direction;
mod driver;
pub mod dsl_bench;
pub mod emulate;
pub mod gather;
pub mod intersect;
pub mod multi;
mod plot;
pub mod program;
pub mod ptx;
pub mod tc;
pub mod tree_check;

pub use bfs::{
    bfs, BfsCombine, BfsKernel, Device, DeviceGraph, GpuBfsOptions, GpuBfsResult,
    DEFAULT_LEVELS_PER_SYNC,
};
pub use cuda::DeviceInfo;
pub use program::{GpuProgram, ProgramOptions, ProgramRun};

/// Whether a GPU run could work here: PTX embedded and a driver library present
/// (a device may still be missing; [`Device::open`] tells).
pub fn available() -> bool {
    ptx::embedded() && cuda::driver_present()
}

#[cfg(test)]
mod tests;
