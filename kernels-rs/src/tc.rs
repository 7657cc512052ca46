//! Triangle counting, one thread per edge: the GPU kernel, and the intersection
//! routine the CPU engine (`runtime::tc`) shares with it.
//!
//! The input is either the graph's own rows, sorted (counted in place, when the
//! order by id is the one to use: [`triangles_below`], see
//! [`crate::intersect::TriangleRows`]), or the *oriented* CSR
//! `runtime::tc::orient` builds: vertices renamed
//! by rank (degree, then id, ascending), and each row keeping only the neighbours
//! of higher rank, sorted and without duplicates or self loops. A triangle
//! `a < b < c` (by rank) is then stored exactly once as the path `a → b → c` plus
//! the edge `a → c`: it is found once, at the oriented edge `a → b`, as the
//! element `c` common to `a`'s row *after* `b` and `b`'s row. Orienting towards
//! higher degree bounds every row by `O(√m)`, which is what keeps Kronecker hubs
//! from dominating (Schank & Wagner 2005; gapbs `tc.cc` orders the same way).
//!
//! Why one thread per edge: the work of an edge is two rows of at most `O(√m)`
//! entries (oriented) or of the graph's even degrees (in place), so edges are
//! balanced units, whereas one thread per vertex would leave a warp waiting on
//! its heaviest row. In place, the threads of edges towards higher ids find
//! nothing to do and move on: half the threads idle costs less than the copy
//! that would spare them. When one list is much longer
//! than the other the thread binary-searches (gallops) the short list's entries
//! in the long one instead of merging ([`intersect_count`]). Per-thread counts are
//! summed over the warp (shuffles) and one lane per warp adds the warp's total to
//! the `u64` result with an atomic, so the atomics are few (the grid is resident
//! and grid-strides over the edges).

use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::warp::Warp;

use crate::intersect::{gallop_fold, intersect_fold, merge_fold};
pub use crate::intersect::{source_of, TriangleRows, GALLOP_RATIO};

/// Number of values common to two sorted, duplicate-free lists
/// ([`intersect_fold`]: merge, or gallop when one is [`GALLOP_RATIO`] times longer).
#[inline(always)]
pub fn intersect_count(a: &[u32], b: &[u32]) -> u64 {
    intersect_fold(a, b, 0, |c, _| c + 1)
}

/// Linear merge of two sorted lists.
#[inline(always)]
pub fn merge_count(a: &[u32], b: &[u32]) -> u64 {
    merge_fold(a, b, 0, |c, _| c + 1)
}

/// Every entry of `short` searched in `long`, galloping from the previous hit.
#[inline(always)]
pub fn gallop_count(short: &[u32], long: &[u32]) -> u64 {
    gallop_fold(short, long, 0, |c, _| c + 1)
}

/// One triangle count.
pub struct TriangleCount<'a> {
    /// The oriented graph (see the module docs), or the graph's own rows.
    pub rows: TriangleRows<'a>,
    /// Where every warp adds its triangles.
    pub total: &'a AtomicU64,
}

/// Triangles closed by oriented edge `e` of row `u` of `g`: the entries common
/// to `u`'s row after `e` and the row of `e`'s target (all of higher rank than
/// both ends, so each triangle is seen at exactly one edge).
#[inline(always)]
pub fn triangles_at(g: &CsrView<'_>, u: u32, e: usize) -> u64 {
    crate::intersect::fold_edge(g, u, e, 0, |c, _, _, _| c + 1)
}

/// Triangles met at edge `e` of row `u` of a graph's own sorted rows: none
/// unless `e` leads to a lower id `v`, else the entries common to `u`'s row
/// before `e` and `v`'s row ([`crate::intersect::fold_edge_below`]).
#[inline(always)]
pub fn triangles_below(g: &CsrView<'_>, u: u32, e: usize) -> u64 {
    if g.targets[e] < u {
        crate::intersect::fold_edge_below(g, u, e, 0, |c, _, _, _| c + 1)
    } else {
        0
    }
}

impl TriangleCount<'_> {
    /// What one thread does: a grid-stride loop over the rows' edges, then a warp
    /// sum and one atomic add per warp. Every lane reaches the warp sum (it is
    /// after the loop), as [`Warp`]'s rules require.
    #[inline(always)]
    pub fn run<W: Warp>(&self, t: ThreadCtx, w: W) {
        let g = &self.rows.graph;
        let m = g.targets.len() as u64;
        let mut local = 0u64;
        let mut e = t.global();
        while e < m {
            let u = source_of(g.offsets, e);
            local += self.rows.fold_at(u, e as usize, 0, |c, _, _, _| c + 1);
            e += t.stride();
        }
        let warp_total = w.sum_u64(local);
        if w.lane() == 0 && warp_total != 0 {
            self.total.fetch_add(warp_total, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[u32], b: &[u32]) -> u64 {
        a.iter().filter(|x| b.contains(x)).count() as u64
    }

    #[test]
    fn merge_and_gallop_agree_with_a_scan() {
        let long: [u32; 40] = core::array::from_fn(|i| 3 * i as u32 + 1);
        let shorts: [&[u32]; 6] = [
            &[],
            &[0],
            &[1],
            &[4, 5, 118],
            &[1, 2, 3, 4, 200],
            &[119, 120, 121],
        ];
        for s in shorts {
            let expect = naive(s, &long);
            assert_eq!(intersect_count(s, &long), expect);
            assert_eq!(intersect_count(&long, s), expect);
            assert_eq!(merge_count(s, &long), expect);
            assert_eq!(gallop_count(s, &long), expect);
        }
    }
}
