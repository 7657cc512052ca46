//! vertex: write a graph algorithm once, as vertex operators in plain Rust, and run
//! it on the CPU (rayon engines) and the GPU (the same code compiled to PTX).
//!
//! This page is where to start: adding the crate, a program of your own from end to
//! end, then the two program kinds — [push programs](#the-model)
//! ([`program::VertexProgram`]) and [gather/apply
//! programs](#gatherapply-programs-pagerank-k-core-several-fields-per-vertex)
//! ([`kernels::gather::GatherProgram`]) — and [how to run them](#running-it).
//!
//! # Getting started: a program crate of your own
//!
//! `templates/program-crate` in the repository is this whole section as a crate to
//! copy (CI builds a copy outside the workspace and runs it). By hand:
//!
//! **1. Dependencies** (`Cargo.toml`): `vertex-dsl`, and `nvptx-builder` for the
//! build script that compiles your programs for the GPU.
//!
//! ```toml
//! [dependencies]
//! vertex-dsl = { git = "https://example.invalid/vertex" }
//! # or from a checkout:  vertex-dsl = { path = "../vertex/vertex-dsl" }
//! # petgraph graphs in:  vertex-dsl = { ..., features = ["petgraph"] }
//!
//! [build-dependencies]
//! nvptx-builder = { git = "https://example.invalid/vertex" }
//! # or from a checkout:  nvptx-builder = { path = "../vertex/nvptx-builder" }
//! ```
//!
//! **2. `build.rs`**, one line: it compiles the crate's `#[vertex_program]`s to PTX
//! with `cargo +nightly` (`rustup component add rust-src --toolchain nightly`) and
//! embeds it. Without nightly the crate still builds and runs on the CPU; the GPU
//! path then returns an error saying why.
//!
//! ```ignore
//! fn main() {
//!     nvptx_builder::build_programs();
//! }
//! ```
//!
//! **3. `src/lib.rs`**: the programs, under the attribute the PTX build needs
//! (`#![no_std]` and `abi_ptx` only when compiled for the GPU):
//!
//! ```ignore
//! #![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
//! ```
//!
//! **4. Run it**: a program, a graph, the CPU, then the GPU when there is one.
//!
//! ```
//! use vertex_dsl::prelude::*;
//!
//! /// Hop-limited reachability: hops from the source, but nothing beyond MAX_HOPS.
//! #[vertex_program(combine = min)]
//! pub mod within_hops {
//!     pub type State = u32; // hops; u32::MAX = out of reach
//!     pub const MAX_HOPS: u32 = 2;
//!     pub fn init(v: u32, source: u32) -> State {
//!         if v == source { 0 } else { u32::MAX }
//!     }
//!     pub fn relax(hops: State) -> Option<State> {
//!         if hops < MAX_HOPS { Some(hops + 1) } else { None }
//!     }
//! }
//!
//! fn main() -> Result<(), vertex_dsl::runtime::Error> {
//!     // The path 0 -> 1 -> 2 -> 3 -> 4.
//!     let el = EdgeList::<u32> {
//!         num_vertices: 5,
//!         edges: vec![[0, 1], [1, 2], [2, 3], [3, 4]],
//!         weights: None,
//!     };
//!     let g = build(&el, BuildOptions::default())?;
//!     let cpu = run_cpu::<within_hops::Program>(&g, 0)?;
//!     assert_eq!(cpu.states, [0, 1, 2, u32::MAX, u32::MAX]);
//!     match run_gpu::<within_hops::Program>(&g, 0) {
//!         Ok(gpu) => assert_eq!(gpu.states, cpu.states),
//!         // No GPU or driver here, or no PTX (this snippet has no build.rs).
//!         Err(e) => println!("GPU skipped: {e}"),
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Graphs come from files and generators ([`runtime::load`],
//! [`runtime::generate`]), from edge lists ([`prelude::build`]), or — with the
//! `petgraph` feature — from petgraph (`runtime::graph::petgraph`; the
//! `vertex-examples` front page runs the shipped SSSP on a petgraph graph).
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
//!   attribute (a native atomic), or `fn combine(old, new) -> State` (a CAS loop).
//!   Under `sum` a vertex pushes what arrived since its last push, so `relax` must
//!   be linear (`relax(a + b) = relax(a) + relax(b)`, e.g. counting walks on a
//!   DAG); such programs run on the CPU's sync schedule only;
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
//! # Gather/apply programs: PageRank, k-core, several fields per vertex
//!
//! Programs that need a sum over in-neighbours, the vertex's degree or a number of
//! rounds take the second form, `#[vertex_program(gather = sum|min|max|or|and)]`
//! (or `gather = custom` with `fn identity()` and `fn combine(a, b)`):
//!
//! * `type State` — any `Copy + PartialEq` plain data (a `#[repr(C)]` struct of
//!   several fields is fine: each vertex has one writer), `type Msg`, `type Acc`;
//! * `fn init(ctx) -> State`, `fn emit(ctx, state) -> Msg` (what a vertex sends
//!   along its out-edges this round), `fn gather(msg[, weight]) -> Acc`,
//!   `fn apply(ctx, old, acc) -> State`;
//! * optionally `reduce = sum|min|max` with `fn reduce(old, new) -> f64` (a global
//!   value per round: the run stops when it falls under `TOLERANCE`, and
//!   [`Ctx::global`](prelude::Ctx::global) hands it to the next round), `MAX_ROUNDS`,
//!   and `fn active(ctx, old, new) -> bool` for frontier-driven programs (only
//!   vertices that changed send in the next round; push or pull is chosen per round
//!   from the frontier's size), with `fn accepts(state) -> bool` saying which
//!   vertices may still change (settled ones are skipped, Beamer-style: visited
//!   vertices in a traversal, peeled ones in k-core). The first round's senders
//!   are the vertices where `active(ctx, s, s)` holds for their initial state
//!   `s`: a rule written as "changed" (`new != old`) starts with nobody sending,
//!   and the run ends after one round of applies. Say who starts: e.g.
//!   `new != old || ctx.round == 0` (everyone), or a state field as k-core and
//!   betweenness do (an empty first frontier is how k-core starts: every vertex
//!   applies once with nothing gathered and the first ones peel).
//! * a program whose functions read `ctx.source` (through a parameter typed `Ctx`)
//!   starts from a source vertex: running it without one is an error;
//! * round limits: a dense program without `MAX_ROUNDS` stops after 100 rounds. A
//!   frontier-driven one without it runs until its frontier empties, up to a
//!   safety bound of max(8 × vertices, 10 000) rounds; reaching that bound is an
//!   error (an `active` rule that never turns off), while reaching a limit set by
//!   `MAX_ROUNDS` or `GatherOptions::max_rounds` just stops the run.
//!
//! Programs compose: `runtime::cpu::gather::run_from` (and the GPU's
//! `run_gather_from`) start a program from another's states. Betweenness
//! centrality ships that way (`examples/src/programs/bc.rs`: path counts forward on
//! the graph, dependencies backward on its transpose).
//!
//! [`prelude::Ctx`] tells every operator its vertex, out- and in-degree, the vertex
//! and edge counts and the round. The same module runs on the CPU
//! (`runtime::cpu::gather::run`; `schedule(sync, async, obim)` for delta programs) and
//! on the GPU (pull over the in-edges with edge-chunk balancing, or push).
//!
//! ```
//! use vertex_dsl::prelude::*;
//! use vertex_dsl::runtime::{cpu::gather, gather::GatherOptions};
//!
//! #[vertex_program(gather = sum, reduce = sum)]
//! pub mod pagerank {
//!     pub type State = f64;
//!     pub type Msg = f64;
//!     pub type Acc = f64;
//!     pub const MAX_ROUNDS: u32 = 100;
//!     pub const TOLERANCE: f64 = 1e-10;
//!     pub fn init(ctx: Ctx) -> State { 1.0 / ctx.num_vertices as f64 }
//!     pub fn emit(ctx: Ctx, rank: State) -> Msg { rank / ctx.out_degree as f64 }
//!     pub fn gather(share: Msg) -> Acc { share }
//!     pub fn apply(ctx: Ctx, _old: State, sum: Acc) -> State {
//!         0.15 / ctx.num_vertices as f64 + 0.85 * sum
//!     }
//!     pub fn reduce(old: State, new: State) -> f64 { (new - old).abs() }
//! }
//!
//! // A directed 3-cycle: every vertex keeps rank 1/3.
//! let el = EdgeList::<u32> { num_vertices: 3, edges: vec![[0, 1], [1, 2], [2, 0]], weights: None };
//! let g = build(&el, BuildOptions::default()).unwrap();
//! let out = gather::run::<pagerank::Program, u32>(&g, &GatherOptions::default()).unwrap();
//! assert!(out.states.iter().all(|r| (r - 1.0 / 3.0).abs() < 1e-9));
//! ```
//!
//! # Intersection programs: triangles, clustering coefficients
//!
//! Triangle counting needs what neither form above has: the neighbours two
//! endpoints have in common. `#[vertex_program(intersect = sum|min|max|or|and)]`
//! (or `intersect = custom` with `fn identity()` and `fn combine(a, b)`) declares a
//! program over the triangles of an undirected graph:
//!
//! * `type Acc` — what a triangle is worth (one atomic word);
//! * `fn common(u, v, w) -> Acc` (or `fn common() -> Acc` when the corners do not
//!   matter) — called once per triangle `{u, v, w}` (graph ids), at the edge
//!   `(u, v)` whose common neighbour is `w`;
//! * `per = graph` (the default: one reduced value) or `per = vertex` (each
//!   triangle's value is reduced into each of its three corners), then optionally
//!   `type State` and `fn apply(ctx, acc) -> State`, where
//!   [`Ctx`](kernels::intersect::Ctx) gives the vertex and its degree.
//!
//! The engine does the rest, identically on both back ends: it orients the
//! graph (ranking vertices by degree when the degrees are skewed, as gapbs `tc`
//! does, so every triangle is met exactly once and rows stay `O(√m)` long),
//! intersects sorted neighbour lists (a merge, or galloping when one list is 16×
//! longer), and reduces. On the CPU that is `runtime::tc::program::run` (rayon
//! over equal chunks of oriented edges); on the GPU the generated kernel
//! `vx_<name>_intersect` runs one thread per oriented edge
//! (`runtime::gpu::Device::run_intersect`, or `runtime::gpu::intersect::emulate`
//! on the host). `vertex tc` runs `programs::triangles`, written this way; the
//! local clustering coefficient is `programs::lcc`:
//!
//! ```
//! use vertex_dsl::prelude::*;
//! use vertex_dsl::runtime::tc::program::run;
//!
//! #[vertex_program(intersect = sum)]
//! pub mod triangles {
//!     pub type Acc = u64;
//!     pub fn common() -> Acc { 1 }
//! }
//!
//! #[vertex_program(intersect = sum, per = vertex)]
//! pub mod lcc {
//!     pub type Acc = u64;
//!     pub type State = f64;
//!     pub fn common() -> Acc { 1 }
//!     pub fn apply(ctx: Ctx, t: Acc) -> State {
//!         let d = ctx.degree as f64;
//!         if d < 2.0 { 0.0 } else { 2.0 * t as f64 / (d * (d - 1.0)) }
//!     }
//! }
//!
//! // A 4-cycle with one diagonal: two triangles, sharing the edge 0-2.
//! let el = EdgeList::<u32> {
//!     num_vertices: 4,
//!     edges: vec![[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]],
//!     weights: None,
//! };
//! let g = build(&el, BuildOptions::undirected()).unwrap();
//! assert_eq!(run::<triangles::Program, _>(&g, None).unwrap().total, 2);
//! let c = run::<lcc::Program, _>(&g, None).unwrap().states;
//! assert_eq!(c, vec![2.0 / 3.0, 1.0, 2.0 / 3.0, 1.0]);
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
//! unknown attribute arguments; for intersection programs, a missing or misshaped
//! `common`, `apply` or `State` without `per = vertex`, and items or arguments of
//! the other program kinds.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use vertex_macros::vertex_program;

/// GPU kernel skeletons the macro instantiates (also compiled for the host, where
/// an emulation launcher runs them in tests).
pub use kernels_rs as kernels;

#[cfg(not(target_arch = "nvptx64"))]
pub use runtime;

/// petgraph, the version the conversions in `runtime::graph::petgraph` use (feature
/// `petgraph`): build your petgraph graphs with it and `Graph::try_from` accepts them.
#[cfg(all(feature = "petgraph", not(target_arch = "nvptx64")))]
pub use runtime::petgraph;

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
    /// Graph ↔ petgraph conversions (feature `petgraph`).
    #[cfg(all(feature = "petgraph", not(target_arch = "nvptx64")))]
    pub use runtime::graph::petgraph::{from_petgraph, to_petgraph};
    #[cfg(not(target_arch = "nvptx64"))]
    pub use runtime::graph::{build, BuildOptions, EdgeList, Graph};
}
