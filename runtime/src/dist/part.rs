//! Each rank's share of a graph: the rows of its vertices, nothing else.

use rayon::prelude::*;

use super::comm::Comm;
use crate::error::{Error, Result};
use crate::generate::Kronecker;

/// Which rank owns which vertices: equal runs of 64-vertex words, so that a
/// rank's slice of a vertex bitmap is whole words (the frontier exchange
/// all-gathers those slices as they are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankParts {
    n: usize,
    world: usize,
}

impl RankParts {
    /// `n` vertices over `world` ranks.
    pub fn new(n: usize, world: usize) -> RankParts {
        RankParts {
            n,
            world: world.max(1),
        }
    }

    /// Bitmap words of `n` vertices.
    pub fn words(&self) -> usize {
        self.n.div_ceil(64)
    }

    /// Rank `r`'s words of the vertex bitmap.
    pub fn word_range(&self, r: usize) -> std::ops::Range<usize> {
        let w = self.words();
        w * r / self.world..w * (r + 1) / self.world
    }

    /// Rank `r`'s vertices.
    pub fn range(&self, r: usize) -> std::ops::Range<usize> {
        let w = self.word_range(r);
        (w.start * 64).min(self.n)..(w.end * 64).min(self.n)
    }

    /// The rank owning vertex `v`.
    pub fn owner(&self, v: u32) -> usize {
        let word = v as usize / 64;
        // Invert word_range: the largest r with words * r / world <= word.
        let w = self.words();
        let mut r = ((word + 1) * self.world).saturating_sub(1) / w.max(1);
        while r > 0 && self.word_range(r).start > word {
            r -= 1;
        }
        while r + 1 < self.world && self.word_range(r + 1).start <= word {
            r += 1;
        }
        r
    }
}

/// One rank's rows of an undirected simple graph: `offsets`/`targets` of
/// the vertices `first..first + offsets.len() - 1`, targets as global ids.
#[derive(Clone, Debug)]
pub struct RankGraph {
    /// Vertices of the whole graph.
    pub num_vertices: usize,
    /// Edges the generator drew over all ranks (Graph500 counts TEPS on these).
    pub input_edges: u64,
    /// The partition of the vertices.
    pub parts: RankParts,
    /// This rank's first vertex.
    pub first: usize,
    /// CSR offsets of this rank's rows (`rows + 1` entries).
    pub offsets: Vec<u64>,
    /// Neighbours, sorted and without repeats, per row.
    pub targets: Vec<u32>,
}

impl RankGraph {
    /// Neighbours of owned vertex `v` (a global id).
    pub fn neighbors(&self, v: usize) -> &[u32] {
        let i = v - self.first;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of owned vertices.
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// This rank's part of the Kronecker graph `k` as the CLI builds it
/// (undirected, no self-loops, no repeated edges): the rank draws blocks
/// `B·r/W .. B·(r+1)/W` of the generator's `B` edge blocks, sends each edge
/// `u–v` to the owners of `u` and of `v` (one all-to-all), and builds the
/// rows it received. The union over ranks is the one-process graph; no rank
/// holds more than its rows and its own draw.
pub fn kronecker_part(k: &Kronecker, comm: &Comm) -> Result<RankGraph> {
    let n = k.num_vertices()?;
    let (rank, world) = (comm.rank(), comm.world());
    let parts = RankParts::new(n, world);
    let blocks = k.num_blocks()?;
    let mine = blocks * rank / world..blocks * (rank + 1) / world;
    let perm = k.permutation()?;
    let drawn = k.generate_blocks(mine, perm.as_deref())?;
    drop(perm);
    // Each edge both ways, to the owner of its source.
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); world];
    for &[u, v] in &drawn {
        if u == v {
            continue;
        }
        for (a, b) in [(u, v), (v, u)] {
            let buf = &mut out[parts.owner(a)];
            buf.extend_from_slice(&a.to_le_bytes());
            buf.extend_from_slice(&b.to_le_bytes());
        }
    }
    drop(drawn);
    let received = comm.all_to_all(out)?;
    let range = parts.range(rank);
    let rows = range.len();
    let mut degree = vec![0u64; rows + 1];
    let pairs = |buf: &[u8]| {
        buf.chunks_exact(8)
            .map(|c| {
                let w = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                (w(0), w(4))
            })
            .collect::<Vec<_>>()
    };
    let received: Vec<Vec<(u32, u32)>> = received.iter().map(|b| pairs(b)).collect();
    for &(a, _) in received.iter().flatten() {
        let i = (a as usize)
            .checked_sub(range.start)
            .filter(|&i| i < rows)
            .ok_or_else(|| {
                Error::InvalidGraph(format!(
                    "rank {rank} received an edge of vertex {a}, owned by rank {}",
                    parts.owner(a)
                ))
            })?;
        degree[i + 1] += 1;
    }
    for i in 0..rows {
        degree[i + 1] += degree[i];
    }
    let mut fill = degree.clone();
    let mut targets = vec![0u32; degree[rows] as usize];
    for &(a, b) in received.iter().flatten() {
        let i = a as usize - range.start;
        targets[fill[i] as usize] = b;
        fill[i] += 1;
    }
    drop(received);
    // Sort and deduplicate each row, then close the gaps.
    let mut kept: Vec<u64> = {
        let mut rows_of: Vec<&mut [u32]> = Vec::with_capacity(rows);
        let mut rest = targets.as_mut_slice();
        for i in 0..rows {
            let (row, tail) = rest.split_at_mut((degree[i + 1] - degree[i]) as usize);
            rows_of.push(row);
            rest = tail;
        }
        rows_of
            .into_par_iter()
            .map(|row| {
                row.sort_unstable();
                let mut k = 0;
                for j in 0..row.len() {
                    if j == 0 || row[j] != row[k - 1] {
                        row[k] = row[j];
                        k += 1;
                    }
                }
                k as u64
            })
            .collect()
    };
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0u64);
    let mut write = 0usize;
    for (i, k) in kept.iter_mut().enumerate() {
        let start = degree[i] as usize;
        targets.copy_within(start..start + *k as usize, write);
        write += *k as usize;
        offsets.push(write as u64);
    }
    targets.truncate(write);
    targets.shrink_to_fit();
    Ok(RankGraph {
        num_vertices: n,
        input_edges: k.num_edges()? as u64,
        parts,
        first: range.start,
        offsets,
        targets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_match_ranges() {
        for n in [1usize, 63, 64, 65, 1000, 4096] {
            for world in 1..=5 {
                let p = RankParts::new(n, world);
                let mut next = 0;
                for r in 0..world {
                    let range = p.range(r);
                    assert_eq!(range.start, next);
                    next = range.end;
                    for v in range {
                        assert_eq!(p.owner(v as u32), r, "n {n} world {world} v {v}");
                    }
                }
                assert_eq!(next, n);
            }
        }
    }
}
