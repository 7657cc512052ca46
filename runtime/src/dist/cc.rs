//! Connected components over ranks.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::comm::Comm;
use super::part::RankGraph;
use crate::error::{Error, Result};

/// A rank's result of [`components`].
#[derive(Clone, Debug)]
pub struct RankCc {
    /// Every vertex's label (the smallest id of its component), replicated
    /// on every rank: the algorithm keeps them all (4 bytes a vertex).
    pub labels: Vec<u32>,
    /// Rounds of propagation.
    pub rounds: u32,
    /// Number of components.
    pub components: u64,
    /// Wall time on this rank, and of it the exchanges.
    pub time: Duration,
    pub exchange: Duration,
}

/// Components of an undirected `g` (rows with both directions of every
/// edge), each vertex labelled with the smallest id in its component, as
/// the one-process `vertex cc` labels them. Each round a rank lowers its
/// vertices' labels to their neighbours' smallest, the ranks all-gather
/// those slices, and every rank then shortcuts the (identical) replicated
/// array by pointer jumping (`l[v] ← l[l[v]]`), which cuts the rounds from
/// the diameter to about its logarithm on paths; no exchange is needed for
/// that step, as every rank computes the same array. Labels only decrease
/// and stay ids of the vertex's component, so the fixed point is the
/// component minimum.
pub fn components(g: &RankGraph, comm: &Comm) -> Result<RankCc> {
    if !g.symmetric {
        return Err(Error::InvalidArgument(
            "components over ranks need every edge both ways (load the graph with both_ways)"
                .into(),
        ));
    }
    let t0 = Instant::now();
    let mut exchange = Duration::ZERO;
    let n = g.num_vertices;
    let mut labels: Vec<u32> = (0..n as u32).collect();
    let mut rounds = 0u32;
    loop {
        rounds += 1;
        let l = &labels;
        let mine: Vec<u32> = (0..g.rows())
            .into_par_iter()
            .map(|i| {
                let v = g.first + i;
                g.neighbors(v)
                    .iter()
                    .map(|&u| l[u as usize])
                    .fold(l[v], u32::min)
            })
            .collect();
        let t = Instant::now();
        let mut changed =
            comm.all_gather_into(&mine, |r| g.parts.range(r), &mut labels, "labels")?;
        exchange += t.elapsed();
        // Shortcut to a fixed point: l[v] <- l[l[v]].
        loop {
            let l = &labels;
            let next: Vec<u32> = l.par_iter().map(|&x| l[x as usize]).collect();
            if next == labels {
                break;
            }
            labels = next;
            changed = true;
        }
        if !changed {
            break;
        }
    }
    let components = labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| l as usize == v)
        .count() as u64;
    Ok(RankCc {
        labels,
        rounds,
        components,
        time: t0.elapsed(),
        exchange,
    })
}

/// Checks of a labelling on the distributed graph: both ends of every edge
/// share a label, every label is at most its vertex's id and is the label
/// of itself (a component's smallest id labels itself). Returns the number
/// of violations over all ranks (0: valid).
pub fn validate_components(g: &RankGraph, comm: &Comm, labels: &[u32]) -> Result<u64> {
    let bad: u64 = (0..g.rows())
        .into_par_iter()
        .map(|i| {
            let v = g.first + i;
            let l = labels[v];
            let mut errs = u64::from(l as usize > v || labels[l as usize] != l);
            errs += g
                .neighbors(v)
                .iter()
                .filter(|&&u| labels[u as usize] != l)
                .count() as u64;
            errs
        })
        .sum();
    comm.all_reduce_sum(bad)
}
