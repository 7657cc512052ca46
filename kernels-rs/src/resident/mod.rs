//! The device-resident traversal: one persistent kernel runs every level, so a
//! graph with thousands of small levels (roads, grids, meshes) pays neither a
//! launch nor a host round trip per level, and a level costs what its frontier
//! costs, not what the graph costs.
//!
//! Why: on a 1000² grid (1,817 BFS levels) the level-launched kernels spent
//! 27–73 µs per level, scanning every vertex or every edge chunk and waiting for
//! the host, against gapbs's 13 µs per level on 16 cores.
//!
//! How (Merrill-style queues, seed 001, in one launch):
//! * **Compacted frontier queues.** Round `r` expands the vertex queue
//!   `queues[r % 2]` (`len[r % 3]` entries) and appends every vertex whose state
//!   it improved to the other queue, once per round (a stamp per vertex, so no
//!   duplicate entries). Appends go to a per-block buffer in shared memory first
//!   and reach the global queue with one atomic per block and round.
//! * **Two widths, chosen on the device.** A round with at most `small_max`
//!   vertices is run by block 0 alone, with block barriers only (about a
//!   microsecond), while the other blocks wait at a grid barrier; a larger round
//!   is run by the whole grid, which ends with a grid barrier. The choice is made
//!   per round from the queue length, by every thread alike.
//! * **One-block rounds are a latency chain** (queue entry → state and row
//!   bounds → targets → atomic → append, a thread's 1–2 vertices each): their
//!   queue stays in shared memory from one round to the next (two halves of the
//!   append buffer), their combines are single atomics with no read first
//!   ([`Program::combine_now`]), and four edges' atomics are issued before any
//!   result is read. H100, grid 1000² BFS from vertex 0: 12.3 → 9.6 ms
//!   (`74e218a:docs/results/h100/resident/run6/`).
//! * **Hub rows shared out** (the `_resident_hubs` entry, [`Resident::hubs`]):
//!   a queued vertex with more than [`HEAVY_ROW`] out-edges is listed in shared
//!   memory and its edges are relaxed by the whole block, not by the thread that
//!   dequeued it (a 200,000-edge hub: 140 → 8 ms for BFS on a star with a long
//!   path). A separate entry, because the listing's registers cost grid BFS 3–5 %.
//! * **Near-far buckets without the host** (programs with a priority, `delta >
//!   0`): a vertex whose new state's priority is at or above the current `limit`
//!   goes to a far pile (once, a flag per vertex) instead of the queue. When the
//!   queue runs dry, a split round moves the pile's vertices under the next limit
//!   (the pile's minimum priority rounded up to a multiple of Δ, found by an
//!   atomic minimum) into the queue and keeps the rest. Δ large enough that a
//!   bucket fills the device; Dijkstra's order approximated without a barrier per
//!   vertex.
//!
//! Ordering between rounds: every word other threads write in a round (states,
//! queues, stamps, counters) is accessed through atomics, which the GPU serves
//! from the L2; the block barrier orders a block, and the grid barrier (a counter
//! and a generation word with gpu-scope fences) orders the grid.
//!
//! The grid must be co-resident (a cooperative launch guarantees it or fails).
//! The host emulator runs the same body with one OS thread per simulated GPU
//! thread and `std::sync::Barrier`s for both barriers (the [`Team`] trait).

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::program::Program;
use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::word::StateWord;

mod launch;
pub use launch::resident;
#[cfg(target_arch = "nvptx64")]
pub use launch::{block_smem, PtxTeam};

/// The barriers a resident kernel needs, and who is calling.
pub trait Team {
    /// The calling thread.
    fn ctx(&self) -> ThreadCtx;
    /// Every thread of the calling block arrives before any leaves
    /// (`bar.sync`), with block-scope memory ordering.
    fn sync_block(&self);
    /// Every thread of the grid arrives before any leaves, with device-scope
    /// memory ordering. `count` and `generation` are two control words
    /// ([`BAR_COUNT`], [`BAR_GEN`]) that the GPU version spins on.
    fn sync_grid(&self, count: &AtomicU32, generation: &AtomicU32);
    /// A cycle counter for the phase profile ([`PROFILE`]); 0 where there is none.
    fn clock(&self) -> u64 {
        0
    }
}

/// Control words (`u32`, zero unless stated): the grid barrier's counter. The
/// barrier's two words have a 128-byte line to themselves: the blocks waiting
/// on it would otherwise slow block 0's atomics on the queue counters.
pub const BAR_COUNT: usize = 0;
/// The grid barrier's generation.
pub const BAR_GEN: usize = 1;
/// Queue lengths, a ring of three: round `r` reads `LEN + r % 3`, appends to
/// `LEN + (r + 1) % 3` and clears `LEN + (r + 2) % 3` (the host sets `LEN` to
/// the initial queue's length).
pub const LEN: usize = 32;
/// Far pile lengths (two piles: the split reads one and keeps into the other).
pub const FAR_LEN: usize = 35;
/// The far pile's minimum priority during a split (host sets `u32::MAX`).
pub const MIN_PRIORITY: usize = 37;
/// Where block 0 leaves the cursor after a small phase: two slots of
/// [`CURSOR_WORDS`] (round, far pile, limit, done), used alternately. The host
/// fills slot 0 (the initial limit).
pub const CURSOR: usize = 40;
/// Words per cursor slot.
pub const CURSOR_WORDS: usize = 4;
/// Statistics the kernel leaves: rounds run by one block.
pub const SMALL_ROUNDS: usize = 48;
/// Rounds run by the whole grid.
pub const WIDE_ROUNDS: usize = 49;
/// Split rounds (far pile to queue).
pub const SPLITS: usize = 50;
/// Rounds in all (the final cursor's round).
pub const ROUNDS: usize = 51;
/// Nonzero: block 0's thread 0 times its one-block rounds into [`PROFILE`]
/// (the host sets it for `VERTEX_RESIDENT_PROFILE`).
pub const PROFILE_ON: usize = 52;
/// Block 0's thread 0, cycles / 16 summed over one-block rounds, per phase: its
/// own vertices (loads, offers, appends), the wait at the flush's barrier for
/// the rest of the block, the flush, the round's closing barrier, and the step
/// to the next round ([`PHASES`] words).
pub const PROFILE: usize = 53;
/// Phases timed in [`PROFILE`].
pub const PHASES: usize = 5;
/// Size of the control block.
pub const CTL_WORDS: usize = PROFILE + PHASES;

/// Words of the per-block shared buffer before the appended vertices: the two
/// append counters, the block's reserved queue slot, the profile's last clock
/// (two words), then the heavy rows: two counters (by round parity) and
/// [`HEAVY_SLOTS`] vertex slots.
pub const SMEM_HEADER: usize = HEAVY + HEAVY_SLOTS * HEAVY_WORDS;

/// Heavy rows listed this round (two words, by round parity).
const HEAVY_LEN: usize = 5;
/// The slots: one vertex each.
const HEAVY: usize = 7;
const HEAVY_WORDS: usize = 1;
/// Rows a block shares out per round; more are relaxed by the thread that met them.
pub const HEAVY_SLOTS: usize = 32;
/// A queued vertex with more out-edges than this is a heavy row: the whole
/// block relaxes its edges, not the one thread that dequeued it. One thread
/// alone takes about a round trip per four edges, so a hub of 200,000 edges
/// held a one-block round (and every round after it) for about 100 ms.
pub const HEAVY_ROW: usize = 64;

/// Where a traversal is; identical in every thread that runs the same rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Rounds done (the next round's number).
    pub round: u32,
    /// Which far pile is being filled.
    pub far: u32,
    /// Priority limit of the near queue (`u32::MAX`: no limit).
    pub limit: u32,
    /// Length of round `round`'s queue.
    pub queued: u32,
    /// Round `round`'s queue is in block 0's shared buffer (half `round % 2`),
    /// not in global memory: consecutive one-block rounds hand their queue
    /// over in shared memory, without a copy out and a round trip back.
    pub local: bool,
    pub done: bool,
}

/// Everything the resident kernel reads and writes.
pub struct Resident<'a, P: Program> {
    pub graph: CsrView<'a>,
    /// One weight per edge (zero-sized slice for unweighted programs).
    pub weights: &'a [P::Weight],
    pub state: &'a [<P::State as StateWord>::Atomic],
    /// Parent per vertex, written by `combine` winners (the host asks for it
    /// only when any winner's parent is valid: BFS-like programs).
    pub parents: Option<&'a [AtomicU32]>,
    /// The two vertex queues (`n` entries each).
    pub queues: [&'a [AtomicU32]; 2],
    /// Round stamp per vertex: `r + 1` once appended by round `r`.
    pub stamps: &'a [AtomicU32],
    /// The two far piles (`n` entries each; empty without buckets).
    pub far: [&'a [AtomicU32]; 2],
    /// 1 while a vertex is in a far pile (empty without buckets).
    pub in_far: &'a [AtomicU32],
    /// [`CTL_WORDS`] control words.
    pub ctl: &'a [AtomicU32],
    /// Bucket width in priority units; 0 = one bucket (no far pile).
    pub delta: u32,
    /// Rounds with at most this many vertices run on block 0 alone.
    pub small_max: u32,
    /// Stamp appended vertices so each is queued once per round. Only programs
    /// whose every candidate in a round is the same value under an atomic
    /// min/max (BFS-like) may go without: there a vertex has one winner per
    /// round, so the queue (`n` entries) cannot overflow.
    pub dedup: bool,
    /// [`PROFILE_ON`], read once: a load per phase would lengthen the very
    /// chain it times.
    pub profile: bool,
    /// Rows longer than [`HEAVY_ROW`] are shared out over the block. A
    /// constant of each kernel entry (`vx_<program>_resident_hubs` has it,
    /// `vx_<program>_resident` not), so that graphs without such rows (grids,
    /// roads) run a kernel without the listing: its registers cost the
    /// one-block rounds of grid BFS 3–5 % on the H100.
    pub hubs: bool,
}

/// Who runs a round: thread `me` of `size`, `first` clears the ring slots.
#[derive(Clone, Copy)]
struct Crew {
    me: u64,
    size: u64,
    first: bool,
    /// The whole grid (grid barriers), or block 0 alone (block barriers).
    wide: bool,
}

impl<P: Program> Resident<'_, P> {
    /// The whole traversal, as one thread of the persistent grid.
    ///
    /// `smem` is the calling block's shared buffer: [`SMEM_HEADER`] words then the
    /// append buffer (any length; longer means fewer global atomics).
    #[inline(always)]
    pub fn run(&self, team: &impl Team, smem: &[AtomicU32]) {
        let t = team.ctx();
        let grid = Crew {
            me: t.global(),
            size: t.stride(),
            first: t.global() == 0,
            wide: true,
        };
        let block = Crew {
            me: t.thread_idx as u64,
            size: t.block_dim as u64,
            first: t.thread_idx == 0,
            wide: false,
        };
        // Dynamic shared memory starts undefined.
        if block.first {
            for w in [0, 1, 3, 4] {
                smem[w].store(0, Relaxed);
            }
            clear_heavy(smem);
        }
        team.sync_block();
        let mut c = self.read_cursor(0);
        let mut phase = 0usize;
        let mut small_rounds = 0u32;
        while !c.done {
            if self.work(&c) <= u64::from(self.small_max) {
                // Every thread must have read `work` before block 0 changes the
                // counters (its second round clears the slot just read).
                team.sync_grid(&self.ctl[BAR_COUNT], &self.ctl[BAR_GEN]);
                if t.block_idx == 0 {
                    while !c.done && self.work(&c) <= u64::from(self.small_max) {
                        self.round(&mut c, block, team, smem);
                        small_rounds += u32::from(!c.done);
                    }
                    phase ^= 1;
                    if block.first {
                        self.write_cursor(phase, &c);
                    }
                } else {
                    phase ^= 1;
                    // Block 0's rounds moved the round parity on: the counter
                    // the next round appends to may hold this block's count
                    // from its last round (see `flush`).
                    if block.first {
                        smem[0].store(0, Relaxed);
                        smem[1].store(0, Relaxed);
                        clear_heavy(smem);
                    }
                }
                team.sync_grid(&self.ctl[BAR_COUNT], &self.ctl[BAR_GEN]);
                c = self.read_cursor(phase);
            } else {
                self.round(&mut c, grid, team, smem);
                if grid.first && !c.done {
                    self.ctl[WIDE_ROUNDS].fetch_add(1, Relaxed);
                }
            }
        }
        if grid.first {
            self.ctl[ROUNDS].store(c.round, Relaxed);
            self.ctl[SMALL_ROUNDS].store(small_rounds, Relaxed);
        }
    }

    /// Ends phase `phase` of the profile ([`PROFILE`]) in block 0's thread 0 of a
    /// one-block round; nothing elsewhere or without [`PROFILE_ON`].
    #[inline(always)]
    fn lap(&self, team: &impl Team, smem: &[AtomicU32], phase: usize, wide: bool) {
        let t = team.ctx();
        if !self.profile || wide || t.block_idx != 0 || t.thread_idx != 0 {
            return;
        }
        let now = team.clock();
        let last = u64::from(smem[3].load(Relaxed)) | u64::from(smem[4].load(Relaxed)) << 32;
        if last != 0 && phase < PHASES {
            self.ctl[PROFILE + phase].fetch_add((now.wrapping_sub(last) >> 4) as u32, Relaxed);
        }
        smem[3].store(now as u32, Relaxed);
        smem[4].store((now >> 32) as u32, Relaxed);
    }

    fn read_cursor(&self, slot: usize) -> Cursor {
        let b = CURSOR + slot * CURSOR_WORDS;
        Cursor {
            round: self.ctl[b].load(Relaxed),
            far: self.ctl[b + 1].load(Relaxed),
            limit: self.ctl[b + 2].load(Relaxed),
            queued: self.ctl[LEN + (self.ctl[b].load(Relaxed) % 3) as usize].load(Relaxed),
            local: false,
            done: self.ctl[b + 3].load(Relaxed) != 0,
        }
    }

    fn write_cursor(&self, slot: usize, c: &Cursor) {
        let b = CURSOR + slot * CURSOR_WORDS;
        self.ctl[b].store(c.round, Relaxed);
        self.ctl[b + 1].store(c.far, Relaxed);
        self.ctl[b + 2].store(c.limit, Relaxed);
        self.ctl[b + 3].store(u32::from(c.done), Relaxed);
    }

    /// Vertices the next round handles: the queue, or the far pile to split.
    #[inline(always)]
    fn work(&self, c: &Cursor) -> u64 {
        if c.queued > 0 {
            u64::from(c.queued)
        } else {
            u64::from(self.ctl[FAR_LEN + c.far as usize].load(Relaxed))
        }
    }

    /// One round by `crew` (block 0, or the grid when `wide`), ending with the
    /// crew's barrier; advances the cursor identically in every crew thread.
    #[inline(always)]
    fn round(&self, c: &mut Cursor, crew: Crew, team: &impl Team, smem: &[AtomicU32]) {
        let wide = crew.wide;
        let sync = || {
            if wide {
                team.sync_grid(&self.ctl[BAR_COUNT], &self.ctl[BAR_GEN]);
            } else {
                team.sync_block();
            }
        };
        self.lap(team, smem, 4, wide);
        let r = c.round;
        let queued = c.queued;
        let far_len = if queued == 0 && self.delta > 0 {
            self.ctl[FAR_LEN + c.far as usize].load(Relaxed)
        } else {
            0
        };
        if queued == 0 && far_len == 0 {
            c.done = true;
            return;
        }
        if crew.first {
            self.ctl[LEN + ((r + 2) % 3) as usize].store(0, Relaxed);
        }
        let (appended, local) = if queued > 0 {
            let a = self.expand(c, crew, team, smem, queued);
            sync();
            self.lap(team, smem, 3, wide);
            a
        } else {
            let (limit, a) = self.split(c, crew, team, smem, far_len, &sync);
            c.limit = limit;
            c.far ^= 1;
            if crew.first {
                self.ctl[SPLITS].fetch_add(1, Relaxed);
            }
            a
        };
        c.local = local;
        // One block knows its appends; the grid reads the total after its barrier.
        c.queued = if wide {
            self.ctl[LEN + ((r + 1) % 3) as usize].load(Relaxed)
        } else {
            appended
        };
        c.round = r + 1;
    }

    /// Relaxes the edges of the queued vertices of round `c.round`.
    #[inline(always)]
    fn expand(
        &self,
        c: &Cursor,
        crew: Crew,
        team: &impl Team,
        smem: &[AtomicU32],
        queued: u32,
    ) -> (u32, bool) {
        let r = c.round;
        let queue = self.queue(r);
        let offsets = self.graph.offsets;
        // Where round `r - 1` appended (see `out_buffer`).
        let local_at = half_buffer(smem.len(), r % 2).0;
        let mut i = crew.me;
        while i < u64::from(queued) {
            let v = if c.local {
                smem[local_at + i as usize].load(Relaxed)
            } else {
                queue[i as usize].load(Relaxed)
            } as usize;
            let s = P::State::load(&self.state[v]);
            let (first, end) = (offsets[v] as usize, offsets[v + 1] as usize);
            if self.hubs && end - first > HEAVY_ROW && list_heavy(smem, r, v) {
                // The block relaxes it in `flush`.
            } else if crew.wide {
                // The grid is bound by throughput: the read in `combine` saves
                // most atomics.
                for e in first..end {
                    let Some(cand) = P::relax(s, self.weights[e], r) else {
                        continue;
                    };
                    let k = self.graph.targets[e] as usize;
                    if P::combine(&self.state[k], cand) {
                        self.arrive(v, k, cand, c, smem, true);
                    }
                }
            } else {
                self.expand_row_now(v, s, first, end, c, smem);
            }
            i += crew.size;
        }
        self.lap(team, smem, 0, crew.wide);
        self.flush(c, team, smem, crew.wide)
    }

    /// A one-block round's edge loop over `v`'s row `[first, end)`. One block
    /// alone is bound by each thread's chain of round trips, so the combines
    /// are single atomics with no read first ([`Program::combine_now`]), four
    /// edges' at a time, issued before any result is looked at: their round
    /// trips overlap instead of following each other.
    #[inline(always)]
    fn expand_row_now(
        &self,
        v: usize,
        s: P::State,
        first: usize,
        end: usize,
        c: &Cursor,
        smem: &[AtomicU32],
    ) {
        let r = c.round;
        let (targets, weights) = (self.graph.targets, self.weights);
        let edge = |e: usize| {
            if e < end {
                P::relax(s, weights[e], r).map(|cand| (targets[e], cand))
            } else {
                None
            }
        };
        let offer = |x: Option<(u32, P::State)>| match x {
            Some((k, cand)) => P::combine_now(&self.state[k as usize], cand),
            None => false,
        };
        let arrive = |won: bool, x: Option<(u32, P::State)>| {
            if let (true, Some((k, cand))) = (won, x) {
                self.arrive(v, k as usize, cand, c, smem, false);
            }
        };
        let mut e = first;
        while e < end {
            let (x0, x1, x2, x3) = (edge(e), edge(e + 1), edge(e + 2), edge(e + 3));
            let (w0, w1, w2, w3) = (offer(x0), offer(x1), offer(x2), offer(x3));
            arrive(w0, x0);
            arrive(w1, x1);
            arrive(w2, x2);
            arrive(w3, x3);
            e += 4;
        }
    }

    /// `k` won `cand` from `v`: its parent, and its place in the next queue
    /// (or the far pile when the candidate is beyond the bucket's limit).
    #[inline(always)]
    fn arrive(
        &self,
        v: usize,
        k: usize,
        cand: P::State,
        c: &Cursor,
        smem: &[AtomicU32],
        wide: bool,
    ) {
        if let Some(p) = self.parents {
            p[k].store(v as u32, Relaxed);
        }
        if self.near(P::priority(cand), c.limit) {
            self.append_once(k, c.round, smem, wide);
        } else if self.in_far[k].swap(1, Relaxed) == 0 {
            let pile = c.far as usize;
            let at = self.ctl[FAR_LEN + pile].fetch_add(1, Relaxed);
            self.pile(pile as u32)[at as usize].store(k as u32, Relaxed);
        }
    }

    /// Round `r`'s queue. A branch, not `queues[r % 2]`: a dynamic index into an
    /// array of slices puts the array in local memory, on every round's path.
    #[inline(always)]
    fn queue(&self, r: u32) -> &[AtomicU32] {
        if r % 2 == 0 {
            self.queues[0]
        } else {
            self.queues[1]
        }
    }

    /// Far pile `i` (see [`Self::queue`]).
    #[inline(always)]
    fn pile(&self, i: u32) -> &[AtomicU32] {
        if i % 2 == 0 {
            self.far[0]
        } else {
            self.far[1]
        }
    }

    /// Whether a state of priority `p` belongs to the queue under `limit`.
    #[inline(always)]
    fn near(&self, p: u32, limit: u32) -> bool {
        self.delta == 0 || limit == u32::MAX || p < limit
    }

    /// Moves the far pile's vertices under the next limit into the queue of
    /// round `c.round + 1`; returns that limit. Two crew barriers.
    #[inline(always)]
    fn split(
        &self,
        c: &Cursor,
        crew: Crew,
        team: &impl Team,
        smem: &[AtomicU32],
        far_len: u32,
        sync: &impl Fn(),
    ) -> (u32, (u32, bool)) {
        let pile = self.pile(c.far);
        let keep = (c.far ^ 1) as usize;
        if crew.first {
            self.ctl[FAR_LEN + keep].store(0, Relaxed);
        }
        let mut i = crew.me;
        while i < u64::from(far_len) {
            let v = pile[i as usize].load(Relaxed) as usize;
            let p = P::priority(P::State::load(&self.state[v]));
            self.ctl[MIN_PRIORITY].fetch_min(p, Relaxed);
            i += crew.size;
        }
        sync();
        let min = self.ctl[MIN_PRIORITY].load(Relaxed);
        let delta = self.delta;
        let next = (min / delta)
            .checked_add(1)
            .and_then(|b| b.checked_mul(delta))
            .unwrap_or(u32::MAX);
        let limit = if next > c.limit { next } else { c.limit };
        let mut i = crew.me;
        while i < u64::from(far_len) {
            let v = pile[i as usize].load(Relaxed);
            let p = P::priority(P::State::load(&self.state[v as usize]));
            if self.near(p, limit) {
                self.in_far[v as usize].store(0, Relaxed);
                self.append_once(v as usize, c.round, smem, crew.wide);
            } else {
                let at = self.ctl[FAR_LEN + keep].fetch_add(1, Relaxed);
                self.pile(keep as u32)[at as usize].store(v, Relaxed);
            }
            i += crew.size;
        }
        let appended = self.flush(c, team, smem, crew.wide);
        if crew.first {
            // Everyone read the minimum before the last barrier; the next split
            // is at least one round (one barrier) away, after the queue it fed.
            self.ctl[MIN_PRIORITY].store(u32::MAX, Relaxed);
        }
        sync();
        (limit, appended)
    }

    /// Appends `k` to round `r + 1`'s queue unless round `r` already did.
    #[inline(always)]
    fn append_once(&self, k: usize, r: u32, smem: &[AtomicU32], wide: bool) {
        // One exchange, no read first: a winner of `combine` is rarely stamped
        // already, and a read would add a round trip to every round's chain.
        // Without `dedup` (BFS-like programs: one winner per vertex and round)
        // no stamp at all.
        if self.dedup && self.stamps[k].swap(r.wrapping_add(1), Relaxed) == r.wrapping_add(1) {
            return;
        }
        // The next round reads `k`'s row bounds first; a row of a vertex just
        // reached is rarely cached, so start that DRAM read now (L2 prefetch,
        // no result to wait for).
        prefetch_l2(&self.graph.offsets[k]);
        let (base, cap) = out_buffer(smem.len(), r, wide);
        let buffered = smem[(r % 2) as usize].fetch_add(1, Relaxed) as usize;
        if buffered < cap {
            smem[base + buffered].store(k as u32, Relaxed);
        } else {
            let at = self.ctl[LEN + ((r + 1) % 3) as usize].fetch_add(1, Relaxed);
            self.queue(r + 1)[at as usize].store(k as u32, Relaxed);
        }
    }

    /// Copies the block's buffered appends to round `r + 1`'s queue. Every
    /// thread of the block calls it. With the whole grid appending (`wide`), one
    /// global atomic reserves the block's range, and the result is 0 (the total
    /// is read after the grid barrier); a block appending alone owns the queue:
    /// the overflowed appends took its first slots, the buffer goes after them,
    /// and the result is the queue's length, without a global round trip. A
    /// block alone whose appends all fit, and few enough for another one-block
    /// round, leaves them where they are (the second result: the next round
    /// reads its queue from shared memory).
    #[inline(always)]
    fn flush(&self, c: &Cursor, team: &impl Team, smem: &[AtomicU32], wide: bool) -> (u32, bool) {
        let t = team.ctx();
        let r = c.round;
        let (base, cap) = out_buffer(smem.len(), r, wide);
        let cap = cap as u32;
        let len = &self.ctl[LEN + ((r + 1) % 3) as usize];
        team.sync_block();
        // Heavy rows listed by this round's expansion (none in a split round:
        // its counter was cleared in the round before), shared out over the
        // block; their appends land before the barrier after them.
        let heavy = if self.hubs {
            (smem[HEAVY_LEN + (r % 2) as usize].load(Relaxed) as usize).min(HEAVY_SLOTS)
        } else {
            0
        };
        if heavy > 0 {
            self.relax_heavy(heavy, c, t, smem, wide);
            team.sync_block();
        }
        // Round `r` appended through counter `r % 2`; thread 0 clears the
        // other one for round `r + 1`, whose appends start after the round's
        // closing barrier. Its last readers (round `r - 1`) all passed the
        // barrier above, so no barrier is needed between the read and a clear.
        let count = smem[(r % 2) as usize].load(Relaxed);
        if t.thread_idx == 0 {
            smem[((r + 1) % 2) as usize].store(0, Relaxed);
            smem[HEAVY_LEN + ((r + 1) % 2) as usize].store(0, Relaxed);
        }
        self.lap(team, smem, 1, wide);
        if !wide && count > 0 && count <= cap && count <= self.small_max {
            self.lap(team, smem, 2, wide);
            return (count, true);
        }
        let n = count.min(cap);
        if wide {
            if t.thread_idx == 0 {
                smem[2].store(len.fetch_add(n, Relaxed), Relaxed);
            }
            team.sync_block();
        }
        let at = if wide {
            smem[2].load(Relaxed)
        } else {
            count - n
        } as usize;
        let queue = self.queue(r + 1);
        let mut i = t.thread_idx;
        while i < n {
            let v = smem[base + i as usize].load(Relaxed);
            queue[at + i as usize].store(v, Relaxed);
            i += t.block_dim;
        }
        team.sync_block();
        if t.thread_idx == 0 && !wide {
            len.store(count, Relaxed);
        }
        self.lap(team, smem, 2, wide);
        (if wide { 0 } else { count }, false)
    }
}

impl<P: Program> Resident<'_, P> {
    /// The block's share of the `heavy` rows listed in round `r`: their edges
    /// taken as one list, edge `j` of it by thread `j % block_dim`, so every
    /// thread relaxes about as many edges and a hub costs a few round trips.
    #[inline(always)]
    fn relax_heavy(&self, heavy: usize, c: &Cursor, t: ThreadCtx, smem: &[AtomicU32], wide: bool) {
        let r = c.round;
        let bd = t.block_dim as usize;
        // Where the row's edges start in the round's flattened list of heavy edges.
        let mut start = 0usize;
        for h in 0..heavy {
            let v = smem[HEAVY + h].load(Relaxed) as usize;
            let (first, end) = (
                self.graph.offsets[v] as usize,
                self.graph.offsets[v + 1] as usize,
            );
            // Edge `i` of this row is edge `start + i` of the list.
            let mut i = (t.thread_idx as usize + bd - start % bd) % bd;
            start += end - first;
            if first + i >= end {
                continue;
            }
            let s = P::State::load(&self.state[v]);
            while first + i < end {
                let e = first + i;
                if let Some(cand) = P::relax(s, self.weights[e], r) {
                    let k = self.graph.targets[e] as usize;
                    // The read first: a hub's edges mostly meet reached vertices.
                    if P::combine(&self.state[k], cand) {
                        self.arrive(v, k, cand, c, smem, wide);
                    }
                }
                i += bd;
            }
        }
    }
}

/// Lists `v` as a heavy row of round `r`, if a slot is free.
#[inline(always)]
fn list_heavy(smem: &[AtomicU32], r: u32, v: usize) -> bool {
    let h = smem[HEAVY_LEN + (r % 2) as usize].fetch_add(1, Relaxed) as usize;
    if h >= HEAVY_SLOTS {
        return false;
    }
    smem[HEAVY + h].store(v as u32, Relaxed);
    true
}

/// Clears both parities' heavy-row counters.
#[inline(always)]
fn clear_heavy(smem: &[AtomicU32]) {
    for w in &smem[HEAVY_LEN..HEAVY] {
        w.store(0, Relaxed);
    }
}

/// Where round `r`'s appends go in a block's shared buffer of `len` words:
/// the first word and the capacity. The whole buffer for the grid's rounds;
/// for one-block rounds the half `(r + 1) % 2`, so that the next round can
/// read its queue from the other half while it appends to this one.
#[inline(always)]
fn out_buffer(len: usize, r: u32, wide: bool) -> (usize, usize) {
    if wide {
        (SMEM_HEADER, len.saturating_sub(SMEM_HEADER))
    } else {
        half_buffer(len, (r + 1) % 2)
    }
}

/// Half `h` (0 or 1) of a block's shared buffer of `len` words: its first word
/// and its capacity.
#[inline(always)]
fn half_buffer(len: usize, h: u32) -> (usize, usize) {
    let half = len.saturating_sub(SMEM_HEADER) / 2;
    (SMEM_HEADER + h as usize * half, half)
}

/// Starts loading `x`'s line into the L2 (GPU); nothing on the host.
#[inline(always)]
fn prefetch_l2<T>(x: &T) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a prefetch of a valid reference's address has no effect on memory.
    unsafe {
        core::arch::asm!("prefetch.global.L2 [{}];", in(reg64) x as *const T as u64, options(nostack, readonly))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = x;
}
