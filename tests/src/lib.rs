//! Simple sequential oracles that every engine's results are compared against.
//! Deliberately the textbook algorithms: obviously right, not fast.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use runtime::graph::{Csr, Weight};

/// Unreached marker for levels.
pub const INF: u32 = u32::MAX;

/// Queue BFS levels.
pub fn bfs_levels<W: Weight>(g: &Csr<W>, s: u32) -> Vec<u32> {
    let mut level = vec![INF; g.num_vertices()];
    level[s as usize] = 0;
    let mut q = VecDeque::from([s]);
    while let Some(u) = q.pop_front() {
        for &v in g.neighbors(u) {
            if level[v as usize] == INF {
                level[v as usize] = level[u as usize] + 1;
                q.push_back(v);
            }
        }
    }
    level
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
