//! The schedule of a level sweep ([`GatherProgram::level`]): the vertices grouped
//! by level, highest first, built once per run by a counting sort, so that a round
//! costs its two levels' edges and no round is spent finding the next level.
//!
//! Both back ends run from the same [`Sweep`]: the CPU engine
//! ([`crate::cpu::gather`]) walks its slices, the GPU runner uploads `order` and
//! `rank` once and queues one launch per round ([`kernels_rs::gather::Round::sweep`]).

use rayon::prelude::*;

use super::GatherProgram;

/// Vertices in sweep order and the round each is applied in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// Vertices of all levels, highest level first (ascending ids within a level).
    pub order: Vec<u32>,
    /// Round `r` applies `order[starts[r]..starts[r + 1]]` (one entry per round,
    /// plus the end).
    pub starts: Vec<usize>,
    /// The round that applies each vertex; `u32::MAX` for vertices without a level.
    pub rank: Vec<u32>,
}

/// Levels above this many times the vertex count are sorted instead of counted
/// (a histogram that large would cost more than the sort).
const COUNT_SPAN: usize = 4;

impl Sweep {
    /// Groups the vertices by `P::level` of `states` (see the module docs).
    pub fn build<P: GatherProgram>(states: &[P::State]) -> Sweep {
        let levels: Vec<u32> = states
            .par_iter()
            .with_min_len(4096)
            .map(|&s| P::level(s))
            .collect();
        Sweep::from_levels(&levels)
    }

    /// The sweep over `levels` (one per vertex, `u32::MAX`: none).
    pub fn from_levels(levels: &[u32]) -> Sweep {
        let n = levels.len();
        let top = levels
            .par_iter()
            .with_min_len(4096)
            .copied()
            .filter(|&l| l != u32::MAX)
            .max();
        let Some(top) = top else {
            return Sweep {
                order: Vec::new(),
                starts: vec![0],
                rank: vec![u32::MAX; n],
            };
        };
        if top as usize > COUNT_SPAN * n.max(1) {
            return Self::by_sorting(levels);
        }
        // Counting sort: histogram, then each non-empty level's round and start.
        let mut count = vec![0usize; top as usize + 1];
        for &l in levels {
            if l != u32::MAX {
                count[l as usize] += 1;
            }
        }
        let mut round_of = vec![u32::MAX; top as usize + 1];
        let mut starts = vec![0usize];
        let mut next = vec![0usize; top as usize + 1];
        for l in (0..=top as usize).rev() {
            if count[l] > 0 {
                round_of[l] = (starts.len() - 1) as u32;
                next[l] = *starts.last().unwrap_or(&0);
                starts.push(next[l] + count[l]);
            }
        }
        let rank: Vec<u32> = levels
            .par_iter()
            .with_min_len(4096)
            .map(|&l| {
                if l == u32::MAX {
                    u32::MAX
                } else {
                    round_of[l as usize]
                }
            })
            .collect();
        let mut order = vec![0u32; *starts.last().unwrap_or(&0)];
        for (v, &l) in levels.iter().enumerate() {
            if l != u32::MAX {
                order[next[l as usize]] = v as u32;
                next[l as usize] += 1;
            }
        }
        Sweep {
            order,
            starts,
            rank,
        }
    }

    /// Sparse, very high levels: sort (level, vertex) pairs.
    fn by_sorting(levels: &[u32]) -> Sweep {
        let mut pairs: Vec<(u32, u32)> = levels
            .iter()
            .enumerate()
            .filter(|(_, &l)| l != u32::MAX)
            .map(|(v, &l)| (l, v as u32))
            .collect();
        pairs.par_sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut rank = vec![u32::MAX; levels.len()];
        let mut starts = Vec::new();
        for (i, &(l, v)) in pairs.iter().enumerate() {
            if i == 0 || pairs[i - 1].0 != l {
                starts.push(i);
            }
            rank[v as usize] = (starts.len() - 1) as u32;
        }
        starts.push(pairs.len());
        Sweep {
            order: pairs.into_iter().map(|(_, v)| v).collect(),
            starts,
            rank,
        }
    }

    /// Rounds (non-empty levels).
    pub fn rounds(&self) -> usize {
        self.starts.len() - 1
    }

    /// The vertices round `r` applies.
    pub fn level(&self, r: usize) -> &[u32] {
        &self.order[self.starts[r]..self.starts[r + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::Sweep;

    #[test]
    fn counted_and_sorted_agree() {
        let levels = [2, u32::MAX, 0, 2, 5, 0, u32::MAX, 5];
        let s = Sweep::from_levels(&levels);
        assert_eq!(s.order, [4, 7, 0, 3, 2, 5]);
        assert_eq!(s.starts, [0, 2, 4, 6]);
        assert_eq!(s.rank, [1, u32::MAX, 2, 1, 0, 2, u32::MAX, 0]);
        assert_eq!(Sweep::by_sorting(&levels), s);
        let sparse = [u32::MAX - 1, 3, u32::MAX];
        let s = Sweep::from_levels(&sparse);
        assert_eq!((s.order.as_slice(), s.rounds()), (&[0, 1][..], 2));
        assert_eq!(Sweep::from_levels(&[u32::MAX; 3]).rounds(), 0);
    }
}
