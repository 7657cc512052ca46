//! A custom program, written from scratch as a user would: the most reliable path.
//!
//! Edge weights are success probabilities in [0, 1]; a path succeeds with the
//! product of its edges' probabilities; every vertex keeps the best path's.
//! (The README walks through this file.)

use vertex_dsl::prelude::*;

#[vertex_program(combine = max)]
pub mod reliability {
    /// Probability that the best path from the source to this vertex works.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            1.0
        } else {
            0.0
        }
    }

    pub fn relax(p: State, w: Weight) -> Option<State> {
        Some(p * w)
    }
}
pub use reliability::Program;

#[cfg(test)]
mod tests {
    use runtime::cpu::{sync, CpuOptions};
    use runtime::gpu::program::emulate;
    use runtime::gpu::ProgramOptions;
    use runtime::graph::{build, BuildOptions, EdgeList};

    /// Bellman-Ford on max-product: the plainest oracle.
    fn oracle(n: usize, edges: &[[u32; 2]], p: &[f64], s: usize) -> Vec<f64> {
        let mut best = vec![0.0; n];
        best[s] = 1.0;
        for _ in 0..n {
            for (e, w) in edges.iter().zip(p) {
                let cand = best[e[0] as usize] * w;
                if cand > best[e[1] as usize] {
                    best[e[1] as usize] = cand;
                }
            }
        }
        best
    }

    #[test]
    fn matches_bellman_ford_on_cpu_and_emulated_gpu() {
        let n = 60;
        let mut edges = Vec::new();
        let mut p = Vec::new();
        let mut x = 12345u64;
        for _ in 0..240 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = ((x >> 33) as u32 % n, (x >> 13) as u32 % n);
            edges.push([a, b]);
            p.push(((x >> 40) % 1000) as f64 / 1000.0);
        }
        let el = EdgeList {
            num_vertices: n as usize,
            edges: edges.clone(),
            weights: Some(p.clone()),
        };
        let g = build(&el, BuildOptions::default()).unwrap();
        let want = oracle(n as usize, &edges, &p, 0);
        let cpu = sync::run::<super::Program>(&g, 0, &CpuOptions::default()).unwrap();
        let gpu = emulate::<super::Program>(g.csr(), 0, &ProgramOptions::default(), 4).unwrap();
        for (v, w) in want.iter().enumerate() {
            assert!((cpu.states[v] - w).abs() < 1e-12, "cpu {v}");
            assert!((gpu.states[v] - w).abs() < 1e-12, "gpu {v}");
        }
    }
}
