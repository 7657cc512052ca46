//! Uniform random permutations that are parallel and independent of thread count.
//!
//! The Graph500 generator relabels vertices with a random permutation and shuffles
//! the edge list. A sequential Fisher–Yates shuffle of 67 M edges costs seconds of
//! cache misses; instead this is the Rao–Sandelius shuffle (Rao 1961, Sandelius
//! 1962): send every item to one of `k` buckets chosen uniformly at random, keep the
//! buckets in order, and shuffle each bucket on its own (recursively, then with
//! Fisher–Yates once it fits in cache). Every permutation is equally likely: bucket
//! labels drawn independently and uniformly, then a uniform order inside each bucket,
//! give a uniform order overall.
//!
//! Determinism: the buckets of each fixed chunk of positions come from that chunk's
//! own generator, the chunking depends only on the length, and each bucket's
//! shuffle has its own seed,
//! so the result is a function of `(data, seed)` alone, never of the scheduling.
//! Cost: one extra buffer the size of the data, and two streaming passes over it.

use rand::seq::SliceRandom;
use rand::RngCore;
use rayon::prelude::*;

use super::rng::{block_rng, hash3};

/// Buckets at most this long are shuffled sequentially (256 KiB of 8-byte items).
const LEAF: usize = 1 << 15;
/// Upper bound on the buckets of one pass (bounds the per-chunk count tables).
const MAX_BUCKETS: usize = 4096;
/// Chunks of the scatter pass: at least this long…
const MIN_CHUNK: usize = 1 << 16;
/// …and at most this many.
const MAX_CHUNKS: usize = 1024;

/// Shuffles `data` uniformly at random, reproducibly for a given `(seed, stream)`.
pub fn shuffle<T: Copy + Send + Sync + Default>(data: &mut [T], seed: u64, stream: u64) {
    let key = hash3(seed, stream, 0);
    if data.len() <= LEAF {
        leaf(data, key);
        return;
    }
    let mut scratch = vec![T::default(); data.len()];
    shuffle_with(data, &mut scratch, key, LEAF);
}

/// A uniformly random permutation of `0..n` (`n <= 2^32`).
pub fn random_permutation(n: usize, seed: u64, stream: u64) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).into_par_iter().map(|i| i as u32).collect();
    shuffle(&mut p, seed, stream);
    p
}

fn leaf<T>(data: &mut [T], key: u64) {
    data.shuffle(&mut block_rng(key, 0, 0));
}

/// Rao–Sandelius: the result ends in `data`; `scratch` (same length) is workspace.
fn shuffle_with<T: Copy + Send + Sync>(
    data: &mut [T],
    scratch: &mut [T],
    key: u64,
    leaf_len: usize,
) {
    let n = data.len();
    if n <= leaf_len {
        leaf(data, key);
        return;
    }
    // Average bucket half a leaf, so that almost no bucket needs a second pass.
    let k = n.div_ceil(leaf_len / 2).clamp(2, MAX_BUCKETS);
    let chunk = n.div_ceil(MAX_CHUNKS).max(MIN_CHUNK);

    // (1) Per chunk: draw each item's bucket, counting-sort the chunk by bucket
    // into the same range of `scratch`, and keep the chunk's bucket offsets.
    let offsets: Vec<Vec<usize>> = data
        .par_chunks(chunk)
        .zip(scratch.par_chunks_mut(chunk))
        .enumerate()
        .map(|(c, (src, dst))| {
            // Two 32-bit bucket draws per 64-bit output of the chunk's generator;
            // multiply-shift on 32 bits skews bucket odds by < k / 2^32 ≤ 10^-6.
            let mut rng = block_rng(key, 2, c as u64);
            let mut ids: Vec<u16> = Vec::with_capacity(src.len() + 1);
            while ids.len() < src.len() {
                let r = rng.next_u64();
                ids.push((((r & 0xFFFF_FFFF) * k as u64) >> 32) as u16);
                ids.push((((r >> 32) * k as u64) >> 32) as u16);
            }
            ids.truncate(src.len());
            let mut off = vec![0usize; k + 1];
            for &b in &ids {
                off[b as usize + 1] += 1;
            }
            for b in 0..k {
                off[b + 1] += off[b];
            }
            let mut cursor = off.clone();
            for (&item, &b) in src.iter().zip(&ids) {
                dst[cursor[b as usize]] = item;
                cursor[b as usize] += 1;
            }
            off
        })
        .collect();

    // (2) Bucket b's slice of the output follows buckets 0..b.
    let lens: Vec<usize> = (0..k)
        .map(|b| offsets.iter().map(|o| o[b + 1] - o[b]).sum())
        .collect();

    // (3) Gather every bucket, chunk by chunk, into its slice of `data`.
    {
        let scratch: &[T] = scratch;
        split_by_lengths(data, &lens)
            .into_par_iter()
            .enumerate()
            .for_each(|(b, out)| {
                let mut at = 0;
                for (c, off) in offsets.iter().enumerate() {
                    let piece = &scratch[c * chunk + off[b]..c * chunk + off[b + 1]];
                    out[at..at + piece.len()].copy_from_slice(piece);
                    at += piece.len();
                }
            });
    }

    // (4) Shuffle each bucket on its own.
    split_by_lengths(data, &lens)
        .into_par_iter()
        .zip(split_by_lengths(scratch, &lens))
        .enumerate()
        .for_each(|(b, (d, s))| shuffle_with(d, s, hash3(key, 1, b as u64), leaf_len));
}

/// Splits `data` into consecutive slices of the given lengths (which sum to its length).
fn split_by_lengths<'a, T>(mut data: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(lens.len());
    for &l in lens {
        let (head, tail) = std::mem::take(&mut data).split_at_mut(l);
        out.push(head);
        data = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn is_a_permutation_and_reproducible() {
        for n in [0usize, 1, 2, 1000, LEAF + 1, 300_000] {
            let p = random_permutation(n, 9, 1);
            let mut s = p.clone();
            s.sort_unstable();
            assert!(s.iter().enumerate().all(|(i, &x)| i as u32 == x), "n={n}");
            assert_eq!(p, random_permutation(n, 9, 1));
            if n > 100 {
                assert_ne!(p, random_permutation(n, 10, 1));
                assert_ne!(p, random_permutation(n, 9, 2));
            }
        }
    }

    #[test]
    fn independent_of_thread_count() {
        let run = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| random_permutation(200_000, 3, 4))
        };
        assert_eq!(run(1), run(2));
        assert_eq!(run(1), run(3));
    }

    /// The bucketed path (forced with leaves of 2 items, so 4 items go through a
    /// scatter pass and two levels of buckets) gives all 24 orders equally often.
    #[test]
    fn bucketed_shuffle_is_uniform() {
        let trials = 24_000u64;
        let mut counts: HashMap<[u8; 4], u64> = HashMap::new();
        for t in 0..trials {
            let mut d = [0u8, 1, 2, 3];
            let mut s = [0u8; 4];
            shuffle_with(&mut d, &mut s, hash3(t, 77, 0), 2);
            *counts.entry(d).or_default() += 1;
        }
        assert_eq!(counts.len(), 24);
        // Each order expects 1000 (σ ≈ 31); ±160 is > 5σ.
        for (p, &c) in &counts {
            assert!((840..=1160).contains(&c), "{p:?}: {c}");
        }
    }
}
