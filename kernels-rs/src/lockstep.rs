//! Test support: warps of 32 OS threads that vote and shuffle in lockstep (a
//! barrier per exchange), so warp-cooperative kernel bodies run on the host
//! exactly as on the GPU — the emulator's one-lane warps cannot exercise them. A
//! body that breaks the warp-uniformity rule of [`crate::warp`] deadlocks here.

extern crate std;

use core::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::AtomicU64 as StdAtomicU64;
use std::sync::Barrier;
use std::vec::Vec;

use crate::thread::ThreadCtx;
use crate::warp::Warp;

struct WarpShared {
    barrier: Barrier,
    slots: [StdAtomicU64; 32],
}

impl WarpShared {
    fn new() -> Self {
        WarpShared {
            barrier: Barrier::new(32),
            slots: core::array::from_fn(|_| StdAtomicU64::new(0)),
        }
    }
}

/// One lane of a warp of 32 threads that vote and shuffle through `shared`.
#[derive(Clone, Copy)]
pub(crate) struct Lockstep<'a> {
    lane: u32,
    shared: &'a WarpShared,
}

impl Lockstep<'_> {
    /// Publishes this lane's value, then reads all 32 once every lane has.
    fn exchange(&self, value: u64) -> [u64; 32] {
        self.shared.slots[self.lane as usize].store(value, Relaxed);
        self.shared.barrier.wait();
        let all = core::array::from_fn(|l| self.shared.slots[l].load(Relaxed));
        // Nobody overwrites a slot before every lane has read it.
        self.shared.barrier.wait();
        all
    }
}

impl Warp for Lockstep<'_> {
    const SIZE: u32 = 32;
    fn lane(&self) -> u32 {
        self.lane
    }
    fn ballot(&self, pred: bool) -> u32 {
        let all = self.exchange(u64::from(pred));
        (0..32).filter(|&l| all[l] != 0).fold(0, |m, l| m | 1 << l)
    }
    fn shfl(&self, value: u32, src: u32) -> u32 {
        self.exchange(u64::from(value))[src as usize] as u32
    }
    fn sync(&self) {
        self.shared.barrier.wait();
    }
}

/// Runs `body` on `warps` warps of 32 lanes (one warp per block).
pub(crate) fn launch_warps(warps: u32, body: impl Fn(ThreadCtx, Lockstep) + Sync) {
    const BLOCK: u32 = 32;
    let shared: Vec<WarpShared> = (0..warps).map(|_| WarpShared::new()).collect();
    std::thread::scope(|s| {
        for (w, sh) in shared.iter().enumerate() {
            for lane in 0..32u32 {
                let body = &body;
                s.spawn(move || {
                    let global = w as u32 * 32 + lane;
                    let t = ThreadCtx {
                        thread_idx: global % BLOCK,
                        block_idx: global / BLOCK,
                        block_dim: BLOCK,
                        grid_dim: warps * 32 / BLOCK,
                    };
                    body(t, Lockstep { lane, shared: sh });
                });
            }
        }
    });
}

/// A CSR from adjacency rows, each in decreasing id order: low ids (the hubs of
/// the test graphs) come last, so scans rarely stop at the first entry and the
/// warp-cooperative part runs.
pub(crate) fn csr_descending(rows: &mut [Vec<u32>]) -> (Vec<u64>, Vec<u32>) {
    let mut offsets = std::vec![0u64];
    let mut targets = Vec::new();
    for r in rows {
        r.sort_unstable_by(|a, b| b.cmp(a));
        targets.extend_from_slice(r);
        offsets.push(targets.len() as u64);
    }
    (offsets, targets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::AtomicU64;

    #[test]
    fn prefix_sums_and_totals_over_32_lanes() {
        // Lane l offers (l * 7) % 5 + 1: what comes before it and the warp's total.
        let out: Vec<AtomicU64> = (0..64).map(|_| AtomicU64::new(u64::MAX)).collect();
        launch_warps(1, |t, w| {
            let lane = t.global();
            let (before, total) = w.prefix_sum_u64((lane * 7) % 5 + 1);
            out[lane as usize].store(before, Relaxed);
            out[32 + lane as usize].store(total, Relaxed);
        });
        let offer = |l: u64| (l * 7) % 5 + 1;
        let total: u64 = (0..32).map(offer).sum();
        for l in 0..32u64 {
            let before: u64 = (0..l).map(offer).sum();
            assert_eq!(out[l as usize].load(Relaxed), before, "lane {l}");
            assert_eq!(out[32 + l as usize].load(Relaxed), total, "lane {l}");
        }
    }
}
