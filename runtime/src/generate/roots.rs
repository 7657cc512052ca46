//! Random sources for runs that need many: the Graph500 rule (roots drawn at
//! random among the vertices with out-edges, with a fixed seed) that the
//! benchmarks, sampled betweenness centrality and the tests share, so that the
//! same seed picks the same roots everywhere.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::graph::Csr;

/// `count` random roots with degree > 0 (fewer if the graph has fewer).
pub fn pick_roots(csr: &Csr<u32>, count: usize, seed: u64) -> Vec<u32> {
    pick_roots_by_offsets(csr.offsets(), count, seed)
}

/// [`pick_roots`] from the CSR offsets alone (`n + 1`): what a rank of a
/// distributed run holds of the whole graph, so that it picks the roots the
/// one-process run picks.
pub fn pick_roots_by_offsets(offsets: &[u64], count: usize, seed: u64) -> Vec<u32> {
    let mut candidates: Vec<u32> = offsets
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[1] > w[0])
        .map(|(v, _)| v as u32)
        .collect();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    candidates.shuffle(&mut rng);
    candidates.truncate(count);
    candidates
}
