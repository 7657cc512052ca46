//! The dense closure over a semiring, the part that both the APSP front end
//! ([`crate::apsp`]) and the GPU closure kernels ([`crate::gpu::closure`]) build
//! on: the matrix ([`matrix::DistMatrix`], next hops, paths), the algebra
//! ([`semiring`]) and the CPU's blocked Floyd–Warshall ([`fw_cpu`], also the
//! reference the GPU results are checked against). It imports neither of them.

pub mod fw_cpu;
pub mod matrix;
pub mod semiring;
