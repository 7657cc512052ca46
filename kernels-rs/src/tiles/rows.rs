//! A tile's rows: copied into shared memory when they fit (as they are, or
//! narrow), else read from the graph.

use core::sync::atomic::Ordering::Relaxed;

use super::{Crew, Mine, TileSmem, Tiles, MISFIT};
use crate::program::Program;

/// A tile's copy of its rows in shared memory: offsets relative to its first
/// edge, targets and weights. Read-only once written (before the loop).
pub(super) struct Rows<P: Program> {
    pub(super) offs: *mut u32,
    pub(super) targets: Targets,
    pub(super) weights: Weights<P::Weight>,
    /// The tile's first edge in the graph (a narrow row's remote targets are
    /// read from there).
    pub(super) first: u64,
}

/// A tile's copied targets: graph ids, or (the narrow copy, for tiles whose
/// wide copy does not fit) ids within the tile, [`REMOTE`] for a target in
/// another tile, whose id is read from the graph.
pub(super) enum Targets {
    Ids(*mut u32),
    Local(*mut u16),
}

/// A tile's copied weights: as they are, or (4-byte weights whose upper half
/// is zero on every edge of the tile: a grid's or a road network's integer
/// weights) their lower half, from which the same bits are rebuilt.
pub(super) enum Weights<W> {
    Full(*mut W),
    Low(*mut u16),
}

/// A narrow row's target in another tile.
const REMOTE: u16 = u16::MAX;

impl<P: Program> Tiles<'_, P> {
    /// Where tile vertex `u`'s row lies: edge indices of the tile's copy when
    /// it has one, else of the graph.
    #[inline(always)]
    pub(super) fn span(&self, me: &Mine<'_, '_, P>, u: u32) -> (usize, usize) {
        match me.rows.as_ref() {
            // SAFETY: the copy was written before the barrier that opened the
            // loop and is only read since; `u < len`, so `u + 1` is in `offs`.
            Some(c) => unsafe {
                (
                    *c.offs.add(u as usize) as usize,
                    *c.offs.add(u as usize + 1) as usize,
                )
            },
            None => {
                let v = (me.lo + u) as usize;
                (
                    self.graph.offsets[v] as usize,
                    self.graph.offsets[v + 1] as usize,
                )
            }
        }
    }

    /// Edge `e` of a [`Self::span`] as `(target, weight)`.
    #[inline(always)]
    pub(super) fn edge(&self, me: &Mine<'_, '_, P>, e: usize) -> (u32, P::Weight) {
        match me.rows.as_ref() {
            // SAFETY: the row's edges are in the copy's targets and weights; a
            // low half is only kept for 4-byte weights, whose bits it rebuilds.
            Some(c) => unsafe {
                let w = match c.weights {
                    Weights::Full(w) => *w.add(e),
                    Weights::Low(w) => {
                        core::mem::transmute_copy::<u32, P::Weight>(&u32::from(*w.add(e)))
                    }
                };
                let k = match c.targets {
                    Targets::Ids(t) => *t.add(e),
                    Targets::Local(t) => match *t.add(e) {
                        REMOTE => self.graph.targets[c.first as usize + e],
                        x => me.lo + u32::from(x),
                    },
                };
                (k, w)
            },
            None => (self.graph.targets[e], self.weights[e]),
        }
    }

    /// Whether edge `e` of a [`Self::span`] leads to another tile (a narrow
    /// copy says so without reading the target from the graph).
    #[inline(always)]
    pub(super) fn is_remote(&self, me: &Mine<'_, '_, P>, e: usize) -> bool {
        let k = match me.rows.as_ref() {
            // SAFETY: as in `edge`.
            Some(c) => unsafe {
                match c.targets {
                    Targets::Ids(t) => *t.add(e),
                    Targets::Local(t) => return *t.add(e) == REMOTE,
                }
            },
            None => self.graph.targets[e],
        };
        k.wrapping_sub(me.lo) >= me.len
    }

    /// Copies the tile's rows into the spare shared memory when they fit, so
    /// that a round reads no global memory for its own edges: as they are (a
    /// 1000² grid's BFS tile: offsets and targets in 150 KB at 7,600
    /// vertices), or else narrow (targets as ids within the tile, 4-byte
    /// weights as their lower half where that loses nothing: the same grid's
    /// SSSP tile in 150 KB instead of 270). Every thread of the block calls it
    /// and gets the same answer.
    #[inline(always)]
    pub(super) fn copy_rows(
        &self,
        crew: &impl Crew,
        smem: &TileSmem<'_, P>,
        lo: u32,
        hi: u32,
    ) -> Option<Rows<P>> {
        let t = crew.ctx();
        let (tid, step) = (t.thread_idx, t.block_dim);
        let offsets = self.graph.offsets;
        let (first, end) = (offsets[lo as usize], offsets[hi as usize]);
        let edges = end - first;
        let len = hi - lo;
        let words = |bytes: u64| bytes.div_ceil(8);
        let spare = smem.spare_words as u64;
        let weight = core::mem::size_of::<P::Weight>() as u64;
        let o = words(u64::from(len + 1) * 4);
        if edges > u64::from(u32::MAX) {
            return None;
        }
        let (t_wide, w_full) = (words(edges * 4), words(edges * weight));
        let halve = weight == 4;
        let (t_narrow, w_narrow) = (
            words(edges * 2),
            if halve { words(edges * 2) } else { w_full },
        );
        let wide = o + t_wide + w_full <= spare;
        if !wide && (len >= u32::from(REMOTE) || o + t_narrow + w_narrow > spare) {
            return None;
        }
        let offs: *mut u32 = smem.spare.cast();
        // SAFETY: `offs` and the regions below lie in the block's spare shared
        // memory (checked above), 8-byte aligned, and do not overlap; each
        // index is written by one thread, and read only after the barrier that
        // follows the copy (here, or the one after the states' set-up).
        unsafe {
            let mut i = tid;
            while i <= len {
                *offs.add(i as usize) = (offsets[(lo + i) as usize] - first) as u32;
                i += step;
            }
            if wide {
                let targets: *mut u32 = smem.spare.add(o as usize).cast();
                let weights: *mut P::Weight = smem.spare.add((o + t_wide) as usize).cast();
                let mut e = u64::from(tid);
                while e < edges {
                    let g = (first + e) as usize;
                    *targets.add(e as usize) = self.graph.targets[g];
                    *weights.add(e as usize) = self.weights[g];
                    e += u64::from(step);
                }
                return Some(Rows {
                    offs,
                    targets: Targets::Ids(targets),
                    weights: Weights::Full(weights),
                    first,
                });
            }
            let targets: *mut u16 = smem.spare.add(o as usize).cast();
            let at = smem.spare.add((o + t_narrow) as usize);
            let misfit = &smem.header[MISFIT];
            if tid == 0 {
                misfit.store(0, Relaxed);
            }
            crew.sync_block();
            let mut bad = false;
            let mut e = u64::from(tid);
            while e < edges {
                let g = (first + e) as usize;
                let local = self.graph.targets[g].wrapping_sub(lo);
                *targets.add(e as usize) = if local < len { local as u16 } else { REMOTE };
                if halve {
                    // SAFETY (of the read): `P::Weight` is 4 bytes here, and
                    // every 4-byte pattern is a `u32`.
                    let bits: u32 = core::mem::transmute_copy(&self.weights[g]);
                    bad |= bits > u32::from(u16::MAX);
                    *at.cast::<u16>().add(e as usize) = bits as u16;
                } else {
                    *at.cast::<P::Weight>().add(e as usize) = self.weights[g];
                }
                e += u64::from(step);
            }
            if bad {
                misfit.fetch_or(1, Relaxed);
            }
            crew.sync_block();
            let fits = misfit.load(Relaxed) == 0;
            // Everyone has read the word before the header is set up.
            crew.sync_block();
            fits.then(|| Rows {
                offs,
                targets: Targets::Local(targets),
                weights: if halve {
                    Weights::Low(at.cast())
                } else {
                    Weights::Full(at.cast())
                },
                first,
            })
        }
    }
}
