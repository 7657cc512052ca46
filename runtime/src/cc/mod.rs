//! Connected components by Afforest on the CPU (rayon), fast on any diameter.
//!
//! Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018; gapbs `cc`) grows a forest
//! of parent pointers with lock-free links instead of propagating labels, so its
//! work does not grow with the diameter: label propagation on a 1000×1000 grid
//! needs ~2000 rounds, Afforest a few passes. The phases, and why each is
//! correct, are on the kernels' page ([`kernels_rs::cc`]); this module runs the
//! same per-vertex bodies ([`Afforest::link_round_one`], [`Comp::compress_one`],
//! [`Afforest::link_rest_one`]) over rayon, and the GPU backend
//! (`crate::gpu::cc`) launches them as kernels.
//!
//! Labels: every vertex gets the smallest vertex id of its component (links
//! hook larger roots under smaller ones), as [`crate::oracle::components`] and
//! the label-propagation `cc` program return.
//!
//! Directed graphs: the in-edges (the graph's CSC) are walked too, so the result
//! is the weakly connected components, as gapbs computes them.

use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use kernels_rs::cc::{sample_vertex, Afforest, Comp, NEIGHBOR_ROUNDS, NUM_SAMPLES};
use kernels_rs::CsrView;
use rayon::prelude::*;

use crate::error::Result;
use crate::graph::{Csr, Graph, Weight};

/// Vertices per rayon task: small enough to balance skewed rows, large enough
/// that task overhead stays below the links' cost.
const GRAIN: usize = 1024;

/// Knobs of an Afforest run (defaults: gapbs' 2 rounds and 1024 samples).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct AfforestOptions {
    /// Neighbours per vertex linked before sampling.
    pub neighbor_rounds: u32,
    /// Vertices sampled to find the giant component (0: no skipping).
    pub samples: u32,
    /// Seed of the sampled vertex set ([`sample_vertex`]).
    pub seed: u64,
    /// CPU worker threads (default: all cores).
    pub threads: Option<usize>,
}

impl Default for AfforestOptions {
    fn default() -> Self {
        AfforestOptions {
            neighbor_rounds: NEIGHBOR_ROUNDS,
            samples: NUM_SAMPLES,
            seed: 27_491_095,
            threads: None,
        }
    }
}

/// What an Afforest run found and how long it took.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CcReport {
    /// Link, compress and sampling, excluding building the in-edges.
    pub time: Duration,
    /// The sampled most frequent label (the component skipped in the last link
    /// phase), `None` for an empty graph or no samples.
    pub skipped: Option<u32>,
    /// Share of the samples that had that label.
    pub skipped_share: f64,
    pub threads: usize,
}

/// Per-vertex labels and the run report.
pub struct CcRun {
    /// `labels[v]` = smallest vertex id of `v`'s (weakly) connected component.
    pub labels: Vec<u32>,
    pub report: CcReport,
}

/// The most frequent value of `samples` and its count (ties: the smallest
/// value, so runs are reproducible); `None` if empty.
pub fn most_frequent(samples: &[u32]) -> Option<(u32, u32)> {
    let mut s = samples.to_vec();
    s.sort_unstable();
    let mut best: Option<(u32, u32)> = None;
    for run in s.chunk_by(|a, b| a == b) {
        let count = run.len() as u32;
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((run[0], count));
        }
    }
    best
}

/// Number of components of a labelling by [`afforest`] (roots label themselves).
pub fn count_components(labels: &[u32]) -> u64 {
    labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| v as u32 == l)
        .count() as u64
}

/// Size of the largest component of a labelling (0 for an empty graph).
pub fn largest_component(labels: &[u32]) -> u64 {
    let mut size = vec![0u64; labels.len()];
    for &l in labels {
        size[l as usize] += 1;
    }
    size.into_iter().max().unwrap_or(0)
}

/// The CSR as the kernels see it.
pub(crate) fn view<W: Weight>(c: &Csr<W>) -> CsrView<'_> {
    CsrView {
        offsets: c.offsets(),
        targets: c.targets(),
    }
}

/// Weakly connected components of `g` by Afforest on the CPU. A directed graph's
/// in-edges are built first if they are not yet (outside the timed part).
pub fn afforest<W: Weight>(g: &Graph<W>, opts: &AfforestOptions) -> Result<CcRun> {
    let incoming = (!g.is_symmetric()).then(|| view(g.csc()));
    let out = view(g.csr());
    let (run, threads) = crate::cpu::in_pool(opts.threads, || afforest_views(out, incoming, opts))?;
    let mut run = run;
    run.report.threads = threads;
    Ok(run)
}

/// [`afforest`] over bare views (`incoming`: in-edges of a directed graph).
fn afforest_views(out: CsrView<'_>, incoming: Option<CsrView<'_>>, o: &AfforestOptions) -> CcRun {
    let t0 = Instant::now();
    let n = out.num_vertices();
    let comp: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    let a = Afforest {
        out,
        incoming,
        comp: Comp { comp: &comp },
    };
    let compress = || {
        (0..n)
            .into_par_iter()
            .with_min_len(GRAIN)
            .for_each(|v| a.comp.compress_one(v))
    };
    for r in 0..o.neighbor_rounds {
        (0..n)
            .into_par_iter()
            .with_min_len(GRAIN)
            .for_each(|u| a.link_round_one(u, r));
        compress();
    }
    let samples: Vec<u32> = if n == 0 {
        Vec::new()
    } else {
        (0..o.samples)
            .map(|i| {
                comp[sample_vertex(o.seed, i, n as u64) as usize]
                    .load(std::sync::atomic::Ordering::Relaxed)
            })
            .collect()
    };
    let giant = most_frequent(&samples);
    // No sample: skip nothing (u32::MAX is no label: ids are < MAX_VERTICES).
    let skip = giant.map_or(u32::MAX, |(c, _)| c);
    (0..n)
        .into_par_iter()
        .with_min_len(GRAIN)
        .for_each(|u| a.link_rest_one(u, skip, o.neighbor_rounds));
    compress();
    let labels: Vec<u32> = comp.into_par_iter().map(AtomicU32::into_inner).collect();
    CcRun {
        labels,
        report: CcReport {
            time: t0.elapsed(),
            skipped: giant.map(|(c, _)| c),
            skipped_share: giant.map_or(0.0, |(_, k)| f64::from(k) / f64::from(o.samples)),
            threads: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn graph(n: usize, edges: &[[u32; 2]], undirected: bool) -> Graph<u32> {
        let el = EdgeList::<u32> {
            num_vertices: n,
            edges: edges.to_vec(),
            weights: None,
        };
        let o = if undirected {
            BuildOptions::undirected()
        } else {
            BuildOptions::default()
        };
        build(&el, o).unwrap()
    }

    #[test]
    fn weak_components_of_a_directed_graph() {
        // 3->0 only reaches 0 through an in-edge of 0; 5 is isolated.
        let g = graph(7, &[[3, 0], [1, 2], [4, 1], [6, 4]], false);
        let r = afforest(&g, &AfforestOptions::default()).unwrap();
        assert_eq!(r.labels, vec![0, 1, 1, 0, 1, 5, 1]);
        assert_eq!(r.labels, crate::oracle::components(g.csr()));
        assert_eq!(count_components(&r.labels), 3);
        assert_eq!(largest_component(&r.labels), 4);
    }

    #[test]
    fn empty_and_no_samples() {
        let g = graph(0, &[], true);
        assert!(afforest(&g, &AfforestOptions::default())
            .unwrap()
            .labels
            .is_empty());
        let g = graph(5, &[[4, 3], [3, 2]], true);
        let o = AfforestOptions {
            samples: 0,
            ..Default::default()
        };
        assert_eq!(afforest(&g, &o).unwrap().labels, vec![0, 1, 2, 2, 2]);
    }

    #[test]
    fn most_frequent_prefers_the_smallest_on_ties() {
        assert_eq!(most_frequent(&[5, 3, 5, 3, 9]), Some((3, 2)));
        assert_eq!(most_frequent(&[]), None);
    }
}
