//! Simple sequential reference answers that every engine is checked against.
//!
//! Deliberately the plainest code that is obviously right (a FIFO queue BFS),
//! with no parallelism and no tricks, so a disagreement always points at the
//! engine under test.

use std::collections::VecDeque;

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
