//! A tile's level: relaxing its queued vertices (the block's workers) and
//! marking the improved ones for the next level.

use core::sync::atomic::Ordering::Relaxed;

use super::{Crew, Mine, Tiles, CNT, EMPTY, MIN, OLEN, OVF, PART};
use crate::program::Program;
use crate::warp::Warp;
use crate::word::StateWord;

/// Where marks go: a level queue and its counters (`k % 2`, `k % 3`).
#[derive(Clone, Copy)]
pub(super) struct Dest {
    pub(super) queue: usize,
    pub(super) ctr: usize,
}

impl Dest {
    pub(super) fn of(level: usize) -> Self {
        Dest {
            queue: level % 2,
            ctr: level % 3,
        }
    }
}

/// Empties counters `ctr` (a queue's length, overflow flag and lowest order)
/// for the level that will fill them next; their last level is read.
#[inline(always)]
pub(super) fn clear(h: &[core::sync::atomic::AtomicU32], ctr: usize) {
    h[CNT + ctr].store(0, Relaxed);
    h[OVF + ctr].store(0, Relaxed);
    h[MIN + ctr].store(u32::MAX, Relaxed);
}

impl<P: Program> Tiles<'_, P> {
    /// Relaxes tile vertex `u` in a level whose orders stop below `limit`
    /// (later orders wait for a later level); marks go to `next`, candidates
    /// for other tiles to outbox part `part`; then follows the chain of
    /// in-tile neighbours it improved within the level's bucket
    /// ([`Self::follow`]). Returns the vertices relaxed.
    #[inline(always)]
    pub(super) fn process(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        u: u32,
        limit: u32,
        next: Dest,
        part: usize,
    ) -> u32 {
        if claim(me, u, limit, next).is_none() {
            return 0;
        }
        // See the module notes: the bit is clear before the state is read.
        crew.fence_block();
        let (n, held) = self.relax_row(crew, me, u, limit, next, part, self.chain > 0);
        n + self.follow(crew, me, held, limit, next, part)
    }

    /// Relaxes the row of taken tile vertex `u` (its pending bit cleared and
    /// fenced). A vertex whose remote edges do not all fit the outbox waits for
    /// the next level, whole: it counts them and reserves their slots at once,
    /// so each level finishes at least one vertex (the host keeps rows longer
    /// than a part of the outbox off this kernel). Returns whether it relaxed
    /// `u`, and, if `hold`, the first in-tile neighbour it improved within the
    /// bucket and kept for this thread (pending, in no queue). (Reserving the
    /// rest of the row at the first remote edge instead, with no count, was
    /// slower on the H100: grid 1000² BFS 7.5 → 11.3 ms,
    /// `74e218a:docs/results/h100/rings/`.)
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn relax_row(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        u: u32,
        limit: u32,
        next: Dest,
        part: usize,
        hold: bool,
    ) -> (u32, Option<u32>) {
        let s = P::State::load(&me.smem.states[u as usize]);
        let (a, b) = self.span(me, u);
        let remote = (a..b).filter(|&e| self.is_remote(me, e)).count() as u32;
        let mut at = 0usize;
        if remote > 0 {
            match reserve(crew, me, u, remote, part, next, || rank::<P>(s)) {
                Some(first) => at = first,
                None => return (0, None),
            }
        }
        let keep = hold.then_some(limit);
        let mut held = None;
        for e in a..b {
            let (k, w) = self.edge(me, e);
            let slot = (k.wrapping_sub(me.lo) >= me.len).then(|| {
                at += 1;
                part * PART + at - 1
            });
            relax_edge(crew, me, s, (k, w), slot, next, keep, &mut held);
        }
        (1, held)
    }

    /// Follows a chain from `held`, a tile vertex this thread improved within
    /// the level's bucket and kept pending in no queue ([`relax_edge`]): takes
    /// it (unless a bits scan took it first), relaxes its row, and goes on to
    /// the neighbour that row kept, for at most [`Tiles::chain`] vertices. Returns the
    /// vertices relaxed.
    ///
    /// Why: a level advances the bucket's wavefront one hop, and a tile runs
    /// about three levels per bucket on the SSSP grid (1,300–1,600 levels in the
    /// busiest tile, a few µs each); a hop followed inside the level costs one
    /// row's relaxation instead of a level.
    #[inline(always)]
    fn follow(
        &self,
        crew: &impl Crew,
        me: &Mine<'_, '_, P>,
        mut held: Option<u32>,
        limit: u32,
        next: Dest,
        part: usize,
    ) -> u32 {
        let mut n = 0;
        let mut hops = 0;
        while let Some(v) = held {
            if !unpend(me, v) {
                break;
            }
            crew.fence_block();
            hops += 1;
            let (k, h) = self.relax_row(crew, me, v, limit, next, part, hops < self.chain);
            n += k;
            held = h;
        }
        n
    }

    /// Relaxes a short level's queue (`queue.0..` in the queues, `queue.1`
    /// vertices) with the workers, this one `wid` of `threads` (whole warps),
    /// a group of lanes per vertex (a power of two, up to a warp, as many as
    /// the threads allow): the group's first lane takes the vertex as
    /// [`Self::process`] does, the lanes count its remote edges together and
    /// relax its edges `g` at a time. Returns the vertices relaxed.
    ///
    /// Why: a grid tile's level is a few vertices of four edges each, and one
    /// thread walking a row pays a chain of dependent shared-memory atomics
    /// per edge (combine, pending bit, queue slot, lowest order); a group
    /// pays one edge's chain.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn relax_groups<W: Warp>(
        &self,
        crew: &impl Crew,
        warp: W,
        me: &Mine<'_, '_, P>,
        (base, len): (usize, u32),
        limit: u32,
        next: Dest,
        part: usize,
        (wid, threads): (u32, u32),
    ) -> u32 {
        let size = W::SIZE;
        let g = group_lanes(threads, len, size);
        let lane = warp.lane();
        let mut vi = wid / size * (size / g) + lane / g;
        let mut pops = 0;
        // One vertex a group at a time (more than one turn only where the
        // threads are fewer than the vertices: the emulator's one-lane warp).
        for _ in 0..len.div_ceil(threads / g) {
            pops += self.relax_group(crew, warp, me, (base, len), vi, g, limit, next, part);
            vi += threads / g;
        }
        pops
    }

    /// [`Self::relax_groups`]' turn: the group of `g` lanes that this lane
    /// belongs to relaxes the level's vertex `vi` (none if `vi ≥ len`), then
    /// the chain it keeps: one in-tile neighbour a turn, improved within the
    /// bucket, relaxed by the whole group (up to [`Tiles::chain`] of them).
    /// (Each lane following its own chain instead, one thread a row, cut the
    /// 1000² grid's SSSP levels 1,575 → 597 but made the run slower, 6.2 →
    /// 8.7 ms: the lanes' chains ran one after another,
    /// `74e218a:docs/results/h100/chains/`.)
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn relax_group<W: Warp>(
        &self,
        crew: &impl Crew,
        warp: W,
        me: &Mine<'_, '_, P>,
        (base, len): (usize, u32),
        vi: u32,
        g: u32,
        limit: u32,
        next: Dest,
        part: usize,
    ) -> u32 {
        let lane = warp.lane();
        let sub = lane % g;
        let lead = lane - sub;
        let smem = me.smem;
        let group = if g >= 32 {
            u32::MAX
        } else {
            ((1u32 << g) - 1) << lead
        };
        let below = (1u32 << lane) - 1;
        let (mut u, mut take) = (0u32, false);
        if sub == 0 && vi < len {
            u = smem.queues[base + vi as usize].load(Relaxed);
            take = claim(me, u, limit, next).is_some();
        }
        let (mut pops, mut hops) = (0, 0);
        // One vertex a turn: the queued one, then the chain the group keeps.
        loop {
            // The bit is clear before any lane of the group reads the state (the
            // module notes); the warp barrier orders the lanes.
            crew.fence_block();
            warp.sync();
            let x = warp.shfl(u, lead);
            let took = warp.shfl(u32::from(take), lead) != 0;
            let (a, b) = if took { self.span(me, x) } else { (0, 0) };
            let mut remote = 0u32;
            let mut e = a + sub as usize;
            while e < b {
                remote += u32::from(self.is_remote(me, e));
                e += g as usize;
            }
            let mut k = 1;
            while k < g {
                remote += warp.shfl(remote, lane ^ k);
                k *= 2;
            }
            // The first lane reserves the group's outbox slots, all or none.
            let (mut at, mut full) = (0u32, false);
            if sub == 0 && took && remote > 0 {
                let order = || rank::<P>(P::State::load(&smem.states[x as usize]));
                match reserve(crew, me, x, remote, part, next, order) {
                    Some(first) => at = first as u32,
                    None => full = true,
                }
            }
            // Every lane shuffles (the warp-uniformity rule), groups with no
            // vertex too.
            let at = warp.shfl(at, lead);
            let full = warp.shfl(u32::from(full), lead) != 0;
            let go = took && !full;
            let s = if go {
                P::State::load(&smem.states[x as usize])
            } else {
                P::init(0, 0)
            };
            let keep = (hops < self.chain).then_some(limit);
            let mut held = None;
            let (mut first, mut sent) = (a, 0u32);
            loop {
                let e = first + sub as usize;
                let live = go && e < b;
                let far = live && self.is_remote(me, e);
                let mask = warp.ballot(far) & group;
                if live {
                    let slot = far
                        .then(|| part * PART + (at + sent + (mask & below).count_ones()) as usize);
                    relax_edge(crew, me, s, self.edge(me, e), slot, next, keep, &mut held);
                }
                sent += mask.count_ones();
                first += g as usize;
                if warp.ballot(go && first < b) == 0 {
                    break;
                }
            }
            pops += u32::from(sub == 0 && go);
            hops += 1;
            // The group's lowest lane that kept a neighbour hands it to the
            // group's first lane, which relaxes it next with the whole group;
            // the others queue theirs for the next level.
            let holding = warp.ballot(held.is_some()) & group;
            let pick = if holding == 0 {
                lead
            } else {
                holding.trailing_zeros()
            };
            let v = warp.shfl(held.unwrap_or(0), pick);
            if let Some(w) = held {
                if lane != pick {
                    release(me, w, next);
                }
            }
            take = false;
            if sub == 0 && holding != 0 {
                u = v;
                take = unpend(me, v);
            }
            if warp.ballot(take) == 0 {
                break;
            }
        }
        pops
    }
}

/// Takes queued tile vertex `u` for a level whose orders stop below `limit`:
/// its rank if its pending bit was set (now clear); `None` for a vertex not
/// this level's (it stays pending, in `next`'s queue) or taken already (the
/// bits scan of an overflowed queue can meet a vertex twice).
#[inline(always)]
fn claim<P: Program>(me: &Mine<'_, '_, P>, u: u32, limit: u32, next: Dest) -> Option<u32> {
    let smem = me.smem;
    let r = rank::<P>(P::State::load(&smem.states[u as usize]));
    if r >= limit {
        push(me, u, next);
        smem.header[MIN + next.ctr].fetch_min(r, Relaxed);
        return None;
    }
    unpend(me, u).then_some(r)
}

/// Clears tile vertex `u`'s pending bit: whether it was set (this thread
/// takes `u`; the module notes say why the state is read only after this).
#[inline(always)]
fn unpend<P: Program>(me: &Mine<'_, '_, P>, u: u32) -> bool {
    let bit = 1u32 << (u % 32);
    me.smem.pending[(u / 32) as usize].fetch_and(!bit, Relaxed) & bit != 0
}

/// Reserves `remote` slots of outbox part `part` for taken tile vertex `u`'s
/// remote edges, all or none: the first slot, or `None` when the part is
/// full (the part reserved is emptied, and `u` stays pending for `next`,
/// with order `order()`).
#[inline(always)]
fn reserve<P: Program>(
    crew: &impl Crew,
    me: &Mine<'_, '_, P>,
    u: u32,
    remote: u32,
    part: usize,
    next: Dest,
    order: impl FnOnce() -> u32,
) -> Option<usize> {
    let out = &me.smem.out;
    let at = me.smem.header[OLEN + part].fetch_add(remote, Relaxed) as usize;
    if at + remote as usize <= PART {
        return Some(at);
    }
    for j in at..(at + remote as usize).min(PART) {
        u32::put(&out.keys[part * PART + j], EMPTY);
    }
    mark(crew, me, u, order(), next);
    None
}

/// Relaxes edge `(k, w)` of a taken vertex whose state is `s`: into the
/// tile (`slot` is `None`: combine, and if it improved, keep the target for
/// this thread's chain when `keep` gives the bucket's limit, nothing is
/// `held` yet and the target's order is below the limit, else mark it for
/// `next`), or into outbox `slot` (the target and candidate, or an empty
/// entry).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn relax_edge<P: Program>(
    crew: &impl Crew,
    me: &Mine<'_, '_, P>,
    s: P::State,
    (k, w): (u32, P::Weight),
    slot: Option<usize>,
    next: Dest,
    keep: Option<u32>,
    held: &mut Option<u32>,
) {
    let cand = P::relax(s, w, 0);
    let out = &me.smem.out;
    match (slot, cand) {
        (None, Some(c)) => {
            let local = k.wrapping_sub(me.lo);
            if P::combine(&me.smem.states[local as usize], c) {
                let order = rank::<P>(c);
                match keep {
                    Some(limit) if held.is_none() && order < limit => {
                        if hold(crew, me, local, order, next) {
                            *held = Some(local);
                        }
                    }
                    _ => mark(crew, me, local, order, next),
                }
            }
        }
        (None, None) => {}
        (Some(slot), Some(c)) => {
            u32::put(&out.keys[slot], k);
            P::State::put(&out.cands[slot], c);
        }
        (Some(slot), None) => u32::put(&out.keys[slot], EMPTY),
    }
}

/// Queues vertex `i`, which [`hold`] kept pending in no queue, for `into` after
/// all, with its order.
#[inline(always)]
fn release<P: Program>(me: &Mine<'_, '_, P>, i: u32, into: Dest) {
    push(me, i, into);
    let order = rank::<P>(P::State::load(&me.smem.states[i as usize]));
    me.smem.header[MIN + into.ctr].fetch_min(order, Relaxed);
}

/// [`mark`] but the queueing, for a vertex the marking thread will relax
/// itself in this level ([`Tiles::follow`]): sets its pending bit and, if the
/// bit was clear, queues it nowhere and returns true. If it was set, the vertex is queued
/// already (or kept by another thread's chain, which reads its state after
/// clearing the bit): its order is reported to `into` as [`mark`] does.
#[inline(always)]
fn hold<P: Program>(
    crew: &impl Crew,
    me: &Mine<'_, '_, P>,
    i: u32,
    order: u32,
    into: Dest,
) -> bool {
    crew.fence_block();
    let bit = 1u32 << (i % 32);
    if me.smem.pending[(i / 32) as usize].fetch_or(bit, Relaxed) & bit == 0 {
        return true;
    }
    me.smem.header[MIN + into.ctr].fetch_min(order, Relaxed);
    false
}

/// Lanes per vertex when `threads` relax `len` vertices: the largest power
/// of two, up to a warp, that still gives every vertex a group.
#[inline(always)]
pub(super) fn group_lanes(threads: u32, len: u32, warp: u32) -> u32 {
    let per = (threads / len.max(1)).clamp(1, warp);
    1 << (31 - per.leading_zeros())
}

/// A pending vertex's place in a tile's order: [`Program::order`] below
/// `u32::MAX`, which the counters keep for "nothing queued". A priority that
/// saturates there (64-bit distances of 2^32 − 1 and more) ranks just under it,
/// with every other such vertex.
#[inline(always)]
pub(super) fn rank<P: Program>(state: P::State) -> u32 {
    P::order(state).min(u32::MAX - 1)
}

/// Marks tile vertex `i` pending, after its improved state, queues it for
/// `into` unless it is pending already, and reports its order there.
#[inline(always)]
pub(super) fn mark<P: Program>(
    crew: &impl Crew,
    me: &Mine<'_, '_, P>,
    i: u32,
    order: u32,
    into: Dest,
) {
    if hold(crew, me, i, order, into) {
        push(me, i, into);
        me.smem.header[MIN + into.ctr].fetch_min(order, Relaxed);
    }
}

/// Appends pending vertex `u` to `into`'s queue, or flags the queue full (its
/// level then scans the pending bits).
#[inline(always)]
fn push<P: Program>(me: &Mine<'_, '_, P>, u: u32, into: Dest) {
    let h = me.smem.header;
    let p = h[CNT + into.ctr].fetch_add(1, Relaxed);
    if p < me.q {
        u32::put(&me.smem.queues[into.queue * me.q as usize + p as usize], u);
    } else {
        u32::put(&h[OVF + into.ctr], 1);
    }
}
