//! Breadth-first search over ranks, and Graph500's checks of its result.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::comm::Comm;
use super::part::RankGraph;
use crate::error::{Error, Result};

/// Depth of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// A rank's result of [`bfs`].
#[derive(Clone, Debug)]
pub struct RankBfs {
    /// Depth of each owned vertex (`UNREACHED` if not reached).
    pub depth: Vec<u32>,
    /// Levels run (the deepest depth + 1).
    pub levels: u32,
    /// Vertices reached, over all ranks.
    pub reached: u64,
    /// Wall time of the search on this rank.
    pub time: Duration,
    /// Of which: waiting for and exchanging frontier slices.
    pub exchange: Duration,
}

/// BFS from `root` over the ranks of `comm`, each running on its rows of
/// `g`: every level, each rank's unvisited vertices look for an in-neighbour
/// in the frontier (a bitmap of all vertices, identical on every rank), and the
/// ranks all-gather their slices of the next frontier. Bottom-up on every
/// level: a rank reads only its own rows, and the exchange is one bitmap
/// slice per rank per level whatever the frontier's size.
pub fn bfs(g: &RankGraph, comm: &Comm, root: u32) -> Result<RankBfs> {
    if root as usize >= g.num_vertices {
        return Err(Error::InvalidArgument(format!(
            "source {root} is out of range: the graph has {} vertices",
            g.num_vertices
        )));
    }
    let t0 = Instant::now();
    let mut exchange = Duration::ZERO;
    let words = g.parts.words();
    let mine = g.parts.word_range(comm.rank()).len();
    let rows = g.rows();
    let mut depth = vec![UNREACHED; rows];
    let mut frontier = vec![0u64; words];
    frontier[root as usize / 64] |= 1 << (root % 64);
    if let Some(i) = (root as usize).checked_sub(g.first).filter(|&i| i < rows) {
        depth[i] = 0;
    }
    let (mut level, mut reached) = (0u32, 1u64);
    loop {
        // Next frontier slice: one word per 64 owned vertices, each word's
        // vertices settled by one task (no atomics).
        let f = &frontier;
        let next: Vec<u64> = depth
            .par_chunks_mut(64)
            .enumerate()
            .map(|(w, ds)| {
                let mut bits = 0u64;
                for (j, d) in ds.iter_mut().enumerate() {
                    if *d != UNREACHED {
                        continue;
                    }
                    let v = g.first + w * 64 + j;
                    if g.neighbors(v)
                        .iter()
                        .any(|&u| f[u as usize / 64] >> (u % 64) & 1 == 1)
                    {
                        *d = level + 1;
                        bits |= 1 << j;
                    }
                }
                bits
            })
            .collect();
        debug_assert_eq!(next.len(), mine);
        let t = Instant::now();
        comm.all_gather_into(&next, |r| g.parts.word_range(r), &mut frontier, "frontier")?;
        exchange += t.elapsed();
        let found: u64 = frontier.iter().map(|w| w.count_ones() as u64).sum();
        level += 1;
        if found == 0 {
            break;
        }
        reached += found;
    }
    Ok(RankBfs {
        depth,
        levels: level,
        reached,
        time: t0.elapsed(),
        exchange,
    })
}

/// Graph500's checks of a BFS result on the distributed graph, for edges
/// of either direction: the root at depth 0 and only it; for every edge
/// `u→v` with `u` reached, `v` reached at most one level deeper; every
/// reached vertex but the root has an in-neighbour one level up. (On an
/// undirected graph these are Graph500's: depths of neighbours differ by at
/// most one, both reached or neither.) Needs every rank's depths
/// (all-gathered: 4 bytes a vertex on each rank, not the graph). Returns the
/// number of violations over all ranks (0: valid).
pub fn validate_bfs(g: &RankGraph, comm: &Comm, root: u32, r: &RankBfs) -> Result<u64> {
    let mut all = vec![UNREACHED; g.num_vertices];
    comm.all_gather_into(&r.depth, |r| g.parts.range(r), &mut all, "depths")?;
    let bad: u64 = (0..g.rows())
        .into_par_iter()
        .map(|i| {
            let v = g.first + i;
            let d = all[v];
            let nb = g.neighbors(v);
            let mut errs = 0u64;
            if (v == root as usize) != (d == 0) {
                errs += 1;
            }
            for &u in nb {
                let du = all[u as usize];
                let ok = du == UNREACHED || (d != UNREACHED && d <= du + 1);
                errs += u64::from(!ok);
            }
            if d != UNREACHED && d > 0 && !nb.iter().any(|&u| all[u as usize] == d - 1) {
                errs += 1;
            }
            errs
        })
        .sum();
    comm.all_reduce_sum(bad)
}
