//! Counter-based randomness, so that generators are parallel *and* reproducible.
//!
//! A generator never shares one random stream between threads: that would make the
//! output depend on how rayon happens to schedule the work. Instead every fixed-size
//! block of output gets its own generator, seeded from `(seed, stream, block)` by a
//! hash; and per-item decisions (a weight, a bucket, "is this edge removed?") use
//! the hash of `(seed, stream, item)` directly. The result is a pure function of
//! the seed, whatever the number of threads.
//!
//! The hash is SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom
//! number generators", OOPSLA 2014): `mix64(state + k·γ)` is the k-th output of a
//! SplitMix64 stream, which passes BigCrush. Block generators are PCG
//! (`Mcg128Xsl64`, O'Neill 2014) from `rand_pcg`: fast, small, statistically strong.

use rand_pcg::Pcg64Mcg;

/// The SplitMix64 increment γ (the odd integer closest to 2^64/φ).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Stream tags: one per independent use of a seed, so that e.g. the vertex
/// permutation and the edges of a Kronecker graph never draw the same numbers.
pub(crate) mod stream {
    pub const KRON_EDGES: u64 = 1;
    pub const KRON_VERTEX_PERM: u64 = 2;
    pub const KRON_EDGE_SHUFFLE: u64 = 3;
    pub const UNIFORM_EDGES: u64 = 4;
    pub const GRID_REMOVE: u64 = 5;
    pub const GRID_DIAGONAL: u64 = 6;
    pub const WEIGHTS_BY_INDEX: u64 = 8;
    pub const WEIGHTS_BY_PAIR: u64 = 9;
    pub const WEIGHTS_BY_ARC: u64 = 10;
    pub const MESH_POINTS: u64 = 11;
}

/// The SplitMix64 output function (a bijection of `u64` with full avalanche).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A well-mixed 64-bit value for the triple `(seed, a, b)`: output `b` of the
/// SplitMix64 stream whose state is output `a` of the stream seeded by `seed`.
#[inline]
pub fn hash3(seed: u64, a: u64, b: u64) -> u64 {
    let s = mix64(seed ^ 0x243F_6A88_85A3_08D3);
    let s = mix64(s.wrapping_add(a.wrapping_add(1).wrapping_mul(GOLDEN)));
    mix64(s.wrapping_add(b.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// Maps a uniform 64-bit value to `0..n` by multiply-shift (Lemire 2019). The bias
/// is at most `n / 2^64` per value, far below anything a graph can show.
#[inline]
pub fn below(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// `true` with probability `p` (clamped to `0..=1`), decided by the hash `h`.
#[inline]
pub fn chance(h: u64, p: f64) -> bool {
    if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        (h as f64) < p * 18_446_744_073_709_551_616.0
    }
}

/// The generator for output block `block` of stream `stream` under `seed`.
pub fn block_rng(seed: u64, stream: u64, block: u64) -> Pcg64Mcg {
    let hi = hash3(seed, stream, block.wrapping_mul(2));
    let lo = hash3(seed, stream, block.wrapping_mul(2).wrapping_add(1));
    // Pcg64Mcg forces the low state bit to 1 itself (a multiplicative generator
    // needs an odd state); all 127 other bits come from the hash.
    Pcg64Mcg::new(((hi as u128) << 64) | lo as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn hash_separates_its_arguments() {
        let a = hash3(1, 2, 3);
        assert_ne!(a, hash3(1, 3, 2));
        assert_ne!(a, hash3(2, 2, 3));
        assert_ne!(a, hash3(1, 2, 4));
        assert_eq!(a, hash3(1, 2, 3));
        assert_ne!(hash3(0, 0, 0), 0);
    }

    #[test]
    fn below_stays_in_range_and_spreads() {
        let n = 10u64;
        let mut counts = [0u32; 10];
        for i in 0..100_000 {
            let x = below(hash3(7, 0, i), n);
            counts[x as usize] += 1;
        }
        // Each bin expects 10,000 with σ ≈ 95; 600 is > 6σ.
        assert!(
            counts.iter().all(|&c| (9_400..=10_600).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(below(u64::MAX, 1), 0);
        assert_eq!(below(u64::MAX, u64::MAX), u64::MAX - 1);
    }

    #[test]
    fn block_streams_differ() {
        let mut a = block_rng(5, 1, 0);
        let mut b = block_rng(5, 1, 1);
        let mut c = block_rng(5, 2, 0);
        let x = a.next_u64();
        assert_ne!(x, b.next_u64());
        assert_ne!(x, c.next_u64());
        assert_eq!(x, block_rng(5, 1, 0).next_u64());
    }

    #[test]
    fn chance_edges() {
        assert!(!chance(0, 0.0));
        assert!(chance(u64::MAX, 1.0));
        let hits = (0..100_000)
            .filter(|&i| chance(hash3(3, 3, i), 0.25))
            .count();
        assert!((24_000..=26_000).contains(&hits), "{hits}");
    }
}
