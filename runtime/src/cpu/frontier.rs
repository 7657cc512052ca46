//! Frontiers: a sparse queue of vertex ids or a dense bitmap, and the conversions.
//!
//! Push rounds read a queue and write a bitmap (setting a bit is how duplicates are
//! dropped without a lock); pull rounds read a bitmap. `fetch_or` on the word tells
//! the one thread that set a bit first, so exactly one thread appends the vertex.

use core::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

/// A concurrent bit set over vertex ids.
pub struct Bitmap {
    words: Vec<AtomicU64>,
    len: usize,
}

impl Bitmap {
    pub fn new(len: usize) -> Self {
        Bitmap {
            words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            len,
        }
    }

    /// Sets bit `i`; returns true if this call set it (it was clear).
    #[inline]
    pub fn insert(&self, i: u32) -> bool {
        let bit = 1u64 << (i % 64);
        let w = &self.words[i as usize / 64];
        if w.load(Ordering::Relaxed) & bit != 0 {
            return false;
        }
        w.fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words[i as usize / 64].load(Ordering::Relaxed) & (1u64 << (i % 64)) != 0
    }

    /// Clears every bit (parallel).
    pub fn clear(&self) {
        self.words
            .par_iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words
            .par_iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
            .sum()
    }

    /// The set bits as a sorted queue.
    pub fn to_queue(&self) -> Vec<u32> {
        self.words
            .par_iter()
            .enumerate()
            .flat_map_iter(|(wi, w)| {
                let mut bits = w.load(Ordering::Relaxed);
                let len = self.len;
                core::iter::from_fn(move || {
                    while bits != 0 {
                        let b = bits.trailing_zeros();
                        bits &= bits - 1;
                        let i = wi * 64 + b as usize;
                        if i < len {
                            return Some(i as u32);
                        }
                    }
                    None
                })
            })
            .collect()
    }

    /// Sets every id in `queue`.
    pub fn fill_from(&self, queue: &[u32]) {
        queue.par_iter().for_each(|&v| {
            self.insert(v);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_once_and_convert() {
        let b = Bitmap::new(130);
        assert!(b.insert(129));
        assert!(!b.insert(129));
        assert!(b.insert(0));
        assert!(b.insert(64));
        assert_eq!(b.count(), 3);
        assert_eq!(b.to_queue(), vec![0, 64, 129]);
        b.clear();
        assert_eq!(b.count(), 0);
    }
}
