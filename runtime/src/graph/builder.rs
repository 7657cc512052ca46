//! Edge list → CSR, with a parallel counting sort.
//!
//! Protocol: (1) count out-degrees with atomic increments, (2) exclusive prefix sum
//! into offsets, (3) scatter every edge to a slot claimed with an atomic cursor (each
//! slot is claimed exactly once, so the unsynchronised writes never overlap),
//! (4) sort each row by (target, weight) so the result does not depend on thread
//! timing, (5) optionally drop duplicates keeping the first — i.e. smallest — weight.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::csr::{Csr, Graph};
use super::edge_list::EdgeList;
use super::weight::Weight;
use crate::error::Result;

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

/// Builds a graph and returns the relabelling permutation if one was applied.
pub fn build_relabeled<W: Weight>(el: &EdgeList<W>, opts: BuildOptions) -> Result<Built<W>> {
    el.validate()?;
    let csr = counting_sort(el, opts);
    if !opts.relabel_by_degree {
        return Ok(Built {
            graph: Graph::new(csr, opts.symmetrize),
            new_to_old: None,
        });
    }
    let (csr, new_to_old) = relabel_by_degree(&csr);
    Ok(Built {
        graph: Graph::new(csr, opts.symmetrize),
        new_to_old: Some(new_to_old),
    })
}

/// Raw pointer that may be shared across rayon tasks for disjoint writes.
#[derive(Clone, Copy)]
struct SharedMut<T>(*mut T);
// SAFETY: only used for writes to slots that the atomic cursor hands to exactly one
// task; no two tasks touch the same element and nothing reads until the scope ends.
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

fn counting_sort<W: Weight>(el: &EdgeList<W>, opts: BuildOptions) -> Csr<W> {
    let n = el.num_vertices;
    let keep = |e: &[u32; 2]| !(opts.remove_self_loops && e[0] == e[1]);

    // (1) degrees
    let degree: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    el.edges.par_iter().filter(|e| keep(e)).for_each(|e| {
        degree[e[0] as usize].fetch_add(1, Ordering::Relaxed);
        if opts.symmetrize && e[0] != e[1] {
            degree[e[1] as usize].fetch_add(1, Ordering::Relaxed);
        }
    });

    // (2) offsets
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut acc = 0u64;
    for d in &degree {
        acc += d.load(Ordering::Relaxed);
        offsets.push(acc);
    }
    let m = acc as usize;

    // (3) scatter: reuse the degree counters as cursors
    degree
        .par_iter()
        .zip(offsets[..n].par_iter())
        .for_each(|(c, &o)| c.store(o, Ordering::Relaxed));
    let mut slots: Vec<(u32, W)> = vec![(0, W::default()); m];
    let out = SharedMut(slots.as_mut_ptr());
    let weight_of = |i: usize| el.weights.as_ref().map_or(W::ONE, |w| w[i]);
    el.edges
        .par_iter()
        .enumerate()
        .filter(|(_, e)| keep(e))
        .for_each(|(i, e)| {
            let w = weight_of(i);
            let put = |from: u32, to: u32| {
                let pos = degree[from as usize].fetch_add(1, Ordering::Relaxed) as usize;
                // SAFETY: `pos` is unique (atomic cursor within this vertex's row, and
                // rows are disjoint ranges of `slots`), and `pos < m` because each row
                // receives exactly as many edges as were counted for it in step (1).
                unsafe { out.ptr().add(pos).write((to, w)) };
            };
            put(e[0], e[1]);
            if opts.symmetrize && e[0] != e[1] {
                put(e[1], e[0]);
            }
        });
    drop(degree);

    // (4) sort rows, (5) dedup in place and record new row lengths
    let mut new_len = vec![0u64; n];
    for_each_row_mut(&mut slots, &offsets, &mut new_len, &|row, len| {
        row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.total_cmp(&b.1)));
        *len = if opts.dedup {
            dedup_row(row)
        } else {
            row.len()
        } as u64;
    });

    // compact
    let mut new_offsets = Vec::with_capacity(n + 1);
    new_offsets.push(0u64);
    let mut acc = 0u64;
    for l in &new_len {
        acc += l;
        new_offsets.push(acc);
    }
    let weighted = el.weights.is_some();
    let (targets, weights) = if acc as usize == m {
        let targets: Vec<u32> = slots.par_iter().map(|s| s.0).collect();
        let weights = weighted.then(|| slots.par_iter().map(|s| s.1).collect());
        (targets, weights)
    } else {
        let rows = |v: usize| {
            let start = offsets[v] as usize;
            &slots[start..start + new_len[v] as usize]
        };
        let targets: Vec<u32> = (0..n)
            .into_par_iter()
            .flat_map_iter(|v| rows(v).iter().map(|s| s.0))
            .collect();
        let weights = weighted.then(|| {
            (0..n)
                .into_par_iter()
                .flat_map_iter(|v| rows(v).iter().map(|s| s.1))
                .collect()
        });
        (targets, weights)
    };
    Csr::from_parts_unchecked(new_offsets, targets, weights)
}

/// Moves the first of each run of equal targets to the front; returns the count.
/// Rows are sorted by (target, weight), so the kept copy has the smallest weight.
fn dedup_row<W: Weight>(row: &mut [(u32, W)]) -> usize {
    if row.is_empty() {
        return 0;
    }
    let mut w = 1;
    for r in 1..row.len() {
        if row[r].0 != row[w - 1].0 {
            row[w] = row[r];
            w += 1;
        }
    }
    w
}

/// Calls `f(row, &mut len[v])` for every vertex's row, in parallel, by recursive
/// halving of the vertex range (safe split of the mutable slice).
fn for_each_row_mut<T: Send>(
    data: &mut [T],
    offsets: &[u64],
    len: &mut [u64],
    f: &(dyn Fn(&mut [T], &mut u64) + Sync),
) {
    fn go<T: Send>(
        data: &mut [T],
        base: u64,
        offsets: &[u64],
        len: &mut [u64],
        f: &(dyn Fn(&mut [T], &mut u64) + Sync),
    ) {
        let nv = len.len();
        let edges = data.len();
        if nv <= 1 || edges < 4096 && nv < 4096 {
            for v in 0..nv {
                let s = (offsets[v] - base) as usize;
                let e = (offsets[v + 1] - base) as usize;
                f(&mut data[s..e], &mut len[v]);
            }
            return;
        }
        let mid = nv / 2;
        let split = (offsets[mid] - base) as usize;
        let (dl, dr) = data.split_at_mut(split);
        let (ll, lr) = len.split_at_mut(mid);
        rayon::join(
            || go(dl, base, &offsets[..=mid], ll, f),
            || go(dr, offsets[mid], &offsets[mid..], lr, f),
        );
    }
    go(data, 0, offsets, len, f)
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
}
