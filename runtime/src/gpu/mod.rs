//! The GPU backend: the kernels of `kernels-rs` (hand-written and those
//! `#[vertex_program]` generates), run through cudarc or emulated on the host.
//!
//! Layers, bottom up. A module uses only modules of its own layer or below; no
//! module imports another in a circle (`layering`, a unit test, checks both and
//! keeps every file under 800 lines).
//!
//! 1. **Primitives** — nothing else of `gpu` below them:
//!    * [`cuda`] — the thin layer: context/stream/module, device buffers that free
//!      on drop, memory checks before allocation, event timing; every CUDA error
//!      becomes a [`crate::Error`] (`Cuda`, `GpuOutOfMemory`, `GpuUnavailable`).
//!    * [`ptx`] — the PTX `build.rs` compiled from `kernels-rs` (or why there is none).
//!    * [`launch`] — the host emulator's grid: a kernel body per thread of a
//!      simulated grid (CI tests kernels with it).
//!    * `launcher` (private) — **the one launcher trait**, `Launcher`, that the
//!      device (`DeviceLauncher`: cudarc, CUDA events) and the emulator
//!      (`HostLauncher`: host buffers, [`launch`], the wall clock) implement:
//!      buffers, writes, reads, launches and timing marks. A kernel is one
//!      `Kernel` value (its PTX function and its host body) taking one argument
//!      list, so a strategy spells each kernel's parameters once.
//!    * `driver` (private) — the level loop with device-side frontier flags, over
//!      a `LevelExec`.
//!    * [`options`] — [`BfsKernel`], `Pull`, the default chunk and batch sizes.
//!    * [`device`] — [`Device`] (the GPU with the built-in kernels) and
//!      [`DeviceGraph`] (a graph uploaded to it).
//! 2. **Strategies** — each over the primitives:
//!    * `levels` (private) — the seed 000 level kernels (init, SV, naive,
//!      balanced) as one `LevelExec`, `LevelRun<L: Launcher>`: the built-in BFS
//!      and every program, on the device and emulated.
//!    * [`direction`] — direction-optimizing levels and near-far passes
//!      (`DirectionExec`/`PlannedExec`), one executor `DirectionRun<L: Launcher>`
//!      for the device, the emulator and the multi-GPU parts.
//!    * [`program_api`] — what every strategy knows of a `#[vertex_program]`:
//!      [`GpuProgram`], its loaded kernels, [`ProgramOptions`], [`ProgramRun`].
//!    * [`resident`] — the device-resident traversal: one cooperative launch,
//!      frontier queues, device-side buckets (high-diameter graphs).
//!    * [`closure`] — the dense closure of any semiring (blocked FW, next hops).
//!    * [`cc`](mod@cc), [`tc`], [`intersect`], [`gather`], [`tree_check`] —
//!      the other grid-stride kernels, each with one generic run over
//!      `Launcher` (`CcRun`, `GatherRun`, ...).
//!    * [`apsp`] — blocked Floyd–Warshall (shared-memory tiles; see below).
//! 3. **Front ends** — what callers use:
//!    * [`bfs`](mod@bfs) — the built-in BFS: [`GpuBfsOptions`], [`GpuBfsResult`],
//!      `Device::bfs`; [`emulate`] runs it on the host.
//!    * [`auto`](mod@auto) — `--kernel auto`: the strategy picked from the program
//!      and the graph.
//!    * [`program`] — any program on the device (`Device::run_program`) or
//!      emulated ([`program::emulate`]), dispatching to the strategies.
//!    * [`multi`] — one traversal over several GPUs (NCCL), or simulated parts.
//!
//! The benchmarks that write JSON + SVG, and the GPU's column of `vertex compare`,
//! live in the `vertex-bench` crate.
//!
//! Not done yet: every grid-stride kernel runs through `Launcher`; the kernels
//! that need a block's shared memory and barriers — the persistent ones
//! (resident, tiles: cooperative launches, emulated with OS threads and real
//! barriers) and the blocked closure/APSP tiles — still have a device
//! executor and a host one of their own. `Launcher` would need a launch whose
//! host side hands each simulated block its shared memory and barriers.
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
pub mod auto;
pub mod batched;
pub mod bfs;
mod blocked;
pub mod cc;
pub mod closure;
pub mod cuda;
mod cuda_error;
pub mod device;
pub mod direction;
mod driver;
pub mod emulate;
pub mod gather;
pub mod graphs;
pub mod intersect;
pub mod launch;
mod launcher;
mod levels;
pub mod msbfs;
pub mod multi;
pub mod options;
pub mod program;
pub mod program_api;
pub mod ptx;
pub mod resident;
pub mod tc;
pub mod tiles;
pub mod tree_check;

pub use bfs::{bfs, BfsCombine, GpuBfsOptions, GpuBfsResult};
pub use cuda::DeviceInfo;
pub use device::{Device, DeviceGraph};
pub use options::{BfsKernel, Heuristic, DEFAULT_LEVELS_PER_SYNC};
pub use program_api::{GpuProgram, ProgramOptions, ProgramRun};

/// Whether a GPU run could work here: PTX embedded and a driver library present
/// (a device may still be missing; [`Device::open`] tells).
pub fn available() -> bool {
    ptx::embedded() && cuda::driver_present()
}

#[cfg(test)]
mod layering;
#[cfg(test)]
mod tests;
