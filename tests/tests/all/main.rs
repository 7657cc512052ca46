//! The integration tests of the whole workspace as one test binary: each module was a
//! binary of its own, and each linked its own monomorphized engines (most of a cold
//! `cargo test` build). The compile-fail cases stay in `../ui.rs` (trybuild sets
//! `VERTEX_SKIP_PTX` for its own builds, which must not leak into these tests).

mod apsp;
mod batched;
mod batched_gather;
mod batched_programs;
mod bc;
mod cc;
mod cpu_engines;
mod cpu_ordered;
mod cpu_programs;
mod gather_programs;
mod gpu_handover;
mod gpu_multi;
mod gpu_multi_gather;
mod gpu_programs;
mod gpu_resident;
mod gpu_tiles;
mod graph500;
mod petgraph;
mod program_crate;
mod run_call;
mod tc;
