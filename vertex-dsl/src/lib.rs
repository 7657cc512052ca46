//! vertex: write a graph algorithm once, as vertex operators in plain Rust, and run
//! it on the CPU (rayon engines) and the GPU (the same code compiled to PTX).
//!
//! This page is where to start: adding the crate, a program of your own from end to
//! end, then the two program kinds — [push programs](#the-model)
//! ([`program::VertexProgram`]) and [gather/apply
//! programs](#gatherapply-programs-pagerank-k-core-several-fields-per-vertex)
//! ([`kernels::gather::GatherProgram`]) — and [how to run them](#running-a-program-the-one-call):
//! every kind through one call, `run::<Program>(&graph)…go()`, and
//! [`cli::App`] for a command line of your own.
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
//!     let cpu = run::<within_hops::Program>(&g).source(0).backend(Backend::Cpu).go()?;
//!     assert_eq!(cpu.values, [0, 1, 2, u32::MAX, u32::MAX]);
//!     println!("{} ({})", cpu.report.strategy, cpu.report.strategy_reason.unwrap_or_default());
//!     match run::<within_hops::Program>(&g).source(0).backend(Backend::Gpu).go() {
//!         Ok(gpu) => assert_eq!(gpu.values, cpu.values),
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
//! let out = run::<reliability::Program>(&g).source(0).go().unwrap();
//! assert_eq!(out.values, vec![1.0, 0.5, 0.25]);
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
//! and edge counts and the round. The same module runs on the CPU (synchronous
//! rounds; `schedule(sync, async, obim)` lets a delta program run asynchronously)
//! and on the GPU (pull over the in-edges with edge-chunk balancing, or push),
//! through the same [`run`] call as a push program. `State` may be a struct
//! written as it is, `pub struct State { .. }` (with `#[repr(C)]` and
//! `#[derive(Clone, Copy, PartialEq)]`); `-o` files of [`cli::App`] print it as
//! one column per field.
//!
//! ```
//! use vertex_dsl::prelude::*;
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
//! let out = run::<pagerank::Program>(&g).go().unwrap();
//! assert!(out.values.iter().all(|r| (r - 1.0 / 3.0).abs() < 1e-9));
//! println!("{} rounds on the {}", out.report.rounds, out.report.backend.name());
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
//! The engine does the rest, identically on both back ends: it orders the
//! vertices so that every triangle is met exactly once (ranked by degree in an
//! oriented copy when the degrees are skewed, as gapbs `tc` does, so rows stay
//! `O(√m)` long; otherwise by id, reading the graph's own sorted rows in place,
//! with no copy), intersects sorted neighbour lists (a merge or scan, or
//! galloping when one list is 16× longer), and reduces: on the CPU with rayon
//! over equal chunks of edges, on the GPU with the generated kernel
//! `vx_<name>_intersect`, one thread per edge. The corners reach `common` lowest
//! first in that order. The run's value is an [`Intersected`]: the `total` of a
//! `per = graph` program, the `states` of a `per = vertex` one. `vertex tc` runs
//! `programs::triangles`, written this way; the local clustering coefficient is
//! `programs::lcc`:
//!
//! ```
//! use vertex_dsl::prelude::*;
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
//! assert_eq!(run::<triangles::Program>(&g).go().unwrap().values.total, 2);
//! let c = run::<lcc::Program>(&g).go().unwrap().values.states;
//! assert_eq!(c, vec![2.0 / 3.0, 1.0, 2.0 / 3.0, 1.0]);
//! ```
//!
//! # Running a program: the one call
//!
//! Every kind runs the same way: [`run`]`::<P>(&graph)`, then what differs from
//! the defaults, then [`Run::go`], which returns an [`Outcome`]: the `values`
//! (one state per vertex; an [`Intersected`] for intersection programs) and a
//! [`Report`] saying which backend ran and why, which schedule or kernel and
//! why, the source, rounds, edges, threads and time.
//!
//! * `.backend(Backend::Cpu | Gpu | Auto)` — `Auto` (the default) takes GPU 0
//!   when the program's crate built PTX and a device opens, else the CPU;
//! * `.source(s)` (default: the first vertex with out-edges), or
//!   `.sources(..)` with [`Run::go_each`] for one run per source;
//! * `.schedule(Schedule::Sync | Async | Obim)` and `.threads(n)` on the CPU,
//!   `.kernel(Kernel::..)` and `.max_edge_count(m)` on the GPU — each defaults
//!   to what `vertex` picks from the program and the graph (a diameter probe,
//!   hubs, Δ from the weights);
//! * `.heuristic(Heuristic { alpha, beta })`: where the GPU direction kernel
//!   turns bottom-up and back (push programs);
//! * `.delta(d)`, `.max_rounds(r)`, `.tolerance(t)`, `.device(i)`;
//! * `.all_pairs()` instead of `.go()` for `semiring` programs: the closure
//!   over every pair of vertices, blocked Floyd–Warshall on the CPU or GPU.
//!
//! Settings that cannot apply are errors, not silently ignored (a kernel on a
//! forced CPU run, a source for a program where every vertex starts). A GPU
//! run keeps the device, the program's kernels and the uploaded graph for the
//! next call (`runtime::run::device_cache`), so a loop over sources uploads
//! once. Graphs come from [`load`] (any file format `vertex` reads, or a
//! generator spec such as `kron:16` or `grid:100x100`) or [`load_with`].
//!
//! ```
//! # use vertex_dsl::prelude::*;
//! # #[vertex_program(combine = min)]
//! # pub mod hops {
//! #     pub type State = u32;
//! #     pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
//! #     pub fn relax(d: State) -> Option<State> { d.checked_add(1) }
//! # }
//! let g: Graph<u32> = vertex_dsl::load("grid:30x20")?;
//! let out = run::<hops::Program>(&g)
//!     .source(0)
//!     .backend(Backend::Cpu)
//!     .schedule(Schedule::Async)
//!     .threads(2)
//!     .go()?;
//! assert_eq!(out.values, vertex_dsl::runtime::oracle::bfs_levels(g.csr(), 0));
//! assert_eq!(out.report.strategy, "async");
//! // The grid is undirected: the far corner is as far from vertex 0 as 0 from it.
//! let each = run::<hops::Program>(&g).sources([0, 599]).backend(Backend::Cpu).go_each()?;
//! assert_eq!(each[1].values[0], out.values[599]);
//! # Ok::<(), vertex_dsl::runtime::Error>(())
//! ```
//!
//! Without a GPU, `runtime::gpu::program::emulate` runs a push program's
//! kernel bodies on the host (how CI tests the kernels):
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
//! let cpu = run::<hops::Program>(&g).source(0).backend(Backend::Cpu).go().unwrap();
//! assert_eq!(gpu_path.states, cpu.values);
//! ```
//!
//! # A command line of your own
//!
//! [`cli::App`] gives a crate's programs the `vertex` command's front end —
//! subcommands named after the programs, every graph format and generator,
//! `--backend/--kernel/--schedule/--threads/--source`, `-o`, `--json`,
//! `--validate` against an oracle you give, `compare` (schedules and CPU/GPU
//! side by side, with an SVG), progress bars and error messages — from a
//! `main` of a few lines (feature `cli`, on by default).
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

#[cfg(all(feature = "cli", not(target_arch = "nvptx64")))]
pub mod cli;

/// petgraph, the version the conversions in `runtime::graph::petgraph` use (feature
/// `petgraph`): build your petgraph graphs with it and `Graph::try_from` accepts them.
#[cfg(all(feature = "petgraph", not(target_arch = "nvptx64")))]
pub use runtime::petgraph;

/// The program trait and its building blocks (host side).
#[cfg(not(target_arch = "nvptx64"))]
pub use runtime::program;

/// The one run call: `run::<P>(&graph)` → set what differs → `.go()`. Every
/// program kind (push, gather/apply, level sweep, intersection; `.all_pairs()`
/// for semiring programs) on the CPU or the GPU; see [the front
/// page](crate#running-a-program-the-one-call).
#[cfg(not(target_arch = "nvptx64"))]
pub use runtime::run::{run, Backend, Intersected, Outcome, Plan, Report, Run, Runnable};

/// The CPU schedules ([`Run::schedule`]) and GPU kernels ([`Run::kernel`]).
#[cfg(not(target_arch = "nvptx64"))]
pub use runtime::{gpu::BfsKernel as Kernel, gpu::Heuristic, program::Schedule};

#[cfg(not(target_arch = "nvptx64"))]
pub use runtime::load::LoadOptions;

/// Reads a graph file (any format `vertex` reads, by extension, gzipped or
/// not) or makes one from a generator spec (`kron:16`, `uniform:N:M`,
/// `grid:WxH`, `mesh:N`). Errors name the file and line.
///
/// ```
/// let g: vertex_dsl::prelude::Graph<u32> = vertex_dsl::load("grid:4x3")?;
/// assert_eq!(g.num_vertices(), 12);
/// # Ok::<(), vertex_dsl::runtime::Error>(())
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub fn load<W: runtime::graph::Weight>(spec: &str) -> runtime::Result<runtime::graph::Graph<W>> {
    load_with(spec, &LoadOptions::default())
}

/// [`load`] with options: make it undirected, drop or replace its weights.
///
/// ```
/// use vertex_dsl::LoadOptions;
/// // Random weights 1..=9 (seed 7) on a generated grid, for a weighted program.
/// let opts = LoadOptions { random_weights: Some((1, 9, 7)), ..LoadOptions::default() };
/// let g: vertex_dsl::prelude::Graph<u32> = vertex_dsl::load_with("grid:4x3", &opts)?;
/// assert!(g.csr().is_weighted());
/// # Ok::<(), vertex_dsl::runtime::Error>(())
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub fn load_with<W: runtime::graph::Weight>(
    spec: &str,
    opts: &LoadOptions,
) -> runtime::Result<runtime::graph::Graph<W>> {
    Ok(runtime::load::load_graph::<W>(spec, opts)?.graph)
}

/// Everything a program file and a small driver need.
pub mod prelude {
    pub use crate::vertex_program;
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{load, run, Backend, Heuristic, Kernel, Schedule};
    /// What gather/apply operators know about their vertex and round.
    pub use kernels_rs::gather::Ctx;
    /// Graph ↔ petgraph conversions (feature `petgraph`).
    #[cfg(all(feature = "petgraph", not(target_arch = "nvptx64")))]
    pub use runtime::graph::petgraph::{from_petgraph, to_petgraph};
    #[cfg(not(target_arch = "nvptx64"))]
    pub use runtime::graph::{build, BuildOptions, EdgeList, Graph};
}
