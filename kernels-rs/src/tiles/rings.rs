//! The message rings between tiles: posting a level's outbox from warp 0,
//! room in a ring, and taking messages (see the module notes of
//! [`super`]).

use core::sync::atomic::Ordering::Relaxed;

use super::{
    mark, rank, Crew, Dest, Mine, Tiles, EMPTY, FINISHED, HALF, LOCK, OLEN, OUTSTANDING, PUBLISHED,
    SELF, TAKEN,
};
use crate::program::Program;
use crate::warp::Warp;
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
    /// Lane `lane` of the `lanes` posters (warp 0) posts its share of outbox
    /// half `half`. The loop is the same for every lane of the warp: each
    /// turn a lane reserves its next message's slot or writes the one it has
    /// reserved if the owner's ring has room, so no lane waits inside a branch
    /// of its own (a lane parked at the warp's reconvergence point behind a
    /// spinning lane could hold a reserved slot unwritten, and the owner's
    /// drain would wait on it). While some lane waits, lane 0 takes this
    /// block's arrived messages (marks to `here`) and publishes its head.
    /// Returns (messages, messages that waited for room).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn post(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        half: usize,
        lane: u32,
        lanes: u32,
        here: Dest,
        drainers: u32,
    ) -> (u32, u32) {
        let warp = crate::warp::kernel_warp(crew.ctx());
        let out = &me.smem.out;
        let len = (me.smem.header[OLEN + half].load(Relaxed) as usize).min(HALF) as u32;
        let key = |j: u32| out.keys[half * HALF + j as usize].load(Relaxed);
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
                    let cand = P::State::load(&out.cands[half * HALF + e as usize]);
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
                if warp.lane() == 0 {
                    self.take_waiting(crew, me, here, drainers);
                }
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
        cached.store(head, Relaxed);
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

    /// Takes slot `pos` of this block's ring, waiting until its sender has
    /// written it (`wait`) or not at all; combines its candidate into the
    /// tile, marks to `marks`. Returns whether it took a message.
    #[inline(always)]
    pub(super) fn take(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        pos: u32,
        marks: Dest,
        wait: bool,
    ) -> bool {
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
        let local = k.wrapping_sub(me.lo);
        if local < me.len && P::combine(&me.smem.states[local as usize], cand) {
            mark(crew, me, local, rank::<P>(cand), marks);
        }
        true
    }

    /// Lane 0 of a posting warp, while a lane waits for room in another ring:
    /// takes the messages that have arrived past this pass's range, in order
    /// and without waiting for any, and publishes the new head, so that a
    /// block waiting on this ring moves too. Does nothing until the
    /// `drainers` have finished the pass's range (every slot below its end
    /// is taken).
    #[inline(always)]
    fn take_waiting(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, marks: Dest, drainers: u32) {
        let h = me.smem.header;
        if h[FINISHED].load(Relaxed) < drainers {
            return;
        }
        // One at a time (the GPU's posters are one warp, the emulator's one
        // warp each); never waited for, so no thread spins on a holder.
        if h[LOCK].compare_exchange(0, 1, Relaxed, Relaxed).is_err() {
            return;
        }
        crew.fence_block();
        self.take_arrived(crew, me, marks);
        crew.fence_block();
        h[LOCK].store(0, Relaxed);
    }

    /// [`Self::take_waiting`]'s work, under its lock.
    #[inline(always)]
    fn take_arrived(&self, crew: &impl Crew, me: &Mine<'_, '_, P>, marks: Dest) {
        let h = me.smem.header;
        let mut pos = h[SELF].load(Relaxed);
        // Every slot below `pos` is taken: publish that first.
        if pos != h[PUBLISHED].load(Relaxed) {
            crew.fence_device();
            self.heads[me.block as usize].store(pos, Relaxed);
            h[PUBLISHED].store(pos, Relaxed);
        }
        let fresh = self.tails[me.block as usize].load(Relaxed);
        let most = fresh.wrapping_sub(pos);
        if (most as i32) <= 0 {
            return;
        }
        let mut count = 0;
        while count < most.min(self.cap) && self.take(crew, me, pos, marks, false) {
            pos = pos.wrapping_add(1);
            count += 1;
        }
        if count > 0 {
            h[SELF].store(pos, Relaxed);
            h[TAKEN].fetch_add(count, Relaxed);
            crew.fence_device();
            self.heads[me.block as usize].store(pos, Relaxed);
            h[PUBLISHED].store(pos, Relaxed);
        }
    }
}
