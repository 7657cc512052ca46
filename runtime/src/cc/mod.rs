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

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use kernels_rs::cc::{sample_vertex, Afforest, Comp, NEIGHBOR_ROUNDS, NUM_SAMPLES};
use kernels_rs::word::StateWord;
use kernels_rs::CsrView;
use rayon::prelude::*;

use crate::error::Result;
use crate::graph::{Csr, Graph, Weight};

/// Vertices per chunk of a phase ([`for_chunks`]): small enough that the last
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

/// Runs `f(start, end)` on every chunk of [`CHUNK`] vertices of `0..n`, the
/// chunks handed out one at a time from a shared counter to whichever worker
/// asks (OpenMP's `schedule(dynamic)`, as gapbs runs every phase). A worker
/// that is slow, on a hub's rows or preempted, holds back at most one chunk;
/// rayon's halving split gives each worker large ranges, and the others wait
/// at the phase's end for a late one still inside its range (measured on 2
/// busy cores: grid:1000x1000 at 2 threads took as long as at 1). One worker
/// runs the whole range inline, with no counter.
fn for_chunks(n: usize, f: impl Fn(usize, usize) + Sync) {
    let workers = rayon::current_num_threads().min(n.div_ceil(CHUNK));
    if workers <= 1 {
        if n > 0 {
            f(0, n);
        }
        return;
    }
    let next = CachePadded::new(AtomicUsize::new(0));
    let grab = || loop {
        let s = next.fetch_add(CHUNK, Relaxed);
        if s >= n {
            break;
        }
        f(s, (s + CHUNK).min(n));
    };
    rayon::scope(|sc| {
        for _ in 1..workers {
            sc.spawn(|_| grab());
        }
        grab();
    });
}

/// A raw pointer the init phase's workers write disjoint ranges through.
#[derive(Clone, Copy)]
struct SharedPtr(*mut u32);
// SAFETY: only used to write disjoint index ranges from the chunks of one phase.
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
}

/// The identity forest `comp[v] = v` of `n` vertices, written in parallel into
/// a fresh allocation (no zeroing pass first: gapbs's `pvector` likewise).
fn identity(n: usize) -> Vec<u32> {
    let mut comp: Vec<u32> = Vec::with_capacity(n);
    let p = SharedPtr(comp.as_mut_ptr());
    for_chunks(n, |s, e| {
        for v in s..e {
            // SAFETY: `v < n` = the capacity; chunks are disjoint.
            unsafe { p.write(v, v as u32) };
        }
    });
    // SAFETY: every element of `0..n` was written above.
    unsafe { comp.set_len(n) };
    comp
}

/// [`afforest`] over bare views (`incoming`: in-edges of a directed graph).
///
/// Timed (`report.time`): everything from the allocation of the label array to
/// the labels in hand, as gapbs's "Trial Time" times its `Afforest` call
/// (allocation and initialisation of `comp` included). The parent array *is*
/// the result: roots are component minima, so the last compress leaves every
/// vertex labelled with the smallest id of its component and no relabelling or
/// copy pass follows.
fn afforest_views(out: CsrView<'_>, incoming: Option<CsrView<'_>>, o: &AfforestOptions) -> CcRun {
    let t0 = Instant::now();
    let mut phases = CcPhases::default();
    let mut lap = {
        let mut last = t0;
        move || {
            let now = Instant::now();
            let d = now - last;
            last = now;
            d
        }
    };
    let n = out.num_vertices();
    let mut labels = identity(n);
    phases.init = lap();
    let comp = u32::atomics_from_mut(&mut labels);
    let a = Afforest {
        out,
        incoming,
        comp: Comp { comp },
    };
    let compress = || {
        for_chunks(n, |s, e| {
            for v in s..e {
                a.comp.compress_one(v);
            }
        })
    };
    for r in 0..o.neighbor_rounds {
        for_chunks(n, |s, e| {
            for u in s..e {
                a.link_round_one(u, r);
            }
        });
        phases.link_rounds += lap();
        compress();
        phases.compress += lap();
    }
    let samples: Vec<u32> = if n == 0 {
        Vec::new()
    } else {
        (0..o.samples)
            .map(|i| comp[sample_vertex(o.seed, i, n as u64) as usize].load(Relaxed))
            .collect()
    };
    let giant = most_frequent(&samples);
    // No sample: skip nothing (u32::MAX is no label: ids are < MAX_VERTICES).
    let skip = giant.map_or(u32::MAX, |(c, _)| c);
    phases.sample = lap();
    for_chunks(n, |s, e| {
        for u in s..e {
            a.link_rest_one(u, skip, o.neighbor_rounds);
        }
    });
    phases.link_rest = lap();
    compress();
    phases.compress += lap();
    CcRun {
        labels,
        report: CcReport {
            time: t0.elapsed(),
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

    /// Every vertex in exactly one chunk, over several workers and a ragged end.
    #[test]
    fn chunks_cover_every_vertex_once() {
        use std::sync::atomic::AtomicU32;
        for n in [0, 1, CHUNK, 3 * CHUNK + 5] {
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            crate::cpu::pool(3, false).unwrap().install(|| {
                for_chunks(n, |s, e| {
                    assert!(s < e && e <= n && e - s <= CHUNK);
                    for h in &hits[s..e] {
                        h.fetch_add(1, Relaxed);
                    }
                })
            });
            assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "n = {n}");
            let id = crate::cpu::pool(3, false).unwrap().install(|| identity(n));
            assert!(id.iter().enumerate().all(|(v, &c)| c == v as u32));
        }
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
