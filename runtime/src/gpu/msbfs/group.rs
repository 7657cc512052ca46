//! Batches in groups: one launch of the `_group` kernels runs a level of every
//! batch of a group, so the launches and control reads of a high-diameter
//! graph's thousands of levels are paid once per group, not per batch.

use kernels_rs::msbfs::{BatchDesc, CTL_DEPTH, CTL_LANES, CTL_OVERFLOW, CTL_WORDS, LANES};

use super::{
    batches, Batches, GraphArgs, CHUNK, CHUNKS_GROUP, EXPAND_GROUP, GROUP_BUDGET, KERNELS,
    MAX_GROUP, MAX_WINDOW, SEED_GROUP, SETTLE_GROUP,
};
use crate::cpu::msbfs::lane_mask;
use crate::error::Result;
use crate::gpu::launcher::{Arg, Grid, Kernel, Launcher};

/// Batches of one group, advanced level by level together: each launch of the
/// `_group` kernels runs the level of every batch in the group (whose
/// descriptors lie one after another in `descs`), so the per-level launches and
/// control reads of a high-diameter graph are paid once per group, not per batch
/// (a 316² grid's all pairs: 1,561 batches of 630 levels each).
struct Group<'a, L: Launcher> {
    batches: Vec<Batches<'a, L>>,
    descs: L::Buf<u64>,
    /// The control words of every batch, [`CTL_WORDS`] each, one batch after
    /// another: a window's check reads them in one copy and a start writes
    /// them in one (one read per batch made a 1,000² grid's ~2,000 levels cost
    /// 32 round trips per window of 32 levels, every group).
    ctls: L::Buf<u64>,
}

/// Bytes of one batch's buffers over `n` vertices and `m` edges (level lists at
/// their starting capacity): what limits a group's size.
fn batch_bytes(n: u64, m: u64) -> u64 {
    let cap = (2 * n).max(1024);
    cap * 12 + n * (8 * 5 + 4 + 8) + (n + m / CHUNK) * 8
}

impl<'a, L: Launcher> Group<'a, L> {
    fn new(
        l: &'a L,
        k: [Kernel<'a>; KERNELS],
        block: u32,
        graph: GraphArgs,
        lanes: u32,
        alpha: u64,
        size: usize,
    ) -> Result<Self> {
        let mut batches = (0..size)
            .map(|_| Batches::new(l, k, block, graph, lanes, false, alpha))
            .collect::<Result<Vec<_>>>()?;
        let descs = l.zeros::<u64>(size * BatchDesc::WORDS, "group descriptors")?;
        let ctls = l.zeros::<u64>(size * CTL_WORDS, "group control")?;
        for (i, b) in batches.iter_mut().enumerate() {
            b.share_ctl(L::addr(&ctls) + (i * CTL_WORDS * 8) as u64)?;
        }
        Ok(Group {
            batches,
            descs,
            ctls,
        })
    }

    fn launch(&self, i: usize, grid: Grid, groups: usize, extra: &[Arg]) -> Result<()> {
        let b = &self.batches[0];
        let mut args = vec![Arg::U64(L::addr(&self.descs)), (groups as u32).into()];
        args.extend_from_slice(extra);
        // SAFETY: the `_group` kernels take the descriptor array, the number of
        // descriptors in it, then the depth (`extra`); every descriptor names
        // live buffers of its batch with the lengths it records.
        unsafe { b.l.launch(&b.k[i], grid, b.block, &args) }
    }

    /// The forward phase of the first `sets.len()` batches, `sets[i]` the
    /// sources of batch `i`. When a batch's level lists fill up, its lists
    /// grow and the whole group starts again (rare: capacities persist).
    fn forward(&mut self, sets: &[&[u32]]) -> Result<()> {
        let count = sets.len();
        let l = self.batches[0].l;
        let n = self.batches[0].n();
        'restart: loop {
            let mut first = 0usize;
            let mut words = Vec::with_capacity(count * BatchDesc::WORDS);
            // Zeros but the lanes each batch holds (an overflow flag cleared).
            let mut ctl = vec![0u64; count * CTL_WORDS];
            for (i, (b, s)) in self.batches.iter_mut().zip(sets).enumerate() {
                first = first.max(b.prepare(s)?);
                words.extend_from_slice(&b.desc.to_words());
                ctl[i * CTL_WORDS + CTL_LANES] = lane_mask(s.len());
            }
            l.write(&mut self.descs, &words, "group descriptors")?;
            l.write(&mut self.ctls, &ctl, "group control")?;
            self.launch(SEED_GROUP, Grid::Cover(first as u64), count, &[])?;
            let all = Grid::Resident(n.max(1));
            let mut depth = 0u32;
            let mut window = 1u32;
            loop {
                for _ in 0..window {
                    let d = [depth.into()];
                    self.launch(CHUNKS_GROUP, all, count, &d)?;
                    self.launch(EXPAND_GROUP, all, count, &d)?;
                    self.launch(SETTLE_GROUP, all, count, &d)?;
                    depth += 1;
                }
                let words = l.read_prefix(&self.ctls, count * CTL_WORDS, "group control")?;
                let ctls: Vec<&[u64]> = words.chunks(CTL_WORDS).collect();
                let mut grown = false;
                for (b, ctl) in self.batches.iter_mut().zip(&ctls) {
                    if ctl[CTL_OVERFLOW] != 0 {
                        b.grow()?;
                        grown = true;
                    }
                }
                if grown {
                    continue 'restart;
                }
                if ctls.iter().all(|c| (c[CTL_DEPTH] as u32) < depth) {
                    for (b, c) in self.batches.iter_mut().zip(&ctls) {
                        b.finished(c, depth);
                    }
                    return Ok(());
                }
                window = (window * 2).min(MAX_WINDOW);
            }
        }
    }
}

/// Runs `per_batch` after the forward phase of each batch of `sources` (no path
/// counts), the batches run in groups ([`Group`]) as large as memory allows;
/// returns the levels run bottom-up and the time from the first kernel to the last.
#[allow(clippy::too_many_arguments)]
pub(super) fn each_grouped<'a, L: Launcher>(
    l: &'a L,
    k: [Kernel<'a>; KERNELS],
    block: u32,
    graph: GraphArgs,
    sources: &[u32],
    alpha: u64,
    mut per_batch: impl FnMut(&mut Batches<'a, L>, &[u32]) -> Result<()>,
) -> Result<(u64, f64)> {
    let lanes = sources.len().min(LANES as usize) as u32;
    let sets: Vec<&[u32]> = batches(sources, graph.out.0 as usize)?.collect();
    let (n, m) = (graph.out.0, graph.out.1);
    let fit = (GROUP_BUDGET / batch_bytes(n, m).max(1)).max(1) as usize;
    let size = sets.len().min(MAX_GROUP).min(fit).max(1);
    let mut g = Group::new(l, k, block, graph, lanes, alpha, size)?;
    let start = l.mark()?;
    for chunk in sets.chunks(size) {
        g.forward(chunk)?;
        for (b, s) in g.batches.iter_mut().zip(chunk) {
            per_batch(b, s)?;
        }
    }
    let end = l.mark()?;
    let ms = l.elapsed_ms(&start, &end)?;
    Ok((g.batches.iter().map(|b| b.bottom_up_levels).sum(), ms))
}
