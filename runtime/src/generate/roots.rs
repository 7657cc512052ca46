//! Random sources for runs that need many: the Graph500 rule (roots drawn at
//! random among the vertices with out-edges, with a fixed seed) that the
//! benchmarks, sampled betweenness centrality and the tests share, so that the
//! same seed picks the same roots everywhere.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::graph::Csr;

/// `count` random roots with degree > 0 (fewer if the graph has fewer).
pub fn pick_roots(csr: &Csr<u32>, count: usize, seed: u64) -> Vec<u32> {
    let mut candidates: Vec<u32> = (0..csr.num_vertices() as u32)
        .filter(|&v| csr.degree(v) > 0)
        .collect();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    candidates.shuffle(&mut rng);
    candidates.truncate(count);
    candidates
}
