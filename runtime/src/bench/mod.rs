//! Standard benchmarks whose rules come from outside the project (Graph500), kept
//! backend-agnostic so CPU and GPU engines are measured by the same code.

pub mod graph500;
