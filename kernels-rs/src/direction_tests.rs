//! The bottom-up and top-down kernels on the host with real 32-lane warps: each
//! lane is an OS thread and the lanes of a warp meet at a barrier for every vote
//! and shuffle (`crate::lockstep`), so the cooperative scan, the per-warp bitmap word
//! and the per-warp counter sums run exactly as on the GPU — the emulator's
//! one-lane warps ([`crate::warp::SoloLane`]) cannot exercise them.

extern crate std;

use std::vec;
use std::vec::Vec;

use super::*;
use crate::bfs::{Bfs, UNREACHED};
use crate::lockstep::{csr_descending, launch_warps};

/// The runs' default switch points.
const H: Heuristic = Heuristic::DEFAULT;

/// A symmetric graph with hubs (rows far longer than a warp), a path (many
/// levels), isolated vertices and a second component.
fn graph(n: usize) -> (Vec<u64>, Vec<u32>) {
    let mut rows = vec![Vec::new(); n];
    let mut add = |u: usize, v: usize| {
        if u != v && !rows[u].contains(&(v as u32)) {
            rows[u].push(v as u32);
            rows[v].push(u as u32);
        }
    };
    let mut x = 12345u64;
    let mut rnd = |m: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as usize) % m
    };
    let main = n * 3 / 4;
    for _ in 0..n * 2 {
        let (u, v) = (rnd(main), rnd(main));
        add(u.min(v) % 4, v); // hubs 0..4
        add(u, v);
    }
    for v in main - 40..main - 1 {
        add(v, v + 1); // a path
    }
    for v in main + 10..(main + 30).min(n - 1) {
        add(v, v + 1); // another component; main..main + 10 stay isolated
    }
    csr_descending(&mut rows)
}

fn oracle_levels(offsets: &[u64], targets: &[u32], source: usize) -> Vec<u32> {
    let mut level = vec![UNREACHED; offsets.len() - 1];
    level[source] = 0;
    let mut frontier = vec![source];
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for &u in &frontier {
            for &v in &targets[offsets[u] as usize..offsets[u + 1] as usize] {
                if level[v as usize] == UNREACHED {
                    level[v as usize] = d;
                    next.push(v as usize);
                }
            }
        }
        frontier = next;
    }
    level
}

fn bits(n: usize) -> Vec<AtomicU32> {
    (0..n.div_ceil(32)).map(|_| AtomicU32::new(0)).collect()
}

/// BFS where level `l` runs bottom-up if `bottom_up(l)`, else top-down; checks
/// levels, parents and both level counters against the oracle.
/// How a level of [`check`] runs.
#[derive(PartialEq)]
enum Way {
    TopDown,
    BottomUp,
    Scan,
}

fn check(n: usize, warps: u32, source: usize, way: impl Fn(u32) -> Way) {
    let (offsets, targets) = graph(n);
    let want = oracle_levels(&offsets, &targets, source);
    let csr = CsrView {
        offsets: &offsets,
        targets: &targets,
    };
    let state: Vec<AtomicU32> = (0..n)
        .map(|v| AtomicU32::new(Bfs::init(v as u32, source as u32)))
        .collect();
    let parents: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    let (mut cur, mut next) = (bits(n), bits(n));
    cur[source / 32].store(1 << (source % 32), Relaxed);
    let chunk = 4;
    let chunks: Vec<AtomicU64> = (0..chunk_capacity(n as u64, targets.len() as u64, chunk))
        .map(|_| AtomicU64::new(0))
        .collect();
    let mut level = 0u32;
    loop {
        let ctl: Vec<AtomicU64> = (0..CTL_WORDS).map(|_| AtomicU64::new(0)).collect();
        next.iter().for_each(|w| w.store(0, Relaxed));
        // The level only reads its frontier.
        let frozen: Vec<u32> = cur.iter().map(|w| w.load(Relaxed)).collect();
        let way = way(level);
        if way == Way::BottomUp {
            let bu = BottomUp::<Bfs> {
                incoming: csr,
                out_offsets: &offsets,
                state: &state,
                parents: Some(&parents),
                frontier: FrozenBitmap { words: &frozen },
                next: Bitmap { words: &next },
                candidate: level + 1,
                ctl: &ctl,
                first: 0,
                end: n as u64,
            };
            launch_warps(warps, |t, w| bu.run(t, w));
        } else {
            if way == Way::TopDown {
                launch_warps(warps, |t, w| {
                    td_chunks(
                        t,
                        w,
                        &offsets,
                        FrozenBitmap { words: &frozen },
                        chunk,
                        &chunks,
                        &ctl,
                        None,
                    )
                });
            }
            let list: Vec<u64> = chunks.iter().map(|c| c.load(Relaxed)).collect();
            let td = TopDown::<Bfs> {
                graph: csr,
                weights: &vec![(); targets.len()],
                state: &state,
                parents: Some(&parents),
                chunks: &list,
                chunk,
                next: Bitmap { words: &next },
                ctl: &ctl,
                iter: level,
                degree_offsets: &offsets,
                candidate: Some(level + 1),
            };
            if way == Way::TopDown {
                launch_warps(warps, |t, w| td.relax(t, w));
            } else {
                // Chunks of `chunk` edges over the whole CSR.
                let sv: Vec<u32> = (0..targets.len().div_ceil(chunk as usize))
                    .map(|i| offsets.partition_point(|&o| o <= (i as u64) * chunk) as u32 - 1)
                    .collect();
                let frontier = FrozenBitmap { words: &frozen };
                launch_warps(warps, |t, w| td.scan(t, w, frontier, &sv));
            }
        }
        let found: Vec<usize> = (0..n).filter(|&v| want[v] == level + 1).collect();
        let edges: u64 = found.iter().map(|&v| offsets[v + 1] - offsets[v]).sum();
        assert_eq!(
            ctl[CTL_FRONTIER].load(Relaxed),
            found.len() as u64,
            "level {level}"
        );
        assert_eq!(ctl[CTL_EDGES].load(Relaxed), edges, "level {level}");
        for v in 0..n {
            let in_next = next[v / 32].load(Relaxed) & 1 << (v % 32) != 0;
            assert_eq!(in_next, want[v] == level + 1, "vertex {v}, level {level}");
        }
        if found.is_empty() {
            break;
        }
        core::mem::swap(&mut cur, &mut next);
        level += 1;
    }
    for v in 0..n {
        assert_eq!(state[v].load(Relaxed), want[v], "level of {v}");
        let p = parents[v].load(Relaxed);
        if v != source && want[v] != UNREACHED {
            let row = &targets[offsets[v] as usize..offsets[v + 1] as usize];
            assert!(row.contains(&p), "parent {p} of {v} is not a neighbour");
            assert_eq!(want[p as usize] + 1, want[v], "parent {p} of {v}");
        }
    }
}

#[test]
fn bottom_up_levels_with_32_lane_warps() {
    // 2 warps over 400 vertices: every warp runs many tiles (grid-stride).
    check(400, 2, 0, |_| Way::BottomUp);
    check(400, 3, 275, |_| Way::BottomUp); // a source on the path, far from the hubs
    check(400, 2, 315, |_| Way::BottomUp); // in the second component
}

#[test]
fn top_down_levels_with_32_lane_warps() {
    // One warp over 157 bitmap words: its lanes take five tiles of words, each
    // tile's chunks reserved by one prefix sum.
    check(5000, 1, 0, |_| Way::TopDown);
    check(400, 2, 275, |_| Way::TopDown);
}

/// The chunks `td_chunks` should list for the vertices set in `frontier`.
fn wanted_chunks(offsets: &[u64], frontier: &[u32], chunk: u64) -> Vec<u64> {
    let n = offsets.len() - 1;
    let mut want: Vec<u64> = (0..n)
        .filter(|&v| frontier[v / 32] & 1 << (v % 32) != 0)
        .flat_map(|v| {
            (0..(offsets[v + 1] - offsets[v]).div_ceil(chunk)).map(move |k| (v as u64) << 32 | k)
        })
        .collect();
    want.sort_unstable();
    want
}

#[test]
fn td_chunks_lists_hubs_with_the_whole_warp_and_the_rest_lane_by_lane() {
    // Hubs 0..4 (about 1,000 edges, 250 chunks of 4: listed by their warp), one
    // word holding a hub and small vertices, words of small vertices only.
    let n = 2000;
    let (offsets, _) = graph(n);
    assert!((offsets[1] - offsets[0]).div_ceil(4) > crate::warp::LANE_LIST_ITEMS);
    let frontier = bits(n);
    for v in (0..n).filter(|v| v % 5 == 0 || *v < 40 || (700..760).contains(v)) {
        frontier[v / 32].fetch_or(1 << (v % 32), Relaxed);
    }
    let frontier: Vec<u32> = frontier.iter().map(|w| w.load(Relaxed)).collect();
    for (warps, chunk) in [(1, 4), (2, 4), (3, 1), (1, 64)] {
        let chunks: Vec<AtomicU64> = (0..chunk_capacity(n as u64, offsets[n], chunk))
            .map(|_| AtomicU64::new(u64::MAX))
            .collect();
        // A zeroed block: the host planned the level (`PLAN_HOST`).
        let ctl: Vec<AtomicU64> = (0..CTL_WORDS).map(|_| AtomicU64::new(0)).collect();
        launch_warps(warps, |t, w| {
            td_chunks(
                t,
                w,
                &offsets,
                FrozenBitmap { words: &frontier },
                chunk,
                &chunks,
                &ctl,
                None,
            )
        });
        let listed_len = word(&ctl, CTL_CHUNKS) as usize;
        let mut listed: Vec<u64> = chunks[..listed_len]
            .iter()
            .map(|c| c.load(Relaxed))
            .collect();
        listed.sort_unstable();
        assert_eq!(
            listed,
            wanted_chunks(&offsets, &frontier, chunk),
            "chunk {chunk}"
        );
        assert!(chunks[listed_len..]
            .iter()
            .all(|c| c.load(Relaxed) == u64::MAX));
    }
}

#[test]
fn td_chunks_clears_the_next_bitmap_whatever_the_plan() {
    // A planned level clears its next bitmap in `td_chunks`: every word, on a
    // top-down level (which lists its chunks as without the clear) and on a
    // bottom-up or finished one (which lists none).
    let n = 2000;
    let (offsets, _) = graph(n);
    // Every 8th vertex, shifted by one each word (no bit past `n`).
    let frontier: Vec<u32> = (0..n.div_ceil(32))
        .map(|i| {
            let valid = (n - 32 * i).min(32);
            0x0101_0101u32.rotate_left(i as u32) & (u32::MAX >> (32 - valid))
        })
        .collect();
    for plan in [PLAN_HOST, PLAN_TOP_DOWN, PLAN_BOTTOM_UP, PLAN_DONE] {
        for warps in [1, 3] {
            let chunk = 4;
            let chunks: Vec<AtomicU64> = (0..chunk_capacity(n as u64, offsets[n], chunk))
                .map(|_| AtomicU64::new(u64::MAX))
                .collect();
            let ctl: Vec<AtomicU64> = (0..CTL_WORDS).map(|_| AtomicU64::new(0)).collect();
            ctl[CTL_PLAN].store(plan, Relaxed);
            let next: Vec<AtomicU32> = frontier.iter().map(|_| AtomicU32::new(!0)).collect();
            launch_warps(warps, |t, w| {
                td_chunks(
                    t,
                    w,
                    &offsets,
                    FrozenBitmap { words: &frontier },
                    chunk,
                    &chunks,
                    &ctl,
                    Some(&next),
                )
            });
            assert!(next.iter().all(|w| w.load(Relaxed) == 0), "plan {plan}");
            let mut listed: Vec<u64> = chunks[..word(&ctl, CTL_CHUNKS) as usize]
                .iter()
                .map(|c| c.load(Relaxed))
                .collect();
            listed.sort_unstable();
            let want = match plan {
                PLAN_HOST | PLAN_TOP_DOWN => wanted_chunks(&offsets, &frontier, chunk),
                _ => Vec::new(),
            };
            assert_eq!(listed, want, "plan {plan}, {warps} warps");
        }
    }
}

#[test]
fn scan_levels_with_32_lane_warps() {
    check(5000, 1, 0, |_| Way::Scan);
    check(400, 3, 275, |l| {
        if l % 2 == 0 {
            Way::Scan
        } else {
            Way::TopDown
        }
    });
}

#[test]
fn mixed_directions_with_32_lane_warps() {
    let way = |bottom_up: bool| {
        if bottom_up {
            Way::BottomUp
        } else {
            Way::TopDown
        }
    };
    check(400, 2, 5, move |l| way(l == 1 || l == 2));
    check(400, 3, 0, move |l| way(l % 2 == 1));
}

fn block() -> Vec<AtomicU64> {
    (0..CTL_WORDS).map(|_| AtomicU64::new(7)).collect()
}

fn word(b: &[AtomicU64], i: usize) -> u64 {
    b[i].load(Relaxed)
}

/// `plan_level` clears the level's counters, carries Beamer's state from level
/// to level, switches as `choose_bottom_up` says, and ends the traversal for
/// good once a frontier is empty or the host says the level is over.
#[test]
fn plan_level_follows_the_heuristic_and_ends() {
    let (n, m) = (1000u64, 30_000u64);
    // Level 0: one source of degree 10 goes top-down; its edges leave m_u.
    let l0 = block();
    plan_level(None, &l0, n, m, (1, 10), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l0, CTL_PLAN), PLAN_TOP_DOWN);
    assert_eq!(word(&l0, CTL_UNEXPLORED), m - 10);
    assert_eq!(
        (word(&l0, CTL_IN_VERTICES), word(&l0, CTL_IN_EDGES)),
        (1, 10)
    );
    for i in [
        CTL_FRONTIER,
        CTL_EDGES,
        CTL_CHUNKS,
        CTL_SELECTED,
        CTL_MIN_PENDING,
    ] {
        assert_eq!(word(&l0, i), 0, "counter {i} not cleared");
    }
    // Level 0 found 300 vertices with 5000 edges > (m − 10) / α: bottom-up.
    l0[CTL_FRONTIER].store(300, Relaxed);
    l0[CTL_EDGES].store(5000, Relaxed);
    let l1 = block();
    plan_level(Some(&l0), &l1, n, m, (0, 0), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l1, CTL_PLAN), PLAN_BOTTOM_UP);
    assert_eq!(
        word(&l1, CTL_UNEXPLORED),
        m - 10,
        "bottom-up explores nothing top-down"
    );
    // Without a uniform candidate the same frontier stays top-down.
    let td = block();
    plan_level(Some(&l0), &td, n, m, (0, 0), LEVEL_TOP_DOWN_ONLY, H);
    assert_eq!(word(&td, CTL_PLAN), PLAN_TOP_DOWN);
    // Shrinking to ≤ n / β goes back to top-down.
    l1[CTL_FRONTIER].store(n / BETA, Relaxed);
    let l2 = block();
    plan_level(Some(&l1), &l2, n, m, (0, 0), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l2, CTL_PLAN), PLAN_TOP_DOWN);
    // An empty frontier ends it, and every later level stays done.
    let l3 = block();
    plan_level(Some(&l2), &l3, n, m, (0, 0), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l3, CTL_PLAN), PLAN_DONE);
    l3[CTL_FRONTIER].store(5, Relaxed);
    let l4 = block();
    plan_level(Some(&l3), &l4, n, m, (0, 0), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l4, CTL_PLAN), PLAN_DONE);
    // The host's "over" (no candidate left) ends it too.
    let over = block();
    plan_level(Some(&l0), &over, n, m, (0, 0), LEVEL_OVER, H);
    assert_eq!(word(&over, CTL_PLAN), PLAN_DONE);
    // The kernels follow the plan.
    assert!(runs_top_down(&l2) && !runs_bottom_up(&l2));
    assert!(runs_bottom_up(&l1) && !runs_top_down(&l1));
    assert!(!runs_top_down(&l4) && !runs_bottom_up(&l4));
    let host = block();
    host[CTL_PLAN].store(PLAN_HOST, Relaxed);
    assert!(runs_top_down(&host) && runs_bottom_up(&host));
}

/// The run's α and β move the switch points as they say: the level that goes
/// bottom-up with α = 15 (5000 edges > 29,990 / 15) stays top-down with α = 5, and
/// a larger β returns to top-down from a frontier the default keeps bottom-up.
#[test]
fn plan_level_takes_the_runs_alpha_and_beta() {
    let (n, m) = (1000u64, 30_000u64);
    let l0 = block();
    plan_level(None, &l0, n, m, (1, 10), LEVEL_MAY_PULL, H);
    l0[CTL_FRONTIER].store(300, Relaxed);
    l0[CTL_EDGES].store(5000, Relaxed);
    let plan = |prev: &[AtomicU64], h: Heuristic| {
        let cur = block();
        plan_level(Some(prev), &cur, n, m, (0, 0), LEVEL_MAY_PULL, h);
        word(&cur, CTL_PLAN)
    };
    assert_eq!(
        plan(
            &l0,
            Heuristic {
                alpha: 15,
                beta: 18
            }
        ),
        PLAN_BOTTOM_UP
    );
    let low = Heuristic { alpha: 5, beta: 18 };
    assert_eq!(plan(&l0, low), PLAN_TOP_DOWN);
    // Bottom-up from 300 vertices, shrinking to 100: n / 18 = 55 keeps pulling,
    // n / 5 = 200 goes back.
    let l1 = block();
    plan_level(Some(&l0), &l1, n, m, (0, 0), LEVEL_MAY_PULL, H);
    l1[CTL_FRONTIER].store(100, Relaxed);
    assert_eq!(plan(&l1, H), PLAN_BOTTOM_UP);
    assert_eq!(plan(&l1, Heuristic { alpha: 15, beta: 5 }), PLAN_TOP_DOWN);
    // Zeros (the host refuses them) count as 1 rather than dividing by zero.
    assert_eq!(plan(&l0, Heuristic { alpha: 0, beta: 0 }), PLAN_TOP_DOWN);
}

/// A program whose priority is its state, for [`td_select`].
struct ByState;

impl Program for ByState {
    type State = u32;
    type Weight = ();
    fn init(_v: u32, _source: u32) -> u32 {
        0
    }
    fn is_active(_s: u32, _iter: u32) -> bool {
        true
    }
    fn relax(s: u32, _w: (), _iter: u32) -> Option<u32> {
        Some(s + 1)
    }
    fn combine(slot: &AtomicU32, cand: u32) -> bool {
        slot.fetch_min(cand, Relaxed) > cand
    }
    fn improves(current: u32, cand: u32) -> bool {
        cand < current
    }
    fn priority(s: u32) -> u32 {
        s
    }
}

#[test]
fn td_select_takes_the_pending_vertices_below_the_limit_with_32_lane_warps() {
    let n = 3000;
    let (offsets, _) = graph(n);
    let state: Vec<AtomicU32> = (0..n as u32).map(|v| AtomicU32::new(v * 7 % 101)).collect();
    let pending = bits(n);
    for v in (0..n).filter(|v| v % 3 != 1) {
        pending[v / 32].fetch_or(1 << (v % 32), Relaxed);
    }
    let (limit, chunk) = (40u64, 2u64);
    let chunks: Vec<AtomicU64> = (0..chunk_capacity(n as u64, offsets[n], chunk))
        .map(|_| AtomicU64::new(0))
        .collect();
    // A zeroed block: the host planned the pass (`PLAN_HOST`).
    let ctl: Vec<AtomicU64> = (0..CTL_WORDS).map(|_| AtomicU64::new(0)).collect();
    launch_warps(1, |t, w| {
        td_select::<ByState, _>(
            t,
            w,
            &offsets,
            &state,
            Bitmap { words: &pending },
            limit,
            chunk,
            &chunks,
            &ctl,
        )
    });
    let priority = |v: usize| u64::from(state[v].load(Relaxed));
    let was_pending = |v: usize| v % 3 != 1;
    let taken: Vec<usize> = (0..n)
        .filter(|&v| was_pending(v) && priority(v) < limit)
        .collect();
    let lowest_left = (0..n)
        .filter(|&v| was_pending(v) && priority(v) >= limit)
        .map(priority)
        .min()
        .unwrap();
    assert_eq!(word(&ctl, CTL_SELECTED), taken.len() as u64);
    assert_eq!(word(&ctl, CTL_MIN_PENDING), (1 << 32) - lowest_left);
    for v in 0..n {
        let still = pending[v / 32].load(Relaxed) & 1 << (v % 32) != 0;
        assert_eq!(still, was_pending(v) && priority(v) >= limit, "vertex {v}");
    }
    let mut listed: Vec<u64> = (0..word(&ctl, CTL_CHUNKS) as usize)
        .map(|i| chunks[i].load(Relaxed))
        .collect();
    listed.sort_unstable();
    let mut want: Vec<u64> = taken
        .iter()
        .flat_map(|&v| {
            (0..(offsets[v + 1] - offsets[v]).div_ceil(chunk)).map(move |k| (v as u64) << 32 | k)
        })
        .collect();
    want.sort_unstable();
    assert_eq!(listed, want);
}

/// Level 0 planned from [`first_level_block`] is level 0 planned from nothing,
/// and every planned level carries its number ([`CTL_LEVEL`]), which a relax
/// launched with [`ITER_FROM_PLAN`] reads: so every batch of levels launches
/// the same arguments.
#[test]
fn levels_planned_from_the_first_block_are_numbered_as_from_none() {
    let (n, m) = (1000u64, 30_000u64);
    let from_none = block();
    plan_level(None, &from_none, n, m, (1, 10), LEVEL_MAY_PULL, H);
    let first: Vec<AtomicU64> = first_level_block((1, 10), m)
        .into_iter()
        .map(AtomicU64::new)
        .collect();
    let l0 = block();
    plan_level(Some(&first), &l0, n, m, (0, 0), LEVEL_MAY_PULL, H);
    let words = |b: &[AtomicU64]| b.iter().map(|w| w.load(Relaxed)).collect::<Vec<_>>();
    assert_eq!(words(&l0), words(&from_none));
    assert_eq!(word(&l0, CTL_LEVEL), 0);
    l0[CTL_FRONTIER].store(300, Relaxed);
    l0[CTL_EDGES].store(5000, Relaxed);
    let l1 = block();
    plan_level(Some(&l0), &l1, n, m, (0, 0), LEVEL_MAY_PULL, H);
    assert_eq!(word(&l1, CTL_LEVEL), 1);
    // The relax kernels' arguments take the level from the block.
    let (offsets, targets) = ([0u64, 1, 2], [1u32, 0]);
    let mut state = [0u32, UNREACHED];
    let mut next = [0u32];
    let ctl: Vec<u64> = words(&l1);
    let mut ctl = ctl;
    // SAFETY: every pointer covers what `top_down` reads for n = 2, m = 2.
    let td = unsafe {
        crate::entry::top_down::<Bfs>(
            2,
            2,
            offsets.as_ptr(),
            targets.as_ptr(),
            core::ptr::null(),
            state.as_mut_ptr(),
            core::ptr::null_mut(),
            &[],
            32,
            next.as_mut_ptr(),
            ctl.as_mut_ptr(),
            ITER_FROM_PLAN,
            core::ptr::null(),
            core::ptr::null(),
        )
    };
    assert_eq!(td.iter, 1);
}
