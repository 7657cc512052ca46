//! The vertex benchmark harnesses: every measurement that writes a results file
//! (JSON + SVG under `docs/results/`), kept out of the library the measurements
//! are of.
//!
//! The harnesses call `runtime`'s public API only, so what they time is what a
//! user's call runs. Programs come from the caller (the `vertex` CLI's
//! `bench`/`compare` commands and the benchmark binaries of `vertex-examples`
//! instantiate them with the shipped programs), so this crate depends on the
//! runtime alone.
//!
//! * [`graph500`]: the Graph500 BFS benchmark (construction, 64 roots, every
//!   tree validated, harmonic-mean TEPS) for any engine;
//! * [`gpu_bfs`]: the GPU BFS benchmarks of seed 000 (balanced vs naive over
//!   scales, the `max_edge_count` sweep) and the DSL's cost against them
//!   ([`gpu_bfs::dsl`]);
//! * [`apsp`]: APSP on the CPU and the GPU against peers ([`apsp::peer`]), and
//!   the closure of every semiring ([`apsp::closure`]);
//! * [`compare`]: one program under several schedules and back ends, side by
//!   side (`vertex compare`);
//! * [`host`]: the machine a report was measured on;
//! * [`plot`]: the one drawing routine every chart goes through.
//!
//! The binary `vertex-counters` (hardware counters of a command) is here too.

pub mod apsp;
pub mod compare;
pub mod gpu_bfs;
pub mod graph500;
pub mod host;
pub mod plot;
