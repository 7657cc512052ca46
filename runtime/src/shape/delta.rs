//! The bucket width Δ a graph suggests to a program with a priority, in the
//! program's own units (Meyer & Sanders' Δ = Θ(max weight / degree)): the CPU's
//! obim/Δ-stepping ([`crate::cpu::operator::cpu_delta`]) and the GPU's near-far
//! passes ([`crate::gpu::program::gpu_delta`]) scale it each their own way.

use crate::graph::Graph;
use crate::program::VertexProgram;

/// The mean priority step `|priority(relax(s0, w)) − priority(s0)|` over a sample
/// of edges (`s0` = the source's initial state); `None` for unweighted programs,
/// empty graphs, or when no sampled edge relaxes.
pub fn mean_step<P: VertexProgram>(g: &Graph<P::Weight>, source: u32) -> Option<f64> {
    let csr = g.csr();
    let (n, m) = (csr.num_vertices(), csr.num_edges() as usize);
    let weights = csr.weights().filter(|_| P::WEIGHTED && m > 0 && n > 0)?;
    let s0 = P::init(source.min(n as u32 - 1), source);
    let p0 = P::priority(s0);
    let samples = m.min(4096);
    let (mut sum, mut count) = (0u64, 0u64);
    for i in 0..samples {
        let e = (i as u64 * m as u64 / samples as u64) as usize;
        if let Some(s1) = P::relax(s0, weights[e]) {
            sum += u64::from(P::priority(s1).abs_diff(p0));
            count += 1;
        }
    }
    (count > 0).then(|| sum as f64 / count as f64)
}

/// Δ from the graph, in the program's own priority units: the mean priority step
/// `|priority(relax(s0, w)) − priority(s0)|` over a sample of edges (`s0` = the
/// source's initial state), times 2 (≈ the largest step for uniform weights),
/// divided by the mean out-degree — Meyer & Sanders' Δ = Θ(max weight / degree),
/// which keeps a bucket's light edges few while buckets stay full enough to share.
/// Unweighted programs get Δ = 1 (one bucket per level).
pub fn auto_delta<P: VertexProgram>(g: &Graph<P::Weight>, source: u32) -> u64 {
    let csr = g.csr();
    let Some(mean_step) = mean_step::<P>(g, source) else {
        return 1;
    };
    let mean_degree = (csr.num_edges() as f64 / csr.num_vertices() as f64).max(1.0);
    ((2.0 * mean_step / mean_degree).round() as u64).max(1)
}
