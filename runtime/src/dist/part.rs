//! Each rank's share of a graph: the rows of its vertices, nothing else.

use rayon::prelude::*;

use std::sync::atomic::{AtomicU32, Ordering};

use super::comm::Comm;
use super::rows::{bucket_rows, scatter};
use crate::error::{Error, Result};
use crate::generate::Kronecker;

/// Which rank owns which vertices: equal runs of `span` 64-vertex words (the
/// last ranks may own fewer, or none), so that a rank's slice of a vertex
/// bitmap is whole words (the frontier exchange all-gathers those slices as
/// they are), and equal slices are what NCCL's all-gather exchanges in place
/// on GPU ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankParts {
    n: usize,
    world: usize,
    /// Words per rank.
    span: usize,
}

impl RankParts {
    /// `n` vertices over `world` ranks.
    pub fn new(n: usize, world: usize) -> RankParts {
        let world = world.max(1);
        RankParts {
            n,
            world,
            span: n.div_ceil(64).div_ceil(world).max(1),
        }
    }

    /// Bitmap words of `n` vertices.
    pub fn words(&self) -> usize {
        self.n.div_ceil(64)
    }

    /// Vertices per rank (a multiple of 64; the last ranks may own fewer).
    pub fn span(&self) -> usize {
        self.span * 64
    }

    /// Ranks.
    pub fn world(&self) -> usize {
        self.world
    }

    /// Rank `r`'s words of the vertex bitmap.
    pub fn word_range(&self, r: usize) -> std::ops::Range<usize> {
        let w = self.words();
        (self.span * r).min(w)..(self.span * (r + 1)).min(w)
    }

    /// Rank `r`'s vertices.
    pub fn range(&self, r: usize) -> std::ops::Range<usize> {
        let w = self.word_range(r);
        (w.start * 64).min(self.n)..(w.end * 64).min(self.n)
    }

    /// The rank owning vertex `v`.
    pub fn owner(&self, v: u32) -> usize {
        (v as usize / 64 / self.span).min(self.world - 1)
    }
}

/// One rank's rows: for each owned vertex, its in-neighbours (on an
/// undirected graph, its neighbours), sorted, without repeats or self-loops.
/// `offsets`/`targets` of the vertices `first..first + rows()`, targets as
/// global ids. In-edges because the search pulls: an unvisited vertex looks
/// for a parent among them.
#[derive(Clone, Debug)]
pub struct RankGraph {
    /// Vertices of the whole graph.
    pub num_vertices: usize,
    /// Edges of the input over all ranks (as drawn or as listed in the file;
    /// Graph500 counts TEPS on the generator's).
    pub input_edges: u64,
    /// Whether every edge goes both ways (generated graphs), or the input's
    /// direction is kept (edge-list files, as the one-process commands read them).
    pub symmetric: bool,
    /// The partition of the vertices.
    pub parts: RankParts,
    /// This rank's first vertex.
    pub first: usize,
    /// The smallest vertex with an out-edge over all ranks (what the
    /// one-process commands pick as the default source: on a file, self-loops
    /// count, as they stay in its graph; on a generated graph they do not).
    pub first_source: Option<u32>,
    /// CSR offsets of this rank's rows (`rows + 1` entries).
    pub offsets: Vec<u64>,
    /// In-neighbours, per row.
    pub targets: Vec<u32>,
}

impl RankGraph {
    /// In-neighbours of owned vertex `v` (a global id).
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
/// `B·r/W .. B·(r+1)/W` of the generator's `B` edge blocks and routes them
/// to their owners (one all-to-all). The union over ranks is the one-process
/// graph; no rank holds more than its rows and its own draw.
///
/// `both_ways: false` keeps the edges as drawn (directed, loops and repeats
/// dropped): the graph `vertex pr kron:S` runs on, as gapbs's `pr` does.
pub fn kronecker_part(k: &Kronecker, comm: &Comm, both_ways: bool) -> Result<RankGraph> {
    Ok(draw_part(k, comm, both_ways, false)?.0)
}

/// [`kronecker_part`], and per owned vertex the number of drawn tuples
/// `(u, v)` with `u` = that vertex (self-loops and repeats included):
/// Graph500's `nedge` of a search tree is their sum over its vertices. One
/// more all-to-all, 4 bytes a tuple.
pub fn kronecker_part_with_tuples(
    k: &Kronecker,
    comm: &Comm,
    both_ways: bool,
) -> Result<(RankGraph, Vec<u32>)> {
    let (g, tuples) = draw_part(k, comm, both_ways, true)?;
    Ok((g, tuples.unwrap_or_default()))
}

fn draw_part(
    k: &Kronecker,
    comm: &Comm,
    both_ways: bool,
    count_tuples: bool,
) -> Result<(RankGraph, Option<Vec<u32>>)> {
    let n = k.num_vertices()?;
    let (rank, world) = (comm.rank(), comm.world());
    let blocks = k.num_blocks()?;
    let perm = k.permutation()?;
    let drawn = k.generate_blocks(
        blocks * rank / world..blocks * (rank + 1) / world,
        perm.as_deref(),
    )?;
    drop(perm);
    let tuples = match count_tuples {
        true => Some(tuples_per_source(n, &drawn, comm)?),
        false => None,
    };
    Ok((
        route(n, k.num_edges()? as u64, drawn, both_ways, comm)?,
        tuples,
    ))
}

/// Per owned vertex, the tuples of every rank's `drawn` that start there.
fn tuples_per_source(n: usize, drawn: &[[u32; 2]], comm: &Comm) -> Result<Vec<u32>> {
    let parts = RankParts::new(n, comm.world());
    count_at_owners(&parts, comm, drawn.len(), |i| drawn[i][0], "a tuple")
}

/// How many times each owned vertex appears among the ids `id(0..len)` of
/// every rank (each id sent to its owner: one all-to-all, 4 bytes an id).
/// `what` names the ids in the error a misrouted one gets.
pub(super) fn count_at_owners(
    parts: &RankParts,
    comm: &Comm,
    len: usize,
    id: impl Fn(usize) -> u32 + Sync,
    what: &str,
) -> Result<Vec<u32>> {
    let out = scatter::<u32>(comm.world(), len, |i, send| {
        let u = id(i);
        send(parts.owner(u), u)
    });
    let range = parts.range(comm.rank());
    let received = comm.all_to_all(out)?;
    let ids = || {
        received
            .par_iter()
            .flat_map(|b| b.par_chunks_exact(4))
            .map(bytemuck::pod_read_unaligned::<u32>)
    };
    if let Some(u) = ids().find_any(|u| !range.contains(&(*u as usize))) {
        return Err(Error::InvalidGraph(format!(
            "rank {} was sent {what} of vertex {u}, which it does not own",
            comm.rank()
        )));
    }
    let count: Vec<AtomicU32> = range
        .clone()
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    ids().for_each(|u| {
        count[u as usize - range.start].fetch_add(1, Ordering::Relaxed);
    });
    Ok(count.into_iter().map(AtomicU32::into_inner).collect())
}

/// This rank's part of an edge-list file (`.el`/`.wel`, not gzip): it
/// parses the lines starting in its byte range of the file
/// ([`crate::formats::read_edge_list_part`]), the ranks agree on the vertex
/// count (largest id + 1, or the `# Nodes:` header), and the edges go to
/// their owners as directed edges, as the one-process commands read a file
/// (`both_ways`: and reversed too, for programs on the undirected graph,
/// such as components).
pub fn edge_list_part(path: &std::path::Path, comm: &Comm, both_ways: bool) -> Result<RankGraph> {
    let crate::formats::EdgeListPart {
        edges,
        max_id,
        header_nodes: header,
    } = crate::formats::read_edge_list_part(path, comm.rank(), comm.world())?;
    let bound = max_id.map_or(0, |m| m as u64 + 1).max(header.unwrap_or(0));
    let n = comm.all_reduce_max(bound)?;
    let input = comm.all_reduce_sum(edges.len() as u64)?;
    let n = usize::try_from(n)
        .map_err(|_| Error::InvalidGraph(format!("{}: {n} vertices do not fit", path.display())))?;
    route(n, input, edges, both_ways, comm)
}

/// This rank's part of a `.vgr` snapshot of the whole graph, read by rows
/// ([`crate::formats::vgr::read_rows`]: only its pages are touched). On a
/// symmetric snapshot a vertex's row is its in-neighbours: the rank reads its
/// own rows and nothing travels. On a directed one it reads the out-rows of
/// its vertices and sends each edge to the owner of its head, as for an edge
/// list (`both_ways`: reversed too). Rows are kept sorted, without repeats
/// or self-loops; the default source is the one-process command's (the first
/// vertex with a stored edge).
pub fn vgr_part(path: &std::path::Path, comm: &Comm, both_ways: bool) -> Result<RankGraph> {
    let h = crate::formats::vgr::read_header(path)?;
    let n = h.num_vertices as usize;
    let parts = RankParts::new(n, comm.world());
    let range = parts.range(comm.rank());
    let rows = crate::formats::vgr::read_rows(path, range.clone())?;
    if !h.symmetric {
        let edges: Vec<[u32; 2]> = (0..range.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let u = (range.start + i) as u32;
                let r = rows.offsets[i] as usize..rows.offsets[i + 1] as usize;
                rows.targets[r].iter().map(move |&v| [u, v])
            })
            .collect();
        return route(n, h.num_edges, edges, both_ways, comm);
    }
    let mine = rows
        .offsets
        .windows(2)
        .position(|w| w[1] > w[0])
        .map_or(u64::MAX, |i| (range.start + i) as u64);
    let first_source = u32::try_from(comm.all_reduce_min(mine)?).ok();
    let first = range.start as u32;
    let (offsets, targets) = bucket_rows(
        range.len(),
        || {
            (0..range.len()).into_par_iter().flat_map_iter(|i| {
                let r = rows.offsets[i] as usize..rows.offsets[i + 1] as usize;
                let v = first + i as u32;
                rows.targets[r]
                    .iter()
                    .filter(move |&&u| u != v)
                    .map(move |&u| (i as u32, u))
            })
        },
        true,
    );
    Ok(RankGraph {
        num_vertices: n,
        input_edges: h.num_edges,
        symmetric: true,
        parts,
        first: range.start,
        first_source,
        offsets,
        targets,
    })
}

/// Sends each edge `u→v` (and `v→u` when `both_ways`; self-loops dropped) to
/// the owner of its head, in one all-to-all, and builds the rows received:
/// sorted in-neighbours without repeats.
fn route(
    n: usize,
    input_edges: u64,
    edges: Vec<[u32; 2]>,
    both_ways: bool,
    comm: &Comm,
) -> Result<RankGraph> {
    let (rank, world) = (comm.rank(), comm.world());
    let parts = RankParts::new(n, world);
    // The default source: the smallest vertex with an out-edge (a self-loop
    // counts only on a file's directed graph, which keeps it).
    let first_source = edges
        .par_iter()
        .map(|&[u, v]| match (u == v, both_ways) {
            (true, true) => u64::MAX,
            (true, false) | (false, false) => u64::from(u),
            (false, true) => u64::from(u.min(v)),
        })
        .min()
        .unwrap_or(u64::MAX);
    // Each message entry: (head, tail) — row `head` gets in-neighbour `tail`.
    let out = scatter::<[u32; 2]>(world, edges.len(), |i, send| {
        let [u, v] = edges[i];
        if u != v {
            send(parts.owner(v), [v, u]);
            if both_ways {
                send(parts.owner(u), [u, v]);
            }
        }
    });
    drop(edges);
    let received = comm.all_to_all(out)?;
    let first_source = u32::try_from(comm.all_reduce_min(first_source)?).ok();
    let range = parts.range(rank);
    let entries = || {
        received
            .par_iter()
            .flat_map(|b| b.par_chunks_exact(8))
            .map(bytemuck::pod_read_unaligned::<[u32; 2]>)
    };
    if let Some([a, _]) = entries().find_any(|[a, _]| !range.contains(&(*a as usize))) {
        return Err(Error::InvalidGraph(format!(
            "rank {rank} received an edge of vertex {a}, owned by rank {}",
            parts.owner(a)
        )));
    }
    let first = range.start as u32;
    let (offsets, targets) =
        bucket_rows(range.len(), || entries().map(|[a, b]| (a - first, b)), true);
    Ok(RankGraph {
        num_vertices: n,
        input_edges,
        symmetric: both_ways,
        parts,
        first: range.start,
        first_source,
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
