//! Uniform random graphs (Erdős–Rényi).
//!
//! The model is G(n, m) sampled with replacement: each of the `m` directed edges
//! has a source and a target drawn independently and uniformly from `0..n`
//! (Erdős & Rényi 1959 fix `m` distinct edges; drawing with replacement is the
//! standard way to generate it in parallel). Self-loops (about `m / n`) and
//! duplicates (about `m² / n²` undirected) can occur and are kept; building with `dedup` and
//! `remove_self_loops` gives the simple graph, slightly short of `m` edges when the
//! graph is dense. The degrees are close to Poisson(2m/n) — the opposite of the
//! skewed Kronecker graphs, which is why both exist: balanced vs skewed work.

use rand::distributions::{Distribution, Uniform};
use rayon::prelude::*;

use super::rng::{block_rng, stream};
use crate::alloc::zeroed_vec;
use crate::error::{Error, Result};
use crate::graph::{EdgeList, MAX_VERTICES};

/// Edges per independently seeded block.
const BLOCK: usize = 1 << 14;

/// `m` edges with uniformly random endpoints over `n` vertices, reproducible for a
/// seed on any number of threads.
pub fn uniform(n: usize, m: usize, seed: u64) -> Result<EdgeList<u32>> {
    check(n, m)?;
    let mut edges: Vec<[u32; 2]> = zeroed_vec(m, &format!("the {m} edges of a uniform graph"))?;
    if m == 0 {
        return Ok(EdgeList {
            num_vertices: n,
            edges,
            weights: None,
        });
    }
    let ids = Uniform::new(0, n as u64);
    let pb = crate::progress::bar(m as u64, "uniform");
    edges
        .par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(b, chunk)| {
            let mut rng = block_rng(seed, stream::UNIFORM_EDGES, b as u64);
            for e in chunk.iter_mut() {
                let u = ids.sample(&mut rng) as u32;
                let v = ids.sample(&mut rng) as u32;
                *e = [u, v];
            }
            pb.inc(chunk.len() as u64);
        });
    pb.finish_and_clear();
    Ok(EdgeList {
        num_vertices: n,
        edges,
        weights: None,
    })
}

/// Validates `uniform(n, m)`'s arguments.
pub(crate) fn check(n: usize, m: usize) -> Result<()> {
    if n > MAX_VERTICES {
        return Err(Error::InvalidArgument(format!(
            "uniform graph: {n} vertices do not fit 32-bit ids (max {MAX_VERTICES})"
        )));
    }
    if n == 0 && m > 0 {
        return Err(Error::InvalidArgument(
            "uniform graph: edges need at least one vertex".into(),
        ));
    }
    let bytes = m.checked_mul(std::mem::size_of::<[u32; 2]>());
    if bytes.is_none_or(|b| b > isize::MAX as usize) {
        return Err(Error::InvalidArgument(format!(
            "uniform graph: {m} edges are more than memory can address"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};

    #[test]
    fn counts_and_range() {
        let el = uniform(1000, 50_000, 1).unwrap();
        assert_eq!(el.num_vertices, 1000);
        assert_eq!(el.len(), 50_000);
        el.validate().unwrap();
        let empty = uniform(5, 0, 1).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.num_vertices, 5);
        assert!(uniform(0, 1, 1).is_err());
        assert!(uniform(0, 0, 1).unwrap().is_empty());
    }

    #[test]
    fn endpoints_are_uniform_and_degrees_balanced() {
        let (n, m) = (1 << 12, 1 << 18);
        let el = uniform(n, m, 2).unwrap();
        let loops = el.edges.iter().filter(|e| e[0] == e[1]).count();
        // Expected m/n = 64 self-loops; 5σ = 40.
        assert!((24..=104).contains(&loops), "{loops}");
        let g = build(&el, BuildOptions::undirected()).unwrap();
        let max = (0..n as u32).map(|v| g.csr().degree(v)).max().unwrap();
        // Degree ≈ Poisson(128): the maximum over 4096 vertices stays near 170.
        assert!(max < 220, "max degree {max}");
        // Distinct undirected non-loop pairs: P·(1 − e^(−m'/P)) with P = n(n−1)/2
        // pairs and m' = m·(1 − 1/n) non-loop edges (≈ 258,000 here, 1.6 % of
        // the edges being duplicates); the spread is a few hundred at most.
        let p = (n * (n - 1) / 2) as f64;
        let mp = m as f64 * (1.0 - 1.0 / n as f64);
        let expected = p * (1.0 - (-mp / p).exp());
        let distinct = g.num_edges() as f64 / 2.0;
        assert!(
            (distinct - expected).abs() < 0.002 * expected,
            "{distinct} vs {expected}"
        );
    }

    #[test]
    fn reproducible_on_any_pool_size() {
        let run = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| uniform(100_000, 300_000, 9).unwrap())
        };
        assert_eq!(run(1), run(2));
        assert_ne!(run(1), uniform(100_000, 300_000, 10).unwrap());
    }
}
