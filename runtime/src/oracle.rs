//! Simple sequential reference answers that every engine is checked against.
//!
//! Deliberately the plainest code that is obviously right (a FIFO queue BFS),
//! with no parallelism and no tricks, so a disagreement always points at the
//! engine under test. (One exception, [`triangles_in_parallel`], runs the same
//! per-vertex count on blocks of vertices at once, for checks of large graphs.)

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

/// Marks an unreached vertex in levels and parents.
pub const UNREACHED: u32 = u32::MAX;

/// BFS levels and the parent tree of a queue BFS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsTree {
    /// Level (hop distance) of each vertex; [`UNREACHED`] if unreachable.
    pub levels: Vec<u32>,
    /// Parent of each vertex (`parents[source] == source`); [`UNREACHED`] if unreachable.
    pub parents: Vec<u32>,
}

impl BfsTree {
    /// Number of non-empty levels (the source's level 0 included).
    pub fn num_levels(&self) -> u32 {
        self.levels
            .iter()
            .filter(|&&l| l != UNREACHED)
            .max()
            .map_or(0, |&l| l + 1)
    }

    /// Vertices reached, the source included.
    pub fn reached(&self) -> u64 {
        self.levels.iter().filter(|&&l| l != UNREACHED).count() as u64
    }
}

/// Breadth-first search from `source` over out-edges with a FIFO queue.
pub fn bfs<W: Weight>(g: &Csr<W>, source: u32) -> Result<BfsTree> {
    let n = g.num_vertices();
    if source as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "source {source} is not a vertex (the graph has {n} vertices)"
        )));
    }
    let mut levels = vec![UNREACHED; n];
    let mut parents = vec![UNREACHED; n];
    let mut queue = VecDeque::new();
    levels[source as usize] = 0;
    parents[source as usize] = source;
    queue.push_back(source);
    while let Some(u) = queue.pop_front() {
        let next = levels[u as usize] + 1;
        for &v in g.neighbors(u) {
            if levels[v as usize] == UNREACHED {
                levels[v as usize] = next;
                parents[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    Ok(BfsTree { levels, parents })
}

/// Unreached marker for levels (same as [`UNREACHED`]).
pub const INF: u32 = UNREACHED;

/// Queue BFS levels only (panics on a bad source: for tests).
pub fn bfs_levels<W: Weight>(g: &Csr<W>, s: u32) -> Vec<u32> {
    match bfs(g, s) {
        Ok(t) => t.levels,
        Err(e) => panic!("{e}"),
    }
}

/// Binary-heap Dijkstra over u64 distances (`u64::MAX` = unreached).
pub fn dijkstra(g: &Csr<u32>, s: u32) -> Vec<u64> {
    let mut dist = vec![u64::MAX; g.num_vertices()];
    dist[s as usize] = 0;
    let mut heap = BinaryHeap::from([Reverse((0u64, s))]);
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            let nd = d + g.weight(e) as u64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist
}

/// Dijkstra over f64 distances (infinity = unreached).
pub fn dijkstra_f64(g: &Csr<f64>, s: u32) -> Vec<f64> {
    struct Key(f64, u32);
    impl PartialEq for Key {
        fn eq(&self, o: &Self) -> bool {
            self.cmp(o).is_eq()
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Key {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
        }
    }
    let mut dist = vec![f64::INFINITY; g.num_vertices()];
    dist[s as usize] = 0.0;
    let mut heap = BinaryHeap::from([Reverse(Key(0.0, s))]);
    while let Some(Reverse(Key(d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            let nd = d + g.weight(e);
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse(Key(nd, v)));
            }
        }
    }
    dist
}

/// Union-find components labelled by their smallest vertex id.
pub fn components<W: Weight>(g: &Csr<W>) -> Vec<u32> {
    let n = g.num_vertices();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for u in 0..n as u32 {
        for &v in g.neighbors(u) {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            // Union by smaller id so the root is the component minimum.
            if a != b {
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                parent[hi as usize] = lo;
            }
        }
    }
    (0..n as u32).map(|v| find(&mut parent, v)).collect()
}

/// Widest (max-bottleneck) path widths by a modified Dijkstra (0 = unreached).
pub fn widest(g: &Csr<u32>, s: u32) -> Vec<u32> {
    let mut width = vec![0u32; g.num_vertices()];
    width[s as usize] = u32::MAX;
    let mut heap = BinaryHeap::from([(u32::MAX, s)]);
    while let Some((b, u)) = heap.pop() {
        if b < width[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            let nb = b.min(g.weight(e));
            if nb > width[v as usize] {
                width[v as usize] = nb;
                heap.push((nb, v));
            }
        }
    }
    width
}

/// The L1 change one more exact PageRank round would make to `ranks`: how far
/// they are from the fixed point (gapbs's `pr` verifier passes under its tolerance).
/// Unlike comparing with [`pagerank`] round for round, it judges any iteration
/// order (Gauss–Seidel rounds, data-driven updates).
pub fn pagerank_residual<W: Weight>(out: &Csr<W>, ranks: &[f64], damping: f64) -> f64 {
    let n = out.num_vertices();
    let base = (1.0 - damping) / n as f64;
    let mut incoming = vec![0.0f64; n];
    for u in 0..n as u32 {
        let d = out.degree(u);
        if d > 0 {
            let c = ranks[u as usize] / d as f64;
            for &v in out.neighbors(u) {
                incoming[v as usize] += c;
            }
        }
    }
    incoming
        .iter()
        .zip(ranks)
        .map(|(i, r)| (base + damping * i - r).abs())
        .sum()
}

/// Betweenness centrality from `sources` by Brandes's algorithm, sequentially, as
/// gapbs's `bc` verifier computes it: dependencies summed over the sources (each
/// source's own included), normalized by the largest score (all-zero stays zero).
pub fn betweenness<W: Weight>(out: &Csr<W>, sources: &[u32]) -> Vec<f64> {
    let n = out.num_vertices();
    let mut scores = vec![0.0f64; n];
    for &s in sources {
        let mut depth = vec![u32::MAX; n];
        let mut sigma = vec![0.0f64; n];
        depth[s as usize] = 0;
        sigma[s as usize] = 1.0;
        let mut order = vec![s];
        let mut i = 0;
        while i < order.len() {
            let u = order[i];
            i += 1;
            for &v in out.neighbors(u) {
                if depth[v as usize] == u32::MAX {
                    depth[v as usize] = depth[u as usize] + 1;
                    order.push(v);
                }
                if depth[v as usize] == depth[u as usize] + 1 {
                    sigma[v as usize] += sigma[u as usize];
                }
            }
        }
        let mut delta = vec![0.0f64; n];
        for &u in order.iter().rev() {
            let mut d = 0.0;
            for &v in out.neighbors(u) {
                if depth[v as usize] == depth[u as usize] + 1 {
                    d += sigma[u as usize] / sigma[v as usize] * (1.0 + delta[v as usize]);
                }
            }
            delta[u as usize] = d;
            scores[u as usize] += d;
        }
    }
    crate::cpu::brandes::normalize(scores)
}

/// PageRank by plain power iteration, as gapbs's `pr` defines it (damping `d`,
/// base `(1 − d)/n`, contributions rank/out-degree, dangling rank dropped), in
/// `f64`; stops when a round's L1 change is below `tolerance` or after `max_rounds`.
/// Returns the ranks and the rounds run.
pub fn pagerank<W: Weight>(
    out: &Csr<W>,
    damping: f64,
    tolerance: f64,
    max_rounds: u32,
) -> (Vec<f64>, u32) {
    let n = out.num_vertices();
    let base = (1.0 - damping) / n as f64;
    let mut rank = vec![1.0 / n as f64; n];
    for round in 1..=max_rounds {
        let mut incoming = vec![0.0f64; n];
        for u in 0..n as u32 {
            let d = out.degree(u);
            if d > 0 {
                // The same f32 contribution the shipped program sends.
                let c = (rank[u as usize] / d as f64) as f32 as f64;
                for &v in out.neighbors(u) {
                    incoming[v as usize] += c;
                }
            }
        }
        let mut change = 0.0;
        for v in 0..n {
            let r = base + damping * incoming[v];
            change += (r - rank[v]).abs();
            rank[v] = r;
        }
        if change < tolerance {
            return (rank, round);
        }
    }
    (rank, max_rounds)
}

/// Core numbers of an undirected graph (each edge stored both ways) by
/// Batagelj & Zaveršnik's bucket peeling: repeatedly remove a vertex of least
/// remaining degree; its core number is the largest such degree seen so far.
pub fn core_numbers<W: Weight>(g: &Csr<W>) -> Vec<u32> {
    let n = g.num_vertices();
    let mut degree: Vec<u64> = (0..n as u32).map(|v| g.degree(v)).collect();
    let max = degree.iter().copied().max().unwrap_or(0) as usize;
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); max + 1];
    for v in 0..n {
        buckets[degree[v] as usize].push(v as u32);
    }
    let mut core = vec![u32::MAX; n];
    let mut level = 0usize;
    let mut d = 0usize;
    let mut removed = 0;
    while removed < n {
        // Entries are lazy: skip removed vertices and stale degrees.
        let Some(v) = buckets[d].pop() else {
            d += 1;
            continue;
        };
        let vi = v as usize;
        if core[vi] != u32::MAX || degree[vi] as usize != d {
            continue;
        }
        level = level.max(d);
        core[vi] = level as u32;
        removed += 1;
        for &u in g.neighbors(v) {
            let ui = u as usize;
            if core[ui] == u32::MAX && degree[ui] > 0 {
                degree[ui] -= 1;
                buckets[degree[ui] as usize].push(u);
                d = d.min(degree[ui] as usize);
            }
        }
    }
    core
}

/// Number of triangles of an undirected graph (each edge stored both ways),
/// sequentially: each edge kept in one direction (from the earlier vertex in
/// (degree, id) order), then for every `u` and out-neighbour `v`, one triangle per
/// out-neighbour `w` of `v` that is also an out-neighbour of `u` (a marked array,
/// not the engines' sorted-list intersections). Rows are first made sets (sorted,
/// duplicates and self loops removed), so parallel edges and loops count nothing.
pub fn triangles<W: Weight>(g: &Csr<W>) -> u64 {
    let out = oriented(g);
    count_from(&out, 0..out.len(), &mut vec![false; out.len()])
}

/// [`triangles`] with the vertices cut into blocks counted on rayon's threads:
/// the same plain count per vertex (each block has its own marks), so a check
/// of a large graph waits less for its oracle (the sequential count took 9 s on
/// Kronecker 20 on a 2-core machine; Kronecker 22 is several times that).
pub fn triangles_in_parallel<W: Weight>(g: &Csr<W>) -> u64 {
    use rayon::prelude::*;
    let out = oriented(g);
    let n = out.len();
    let block = 1024;
    (0..n.div_ceil(block))
        .into_par_iter()
        .map_init(
            || vec![false; n],
            |marked, b| count_from(&out, b * block..((b + 1) * block).min(n), marked),
        )
        .sum()
}

/// Each vertex's neighbours later in (degree, id) order, self loops and
/// repeats dropped: each triangle is then found once, at its first vertex, and
/// scanning only later vertices' lists keeps hubs from being walked once per
/// neighbour (O(m·√m)).
fn oriented<W: Weight>(g: &Csr<W>) -> Vec<Vec<u32>> {
    let n = g.num_vertices();
    let adj: Vec<Vec<u32>> = (0..n as u32)
        .map(|u| {
            let mut row: Vec<u32> = g.neighbors(u).iter().copied().filter(|&v| v != u).collect();
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let first = |u: u32, v: u32| (adj[u as usize].len(), u) < (adj[v as usize].len(), v);
    (0..n as u32)
        .map(|u| {
            adj[u as usize]
                .iter()
                .copied()
                .filter(|&v| first(u, v))
                .collect()
        })
        .collect()
}

/// Triangles whose first vertex is in `vertices`; `marked` (one flag a vertex)
/// is all false before and after.
fn count_from(out: &[Vec<u32>], vertices: std::ops::Range<usize>, marked: &mut [bool]) -> u64 {
    let mut count = 0u64;
    for u in vertices {
        for &v in &out[u] {
            marked[v as usize] = true;
        }
        for &v in &out[u] {
            count += out[v as usize]
                .iter()
                .filter(|&&w| marked[w as usize])
                .count() as u64;
        }
        for &v in &out[u] {
            marked[v as usize] = false;
        }
    }
    count
}

/// Local clustering coefficient of every vertex of an undirected graph: the
/// share of its neighbour pairs that are adjacent, `2·t(v) / (d(v)·(d(v) − 1))`
/// with `t(v)` its triangles and `d(v)` its distinct neighbours other than itself
/// (0 below two neighbours). Sequential and `O(Σ_v Σ_{u ∈ N(v)} d(u))` (a marked
/// array per vertex): an oracle for tests, not an engine.
pub fn local_clustering<W: Weight>(g: &Csr<W>) -> Vec<f64> {
    let n = g.num_vertices();
    let adj: Vec<Vec<u32>> = (0..n as u32)
        .map(|u| {
            let mut row: Vec<u32> = g.neighbors(u).iter().copied().filter(|&v| v != u).collect();
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let mut marked = vec![false; n];
    (0..n)
        .map(|u| {
            let d = adj[u].len() as u64;
            for &v in &adj[u] {
                marked[v as usize] = true;
            }
            // Each triangle at u is seen from both of its other corners.
            let twice: u64 = adj[u]
                .iter()
                .map(|&v| {
                    adj[v as usize]
                        .iter()
                        .filter(|&&w| marked[w as usize])
                        .count() as u64
                })
                .sum();
            for &v in &adj[u] {
                marked[v as usize] = false;
            }
            if d < 2 {
                0.0
            } else {
                twice as f64 / (d * (d - 1)) as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(n: usize, edges: &[(u32, u32)]) -> Csr<u32> {
        let mut offsets = vec![0u64; n + 1];
        for &(u, _) in edges {
            offsets[u as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut sorted = edges.to_vec();
        sorted.sort();
        let targets: Vec<u32> = sorted.iter().map(|e| e.1).collect();
        Csr::from_parts(offsets.into(), targets.into(), None).unwrap()
    }

    #[test]
    fn levels_and_parents_on_a_small_graph() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3, 4 isolated
        let g = csr(5, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let t = bfs(&g, 0).unwrap();
        assert_eq!(t.levels, vec![0, 1, 1, 2, UNREACHED]);
        assert_eq!(t.parents, vec![0, 0, 0, 1, UNREACHED]);
        assert_eq!(t.num_levels(), 3);
        assert_eq!(t.reached(), 4);
    }

    #[test]
    fn single_vertex_and_bad_source() {
        let g = csr(1, &[]);
        let t = bfs(&g, 0).unwrap();
        assert_eq!(t.levels, vec![0]);
        assert_eq!(t.num_levels(), 1);
        assert!(bfs(&g, 1).is_err());
    }
}
