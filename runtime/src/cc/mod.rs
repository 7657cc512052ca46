//! Connected components by Afforest on the CPU (rayon), fast on any diameter.
//!
//! Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018; gapbs `cc`) grows a forest
//! of parent pointers with lock-free links instead of propagating labels, so its
//! work does not grow with the diameter: label propagation on a 1000×1000 grid
//! needs ~2000 rounds, Afforest a few passes. The phases, and why each is
//! correct, are on the kernels' page ([`kernels_rs::cc`]); this module runs the
//! same per-vertex bodies ([`Afforest::link_round_one`], [`Comp::compress_one`],
//! [`Afforest::link_rest_one`]) over chunks of vertices on one team of rayon
//! workers, started once per run and spinning between the passes as an OpenMP
//! region does (the private `team` module), and the GPU backend
//! (`crate::gpu::cc`) launches them as kernels.
//!
//! Labels: every vertex gets the smallest vertex id of its component (links
//! hook larger roots under smaller ones), as [`crate::oracle::components`] and
//! the label-propagation `cc` program return.
//!
//! Directed graphs: the in-edges (the graph's CSC) are walked too, so the result
//! is the weakly connected components, as gapbs computes them.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use kernels_rs::cc::{sample_vertex, Afforest, Comp, NEIGHBOR_ROUNDS, NUM_SAMPLES};
use kernels_rs::word::StateWord;
use kernels_rs::CsrView;
use rayon::prelude::*;

use crate::error::Result;
use crate::graph::{Csr, Graph, Weight};
use team::Step;

mod team;

/// Vertices per chunk of a step ([`team`]): small enough that the last
/// chunks balance the workers (a 1000×1000 grid is 245 chunks, ~15 per worker
/// at 16 threads), large enough that the shared counter is touched once per
/// tens of microseconds. gapbs: `schedule(dynamic, 16384)`.
const CHUNK: usize = 4096;

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
    /// The whole run: allocating and initialising the labels, links, compresses
    /// and sampling (the in-edges of a directed graph are built before, untimed).
    pub time: Duration,
    /// Where that time went.
    pub phases: CcPhases,
    /// The sampled most frequent label (the component skipped in the last link
    /// phase), `None` for an empty graph or no samples.
    pub skipped: Option<u32>,
    /// Share of the samples that had that label.
    pub skipped_share: f64,
    pub threads: usize,
}

/// [`CcReport::time`] by phase.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct CcPhases {
    /// Allocating the labels, every vertex its own tree.
    pub init: Duration,
    /// The `neighbor_rounds` link rounds.
    pub link_rounds: Duration,
    /// Every compress (one per round, one at the end).
    pub compress: Duration,
    /// Reading the samples and picking the giant component.
    pub sample: Duration,
    /// The last link phase (vertices outside the giant component).
    pub link_rest: Duration,
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

/// A raw pointer the init step's workers write disjoint ranges through.
#[derive(Clone, Copy)]
struct SharedPtr(*mut u32);
// SAFETY: only used to write disjoint index ranges from the chunks of one step,
// and to view the array as atomics once every element is written.
unsafe impl Sync for SharedPtr {}
unsafe impl Send for SharedPtr {}

impl SharedPtr {
    /// Writes `x` at index `i`.
    ///
    /// # Safety
    /// `i` within the allocation, and no other access to that element meanwhile.
    #[inline(always)]
    unsafe fn write(&self, i: usize, x: u32) {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i).write(x) }
    }

    /// The `n` words as atomics.
    ///
    /// # Safety
    /// `n` elements allocated and initialised, and only accessed through
    /// atomics for `'a`.
    #[inline(always)]
    unsafe fn atomics<'a>(&self, n: usize) -> &'a [AtomicU32] {
        // SAFETY: the caller's contract.
        unsafe { u32::atomics_from_raw(self.0, n) }
    }
}

/// Which [`CcPhases`] field a step's time goes to.
#[derive(Clone, Copy)]
enum Phase {
    Init,
    Link,
    Compress,
    Sample,
    Rest,
}

/// [`afforest`] over bare views (`incoming`: in-edges of a directed graph).
///
/// Timed (`report.time`): everything from the allocation of the label array to
/// the labels in hand, as gapbs's "Trial Time" times its `Afforest` call
/// (allocation and initialisation of `comp` included). The parent array *is*
/// the result: roots are component minima, so the last compress leaves every
/// vertex labelled with the smallest id of its component and no relabelling or
/// copy pass follows.
///
/// The steps (gapbs's loops, in its order) run on one [`team`]: init, then per
/// neighbour round a link pass and a compress, the sampling, the link pass over
/// the rest, and the last compress.
fn afforest_views(out: CsrView<'_>, incoming: Option<CsrView<'_>>, o: &AfforestOptions) -> CcRun {
    let t0 = Instant::now();
    let n = out.num_vertices();
    // Fresh, not zeroed (gapbs's `pvector` likewise): the init step writes it.
    let mut labels: Vec<u32> = Vec::with_capacity(n);
    let base = SharedPtr(labels.as_mut_ptr());
    // The forest as atomics; only called by the steps after init, when every
    // element is written (a step starts once the previous one is complete).
    // SAFETY: `n` elements allocated, initialised by then, and only accessed
    // through these atomics until the team returns.
    let forest = || unsafe { base.atomics(n) };
    let afforest = || Afforest {
        out,
        incoming,
        comp: Comp { comp: forest() },
    };
    let init = |s: usize, e: usize| {
        for v in s..e {
            // SAFETY: `v < n` = the capacity; chunks are disjoint.
            unsafe { base.write(v, v as u32) };
        }
    };
    let links: Vec<_> = (0..o.neighbor_rounds)
        .map(|r| {
            move |s: usize, e: usize| {
                let a = afforest();
                for u in s..e {
                    a.link_round_one(u, r);
                }
            }
        })
        .collect();
    let compress = |s: usize, e: usize| {
        let c = Comp { comp: forest() };
        for v in s..e {
            c.compress_one(v);
        }
    };
    let giant = std::sync::Mutex::new(None);
    // No sample: skip nothing (u32::MAX is no label: ids are < MAX_VERTICES).
    let skip = AtomicU32::new(u32::MAX);
    let sample = || {
        let comp = forest();
        let samples: Vec<u32> = if n == 0 {
            Vec::new()
        } else {
            (0..o.samples)
                .map(|i| comp[sample_vertex(o.seed, i, n as u64) as usize].load(Relaxed))
                .collect()
        };
        let g = most_frequent(&samples);
        if let Some((c, _)) = g {
            skip.store(c, Relaxed);
        }
        *giant.lock().unwrap_or_else(PoisonError::into_inner) = g;
    };
    let rest = |s: usize, e: usize| {
        let a = afforest();
        let skip = skip.load(Relaxed);
        for u in s..e {
            a.link_rest_one(u, skip, o.neighbor_rounds);
        }
    };
    let mut steps = vec![(Phase::Init, Step::Par(&init))];
    for link in &links {
        steps.push((Phase::Link, Step::Par(link)));
        steps.push((Phase::Compress, Step::Par(&compress)));
    }
    steps.push((Phase::Sample, Step::Serial(&sample)));
    steps.push((Phase::Rest, Step::Par(&rest)));
    steps.push((Phase::Compress, Step::Par(&compress)));
    let (phase_of, steps): (Vec<Phase>, Vec<Step<'_>>) = steps.into_iter().unzip();
    let ends = team::run(n, CHUNK, &steps, t0);
    // SAFETY: the init step wrote every element of `0..n`.
    unsafe { labels.set_len(n) };
    let time = t0.elapsed();
    let mut phases = CcPhases::default();
    let mut last = Duration::ZERO;
    for (p, end) in phase_of.into_iter().zip(ends) {
        // The first step's time includes allocating the labels.
        let d = end.saturating_sub(last);
        last = end;
        *match p {
            Phase::Init => &mut phases.init,
            Phase::Link => &mut phases.link_rounds,
            Phase::Compress => &mut phases.compress,
            Phase::Sample => &mut phases.sample,
            Phase::Rest => &mut phases.link_rest,
        } += d;
    }
    let giant = giant.into_inner().unwrap_or_else(PoisonError::into_inner);
    CcRun {
        labels,
        report: CcReport {
            time,
            phases,
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

    /// A long directed path over many chunks and threads: links climb across
    /// chunk boundaries, in both directions of the edges.
    #[test]
    fn directed_path_over_many_chunks() {
        let n = 10 * CHUNK as u32 + 7;
        let edges: Vec<[u32; 2]> = (0..n - 1)
            .map(|v| if v % 2 == 0 { [v, v + 1] } else { [v + 1, v] })
            .collect();
        let g = graph(n as usize, &edges, false);
        for threads in [1, 2, 3] {
            let o = AfforestOptions {
                threads: Some(threads),
                ..Default::default()
            };
            let r = afforest(&g, &o).unwrap();
            assert!(r.labels.iter().all(|&l| l == 0), "{threads} threads");
        }
    }

    #[test]
    fn most_frequent_prefers_the_smallest_on_ties() {
        assert_eq!(most_frequent(&[5, 3, 5, 3, 9]), Some((3, 2)));
        assert_eq!(most_frequent(&[]), None);
    }
}
