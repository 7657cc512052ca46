//! Brandes's betweenness from many sources at once on the CPU: the batched
//! searches of [`super::msbfs`] (64 sources a word), with each lane's shortest-path
//! counts, and the backward sweep over the same level lists — the CPU twin of
//! `gpu::msbfs`'s betweenness, so that a batch reads each edge once per distinct
//! depth instead of once per source.
//!
//! Per batch: `sigma[v·k + l]` (paths from lane `l`'s source to `v`, `f64` as
//! gapbs counts them) grows during the forward levels; the backward levels, deepest
//! first, give each entry `(v, lanes)` of depth `d` its dependency sums
//! `Σ (1 + δ(w)) / σ(w)` over out-neighbours `w` whose same lane sits at `d + 1`
//! (marked in `lvl`), so `δ(v) = σ(v)·Σ`. The result is gapbs's raw score (each
//! source's own dependency included), not yet normalized.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::msbfs::{check_sources, each_lane, first_level, top_down, LANES};
use crate::error::Result;
use crate::graph::{Csr, Weight};

/// Entries a rayon task takes at least: the levels of a high-diameter graph are
/// thousands of small lists, which finer splitting only slows down.
const MIN_LEN: usize = 256;

fn load(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Relaxed))
}

fn add(a: &AtomicU64, x: f64) {
    let mut cur = a.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + x).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(now) => cur = now,
        }
    }
}

/// Raw betweenness sums over `sources` (any number, 64 per batch) along `g`'s
/// out-edges, with `threads` workers (or the global pool).
pub fn betweenness<W: Weight>(
    g: &Csr<W>,
    sources: &[u32],
    threads: Option<usize>,
) -> Result<Vec<f64>> {
    super::in_pool(threads, || batches(g, sources))?.0
}

fn batches<W: Weight>(g: &Csr<W>, sources: &[u32]) -> Result<Vec<f64>> {
    let n = g.num_vertices();
    check_sources(sources, n)?;
    let k = sources.len().min(LANES);
    let seen: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let next: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let lvl: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let sigma: Vec<AtomicU64> = (0..n * k).map(|_| AtomicU64::new(0)).collect();
    let dsum: Vec<AtomicU64> = (0..n * k).map(|_| AtomicU64::new(0)).collect();
    let mut scores = vec![0.0f64; n];
    for batch in sources.chunks(LANES) {
        seen.par_iter().for_each(|x| x.store(0, Relaxed));
        sigma.par_iter().for_each(|x| x.store(0, Relaxed));
        dsum.par_iter().for_each(|x| x.store(0, Relaxed));
        let first = first_level(batch, n)?;
        for &(v, bits) in &first {
            seen[v as usize].store(bits, Relaxed);
            each_lane(bits, |l| {
                sigma[v as usize * k + l].store(1f64.to_bits(), Relaxed)
            });
        }
        let levels = forward(g, k, first, &seen, &next, &sigma);
        backward(g, k, &levels, &lvl, &sigma, &dsum);
        scores.par_iter_mut().enumerate().for_each(|(v, s)| {
            *s += (0..k)
                .map(|l| load(&sigma[v * k + l]) * load(&dsum[v * k + l]))
                .sum::<f64>();
        });
    }
    Ok(scores)
}

/// The forward levels of one batch, path counts included; every level kept.
fn forward<W: Weight>(
    g: &Csr<W>,
    k: usize,
    first: Vec<(u32, u64)>,
    seen: &[AtomicU64],
    next: &[AtomicU64],
    sigma: &[AtomicU64],
) -> Vec<Vec<(u32, u64)>> {
    let mut levels = vec![first];
    loop {
        let frontier = levels.last().map_or(&[][..], |f| &f[..]);
        let level = top_down(g, frontier, seen, next, MIN_LEN, |v, w, fresh| {
            let (v, w) = (v as usize, w as usize);
            each_lane(fresh, |l| add(&sigma[w * k + l], load(&sigma[v * k + l])));
        });
        if level.is_empty() {
            return levels;
        }
        levels.push(level);
    }
}

/// The backward levels: each entry's dependency sums from its successors.
fn backward<W: Weight>(
    g: &Csr<W>,
    k: usize,
    levels: &[Vec<(u32, u64)>],
    lvl: &[AtomicU64],
    sigma: &[AtomicU64],
    dsum: &[AtomicU64],
) {
    for d in (0..levels.len().saturating_sub(1)).rev() {
        let deeper = &levels[d + 1];
        deeper
            .par_iter()
            .for_each(|&(w, lanes)| lvl[w as usize].store(lanes, Relaxed));
        levels[d]
            .par_iter()
            .with_min_len(MIN_LEN)
            .for_each(|&(v, lanes)| {
                let mut acc = [0f64; LANES];
                for &w in g.neighbors(v) {
                    let mut b = lanes & lvl[w as usize].load(Relaxed);
                    while b != 0 {
                        let l = b.trailing_zeros() as usize;
                        let at = w as usize * k + l;
                        let s = load(&sigma[at]);
                        acc[l] += (1.0 + s * load(&dsum[at])) / s;
                        b &= b - 1;
                    }
                }
                let mut b = lanes;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    dsum[v as usize * k + l].store(acc[l].to_bits(), Relaxed);
                    b &= b - 1;
                }
            });
        deeper
            .par_iter()
            .for_each(|&(w, _)| lvl[w as usize].store(0, Relaxed));
    }
}

/// Scores divided by the largest (all zeros stay zeros), as gapbs reports them.
pub fn normalize(mut scores: Vec<f64>) -> Vec<f64> {
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    if biggest > 0.0 {
        scores.iter_mut().for_each(|t| *t /= biggest);
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_sequential_brandes() {
        for spec in ["kron:9", "grid:9x7"] {
            let g = crate::load::load_graph::<u32>(spec, &Default::default())
                .unwrap()
                .graph;
            let n = g.num_vertices() as u32;
            let sources: Vec<u32> = (0..70).map(|i| (i * 37) % n).chain([3, 3]).collect();
            let got = normalize(betweenness(g.csr(), &sources, Some(2)).unwrap());
            let want = crate::oracle::betweenness(g.csr(), &sources);
            for (v, (x, y)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-9 * y.abs().max(1e-12),
                    "{spec} {v}: {x} vs {y}"
                );
            }
        }
        assert!(betweenness(
            crate::load::load_graph::<u32>("grid:3x3", &Default::default())
                .unwrap()
                .graph
                .csr(),
            &[],
            None
        )
        .is_err());
    }
}
