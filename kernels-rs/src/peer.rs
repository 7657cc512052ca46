//! The multi-GPU exchange without NCCL: after a level, each GPU reads every
//! peer's slice of a buffer laid out alike on all GPUs (the frontier bitmap the
//! level wrote, the states) straight out of the peer's memory over NVLink, and
//! sums the parts' level counters for its planner.
//!
//! NCCL's all-gather and all-reduce cost two kernels and a proxy round trip per
//! level, about 80 µs at scale 26 on 4 GPUs against 15–20 µs of NVLink
//! transfer. Here one launch per GPU does both; the host orders it between two
//! cross-GPU event waits (every part's level written before any read, every
//! read done before any part writes again), and enables peer access so a
//! peer's device address can be loaded from directly.

use crate::thread::ThreadCtx;

/// Words a thread has in flight per step: remote loads take microseconds, so
/// several independent ones per thread keep the NVLink busy.
pub const UNROLL: u64 = 4;

/// Words per row of an exchange table: address, first word, words, mask
/// address (0: none), words per masked element.
pub const ROW: usize = 5;

/// One GPU's exchange.
pub struct PeerGather<'a> {
    /// This GPU's part.
    pub me: usize,
    /// Parts (GPUs) in the exchange.
    pub parts: usize,
    /// Per buffer, per part `q` (`parts` rows of [`ROW`] words per buffer):
    /// the address of `q`'s copy of the buffer (as `u32` words), `q`'s slice
    /// as first word and word count, and an optional mask: the address of
    /// `q`'s bitmap and the words per element (`unit`), word `i` then going
    /// only if bit `i / unit` is set. This GPU's own row is the destination;
    /// the other rows are read.
    ///
    /// The mask is what keeps the states' exchange small: a state changes only
    /// where its vertex joins the bitmap exchanged with it, and the kernels
    /// read other parts' states only of vertices in it (the host emulation
    /// copies the same way, so every program's test checks that).
    pub table: &'a [u64],
    /// Buffers in `table`.
    pub bufs: usize,
    /// Every part's counter words (`parts` addresses), or none.
    pub sums: &'a [u64],
    /// Counter words summed.
    pub sum_words: usize,
    /// Where their sums go (`sum_words` words on this GPU).
    pub sum_out: *mut u64,
}

impl PeerGather<'_> {
    /// One thread's share: the copies of every (buffer, peer) pair run side by
    /// side on their own blocks; thread 0 also sums the counters.
    ///
    /// # Safety
    /// Every address in `table` (and `sums`) must be readable for the slices it
    /// names (written for this GPU's rows) from this GPU, and no part may write
    /// the slices read, or read the slices written, until every GPU's launch
    /// ends.
    #[inline(always)]
    pub unsafe fn run(&self, t: ThreadCtx) {
        let peers = self.parts.saturating_sub(1);
        t.each_part((self.bufs * peers) as u32, |job, sub| {
            let (b, k) = (job / peers, job % peers);
            let q = if k >= self.me { k + 1 } else { k };
            let row = |p: usize| (b * self.parts + p) * ROW;
            let (src, dst) = (self.table[row(q)], self.table[row(self.me)]);
            let (first, count) = (self.table[row(q) + 1], self.table[row(q) + 2]);
            let (mask, unit) = (self.table[row(q) + 3], self.table[row(q) + 4]);
            // SAFETY: the caller's contract: both copies hold `q`'s slice, the
            // mask its bits.
            unsafe {
                match mask {
                    0 => copy_words(sub, src as *const u32, dst as *mut u32, first, count),
                    _ => copy_masked(
                        sub,
                        src as *const u32,
                        dst as *mut u32,
                        (first, count),
                        mask as *const u32,
                        unit.max(1),
                    ),
                }
            };
        });
        if t.global() == 0 {
            for w in 0..self.sum_words {
                let mut s = 0u64;
                for &a in self.sums {
                    // SAFETY: the caller's contract: `sum_words` counters at `a`.
                    s = s.wrapping_add(unsafe { (a as *const u64).add(w).read_volatile() });
                }
                // SAFETY: `sum_out` holds `sum_words` words on this GPU.
                unsafe { self.sum_out.add(w).write(s) };
            }
        }
    }
}

/// Words `first..first + count` from `src` to `dst`, grid-stride over `t`'s
/// (sub-)grid with [`UNROLL`] loads in flight per thread.
///
/// # Safety
/// `src` readable and `dst` writable for those words, not overlapping.
#[inline(always)]
unsafe fn copy_words(t: ThreadCtx, src: *const u32, dst: *mut u32, first: u64, count: u64) {
    let stride = t.stride();
    let at = |i: u64| (first + i) as usize;
    let mut i = t.global();
    // SAFETY (both loops): every index is below `count`.
    while i + (UNROLL - 1) * stride < count {
        let mut w = [0u32; UNROLL as usize];
        for (u, x) in w.iter_mut().enumerate() {
            *x = unsafe { src.add(at(i + u as u64 * stride)).read() };
        }
        for (u, x) in w.iter().enumerate() {
            unsafe { dst.add(at(i + u as u64 * stride)).write(*x) };
        }
        i += UNROLL * stride;
    }
    while i < count {
        unsafe { dst.add(at(i)).write(src.add(at(i)).read()) };
        i += stride;
    }
}

/// [`copy_words`] of the words whose element (`unit` words each) has its
/// bit set in `mask`: a warp's lanes read neighbouring words, so they share
/// the mask word, and a sparse frontier moves little more than its bitmap.
///
/// # Safety
/// As [`copy_words`]; `mask` readable for the slice's elements' bits.
#[inline(always)]
unsafe fn copy_masked(
    t: ThreadCtx,
    src: *const u32,
    dst: *mut u32,
    (first, count): (u64, u64),
    mask: *const u32,
    unit: u64,
) {
    let stride = t.stride();
    let mut i = t.global();
    while i < count {
        let w = first + i;
        let e = w / unit;
        // SAFETY: `e` is an element of the slice: its bit is in `mask`, the
        // word in both copies.
        unsafe {
            if (mask.add((e / 32) as usize).read() >> (e % 32)) & 1 == 1 {
                dst.add(w as usize).write(src.add(w as usize).read());
            }
        }
        i += stride;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Runs every thread of a `blocks` × `block` grid, one after another.
    fn run_grid(g: &PeerGather<'_>, blocks: u32, block: u32) {
        for b in 0..blocks {
            for th in 0..block {
                let t = ThreadCtx {
                    thread_idx: th,
                    block_idx: b,
                    block_dim: block,
                    grid_dim: blocks,
                };
                // SAFETY: the tables below name live host buffers.
                unsafe { g.run(t) };
            }
        }
    }

    #[test]
    fn every_part_ends_with_every_slice_and_the_sums() {
        // Three parts of unequal slices (7, 0, 12 words) over one buffer of 19,
        // each part's copy holding only its own slice; counters 2 words each.
        let slices = [(0u64, 7u64), (7, 0), (7, 12)];
        let mut bufs: Vec<Vec<u32>> = (0..3)
            .map(|p| {
                (0..19u32)
                    .map(|i| {
                        let (f, c) = slices[p];
                        if (i as u64) >= f && (i as u64) < f + c {
                            1000 * p as u32 + i
                        } else {
                            u32::MAX
                        }
                    })
                    .collect()
            })
            .collect();
        let counters: Vec<[u64; 2]> = vec![[1, 10], [2, 20], [3, 30]];
        let sums: Vec<u64> = counters.iter().map(|c| c.as_ptr() as u64).collect();
        let addrs: Vec<u64> = bufs.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        let table: Vec<u64> = (0..3)
            .flat_map(|q| [addrs[q], slices[q].0, slices[q].1, 0, 0])
            .collect();
        for me in 0..3 {
            let mut out = [0u64; 2];
            let g = PeerGather {
                me,
                parts: 3,
                table: &table,
                bufs: 1,
                sums: &sums,
                sum_words: 2,
                sum_out: out.as_mut_ptr(),
            };
            // Fewer blocks than jobs, then more: both ways of sharing the grid.
            run_grid(&g, 1 + me as u32 * 3, 8);
            assert_eq!(out, [6, 60]);
        }
        for (p, b) in bufs.iter().enumerate() {
            for (i, &w) in b.iter().enumerate() {
                let owner = slices
                    .iter()
                    .position(|&(f, c)| (i as u64) >= f && (i as u64) < f + c)
                    .unwrap();
                assert_eq!(w, 1000 * owner as u32 + i as u32, "part {p} word {i}");
            }
        }
    }

    #[test]
    fn masked_rows_copy_only_the_elements_whose_bit_is_set() {
        // Two parts over 70 two-word elements (part 0: 0..64, part 1: 64..70);
        // part 1's bitmap marks elements 64, 66 and 69.
        let mut st: Vec<Vec<u32>> = (0..2)
            .map(|p| (0..140u32).map(|i| 10_000 * p + i).collect())
            .collect();
        let bits: Vec<Vec<u32>> = vec![vec![u32::MAX, 0, 0], vec![0, 0, 0b1010_0101]];
        let a: Vec<u64> = st.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        let table: Vec<u64> = vec![
            a[0],
            0,
            128,
            bits[0].as_ptr() as u64,
            2,
            a[1],
            128,
            12,
            bits[1].as_ptr() as u64,
            2,
        ];
        let g = PeerGather {
            me: 0,
            parts: 2,
            table: &table,
            bufs: 1,
            sums: &[],
            sum_words: 0,
            sum_out: core::ptr::null_mut(),
        };
        run_grid(&g, 2, 8);
        for i in 128..140u32 {
            let e = i / 2;
            let set = matches!(e, 64 | 66 | 69);
            let want = if set { 10_000 + i } else { i };
            assert_eq!(st[0][i as usize], want, "word {i}");
        }
        // Part 0's own slice is untouched.
        assert!((0..128u32).all(|i| st[0][i as usize] == i));
    }
}
