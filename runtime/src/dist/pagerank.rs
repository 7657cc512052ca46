//! PageRank over ranks, as gapbs's `pr` (and `vertex pr`) define it.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::comm::Comm;
use super::part::RankGraph;
use crate::error::Result;

/// A rank's result of [`pagerank`].
#[derive(Clone, Debug)]
pub struct RankPageRank {
    /// Ranks of the owned vertices.
    pub ranks: Vec<f64>,
    /// Rounds run, and the last round's L1 change over all vertices.
    pub rounds: u32,
    pub change: f64,
    /// Wall time on this rank, and of it the exchanges.
    pub time: Duration,
    pub exchange: Duration,
}

/// Out-degrees of this rank's vertices: row lengths when every edge goes
/// both ways, else counted by the rows' owners (each rank sends every
/// in-neighbour id in its rows to the id's owner: one all-to-all).
pub fn out_degrees(g: &RankGraph, comm: &Comm) -> Result<Vec<u32>> {
    if g.symmetric {
        return Ok(g.offsets.windows(2).map(|w| (w[1] - w[0]) as u32).collect());
    }
    super::part::count_at_owners(
        &g.parts,
        comm,
        g.targets.len(),
        |i| g.targets[i],
        "an out-edge",
    )
}

/// PageRank pulled over the ranks: damping `damping`, base `(1 − d)/n`, each
/// vertex spreading rank/out-degree (an `f32`, as the shipped program sends)
/// over its out-edges, dangling rank dropped; Jacobi rounds until the L1
/// change is below `tolerance` or `max_rounds` ran. Each round the ranks
/// all-gather their vertices' contributions (4 bytes a vertex) and sum their
/// rows' in-neighbours'; the change is summed in rank order, so every rank
/// stops on the same round.
pub fn pagerank(
    g: &RankGraph,
    comm: &Comm,
    damping: f64,
    tolerance: f64,
    max_rounds: u32,
) -> Result<RankPageRank> {
    let t0 = Instant::now();
    let mut exchange = Duration::ZERO;
    let n = g.num_vertices;
    let deg = out_degrees(g, comm)?;
    let base = (1.0 - damping) / n as f64;
    let mut ranks = vec![1.0 / n as f64; g.rows()];
    let mut contrib = vec![0f32; n];
    let (mut rounds, mut change) = (0u32, f64::INFINITY);
    while rounds < max_rounds {
        rounds += 1;
        let mine = contributions(&ranks, &deg);
        let t = Instant::now();
        comm.all_gather_into(&mine, |r| g.parts.range(r), &mut contrib, "contributions")?;
        exchange += t.elapsed();
        let c = &contrib;
        let local: f64 = ranks
            .par_iter_mut()
            .enumerate()
            .map(|(i, r)| {
                let new = base + damping * incoming(g, i, c);
                let d = (new - *r).abs();
                *r = new;
                d
            })
            .sum();
        let t = Instant::now();
        change = comm.all_reduce_sum_f64(local)?;
        exchange += t.elapsed();
        if change < tolerance {
            break;
        }
    }
    Ok(RankPageRank {
        ranks,
        rounds,
        change,
        time: t0.elapsed(),
        exchange,
    })
}

/// What each of this rank's vertices sends along its out-edges: rank over
/// out-degree, as an `f32` (as the shipped program sends it), 0 when dangling.
fn contributions(ranks: &[f64], deg: &[u32]) -> Vec<f32> {
    ranks
        .iter()
        .zip(deg)
        .map(|(&r, &d)| if d > 0 { (r / d as f64) as f32 } else { 0.0 })
        .collect()
}

/// The sum of the contributions `c` of the in-neighbours of this rank's
/// `i`-th vertex.
fn incoming(g: &RankGraph, i: usize, c: &[f32]) -> f64 {
    g.neighbors(g.first + i)
        .iter()
        .map(|&u| c[u as usize] as f64)
        .sum()
}

/// The check of a PageRank result over the ranks ([`validate_pagerank`]).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct PageRankCheck {
    /// The L1 change one more round would make, over all vertices.
    pub residual: f64,
    /// What it may be: `damping` times the run's last change, plus rounding.
    pub bound: f64,
    /// The sum of the ranks, and the smallest rank.
    pub sum: f64,
    pub min: f64,
    pub valid: bool,
}

/// Whether `ranks` (this rank's vertices') are what PageRank's rounds give,
/// by one more round over the ranks: PageRank's round is a contraction (in L1,
/// by `damping`: dangling rank is dropped), so from a run whose last round
/// changed the ranks by `last_change`, one more round changes them by at most
/// `damping · last_change` (plus the rounding of the `f32` contributions); a
/// wrong degree, a lost edge or a stale message breaks that bound. Also every
/// rank is at least the base `(1 − d)/n` and the sum is at most 1.
pub fn validate_pagerank(
    g: &RankGraph,
    comm: &Comm,
    ranks: &[f64],
    damping: f64,
    last_change: f64,
) -> Result<PageRankCheck> {
    if ranks.len() != g.rows() {
        return Err(crate::error::Error::InvalidArgument(format!(
            "{} ranks for a part of {} vertices",
            ranks.len(),
            g.rows()
        )));
    }
    let n = g.num_vertices;
    let deg = out_degrees(g, comm)?;
    let base = (1.0 - damping) / n as f64;
    let mut contrib = vec![0f32; n];
    comm.all_gather_into(
        &contributions(ranks, &deg),
        |r| g.parts.range(r),
        &mut contrib,
        "contributions",
    )?;
    let local: f64 = ranks
        .par_iter()
        .enumerate()
        .map(|(i, &r)| (base + damping * incoming(g, i, &contrib) - r).abs())
        .sum();
    let residual = comm.all_reduce_sum_f64(local)?;
    let sum = comm.all_reduce_sum_f64(ranks.iter().sum())?;
    let low = ranks.iter().copied().fold(f64::INFINITY, f64::min);
    let min = f64::from_bits(comm.all_reduce_min(low.max(0.0).to_bits())?);
    // f32 contributions: a relative error of 2^-24 each, on a total of at most
    // 1. The bound is reached exactly where every vertex has one out-edge (a
    // path: the change moves on undamped but for `damping`), so the rounding
    // of the run's own sums is allowed for too.
    let bound = damping * last_change * (1.0 + 1e-9) + 1e-6;
    let valid = residual.is_finite()
        && residual <= bound
        && sum <= 1.0 + 1e-6
        && ranks.iter().all(|r| r.is_finite())
        && min >= base * (1.0 - 1e-9);
    Ok(PageRankCheck {
        residual,
        bound,
        sum,
        min,
        valid: comm.all_reduce_min(u64::from(valid))? == 1,
    })
}
