//! A short level relaxed by groups of lanes ([`Tiles::relax_groups`]) on the
//! host with real 32-lane warps (`crate::lockstep`), against the same level
//! relaxed one vertex at a time by [`Tiles::process`]: the same states,
//! pending bits, next queue (as a set), lowest order and outbox (as a
//! multiset). The emulator's one-lane warps cannot run the groups' votes and
//! shuffles.

extern crate std;

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::vec;
use std::vec::Vec;

use super::level::{group_lanes, Dest};
use super::{Crew, Mine, Outbox, TileSmem, Tiles, CNT, MIN, OLEN, OUTBOX, SMEM_HEADER};
use crate::bfs::{BfsAtomicMin, UNREACHED};
use crate::lockstep::{launch_warps, Lockstep};
use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::warp::{SoloLane, Warp};

/// A `w × h` grid (4-neighbour, symmetric).
fn grid(w: u32, h: u32) -> (Vec<u64>, Vec<u32>) {
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = y * w + x;
            if y > 0 {
                targets.push(v - w);
            }
            if x > 0 {
                targets.push(v - 1);
            }
            if x + 1 < w {
                targets.push(v + 1);
            }
            if y + 1 < h {
                targets.push(v + w);
            }
            offsets.push(targets.len() as u64);
        }
    }
    (offsets, targets)
}

struct Crewless(ThreadCtx);

impl Crew for Crewless {
    fn ctx(&self) -> ThreadCtx {
        self.0
    }
    fn sync_block(&self) {
        unreachable!("a level's groups use warp barriers only")
    }
    fn sync_workers(&self, _threads: u32) {
        unreachable!("a level's groups use warp barriers only")
    }
    fn fence_block(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn fence_device(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn idle(&self) {}
}

/// The level's kernel view, handed to the lanes' threads.
#[derive(Clone, Copy)]
struct Shared<'a, 'b, 's>(&'a Tiles<'b, BfsAtomicMin>, &'a Mine<'b, 's, BfsAtomicMin>);

// SAFETY: the raw pointers inside (a rows copy, the spare shared memory) are
// null or unused here (`rows: None`, `spare_words: 0`); everything else is
// atomics or read-only slices.
unsafe impl Sync for Shared<'_, '_, '_> {}
// SAFETY: as above.
unsafe impl Send for Shared<'_, '_, '_> {}

/// One tile's shared memory, owned.
struct Smem {
    header: Vec<AtomicU32>,
    states: Vec<AtomicU32>,
    pending: Vec<AtomicU32>,
    queues: Vec<AtomicU32>,
    keys: Vec<AtomicU32>,
    cands: Vec<AtomicU32>,
    heads: Vec<AtomicU32>,
}

fn atomics(v: impl IntoIterator<Item = u32>) -> Vec<AtomicU32> {
    v.into_iter().map(AtomicU32::new).collect()
}

/// The tile `[lo, lo + len)` of a 16 × 6 grid with `level` (its queue:
/// `queue`, all at BFS level 3 and pending) about to run.
fn setup(len: u32, queue: &[u32]) -> Smem {
    let mut states: Vec<u32> = vec![UNREACHED; len as usize];
    let mut bits = vec![0u32; len.div_ceil(32) as usize];
    for &u in queue {
        states[u as usize] = 3;
        bits[(u / 32) as usize] |= 1 << (u % 32);
    }
    // A neighbour already reached, so that some edges do not improve.
    states[0] = 2;
    let q = super::queue_len(u64::from(len)) as usize;
    let mut qs = vec![0u32; 2 * q];
    qs[..queue.len()].copy_from_slice(queue);
    let mut header = vec![0u32; SMEM_HEADER];
    for c in 0..3 {
        header[MIN + c] = u32::MAX;
    }
    header[CNT] = queue.len() as u32;
    header[MIN] = 3;
    Smem {
        header: atomics(header),
        states: atomics(states),
        pending: atomics(bits),
        queues: atomics(qs),
        keys: atomics(vec![u32::MAX; OUTBOX]),
        cands: atomics(vec![0; OUTBOX]),
        heads: atomics([0]),
    }
}

/// The first word of an overflowed queue in an [`Outcome`].
const OVERFLOWED: u32 = u32::MAX;

/// What a level left: states, pending bits, next queue (sorted), its lowest
/// order, outbox entries of half 0 (sorted).
type Outcome = (Vec<u32>, Vec<u32>, Vec<u32>, u32, Vec<(u32, u32)>);

fn outcome(s: &Smem, len: u32) -> Outcome {
    let load = |v: &[AtomicU32]| v.iter().map(|a| a.load(Relaxed)).collect::<Vec<_>>();
    let q = super::queue_len(u64::from(len)) as usize;
    let next = Dest::of(1);
    // An overflowed queue keeps whichever pushes came first: compare its
    // length only (after `OVERFLOWED`, which no vertex id is).
    let n = s.header[CNT + next.ctr].load(Relaxed) as usize;
    let queue: Vec<u32> = if n <= q {
        let mut queue = load(&s.queues[next.queue * q..next.queue * q + n]);
        queue.sort_unstable();
        queue
    } else {
        vec![OVERFLOWED, n as u32]
    };
    let olen = s.header[OLEN].load(Relaxed) as usize;
    let mut out: Vec<(u32, u32)> = (0..olen)
        .map(|i| (s.keys[i].load(Relaxed), s.cands[i].load(Relaxed)))
        .collect();
    out.sort_unstable();
    (
        load(&s.states),
        load(&s.pending),
        queue,
        s.header[MIN + next.ctr].load(Relaxed),
        out,
    )
}

/// Runs level 0 of tile `[lo, lo + len)` with `queue` queued: by `warps`
/// lockstep warps in groups, or (`warps == 0`) by one thread through
/// `process`, vertex by vertex; threads follow chains of up to `chain`
/// vertices.
fn run_level(lo: u32, len: u32, queue: &[u32], warps: u32) -> Outcome {
    run_level_chained(lo, len, queue, warps, 0)
}

fn run_level_chained(lo: u32, len: u32, queue: &[u32], warps: u32, chain: u32) -> Outcome {
    let (offsets, targets) = grid(16, 6);
    let n = offsets.len() - 1;
    let weights: Vec<()> = vec![(); targets.len()];
    let state: Vec<AtomicU32> = atomics(vec![0; n]);
    let (msgs, tails, heads, ctl): (Vec<AtomicU64>, _, _, _) =
        (Vec::new(), atomics([0]), atomics([0]), atomics([0; 64]));
    let tiles = Tiles::<BfsAtomicMin> {
        graph: CsrView {
            offsets: &offsets,
            targets: &targets,
        },
        weights: &weights,
        state: &state,
        msgs: &msgs,
        cands: &[],
        tails: &tails,
        heads: &heads,
        ctl: &ctl,
        tile: len,
        delta: 1,
        cap: 1,
        source: 0,
        every: false,
        chain,
    };
    let s = setup(len, queue);
    let smem = TileSmem::<BfsAtomicMin> {
        header: &s.header,
        states: &s.states,
        pending: &s.pending,
        queues: &s.queues,
        out: Outbox {
            keys: &s.keys,
            cands: &s.cands,
        },
        heads: &s.heads,
        spare: core::ptr::null_mut(),
        spare_words: 0,
    };
    let me = Mine {
        block: 0,
        lo,
        len,
        smem: &smem,
        rows: None,
        q: super::queue_len(u64::from(len)) as u32,
    };
    let (here, next) = (Dest::of(0), Dest::of(1));
    let base = here.queue * me.q as usize;
    let count = queue.len() as u32;
    if warps == 0 {
        let crew = Crewless(ThreadCtx {
            thread_idx: 0,
            block_idx: 0,
            block_dim: 1,
            grid_dim: 1,
        });
        for &u in queue {
            tiles.process(&crew, &me, u, 4, next, 0);
        }
    } else {
        // `launch_warps` runs one warp a block; the groups' layout only needs
        // every lane's index within the "block" of `warps` warps.
        let threads = warps * 32;
        let shared = Shared(&tiles, &me);
        launch_warps(warps, move |t, w: Lockstep| {
            let Shared(tiles, me) = { shared };
            let crew = Crewless(ThreadCtx {
                thread_idx: t.block_idx * 32 + t.thread_idx,
                block_idx: 0,
                block_dim: threads,
                grid_dim: 1,
            });
            let wid = crew.0.thread_idx;
            tiles.relax_groups(&crew, w, me, (base, count), 4, next, 0, (wid, threads));
        });
    }
    outcome(&s, len)
}

#[test]
fn groups_of_lanes_relax_a_level_as_one_thread_does() {
    // Tile: rows 1..5 of the 16-wide grid; rows 0 and 5 are other tiles'.
    let (lo, len) = (16, 64);
    for queue in [
        vec![5u32],
        vec![0, 1, 17, 40],
        vec![3, 9, 20, 33, 47, 48, 49, 63],
        (0..len).step_by(3).collect::<Vec<_>>(),
        (0..len).collect::<Vec<_>>(),
    ] {
        let want = run_level(lo, len, &queue, 0);
        assert!(!want.4.is_empty() || queue.len() == 1, "no remote edges");
        for warps in [1, 2, 4] {
            let g = group_lanes(warps * 32, queue.len() as u32, 32);
            let got = run_level(lo, len, &queue, warps);
            assert_eq!(got, want, "queue {queue:?}, {warps} warps, groups of {g}");
        }
    }
}

/// With chains (the level's bucket takes every order here: `BfsAtomicMin`
/// has none), a level by groups or by one thread may relax any number of
/// vertices, so its states differ from run to run; what must hold is that no
/// improvement is lost: every edge inside the tile that its source's state
/// could still improve leaves from a vertex that is pending and queued for
/// the next level (a vertex a thread kept for its chain and did not relax is
/// queued after all).
#[test]
fn chained_levels_leave_every_improvable_edge_pending() {
    let (lo, len) = (16, 64);
    let (offsets, targets) = grid(16, 6);
    for queue in [
        vec![5u32],
        vec![0, 1, 17, 40],
        vec![3, 9, 20, 33, 47, 48, 49, 63],
        (0..len).step_by(3).collect::<Vec<_>>(),
    ] {
        for warps in [0, 1, 2, 4] {
            for chain in [1, 2, 4, 100] {
                let (states, pending, next, _, _) =
                    run_level_chained(lo, len, &queue, warps, chain);
                let what = std::format!("queue {queue:?}, {warps} warps, chain {chain}");
                // An overflowed queue sends the next level to scan the bits.
                let queued = |i: u32| next.first() == Some(&OVERFLOWED) || next.contains(&i);
                // Local vertex 0 starts reached and not pending: its edges are not the level's.
                for i in 1..len {
                    let d = states[i as usize];
                    if d == UNREACHED {
                        continue;
                    }
                    let v = (lo + i) as usize;
                    let improvable = targets[offsets[v] as usize..offsets[v + 1] as usize]
                        .iter()
                        .filter(|&&w| w >= lo && w < lo + len)
                        .any(|&w| states[(w - lo) as usize] > d + 1);
                    let bit = pending[(i / 32) as usize] >> (i % 32) & 1 == 1;
                    if improvable {
                        assert!(bit && queued(i), "{what}: vertex {i} lost");
                    }
                    if bit {
                        assert!(queued(i), "{what}: vertex {i} pending, not queued");
                    }
                }
            }
        }
    }
}

#[test]
fn group_sizes_are_powers_of_two_that_cover_the_level() {
    for threads in [1, 32, 64, 256, 512] {
        for len in 1..=threads.min(600) {
            let g = group_lanes(threads, len, 32.min(threads));
            assert!(g.is_power_of_two() && g <= 32, "{threads} {len} {g}");
            if len <= threads {
                assert!(threads / g >= len, "{threads} {len} {g}");
            }
        }
    }
    let _ = SoloLane::SIZE;
}
