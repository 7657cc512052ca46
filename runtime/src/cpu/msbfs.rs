//! Many breadth-first searches at once: up to 64 sources share every edge visit
//! (MS-BFS, Then et al., VLDB 2015). Each vertex holds one `u64` per array, a
//! bit per source: `seen` (reached by that source), `visit` (reached at the
//! current level) and `next` (reached at the next one). A level pushes
//! `visit[v] & !seen[u]` along each edge `v → u` of the frontier with one
//! atomic `or`, so a vertex reached by 64 sources at the same level costs its
//! edges once, not 64 times.
//!
//! The frontier is a list of vertices (not a scan of all `n`), so a level costs
//! its frontier's edges: high-diameter graphs (thousands of small levels) stay
//! linear. What a caller wants per level (distance sums for closeness, path
//! counts, a per-source reduction) it takes from [`Level`], so all-sources runs
//! never hold `n × sources` values.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

/// Sources per batch: the bits of one word.
pub const LANES: usize = 64;

pub use kernels_rs::msbfs::each_lane;

/// One level of a batch: the vertices first reached at distance `depth`, each
/// with the bits of the sources that reached it.
pub struct Level<'a> {
    pub depth: u32,
    /// `(vertex, lanes)`: bit `i` set when source `i` of the batch reached the
    /// vertex at this depth.
    pub reached: &'a [(u32, u64)],
}

/// Runs BFS from each of `sources` (at most [`LANES`]) over `g`'s out-edges at
/// once, calling `on_level` for every level, the sources' own level (depth 0)
/// included, in order of depth. Runs in the current rayon pool. Top-down only;
/// [`run_with`] adds bottom-up levels.
pub fn run<W: Weight>(g: &Csr<W>, sources: &[u32], on_level: impl FnMut(&Level<'_>)) -> Result<()> {
    run_with(g, None, sources, on_level)
}

/// [`run`] on the calling thread alone, top-down, with plain words: for callers
/// that run many batches side by side (all-pairs), where splitting each of a
/// grid's hundreds of small levels over the pool costs more than the level.
pub fn run_serial<W: Weight>(
    g: &Csr<W>,
    sources: &[u32],
    mut on_level: impl FnMut(&Level<'_>),
) -> Result<()> {
    let n = g.num_vertices();
    let mut frontier = first_level(sources, n)?;
    let mut seen = vec![0u64; n];
    let mut next = vec![0u64; n];
    let mut touched = Vec::new();
    for &(v, bits) in &frontier {
        seen[v as usize] |= bits;
    }
    let mut depth = 0;
    while !frontier.is_empty() {
        on_level(&Level {
            depth,
            reached: &frontier,
        });
        for &(v, bits) in &frontier {
            for &u in g.neighbors(v) {
                let fresh = bits & !seen[u as usize];
                if fresh != 0 {
                    if next[u as usize] == 0 {
                        touched.push(u);
                    }
                    next[u as usize] |= fresh;
                }
            }
        }
        frontier.clear();
        for &u in &touched {
            let bits = std::mem::take(&mut next[u as usize]);
            seen[u as usize] |= bits;
            frontier.push((u, bits));
        }
        touched.clear();
        depth += 1;
    }
    Ok(())
}

/// A level runs bottom-up when its frontier's out-edges × this exceed the
/// graph's edges (Beamer's α).
pub const ALPHA: u64 = 14;
/// Levels deeper than this stay top-down: a bottom-up level reads every
/// vertex's word, which thousands of small levels (a grid) cannot afford.
pub const BOTTOM_UP_DEPTHS: u32 = 32;

/// [`run`], with `incoming` (the transpose of `g`, or `g` itself when it is
/// symmetric): large levels then go bottom-up (Beamer's direction optimization
/// per lane: a vertex gathers the lanes it misses from its in-neighbours' lanes
/// at this depth and stops reading once it has them all).
pub fn run_with<W: Weight>(
    g: &Csr<W>,
    incoming: Option<&Csr<W>>,
    sources: &[u32],
    mut on_level: impl FnMut(&Level<'_>),
) -> Result<()> {
    let n = g.num_vertices();
    let first = first_level(sources, n)?;
    let seen: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let next: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    for &(v, bits) in &first {
        seen[v as usize].store(bits, Ordering::Relaxed);
    }
    let all = lane_mask(sources.len());
    // Lanes of each frontier vertex at the current depth (bottom-up levels only).
    let visit: Vec<AtomicU64> = match incoming {
        Some(_) => (0..n).map(|_| AtomicU64::new(0)).collect(),
        None => Vec::new(),
    };
    let mut frontier = first;
    let mut depth = 0u32;
    while !frontier.is_empty() {
        on_level(&Level {
            depth,
            reached: &frontier,
        });
        if let Some(inc) = incoming.filter(|_| depth < BOTTOM_UP_DEPTHS) {
            let edges: u64 = frontier.par_iter().map(|&(v, _)| g.degree(v)).sum();
            if edges.saturating_mul(ALPHA) > g.num_edges() {
                frontier = bottom_up(inc, &frontier, &seen, &visit, all);
                depth += 1;
                continue;
            }
        }
        frontier = top_down(g, &frontier, &seen, &next, 1, |_, _, _| {});
        depth += 1;
    }
    Ok(())
}

/// The sources of a batch (at most [`LANES`], each below `n`) as its level 0:
/// one entry per distinct vertex, its lanes the positions it holds in `sources`
/// (a repeated source holds several).
pub fn first_level(sources: &[u32], n: usize) -> Result<Vec<(u32, u64)>> {
    if sources.len() > LANES {
        return Err(Error::InvalidArgument(format!(
            "a batch holds at most {LANES} sources, got {}",
            sources.len()
        )));
    }
    let mut first: Vec<(u32, u64)> = Vec::with_capacity(sources.len());
    for (i, &s) in sources.iter().enumerate() {
        crate::program::check_source(s, n)?;
        match first.iter_mut().find(|(v, _)| *v == s) {
            Some((_, bits)) => *bits |= 1 << i,
            None => first.push((s, 1 << i)),
        }
    }
    Ok(first)
}

/// Refuses an empty source list or a source out of range, before any batch runs
/// (so that a bad id late in a long list costs nothing).
pub fn check_sources(sources: &[u32], n: usize) -> Result<()> {
    if sources.is_empty() {
        return Err(Error::InvalidArgument("no sources given".into()));
    }
    sources
        .iter()
        .try_for_each(|&s| crate::program::check_source(s, n))
}

/// The lanes a batch of `k` sources holds (`k` ≤ [`LANES`]).
pub fn lane_mask(k: usize) -> u64 {
    if k >= LANES {
        u64::MAX
    } else {
        (1u64 << k) - 1
    }
}

/// One top-down level: pushes `frontier`'s lanes along its out-edges, calling
/// `on_push(v, w, fresh)` for each push of lanes `w` has not seen yet (before
/// any level-mate's push is settled, so every predecessor at this depth is
/// seen: path counts add up there); returns the next frontier, its lanes marked
/// seen. Rayon tasks take at least `min_len` entries.
pub(crate) fn top_down<W: Weight>(
    g: &Csr<W>,
    frontier: &[(u32, u64)],
    seen: &[AtomicU64],
    next: &[AtomicU64],
    min_len: usize,
    on_push: impl Fn(u32, u32, u64) + Sync,
) -> Vec<(u32, u64)> {
    // A vertex whose `next` word was empty before this level's first push is
    // listed once.
    let touched: Vec<u32> = frontier
        .par_iter()
        .with_min_len(min_len)
        .fold(Vec::new, |mut out, &(v, bits)| {
            for &u in g.neighbors(v) {
                let fresh = bits & !seen[u as usize].load(Ordering::Relaxed);
                if fresh == 0 {
                    continue;
                }
                on_push(v, u, fresh);
                if next[u as usize].fetch_or(fresh, Ordering::Relaxed) == 0 {
                    out.push(u);
                }
            }
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        });
    // The next frontier: what arrived and was not seen (another source's lane
    // may have reached `u` at this level through another edge).
    touched
        .into_par_iter()
        .with_min_len(min_len)
        .filter_map(|u| {
            let arrived = next[u as usize].swap(0, Ordering::Relaxed);
            let old = seen[u as usize].fetch_or(arrived, Ordering::Relaxed);
            let fresh = arrived & !old;
            (fresh != 0).then_some((u, fresh))
        })
        .collect()
}

/// One bottom-up level: the next frontier, found from `frontier` through the
/// in-edges `inc`; marks the lanes seen.
fn bottom_up<W: Weight>(
    inc: &Csr<W>,
    frontier: &[(u32, u64)],
    seen: &[AtomicU64],
    visit: &[AtomicU64],
    all: u64,
) -> Vec<(u32, u64)> {
    frontier
        .par_iter()
        .for_each(|&(v, bits)| visit[v as usize].store(bits, Ordering::Relaxed));
    let next: Vec<(u32, u64)> = (0..seen.len() as u32)
        .into_par_iter()
        .with_min_len(1024)
        .filter_map(|w| {
            let missing = all & !seen[w as usize].load(Ordering::Relaxed);
            if missing == 0 {
                return None;
            }
            let mut found = 0u64;
            for &v in inc.neighbors(w) {
                found |= visit[v as usize].load(Ordering::Relaxed) & missing;
                if found == missing {
                    break;
                }
            }
            (found != 0).then_some((w, found))
        })
        .collect();
    next.par_iter()
        .for_each(|&(w, bits)| _ = seen[w as usize].fetch_or(bits, Ordering::Relaxed));
    frontier
        .par_iter()
        .for_each(|&(v, _)| visit[v as usize].store(0, Ordering::Relaxed));
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    #[test]
    fn every_lane_gets_its_own_bfs_levels() {
        // A small graph and one whose large levels go bottom-up.
        for spec in ["kron:9", "kron:13"] {
            lanes_match_the_oracle(spec);
        }
    }

    fn lanes_match_the_oracle(spec: &str) {
        let g = crate::load::load_graph::<u32>(spec, &Default::default())
            .unwrap()
            .graph;
        let csr = g.csr();
        let sources: Vec<u32> = (0..70).step_by(3).chain([5, 5]).collect();
        let mut dist = vec![vec![u32::MAX; csr.num_vertices()]; sources.len()];
        run(csr, &sources, |l| {
            for &(v, bits) in l.reached {
                for (i, d) in dist.iter_mut().enumerate() {
                    if bits >> i & 1 == 1 {
                        assert_eq!(d[v as usize], u32::MAX, "reached twice");
                        d[v as usize] = l.depth;
                    }
                }
            }
        })
        .unwrap();
        for (i, &s) in sources.iter().enumerate() {
            assert_eq!(dist[i], crate::oracle::bfs_levels(csr, s), "source {s}");
        }
        // With bottom-up levels (Kronecker graphs are symmetric: their own
        // in-edges), the same.
        for batch in sources.chunks(LANES) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            run(csr, batch, |l| a.push((l.depth, sorted(l.reached)))).unwrap();
            run_with(csr, Some(csr), batch, |l| {
                b.push((l.depth, sorted(l.reached)))
            })
            .unwrap();
            assert_eq!(a, b);
        }
    }

    fn sorted(r: &[(u32, u64)]) -> Vec<(u32, u64)> {
        let mut v = r.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn bad_batches_are_errors() {
        let el = EdgeList::<u32> {
            num_vertices: 3,
            edges: vec![[0, 1]],
            weights: None,
        };
        let g = build(&el, BuildOptions::default()).unwrap();
        assert!(run(g.csr(), &[7], |_| {}).is_err());
        assert!(run(g.csr(), &[0; 65], |_| {}).is_err());
        run(g.csr(), &[], |_| panic!("no level without sources")).unwrap();
    }
}
