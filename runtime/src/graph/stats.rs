//! Summary numbers reported by `vertex info`.

use rayon::prelude::*;

use super::csr::Graph;
use super::weight::{Weight, WeightKind};

/// Degree and shape statistics of a graph.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GraphStats {
    pub vertices: u64,
    /// Stored directed edges (an undirected edge counts twice).
    pub edges: u64,
    pub symmetric: bool,
    pub weight_type: Option<WeightKind>,
    pub min_out_degree: u64,
    pub max_out_degree: u64,
    pub mean_out_degree: f64,
    pub self_loops: u64,
    /// Vertices with neither in- nor out-edges.
    pub isolated_vertices: u64,
    /// Bytes held by the CSR arrays (plus the CSC if it was built).
    pub memory_bytes: u64,
}

impl GraphStats {
    /// Computes the statistics in parallel (one pass over the edges).
    pub fn of<W: Weight>(g: &Graph<W>) -> Self {
        let csr = g.csr();
        let n = csr.num_vertices();
        let (min, max) = (0..n as u32)
            .into_par_iter()
            .map(|v| (csr.degree(v), csr.degree(v)))
            .reduce(|| (u64::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        let self_loops = (0..n as u32)
            .into_par_iter()
            .map(|v| csr.neighbors(v).iter().filter(|&&t| t == v).count() as u64)
            .sum();
        let mut has_in = vec![false; n];
        for &t in csr.targets() {
            has_in[t as usize] = true;
        }
        let isolated = (0..n)
            .filter(|&v| !has_in[v] && csr.degree(v as u32) == 0)
            .count() as u64;
        GraphStats {
            vertices: n as u64,
            edges: csr.num_edges(),
            symmetric: g.is_symmetric(),
            weight_type: csr.is_weighted().then_some(W::KIND),
            min_out_degree: if n == 0 { 0 } else { min },
            max_out_degree: max,
            mean_out_degree: if n == 0 {
                0.0
            } else {
                csr.num_edges() as f64 / n as f64
            },
            self_loops,
            isolated_vertices: isolated,
            memory_bytes: csr.memory_bytes(),
        }
    }
}
