//! The programs that ship with vertex, each written with `#[vertex_program]` exactly
//! as a user would write their own. One file per program, each opening with the
//! method it implements and ending with its oracle test.
//!
//! The crate is compiled twice: for the host (the CLI and the CPU engines use it)
//! and for `nvptx64-nvidia-cuda` (the same operators become GPU kernels).
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

pub mod programs;
