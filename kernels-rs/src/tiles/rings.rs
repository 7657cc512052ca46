//! The message rings between tiles and the messenger that serves them:
//! posting a level's outbox, room in a ring, and taking messages (see the module notes of
//! [`super`]).

use core::sync::atomic::Ordering::Relaxed;

use super::{
    mark, rank, Crew, Dest, Mine, Tiles, DONE, DRAINED, EMPTY, LOCK, OLEN, OUTSTANDING, PART,
    POSTED, PUBLISHED, READY, TAKEN, WORD,
};
use crate::program::Program;
use crate::warp::{kernel_warp, KernelWarp, Warp};
use crate::word::StateWord;

/// Whether the state type travels in the message word.
#[inline(always)]
pub(super) fn packed<S: StateWord>() -> bool {
    core::mem::size_of::<S>() == 4
}

/// The bits of a 4-byte state.
#[inline(always)]
fn low_bits<S: StateWord>(s: S) -> u32 {
    if packed::<S>() {
        // SAFETY: `S` is 4 bytes here, a plain integer or float.
        unsafe { core::mem::transmute_copy::<S, u32>(&s) }
    } else {
        0
    }
}

/// The 4-byte state with these bits (only called where [`packed`]).
#[inline(always)]
fn from_low<S: StateWord>(x: u32) -> S {
    let wide = u64::from(x);
    if packed::<S>() {
        // SAFETY: `S` is 4 bytes here, and every bit pattern is a value of the
        // integer and float types that implement `StateWord`.
        unsafe { core::mem::transmute_copy::<u32, S>(&x) }
    } else {
        // SAFETY: as above, for the 8-byte types (never reached: wide states
        // travel in the candidate ring).
        unsafe { core::mem::transmute_copy::<u64, S>(&wide) }
    }
}

impl<P: Program> Tiles<'_, P> {
    /// The messenger (warp 0; the emulator: its first `lanes` threads, each
    /// a warp of its own), as lane `lane`: posts each outbox part the
    /// workers hand over and takes the messages that arrive, until the
    /// workers' leader finds the run done. Returns (messages sent, messages
    /// that waited for room).
    ///
    /// Why a messenger beside the levels rather than a drain-and-post phase
    /// before each: on a grid a tile's level is a few vertices, and the
    /// phase, with its ring reads, fences and barrier, cost more than the
    /// level itself (H100, 1000²: about 3,400 cycles against 2,800,
    /// `74e218a:docs/results/h100/bursts/`).
    #[inline(always)]
    pub(super) fn messenger(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        lane: u32,
        lanes: u32,
    ) -> (u32, u32) {
        let h = me.smem.header;
        let warp = kernel_warp(crew.ctx());
        let warps = lanes / <KernelWarp as Warp>::SIZE;
        let (mut messages, mut waits, mut posted) = (0u32, 0u32, 0u32);
        loop {
            // Lane 0's view, so that the warp decides as one.
            let done = warp.shfl(h[DONE].load(Relaxed), 0) != 0;
            let ready = warp.shfl(h[READY].load(Relaxed), 0);
            // A warp starts a part once every warp has posted the ones before
            // (the emulator's messenger is several), so that the count of
            // parts posted counts whole parts.
            let behind = warp
                .shfl(h[POSTED].load(Relaxed), 0)
                .wrapping_sub(posted.wrapping_mul(warps));
            if done {
                break;
            }
            if posted != ready && behind as i32 >= 0 {
                crew.fence_block();
                let (sent, waited) =
                    self.post(crew, me, (posted as usize) % super::PARTS, lane, lanes);
                messages += sent;
                waits += waited;
                posted = posted.wrapping_add(1);
                warp.sync();
                if warp.lane() == 0 {
                    crew.fence_block();
                    h[POSTED].fetch_add(1, Relaxed);
                }
            } else if self.drain(crew, me, warp, true) == 0 {
                crew.idle();
            }
        }
        (messages, waits)
    }

    /// Lane `lane` of the `lanes` posting threads posts its share of outbox
    /// part `part`. The loop is the same for every lane of the warp: each
    /// turn a lane reserves its next message's slot or writes the one it has
    /// reserved if the owner's ring has room, so no lane waits inside a branch
    /// of its own (a lane parked at the warp's reconvergence point behind a
    /// spinning lane could hold a reserved slot unwritten, and the owner's
    /// drain would wait on it). While some lane waits, the warp takes this
    /// block's arrived messages and publishes its head ([`Self::drain`]
    /// without waiting), so that two blocks waiting on each other's rings
    /// both make room. Returns (messages, messages that waited for room).
    #[inline(always)]
    fn post(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        part: usize,
        lane: u32,
        lanes: u32,
    ) -> (u32, u32) {
        let warp = kernel_warp(crew.ctx());
        let out = &me.smem.out;
        let len = (me.smem.header[OLEN + part].load(Relaxed) as usize).min(PART) as u32;
        let key = |j: u32| out.keys[part * PART + j as usize].load(Relaxed);
        let mut mine = 0;
        let mut j = lane;
        while j < len {
            mine += u32::from(key(j) != EMPTY);
            j += lanes;
        }
        if mine > 0 {
            // Counted before any of them can be seen (and retired).
            self.ctl[OUTSTANDING].fetch_add(mine, Relaxed);
            crew.fence_device();
        }
        let mut waited = 0;
        // The message this lane has a slot for: (target, entry, slot).
        let mut held: Option<(u32, u32, u32)> = None;
        let mut j = lane;
        loop {
            if held.is_none() {
                while j < len && key(j) == EMPTY {
                    j += lanes;
                }
                if j < len {
                    let k = key(j);
                    held = Some((
                        k,
                        j,
                        self.tails[(k / self.tile) as usize].fetch_add(1, Relaxed),
                    ));
                    j += lanes;
                }
            }
            if let Some((k, e, slot)) = held {
                if self.room(me, k / self.tile, slot) {
                    let cand = P::State::load(&out.cands[part * PART + e as usize]);
                    self.write(crew, k, slot, cand);
                    held = None;
                } else {
                    waited += 1;
                }
            }
            let busy = held.is_some() || j < len;
            if warp.ballot(busy) == 0 {
                break;
            }
            if warp.ballot(held.is_some()) != 0 {
                self.drain(crew, me, warp, false);
                crew.idle();
            }
        }
        (mine, waited.min(1))
    }

    /// Whether `owner`'s ring has room for `slot`: against the head this
    /// block last read, and if that is a whole ring behind, a fresh read.
    #[inline(always)]
    fn room(&self, me: &Mine<'_, '_, P>, owner: u32, slot: u32) -> bool {
        let cached = &me.smem.heads[owner as usize];
        if slot.wrapping_sub(cached.load(Relaxed)) < self.cap {
            return true;
        }
        let head = self.heads[owner as usize].load(Relaxed);
        u32::put(cached, head);
        slot.wrapping_sub(head) < self.cap
    }

    /// Writes `(k, cand)` into reserved `slot` of `k`'s owner's ring.
    #[inline(always)]
    fn write(&self, crew: &impl Crew, k: u32, slot: u32, cand: P::State) {
        let owner = k / self.tile;
        let at = (owner * self.cap + slot % self.cap) as usize;
        let key = (u64::from(k) + 1) << 32;
        if packed::<P::State>() {
            self.msgs[at].store(key | u64::from(low_bits(cand)), Relaxed);
        } else {
            P::State::store(&self.cands[at], cand);
            crew.fence_device();
            self.msgs[at].store(key, Relaxed);
        }
    }

    /// One messenger warp at a time (the others, if any, return 0): takes
    /// the messages that have arrived in this block's ring, up to its last
    /// published head plus a ring (every such slot's sender writes it without
    /// waiting for this block), and publishes the new head. `wait`: every
    /// lane takes its share of the reserved slots and waits for each to be
    /// written, which only a warp holding no reserved slot of its own may do;
    /// otherwise (a posting warp, waiting for room) lane 0 takes them in
    /// order and stops at the first not yet written, and the head is
    /// published at once, since some sender may be waiting for it. Returns
    /// the messages taken (the same in every lane).
    #[inline(always)]
    fn drain<W: Warp>(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, warp: W, wait: bool) -> u32 {
        let h = me.smem.header;
        let first = warp.lane() == 0;
        let locked = first && h[LOCK].compare_exchange(0, 1, Relaxed, Relaxed).is_ok();
        if warp.shfl(u32::from(locked), 0) == 0 {
            return 0;
        }
        crew.fence_block();
        let (head, published) = (h[DRAINED].load(Relaxed), h[PUBLISHED].load(Relaxed));
        let tail = if first {
            self.tails[me.block as usize].load(Relaxed)
        } else {
            0
        };
        let tail = warp.shfl(tail, 0);
        let most = if (tail.wrapping_sub(head) as i32) > 0 {
            tail.wrapping_sub(head)
        } else {
            0
        };
        let count = most.min(published.wrapping_add(self.cap).wrapping_sub(head));
        let mut taken = 0;
        if wait {
            let mut i = warp.lane();
            while i < count {
                self.take(crew, me, head.wrapping_add(i), true);
                i += W::SIZE;
            }
            taken = count;
        } else if first {
            while taken < count && self.take(crew, me, head.wrapping_add(taken), false) {
                taken += 1;
            }
        }
        let taken = warp.shfl(taken, 0);
        // Every lane's takes before lane 0's head.
        warp.sync();
        if first {
            let head = head.wrapping_add(taken);
            u32::put(&h[DRAINED], head);
            let due = if wait { (self.cap / 4).max(1) } else { 1 };
            if head.wrapping_sub(published) >= due {
                crew.fence_device();
                self.heads[me.block as usize].store(head, Relaxed);
                u32::put(&h[PUBLISHED], head);
            }
            crew.fence_block();
            u32::put(&h[LOCK], 0);
        }
        taken
    }

    /// Takes slot `pos` of this block's ring, waiting until its sender has
    /// written it (`wait`) or not at all, and delivers it. Returns whether
    /// it took a message.
    #[inline(always)]
    fn take(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, pos: u32, wait: bool) -> bool {
        let at = (me.block * self.cap + pos % self.cap) as usize;
        let x = loop {
            let x = self.msgs[at].swap(0, Relaxed);
            if x != 0 || !wait {
                break x;
            }
            crew.idle();
        };
        if x == 0 {
            return false;
        }
        let k = ((x >> 32) as u32).wrapping_sub(1);
        let cand = if packed::<P::State>() {
            from_low::<P::State>(x as u32)
        } else {
            // The sender stored the candidate, fenced, then the key.
            crew.fence_device();
            P::State::load(&self.cands[at])
        };
        self.deliver(crew, me, k, cand);
        true
    }

    /// Combines a taken candidate for tile vertex `k` into the tile and marks
    /// the vertex for the level after the workers' current one, counting the
    /// message against that level (see [`WORD`]).
    #[inline(always)]
    fn deliver(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, k: u32, cand: P::State) {
        let h = me.smem.header;
        let level = (h[WORD].fetch_add(1, Relaxed) >> 16) as usize;
        let into = Dest::of(level + 1);
        let local = k.wrapping_sub(me.lo);
        if local < me.len && P::combine(&me.smem.states[local as usize], cand) {
            mark(crew, me, local, rank::<P>(cand), into);
        }
        h[TAKEN + into.ctr].fetch_add(1, Relaxed);
        crew.fence_block();
        h[WORD].fetch_sub(1, Relaxed);
    }
}
