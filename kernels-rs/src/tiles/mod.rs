//! The tiled asynchronous traversal: each block owns a contiguous range of
//! vertices (a tile), keeps the tile's states in shared memory, relaxes its
//! own levels with block barriers only, and hands candidates for other tiles
//! over as messages; no block waits for another.
//!
//! Why: on a 1000² grid a BFS has 1,817 levels of about a thousand vertices, and
//! a level-synchronous design pays a grid-wide step per level (the
//! [`crate::resident`] kernel: a chain of dependent L2 round trips, about 5 µs
//! a level). Here a level reads states and rows from shared memory, and a
//! tile's level waits only for its own block.
//!
//! How:
//! * **Tiles.** Block `b` owns `[b·T, (b+1)·T)` (`T = ⌈n / blocks⌉`). Its states
//!   live in shared memory (from `init`) and are copied out at the end. Graphs
//!   whose ids follow space (grids, road networks in file order) keep most edges
//!   inside a tile.
//! * **Levels.** A vertex whose state improved gets its pending bit and a place
//!   in the next level's queue (or, when the queue is full, the next level scans
//!   the bits). A level relaxes the queued vertices whose [`Program::order`] is
//!   within `delta` of the lowest queued one and carries the rest to the next
//!   level, so a tile relaxes near-final states first (BFS: one level; SSSP: a
//!   bucket) while tiles run at their own pace. A pass is two barriers: the
//!   drain, then the level.
//! * **Short levels** (a grid tile's are a few vertices) give each vertex a
//!   group of lanes, up to a warp: one lane takes the vertex, the group
//!   counts its remote edges with shuffles and relaxes its edges side by side
//!   (`level.rs`), so a level's latency is one edge's chain of shared-memory
//!   atomics rather than a row's. H100, 1000² grid from the corner: BFS
//!   7.8 → 7.1 ms, SSSP 10.9 → 8.6 (`docs/results/h100/bursts/`).
//! * **Messages.** An edge into another tile leaves `(target, candidate)` in
//!   the block's outbox. The next pass's drain phase posts the outbox from
//!   warp 0 while the other warps drain the inbox, so sending costs a level no
//!   round trip: each lane counts its messages as outstanding, fences once,
//!   reserves a slot of the owner's ring (one atomic) and stores the message
//!   (one word, `(target + 1) << 32 | candidate`, for 4-byte states; the
//!   candidate in a second ring behind a fence otherwise). The posting loop
//!   is the same for every lane of the warp, so that no lane holds a reserved
//!   slot unwritten behind another lane's wait (the first, per-lane loops hung
//!   on the H100 when rings filled). The owner takes slots in order and
//!   combines the candidate into its shared state. (The
//!   previous design combined every candidate into a global mailbox, kept a
//!   sent bit per vertex and posted at the end of the level: about six
//!   dependent round trips per message on the level's path. H100, 1000² grid
//!   from the corner, `docs/results/h100/rings/`: BFS 15.3 → 7.5 ms, SSSP
//!   16.3 → 10.7 ms.)
//! * **Room.** A ring holds `cap` messages; an owner publishes how far it has
//!   taken (its head) every `cap / 4` messages, and a sender whose slot is a
//!   whole ring ahead of the head waits. While a lane waits, lane 0 takes the
//!   messages already written to its own block's ring (past the pass's range,
//!   without waiting for any) and publishes, so two blocks waiting on each
//!   other's rings both make room: no cycle of waits. A pass's regular range
//!   stops at the published head plus `cap`, so every slot it takes is written
//!   without waiting for this block. A level's remote edges fill half an
//!   outbox; a vertex whose remote edges do not fit waits for the next level
//!   whole (the host keeps rows over [`HALF`] edges off this kernel).
//! * **Termination.** A global count of outstanding tokens: one per block for
//!   its initial work, one per message. A sender counts its messages before
//!   they can be seen; a block retires what it has taken (and its token) only
//!   in a pass that finds nothing pending, so the count reaches zero only when
//!   no work exists.
//!
//! Memory ordering: a marker combines a state then sets the vertex's bit; the
//! taker clears the bit then reads the state. Both bit operations are
//! read-modify-writes of one word, so one of them comes first: if the set, the
//! taker's clear reads it and (with an acquire-release fence on each side)
//! sees the state; if the clear, the marker finds the bit clear and marks anew.
//!
//! The grid must be co-resident: blocks wait for each other's messages (the host
//! launches cooperatively). Ring slots hold `target + 1` in their upper half so
//! that zeroed memory is empty.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::program::Program;
use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::warp::{kernel_warp, KernelWarp, Warp};
use crate::word::StateWord;

mod level;
#[cfg(test)]
mod level_tests;
mod rings;
mod rows;

pub use level::BURST_LEN;
use level::{clear, mark, rank, Dest};

use rings::packed;
use rows::{Rows, Targets};

/// What the tiled kernel asks of the threads running it (the GPU, or the host
/// emulator's OS threads).
pub trait Crew {
    /// The calling thread.
    fn ctx(&self) -> ThreadCtx;
    /// Every thread of the calling block arrives before any leaves.
    fn sync_block(&self);
    /// An acquire-release fence among the block's threads.
    fn fence_block(&self);
    /// An acquire-release fence among all threads of the grid.
    fn fence_device(&self);
    /// Lets other threads run while this one has nothing to do.
    fn idle(&self);
    /// A cycle counter for the phase profile ([`PROFILE`]); 0 where there is none.
    fn clock(&self) -> u64 {
        0
    }
}

/// Control words (`u32`): tokens outstanding (the host sets it to the number of
/// blocks).
pub const OUTSTANDING: usize = 0;
/// Statistics the kernel leaves: vertices relaxed in all.
pub const POPS: usize = 32;
/// Messages sent between tiles.
pub const MESSAGES: usize = 33;
/// Levels of the busiest tile.
pub const ROUNDS: usize = 34;
/// Tiles that copied their rows as they are, and narrow ([`ROWS_NARROW`]);
/// the rest read their rows from the graph.
pub const ROWS_WIDE: usize = 35;
/// Tiles that copied their rows narrow (ids within the tile, halved weights).
pub const ROWS_NARROW: usize = 36;
/// Thread 0's cycles (in units of 64, summed over blocks) per phase: the
/// drain and post phase of passes with a level, the level, and whole passes
/// that found nothing pending ([`TIMED`] words); then [`IDLE_PASSES`],
/// [`ALL_ROUNDS`] and [`WAITS`].
pub const PROFILE: usize = 40;
/// Phases timed in [`PROFILE`].
pub const TIMED: usize = 3;
/// Passes that found nothing pending, summed over blocks.
pub const IDLE_PASSES: usize = PROFILE + TIMED;
/// Levels, summed over blocks ([`ROUNDS`] is the busiest tile's).
pub const ALL_ROUNDS: usize = PROFILE + TIMED + 1;
/// Messages whose sender waited for room in the owner's ring.
pub const WAITS: usize = PROFILE + TIMED + 2;
/// Levels that warp 0 ran alone (the `burst` field of [`Tiles`]), summed
/// over blocks.
pub const BURST_LEVELS: usize = PROFILE + TIMED + 3;
/// Size of the control block.
pub const CTL_WORDS: usize = 64;

/// Threads that post a pass's messages: warp 0 on the GPU. The emulator's
/// warps are single threads; it posts from the first half of the block (at
/// most a warp), so that its posters contend as the GPU's lanes do.
#[inline(always)]
fn posters(block: u32) -> u32 {
    if <KernelWarp as Warp>::SIZE > 1 {
        <KernelWarp as Warp>::SIZE.min(block)
    } else {
        (block / 2).clamp(1, 32)
    }
}

/// Words of the shared header (see the names below).
pub const SMEM_HEADER: usize = 24;
/// Where the pass's regular drain ends (the closer sets it for the next pass).
const END: usize = 0;
/// The header word where a narrow copy's threads report a weight whose upper
/// half is not zero (free again once the copy is made).
const MISFIT: usize = 1;
const DONE: usize = 2;
/// Where the pass's regular drain starts: every slot below it is taken.
const DRAINED: usize = 3;
/// Where the next message taken while waiting for room is (past [`END`]).
const SELF: usize = 4;
/// Messages taken while waiting, this pass.
const TAKEN: usize = 5;
/// Drainers done with the pass's regular range.
const FINISHED: usize = 6;
/// The head this block last published.
const PUBLISHED: usize = 8;
/// Held by the one poster taking arrived messages.
const LOCK: usize = 9;
/// Queue lengths, a ring of three by level: the drain before level `k` and
/// level `k − 1` append to `k % 3`, level `k` reads it, and the closer clears
/// `(k + 2) % 3` once level `k` begins.
const CNT: usize = 10;
/// The lowest order queued for each of the three (`u32::MAX`: none).
const MIN: usize = 13;
/// Whether the queue overflowed (the level then scans the pending bits).
const OVF: usize = 16;
/// Outbox lengths by level parity (may exceed [`HALF`]: a level's vertices
/// whose remote edges did not fit wait for the next level).
const OLEN: usize = 19;
/// Levels the last burst ran (warp 0 writes it, the block reads it after the
/// level's barrier).
const BURST: usize = 21;
/// The pass's level queue length and overflow flag as the closer found them
/// before the level: what the block decides on when bursts are on (a burst's
/// warp clears the counters themselves while the other warps may not have
/// read them yet).
const LEN_NOW: usize = 22;
const OVF_NOW: usize = 23;

/// An outbox entry that carries nothing (a reserved slot left unused).
const EMPTY: u32 = u32::MAX;

/// Entries of a block's outbox, in two halves that levels fill in turn (one
/// level fills a half while the next pass posts the other).
pub const OUTBOX: usize = 1024;
/// Entries of each half of the outbox: the most remote edges a tile vertex may
/// have (the host keeps graphs with longer rows off this kernel).
pub const HALF: usize = OUTBOX / 2;

/// Entries of each of a tile's two level queues.
pub const fn queue_len(tile: u64) -> u64 {
    tile.div_ceil(2)
}

/// Bytes of shared memory a block needs for tiles of `tile` vertices of
/// `state_bytes`-byte states in a grid of `blocks`: the header, the states
/// (rounded up to 8 bytes), the pending bits, the two queues, the outbox and
/// a cached head per block.
pub const fn smem_bytes(tile: u64, state_bytes: u64, blocks: u64) -> u64 {
    let states = (tile * state_bytes).div_ceil(8) * 8;
    let lists = (tile.div_ceil(32) * 4 + 2 * queue_len(tile) * 4).div_ceil(8) * 8;
    let outbox = (OUTBOX as u64 * state_bytes).div_ceil(8) * 8 + OUTBOX as u64 * 4;
    let heads = (blocks * 4).div_ceil(8) * 8;
    SMEM_HEADER as u64 * 4 + states + lists + outbox + heads
}

/// Candidates for other tiles that a level leaves for the next pass: their
/// targets and candidates, [`OUTBOX`] of each.
pub struct Outbox<'a, P: Program> {
    pub keys: &'a [AtomicU32],
    pub cands: &'a [<P::State as StateWord>::Atomic],
}

/// A tile's shared memory, split.
pub struct TileSmem<'a, P: Program> {
    pub header: &'a [AtomicU32],
    pub states: &'a [<P::State as StateWord>::Atomic],
    pub pending: &'a [AtomicU32],
    /// The two level queues, [`queue_len`] each.
    pub queues: &'a [AtomicU32],
    pub out: Outbox<'a, P>,
    /// The last head read of each block's ring.
    pub heads: &'a [AtomicU32],
    /// What is left (8-byte aligned): the tile's rows when they fit.
    pub spare: *mut u64,
    pub spare_words: usize,
}

/// Everything the tiled kernel reads and writes.
pub struct Tiles<'a, P: Program> {
    pub graph: CsrView<'a>,
    /// One weight per edge (zero-sized slice for unweighted programs).
    pub weights: &'a [P::Weight],
    /// The states, written at the end.
    pub state: &'a [<P::State as StateWord>::Atomic],
    /// The rings: block `b`'s is `msgs[b·cap .. (b+1)·cap]`.
    pub msgs: &'a [AtomicU64],
    /// The candidates of states wider than 4 bytes, beside `msgs` (empty
    /// otherwise: the candidate travels in the message word).
    pub cands: &'a [<P::State as StateWord>::Atomic],
    /// Slots reserved per ring (one word per block).
    pub tails: &'a [AtomicU32],
    /// Slots taken per ring, as its owner last published (one word per block).
    pub heads: &'a [AtomicU32],
    /// [`CTL_WORDS`] control words.
    pub ctl: &'a [AtomicU32],
    /// Vertices per tile.
    pub tile: u32,
    /// Orders relaxed per level: those below the lowest queued one plus this.
    pub delta: u32,
    /// Messages per ring.
    pub cap: u32,
    /// The run's source (`init`'s argument), the one vertex pending first.
    pub source: u32,
    /// Every vertex pending first instead (programs without a source).
    pub every: bool,
    /// The most levels warp 0 runs alone in a row while a tile's queue holds
    /// at most [`BURST_LEN`] vertices; 0: never (every level a pass).
    ///
    /// Why: on a grid a tile's level is a handful of vertices, and a pass (the
    /// drain and post, thread 0's bookkeeping, three block barriers) cost
    /// about 6,800 cycles of which the level itself is a small part (H100,
    /// 1000², `docs/results/h100/rings/`). One warp runs such a level with
    /// warp barriers only; the messages it leaves wait for the burst's end.
    pub burst: u32,
}

/// The calling block's tile and its shared memory.
struct Mine<'a, 's, P: Program> {
    block: u32,
    lo: u32,
    len: u32,
    smem: &'s TileSmem<'a, P>,
    rows: Option<Rows<P>>,
    /// Entries of each level queue.
    q: u32,
}

impl<P: Program> Tiles<'_, P> {
    /// The whole traversal, as one thread of the grid.
    #[inline(always)]
    pub fn run(&self, crew: &impl Crew, smem: &TileSmem<'_, P>) {
        let t = crew.ctx();
        let n = self.state.len() as u64;
        let lo = (u64::from(t.block_idx) * u64::from(self.tile)).min(n) as u32;
        let hi = (u64::from(lo) + u64::from(self.tile)).min(n) as u32;
        let (tid, step) = (t.thread_idx, t.block_dim);
        let me = Mine {
            block: t.block_idx,
            lo,
            len: hi - lo,
            smem,
            rows: self.copy_rows(crew, smem, lo, hi),
            q: (smem.queues.len() / 2) as u32,
        };
        let h = smem.header;
        let words = me.len.div_ceil(32);
        let mut i = tid;
        while i < me.len {
            P::State::store(&smem.states[i as usize], P::init(lo + i, self.source));
            i += step;
        }
        let own_source = (lo..hi).contains(&self.source) && !self.every;
        let mut w = tid;
        while w < words {
            let bits = if self.every {
                let left = me.len - w * 32;
                if left >= 32 {
                    u32::MAX
                } else {
                    (1u32 << left) - 1
                }
            } else if own_source && (self.source - lo) / 32 == w {
                1 << ((self.source - lo) % 32)
            } else {
                0
            };
            smem.pending[w as usize].store(bits, Relaxed);
            w += step;
        }
        let mut b = tid;
        while b < smem.heads.len() as u32 {
            smem.heads[b as usize].store(0, Relaxed);
            b += step;
        }
        if tid == 0 {
            for x in &h[..SMEM_HEADER] {
                x.store(0, Relaxed);
            }
            for c in 0..3 {
                h[MIN + c].store(u32::MAX, Relaxed);
            }
            if own_source {
                smem.queues[0].store(self.source - lo, Relaxed);
                h[CNT].store(1, Relaxed);
                h[MIN].store(rank::<P>(P::init(self.source, self.source)), Relaxed);
            } else if self.every && me.len > 0 {
                // Every vertex pending: the first level scans the bits.
                h[OVF].store(1, Relaxed);
                h[MIN].store(0, Relaxed);
            }
        }
        crew.sync_block();

        // Warp 0 posts; the other threads drain (all of them, in a block no
        // larger than a warp).
        let posters = posters(step);
        let split = step > posters;
        let poster = tid < posters;
        let drainer = !split || !poster;
        let (d_first, d_step) = if split {
            (tid.wrapping_sub(posters), step - posters)
        } else {
            (tid, step)
        };
        let drainers = if split { step - posters } else { step };

        let (mut pops, mut messages, mut waits) = (0u32, 0u32, 0u32);
        // The thread that closes each pass (see below): the block's last, a
        // drainer, which short levels rarely give a vertex.
        let closer = step - 1;
        // The block's token, then the messages taken and not yet retired
        // (the closer's).
        let mut held = u32::from(tid == closer);
        let mut next_tail = 0u32;
        let mut level = 0usize;
        // Passes with a level: the outbox half a level fills is `turn % 2`
        // (a burst's levels all fill one half).
        let mut turn = 0usize;
        let mut bursts = 0u32;
        let mut idle_passes = 0u32;
        let mut prof = [0u64; TIMED];
        let mut clock = crew.clock();
        let mut lap = |prof: &mut [u64; TIMED], i: usize| {
            let now = crew.clock();
            prof[i] += now.wrapping_sub(clock);
            clock = now;
        };
        loop {
            // Phase A: post the last level's outbox (warp 0) and take this
            // pass's range of the inbox (the rest); the closer reads the next
            // tail meanwhile.
            let here = Dest::of(level);
            if tid == closer {
                next_tail = self.tails[me.block as usize].load(Relaxed);
            }
            // A thread that also posts drains first: a poster waiting for room
            // takes its own ring's messages only once the pass's range is done.
            if drainer {
                let (from, end) = (h[DRAINED].load(Relaxed), h[END].load(Relaxed));
                let count = end.wrapping_sub(from);
                let mut i = d_first;
                while i < count {
                    self.take(crew, &me, from.wrapping_add(i), here, true);
                    i += d_step;
                }
                h[FINISHED].fetch_add(1, Relaxed);
            }
            if poster {
                let half = (turn + 1) % 2;
                let (sent, waited) = self.post(crew, &me, half, tid, posters, here, drainers);
                messages += sent;
                waits += waited;
            }
            // Every lane has posted and every drainer is done; then the
            // closer sets the next pass's range. The words it writes are read
            // in the next pass only (after the level's barrier), and the
            // counters it clears are not this level's, so the level starts
            // meanwhile; with bursts on, it waits for the closer's note of the
            // queue (a burst clears the counters themselves).
            crew.sync_block();
            let (mut len, mut ovf) = (
                h[CNT + here.ctr].load(Relaxed),
                h[OVF + here.ctr].load(Relaxed),
            );
            if tid == closer {
                h[OLEN + (turn + 1) % 2].store(0, Relaxed);
                held += self.close_pass(crew, &me, next_tail, level);
            }
            if self.burst > 0 {
                crew.sync_block();
                (len, ovf) = (h[LEN_NOW].load(Relaxed), h[OVF_NOW].load(Relaxed));
            }
            if len == 0 && ovf == 0 {
                idle_passes += 1;
                // Nothing pending: retire what was taken, and stop once no
                // block holds a token and no message is in flight.
                if tid == closer {
                    h[MIN + here.ctr].store(u32::MAX, Relaxed);
                    if held > 0 {
                        crew.fence_device();
                        self.ctl[OUTSTANDING].fetch_sub(held, Relaxed);
                        held = 0;
                    }
                    if self.ctl[OUTSTANDING].load(Relaxed) == 0 {
                        h[DONE].store(1, Relaxed);
                    } else {
                        crew.idle();
                    }
                }
                crew.sync_block();
                lap(&mut prof, 2);
                if h[DONE].load(Relaxed) != 0 {
                    break;
                }
                continue;
            }
            lap(&mut prof, 0);
            // Phase B: the level.
            let next = Dest::of(level + 1);
            let half = turn % 2;
            turn += 1;
            let burst = self.burst > 0 && ovf == 0 && len <= BURST_LEN;
            // Not read in a burst: its warp may clear the counter meanwhile.
            let limit = || {
                h[MIN + here.ctr]
                    .load(Relaxed)
                    .saturating_add(self.delta.max(1))
            };
            if burst {
                if tid < <KernelWarp as Warp>::SIZE {
                    let (relaxed, levels) = self.burst(crew, &me, level, len, half);
                    pops += relaxed;
                    if tid == 0 {
                        h[BURST].store(levels, Relaxed);
                    }
                }
            } else if ovf != 0 {
                let limit = limit();
                let mut w = tid;
                while w < words {
                    let mut bits = smem.pending[w as usize].load(Relaxed);
                    while bits != 0 {
                        let u = w * 32 + bits.trailing_zeros();
                        bits &= bits - 1;
                        pops += self.process(crew, &me, u, limit, next, half);
                    }
                    w += step;
                }
            } else if len <= step && (2 * len <= step || <KernelWarp as Warp>::SIZE == 1) {
                // A short level: a group of lanes per vertex.
                let base = here.queue * me.q as usize;
                let warp = kernel_warp(t);
                pops += self.relax_groups(crew, warp, &me, (base, len), limit(), next, half, step);
            } else {
                let limit = limit();
                let base = here.queue * me.q as usize;
                let mut i = tid;
                while i < len.min(me.q) {
                    let u = smem.queues[base + i as usize].load(Relaxed);
                    pops += self.process(crew, &me, u, limit, next, half);
                    i += step;
                }
            }
            crew.sync_block();
            lap(&mut prof, 1);
            if burst {
                let levels = h[BURST].load(Relaxed);
                bursts += levels;
                level += levels as usize;
            } else {
                level += 1;
            }
        }
        let mut i = tid;
        while i < me.len {
            P::State::store(
                &self.state[(lo + i) as usize],
                P::State::load(&smem.states[i as usize]),
            );
            i += step;
        }
        if pops > 0 {
            self.ctl[POPS].fetch_add(pops, Relaxed);
        }
        if messages > 0 {
            self.ctl[MESSAGES].fetch_add(messages, Relaxed);
        }
        if waits > 0 {
            self.ctl[WAITS].fetch_add(waits, Relaxed);
        }
        if tid == 0 {
            self.ctl[ROUNDS].fetch_max(level as u32, Relaxed);
            match me.rows.as_ref().map(|r| &r.targets) {
                Some(Targets::Ids(_)) => self.ctl[ROWS_WIDE].fetch_add(1, Relaxed),
                Some(Targets::Local(_)) => self.ctl[ROWS_NARROW].fetch_add(1, Relaxed),
                None => 0,
            };
            for (i, &p) in prof.iter().enumerate() {
                self.ctl[PROFILE + i].fetch_add((p >> 6) as u32, Relaxed);
            }
            self.ctl[IDLE_PASSES].fetch_add(idle_passes, Relaxed);
            self.ctl[ALL_ROUNDS].fetch_add(level as u32, Relaxed);
            self.ctl[BURST_LEVELS].fetch_add(bursts, Relaxed);
        }
    }

    /// The closer, once every lane has posted and every drainer is done: moves
    /// the drained mark past what this pass took, publishes the head when it
    /// has moved a quarter ring, sets the next pass's range, clears the
    /// counters level `level + 2` will use and notes level `level`'s queue for the
    /// block ([`LEN_NOW`]). Returns the messages taken.
    #[inline(always)]
    fn close_pass(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, tail: u32, level: usize) -> u32 {
        let h = me.smem.header;
        let (from, end, taken) = (
            h[DRAINED].load(Relaxed),
            h[END].load(Relaxed),
            h[TAKEN].load(Relaxed),
        );
        let drained = h[SELF].load(Relaxed);
        let mut published = h[PUBLISHED].load(Relaxed);
        if drained.wrapping_sub(published) >= (self.cap / 4).max(1) {
            // The drainers' swaps happened before this thread saw their
            // counts; the fence orders them before the head.
            crew.fence_device();
            self.heads[me.block as usize].store(drained, Relaxed);
            published = drained;
            h[PUBLISHED].store(published, Relaxed);
        }
        // The tail read at the pass's start, unless messages taken while
        // waiting already went past it.
        let tail = if tail.wrapping_sub(drained) as i32 > 0 {
            tail
        } else {
            drained
        };
        let room = published.wrapping_add(self.cap).wrapping_sub(drained);
        let end_next = drained.wrapping_add(tail.wrapping_sub(drained).min(room));
        h[DRAINED].store(drained, Relaxed);
        h[END].store(end_next, Relaxed);
        h[SELF].store(end_next, Relaxed);
        h[TAKEN].store(0, Relaxed);
        h[FINISHED].store(0, Relaxed);
        clear(h, Dest::of(level + 2).ctr);
        let now = Dest::of(level).ctr;
        h[LEN_NOW].store(h[CNT + now].load(Relaxed), Relaxed);
        h[OVF_NOW].store(h[OVF + now].load(Relaxed), Relaxed);
        end.wrapping_sub(from).wrapping_add(taken)
    }
}

/// The GPU's [`Crew`]: the resident kernel's team, with its block barrier,
/// plus scoped fences and a short sleep.
#[cfg(target_arch = "nvptx64")]
impl Crew for crate::resident::PtxTeam {
    #[inline(always)]
    fn ctx(&self) -> ThreadCtx {
        self.0
    }
    #[inline(always)]
    fn sync_block(&self) {
        // Every thread of the block reaches every block barrier of the tiled
        // kernel: the round loop's branches and its exit depend only on shared
        // words read after a barrier, the same in every thread.
        crate::resident::Team::sync_block(self)
    }
    #[inline(always)]
    fn fence_block(&self) {
        // SAFETY: a fence has no operands and no other effect.
        unsafe { core::arch::asm!("fence.acq_rel.cta;", options(nostack)) };
    }
    #[inline(always)]
    fn fence_device(&self) {
        // SAFETY: as above.
        unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) };
    }
    #[inline(always)]
    fn idle(&self) {
        // SAFETY: `nanosleep` only delays this thread (sm_70+).
        unsafe { core::arch::asm!("nanosleep.u32 64;", options(nostack)) };
    }
    #[inline(always)]
    fn clock(&self) -> u64 {
        let c: u64;
        // SAFETY: reads the multiprocessor's cycle counter into a register.
        unsafe {
            core::arch::asm!("mov.u64 {c}, %clock64;", c = out(reg64) c, options(nostack, nomem))
        };
        c
    }
}

/// Kernel entry over raw pointers (the host emulator calls it too).
///
/// # Safety
/// `offsets` (`n + 1`), `targets`/`weights` (`m`), `state` (`n`), `msgs`
/// (`blocks · cap`, zeroed), `cands` (`blocks · cap` for states wider than 4
/// bytes, else unused), `tails` and `heads` (one per block, zeroed), `ctl`
/// ([`CTL_WORDS`], [`OUTSTANDING`] = blocks) valid for the call; `smem` 8-byte
/// aligned, `smem_words` words, at least [`smem_bytes`]`(tile,
/// size_of::<State>(), blocks)` bytes, and private to the calling block;
/// `tile · blocks ≥ n`, `cap ≥ 1`; the grid co-resident.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn tiles<P: Program>(
    crew: &impl Crew,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    msgs: *mut u64,
    cands: *mut P::State,
    tails: *mut u32,
    heads: *mut u32,
    ctl: *mut u32,
    tile: u32,
    delta: u32,
    cap: u32,
    source: u32,
    every: u32,
    burst: u32,
    smem: *mut u32,
    smem_words: u32,
) {
    use crate::word::slice;
    let n = n as usize;
    let blocks = crew.ctx().grid_dim as usize;
    let t = tile as usize;
    let q = queue_len(tile as u64) as usize;
    let state_bytes = core::mem::size_of::<P::State>();
    let state_words = (t * state_bytes).div_ceil(8) * 2;
    // Header, states, pending bits, queues, outbox candidates and targets,
    // cached heads; each state region 8-byte aligned, and the rows after them.
    let bits_at = SMEM_HEADER + state_words;
    let queues_at = bits_at + t.div_ceil(32);
    let cands_at = (queues_at + 2 * q).div_ceil(2) * 2;
    let keys_at = cands_at + (OUTBOX * state_bytes).div_ceil(8) * 2;
    let heads_at = keys_at + OUTBOX;
    let used = (heads_at + blocks).div_ceil(2) * 2;
    let ring = blocks * cap as usize;
    // SAFETY: lengths and validity are the caller's contract; the shared regions
    // do not overlap (header, states, bits, queues, outbox, heads in that order).
    unsafe {
        let s = TileSmem::<P> {
            header: u32::atomics_from_raw(smem, SMEM_HEADER),
            states: P::State::atomics_from_raw(smem.add(SMEM_HEADER).cast(), t),
            pending: u32::atomics_from_raw(smem.add(bits_at), t.div_ceil(32)),
            queues: u32::atomics_from_raw(smem.add(queues_at), 2 * q),
            out: Outbox {
                keys: u32::atomics_from_raw(smem.add(keys_at), OUTBOX),
                cands: P::State::atomics_from_raw(smem.add(cands_at).cast(), OUTBOX),
            },
            heads: u32::atomics_from_raw(smem.add(heads_at), blocks),
            spare: smem.add(used).cast(),
            spare_words: (smem_words as usize).saturating_sub(used) / 2,
        };
        let k = Tiles::<P> {
            graph: CsrView {
                offsets: slice(offsets, n + 1),
                targets: slice(targets, m as usize),
            },
            weights: slice(weights, m as usize),
            state: P::State::atomics_from_raw(state, n),
            msgs: u64::atomics_from_raw(msgs, ring),
            cands: if packed::<P::State>() {
                &[]
            } else {
                P::State::atomics_from_raw(cands, ring)
            },
            tails: u32::atomics_from_raw(tails, blocks),
            heads: u32::atomics_from_raw(heads, blocks),
            ctl: u32::atomics_from_raw(ctl, CTL_WORDS),
            tile,
            delta,
            cap: cap.max(1),
            source,
            every: every != 0,
            burst,
        };
        k.run(crew, &s);
    }
}

/// The tiled kernel of program `$prog`, named `$name`: parameters `(n, m,
/// offsets, targets, weights, state, msgs, cands, tails, heads, ctl, tile,
/// delta, cap, source, every, burst)`; dynamic shared memory of [`smem_bytes`] for
/// the tile.
#[macro_export]
macro_rules! tiles_kernel {
    ($prog:ty => $name:ident) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            msgs: *mut u64,
            cands: *mut <$prog as $crate::Program>::State,
            tails: *mut u32,
            heads: *mut u32,
            ctl: *mut u32,
            tile: u32,
            delta: u32,
            cap: u32,
            source: u32,
            every: u32,
            burst: u32,
        ) {
            let (smem, smem_words) = $crate::resident::block_smem();
            // SAFETY: the host launches cooperatively with buffers matching the
            // documented contract and the tile's shared memory.
            unsafe {
                $crate::tiles::tiles::<$prog>(
                    &$crate::resident::PtxTeam($crate::ThreadCtx::current()),
                    n,
                    m,
                    offsets,
                    targets,
                    weights,
                    state,
                    msgs,
                    cands,
                    tails,
                    heads,
                    ctl,
                    tile,
                    delta,
                    cap,
                    source,
                    every,
                    burst,
                    smem,
                    smem_words,
                )
            }
        }
    };
}
