//! Graph500 BFS-tree validation as a kernel, so that a large run is not bounded by
//! the host: at scale 27 the 16-core host needed 2.7 s per tree, the GPU BFS
//! 15 ms. It checks the result the host received (uploaded back), with code that
//! shares nothing with the traversal kernels, by the rules of
//! `runtime::validate::validate_bfs_tree` on a symmetric graph:
//!
//! 1. the root is its own parent, at level 0;
//! 2. every other reached vertex has a reached parent one level up (so parent
//!    chains are acyclic and end at the root), and an unreached one has no parent;
//! 3. every edge joins two reached or two unreached vertices, and reached ends
//!    differ by at most one level;
//! 4. every tree edge `parent(v)–v` is in the graph (found in `v`'s own row).
//!
//! A warp checks a tile of 32 vertices and their rows, sharing long rows (see
//! [`TreeCheck::run`]); the lowest failing vertex and the rule it broke end up in
//! one `u64` (`vertex << 8 | rule`, `u64::MAX` if none) through `atom.min`, so
//! the host can name it.

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::warp::Warp;

/// Level and parent of a vertex the BFS did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// Rule 1 broken: the root's parent or level.
pub const BAD_ROOT: u64 = 1;
/// Rule 2 broken: an unreached vertex has a parent.
pub const PARENT_OF_UNREACHED: u64 = 2;
/// Rule 2 broken: the parent is missing, unreached or not one level up.
pub const BAD_PARENT_LEVEL: u64 = 3;
/// Rule 3 broken: an edge joins a reached and an unreached vertex.
pub const HALF_REACHED_EDGE: u64 = 4;
/// Rule 3 broken: an edge spans more than one level.
pub const LONG_EDGE: u64 = 5;
/// Rule 4 broken: the tree edge to the parent is not in the graph.
pub const NO_TREE_EDGE: u64 = 6;

/// Row entries a lane checks alone before its warp helps (long rows are hubs:
/// up to millions of entries at scale 28, too long for one thread).
pub const SERIAL_EDGES: u64 = 8;

/// A tree to check.
pub struct TreeCheck<'a> {
    pub graph: CsrView<'a>,
    pub root: u32,
    pub levels: &'a [u32],
    pub parents: &'a [u32],
    /// One word: `min(vertex << 8 | rule)` over failures, `u64::MAX` if none.
    pub verdict: &'a AtomicU64,
    /// The vertices checked, `[first, end)`: all of them on one GPU; a part's
    /// own on a multi-GPU partition, whose graph holds only their rows (their
    /// in-edges, the same edges on a symmetric graph), with `levels` and
    /// `parents` whole.
    pub first: u64,
    pub end: u64,
}

/// Rule 3 for an edge between levels `lv` and `lu` (0 = kept).
#[inline(always)]
fn edge_rule(lv: u32, lu: u32) -> u64 {
    if (lu == UNREACHED) != (lv == UNREACHED) {
        HALF_REACHED_EDGE
    } else if lv != UNREACHED && lu.abs_diff(lv) > 1 {
        LONG_EDGE
    } else {
        0
    }
}

impl TreeCheck<'_> {
    /// Rules 1–2 for vertex `v` (0 = kept).
    #[inline(always)]
    fn vertex_rule(&self, v: usize, lv: u32, p: u32) -> u64 {
        if v == self.root as usize {
            if p != self.root || lv != 0 {
                return BAD_ROOT;
            }
        } else if lv == UNREACHED {
            if p != UNREACHED {
                return PARENT_OF_UNREACHED;
            }
        } else if p as usize >= self.levels.len()
            || self.levels[p as usize].checked_add(1) != Some(lv)
        {
            return BAD_PARENT_LEVEL;
        }
        0
    }

    /// Checks every vertex and its row, a warp-sized tile of vertices at a time
    /// (grid-stride, warp-uniform): each lane takes one vertex and the first
    /// [`SERIAL_EDGES`] of its row, then the whole warp scans the rest of each
    /// longer row, `W::SIZE` entries per step. Failures go to the verdict word.
    #[inline(always)]
    pub fn run<W: Warp>(&self, t: ThreadCtx, w: W) {
        let n = self.end.min(self.levels.len() as u64);
        let (offsets, targets) = (self.graph.offsets, self.graph.targets);
        let lane = w.lane();
        let mut base = self.first + t.global() - u64::from(lane);
        while base < n {
            let v = base + u64::from(lane);
            let (mut rule, mut from, mut end) = (0u64, 0u64, 0u64);
            let (mut lv, mut p, mut tree_edge) = (UNREACHED, UNREACHED, true);
            if v < n {
                let vi = v as usize;
                (lv, p) = (self.levels[vi], self.parents[vi]);
                rule = self.vertex_rule(vi, lv, p);
                tree_edge = vi == self.root as usize || lv == UNREACHED;
                (from, end) = (offsets[vi], offsets[vi + 1]);
                let serial_end = end.min(from + SERIAL_EDGES);
                while rule == 0 && from < serial_end {
                    let u = targets[from as usize];
                    rule = edge_rule(lv, self.levels[u as usize]);
                    tree_edge |= u == p;
                    from += 1;
                }
                if rule != 0 {
                    from = end;
                }
            }
            let mut waiting = w.ballot(from < end);
            while waiting != 0 {
                let owner = waiting.trailing_zeros();
                waiting &= waiting - 1;
                let (plv, pp) = (w.shfl(lv, owner), w.shfl(p, owner));
                let mut step = w.shfl_u64(from, owner);
                let last = w.shfl_u64(end, owner);
                let mut found = false;
                while step < last {
                    let e = step + u64::from(lane);
                    let (r, hit) = if e < last {
                        let u = targets[e as usize];
                        (edge_rule(plv, self.levels[u as usize]), u == pp)
                    } else {
                        (0, false)
                    };
                    found |= w.ballot(hit) != 0;
                    let bad = w.ballot(r != 0);
                    if bad != 0 {
                        let r = u64::from(w.shfl(r as u32, bad.trailing_zeros()));
                        if lane == owner {
                            rule = r;
                        }
                        break;
                    }
                    step += u64::from(W::SIZE);
                }
                if lane == owner {
                    tree_edge |= found;
                }
            }
            if rule == 0 && !tree_edge {
                rule = NO_TREE_EDGE;
            }
            if rule != 0 {
                self.verdict.fetch_min(v << 8 | rule, Relaxed);
            }
            base += t.stride();
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::lockstep::{csr_descending, launch_warps};

    /// A star (hub 0 with a row far longer than a warp) plus a path 1-2-3 hanging
    /// off leaf 1, and isolated vertices; rows with the hub last.
    fn graph() -> (Vec<u64>, Vec<u32>, usize) {
        let n = 300;
        let mut rows = vec![Vec::new(); n];
        for v in 1..250u32 {
            rows[0].push(v);
            rows[v as usize].push(0);
        }
        for (a, b) in [(1u32, 250u32), (250, 251), (2, 3)] {
            rows[a as usize].push(b);
            rows[b as usize].push(a);
        }
        let (offsets, targets) = csr_descending(&mut rows);
        (offsets, targets, n)
    }

    fn verdict(levels: &[u32], parents: &[u32], root: u32, warps: u32) -> u64 {
        let (offsets, targets, _) = graph();
        let v = AtomicU64::new(u64::MAX);
        let c = TreeCheck {
            graph: CsrView {
                offsets: &offsets,
                targets: &targets,
            },
            root,
            levels,
            parents,
            verdict: &v,
            first: 0,
            end: levels.len() as u64,
        };
        launch_warps(warps, |t, w| c.run(t, w));
        v.into_inner()
    }

    /// [`verdict`] as a multi-GPU partition computes it: each part checks its
    /// own vertices `[bounds[p], bounds[p + 1])` on a CSR that holds only their
    /// rows; the verdict is the minimum over the parts.
    fn verdict_by_parts(levels: &[u32], parents: &[u32], root: u32, bounds: &[u64]) -> u64 {
        let (offsets, targets, _) = graph();
        let v = AtomicU64::new(u64::MAX);
        for r in bounds.windows(2) {
            let (lo, hi) = (r[0] as usize, r[1] as usize);
            let at = |i: usize| offsets[i.clamp(lo, hi)] - offsets[lo];
            let part_offsets: Vec<u64> = (0..offsets.len()).map(at).collect();
            let part_targets = targets[offsets[lo] as usize..offsets[hi] as usize].to_vec();
            let c = TreeCheck {
                graph: CsrView {
                    offsets: &part_offsets,
                    targets: &part_targets,
                },
                root,
                levels,
                parents,
                verdict: &v,
                first: r[0],
                end: r[1],
            };
            launch_warps(2, |t, w| c.run(t, w));
        }
        v.into_inner()
    }

    /// The BFS tree from the hub, levels and parents.
    fn tree() -> (Vec<u32>, Vec<u32>) {
        let (_, _, n) = graph();
        let (mut l, mut p) = (vec![UNREACHED; n], vec![UNREACHED; n]);
        (l[0], p[0]) = (0, 0);
        for v in 1..250 {
            (l[v], p[v]) = (1, 0);
        }
        (l[250], p[250]) = (2, 1);
        (l[251], p[251]) = (3, 250);
        (l, p)
    }

    #[test]
    fn valid_tree_passes_with_32_lane_warps() {
        let (l, p) = tree();
        assert_eq!(verdict(&l, &p, 0, 2), u64::MAX);
        assert_eq!(verdict(&l, &p, 0, 3), u64::MAX);
    }

    /// From leaf 1 the hub is a child whose tree edge is the last entry of its
    /// long row: found by the warp-cooperative scan or reported missing.
    #[test]
    fn tree_edge_found_in_a_warp_scanned_row() {
        let (_, _, n) = graph();
        let (mut l, mut p) = (vec![UNREACHED; n], vec![UNREACHED; n]);
        (l[1], p[1]) = (0, 1);
        (l[0], p[0]) = (1, 1);
        (l[250], p[250]) = (1, 1);
        for v in 2..250 {
            (l[v], p[v]) = (2, 0);
        }
        (l[251], p[251]) = (2, 250);
        assert_eq!(verdict(&l, &p, 1, 2), u64::MAX);
    }

    #[test]
    fn each_rule_is_named_with_the_lowest_vertex() {
        let (l0, p0) = tree();
        let case = |f: &dyn Fn(&mut Vec<u32>, &mut Vec<u32>)| {
            let (mut l, mut p) = (l0.clone(), p0.clone());
            f(&mut l, &mut p);
            verdict(&l, &p, 0, 2)
        };
        assert_eq!(case(&|_, p| p[0] = 5), BAD_ROOT);
        assert_eq!(case(&|_, p| p[260] = 0), 260 << 8 | PARENT_OF_UNREACHED);
        assert_eq!(case(&|_, p| p[251] = 0), 251 << 8 | BAD_PARENT_LEVEL);
        // 3 unreached: the hub's (warp-scanned) row and 2's row both see it; the
        // hub is the lowest vertex.
        assert_eq!(
            case(&|l, p| (l[3], p[3]) = (UNREACHED, UNREACHED)),
            HALF_REACHED_EDGE
        );
        // Leaf 7 moved two levels down (parent 251 is at level 3): its row (the hub,
        // level 0) spans 4 levels, and the hub's long row (warp-scanned) sees it first.
        assert_eq!(case(&|l, p| (l[7], p[7]) = (4, 251)), LONG_EDGE);
        // Parent one level up but not a neighbour.
        assert_eq!(case(&|_, p| p[250] = 2), 250 << 8 | NO_TREE_EDGE);
    }

    /// Parts that each check their own vertices on their own rows reach the
    /// one-GPU verdict: every rule, whichever part holds the failing vertex.
    #[test]
    fn parts_reach_the_whole_verdict() {
        let (l0, p0) = tree();
        type Edit<'a> = &'a dyn Fn(&mut Vec<u32>, &mut Vec<u32>);
        let edits: [Edit; 7] = [
            &|_, _| {},
            &|_, p| p[0] = 5,
            &|_, p| p[260] = 0,
            &|_, p| p[251] = 0,
            &|l, p| (l[3], p[3]) = (UNREACHED, UNREACHED),
            &|l, p| (l[7], p[7]) = (4, 251),
            &|_, p| p[250] = 2,
        ];
        for f in edits {
            let (mut l, mut p) = (l0.clone(), p0.clone());
            f(&mut l, &mut p);
            let whole = verdict(&l, &p, 0, 2);
            for bounds in [&[0u64, 300][..], &[0, 128, 300], &[0, 32, 64, 256, 300]] {
                assert_eq!(verdict_by_parts(&l, &p, 0, bounds), whole, "{bounds:?}");
            }
        }
    }
}
