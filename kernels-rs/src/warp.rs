//! The warp as a unit of cooperation: vote and shuffle, so that 32 lanes can share
//! one long adjacency list instead of each lane walking its own alone.
//!
//! A bottom-up level is the case that needs it: with one thread per vertex, a warp
//! runs as long as its longest scan, and Nsight Compute measured 7 of 32 lanes
//! active on average (Kronecker scale 24 on an H100). Code written against [`Warp`]
//! runs unchanged in the host emulator, where [`SoloLane`] is a warp of one lane: the
//! same algorithm, with every "cooperative" scan done by that lane alone.
//!
//! Rules for callers: every lane of the warp must reach each [`Warp::ballot`] and
//! [`Warp::shfl`] (the GPU versions name the full warp), so loops around them must be
//! warp-uniform — iterate over warp-sized tiles, not over per-lane items.

/// What a kernel asks of its warp.
pub trait Warp: Copy {
    /// Lanes per warp.
    const SIZE: u32;
    /// This thread's lane, `0..SIZE`.
    fn lane(&self) -> u32;
    /// Bit `l` set iff lane `l` passed `true`.
    fn ballot(&self, pred: bool) -> u32;
    /// Lane `src`'s `value`.
    fn shfl(&self, value: u32, src: u32) -> u32;
    /// Every lane arrives before any leaves, and the lanes' shared-memory
    /// writes before it are seen by all of them after it (`bar.warp.sync`).
    fn sync(&self);

    /// Lane `src`'s 64-bit `value` (two shuffles).
    #[inline(always)]
    fn shfl_u64(&self, value: u64, src: u32) -> u64 {
        let lo = self.shfl(value as u32, src);
        let hi = self.shfl((value >> 32) as u32, src);
        u64::from(hi) << 32 | u64::from(lo)
    }

    /// `value` summed over the lanes below this one, and over the whole warp
    /// (a Hillis–Steele scan of shuffles): where each lane's share of a warp's
    /// one reservation starts, and the reservation's size.
    #[inline(always)]
    fn prefix_sum_u64(&self, value: u64) -> (u64, u64) {
        let lane = self.lane();
        let mut inclusive = value;
        let mut d = 1;
        while d < Self::SIZE {
            // Every lane shuffles (lanes below `d` read their own value and drop it).
            let below = self.shfl_u64(inclusive, lane.saturating_sub(d));
            if lane >= d {
                inclusive += below;
            }
            d *= 2;
        }
        (inclusive - value, self.shfl_u64(inclusive, Self::SIZE - 1))
    }

    /// `op` folded over the warp's values, in every lane (butterfly of
    /// shuffles); `op` associative and commutative.
    #[inline(always)]
    fn fold_u64(&self, value: u64, op: impl Fn(u64, u64) -> u64) -> u64 {
        let mut s = value;
        let mut k = Self::SIZE / 2;
        while k > 0 {
            s = op(s, self.shfl_u64(s, self.lane() ^ k));
            k /= 2;
        }
        s
    }

    /// The sum of `value` over the warp, in every lane.
    #[inline(always)]
    fn sum_u64(&self, value: u64) -> u64 {
        self.fold_u64(value, |a, b| a + b)
    }

    /// The least `value` over the warp, in every lane.
    #[inline(always)]
    fn min_u64(&self, value: u64) -> u64 {
        self.fold_u64(value, u64::min)
    }
}

/// A grid-stride loop over items `0..total` that whole warps run together,
/// rejoined after every step: lane `l` takes items `base + l` (`f(i)`), and the
/// warp waits for its slowest lane before the next `base`. For items whose lanes
/// walk their own runs of edges one by one (edge chunks): a warp's 32 lanes then
/// read 32 neighbouring sectors in step, each line reused from L1 over the run.
/// Without the rejoin, lanes that finished a short item ran ahead and the warp's
/// reads split (H200, Kronecker 24, SSSP `td_scan` level 2: L1 hits 24 % against
/// 50 %, 28.6 GB of DRAM reads against 12.8 with it, 14.6 ms against 7.7).
#[inline(always)]
pub fn rejoined_stride<W: Warp>(t: crate::ThreadCtx, w: W, total: u64, mut f: impl FnMut(u64)) {
    let lane = u64::from(w.lane());
    let mut base = t.global() - lane;
    while base < total {
        if base + lane < total {
            f(base + lane);
        }
        w.sync();
        base += t.stride();
    }
}

/// Items a lane writes alone: a lane with a longer list has it written by its
/// whole warp ([`write_lists`]).
pub const LANE_LIST_ITEMS: u64 = 32;

/// Every lane of a warp has a list of `count` items (which `key` names, e.g. a
/// bitmap word, or a run of frontier entries) to write from slot `at` of a work
/// list: a lane writes a short list alone (`emit(key, at, 0, 1)`: every item
/// from the first), and the warp writes each list longer than
/// [`LANE_LIST_ITEMS`] together, one after another, each lane every
/// `W::SIZE`-th item from its own lane number (`emit(key, at, lane, SIZE)`).
/// `emit` must write, of each of the key's runs of items, those whose index
/// is `start` plus a multiple of `step`, so that every item is written once.
///
/// Why: one lane writing a hub's ~200 k chunks alone was a whole BFS level's
/// critical path (H200, Kronecker 26: 3.1 ms of a 5.9 ms search); the warp
/// writes them 32 a step. Whole warps only: every lane must call it.
#[inline(always)]
pub fn write_lists<W: Warp>(
    w: W,
    key: (u64, u64),
    at: u64,
    count: u64,
    mut emit: impl FnMut((u64, u64), u64, u64, u64),
) {
    let shared = count > LANE_LIST_ITEMS;
    if !shared && count > 0 {
        emit(key, at, 0, 1);
    }
    // Warp-uniform: the key and slot come from one lane.
    let mut long = w.ballot(shared);
    while long != 0 {
        let src = long.trailing_zeros();
        long &= long - 1;
        let k = (w.shfl_u64(key.0, src), w.shfl_u64(key.1, src));
        emit(
            k,
            w.shfl_u64(at, src),
            u64::from(w.lane()),
            u64::from(W::SIZE),
        );
    }
}

/// The warp kernels run with: `PtxWarp` (32 lanes) on the GPU, [`SoloLane`] in
/// the host emulator.
#[cfg(target_arch = "nvptx64")]
pub type KernelWarp = PtxWarp;
/// The warp kernels run with: `PtxWarp` (32 lanes) on the GPU, [`SoloLane`] in
/// the host emulator.
#[cfg(not(target_arch = "nvptx64"))]
pub type KernelWarp = SoloLane;

/// The calling thread's [`KernelWarp`].
#[inline(always)]
pub fn kernel_warp(t: crate::ThreadCtx) -> KernelWarp {
    #[cfg(target_arch = "nvptx64")]
    return PtxWarp::current(t);
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = t;
        SoloLane
    }
}

/// A warp of one lane: the host emulator's, which runs a block's threads one after
/// another and so cannot let them vote.
#[derive(Clone, Copy, Debug, Default)]
pub struct SoloLane;

impl Warp for SoloLane {
    const SIZE: u32 = 1;
    #[inline(always)]
    fn lane(&self) -> u32 {
        0
    }
    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        u32::from(pred)
    }
    #[inline(always)]
    fn shfl(&self, value: u32, _src: u32) -> u32 {
        value
    }
    #[inline(always)]
    fn sync(&self) {
        // One lane: its own writes are in program order.
    }
}

/// A hardware warp of 32 lanes (`vote.sync` / `shfl.sync` over the full warp).
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy, Debug)]
pub struct PtxWarp {
    lane: u32,
}

#[cfg(target_arch = "nvptx64")]
#[allow(improper_ctypes)]
unsafe extern "C" {
    // LLVM's NVPTX intrinsics; LLVM knows them as convergent, so it keeps them out
    // of divergent branches.
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: u32, pred: bool) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_sync_idx(mask: u32, value: u32, src: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

#[cfg(target_arch = "nvptx64")]
impl PtxWarp {
    /// The calling thread's warp; blocks must be a multiple of 32 threads.
    #[inline(always)]
    pub fn current(t: crate::ThreadCtx) -> Self {
        PtxWarp {
            lane: t.thread_idx & 31,
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl Warp for PtxWarp {
    const SIZE: u32 = 32;
    #[inline(always)]
    fn lane(&self) -> u32 {
        self.lane
    }
    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        // SAFETY: all 32 lanes reach this call (the module's rule for callers).
        unsafe { vote_ballot_sync(u32::MAX, pred) }
    }
    #[inline(always)]
    fn shfl(&self, value: u32, src: u32) -> u32 {
        // SAFETY: as for `ballot`; 0x1f = the whole warp is one segment.
        unsafe { shfl_sync_idx(u32::MAX, value, src, 0x1f) }
    }
    #[inline(always)]
    fn sync(&self) {
        // SAFETY: as for `ballot`; the barrier has no other effect.
        unsafe { bar_warp_sync(u32::MAX) }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::vec::Vec;

    use super::*;
    use crate::lockstep::launch_warps;

    /// Lane `g`'s list (by global thread): runs of items, some far longer than
    /// a warp (written by the whole warp), some short, some empty.
    fn runs(g: u64) -> Vec<u64> {
        match g % 7 {
            0 => std::vec![100 + g, 3],
            1 => std::vec![],
            2 => std::vec![5, 0, 9],
            3 => std::vec![40],
            _ => std::vec![g % 5],
        }
    }

    #[test]
    fn every_item_of_every_lane_is_written_once_with_32_lane_warps() {
        let warps = 3u32;
        let threads = u64::from(warps) * 32;
        let lens: Vec<u64> = (0..threads).map(|g| runs(g).iter().sum()).collect();
        let starts: Vec<u64> = lens
            .iter()
            .scan(0, |acc, &l| {
                let s = *acc;
                *acc += l;
                Some(s)
            })
            .collect();
        let total: u64 = lens.iter().sum();
        let out: Vec<AtomicU64> = (0..total).map(|_| AtomicU64::new(u64::MAX)).collect();
        let writes = AtomicU64::new(0);
        launch_warps(warps, |t, w| {
            let g = t.global();
            write_lists(
                w,
                (g, 0),
                starts[g as usize],
                lens[g as usize],
                |(g, _), mut at, start, step| {
                    for (r, &n) in runs(g).iter().enumerate() {
                        let mut i = start;
                        while i < n {
                            let old = out[(at + i) as usize]
                                .swap(g << 32 | (r as u64) << 16 | i, Relaxed);
                            assert_eq!(old, u64::MAX, "slot {} written twice", at + i);
                            writes.fetch_add(1, Relaxed);
                            i += step;
                        }
                        at += n;
                    }
                },
            );
        });
        assert_eq!(writes.load(Relaxed), total);
        for g in 0..threads {
            let mut at = starts[g as usize];
            for (r, &n) in runs(g).iter().enumerate() {
                for i in 0..n {
                    assert_eq!(
                        out[at as usize].load(Relaxed),
                        g << 32 | (r as u64) << 16 | i
                    );
                    at += 1;
                }
            }
        }
    }
}
