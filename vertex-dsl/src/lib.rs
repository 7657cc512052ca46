//! vertex: write a graph algorithm once, as vertex operators in plain Rust, and run
//! it on the CPU (rayon engines) and the GPU (the same code compiled to PTX).
//!
//! # The model
//!
//! A program is a module under `#[vertex_program]` holding:
//!
//! * `type State` — the per-vertex value, one atomic word (u32, i32, u64, i64, f32, f64);
//! * `type Weight` — the edge weight type, if `relax` reads weights;
//! * `fn init(v, source) -> State` — the starting value (only the source starts
//!   active), or `fn init(v) -> State` when every vertex starts active;
//! * `fn relax(state, weight) -> Option<State>` — the edge operator: the candidate a
//!   vertex pushes along an edge (`None`: push nothing). It is also called on
//!   initial values, so it must not overflow on them (use `checked_add`);
//! * the reduction on arrival: `combine = min | max | or | and | sum` in the
//!   attribute (a native atomic), or `fn combine(old, new) -> State` (a CAS loop);
//! * optionally `fn priority(state) -> u32` for ordered schedules.
//!
//! The macro checks all of this at compile time (wrong signatures, states that do
//! not fit an atomic, asynchronous schedules with a non-idempotent combine, std or
//! heap use in code that must also run on the GPU) and generates a `Program` type.
//!
//! # Example: a custom program in a dozen lines
//!
//! Most reliable path: edge weights are success probabilities, a path's
//! reliability is their product, and each vertex keeps the best one.
//!
//! ```
//! use vertex_dsl::prelude::*;
//!
//! #[vertex_program(combine = max)]
//! pub mod reliability {
//!     pub type State = f64;
//!     pub type Weight = f64;
//!     pub fn init(v: u32, source: u32) -> State {
//!         if v == source { 1.0 } else { 0.0 }
//!     }
//!     pub fn relax(p: State, w: Weight) -> Option<State> {
//!         Some(p * w)
//!     }
//! }
//!
//! // 0 -0.5-> 1 -0.5-> 2 and 0 -0.2-> 2: the two-hop path is more reliable.
//! let el = EdgeList::<f64> {
//!     num_vertices: 3,
//!     edges: vec![[0, 1], [1, 2], [0, 2]],
//!     weights: Some(vec![0.5, 0.5, 0.2]),
//! };
//! let g = build(&el, BuildOptions::default()).unwrap();
//! let out = run_cpu::<reliability::Program>(&g, 0).unwrap();
//! assert_eq!(out.states, vec![1.0, 0.5, 0.25]);
//! ```
//!
//! # Running it
//!
//! * CPU: [`run_cpu`] (level-synchronous), or `runtime::cpu::run` with a
//!   [`program::Schedule`] (`Sync`, `Async` work stealing, `Obim` priorities).
//! * GPU: [`run_gpu`] — the macro also generated kernels for the program; they are
//!   compiled to PTX when the defining crate's `build.rs` calls
//!   `nvptx_builder::build_programs()` (three lines, see the README). Without a GPU,
//!   `runtime::gpu::program::emulate` runs the same kernel bodies on the host:
//!
//! ```
//! # use vertex_dsl::prelude::*;
//! # #[vertex_program(combine = min)]
//! # pub mod hops {
//! #     pub type State = u32;
//! #     pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
//! #     pub fn relax(d: State) -> Option<State> { d.checked_add(1) }
//! # }
//! use vertex_dsl::runtime::gpu::{program::emulate, ProgramOptions};
//! let el = EdgeList::<u32> { num_vertices: 3, edges: vec![[0, 1], [1, 2]], weights: None };
//! let g = build(&el, BuildOptions::default()).unwrap();
//! let gpu_path = emulate::<hops::Program>(g.csr(), 0, &ProgramOptions::default(), 2).unwrap();
//! assert_eq!(gpu_path.states, run_cpu::<hops::Program>(&g, 0).unwrap().states);
//! ```
//!
//! # What the macro checks
//!
//! Each rule has a compile-fail test in `tests/ui/`: missing or misshaped operators
//! (`init`, `relax`, `combine`, `priority`), a `State` that is not one atomic word,
//! `Weight` types the runtime cannot store, asynchronous schedules with a combine
//! that is not idempotent, `obim` without `priority`, std/alloc paths, heap types and
//! printing macros in code that must also compile for the GPU, and conflicting or
//! unknown attribute arguments.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use vertex_macros::vertex_program;

/// GPU kernel skeletons the macro instantiates (also compiled for the host, where
/// an emulation launcher runs them in tests).
pub use kernels_rs as kernels;

#[cfg(not(target_arch = "nvptx64"))]
pub use runtime;

/// The program trait and its building blocks (host side).
#[cfg(not(target_arch = "nvptx64"))]
pub use runtime::program;

/// Runs a program on the CPU with the level-synchronous engine and default options.
#[cfg(not(target_arch = "nvptx64"))]
pub fn run_cpu<P: program::VertexProgram>(
    graph: &runtime::graph::Graph<P::Weight>,
    source: u32,
) -> runtime::Result<runtime::cpu::RunResult<P::State>> {
    runtime::cpu::sync::run::<P>(graph, source, &runtime::cpu::CpuOptions::default())
}

/// Runs a program on GPU 0 with its generated kernels (balanced edge-chunk level
/// kernel, default options). Errors say why when there is no GPU, no driver, no
/// PTX in the program's crate, or not enough device memory.
#[cfg(not(target_arch = "nvptx64"))]
pub fn run_gpu<P: runtime::gpu::GpuProgram>(
    graph: &runtime::graph::Graph<<P as program::VertexProgram>::Weight>,
    source: u32,
) -> runtime::Result<runtime::gpu::ProgramRun<<P as program::VertexProgram>::State>> {
    let dev = runtime::gpu::Device::open(0)?;
    let kernels = dev.load_program::<P>()?;
    let g = if <P as program::VertexProgram>::WEIGHTED {
        dev.upload_weighted(graph.csr())?
    } else {
        dev.upload(graph.csr())?
    };
    dev.run_program::<P>(
        &kernels,
        &g,
        source,
        &runtime::gpu::ProgramOptions::default(),
    )
}

/// Everything a program file and a small driver need.
pub mod prelude {
    pub use crate::vertex_program;
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{run_cpu, run_gpu};
    /// What gather/apply operators know about their vertex and round.
    pub use kernels_rs::gather::Ctx;
    #[cfg(not(target_arch = "nvptx64"))]
    pub use runtime::graph::{build, BuildOptions, EdgeList, Graph};
}
