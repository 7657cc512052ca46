//! Shortest paths over ranks on the CPU, and the checks of a result found
//! on any engine (GPU ranks run the search with `gpu::multi::ranks`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::comm::Comm;
use super::part::RankGraph;
use super::rows::{bucket_rows, map_rows};
use crate::error::{Error, Result};

/// A rank's result of [`sssp`].
#[derive(Clone, Debug)]
pub struct RankSssp {
    /// Distance of each owned vertex ([`UNREACHED_DIST`] if not reached).
    pub dist: Vec<u64>,
    /// Rounds run (the last one improved nothing).
    pub rounds: u32,
    /// Edges relaxed by this rank.
    pub relaxed: u64,
    /// Wall time on this rank, and of it the exchanges.
    pub time: Duration,
    pub exchange: Duration,
}

/// Shortest distances from `source` over the ranks, edge `u→v` weighing
/// `weight(u, v)`: frontier Bellman–Ford. Each round every rank relaxes the
/// edges from the round's frontier (the vertices improved in the previous
/// round, known to all) into its own vertices — its rows transposed once, by
/// source — and the ranks all-gather the `(vertex, distance)` pairs they
/// improved, which are the next frontier. Rounds: the most edges on a
/// shortest path; edges relaxed: each frontier vertex's out-edges once a
/// round it is improved in.
pub fn sssp(
    g: &RankGraph,
    comm: &Comm,
    source: u32,
    weight: impl Fn(u32, u32) -> u64 + Sync,
) -> Result<RankSssp> {
    let n = g.num_vertices;
    if source as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "source {source} is out of range: the graph has {n} vertices"
        )));
    }
    let t0 = Instant::now();
    let mut exchange = Duration::ZERO;
    let rows = g.rows();
    let first = g.first;
    // Edges into this rank's vertices, by source: (offsets over all n, heads).
    let (offsets, heads) = bucket_rows(
        n,
        || {
            (0..rows).into_par_iter().flat_map_iter(move |i| {
                let v = (first + i) as u32;
                g.neighbors(first + i).iter().map(move |&u| (u, v))
            })
        },
        false,
    );
    let weights = map_rows(&offsets, &heads, |u, v| weight(u as u32, v));
    let dist: Vec<AtomicU64> = (0..rows)
        .into_par_iter()
        .map(|i| {
            AtomicU64::new(if first + i == source as usize {
                0
            } else {
                UNREACHED_DIST
            })
        })
        .collect();
    let mut frontier: Vec<(u32, u64)> = vec![(source, 0)];
    let (mut rounds, mut relaxed) = (0u32, 0u64);
    while !frontier.is_empty() {
        rounds += 1;
        // Relax, then collect the owned vertices whose distance dropped
        // (a stamp per round would avoid the scan; the scan is O(rows)).
        let before: Vec<u64> = dist.par_iter().map(|d| d.load(Ordering::Relaxed)).collect();
        relaxed += frontier
            .par_iter()
            .map(|&(u, du)| {
                let r = offsets[u as usize] as usize..offsets[u as usize + 1] as usize;
                for (&v, &w) in heads[r.clone()].iter().zip(&weights[r.clone()]) {
                    let d = du.saturating_add(w);
                    dist[v as usize - first].fetch_min(d, Ordering::Relaxed);
                }
                r.len() as u64
            })
            .sum::<u64>();
        let improved: Vec<[u64; 2]> = dist
            .par_iter()
            .zip(&before)
            .enumerate()
            .filter_map(|(i, (d, &b))| {
                let d = d.load(Ordering::Relaxed);
                (d < b).then_some([(first + i) as u64, d])
            })
            .collect();
        let t = Instant::now();
        let all = comm.all_gather(bytemuck::cast_slice(&improved))?;
        exchange += t.elapsed();
        frontier = all
            .iter()
            .flat_map(|b| b.chunks_exact(16))
            .map(|c| {
                let [v, d]: [u64; 2] = bytemuck::pod_read_unaligned(c);
                (v as u32, d)
            })
            .collect();
    }
    Ok(RankSssp {
        dist: dist.into_iter().map(AtomicU64::into_inner).collect(),
        rounds,
        relaxed,
        time: t0.elapsed(),
        exchange,
    })
}

/// Distance of a vertex the search did not reach.
pub const UNREACHED_DIST: u64 = u64::MAX;

/// The certificate of shortest-path distances, checked for the rows each
/// rank holds: the source at 0; for every edge `u→v` with `u` reached, `v`
/// reached and `d(v) ≤ d(u) + w(u, v)`; every reached vertex but the source
/// with an in-edge where equality holds. `dist` is this rank's vertices'
/// distances, `weight(u, v)` the edge's weight (as the ranks uploaded them).
/// Needs every rank's distances (all-gathered: 8 bytes a vertex on each
/// rank). Returns the number of violations over all ranks (0: these are the
/// shortest distances).
pub fn validate_sssp(
    g: &RankGraph,
    comm: &Comm,
    source: u32,
    dist: &[u64],
    weight: impl Fn(u32, u32) -> u64 + Sync,
) -> Result<u64> {
    let mut all = vec![UNREACHED_DIST; g.num_vertices];
    comm.all_gather_into(dist, |r| g.parts.range(r), &mut all, "distances")?;
    let bad: u64 = (0..g.rows())
        .into_par_iter()
        .map(|i| {
            let v = g.first + i;
            let d = all[v];
            let mut errs = u64::from((v == source as usize) != (d == 0));
            let mut tight = false;
            for &u in g.neighbors(v) {
                let du = all[u as usize];
                if du == UNREACHED_DIST {
                    continue;
                }
                let via = du.saturating_add(weight(u, v as u32));
                errs += u64::from(d > via);
                tight |= d == via;
            }
            if d != UNREACHED_DIST && d > 0 && !tight {
                errs += 1;
            }
            errs
        })
        .sum();
    comm.all_reduce_sum(bad)
}
