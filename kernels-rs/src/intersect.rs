//! Intersection programs: an operator over the common neighbours of an edge's two
//! endpoints, i.e. over the triangles of an undirected graph (triangle counting,
//! per-vertex triangle counts for the local clustering coefficient).
//!
//! # Why a program kind of its own
//! Push and gather/apply programs combine values along single edges; a triangle
//! needs three. The work is the intersection of two sorted neighbour lists, and
//! the way to do it fast is well known and the same for every such program
//! (Schank & Wagner 2005, gapbs `tc.cc`): orient every undirected edge towards
//! the endpoint of higher rank (degree, then id, when the degrees are skewed), so
//! every row is `O(√m)` long and every triangle `a < b < c` is met exactly once,
//! at the oriented edge `a → b`, as the element `c` common to `a`'s row after `b`
//! and `b`'s row. An [`IntersectProgram`] says only what one triangle is worth
//! ([`IntersectProgram::common`]), how values reduce ([`IntersectProgram::combine`]),
//! and where they go ([`Per`]); the engines own the orientation, the intersection
//! (merge, or galloping when one list is [`GALLOP_RATIO`] times longer) and the
//! reduction.
//!
//! When ranking by degree is not worth it (even degrees: grids, meshes, roads),
//! the order is the id and the graph's own sorted rows already hold it: the
//! engines then count *in place* ([`TriangleRows::in_place`], gapbs's
//! `OrderedCount`), each triangle `a < b < c` met at the edge `c → b` as the
//! element `a` common to `c`'s row before `b` and `b`'s row
//! ([`fold_edge_below`]). No oriented copy is built: on sparse graphs the copy
//! cost more than the intersections.
//!
//! # The kernel
//! [`Intersect::run`] is what one GPU thread does: a grid-stride loop over the
//! rows' edges, [`TriangleRows::fold_at`] per edge (the function the CPU engine
//! runs too), and
//! * [`Per::Graph`]: a thread-local reduction, combined atomically into the one
//!   result word once per thread at the end;
//! * [`Per::Vertex`]: each triangle's value combined atomically into the slots of
//!   its three corners.
//!
//! Vertex ids the user sees are the graph's own: the kernel maps ranks back
//! through the orientation's `ids` array (empty when the orientation kept ids).

use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::word::{slice, StateWord};

/// Above this length ratio the shorter list is galloped into the longer one
/// (`O(s log(l/s))`) instead of merged (`O(s + l)`).
pub const GALLOP_RATIO: usize = 16;

/// What `#[vertex_program(intersect = ..)]` modules see without importing anything.
pub mod prelude {
    pub use super::Ctx;
}

/// What `apply` knows about a vertex of a per-vertex intersection program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Ctx {
    /// The vertex (0-based, the graph's own id).
    pub vertex: u32,
    /// Distinct neighbours other than the vertex itself (parallel edges and self
    /// loops do not count, as they do not make triangles).
    pub degree: u32,
    /// Vertices in the graph.
    pub num_vertices: u32,
}

/// Where the values of triangles go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Per {
    /// One value for the whole graph (triangle counting).
    Graph,
    /// One value per vertex: every triangle's value goes to each of its three
    /// corners (local clustering coefficient).
    Vertex,
}

/// An intersection program. Implemented by `#[vertex_program(intersect = ..)]`.
pub trait IntersectProgram: Copy + Send + Sync + 'static {
    /// What a triangle is worth, and what is reduced: one atomic word.
    type Acc: StateWord;
    /// The per-vertex result of [`Per::Vertex`] programs (`Acc` unless the program
    /// has an `apply`).
    type State: Copy + Send + Sync + 'static;
    /// The module name; the kernel is named after it.
    const NAME: &'static str;
    const PER: Per;
    /// The value of the triangle `{u, v, w}` (graph ids), met once, at the edge
    /// `(u, v)` of its two lowest-ranked corners, `w` being their common neighbour.
    fn common(u: u32, v: u32, w: u32) -> Self::Acc;
    /// The value of no triangle.
    fn identity() -> Self::Acc;
    /// `a ⊕ b` (associative and commutative).
    fn combine(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// `slot ⊕= v` atomically.
    fn combine_atomic(slot: &<Self::Acc as StateWord>::Atomic, v: Self::Acc);
    /// [`Per::Vertex`]: a vertex's result from its reduced value (run on the host
    /// after the intersections, on either back end).
    fn apply(ctx: Ctx, acc: Self::Acc) -> Self::State;

    /// The PTX module with this program's kernel, if its crate built one.
    fn gpu_ptx() -> Option<&'static str> {
        None
    }
    /// Why [`Self::gpu_ptx`] is `None`, if known.
    fn gpu_ptx_status() -> &'static str {
        "the crate defining this program has no `build.rs` calling `nvptx_builder::build_programs()`"
    }
}

/// Folds `f` over the values common to two sorted, duplicate-free lists.
///
/// Merges when the lengths are comparable, gallops (exponential then binary
/// search, resuming where the last search ended) when one is at least
/// [`GALLOP_RATIO`] times longer.
#[inline(always)]
pub fn intersect_fold<A>(a: &[u32], b: &[u32], acc: A, f: impl FnMut(A, u32) -> A) -> A {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return acc;
    }
    // Disjoint ranges (common when rows are short): nothing to scan.
    if short[short.len() - 1] < long[0] || long[long.len() - 1] < short[0] {
        return acc;
    }
    if long.len() / GALLOP_RATIO >= short.len() {
        gallop_fold(short, long, acc, f)
    } else {
        merge_fold(short, long, acc, f)
    }
}

/// Linear merge of two sorted lists, `f` at every common value.
#[inline(always)]
pub fn merge_fold<A>(a: &[u32], b: &[u32], mut acc: A, mut f: impl FnMut(A, u32) -> A) -> A {
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            acc = f(acc, x);
        }
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    acc
}

/// Every entry of `short` searched in `long`, galloping from the previous hit.
#[inline(always)]
pub fn gallop_fold<A>(
    short: &[u32],
    long: &[u32],
    mut acc: A,
    mut f: impl FnMut(A, u32) -> A,
) -> A {
    let mut lo = 0usize;
    for &x in short {
        // Invariant: every entry of `long` before `lo` is < x.
        let mut bound = 1usize;
        while lo + bound < long.len() && long[lo + bound] < x {
            bound *= 2;
        }
        // The first entry >= x is in long[lo + bound/2 ..= lo + bound] (or past the end).
        let start = lo + bound / 2;
        let end = (lo + bound + 1).min(long.len());
        let at = start + long[start..end].partition_point(|&y| y < x);
        if at < long.len() && long[at] == x {
            acc = f(acc, x);
            lo = at + 1;
        } else {
            lo = at;
        }
        if lo >= long.len() {
            break;
        }
    }
    acc
}

/// The row holding edge index `e`: the last `u` with `offsets[u] <= e` (rows
/// may be empty, so this is the one whose range contains `e`).
#[inline(always)]
pub fn source_of(offsets: &[u64], e: u64) -> u32 {
    (offsets.partition_point(|&o| o <= e) - 1) as u32
}

/// Folds `f(acc, u, v, w)` (ranks) over the triangles closed by oriented edge `e`
/// of row `u` of the oriented graph `g`: `v` is `e`'s target and `w` runs over the
/// entries common to `u`'s row after `e` and `v`'s row (all of higher rank than
/// both, so each triangle is met at exactly one edge).
#[inline(always)]
pub fn fold_edge<A>(
    g: &CsrView<'_>,
    u: u32,
    e: usize,
    acc: A,
    mut f: impl FnMut(A, u32, u32, u32) -> A,
) -> A {
    let (offsets, targets) = (g.offsets, g.targets);
    let v = targets[e];
    let tail = &targets[e + 1..offsets[u as usize + 1] as usize];
    let row_v = &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
    intersect_fold(tail, row_v, acc, |a, w| f(a, u, v, w))
}

/// Folds `f(acc, w, v, u)` over the triangles met at edge `e` of row `u` of a
/// graph's *own* rows (every neighbour, each row strictly increasing, self loops
/// allowed), where `v = targets[e] < u`: `w` runs over the entries common to
/// `u`'s row before `e` (all below `v`) and `v`'s row. Each triangle
/// `a < b < c` (by id) is met once, at the edge `c → b`, as gapbs's in-place
/// `OrderedCount` meets it, and is handed to `f` lowest corner first, as
/// [`fold_edge`] hands an oriented triangle.
///
/// `v`'s row is passed whole: no common value can be `>= v` (the other list is
/// below `v`), and the scan and the gallop stop when the list below `v` runs
/// out, so the part of `v`'s row above `v` costs nothing and needs no search
/// for its start. Lists of comparable length are scanned ([`scan_fold`]), others
/// galloped ([`intersect_fold`]), so a hub's long row costs `O(log)` per entry
/// of the short one.
#[inline(always)]
pub fn fold_edge_below<A>(
    g: &CsrView<'_>,
    u: u32,
    e: usize,
    acc: A,
    mut f: impl FnMut(A, u32, u32, u32) -> A,
) -> A {
    let (offsets, targets) = (g.offsets, g.targets);
    let v = targets[e];
    let head = &targets[offsets[u as usize] as usize..e];
    let row_v = &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
    if head.is_empty() {
        return acc;
    }
    if head.len() / GALLOP_RATIO < row_v.len() && row_v.len() / GALLOP_RATIO < head.len() {
        scan_fold(head, row_v, acc, |a, w| f(a, w, v, u))
    } else {
        intersect_fold(head, row_v, acc, |a, w| f(a, w, v, u))
    }
}

/// Folds `f` over the values common to two sorted lists by walking `a` and
/// scanning `b` forward for each entry (gapbs's `OrderedCount` loop), until
/// either runs out.
///
/// Why beside [`merge_fold`]: on the short rows of sparse graphs counted in
/// place the scan's branches are predictable and its loads do not wait on the
/// previous comparison, so it beat the branchless merge there (1000² grid,
/// 1 thread: 4.3 ms, the merge 5.0 ms, [`intersect_fold`] with its range
/// checks 6.7 ms; uniform 2^20 × 16: 3.2 s, [`intersect_fold`] 3.5 s); on
/// Kronecker's degree-ordered rows the merge stays ahead (scale 20, 1 thread:
/// 9.6 s, the scan 11.4 s).
#[inline(always)]
pub fn scan_fold<A>(a: &[u32], b: &[u32], mut acc: A, mut f: impl FnMut(A, u32) -> A) -> A {
    let mut j = 0usize;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() {
            break;
        }
        if b[j] == x {
            acc = f(acc, x);
        }
    }
    acc
}

/// The rows a triangle enumeration reads, and so where it meets each triangle.
#[derive(Clone, Copy, Debug)]
pub struct TriangleRows<'a> {
    pub graph: CsrView<'a>,
    /// `false`: an oriented copy (`runtime::tc::orient`: each row only its
    /// higher-ranked neighbours), every edge closing triangles ([`fold_edge`]).
    /// `true`: the graph's own rows, strictly increasing, where only the edges
    /// towards lower ids close triangles ([`fold_edge_below`]) and the others
    /// are skipped: no copy of the graph is needed.
    pub in_place: bool,
}

impl TriangleRows<'_> {
    /// Folds `f(acc, a, b, c)` (ranks, `a < b < c`) over the triangles met at edge
    /// `e` of row `u` (none at an in-place edge towards a higher id).
    #[inline(always)]
    pub fn fold_at<A>(&self, u: u32, e: usize, acc: A, f: impl FnMut(A, u32, u32, u32) -> A) -> A {
        if !self.in_place {
            fold_edge(&self.graph, u, e, acc, f)
        } else if self.graph.targets[e] < u {
            fold_edge_below(&self.graph, u, e, acc, f)
        } else {
            acc
        }
    }
}

/// Rank → graph id, through the orientation's renaming (empty: ids are ranks).
#[derive(Clone, Copy, Debug)]
pub struct Ids<'a>(pub &'a [u32]);

impl Ids<'_> {
    /// The graph id of rank `r`. Never panics, so when a program ignores ids the
    /// compiler drops the load.
    #[inline(always)]
    pub fn id(&self, r: u32) -> u32 {
        self.0.get(r as usize).copied().unwrap_or(r)
    }
}

/// One run of an intersection program: the kernel's buffers.
pub struct Intersect<'a, P: IntersectProgram> {
    /// An oriented copy (ranks as ids), or the graph's own rows.
    pub rows: TriangleRows<'a>,
    pub ids: Ids<'a>,
    /// [`Per::Graph`]: one slot; [`Per::Vertex`]: one slot per rank. Filled with
    /// the identity by the host.
    pub acc: &'a [<P::Acc as StateWord>::Atomic],
}

impl<P: IntersectProgram> Intersect<'_, P> {
    /// What one thread does: a grid-stride loop over the rows' edges (see the
    /// module docs for where values go).
    #[inline(always)]
    pub fn run(&self, t: ThreadCtx) {
        let m = self.rows.graph.targets.len() as u64;
        let ids = self.ids;
        let mut e = t.global();
        match P::PER {
            Per::Graph => {
                let mut local = P::identity();
                while e < m {
                    let u = source_of(self.rows.graph.offsets, e);
                    local = self.rows.fold_at(u, e as usize, local, |a, u, v, w| {
                        P::combine(a, P::common(ids.id(u), ids.id(v), ids.id(w)))
                    });
                    e += t.stride();
                }
                if local != P::identity() {
                    P::combine_atomic(&self.acc[0], local);
                }
            }
            Per::Vertex => {
                while e < m {
                    let u = source_of(self.rows.graph.offsets, e);
                    self.rows.fold_at(u, e as usize, (), |(), u, v, w| {
                        let x = P::common(ids.id(u), ids.id(v), ids.id(w));
                        for r in [u, v, w] {
                            P::combine_atomic(&self.acc[r as usize], x);
                        }
                    });
                    e += t.stride();
                }
            }
        }
    }
}

/// The body of a program's intersection kernel ([`intersect_kernel!`](crate::intersect_kernel)).
///
/// # Safety
/// `offsets`/`targets` a CSR of `n + 1`, `m` entries with targets `< n`: with
/// `in_place == 0` an oriented CSR as `runtime::tc::orient` builds it, otherwise
/// an undirected graph's own rows, each strictly increasing; `ids` `ids_len`
/// entries (0 or `n`); `acc` `acc_len` cells (1 or `n`, as `P::PER`), only
/// accessed atomically meanwhile.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn intersect_body<P: IntersectProgram>(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    in_place: u64,
    ids: *const u32,
    ids_len: u64,
    acc: *mut P::Acc,
    acc_len: u64,
) {
    // SAFETY: the caller's contract.
    let k = unsafe {
        Intersect::<P> {
            rows: TriangleRows {
                graph: CsrView {
                    offsets: slice(offsets, n as usize + 1),
                    targets: slice(targets, m as usize),
                },
                in_place: in_place != 0,
            },
            ids: Ids(slice(ids, ids_len as usize)),
            acc: P::Acc::atomics_from_raw(acc, acc_len as usize),
        }
    };
    k.run(t)
}

/// Defines a program's intersection kernel under `$name` (parameters `n, m,
/// offsets, targets, in_place, ids, ids_len, acc, acc_len`; see
/// [`intersect_body`](crate::intersect::intersect_body)).
#[macro_export]
macro_rules! intersect_kernel {
    ($prog:ty => $name:ident) => {
        $crate::__kernel!(
            $name => $crate::intersect::intersect_body::<$prog>;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            in_place: u64,
            ids: *const u32,
            ids_len: u64,
            acc: *mut <$prog as $crate::intersect::IntersectProgram>::Acc,
            acc_len: u64,
        );
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[u32], b: &[u32]) -> u64 {
        a.iter().filter(|x| b.contains(x)).count() as u64
    }

    #[test]
    fn merge_and_gallop_visit_the_common_values() {
        let long: [u32; 40] = core::array::from_fn(|i| 3 * i as u32 + 1);
        let shorts: [&[u32]; 6] = [
            &[],
            &[0],
            &[1],
            &[4, 5, 118],
            &[1, 2, 3, 4, 200],
            &[119, 120, 121],
        ];
        let sum = |a: u64, x: u32| a + u64::from(x);
        for s in shorts {
            let expect: u64 = s
                .iter()
                .filter(|x| long.contains(x))
                .map(|&x| u64::from(x))
                .sum();
            assert_eq!(intersect_fold(s, &long, 0, sum), expect);
            assert_eq!(intersect_fold(&long, s, 0, sum), expect);
            assert_eq!(merge_fold(s, &long, 0, sum), expect);
            assert_eq!(gallop_fold(s, &long, 0, sum), expect);
            assert_eq!(scan_fold(s, &long, 0, sum), expect);
            assert_eq!(scan_fold(&long, s, 0, sum), expect);
            assert_eq!(intersect_fold(s, &long, 0, |c, _| c + 1), naive(s, &long));
        }
    }

    #[test]
    fn in_place_rows_meet_each_triangle_once_lowest_corner_first() {
        // K4 on 0..4, a self loop on 2 and a pendant 4 hanging off 3; each row
        // strictly increasing, every neighbour listed.
        let offsets = [0u64, 3, 6, 10, 14, 15];
        let targets = [1u32, 2, 3, 0, 2, 3, 0, 1, 2, 3, 0, 1, 2, 4, 3];
        let rows = TriangleRows {
            graph: CsrView {
                offsets: &offsets,
                targets: &targets,
            },
            in_place: true,
        };
        let mut seen = [[0u32; 3]; 8];
        let mut k = 0;
        for u in 0..5u32 {
            for e in offsets[u as usize]..offsets[u as usize + 1] {
                k = rows.fold_at(u, e as usize, k, |k, a, b, c| {
                    seen[k] = [a, b, c];
                    k + 1
                });
            }
        }
        seen[..k].sort_unstable();
        assert_eq!(&seen[..k], &[[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]);
    }

    #[test]
    fn source_of_skips_empty_rows() {
        let offsets = [0u64, 2, 2, 2, 5];
        assert_eq!(source_of(&offsets, 0), 0);
        assert_eq!(source_of(&offsets, 1), 0);
        assert_eq!(source_of(&offsets, 2), 3);
        assert_eq!(source_of(&offsets, 4), 3);
    }

    #[test]
    fn ids_map_ranks_or_keep_them() {
        assert_eq!(Ids(&[]).id(7), 7);
        assert_eq!(Ids(&[2, 0, 1]).id(0), 2);
    }
}
