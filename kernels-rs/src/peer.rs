//! The multi-GPU exchange without NCCL: after a level, each GPU reads every
//! peer's slice of a buffer laid out alike on all GPUs (the frontier bitmap the
//! level wrote, the states) straight out of the peer's memory over NVLink, and
//! sums the parts' level counters for its planner.
//!
//! NCCL's all-gather and all-reduce cost two kernels and a proxy round trip per
//! level, about 80 µs at scale 26 on 4 GPUs against 15–20 µs of NVLink
//! transfer. Here one launch per GPU does both, and enables peer access so a
//! peer's device address can be loaded from directly. Every part's level must
//! be written before any part reads it: either the host orders the launch after
//! cross-GPU event waits (the default), or the launch itself waits ([`Arrive`]:
//! each GPU publishes its counters and writes its arrival into every peer's
//! memory, then spins until every peer's arrival is in its own). On two H200s the
//! second was no faster (Graph500 BFS at scales 24 and 25: 1.04× and 0.93×): the
//! exchange's fixed cost is not the event wait. Where a part writes the
//! buffers again before the next exchange, the host also waits for every read.

use core::sync::atomic::AtomicU64;

use crate::thread::ThreadCtx;

/// Words a thread has in flight per step: remote loads take microseconds, so
/// several independent ones per thread keep the NVLink busy.
pub const UNROLL: u64 = 4;

/// Words per row of an exchange table: address, first word, words, mask
/// address (0: none), words per masked element.
pub const ROW: usize = 5;

/// One GPU's exchange.
pub struct PeerGather<'a> {
    /// This GPU's part.
    pub me: usize,
    /// Parts (GPUs) in the exchange.
    pub parts: usize,
    /// Per buffer, per part `q` (`parts` rows of [`ROW`] words per buffer):
    /// the address of `q`'s copy of the buffer (as `u32` words), `q`'s slice
    /// as first word and word count, and an optional mask: the address of
    /// `q`'s bitmap and the words per element (`unit`), word `i` then going
    /// only if bit `i / unit` is set. This GPU's own row is the destination;
    /// the other rows are read.
    ///
    /// The mask is what keeps the states' exchange small: a state changes only
    /// where its vertex joins the bitmap exchanged with it, and the kernels
    /// read other parts' states only of vertices in it (the host emulation
    /// copies the same way, so every program's test checks that).
    pub table: &'a [u64],
    /// Buffers in `table`.
    pub bufs: usize,
    /// Every part's counter words (`parts` addresses), or none.
    pub sums: &'a [u64],
    /// Counter words summed.
    pub sum_words: usize,
    /// Where their sums go (`sum_words` words on this GPU).
    pub sum_out: *mut u64,
    /// The barrier before the copies, when the launch waits for its peers
    /// itself; `None` when the host ordered it after every peer's level.
    pub arrive: Option<Arrive<'a>>,
}

/// A device-side barrier: every part's launch of one exchange first publishes
/// its counters, then writes the exchange's `epoch` into its word of every
/// peer's arrival array (a release at system scope: the publication, and the
/// level the stream finished before the launch, are seen by a peer that sees
/// the arrival), then waits until every peer's word in its own array reaches
/// `epoch` (an acquire). Epochs only grow, so no array is ever reset, and a
/// part can be at most one exchange ahead of a peer (it waits for the peer's
/// arrival in each), so the published slots alternate by the epoch's parity.
#[derive(Clone, Copy)]
pub struct Arrive<'a> {
    /// This exchange's number, above every earlier exchange's.
    pub epoch: u64,
    /// Every part's arrival array (`parts` addresses, each array `parts`
    /// words: word `p` is written by part `p`).
    pub flags: &'a [u64],
    /// This part's level counters (`sum_words` words) and its published slot
    /// (the address in `sums` for this part), copied before arriving.
    pub publish: (*const u64, *mut u64),
}

/// How long a part waits for a peer's arrival before it gives up (a trap: the
/// run's next synchronisation fails instead of hanging): far above any level's
/// time, so only a peer that never launched its side trips it.
pub const ARRIVE_TIMEOUT_NS: u64 = 20_000_000_000;

impl PeerGather<'_> {
    /// One thread's share: the copies of every (buffer, peer) pair run side by
    /// side on their own blocks; thread 0 also sums the counters.
    ///
    /// # Safety
    /// Every address in `table` (and `sums`) must be readable for the slices it
    /// names (written for this GPU's rows) from this GPU, and no part may write
    /// the slices read, or read the slices written, until every GPU's launch
    /// ends.
    #[inline(always)]
    pub unsafe fn run(&self, t: ThreadCtx) {
        if let Some(a) = &self.arrive {
            // SAFETY: the caller's contract covers the barrier's addresses.
            unsafe { self.wait(t, a) };
        }
        let peers = self.parts.saturating_sub(1);
        t.each_part((self.bufs * peers) as u32, |job, sub| {
            let (b, k) = (job / peers, job % peers);
            let q = if k >= self.me { k + 1 } else { k };
            let row = |p: usize| (b * self.parts + p) * ROW;
            let (src, dst) = (self.table[row(q)], self.table[row(self.me)]);
            let (first, count) = (self.table[row(q) + 1], self.table[row(q) + 2]);
            let (mask, unit) = (self.table[row(q) + 3], self.table[row(q) + 4]);
            // SAFETY: the caller's contract: both copies hold `q`'s slice, the
            // mask its bits.
            unsafe {
                match mask {
                    0 => copy_words(sub, src as *const u32, dst as *mut u32, first, count),
                    _ => copy_masked(
                        sub,
                        src as *const u32,
                        dst as *mut u32,
                        (first, count),
                        mask as *const u32,
                        unit.max(1),
                    ),
                }
            };
        });
        if t.global() == 0 {
            for w in 0..self.sum_words {
                let mut s = 0u64;
                for &a in self.sums {
                    // SAFETY: the caller's contract: `sum_words` counters at `a`.
                    s = s.wrapping_add(unsafe { (a as *const u64).add(w).read_volatile() });
                }
                // SAFETY: `sum_out` holds `sum_words` words on this GPU.
                unsafe { self.sum_out.add(w).write(s) };
            }
        }
    }
}

impl PeerGather<'_> {
    /// The [`Arrive`] barrier: thread 0 of the grid publishes and arrives,
    /// thread 0 of every block waits for the peers, and the block waits for it.
    /// Every thread of the block must call it.
    ///
    /// # Safety
    /// As [`PeerGather::run`]; `a.flags` and `a.publish` name live words.
    #[inline(always)]
    unsafe fn wait(&self, t: ThreadCtx, a: &Arrive<'_>) {
        if t.global() == 0 {
            let (from, to) = a.publish;
            for w in 0..self.sum_words {
                // SAFETY: `sum_words` words at both (the caller's contract).
                unsafe { to.add(w).write_volatile(from.add(w).read_volatile()) };
            }
            for (q, &f) in a.flags.iter().enumerate() {
                if q != self.me {
                    // SAFETY: part `q`'s array has a word for every part.
                    unsafe { store_release_sys((f as *mut u64).add(self.me), a.epoch) };
                }
            }
        }
        if t.thread_idx == 0 {
            let mine = a.flags[self.me] as *const u64;
            let start = timer_ns();
            for q in (0..self.parts).filter(|&q| q != self.me) {
                // SAFETY: this part's array has a word for every part.
                while unsafe { load_acquire_sys(mine.add(q)) } < a.epoch {
                    if timer_ns().wrapping_sub(start) > ARRIVE_TIMEOUT_NS {
                        give_up();
                    }
                    core::hint::spin_loop();
                }
            }
        }
        block_sync();
    }
}

/// `*p = v` with release semantics at system scope (seen by the peers).
///
/// # Safety
/// `p` names a live, aligned word.
#[inline(always)]
unsafe fn store_release_sys(p: *mut u64, v: u64) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract; one aligned 8-byte store.
    unsafe {
        core::arch::asm!("st.release.sys.global.u64 [{p}], {v};", p = in(reg64) p as u64, v = in(reg64) v, options(nostack));
    }
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract; an aligned `u64` is an `AtomicU64`.
    unsafe {
        (*(p as *const AtomicU64)).store(v, core::sync::atomic::Ordering::Release)
    }
}

/// `*p` with acquire semantics at system scope.
///
/// # Safety
/// `p` names a live, aligned word.
#[inline(always)]
unsafe fn load_acquire_sys(p: *const u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let v: u64;
        // SAFETY: the caller's contract; one aligned 8-byte load.
        unsafe {
            core::arch::asm!("ld.acquire.sys.global.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p as u64, options(nostack));
        }
        v
    }
    #[cfg(not(target_arch = "nvptx64"))]
    // SAFETY: the caller's contract; an aligned `u64` is an `AtomicU64`.
    unsafe {
        (*(p as *const AtomicU64)).load(core::sync::atomic::Ordering::Acquire)
    }
}

/// Nanoseconds on the GPU's global timer; on the host a count of calls, which
/// spins about as long before [`give_up`].
#[inline(always)]
fn timer_ns() -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let t: u64;
        // SAFETY: reads a special register.
        unsafe {
            core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack))
        };
        t
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        CALLS.fetch_add(1, core::sync::atomic::Ordering::Relaxed)
    }
}

/// A peer never arrived: stop the kernel (the run's next synchronisation then
/// fails with a launch error instead of hanging).
#[inline(always)]
fn give_up() -> ! {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `trap` aborts the kernel; nothing after it runs.
    unsafe {
        core::arch::asm!("trap;", options(nostack, noreturn))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("peer exchange: a peer never arrived")
}

/// Every thread of the block waits for all of them (`bar.sync 0`); the host
/// emulator runs a block's threads one after another, so it is a no-op there.
#[inline(always)]
fn block_sync() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every thread of the block calls it (the kernel's contract).
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
}

/// Words `first..first + count` from `src` to `dst`, grid-stride over `t`'s
/// (sub-)grid with [`UNROLL`] loads in flight per thread.
///
/// # Safety
/// `src` readable and `dst` writable for those words, not overlapping.
#[inline(always)]
unsafe fn copy_words(t: ThreadCtx, src: *const u32, dst: *mut u32, first: u64, count: u64) {
    let stride = t.stride();
    let at = |i: u64| (first + i) as usize;
    let mut i = t.global();
    // SAFETY (both loops): every index is below `count`.
    while i + (UNROLL - 1) * stride < count {
        let mut w = [0u32; UNROLL as usize];
        for (u, x) in w.iter_mut().enumerate() {
            *x = unsafe { src.add(at(i + u as u64 * stride)).read() };
        }
        for (u, x) in w.iter().enumerate() {
            unsafe { dst.add(at(i + u as u64 * stride)).write(*x) };
        }
        i += UNROLL * stride;
    }
    while i < count {
        unsafe { dst.add(at(i)).write(src.add(at(i)).read()) };
        i += stride;
    }
}

/// [`copy_words`] of the words whose element (`unit` words each) has its
/// bit set in `mask`: a warp's lanes read neighbouring words, so they share
/// the mask word, and a sparse frontier moves little more than its bitmap.
///
/// # Safety
/// As [`copy_words`]; `mask` readable for the slice's elements' bits.
#[inline(always)]
unsafe fn copy_masked(
    t: ThreadCtx,
    src: *const u32,
    dst: *mut u32,
    (first, count): (u64, u64),
    mask: *const u32,
    unit: u64,
) {
    let stride = t.stride();
    let mut i = t.global();
    while i < count {
        let w = first + i;
        let e = w / unit;
        // SAFETY: `e` is an element of the slice: its bit is in `mask`, the
        // word in both copies.
        unsafe {
            if (mask.add((e / 32) as usize).read() >> (e % 32)) & 1 == 1 {
                dst.add(w as usize).write(src.add(w as usize).read());
            }
        }
        i += stride;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Runs every thread of a `blocks` × `block` grid, one after another.
    fn run_grid(g: &PeerGather<'_>, blocks: u32, block: u32) {
        for b in 0..blocks {
            for th in 0..block {
                let t = ThreadCtx {
                    thread_idx: th,
                    block_idx: b,
                    block_dim: block,
                    grid_dim: blocks,
                };
                // SAFETY: the tables below name live host buffers.
                unsafe { g.run(t) };
            }
        }
    }

    #[test]
    fn every_part_ends_with_every_slice_and_the_sums() {
        // Three parts of unequal slices (7, 0, 12 words) over one buffer of 19,
        // each part's copy holding only its own slice; counters 2 words each.
        let slices = [(0u64, 7u64), (7, 0), (7, 12)];
        let mut bufs: Vec<Vec<u32>> = (0..3)
            .map(|p| {
                (0..19u32)
                    .map(|i| {
                        let (f, c) = slices[p];
                        if (i as u64) >= f && (i as u64) < f + c {
                            1000 * p as u32 + i
                        } else {
                            u32::MAX
                        }
                    })
                    .collect()
            })
            .collect();
        let counters: Vec<[u64; 2]> = vec![[1, 10], [2, 20], [3, 30]];
        let sums: Vec<u64> = counters.iter().map(|c| c.as_ptr() as u64).collect();
        let addrs: Vec<u64> = bufs.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        let table: Vec<u64> = (0..3)
            .flat_map(|q| [addrs[q], slices[q].0, slices[q].1, 0, 0])
            .collect();
        for me in 0..3 {
            let mut out = [0u64; 2];
            let g = PeerGather {
                me,
                parts: 3,
                table: &table,
                bufs: 1,
                sums: &sums,
                sum_words: 2,
                sum_out: out.as_mut_ptr(),
                arrive: None,
            };
            // Fewer blocks than jobs, then more: both ways of sharing the grid.
            run_grid(&g, 1 + me as u32 * 3, 8);
            assert_eq!(out, [6, 60]);
        }
        for (p, b) in bufs.iter().enumerate() {
            for (i, &w) in b.iter().enumerate() {
                let owner = slices
                    .iter()
                    .position(|&(f, c)| (i as u64) >= f && (i as u64) < f + c)
                    .unwrap();
                assert_eq!(w, 1000 * owner as u32 + i as u32, "part {p} word {i}");
            }
        }
    }

    #[test]
    fn masked_rows_copy_only_the_elements_whose_bit_is_set() {
        // Two parts over 70 two-word elements (part 0: 0..64, part 1: 64..70);
        // part 1's bitmap marks elements 64, 66 and 69.
        let mut st: Vec<Vec<u32>> = (0..2)
            .map(|p| (0..140u32).map(|i| 10_000 * p + i).collect())
            .collect();
        let bits: Vec<Vec<u32>> = vec![vec![u32::MAX, 0, 0], vec![0, 0, 0b1010_0101]];
        let a: Vec<u64> = st.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
        let table: Vec<u64> = vec![
            a[0],
            0,
            128,
            bits[0].as_ptr() as u64,
            2,
            a[1],
            128,
            12,
            bits[1].as_ptr() as u64,
            2,
        ];
        let g = PeerGather {
            me: 0,
            parts: 2,
            table: &table,
            bufs: 1,
            sums: &[],
            sum_words: 0,
            sum_out: core::ptr::null_mut(),
            arrive: None,
        };
        run_grid(&g, 2, 8);
        for i in 128..140u32 {
            let e = i / 2;
            let set = matches!(e, 64 | 66 | 69);
            let want = if set { 10_000 + i } else { i };
            assert_eq!(st[0][i as usize], want, "word {i}");
        }
        // Part 0's own slice is untouched.
        assert!((0..128u32).all(|i| st[0][i as usize] == i));
    }

    /// Parts as OS threads running side by side, each through exchanges 1..=6
    /// with the [`Arrive`] barrier alone: a level writes the part's slice of
    /// the epoch's buffer (two, alternating, as a level's bitmaps) and its
    /// counters, then the launch publishes, arrives, waits and copies. Every
    /// part must read every peer's slice of that epoch, never a stale or a
    /// later one, and the counters' sums of that epoch.
    #[test]
    fn parts_that_arrive_themselves_read_each_epochs_slices_and_sums() {
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        const PARTS: usize = 3;
        const WORDS: usize = 8; // per part
                                // Per part: two buffers of PARTS·WORDS words, its counters (2 words),
                                // two published slots of 2 words, its arrival array.
        struct Part {
            bufs: [Vec<AtomicU32>; 2],
            counters: [AtomicU64; 2],
            published: [AtomicU64; 4],
            flags: Vec<AtomicU64>,
        }
        let parts: Vec<Part> = (0..PARTS)
            .map(|_| Part {
                bufs: [0, 1].map(|_| (0..PARTS * WORDS).map(|_| AtomicU32::new(0)).collect()),
                counters: [AtomicU64::new(0), AtomicU64::new(0)],
                published: [0; 4].map(AtomicU64::new),
                flags: (0..PARTS).map(|_| AtomicU64::new(0)).collect(),
            })
            .collect();
        let flags: Vec<u64> = parts.iter().map(|p| p.flags.as_ptr() as u64).collect();
        let value =
            |epoch: u64, q: usize, i: usize| (epoch * 1000 + q as u64 * 100 + i as u64) as u32;
        std::thread::scope(|s| {
            for me in 0..PARTS {
                let (parts, flags) = (&parts, &flags);
                s.spawn(move || {
                    for epoch in 1..=6u64 {
                        let b = (epoch % 2) as usize;
                        let part = &parts[me];
                        for i in 0..WORDS {
                            part.bufs[b][me * WORDS + i].store(value(epoch, me, i), Relaxed);
                        }
                        part.counters[0].store(epoch, Relaxed);
                        part.counters[1].store(10 * me as u64 + epoch, Relaxed);
                        let table: Vec<u64> = (0..PARTS)
                            .flat_map(|q| {
                                let a = parts[q].bufs[b].as_ptr() as u64;
                                [a, (q * WORDS) as u64, WORDS as u64, 0, 0]
                            })
                            .collect();
                        let slot = b * 2;
                        let sums: Vec<u64> = parts
                            .iter()
                            .map(|p| p.published[slot..].as_ptr() as u64)
                            .collect();
                        let mut out = [0u64; 2];
                        let g = PeerGather {
                            me,
                            parts: PARTS,
                            table: &table,
                            bufs: 1,
                            sums: &sums,
                            sum_words: 2,
                            sum_out: out.as_mut_ptr(),
                            arrive: Some(Arrive {
                                epoch,
                                flags,
                                publish: (
                                    part.counters.as_ptr() as *const u64,
                                    part.published[slot..].as_ptr() as *mut u64,
                                ),
                            }),
                        };
                        run_grid(&g, 2, 4);
                        for q in 0..PARTS {
                            for i in 0..WORDS {
                                let got = part.bufs[b][q * WORDS + i].load(Relaxed);
                                assert_eq!(
                                    got,
                                    value(epoch, q, i),
                                    "part {me} epoch {epoch} from {q}"
                                );
                            }
                        }
                        let want1: u64 = (0..PARTS as u64).map(|q| 10 * q + epoch).sum();
                        assert_eq!(
                            out,
                            [PARTS as u64 * epoch, want1],
                            "part {me} epoch {epoch}"
                        );
                    }
                });
            }
        });
    }
}
