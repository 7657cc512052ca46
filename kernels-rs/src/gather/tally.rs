//! A launch's tallies folded on the device, so the host reads three words a
//! round instead of one slot per warp.
//!
//! Why: PageRank on the 1000² grid spent about 100 µs a round beyond its
//! kernels (150 µs against the hand-written pull kernel's 64), most of it
//! clearing and copying back 8,448 warp slots (200 KB) and folding them on the
//! host. Folding on the device costs two dependent rounds of loads at the end
//! of the launch, in the warps that arrive last.
//!
//! How, with no block barrier and no second launch: every warp writes its slot
//! and counts itself in at its group of [`GROUP`] warps; the warp that arrives
//! last in a group folds the group's slots into the group's slot and counts the
//! group in; the warp that folds the last group folds the group slots into the
//! result. Each fold runs in a fixed order (lane-strided, then a butterfly), so
//! the result is the same whichever warps arrive last: runs repeat bit for bit.
//! The last arrivals set their counters back to zero, so the next launch finds
//! them as the allocation left them.
//!
//! Layout of the tally buffer (`u64` words, `len` of them):
//!
//! | words | what |
//! |---|---|
//! | `0..3` | the folded [`Tally`](super::Tally) of the last launch |
//! | `3` | groups folded so far in this launch |
//! | `4 .. 4 + 3·G` | group slots |
//! | `4 + 3·G ..` | warp slots, [`TALLY_WORDS`] each |
//! | `len − 1 − g` | warps of group `g` arrived so far |
//!
//! `G` is the launch's group count; counters sit at the end so their place
//! does not move with the grid.

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{ReduceKind, TALLY_WORDS};
use crate::warp::Warp;

/// Warps per group: a warp's lanes fold a group's slots in one load each.
pub const GROUP: u64 = 32;

/// Words before the group slots.
const HEAD: usize = 4;

/// Words a tally buffer needs for launches of up to `warps` warps.
pub fn words_for(warps: u64) -> usize {
    let groups = warps.div_ceil(GROUP) as usize;
    HEAD + groups * TALLY_WORDS + warps as usize * TALLY_WORDS + groups
}

/// Orders this thread's earlier writes before its later ones for every thread
/// of the device (`fence.acq_rel.gpu`; a fence on the host).
#[inline(always)]
fn fence() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a memory fence has no operands and no effect but ordering.
    unsafe {
        core::arch::asm!("fence.acq_rel.gpu;", options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::AcqRel);
}

/// Folds `count` slots of three words from word `at` into one, lane-strided
/// then across the warp (every lane gets the result).
#[inline(always)]
fn fold<W: Warp>(w: W, kind: ReduceKind, tally: &[AtomicU64], at: usize, count: u64) -> [u64; 3] {
    let (mut r, mut counts, mut edges) = (kind.identity(), 0u64, 0u64);
    let mut i = w.lane() as u64;
    while i < count {
        let s = at + i as usize * TALLY_WORDS;
        r = kind.combine(r, f64::from_bits(tally[s].load(Relaxed)));
        counts += tally[s + 1].load(Relaxed);
        edges += tally[s + 2].load(Relaxed);
        i += W::SIZE as u64;
    }
    let mut k = W::SIZE / 2;
    while k > 0 {
        let other = f64::from_bits(w.shfl_u64(r.to_bits(), w.lane() ^ k));
        r = kind.combine(r, other);
        k /= 2;
    }
    [r.to_bits(), w.sum_u64(counts), w.sum_u64(edges)]
}

/// Writes lane 0's `mine` as warp `warp`'s slot (of `warps` in the launch) and,
/// in the warps that arrive last, folds the launch's slots into words `0..3`.
/// Every lane of the warp calls it.
#[inline(always)]
pub fn publish<W: Warp>(
    w: W,
    kind: ReduceKind,
    tally: &[AtomicU64],
    warp: u64,
    warps: u64,
    mine: [u64; 3],
) {
    let groups = warps.div_ceil(GROUP);
    if words_for(warps) > tally.len() || warp >= warps {
        return; // the host sized the buffer for its largest grid
    }
    let slots = HEAD + groups as usize * TALLY_WORDS;
    let group = warp / GROUP;
    let in_group = core::cmp::min(GROUP, warps - group * GROUP);
    let counter = &tally[tally.len() - 1 - group as usize];
    let mut last = 0u32;
    if w.lane() == 0 {
        let s = slots + warp as usize * TALLY_WORDS;
        for (j, x) in mine.iter().enumerate() {
            tally[s + j].store(*x, Relaxed);
        }
        fence();
        last = (counter.fetch_add(1, Relaxed) + 1 == in_group) as u32;
    }
    if w.shfl(last, 0) == 0 {
        return;
    }
    // The group's last warp: its slots are all written (each writer fenced
    // before counting itself in).
    fence();
    let g = fold(
        w,
        kind,
        tally,
        slots + (group * GROUP) as usize * TALLY_WORDS,
        in_group,
    );
    let mut final_group = 0u32;
    if w.lane() == 0 {
        counter.store(0, Relaxed);
        let s = HEAD + group as usize * TALLY_WORDS;
        for (j, x) in g.iter().enumerate() {
            tally[s + j].store(*x, Relaxed);
        }
        fence();
        final_group = (tally[3].fetch_add(1, Relaxed) + 1 == groups) as u32;
    }
    if w.shfl(final_group, 0) == 0 {
        return;
    }
    fence();
    let total = fold(w, kind, tally, HEAD, groups);
    if w.lane() == 0 {
        tally[3].store(0, Relaxed);
        for (j, x) in total.iter().enumerate() {
            tally[j].store(*x, Relaxed);
        }
    }
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::warp::SoloLane;

    /// Warps arriving in any order leave the fold of every slot in words
    /// `0..3` and every counter back at zero, launch after launch.
    #[test]
    fn any_arrival_order_folds_every_slot() {
        for warps in [1u64, 2, 31, 32, 33, 64, 100, 1000] {
            for kind in [ReduceKind::Sum, ReduceKind::Min, ReduceKind::Max] {
                let tally: Vec<AtomicU64> = (0..words_for(warps) + 5)
                    .map(|_| AtomicU64::new(0))
                    .collect();
                for launch in 0..3u64 {
                    // A permutation of the warps: stride coprime to `warps`.
                    let step = (0..)
                        .map(|k| 7 + 2 * k)
                        .find(|s| gcd(*s, warps) == 1)
                        .unwrap_or(1);
                    let value = |w: u64| ((w * 37 + launch * 11) % 101) as f64 - 50.0;
                    for i in 0..warps {
                        let w = (i * step + launch) % warps;
                        let mine = [value(w).to_bits(), w << 32 | 1, w + 3];
                        publish(SoloLane, kind, &tally, w, warps, mine);
                    }
                    let want = (0..warps).fold(kind.identity(), |a, w| kind.combine(a, value(w)));
                    assert_eq!(
                        f64::from_bits(tally[0].load(Relaxed)),
                        want,
                        "{warps} {kind:?}"
                    );
                    let counts: u64 = (0..warps).map(|w| w << 32 | 1).sum();
                    assert_eq!(tally[1].load(Relaxed), counts);
                    assert_eq!(
                        tally[2].load(Relaxed),
                        (0..warps).map(|w| w + 3).sum::<u64>()
                    );
                    assert_eq!(tally[3].load(Relaxed), 0);
                    let groups = warps.div_ceil(GROUP) as usize;
                    for g in 0..groups {
                        assert_eq!(tally[tally.len() - 1 - g].load(Relaxed), 0);
                    }
                }
            }
        }
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
}
