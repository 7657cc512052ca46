//! Johnson's algorithm for sparse graphs (Johnson, JACM 1977): one Bellman–Ford
//! (here SPFA, FIFO queue) from a virtual source gives potentials `h` with
//! `w'(u, v) = w(u, v) + h(u) − h(v) ≥ 0`; then Dijkstra from every source on `w'`
//! (rayon over sources) and `d(s, v) = d'(s, v) − h(s) + h(v)`.
//! O(n·m·log n) instead of O(n³), and rows come out one source at a time, so
//! [`Johnson::for_each_block`] can stream an `n²` result that does not fit in
//! memory to disk.
//!
//! Arithmetic runs in a wider accumulator ([`MinPlusElem::Acc`]: i64 for i32,
//! i128 for i64, f64 for floats) so reweighting cannot overflow; results are
//! narrowed back after the range check of [`super::semiring::Semiring::check_range`].
//! A negative cycle is found by the SPFA (a vertex whose shortest path would need
//! `n` edges) and reported with its vertices, see [`find_negative_cycle`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rayon::prelude::*;

use super::semiring::{Elem, MinPlus, Semiring};
use crate::error::{Error, Result};
use crate::graph::Csr;

/// The accumulator arithmetic Johnson needs.
pub trait Acc: Copy + PartialOrd + Send + Sync + std::fmt::Debug + 'static {
    const ZERO: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    /// An order-preserving key for non-negative values (heap order).
    fn key(self) -> u128;
}

/// `Acc` for a primitive number: zero, `+`, `−`, and the heap key `$key`.
macro_rules! acc {
    ($t:ty, zero: $zero:expr, key: |$x:ident| $key:expr) => {
        impl Acc for $t {
            const ZERO: Self = $zero;
            #[inline]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline]
            fn key(self) -> u128 {
                let $x = self;
                $key
            }
        }
    };
}
acc!(i64, zero: 0, key: |x| x.max(0) as u128);
acc!(i128, zero: 0, key: |x| x.max(0) as u128);
// Non-negative IEEE doubles order like their bit patterns.
acc!(f64, zero: 0.0, key: |x| x.max(0.0).to_bits() as u128);

/// An element type of min-plus APSP (i32, i64, f32, f64).
pub trait MinPlusElem: Elem
where
    MinPlus<Self>: Semiring<T = Self>,
{
    type Acc: Acc;
    fn widen(self) -> Self::Acc;
    /// Back to the element type (in range by the range check; clamps otherwise).
    fn narrow(a: Self::Acc) -> Self;
    /// Converts a graph weight, `None` if it does not fit.
    fn from_weight<W: Elem>(w: W) -> Option<Self>;
}

macro_rules! int_mp {
    ($t:ty, $acc:ty) => {
        impl MinPlusElem for $t {
            type Acc = $acc;
            #[inline]
            fn widen(self) -> $acc {
                self as $acc
            }
            #[inline]
            fn narrow(a: $acc) -> $t {
                a.clamp(<$t>::MIN as $acc, (<$t>::MAX - 1) as $acc) as $t
            }
            fn from_weight<W: Elem>(w: W) -> Option<$t> {
                let x = match w.to_i128() {
                    Some(i) => i,
                    None => {
                        let f = w.to_f64();
                        if f.fract() != 0.0 || !f.is_finite() || f.abs() >= 1e30 {
                            return None;
                        }
                        f as i128
                    }
                };
                <$t>::try_from(x).ok().filter(|&x| x != <$t>::MAX)
            }
        }
    };
}
int_mp!(i32, i64);
int_mp!(i64, i128);

macro_rules! float_mp {
    ($t:ty) => {
        impl MinPlusElem for $t {
            type Acc = f64;
            #[inline]
            fn widen(self) -> f64 {
                self as f64
            }
            #[inline]
            fn narrow(a: f64) -> $t {
                a as $t
            }
            fn from_weight<W: Elem>(w: W) -> Option<$t> {
                Some(w.to_f64() as $t).filter(|x| x.is_finite())
            }
        }
    };
}
float_mp!(f32);
float_mp!(f64);

/// Edge weights of `g` converted to `T`, range-checked as the dense path does.
pub fn convert_weights<T: MinPlusElem, W: Elem>(g: &Csr<W>, unit: T) -> Result<Vec<T>>
where
    MinPlus<T>: Semiring<T = T>,
{
    let m = g.num_edges() as usize;
    let w: Vec<T> = match g.weights() {
        None => vec![unit; m],
        Some(ws) => {
            let mut out = Vec::with_capacity(m);
            for (e, &x) in ws.iter().enumerate() {
                match T::from_weight(x) {
                    Some(v) => out.push(v),
                    None => {
                        let u = g.offsets().partition_point(|&o| o <= e as u64) - 1;
                        return Err(crate::dense::matrix::weight_refused(
                            u,
                            g.targets()[e],
                            &x,
                            T::KIND,
                        ));
                    }
                }
            }
            out
        }
    };
    let lo = best(w.iter().copied(), |x, a| x < a);
    let hi = best(w.iter().copied(), |x, a| x > a);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        MinPlus::<T>::check_range(g.num_vertices(), lo, hi)?;
    }
    Ok(w)
}

/// The element `better(x, best so far)` prefers (first of equals), for
/// partially ordered values (floats) where `Iterator::min` does not apply.
fn best<T: Copy>(it: impl Iterator<Item = T>, better: impl Fn(T, T) -> bool) -> Option<T> {
    it.fold(None, |a, x| {
        Some(a.map_or(x, |a| if better(x, a) { x } else { a }))
    })
}

/// The shortest-path potentials from a virtual source joined to every vertex
/// (SPFA), or the vertices of a negative cycle.
pub fn potentials<A: Acc>(offsets: &[u64], targets: &[u32], w: &[A]) -> Result<Vec<A>, Vec<u32>> {
    let n = offsets.len() - 1;
    let mut h = vec![A::ZERO; n];
    let mut edges_on_path = vec![0u32; n];
    let mut pred = vec![u32::MAX; n];
    let mut in_queue = vec![true; n];
    let mut queue: VecDeque<u32> = (0..n as u32).collect();
    while let Some(u) = queue.pop_front() {
        in_queue[u as usize] = false;
        let hu = h[u as usize];
        for e in offsets[u as usize] as usize..offsets[u as usize + 1] as usize {
            let v = targets[e] as usize;
            let cand = hu.add(w[e]);
            if cand < h[v] {
                h[v] = cand;
                pred[v] = u;
                edges_on_path[v] = edges_on_path[u as usize] + 1;
                if edges_on_path[v] as usize >= n.max(1) {
                    return Err(cycle_from(&pred, v as u32, offsets, targets, w));
                }
                if !in_queue[v] {
                    in_queue[v] = true;
                    queue.push_back(v as u32);
                }
            }
        }
    }
    Ok(h)
}

/// A negative cycle of the graph with weights `w`, if there is one.
pub fn find_negative_cycle<A: Acc>(offsets: &[u64], targets: &[u32], w: &[A]) -> Option<Vec<u32>> {
    potentials(offsets, targets, w).err()
}

/// Walks predecessors back from `v` until a vertex repeats: that loop of the
/// predecessor graph is a negative cycle (CLRS, Lemma 24.16). Falls back to a
/// plain Bellman–Ford if the walk ends (predecessors changed under it).
fn cycle_from<A: Acc>(pred: &[u32], v: u32, offsets: &[u64], targets: &[u32], w: &[A]) -> Vec<u32> {
    let n = pred.len();
    let mut seen = vec![u32::MAX; n];
    let mut at = v;
    let mut step = 0u32;
    while at != u32::MAX && seen[at as usize] == u32::MAX {
        seen[at as usize] = step;
        step += 1;
        at = pred[at as usize];
    }
    if at == u32::MAX {
        return bellman_ford_cycle(offsets, targets, w).unwrap_or_else(|| vec![v]);
    }
    loop_through(pred, at)
}

/// The loop of the predecessor graph through `at`, in edge order: collected
/// backwards along `pred`, then reversed (at most n vertices).
fn loop_through(pred: &[u32], at: u32) -> Vec<u32> {
    let mut cyc = vec![at];
    let mut x = pred[at as usize];
    while x != at && cyc.len() <= pred.len() {
        cyc.push(x);
        x = pred[x as usize];
    }
    cyc.reverse();
    cyc
}

/// Textbook Bellman–Ford from the virtual source; the cycle reached by walking
/// `n` predecessors back from a vertex still relaxed in round `n`.
fn bellman_ford_cycle<A: Acc>(offsets: &[u64], targets: &[u32], w: &[A]) -> Option<Vec<u32>> {
    let n = offsets.len() - 1;
    let mut h = vec![A::ZERO; n];
    let mut pred = vec![u32::MAX; n];
    let mut last = None;
    for _ in 0..n {
        last = None;
        for u in 0..n {
            for e in offsets[u] as usize..offsets[u + 1] as usize {
                let v = targets[e] as usize;
                let c = h[u].add(w[e]);
                if c < h[v] {
                    h[v] = c;
                    pred[v] = u as u32;
                    last = Some(v as u32);
                }
            }
        }
        last?;
    }
    let mut x = last?;
    for _ in 0..n {
        x = pred[x as usize];
    }
    Some(loop_through(&pred, x))
}

/// `"3 → 7 → 5 → 3 (weight -4)"`, long cycles shortened.
pub fn describe_cycle<A: Acc>(cyc: &[u32], offsets: &[u64], targets: &[u32], w: &[A]) -> String {
    let mut total = A::ZERO;
    for (i, &u) in cyc.iter().enumerate() {
        let v = cyc[(i + 1) % cyc.len()];
        let lightest = best(
            (offsets[u as usize] as usize..offsets[u as usize + 1] as usize)
                .filter(|&e| targets[e] == v)
                .map(|e| w[e]),
            |x, a| x < a,
        );
        if let Some(b) = lightest {
            total = total.add(b);
        }
    }
    let shown: Vec<String> = cyc.iter().take(16).map(|v| v.to_string()).collect();
    let more = if cyc.len() > 16 {
        format!(" → … ({} vertices in all)", cyc.len())
    } else {
        String::new()
    };
    format!(
        "{} → {}{more} (weight {total:?})",
        shown.join(" → "),
        cyc.first().copied().unwrap_or(0)
    )
}

/// A graph prepared for Johnson: the reweighted (non-negative) edges and `h`.
pub struct Johnson<T: MinPlusElem>
where
    MinPlus<T>: Semiring<T = T>,
{
    offsets: Vec<u64>,
    targets: Vec<u32>,
    /// `w'(e) = w(e) + h(u) − h(v) ≥ 0`.
    reweighted: Vec<T::Acc>,
    h: Vec<T::Acc>,
    /// Whether any weight was negative (otherwise `h = 0` and `w' = w`).
    pub had_negative: bool,
}

/// Per-thread Dijkstra buffers.
pub struct Scratch<A> {
    dist: Vec<A>,
    state: Vec<u8>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(u128, u32)>>,
}

impl<A: Acc> Scratch<A> {
    pub fn new(n: usize) -> Self {
        Scratch {
            dist: vec![A::ZERO; n],
            state: vec![0; n],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }
}

impl<T: MinPlusElem> Johnson<T>
where
    MinPlus<T>: Semiring<T = T>,
{
    /// Converts weights, runs SPFA, reweights. A negative cycle is an
    /// [`Error::NegativeCycle`] naming its vertices.
    pub fn prepare<W: Elem>(g: &Csr<W>, unit: T) -> Result<Self> {
        let w: Vec<T::Acc> = convert_weights::<T, W>(g, unit)?
            .into_iter()
            .map(T::widen)
            .collect();
        let offsets = g.offsets().to_vec();
        let targets = g.targets().to_vec();
        let had_negative = w.iter().any(|&x| x < <T::Acc as Acc>::ZERO);
        let h = if had_negative {
            potentials(&offsets, &targets, &w)
                .map_err(|cyc| Error::NegativeCycle(describe_cycle(&cyc, &offsets, &targets, &w)))?
        } else {
            vec![<T::Acc as Acc>::ZERO; g.num_vertices()]
        };
        let mut reweighted = w;
        for u in 0..offsets.len() - 1 {
            for e in offsets[u] as usize..offsets[u + 1] as usize {
                let x = reweighted[e].add(h[u]).sub(h[targets[e] as usize]);
                // Float rounding may leave −ε; Dijkstra needs ≥ 0.
                reweighted[e] = if x < <T::Acc as Acc>::ZERO {
                    <T::Acc as Acc>::ZERO
                } else {
                    x
                };
            }
        }
        Ok(Johnson {
            offsets,
            targets,
            reweighted,
            h,
            had_negative,
        })
    }

    pub fn n(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Distances from `s` into `row` (length n), ∞ where unreachable; parents
    /// (`u32::MAX` = none, `s` for the source) into `parent` if given.
    pub fn row(
        &self,
        s: u32,
        sc: &mut Scratch<T::Acc>,
        row: &mut [T],
        mut parent: Option<&mut [u32]>,
    ) {
        const UNSEEN: u8 = 0;
        const QUEUED: u8 = 1;
        const DONE: u8 = 2;
        let zero = <T::Acc as Acc>::ZERO;
        for &v in &sc.touched {
            sc.state[v as usize] = UNSEEN;
        }
        sc.touched.clear();
        sc.heap.clear();
        if let Some(p) = parent.as_deref_mut() {
            p.fill(u32::MAX);
            p[s as usize] = s;
        }
        sc.dist[s as usize] = zero;
        sc.state[s as usize] = QUEUED;
        sc.touched.push(s);
        sc.heap.push(Reverse((zero.key(), s)));
        while let Some(Reverse((_, u))) = sc.heap.pop() {
            if sc.state[u as usize] == DONE {
                continue;
            }
            sc.state[u as usize] = DONE;
            let du = sc.dist[u as usize];
            for e in self.offsets[u as usize] as usize..self.offsets[u as usize + 1] as usize {
                let v = self.targets[e] as usize;
                let cand = du.add(self.reweighted[e]);
                let st = sc.state[v];
                if st == UNSEEN || (st == QUEUED && cand < sc.dist[v]) {
                    if st == UNSEEN {
                        sc.state[v] = QUEUED;
                        sc.touched.push(v as u32);
                    }
                    sc.dist[v] = cand;
                    if let Some(p) = parent.as_deref_mut() {
                        p[v] = u;
                    }
                    sc.heap.push(Reverse((cand.key(), v as u32)));
                }
            }
        }
        row.fill(MinPlus::<T>::zero());
        let hs = self.h[s as usize];
        for &v in &sc.touched {
            row[v as usize] = T::narrow(sc.dist[v as usize].sub(hs).add(self.h[v as usize]));
        }
    }

    /// Runs every source in blocks of `rows` rows (parallel inside a block) and
    /// hands each block (`first source`, row-major rows) to `sink` in order, so
    /// memory stays at `rows × n` elements.
    pub fn for_each_block(
        &self,
        rows: usize,
        mut sink: impl FnMut(usize, &[T]) -> Result<()>,
    ) -> Result<()> {
        let n = self.n();
        let rows = rows.max(1);
        let mut buf = vec![MinPlus::<T>::zero(); rows.min(n.max(1)) * n];
        let mut start = 0;
        while start < n {
            let k = rows.min(n - start);
            buf[..k * n]
                .par_chunks_mut(n.max(1))
                .enumerate()
                .for_each_init(
                    || Scratch::new(n),
                    |sc, (i, row)| self.row((start + i) as u32, sc, row, None),
                );
            sink(start, &buf[..k * n])?;
            start += k;
        }
        Ok(())
    }

    /// The vertices of a shortest `from → to` path and its length, `None` if
    /// unreachable.
    pub fn path(&self, from: u32, to: u32) -> Option<(Vec<u32>, T)> {
        let n = self.n();
        let mut row = vec![MinPlus::<T>::zero(); n];
        let mut parent = vec![u32::MAX; n];
        self.row(from, &mut Scratch::new(n), &mut row, Some(&mut parent));
        if MinPlus::<T>::is_zero(row[to as usize]) {
            return None;
        }
        let mut p = vec![to];
        let mut at = to;
        while at != from {
            at = parent[at as usize];
            if at == u32::MAX || p.len() > n {
                return None;
            }
            p.push(at);
        }
        p.reverse();
        Some((p, row[to as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn graph(n: usize, e: &[(u32, u32, i32)]) -> Csr<i32> {
        let el = EdgeList::<i32> {
            num_vertices: n,
            edges: e.iter().map(|&(u, v, _)| [u, v]).collect(),
            weights: Some(e.iter().map(|x| x.2).collect()),
        };
        build(&el, BuildOptions::default()).unwrap().into_csr()
    }

    #[test]
    fn negative_edges_and_paths() {
        let g = graph(4, &[(0, 1, 4), (0, 2, 1), (2, 1, -2), (1, 3, 1)]);
        let j = Johnson::<i32>::prepare(&g, 1).unwrap();
        assert!(j.had_negative);
        let mut rows = Vec::new();
        j.for_each_block(3, |_, r| {
            rows.extend_from_slice(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(&rows[0..4], &[0, -1, 1, 0]);
        assert_eq!(rows[3 * 4], i32::MAX);
        assert_eq!(j.path(0, 3), Some((vec![0, 2, 1, 3], 0)));
        assert_eq!(j.path(3, 0), None);
    }

    #[test]
    fn negative_cycle_is_named() {
        let g = graph(5, &[(0, 1, 1), (1, 2, -3), (2, 3, 1), (3, 1, 1), (3, 4, 0)]);
        match Johnson::<i32>::prepare(&g, 1) {
            Err(Error::NegativeCycle(msg)) => {
                assert!(msg.contains("weight -1"), "{msg}");
                for v in ["1", "2", "3"] {
                    assert!(msg.contains(v), "{msg}");
                }
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("no cycle found"),
        }
        let g = graph(2, &[(1, 1, -1)]);
        assert!(matches!(
            Johnson::<i32>::prepare(&g, 1),
            Err(Error::NegativeCycle(_))
        ));
    }
}
