//! The tiled asynchronous traversal: each block owns a contiguous range of
//! vertices (a tile), keeps the tile's states and pending bits in shared memory,
//! and runs its own rounds with block barriers only; tiles hand vertices on
//! their borders over through mailboxes, and no block waits for another.
//!
//! Why: on a 1000² grid a BFS has 1,817 levels of about a thousand vertices, and
//! a level-synchronous design pays a grid-wide step per level (the
//! [`crate::resident`] kernel: a chain of dependent L2/DRAM round trips, about
//! 6 µs a level, 10.7 ms in all). Here a round reads states and bits from shared
//! memory and a tile's round waits only for its own block.
//!
//! How:
//! * **Tiles.** Block `b` owns `[b·T, (b+1)·T)` (`T = ⌈n / blocks⌉`). Its states
//!   live in shared memory (from `init`) and are copied out at the end. Graphs
//!   whose ids follow space (grids, road networks in file order) keep most edges
//!   inside a tile.
//! * **Ordered rounds.** A vertex whose state improved gets its pending bit. A
//!   round finds the lowest [`Program::order`] among the pending vertices and
//!   relaxes those within `delta` of it (BFS: one level; SSSP: a bucket), so a
//!   tile relaxes near-final states first even though tiles run at their own
//!   pace; a candidate from a tile that ran ahead waits in its bit until the
//!   tile's own front has either overtaken it or reached it.
//! * **Rounds.** A round drains the inbox, then relaxes up to `subrounds`
//!   buckets with block barriers only, keeping candidates for other tiles in a
//!   shared outbox that it sends at its end, all at once.
//! * **Mailboxes.** An edge into another tile combines the candidate into the
//!   global state array (the owner's mailbox) and, if that improved it, sends the
//!   vertex id to the owner's inbox (once while its sent bit is set). Each round
//!   starts by draining the inbox: the mailbox value is combined into the shared
//!   state, and the vertex becomes pending if it improved.
//! * **Termination.** A global count of outstanding tokens: one per block for its
//!   initial work, one per message. A sender counts a message before publishing
//!   it; a block retires what it has drained (and its token) only in a round that
//!   finds nothing pending, so the count reaches zero only when no work exists.
//!
//! Memory ordering: a marker combines a state then sets the vertex's bit; the
//! taker clears the bit then reads the state. Both bit operations are
//! read-modify-writes of one word, so one of them comes first: if the set, the
//! taker's clear reads it and (with an acquire-release fence on each side)
//! sees the state; if the clear, the marker finds the bit clear and marks anew.
//! The fences are of block scope for pending bits and of device scope for sent
//! bits and mailboxes.
//!
//! The grid must be co-resident: blocks wait for each other's messages (the host
//! launches cooperatively). Inbox slots hold `vertex + 1` so that zeroed memory
//! is empty.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::program::Program;
use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::word::StateWord;

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
/// Rounds of the busiest tile.
pub const ROUNDS: usize = 34;
/// Tiles that copied their rows as they are, and narrow ([`ROWS_NARROW`]);
/// the rest read their rows from the graph.
pub const ROWS_WIDE: usize = 35;
/// Tiles that copied their rows narrow (ids within the tile, halved weights).
pub const ROWS_NARROW: usize = 36;
/// Thread 0's cycles (in units of 64, summed over blocks) per phase: the
/// inbox drain and scan up to its barrier, the step to the bucket, listing,
/// relaxing, sending, and the rest of a pass that found nothing pending
/// ([`TIMED`] words); then [`IDLE_PASSES`] and [`ALL_ROUNDS`].
pub const PROFILE: usize = 40;
/// Phases timed in [`PROFILE`].
pub const TIMED: usize = 6;
/// Passes that found nothing pending, summed over blocks.
pub const IDLE_PASSES: usize = PROFILE + TIMED;
/// Rounds, summed over blocks ([`ROUNDS`] is the busiest tile's).
pub const ALL_ROUNDS: usize = PROFILE + TIMED + 1;
/// Size of the control block.
pub const CTL_WORDS: usize = 64;

/// Words of the shared header: the inbox tail to drain to, the lowest
/// pending order (a pair, by scan parity), done, the bucket's listed count and
/// the outbox halves' lengths (a pair).
pub const SMEM_HEADER: usize = 8;
const TAIL: usize = 0;
const LOWEST: usize = 2;
const DONE: usize = 4;
const LISTED: usize = 5;
/// Outbox entries of each half (may exceed [`HALF`]: the rest went directly).
/// Rounds fill the halves in turn, so a round's sends need no barrier after
/// them: the next round fills the other half, and the one after that passes
/// a barrier that every sender of this round has reached.
const OUT_LEN: usize = 6;

/// Bytes of shared memory a block needs for tiles of `tile` vertices of
/// `state_bytes`-byte states: the header, the states (rounded up to 8 bytes),
/// the pending bits, the bucket's list and the outbox.
pub const fn smem_bytes(tile: u64, state_bytes: u64) -> u64 {
    let states = (tile * state_bytes).div_ceil(8) * 8;
    let lists = (tile.div_ceil(32) * 4 + tile * 4).div_ceil(8) * 8;
    let outbox = (OUTBOX as u64 * state_bytes).div_ceil(8) * 8 + OUTBOX as u64 * 4;
    SMEM_HEADER as u64 * 4 + states + lists + outbox
}

/// Candidates for other tiles that a round's buckets leave for its end: their
/// targets and candidates, [`OUTBOX`] of each.
pub struct Outbox<'a, P: Program> {
    pub keys: &'a [AtomicU32],
    pub cands: &'a [<P::State as StateWord>::Atomic],
}

/// Entries of a block's outbox, in two halves that rounds fill in turn (a
/// round stops taking buckets once its half is half full; beyond the half,
/// candidates go out directly).
pub const OUTBOX: usize = 1024;
/// Entries of each half of the outbox.
const HALF: usize = OUTBOX / 2;

/// A tile's shared memory, split.
pub struct TileSmem<'a, P: Program> {
    pub header: &'a [AtomicU32],
    pub states: &'a [<P::State as StateWord>::Atomic],
    pub pending: &'a [AtomicU32],
    /// The vertices a bucket relaxes.
    pub list: &'a [AtomicU32],
    pub out: Outbox<'a, P>,
    /// What is left (8-byte aligned): the tile's rows when they fit.
    pub spare: *mut u64,
    pub spare_words: usize,
}

/// A tile's copy of its rows in shared memory: offsets relative to its first
/// edge, targets and weights. Read-only once written (before the loop).
struct Rows<P: Program> {
    offs: *mut u32,
    targets: Targets,
    weights: Weights<P::Weight>,
    /// The tile's first edge in the graph (a narrow row's remote targets are
    /// read from there).
    first: u64,
}

/// A tile's copied targets: graph ids, or (the narrow copy, for tiles whose
/// wide copy does not fit) ids within the tile, [`REMOTE`] for a target in
/// another tile, whose id is read from the graph.
enum Targets {
    Ids(*mut u32),
    Local(*mut u16),
}

/// A tile's copied weights: as they are, or (4-byte weights whose upper half
/// is zero on every edge of the tile: a grid's or a road network's integer
/// weights) their lower half, from which the same bits are rebuilt.
enum Weights<W> {
    Full(*mut W),
    Low(*mut u16),
}

/// A narrow row's target in another tile.
const REMOTE: u16 = u16::MAX;

/// The header word where a narrow copy's threads report a weight whose upper
/// half is not zero (the header's other words are set up after the copy).
const MISFIT: usize = 1;

/// Everything the tiled kernel reads and writes.
pub struct Tiles<'a, P: Program> {
    pub graph: CsrView<'a>,
    /// One weight per edge (zero-sized slice for unweighted programs).
    pub weights: &'a [P::Weight],
    /// The states, and every tile's mailbox.
    pub state: &'a [<P::State as StateWord>::Atomic],
    /// One bit per vertex: set while the vertex is in its owner's inbox.
    pub sent: &'a [AtomicU32],
    /// The inboxes: tile `b`'s is `inbox[b·T .. b·T + len]`, a ring of its length.
    pub inbox: &'a [AtomicU32],
    /// Reservations per inbox (one word per block).
    pub tails: &'a [AtomicU32],
    /// [`CTL_WORDS`] control words.
    pub ctl: &'a [AtomicU32],
    /// Vertices per tile.
    pub tile: u32,
    /// Orders relaxed per bucket: those below the lowest pending one plus this.
    pub delta: u32,
    /// Buckets a round relaxes (with block barriers only) before it sends its
    /// outbox and reads its inbox.
    pub subrounds: u32,
    /// The run's source (`init`'s argument), the one vertex pending first.
    pub source: u32,
    /// Every vertex pending first instead (programs without a source).
    pub every: bool,
}

/// The calling block's tile, its shared memory and its inbox.
struct Mine<'a, 's, P: Program> {
    lo: u32,
    len: u32,
    smem: &'s TileSmem<'a, P>,
    inbox: &'a [AtomicU32],
    rows: Option<Rows<P>>,
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
            lo,
            len: hi - lo,
            smem,
            inbox: &self.inbox[lo as usize..hi as usize],
            rows: self.copy_rows(crew, smem, lo, hi),
        };
        let words = me.len.div_ceil(32);
        let mut i = tid;
        while i < me.len {
            // From `init`, not from the global array: another tile may already
            // have combined a candidate into this tile's mailbox, and that
            // candidate must arrive as a message, not be taken silently.
            P::State::store(&smem.states[i as usize], P::init(lo + i, self.source));
            i += step;
        }
        let mut w = tid;
        while w < words {
            let bits = if self.every {
                let left = me.len - w * 32;
                if left >= 32 {
                    u32::MAX
                } else {
                    (1u32 << left) - 1
                }
            } else if self.source.wrapping_sub(lo) / 32 == w && (lo..hi).contains(&self.source) {
                1 << ((self.source - lo) % 32)
            } else {
                0
            };
            smem.pending[w as usize].store(bits, Relaxed);
            w += step;
        }
        if tid == 0 {
            for h in &smem.header[..SMEM_HEADER] {
                h.store(0, Relaxed);
            }
            smem.header[LOWEST].store(u32::MAX, Relaxed);
            smem.header[LOWEST + 1].store(u32::MAX, Relaxed);
        }
        crew.sync_block();

        let (mut pops, mut messages, mut rounds) = (0u32, 0u32, 0u32);
        let h = smem.header;
        // The block's token, then the messages drained and not yet retired
        // (thread 0's), and how far the inbox has been drained (every thread's).
        let mut held = u32::from(tid == 0);
        let mut drained = 0u32;
        // Scans so far: scan `c` finds its minimum in `LOWEST + c % 2` (marks
        // made before the next scan report there too).
        let mut c = 0usize;
        // Rounds with buckets so far: this one fills outbox half `posts % 2`.
        let mut posts = 0usize;
        let mut prof = [0u64; TIMED];
        let mut idle_passes = 0u32;
        let mut clock = crew.clock();
        let mut lap = |prof: &mut [u64; TIMED], i: usize| {
            let now = crew.clock();
            prof[i] += now.wrapping_sub(clock);
            clock = now;
        };
        loop {
            // Phase A: drain the inbox up to the tail read last round, and scan.
            // Thread 0 reads the next tail now, so that the round trip
            // overlaps the drain and the scan, and empties the outbox half
            // this round fills (its last senders passed the previous barrier).
            let o = posts % 2;
            let next_tail = if tid == 0 {
                h[OUT_LEN + o].store(0, Relaxed);
                self.tails[t.block_idx as usize].load(Relaxed)
            } else {
                0
            };
            let tail = h[TAIL].load(Relaxed);
            let count = tail.wrapping_sub(drained);
            let mut i = tid;
            while i < count {
                self.receive(crew, &me, drained.wrapping_add(i), c % 2);
                i += step;
            }
            drained = tail;
            if tid == 0 {
                held += count;
            }
            self.scan(crew, &me, c);
            crew.sync_block();
            lap(&mut prof, 0);
            let mut lowest = h[LOWEST + c % 2].load(Relaxed);
            c += 1;
            if tid == 0 {
                h[TAIL].store(next_tail, Relaxed);
            }
            if lowest == u32::MAX {
                idle_passes += 1;
                // Nothing pending: retire what was drained, and stop once no
                // block holds a token and no message is in flight.
                if tid == 0 {
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
                lap(&mut prof, 5);
                if h[DONE].load(Relaxed) != 0 {
                    break;
                }
                continue;
            }
            lap(&mut prof, 1);
            // Phase B: up to `subrounds` buckets, lowest first, with block
            // barriers only; candidates for other tiles wait in the outbox.
            let mut subs = 0;
            loop {
                rounds += 1;
                subs += 1;
                let limit = lowest.saturating_add(self.delta.max(1));
                self.list(crew, &me, limit);
                crew.sync_block();
                lap(&mut prof, 2);
                // See the module notes: the bits are clear before the states
                // are read.
                crew.fence_block();
                let listed = h[LISTED].load(Relaxed);
                let mut j = tid;
                while j < listed {
                    let i = smem.list[j as usize].load(Relaxed);
                    messages += self.relax(crew, &me, i, c % 2, o);
                    pops += 1;
                    j += step;
                }
                crew.sync_block();
                lap(&mut prof, 3);
                if subs >= self.subrounds || h[OUT_LEN + o].load(Relaxed) as usize >= HALF / 2 {
                    break;
                }
                self.scan(crew, &me, c);
                crew.sync_block();
                lowest = h[LOWEST + c % 2].load(Relaxed);
                c += 1;
                if lowest == u32::MAX {
                    break;
                }
            }
            // The outbox, all at once: one chain of global round trips a round,
            // with no barrier after it (see `OUT_LEN`).
            let out = (h[OUT_LEN + o].load(Relaxed) as usize).min(HALF) as u32;
            let mut j = tid;
            while j < out {
                messages += self.post(crew, &me, o * HALF + j as usize);
                j += step;
            }
            posts += 1;
            lap(&mut prof, 4);
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
        if tid == 0 {
            self.ctl[ROUNDS].fetch_max(rounds, Relaxed);
            match me.rows.as_ref().map(|r| &r.targets) {
                Some(Targets::Ids(_)) => self.ctl[ROWS_WIDE].fetch_add(1, Relaxed),
                Some(Targets::Local(_)) => self.ctl[ROWS_NARROW].fetch_add(1, Relaxed),
                None => 0,
            };
            for (i, &p) in prof.iter().enumerate() {
                self.ctl[PROFILE + i].fetch_add((p >> 6) as u32, Relaxed);
            }
            self.ctl[IDLE_PASSES].fetch_add(idle_passes, Relaxed);
            self.ctl[ALL_ROUNDS].fetch_add(rounds, Relaxed);
        }
    }

    /// Scan `c`: the lowest order among the pending vertices, into
    /// `LOWEST + c % 2`. Thread 0 readies the other word for the marks made
    /// before the next scan, and the list for the next bucket (both last read
    /// before the barrier that preceded this scan).
    #[inline(always)]
    fn scan(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, c: usize) {
        let t = crew.ctx();
        let (smem, h) = (me.smem, me.smem.header);
        if t.thread_idx == 0 {
            h[LOWEST + (c + 1) % 2].store(u32::MAX, Relaxed);
            h[LISTED].store(0, Relaxed);
        }
        let mut lowest = u32::MAX;
        let mut w = t.thread_idx;
        while w < me.len.div_ceil(32) {
            let mut bits = smem.pending[w as usize].load(Relaxed);
            while bits != 0 {
                let v = w * 32 + bits.trailing_zeros();
                bits &= bits - 1;
                lowest = lowest.min(rank::<P>(P::State::load(&smem.states[v as usize])));
            }
            w += t.block_dim;
        }
        if lowest != u32::MAX {
            h[LOWEST + c % 2].fetch_min(lowest, Relaxed);
        }
    }

    /// Takes the pending vertices of order below `limit` off their bits and
    /// lists them, so that the whole block relaxes them (a frontier of
    /// consecutive ids, a grid's row, would otherwise be one thread's).
    #[inline(always)]
    fn list(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, limit: u32) {
        let t = crew.ctx();
        let (smem, h) = (me.smem, me.smem.header);
        let mut w = t.thread_idx;
        while w < me.len.div_ceil(32) {
            let bits = smem.pending[w as usize].load(Relaxed);
            let mut take = 0u32;
            let mut rest = bits;
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                let o = rank::<P>(P::State::load(&smem.states[(w * 32 + b) as usize]));
                if o < limit {
                    take |= 1 << b;
                }
            }
            if take != 0 {
                smem.pending[w as usize].fetch_and(!take, Relaxed);
                let mut j = h[LISTED].fetch_add(take.count_ones(), Relaxed);
                while take != 0 {
                    smem.list[j as usize].store(w * 32 + take.trailing_zeros(), Relaxed);
                    take &= take - 1;
                    j += 1;
                }
            }
            w += t.block_dim;
        }
    }

    /// Posts outbox entry `at`: combines its candidate into the target's
    /// mailbox and sends the target if that improved it; returns the messages
    /// sent.
    #[inline(always)]
    fn post(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, at: usize) -> u32 {
        let out = &me.smem.out;
        let k = out.keys[at].load(Relaxed);
        let cand = P::State::load(&out.cands[at]);
        if P::combine(&self.state[k as usize], cand) {
            self.send(crew, k)
        } else {
            0
        }
    }

    /// Copies the tile's rows into the spare shared memory when they fit, so
    /// that a round reads no global memory for its own edges: as they are (a
    /// 1000² grid's BFS tile: offsets and targets in 150 KB at 7,600
    /// vertices), or else narrow (targets as ids within the tile, 4-byte
    /// weights as their lower half where that loses nothing: the same grid's
    /// SSSP tile in 150 KB instead of 270). Every thread of the block calls it
    /// and gets the same answer.
    #[inline(always)]
    fn copy_rows(
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

    /// Relaxes the edges of tile vertex `i` (from the tile's copy of its rows
    /// when it has one); returns the messages sent. Marks report their order to
    /// the next phase's lowest (parity `p`).
    #[inline(always)]
    fn relax(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, i: u32, p: usize, o: usize) -> u32 {
        let s = P::State::load(&me.smem.states[i as usize]);
        let mut sent = 0;
        if let Some(c) = &me.rows {
            // SAFETY: the copy was written before the barrier that opened the
            // loop and is only read since; `i < len`, so `i + 1` is in `offs`
            // and the row's edges are in the targets and weights; a low half
            // is only kept for 4-byte weights, whose bits it rebuilds.
            unsafe {
                let (a, b) = (*c.offs.add(i as usize), *c.offs.add(i as usize + 1));
                for e in a as usize..b as usize {
                    let w = match c.weights {
                        Weights::Full(w) => *w.add(e),
                        Weights::Low(w) => {
                            core::mem::transmute_copy::<u32, P::Weight>(&u32::from(*w.add(e)))
                        }
                    };
                    let Some(cand) = P::relax(s, w, 0) else {
                        continue;
                    };
                    let k = match c.targets {
                        Targets::Ids(t) => *t.add(e),
                        Targets::Local(t) => match *t.add(e) {
                            REMOTE => self.graph.targets[(c.first + e as u64) as usize],
                            x => me.lo + u32::from(x),
                        },
                    };
                    sent += self.edge(crew, me, k, cand, p, o);
                }
            }
        } else {
            let v = (me.lo + i) as usize;
            let offsets = self.graph.offsets;
            for e in offsets[v] as usize..offsets[v + 1] as usize {
                if let Some(cand) = P::relax(s, self.weights[e], 0) {
                    sent += self.edge(crew, me, self.graph.targets[e], cand, p, o);
                }
            }
        }
        sent
    }

    /// Offers `cand` to vertex `k`: to the tile's state, or to another tile's
    /// mailbox; returns the messages sent.
    #[inline(always)]
    fn edge(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        k: u32,
        cand: P::State,
        p: usize,
        o: usize,
    ) -> u32 {
        let local = k.wrapping_sub(me.lo);
        if local < me.len {
            if P::combine(&me.smem.states[local as usize], cand) {
                mark(crew, me.smem, local, rank::<P>(cand), p);
            }
            0
        } else {
            let at = me.smem.header[OUT_LEN + o].fetch_add(1, Relaxed) as usize;
            if at < HALF {
                me.smem.out.keys[o * HALF + at].store(k, Relaxed);
                P::State::store(&me.smem.out.cands[o * HALF + at], cand);
                0
            } else if P::combine(&self.state[k as usize], cand) {
                self.send(crew, k)
            } else {
                0
            }
        }
    }

    /// Sends `k` to its owner's inbox unless it is there already (its mailbox
    /// has just improved); returns whether it sent.
    #[inline(always)]
    fn send(&self, crew: &impl Crew, k: u32) -> u32 {
        let bit = 1u32 << (k % 32);
        // Counted before it can be seen (the owner may retire it at once), and
        // before the fence, which orders the mailbox's value and the count
        // before the bit and the entry; taken back if the vertex is in the
        // inbox already.
        self.ctl[OUTSTANDING].fetch_add(1, Relaxed);
        crew.fence_device();
        if self.sent[(k / 32) as usize].fetch_or(bit, Relaxed) & bit != 0 {
            self.ctl[OUTSTANDING].fetch_sub(1, Relaxed);
            return 0;
        }
        let owner = k / self.tile;
        let lo = owner * self.tile;
        let len = (self.state.len() as u32 - lo).min(self.tile);
        let at = self.tails[owner as usize].fetch_add(1, Relaxed) % len;
        put(crew, &self.inbox[(lo + at) as usize], k);
        1
    }

    /// Takes inbox entry `at` into the tile: the mailbox's value is combined
    /// into the shared state, and the vertex is pending if it improved.
    #[inline(always)]
    fn receive(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, at: u32, p: usize) {
        let k = take(crew, &me.inbox[(at % me.len) as usize]);
        self.sent[(k / 32) as usize].fetch_and(!(1u32 << (k % 32)), Relaxed);
        crew.fence_device();
        let cand = P::State::load(&self.state[k as usize]);
        if P::combine(&me.smem.states[(k - me.lo) as usize], cand) {
            mark(crew, me.smem, k - me.lo, rank::<P>(cand), p);
        }
    }
}

/// A pending vertex's place in a tile's order: [`Program::order`] below
/// `u32::MAX`, which the scans keep for "nothing pending". A priority that
/// saturates there (64-bit distances of 2^32 − 1 and more) ranks just under it,
/// with every other such vertex.
#[inline(always)]
fn rank<P: Program>(state: P::State) -> u32 {
    P::order(state).min(u32::MAX - 1)
}

/// Marks tile vertex `i` pending, after its improved state, and reports its
/// order to the lowest of parity `p`.
#[inline(always)]
fn mark<P: Program>(crew: &impl Crew, smem: &TileSmem<'_, P>, i: u32, order: u32, p: usize) {
    crew.fence_block();
    smem.pending[(i / 32) as usize].fetch_or(1 << (i % 32), Relaxed);
    smem.header[LOWEST + p].fetch_min(order, Relaxed);
}

/// Stores `k` into a reserved inbox slot once its previous vertex has been taken.
#[inline(always)]
fn put(crew: &impl Crew, slot: &AtomicU32, k: u32) {
    while slot.compare_exchange(0, k + 1, Relaxed, Relaxed).is_err() {
        crew.idle();
    }
}

/// Takes the vertex from a reserved inbox slot once its sender has stored it.
#[inline(always)]
fn take(crew: &impl Crew, slot: &AtomicU32) -> u32 {
    loop {
        let x = slot.swap(0, Relaxed);
        if x != 0 {
            return x - 1;
        }
        crew.idle();
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
/// `offsets` (`n + 1`), `targets`/`weights` (`m`), `state` (`n`, every vertex
/// at `init(v, source)`), `inbox` (`n`, zeroed), `sent` (`⌈n/32⌉`, zeroed), `tails` (one per block, zeroed), `ctl`
/// ([`CTL_WORDS`], [`OUTSTANDING`] = blocks) valid for the call; `smem` 8-byte
/// aligned, `smem_words` words, at least [`smem_bytes`]`(tile, size_of::<State>())`
/// bytes, and private to the calling block; `tile · blocks ≥ n`; the grid co-resident.
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
    sent: *mut u32,
    inbox: *mut u32,
    tails: *mut u32,
    ctl: *mut u32,
    tile: u32,
    delta: u32,
    subrounds: u32,
    source: u32,
    every: u32,
    smem: *mut u32,
    smem_words: u32,
) {
    use crate::word::slice;
    let n = n as usize;
    let blocks = crew.ctx().grid_dim as usize;
    let t = tile as usize;
    let state_words = (t * core::mem::size_of::<P::State>()).div_ceil(8) * 2;
    // Header, states, pending bits, list, outbox candidates and targets; each
    // state region 8-byte aligned, and the rows after them.
    let bits_at = SMEM_HEADER + state_words;
    let list_at = bits_at + t.div_ceil(32);
    let cands_at = (list_at + t).div_ceil(2) * 2;
    let keys_at = cands_at + (OUTBOX * core::mem::size_of::<P::State>()).div_ceil(8) * 2;
    let used = (keys_at + OUTBOX).div_ceil(2) * 2;
    // SAFETY: lengths and validity are the caller's contract; the shared regions
    // do not overlap (header, states, pending bits, list, outbox in that order).
    unsafe {
        let s = TileSmem::<P> {
            header: u32::atomics_from_raw(smem, SMEM_HEADER),
            states: P::State::atomics_from_raw(smem.add(SMEM_HEADER).cast(), t),
            pending: u32::atomics_from_raw(smem.add(bits_at), t.div_ceil(32)),
            list: u32::atomics_from_raw(smem.add(list_at), t),
            out: Outbox {
                keys: u32::atomics_from_raw(smem.add(keys_at), OUTBOX),
                cands: P::State::atomics_from_raw(smem.add(cands_at).cast(), OUTBOX),
            },
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
            sent: u32::atomics_from_raw(sent, n.div_ceil(32)),
            inbox: u32::atomics_from_raw(inbox, n),
            tails: u32::atomics_from_raw(tails, blocks),
            ctl: u32::atomics_from_raw(ctl, CTL_WORDS),
            tile,
            delta,
            subrounds: subrounds.max(1),
            source,
            every: every != 0,
        };
        k.run(crew, &s);
    }
}

/// The tiled kernel of program `$prog`, named `$name`: parameters `(n, m,
/// offsets, targets, weights, state, sent, inbox, tails, ctl, tile, delta,
/// subrounds, source, every)`;
/// dynamic shared memory of [`smem_bytes`] for the tile.
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
            sent: *mut u32,
            inbox: *mut u32,
            tails: *mut u32,
            ctl: *mut u32,
            tile: u32,
            delta: u32,
            subrounds: u32,
            source: u32,
            every: u32,
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
                    sent,
                    inbox,
                    tails,
                    ctl,
                    tile,
                    delta,
                    subrounds,
                    source,
                    every,
                    smem,
                    smem_words,
                )
            }
        }
    };
}
