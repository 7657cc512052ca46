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
//!   bucket) while tiles run at their own pace.
//! * **Messenger and workers.** Warp 0 (the messenger) posts and takes
//!   messages without pause; the other warps (the workers) run levels, each
//!   between two barriers of their own (`bar.sync 1`). Between levels the
//!   workers' last thread (the leader) hands the level's outbox part to the
//!   messenger and moves the messenger's marks on to the level after the one
//!   it opens (the header word `WORD`), so a message that arrives during
//!   level `k` is relaxed in level `k + 1` and no level waits for the rings.
//!   The outbox has four parts, so the messenger may fall three levels
//!   behind before a level waits for it. (Before, each level
//!   followed a drain-and-post phase of the whole block, which on the grid
//!   cost more than the level: about 3,400 cycles against 2,800.) H100, grid
//!   1000² from the corner: BFS 6.7 → 5.7 ms, SSSP 8.3 → 6.2; 2000×1000 BFS
//!   11.4 → 8.7, SSSP 14.8 → 11.1 (`74e218a:docs/results/h100/messenger/`).
//! * **Short levels** (a grid tile's are a few vertices) give each vertex a
//!   group of lanes, up to a warp: one lane takes the vertex, the group
//!   counts its remote edges with shuffles and relaxes its edges side by side
//!   (`level.rs`), so a level's latency is one edge's chain of shared-memory
//!   atomics rather than a row's. H100, 1000² grid from the corner: BFS
//!   7.8 → 7.1 ms, SSSP 10.9 → 8.6 (`74e218a:docs/results/h100/bursts/`).
//! * **Chains.** A group that improves an in-tile neighbour within the
//!   level's bucket may keep it (pending, in no queue) and relax it in the
//!   same level with the whole group, up to [`CHAIN_HOPS`] vertices after the
//!   one it took; a kept vertex it does not relax is queued after all. Where a
//!   bucket spans many hops (widest paths) a chain does in one level what took
//!   a level a hop: H100, 1000² grid, widest paths 1.1–2.8× faster with chains
//!   of 2; SSSP's buckets are an edge or two deep and it runs slower with
//!   them, so the host turns them off there; CC's labels neither gain nor
//!   lose (`74e218a:docs/results/h100/chains/`).
//! * **Messages.** An edge into another tile leaves `(target, candidate)` in
//!   the block's outbox. The messenger posts the part a level filled while
//!   the next levels run, so sending costs a level no round trip: each lane
//!   counts its messages as outstanding, fences once,
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
//!   from the corner, `74e218a:docs/results/h100/rings/`: BFS 15.3 → 7.5 ms, SSSP
//!   16.3 → 10.7 ms.)
//! * **Room.** A ring holds `cap` messages; an owner publishes how far it has
//!   taken (its head) every `cap / 4` messages, and a sender whose slot is a
//!   whole ring ahead of the head waits. While a lane waits, lane 0 takes the
//!   messages already written to its own block's ring (in order, without
//!   waiting for any) and publishes, so two blocks waiting on each other's
//!   rings both make room: no cycle of waits. Otherwise the messenger takes
//!   up to the published head plus `cap`, so every slot it waits for is
//!   written without waiting for this block. A level's remote edges fill a part of the
//!   outbox; a vertex whose remote edges do not fit waits for the next level
//!   whole (the host keeps rows over [`PART`] edges off this kernel).
//! * **Termination.** A global count of outstanding tokens: one per block for
//!   its initial work, one per message. A sender counts its messages before
//!   they can be seen; a block retires what it has taken (and its token) only
//!   when it opens a level that finds nothing pending, after the messenger has
//!   posted every part handed to it, so the count reaches zero only when no
//!   work exists.
//!
//! Memory ordering: a marker combines a state then sets the vertex's bit; the
//! taker clears the bit then reads the state. Both bit operations are
//! read-modify-writes of one word, so one of them comes first: if the set, the
//! taker's clear reads it and (with an acquire-release fence on each side)
//! sees the state; if the clear, the marker finds the bit clear and marks anew.
//! Every store that another thread of the block may load with no barrier
//! between is a [`StateWord::put`], an exchange, so that compute-sanitizer's
//! racecheck (blind to fences) reports only what a barrier should order.
//! (Words the others only update with read-modify-writes, like the counters
//! a level clears, need none: `74e218a:docs/results/h100/racefree/`.)
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

mod launch;
mod level;
#[cfg(test)]
mod level_tests;
mod rings;
mod rows;

pub use launch::tiles;
use level::{clear, mark, rank, Dest};
use rows::{Rows, Targets};

/// What the tiled kernel asks of the threads running it (the GPU, or the host
/// emulator's OS threads).
pub trait Crew {
    /// The calling thread.
    fn ctx(&self) -> ThreadCtx;
    /// Every thread of the calling block arrives before any leaves.
    fn sync_block(&self);
    /// Every one of the block's last `threads` threads (the workers: whole
    /// warps, all but the messenger's) arrives before any leaves.
    fn sync_workers(&self, threads: u32);
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
/// Vertices a thread may relax in one level after the one it took, each an
/// in-tile neighbour the one before improved within the level's bucket
/// (`level.rs`, `Tiles::follow`); 0 turns these chains off. The host sets it
/// (read once, when the kernel starts).
pub const CHAIN_HOPS: usize = 1;
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
/// The workers' leader's cycles (in units of 64, summed over blocks) per
/// phase: opening a level that runs (its waits for the messenger included),
/// running it, and levels found empty ([`TIMED`] words); then [`IDLE_LEVELS`],
/// [`ALL_ROUNDS`] and [`WAITS`].
pub const PROFILE: usize = 40;
/// Phases timed in [`PROFILE`].
pub const TIMED: usize = 3;
/// Levels found empty, summed over blocks.
pub const IDLE_LEVELS: usize = PROFILE + TIMED;
/// Levels, summed over blocks ([`ROUNDS`] is the busiest tile's).
pub const ALL_ROUNDS: usize = PROFILE + TIMED + 1;
/// Messages whose sender waited for room in the owner's ring.
pub const WAITS: usize = PROFILE + TIMED + 2;
/// Of the leader's opening cycles ([`PROFILE`]'s first word, same unit),
/// those spent waiting for the messenger: its takes in flight and its
/// posting of the part the next level fills.
pub const MESSENGER_WAIT: usize = PROFILE + TIMED + 3;
/// Size of the control block.
pub const CTL_WORDS: usize = 64;

/// Threads of the messenger, which posts the outbox and takes the inbox while
/// the rest of the block (the workers) runs levels: warp 0 on the GPU. The
/// emulator's warps are single threads; its messenger is the first half of
/// the block (at most 32 threads, each a warp of its own), so that its
/// posters contend as the GPU's lanes do. The block needs at least one
/// worker besides: two threads in the emulator, two warps on the GPU.
#[inline(always)]
pub fn messenger_threads(block: u32) -> u32 {
    if <KernelWarp as Warp>::SIZE > 1 {
        <KernelWarp as Warp>::SIZE.min(block)
    } else {
        (block / 2).clamp(1, 32)
    }
}

/// Words of the shared header (see the names below).
pub const SMEM_HEADER: usize = 30;
/// The workers' current level (mod 6, in the upper half) and the messenger's
/// takes in flight (the lower half): a take adds one and marks into the
/// level after the one it reads, and the leader, having moved the level on,
/// waits for the count to reach zero before it reads the level's queue. One
/// word, so that every take is either counted before the move or sees it.
const WORD: usize = 0;
/// The header word where a narrow copy's threads report a weight whose upper
/// half is not zero (free again once the copy is made).
const MISFIT: usize = 1;
const DONE: usize = 2;
/// The block's ring head: every slot below it is taken (the messenger's).
const DRAINED: usize = 3;
/// Outbox parts the workers have handed to the messenger (one per level run).
const READY: usize = 4;
/// Parts posted, counted once per messenger warp.
const POSTED: usize = 5;
/// Held by the one messenger warp taking arrived messages.
const LOCK: usize = 6;
/// The head this block last published.
const PUBLISHED: usize = 7;
/// Messages taken, by the counters of the level they marked into (retired
/// once that level is found empty).
const TAKEN: usize = 8;
/// Queue lengths, a ring of three by level: level `k − 1` and the takes
/// made meanwhile append to `k % 3`, level `k` reads it, and the leader
/// clears `(k + 2) % 3` before level `k + 1` opens.
const CNT: usize = 11;
/// The lowest order queued for each of the three (`u32::MAX`: none).
const MIN: usize = 14;
/// Whether the queue overflowed (the level then scans the pending bits).
const OVF: usize = 17;
/// Outbox lengths, one per part (may exceed [`PART`]: a level's vertices
/// whose remote edges did not fit wait for the next level).
const OLEN: usize = 20;
/// The leader's decision for the workers, by level parity (a worker may
/// still read one level's while the leader writes the next one's): the
/// level's queue length and overflow flag (both zero: nothing pending), and
/// whether the run is done.
const LEN_NOW: usize = OLEN + PARTS;
const OVF_NOW: usize = LEN_NOW + 2;
const DONE_NOW: usize = OVF_NOW + 2;

/// An outbox entry that carries nothing (a reserved slot left unused).
const EMPTY: u32 = u32::MAX;

/// Entries of a block's outbox, in [`PARTS`] parts that levels fill in turn
/// while the messenger posts the ones before.
pub const OUTBOX: usize = 1024;
/// Parts of the outbox. Why four: with two, a level often waited for the
/// messenger to finish posting the part it was to fill (posting takes a
/// count, a device fence and an atomic per message, about as long as a
/// level): H100, 1000² grid, 869 of a level's 4,875 cycles for BFS
/// (`74e218a:docs/results/h100/messenger/`). The outbox cannot grow instead: the
/// grid's tiles then no longer fit their rows in shared memory.
pub const PARTS: usize = 4;
/// Entries of each part: the most remote edges a tile vertex may have (the
/// host keeps graphs with longer rows off this kernel).
pub const PART: usize = OUTBOX / PARTS;

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

/// Candidates for other tiles that a level leaves for the messenger: their
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
    /// [`CHAIN_HOPS`], as the host set it.
    pub chain: u32,
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

/// What a worker leaves for the run's statistics.
#[derive(Default)]
struct Worked {
    pops: u32,
    /// Whether this worker led: the rest is the leader's.
    leader: bool,
    /// Levels run and levels found empty.
    levels: u32,
    idle: u32,
    /// The leader's cycles per phase ([`PROFILE`]), and waiting for the
    /// messenger ([`MESSENGER_WAIT`]).
    prof: [u64; TIMED],
    waited: u64,
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

        let messenger = messenger_threads(step);
        let (mut messages, mut waits) = (0u32, 0u32);
        let mut worked = Worked::default();
        if tid < messenger {
            (messages, waits) = self.messenger(crew, &me, tid, messenger);
        } else {
            let warps = messenger / <KernelWarp as Warp>::SIZE;
            worked = self.work(crew, &me, (tid - messenger, step - messenger), warps);
        }
        // The messenger leaves once the workers' leader has found the run
        // done; the tile's states are final.
        crew.sync_block();
        let mut i = tid;
        while i < me.len {
            P::State::store(
                &self.state[(lo + i) as usize],
                P::State::load(&smem.states[i as usize]),
            );
            i += step;
        }
        if worked.pops > 0 {
            self.ctl[POPS].fetch_add(worked.pops, Relaxed);
        }
        if messages > 0 {
            self.ctl[MESSAGES].fetch_add(messages, Relaxed);
        }
        if waits > 0 {
            self.ctl[WAITS].fetch_add(waits, Relaxed);
        }
        if worked.leader {
            self.ctl[ROUNDS].fetch_max(worked.levels, Relaxed);
            match me.rows.as_ref().map(|r| &r.targets) {
                Some(Targets::Ids(_)) => self.ctl[ROWS_WIDE].fetch_add(1, Relaxed),
                Some(Targets::Local(_)) => self.ctl[ROWS_NARROW].fetch_add(1, Relaxed),
                None => 0,
            };
            for (i, &p) in worked.prof.iter().enumerate() {
                self.ctl[PROFILE + i].fetch_add((p >> 6) as u32, Relaxed);
            }
            self.ctl[IDLE_LEVELS].fetch_add(worked.idle, Relaxed);
            self.ctl[ALL_ROUNDS].fetch_add(worked.levels, Relaxed);
            self.ctl[MESSENGER_WAIT].fetch_add((worked.waited >> 6) as u32, Relaxed);
        }
    }

    /// The workers: threads `wid` of `threads` (the block's last ones, whole
    /// warps) run the tile's levels, each between two workers' barriers; the
    /// last of them, the leader (a thread that short levels rarely give a
    /// vertex), opens each level ([`Self::open_level`]).
    /// The messenger has `warps` warps.
    #[inline(always)]
    fn work(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        (wid, threads): (u32, u32),
        warps: u32,
    ) -> Worked {
        let h = me.smem.header;
        let smem = me.smem;
        let words = me.len.div_ceil(32);
        let leader = wid + 1 == threads;
        // The block's token, then the messages taken and not yet retired.
        let mut held = u32::from(leader);
        let mut done = Worked {
            leader,
            ..Worked::default()
        };
        // Levels opened (empty ones too: the messenger's marks move on with
        // them) and levels run: the outbox part a level fills is `turn % PARTS`.
        let (mut level, mut turn, mut ran) = (0usize, 0usize, false);
        let mut clock = crew.clock();
        let mut lap = |prof: &mut [u64; TIMED], i: usize| {
            let now = crew.clock();
            prof[i] += now.wrapping_sub(clock);
            clock = now;
        };
        loop {
            if leader {
                done.waited += self.open_level(crew, me, (level, turn, ran), &mut held, warps);
            }
            crew.sync_workers(threads);
            let p = level % 2;
            if h[DONE_NOW + p].load(Relaxed) != 0 {
                break;
            }
            let (len, ovf) = (h[LEN_NOW + p].load(Relaxed), h[OVF_NOW + p].load(Relaxed));
            let (here, next) = (Dest::of(level), Dest::of(level + 1));
            level += 1;
            if len == 0 && ovf == 0 {
                done.idle += 1;
                ran = false;
                lap(&mut done.prof, 2);
                continue;
            }
            lap(&mut done.prof, 0);
            let part = turn % PARTS;
            let limit = h[MIN + here.ctr]
                .load(Relaxed)
                .saturating_add(self.delta.max(1));
            if ovf != 0 {
                let mut w = wid;
                while w < words {
                    let mut bits = smem.pending[w as usize].load(Relaxed);
                    while bits != 0 {
                        let u = w * 32 + bits.trailing_zeros();
                        bits &= bits - 1;
                        done.pops += self.process(crew, me, u, limit, next, part);
                    }
                    w += threads;
                }
            } else if len <= threads && (2 * len <= threads || <KernelWarp as Warp>::SIZE == 1) {
                // A short level: a group of lanes per vertex.
                let base = here.queue * me.q as usize;
                let warp = kernel_warp(crew.ctx());
                let lanes = (wid, threads);
                done.pops +=
                    self.relax_groups(crew, warp, me, (base, len), limit, next, part, lanes);
            } else {
                let base = here.queue * me.q as usize;
                let mut i = wid;
                while i < len.min(me.q) {
                    let u = smem.queues[base + i as usize].load(Relaxed);
                    done.pops += self.process(crew, me, u, limit, next, part);
                    i += threads;
                }
            }
            crew.sync_workers(threads);
            lap(&mut done.prof, 1);
            turn += 1;
            ran = true;
        }
        done.levels = turn as u32;
        done
    }

    /// The workers' leader, before level `level` (after `turn` levels run,
    /// the last one just now if `ran`): hands that level's outbox part to
    /// the messenger, points the messenger's marks at the level after this
    /// one, waits for the takes still marking into this one, and notes the
    /// level's queue for the workers ([`LEN_NOW`], [`OVF_NOW`]). With nothing
    /// pending it waits until the messenger has posted every part, retires
    /// what the block holds, and notes [`DONE`] once no token is left
    /// anywhere. The messenger has `warps` warps. Returns the cycles it
    /// waited for the messenger before a level that runs.
    #[inline(always)]
    fn open_level(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        (level, turn, ran): (usize, usize, bool),
        held: &mut u32,
        warps: u32,
    ) -> u64 {
        let h = me.smem.header;
        if ran {
            // The workers' barrier ordered their outbox entries before this.
            crew.fence_block();
            u32::put(&h[READY], turn as u32);
        }
        if level > 0 {
            // Read by level `level − 2`; the takes fill it from now on.
            clear(h, Dest::of(level + 1).ctr);
            crew.fence_block();
            let tag = ((level % 6) as u32) << 16;
            let mut w = h[WORD].load(Relaxed);
            while let Err(now) = h[WORD].compare_exchange(w, tag | (w & 0xffff), Relaxed, Relaxed) {
                w = now;
            }
        }
        let start = crew.clock();
        while h[WORD].load(Relaxed) & 0xffff != 0 {
            crew.idle();
        }
        crew.fence_block();
        let here = Dest::of(level).ctr;
        *held += h[TAKEN + here].swap(0, Relaxed);
        let (len, ovf) = (h[CNT + here].load(Relaxed), h[OVF + here].load(Relaxed));
        let empty = len == 0 && ovf == 0;
        // A level fills the part the messenger had `PARTS` levels ago;
        // retiring needs every part posted (their messages counted).
        let want = if empty {
            turn
        } else {
            turn.saturating_sub(PARTS - 1)
        } as u32
            * warps;
        while (h[POSTED].load(Relaxed).wrapping_sub(want) as i32) < 0 {
            crew.idle();
        }
        let waited = crew.clock().wrapping_sub(start);
        crew.fence_block();
        if empty {
            if *held > 0 {
                crew.fence_device();
                self.ctl[OUTSTANDING].fetch_sub(*held, Relaxed);
                *held = 0;
            }
            if self.ctl[OUTSTANDING].load(Relaxed) == 0 {
                u32::put(&h[DONE], 1);
            } else {
                crew.idle();
            }
        } else {
            u32::put(&h[OLEN + turn % PARTS], 0);
        }
        let p = level % 2;
        // The workers load these after their barrier, so they need no
        // exchange; they are puts because racecheck was shown clean with the
        // leader's words as one group (`DONE`, which the messenger loads, is
        // one it needs: 74e218a:docs/results/h100/racefree/, calls 2-3).
        u32::put(&h[LEN_NOW + p], len);
        u32::put(&h[OVF_NOW + p], ovf);
        u32::put(&h[DONE_NOW + p], h[DONE].load(Relaxed));
        if empty {
            0
        } else {
            waited
        }
    }
}
