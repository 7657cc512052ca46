//! Edge list → CSR, by a two-pass parallel radix partition (no shared counters).
//!
//! Protocol:
//! 1. *Partition by source bucket.* Vertices are grouped into at most
//!    `2^BUCKET_BITS` buckets of `2^shift` consecutive ids. The edge list is cut
//!    into chunks; each chunk counts the directed entries it contributes per bucket
//!    (both directions when symmetrising, self-loops dropped if asked). An exclusive
//!    prefix in (bucket, chunk) order gives every chunk a private range inside every
//!    bucket, and a second pass writes `(source, entry)` there: each thread appends
//!    to a bounded number of sequential streams and no counter is shared.
//! 2. *Rows per bucket.* Each bucket is one task: it counts its sources' degrees in
//!    a small local array, scatters the entries into its own range of the row array,
//!    sorts each row by (target, weight), optionally drops duplicates keeping the
//!    first — i.e. smallest — weight, and packs the kept rows to the front of its
//!    range. All random writes stay inside one bucket's range.
//! 3. *Compaction.* Bucket totals place every bucket in the final arrays; packed
//!    ranges are copied there in parallel and the per-bucket offsets are shifted.
//!
//! Why not one atomic cursor per vertex (the previous counting sort): on a
//! Kronecker graph every thread hits the hubs' cursors, and the single-entry writes
//! land anywhere in the whole slot array (16 GB at Graph500 scale 26); that scatter
//! alone was over half of the construction time. The result does not depend on
//! thread timing: the chunking fixes the order of entries inside a row, and rows
//! are sorted anyway.

use bytemuck::Zeroable;

use rayon::prelude::*;

use super::csr::{Csr, Graph, RowOrder};
use super::edge_list::EdgeList;
use super::split::split_at_bounds;
use super::weight::Weight;
use crate::alloc::zeroed_vec;
use crate::error::{Error, Result};

/// How to turn an edge list into a graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BuildOptions {
    /// Add `v→u` for every `u→v` (undirected graph).
    pub symmetrize: bool,
    /// Drop `v→v` edges.
    pub remove_self_loops: bool,
    /// Keep one copy of parallel edges, the one with the smallest weight.
    pub dedup: bool,
    /// Renumber vertices by decreasing out-degree (helps caches on skewed graphs).
    pub relabel_by_degree: bool,
}

impl BuildOptions {
    /// Options for a simple undirected graph: symmetric, no self-loops, no duplicates.
    pub fn undirected() -> Self {
        BuildOptions {
            symmetrize: true,
            remove_self_loops: true,
            dedup: true,
            relabel_by_degree: false,
        }
    }
}

/// Output of [`build_relabeled`]: the graph and, when relabelled, `new_to_old[v]`.
pub struct Built<W: Weight> {
    pub graph: Graph<W>,
    pub new_to_old: Option<Vec<u32>>,
}

/// Builds a graph. With `relabel_by_degree` the ids change; use
/// [`build_relabeled`] to get the permutation back.
///
/// ```
/// use runtime::graph::{build, BuildOptions, EdgeList};
/// let el = EdgeList::<u32> { num_vertices: 3, edges: vec![[0, 1], [1, 2], [0, 1]], weights: None };
/// let g = build(&el, BuildOptions::undirected()).unwrap();
/// assert_eq!(g.csr().neighbors(1), &[0, 2]);
/// assert_eq!(g.num_edges(), 4);
/// ```
pub fn build<W: Weight>(el: &EdgeList<W>, opts: BuildOptions) -> Result<Graph<W>> {
    Ok(build_relabeled(el, opts)?.graph)
}

/// [`build`] that takes the edge list and gives it back slab by slab as its
/// entries are scattered (in eight steps): the peak then holds about one
/// copy of the scattered entries, not the input as well (unweighted Graph500:
/// 17 bytes per input edge instead of 24). Weighted lists are built as by [`build`] (their weights ride along
/// until the end).
///
/// ```
/// use runtime::graph::{build, build_consuming, BuildOptions, EdgeList};
///
/// let e = EdgeList::<u32> { num_vertices: 3, edges: vec![[0, 1], [1, 2]], weights: None };
/// let a = build(&e, BuildOptions::undirected())?;
/// let b = build_consuming(e, BuildOptions::undirected())?;
/// assert_eq!(a.csr().targets(), b.csr().targets());
/// # Ok::<(), runtime::Error>(())
/// ```
pub fn build_consuming<W: Weight>(el: EdgeList<W>, opts: BuildOptions) -> Result<Graph<W>> {
    if el.weights.is_some() || opts.relabel_by_degree {
        return build(&el, opts);
    }
    Ok(known_rows(
        Graph::new(unweighted_csr(Input::Owned(el), opts)?, opts.symmetrize),
        opts,
    ))
}

/// `g` with what `opts` guarantee of its rows recorded: a build sorts every
/// row, so with `dedup` and `remove_self_loops` they are strictly increasing
/// and loop-free (other options leave it to [`Graph::row_order`]'s pass).
fn known_rows<W: Weight>(g: Graph<W>, opts: BuildOptions) -> Graph<W> {
    if opts.dedup && opts.remove_self_loops {
        g.with_row_order(RowOrder {
            strictly_increasing: true,
            self_loops: 0,
        })
    } else {
        g
    }
}

/// The CSR of an unweighted list: rows are bare targets, half the bytes to move
/// and sort.
fn unweighted_csr<W: Weight>(el: Input<'_, W>, opts: BuildOptions) -> Result<Csr<W>> {
    let (offsets, targets) = radix_rows(
        el,
        opts,
        |_, t| t,
        |&t| t,
        |row: &mut [u32]| row.sort_unstable(),
    )?;
    Ok(Csr::from_parts_unchecked(offsets, targets, None))
}

/// The edge list a build reads: borrowed, or owned and dropped once scattered.
enum Input<'a, W: Weight> {
    Borrowed(&'a EdgeList<W>),
    Owned(EdgeList<W>),
}

impl<W: Weight> Input<'_, W> {
    /// An owned list gives back its edges from `len` on (the tail of a large
    /// allocation returns to the OS); a borrowed one keeps them.
    fn release_from(&mut self, len: usize) {
        if let Input::Owned(e) = self {
            e.edges.truncate(len);
            e.edges.shrink_to_fit();
        }
    }
}

impl<W: Weight> std::ops::Deref for Input<'_, W> {
    type Target = EdgeList<W>;
    fn deref(&self) -> &EdgeList<W> {
        match self {
            Input::Borrowed(e) => e,
            Input::Owned(e) => e,
        }
    }
}

/// Builds a graph and returns the relabelling permutation if one was applied.
pub fn build_relabeled<W: Weight>(el: &EdgeList<W>, opts: BuildOptions) -> Result<Built<W>> {
    let csr = radix_build(el, opts)?;
    if !opts.relabel_by_degree {
        return Ok(Built {
            graph: known_rows(Graph::new(csr, opts.symmetrize), opts),
            new_to_old: None,
        });
    }
    // The renamed rows are sorted again, and renaming neither merges entries
    // nor makes loops: what `opts` guarantee still holds.
    let (csr, new_to_old) = relabel_by_degree(&csr);
    Ok(Built {
        graph: known_rows(Graph::new(csr, opts.symmetrize), opts),
        new_to_old: Some(new_to_old),
    })
}

/// Raw pointer that may be shared across rayon tasks for disjoint writes.
#[derive(Clone, Copy)]
struct SharedMut<T>(*mut T);
// SAFETY: only used for writes to slots that exactly one task owns (its private
// range); no two tasks touch the same element and nothing reads until the scope ends.
unsafe impl<T: Send> Send for SharedMut<T> {}
// SAFETY: see above.
unsafe impl<T: Send> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    /// A method (not field access) so closures capture the whole `Sync` wrapper
    /// rather than the raw pointer inside it.
    fn ptr(&self) -> *mut T {
        self.0
    }
}

/// At most `2^BUCKET_BITS` source buckets: few enough that every chunk's write
/// streams stay cheap in pass 1, many enough that at Graph500 scale 26 a bucket's
/// degree array (64 K vertices) stays in cache in pass 2 and the buckets balance
/// over the threads.
const BUCKET_BITS: u32 = 10;

/// Entries a chunk gathers per bucket before writing them out (two cache lines
/// of unweighted entries).
const WC: usize = 16;

/// Steps in which a build gives back its input and its edge scratch (each step
/// returns about an eighth of it): the peak then holds about one copy of the
/// entries, 16 bytes per undirected input edge plus a step's worth, rather than
/// two arrays whole (Kronecker 22: 1.15 GB instead of 1.64, same build time on
/// two cores; 16 steps saved 3 % more memory and cost 5 % more time).
const RELEASE_STEPS: usize = 8;

/// Smallest chunk of input edges one task partitions.
const MIN_CHUNK: usize = 1 << 15;

/// Calls `emit(source, target)` for each directed entry edge `e` contributes.
/// Both passes of step 1 go through here, so they agree on every count.
#[inline]
fn entries(e: [u32; 2], opts: BuildOptions, mut emit: impl FnMut(u32, u32)) {
    if e[0] == e[1] {
        if !opts.remove_self_loops {
            emit(e[0], e[1]);
        }
        return;
    }
    emit(e[0], e[1]);
    if opts.symmetrize {
        emit(e[1], e[0]);
    }
}

/// Exclusive prefix sums with the total appended (`len + 1` entries).
fn prefix(counts: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut acc = 0usize;
    let mut out = vec![0usize];
    for c in counts {
        acc += c;
        out.push(acc);
    }
    out
}

/// Rows as `R` (a target, or a target with its weight), sorted and optionally
/// deduplicated: the shared body of the unweighted and the weighted build.
fn radix_rows<W: Weight, R>(
    mut el: Input<'_, W>,
    opts: BuildOptions,
    item: impl Fn(usize, u32) -> R + Sync,
    target: impl Fn(&R) -> u32 + Sync,
    sort_row: impl Fn(&mut [R]) + Sync,
) -> Result<(Vec<u64>, Vec<R>)>
where
    R: Copy + Send + Sync + Zeroable,
{
    let n = el.num_vertices;
    if n > super::edge_list::MAX_VERTICES
        || el
            .weights
            .as_ref()
            .is_some_and(|w| w.len() != el.edges.len())
    {
        el.validate()?;
    }
    // Buckets of 2^shift consecutive vertex ids, at most 2^BUCKET_BITS of them.
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    let shift = bits.saturating_sub(BUCKET_BITS);
    let buckets = n.div_ceil(1 << shift);
    // Four chunks a thread in every slab that step (1b) scatters at once.
    let chunk_len = el
        .edges
        .len()
        .div_ceil(rayon::current_num_threads() * 4 * RELEASE_STEPS)
        .max(MIN_CHUNK);

    // (1a) per-chunk bucket counts; the id range check rides along.
    let counted: Vec<(Vec<usize>, bool)> = el
        .edges
        .par_chunks(chunk_len)
        .map(|chunk| {
            let mut h = vec![0usize; buckets];
            let mut bad = false;
            for &e in chunk {
                if e[0] as usize >= n || e[1] as usize >= n {
                    bad = true;
                    continue;
                }
                entries(e, opts, |s, _| h[(s >> shift) as usize] += 1);
            }
            (h, bad)
        })
        .collect();
    if counted.iter().any(|c| c.1) {
        el.validate()?;
        return Err(Error::InvalidGraph(
            "an edge has an out-of-range vertex id".into(),
        ));
    }
    let bucket_start = prefix((0..buckets).map(|b| counted.iter().map(|c| c.0[b]).sum()));
    let total = bucket_start[buckets];
    // Chunk c writes its entries of bucket b at cursors[c][b] onwards.
    let mut next = bucket_start[..buckets].to_vec();
    let mut cursors: Vec<Vec<usize>> = counted
        .iter()
        .map(|(h, _)| {
            let here = next.clone();
            next.iter_mut().zip(h).for_each(|(x, c)| *x += c);
            here
        })
        .collect();
    drop(counted);

    // (1b) scatter (source, entry) into each chunk's private ranges, a slab of
    // chunks at a time from the last: an owned list gives each slab back once
    // scattered, so the peak holds the entries and what is left of the input
    // (`pairs` takes pages as they are written), not both whole.
    let mut pairs: Vec<(u32, R)> = zeroed_vec(total, "the CSR build's edge scratch")?;
    let out = SharedMut(pairs.as_mut_ptr());
    let slab = cursors.len().div_ceil(RELEASE_STEPS).max(1);
    while !cursors.is_empty() {
        let first = cursors.len().saturating_sub(slab);
        let slab_cursors = cursors.split_off(first);
        let from = first * chunk_len;
        el.edges[from..]
            .par_chunks(chunk_len)
            .zip(slab_cursors)
            .enumerate()
            .for_each(|(i, (chunk, mut cur))| {
                let ci = first + i;
                // Entries gather in a small buffer per bucket and leave WC at a time:
                // one burst per bucket instead of an access to a far page per entry.
                let mut buf = vec![<(u32, R)>::zeroed(); buckets * WC];
                let mut fill = vec![0usize; buckets];
                let mut flush = |b: usize, k: usize, buf: &[(u32, R)]| {
                    // SAFETY: chunk `ci` emits exactly `counted[ci][b]` entries into
                    // bucket `b` (same `entries`, ids checked in range), and its range
                    // `cursors[ci][b]..+counted[ci][b]` overlaps no other chunk's and
                    // lies below `total`; `buf` is a separate allocation; nothing reads
                    // `pairs` until every task is done.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            buf[b * WC..].as_ptr(),
                            out.ptr().add(cur[b]),
                            k,
                        )
                    };
                    cur[b] += k;
                };
                let base = ci * chunk_len;
                for (k, &e) in chunk.iter().enumerate() {
                    entries(e, opts, |s, t| {
                        let b = (s >> shift) as usize;
                        buf[b * WC + fill[b]] = (s, item(base + k, t));
                        fill[b] += 1;
                        if fill[b] == WC {
                            flush(b, WC, &buf);
                            fill[b] = 0;
                        }
                    });
                }
                for (b, &k) in fill.iter().enumerate() {
                    flush(b, k, &buf);
                }
            });
        el.release_from(from);
    }
    // The input is not read again: an owned list goes now (see `build_consuming`).
    drop(el);

    // (2) rows per bucket: counting sort by source inside the bucket, sort each
    // row, dedup, pack to the bucket's front. `ends[v]` = end of v's packed row
    // relative to its bucket (becomes `offsets[v + 1]` in step 3).
    let mut rows: Vec<R> = zeroed_vec(total, "the CSR's edges")?;
    let mut offsets: Vec<u64> = zeroed_vec(
        n + 1,
        &format!("the row offsets of {n} vertices (one past the largest vertex id)"),
    )?;
    // A group of buckets at a time from the last, giving back the entries each
    // group read: the rows take pages as they are written while `pairs` shrinks.
    let row_bucket = |b: usize, dst: &mut [R], ends: &mut [u64], pairs: &[(u32, R)]| {
        let src = &pairs[bucket_start[b]..bucket_start[b + 1]];
        let lo = (b << shift) as u32;
        // cursor[i] = start of row i, then (after the scatter) its end.
        let mut cursor = vec![0usize; ends.len()];
        for &(s, _) in src {
            cursor[(s - lo) as usize] += 1;
        }
        let mut acc = 0;
        for c in cursor.iter_mut() {
            let d = *c;
            *c = acc;
            acc += d;
        }
        for &(s, r) in src {
            let c = &mut cursor[(s - lo) as usize];
            dst[*c] = r;
            *c += 1;
        }
        let (mut start, mut packed) = (0, 0);
        for (end, e) in cursor.iter().zip(ends.iter_mut()) {
            let row = &mut dst[start..*end];
            sort_row(row);
            let k = if opts.dedup {
                dedup_row(row, &target)
            } else {
                row.len()
            };
            dst.copy_within(start..start + k, packed);
            packed += k;
            *e = packed as u64;
            start = *end;
        }
        packed
    };
    let mut kept = vec![0usize; buckets];
    let mut dsts = split_at_bounds(&mut rows, &bucket_start);
    let mut ends: Vec<&mut [u64]> = offsets[1..].chunks_mut(1 << shift).collect();
    let group = buckets.div_ceil(RELEASE_STEPS).max(1);
    while !dsts.is_empty() {
        let (lo, hi) = (dsts.len().saturating_sub(group), dsts.len());
        dsts.split_off(lo)
            .into_par_iter()
            .zip(ends.split_off(lo))
            .zip(kept[lo..hi].par_iter_mut())
            .enumerate()
            .for_each(|(i, ((dst, e), k))| *k = row_bucket(lo + i, dst, e, &pairs));
        pairs.truncate(bucket_start[lo]);
        pairs.shrink_to_fit();
    }
    drop(pairs);

    // (3) place the buckets: shift the offsets, copy the packed ranges.
    let kept_start = prefix(kept.iter().copied());
    offsets[1..]
        .par_chunks_mut(1 << shift)
        .zip(kept_start.par_iter())
        .for_each(|(o, &base)| o.iter_mut().for_each(|x| *x += base as u64));
    let kept_total = kept_start[buckets];
    if kept_total == total {
        return Ok((offsets, rows));
    }
    let mut packed: Vec<R> = zeroed_vec(kept_total, "the CSR's edges")?;
    split_at_bounds(&mut packed, &kept_start)
        .into_par_iter()
        .enumerate()
        .for_each(|(b, d)| {
            let s = bucket_start[b];
            d.copy_from_slice(&rows[s..s + d.len()]);
        });
    Ok((offsets, packed))
}

/// The CSR of `el` under `opts`; fails on ids out of range or misaligned weights.
fn radix_build<W: Weight>(el: &EdgeList<W>, opts: BuildOptions) -> Result<Csr<W>> {
    match &el.weights {
        None => unweighted_csr(Input::Borrowed(el), opts),
        Some(w) => {
            let (offsets, rows) = radix_rows(
                Input::Borrowed(el),
                opts,
                |i, t| (t, w[i]),
                |r: &(u32, W)| r.0,
                |row: &mut [(u32, W)]| {
                    row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.total_cmp(&b.1)))
                },
            )?;
            let targets = rows.par_iter().map(|r| r.0).collect();
            let weights = rows.par_iter().map(|r| r.1).collect();
            Ok(Csr::from_parts_unchecked(offsets, targets, Some(weights)))
        }
    }
}

/// Moves the first of each run of equal targets to the front; returns the count.
/// Rows are sorted by (target, weight), so the kept copy has the smallest weight.
pub(crate) fn dedup_row<R: Copy>(row: &mut [R], target: impl Fn(&R) -> u32) -> usize {
    if row.is_empty() {
        return 0;
    }
    let mut w = 1;
    for r in 1..row.len() {
        if target(&row[r]) != target(&row[w - 1]) {
            row[w] = row[r];
            w += 1;
        }
    }
    w
}

/// Renumbers vertices by decreasing degree (ties by old id); returns the new CSR
/// and `new_to_old`.
pub fn relabel_by_degree<W: Weight>(csr: &Csr<W>) -> (Csr<W>, Vec<u32>) {
    let n = csr.num_vertices();
    let mut new_to_old: Vec<u32> = (0..n as u32).collect();
    new_to_old.par_sort_by(|&a, &b| csr.degree(b).cmp(&csr.degree(a)).then(a.cmp(&b)));
    let mut old_to_new = vec![0u32; n];
    for (new, &old) in new_to_old.iter().enumerate() {
        old_to_new[old as usize] = new as u32;
    }
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut acc = 0;
    for &old in &new_to_old {
        acc += csr.degree(old);
        offsets.push(acc);
    }
    let rows: Vec<Vec<(u32, W)>> = new_to_old
        .par_iter()
        .map(|&old| {
            let mut row: Vec<(u32, W)> = csr
                .edge_range(old)
                .map(|e| (old_to_new[csr.targets()[e] as usize], csr.weight(e)))
                .collect();
            row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.total_cmp(&b.1)));
            row
        })
        .collect();
    let targets = rows
        .par_iter()
        .flat_map_iter(|r| r.iter().map(|x| x.0))
        .collect();
    let weights = csr.is_weighted().then(|| {
        rows.par_iter()
            .flat_map_iter(|r| r.iter().map(|x| x.1))
            .collect()
    });
    (
        Csr::from_parts_unchecked(offsets, targets, weights),
        new_to_old,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Oracle: a sorted map of (src, dst) → multiset of weights.
    fn oracle(el: &EdgeList<u32>, o: BuildOptions) -> BTreeMap<(u32, u32), Vec<u32>> {
        let mut m: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
        for (i, e) in el.edges.iter().enumerate() {
            if o.remove_self_loops && e[0] == e[1] {
                continue;
            }
            let w = el.weights.as_ref().map_or(1, |w| w[i]);
            m.entry((e[0], e[1])).or_default().push(w);
            if o.symmetrize && e[0] != e[1] {
                m.entry((e[1], e[0])).or_default().push(w);
            }
        }
        for ws in m.values_mut() {
            ws.sort();
            if o.dedup {
                ws.truncate(1);
            }
        }
        m
    }

    fn as_map(c: &Csr<u32>) -> BTreeMap<(u32, u32), Vec<u32>> {
        let mut m: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
        for u in 0..c.num_vertices() as u32 {
            for e in c.edge_range(u) {
                m.entry((u, c.targets()[e])).or_default().push(c.weight(e));
            }
        }
        for ws in m.values_mut() {
            ws.sort();
        }
        m
    }

    fn arb_edge_list() -> impl Strategy<Value = EdgeList<u32>> {
        (1usize..40).prop_flat_map(|n| {
            proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..20), 0..200).prop_map(
                move |es| EdgeList {
                    num_vertices: n,
                    edges: es.iter().map(|&(a, b, _)| [a, b]).collect(),
                    weights: Some(es.iter().map(|e| e.2).collect()),
                },
            )
        })
    }

    proptest! {
        #[test]
        fn build_matches_oracle(el in arb_edge_list(), sym: bool, nsl: bool, dd: bool) {
            let o = BuildOptions { symmetrize: sym, remove_self_loops: nsl, dedup: dd, relabel_by_degree: false };
            let g = build(&el, o).unwrap();
            prop_assert_eq!(as_map(g.csr()), oracle(&el, o));
            for u in 0..g.num_vertices() as u32 {
                prop_assert!(g.csr().neighbors(u).windows(2).all(|w| w[0] <= w[1]));
            }
            // The consuming build (unweighted: the path that frees the input early).
            let bare = EdgeList::<u32> { num_vertices: el.num_vertices, edges: el.edges.clone(), weights: None };
            let a = build(&bare, o).unwrap();
            let c = build_consuming(bare, o).unwrap();
            prop_assert_eq!(a.csr().offsets(), c.csr().offsets());
            prop_assert_eq!(a.csr().targets(), c.csr().targets());
            // What a build records of its rows is what a pass over them finds.
            for h in [&g, &a, &c] {
                prop_assert_eq!(h.row_order(), h.csr().row_order());
            }
        }

        #[test]
        fn relabel_preserves_structure(el in arb_edge_list()) {
            let o = BuildOptions { relabel_by_degree: true, ..BuildOptions::default() };
            let b = build_relabeled(&el, o).unwrap();
            let perm = b.new_to_old.unwrap();
            let c = b.graph.csr();
            for v in 1..c.num_vertices() as u32 {
                prop_assert!(c.degree(v - 1) >= c.degree(v));
            }
            let mut back: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
            for (k, v) in as_map(c) {
                back.insert((perm[k.0 as usize], perm[k.1 as usize]), v);
            }
            prop_assert_eq!(back, oracle(&el, o));
            let u = BuildOptions { relabel_by_degree: true, ..BuildOptions::undirected() };
            let g = build(&el, u).unwrap();
            prop_assert_eq!(g.row_order(), g.csr().row_order());
        }
    }

    /// A list long enough that the build gives its input back in several slabs
    /// and rows its buckets in several groups (16 chunks of 2^15 edges, 1,024
    /// buckets, 8 steps): owned and borrowed builds equal rows sorted the plain
    /// way.
    #[test]
    fn builds_in_release_steps_equal_sorted_rows() {
        let el = crate::generate::kronecker(15, 16, 7).unwrap();
        assert!(el.edges.len() >= RELEASE_STEPS * MIN_CHUNK);
        for o in [BuildOptions::undirected(), BuildOptions::default()] {
            let mut want: Vec<(u32, u32)> = Vec::new();
            for &[u, v] in &el.edges {
                entries([u, v], o, |s, t| want.push((s, t)));
            }
            want.sort_unstable();
            if o.dedup {
                want.dedup();
            }
            let mut offsets = vec![0u64; el.num_vertices + 1];
            for &(s, _) in &want {
                offsets[s as usize + 1] += 1;
            }
            for v in 0..el.num_vertices {
                offsets[v + 1] += offsets[v];
            }
            let targets: Vec<u32> = want.iter().map(|e| e.1).collect();
            let a = build(&el, o).unwrap();
            let c = build_consuming(el.clone(), o).unwrap();
            for g in [&a, &c] {
                assert_eq!(g.csr().offsets(), &offsets[..]);
                assert_eq!(g.csr().targets(), &targets[..]);
            }
        }
    }

    #[test]
    fn rejects_out_of_range_ids() {
        let el = EdgeList::<u32> {
            num_vertices: 2,
            edges: vec![[0, 2]],
            weights: None,
        };
        let err = build(&el, BuildOptions::default()).unwrap_err().to_string();
        assert!(err.contains("vertex id"), "{err}");
    }

    #[test]
    fn empty_and_single_vertex() {
        let g = build(&EdgeList::<u32>::new(0), BuildOptions::default()).unwrap();
        assert_eq!(g.num_vertices(), 0);
        let g = build(&EdgeList::<u32>::new(1), BuildOptions::default()).unwrap();
        assert_eq!(g.num_vertices(), 1);
        assert_eq!(g.num_edges(), 0);
    }

    #[test]
    fn large_rows_split_in_parallel() {
        let n = 10_000u32;
        let edges: Vec<[u32; 2]> = (0..200_000u32).map(|i| [i % n, (i * 7919) % n]).collect();
        let el = EdgeList::<u32> {
            num_vertices: n as usize,
            edges,
            weights: None,
        };
        let g = build(&el, BuildOptions::undirected()).unwrap();
        let o = oracle(&el, BuildOptions::undirected());
        assert_eq!(g.num_edges() as usize, o.len());
    }

    /// Enough vertices for several ids per bucket (and a partial last bucket) and
    /// enough edges for several chunks: every option, weighted and not, against
    /// the oracle, with rows sorted.
    #[test]
    fn many_buckets_and_chunks_match_oracle() {
        let n = 3001u32;
        let m = 3 * MIN_CHUNK as u32 + 77;
        let mut x = 12345u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        // Skewed ids (a few hubs), some self-loops and many duplicates.
        let edges: Vec<[u32; 2]> = (0..m)
            .map(|_| {
                let a = next() % n;
                let b = if next() % 4 == 0 { a % 17 } else { next() % n };
                [a, b]
            })
            .collect();
        let weights: Vec<u32> = (0..m).map(|_| next() % 50).collect();
        for weighted in [false, true] {
            let el = EdgeList::<u32> {
                num_vertices: n as usize,
                edges: edges.clone(),
                weights: weighted.then(|| weights.clone()),
            };
            for bits in 0..8u32 {
                let o = BuildOptions {
                    symmetrize: bits & 1 != 0,
                    remove_self_loops: bits & 2 != 0,
                    dedup: bits & 4 != 0,
                    relabel_by_degree: false,
                };
                let g = build(&el, o).unwrap();
                assert_eq!(as_map(g.csr()), oracle(&el, o), "{o:?} weighted {weighted}");
                assert!((0..n).all(|u| g.csr().neighbors(u).windows(2).all(|w| w[0] <= w[1])));
                assert_eq!(g.csr().is_weighted(), weighted);
            }
        }
    }

    #[test]
    fn rejects_misaligned_weights_and_ids_past_a_bucket() {
        let el = EdgeList::<u32> {
            num_vertices: 5000,
            edges: vec![[1, 2], [4999, 5000]],
            weights: None,
        };
        let err = build(&el, BuildOptions::undirected())
            .unwrap_err()
            .to_string();
        assert!(err.contains("vertex id"), "{err}");
        let el = EdgeList::<u32> {
            num_vertices: 3,
            edges: vec![[0, 1], [1, 2]],
            weights: Some(vec![1]),
        };
        assert!(build(&el, BuildOptions::default()).is_err());
    }
}
