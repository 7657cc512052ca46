//! The vertex host runtime: graph storage and file formats, generators, CPU engines
//! and the GPU host runtime.
//!
//! Start at [`graph`] (CSR/CSC and the builder), [`formats`] (readers and writers,
//! including the `.vgr` snapshot) and [`generate`] (Kronecker, uniform, grid).

pub mod apsp;
pub mod bench;
pub mod cc;
pub mod cpu;
pub mod error;
pub mod formats;
pub mod gather;
pub mod generate;
pub mod gpu;
pub mod graph;
pub mod load;
pub mod oracle;
pub mod plot;
pub mod program;
pub mod progress;
pub mod tc;
pub mod validate;

pub use error::{Error, Result};
