//! The level kernels' bodies, generic over program, frontier and weights.
//!
//! One call of [`Level::naive`] or [`Level::balanced`] is what one GPU thread does
//! in one level (iteration) launch; the grid-stride loops make any grid size
//! correct, so the emulation launcher may use a small grid.
//!
//! ## End-of-traversal detection (`check_end`)
//! Seed 000 ends the loop with `check_end()`, a scan of all vertices after every
//! level. Here each level kernel instead raises a device flag when it activates a
//! vertex ([`LevelFlags`]): the host learns that the frontier is empty from one
//! word. The flags form a small ring indexed by level (slot `l % R` in, `(l+1) % R`
//! out, `(l+2) % R` cleared for the next launch; `R ≥ 3`), and a level kernel
//! returns at once if its input flag is down, so the host may launch several levels
//! before it looks (one round trip per batch instead of per level).

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::frontier::Frontier;
use crate::program::Program;
use crate::thread::ThreadCtx;
use crate::word::StateWord;

/// The CSR arrays a kernel reads: `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a> {
    pub offsets: &'a [u64],
    pub targets: &'a [u32],
}

impl CsrView<'_> {
    /// Number of vertices.
    #[inline(always)]
    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// The per-level "something changed" flags: `input` is up if the previous level
/// activated a vertex (so this level has work), `output` is raised by this level,
/// and `clear` (the slot the *next* launch will raise) is lowered by this launch's
/// first thread, so the host never has to reset flags between levels.
#[derive(Clone, Copy, Debug)]
pub struct LevelFlags<'a> {
    pub input: &'a AtomicU32,
    pub output: &'a AtomicU32,
    pub clear: &'a AtomicU32,
}

impl LevelFlags<'_> {
    /// Lowers `clear` (thread 0 only), then tells whether this level has work.
    #[inline(always)]
    pub fn begin(&self, t: ThreadCtx) -> bool {
        if t.global() == 0 {
            self.clear.store(0, Relaxed);
        }
        self.input.load(Relaxed) != 0
    }

    /// Adds this thread's activations to the output flag, while the flag is
    /// below [`COUNT_CAP`] (read first, so that past the cap threads only read a
    /// cached word). The flag is then non-zero iff the level activated a vertex
    /// (what ends the traversal) and, below the cap, about how many it activated
    /// (never fewer; a vertex two threads improved counts twice): the host hands a
    /// long run of small levels to the resident kernel.
    ///
    /// No wrap to zero: each add is at most `COUNT_CAP` and is made only by a
    /// thread that read a value below it, so the flag stays below
    /// `COUNT_CAP × (1 + threads in flight)` — under 2³¹ with fewer than 2¹⁹
    /// threads in flight (an H100 holds 270,336).
    #[inline(always)]
    pub fn raise(&self, count: u32) {
        if count > 0 && self.output.load(Relaxed) < COUNT_CAP {
            let add = if count < COUNT_CAP { count } else { COUNT_CAP };
            self.output.fetch_add(add, Relaxed);
        }
    }
}

/// Where the level flags stop counting (see [`LevelFlags::raise`]).
pub const COUNT_CAP: u32 = 4096;

/// Everything one level launch reads and writes.
pub struct Level<'a, P: Program, F> {
    pub graph: CsrView<'a>,
    /// One weight per edge (a zero-sized slice for unweighted programs).
    pub weights: &'a [P::Weight],
    pub state: &'a [<P::State as StateWord>::Atomic],
    /// Parent of each vertex, written by `combine` winners (only if requested and
    /// [`Program::PARENTS_VALID`]).
    pub parents: Option<&'a [AtomicU32]>,
    pub frontier: F,
    pub flags: LevelFlags<'a>,
    /// The iteration (BFS level) being expanded.
    pub iter: u32,
}

impl<P: Program, F: Frontier<P>> Level<'_, P, F> {
    /// Relaxes `v`'s edges `edges` (a sub-range of its adjacency); how many
    /// targets changed.
    #[inline(always)]
    fn expand(&self, v: usize, s: P::State, edges: core::ops::Range<usize>) -> u32 {
        let mut changed = 0u32;
        for e in edges {
            let w = self.weights[e];
            let Some(cand) = P::relax(s, w, self.iter) else {
                continue;
            };
            let k = self.graph.targets[e] as usize;
            if P::combine(&self.state[k], cand) {
                if let Some(p) = self.parents {
                    p[k].store(v as u32, Relaxed);
                }
                self.frontier.push(k);
                changed = changed.saturating_add(1);
            }
        }
        changed
    }

    /// Seed 000 Alg. 2, the full scan: one thread per vertex (grid-stride), each
    /// active vertex expands all of its edges — however many.
    #[inline(always)]
    pub fn naive(&self, t: ThreadCtx) {
        if !self.flags.begin(t) {
            return;
        }
        let n = self.graph.num_vertices() as u64;
        let offsets = self.graph.offsets;
        let mut changed = 0u32;
        let mut v = t.global();
        while v < n {
            let vi = v as usize;
            if let Some(s) = self
                .frontier
                .active(vi, || P::State::load(&self.state[vi]), self.iter)
            {
                let r = offsets[vi] as usize..offsets[vi + 1] as usize;
                changed = changed.saturating_add(self.expand(vi, s, r));
            }
            v += t.stride();
        }
        self.flags.raise(changed);
    }

    /// Seed 000 Alg. 3, edge-chunk balancing: thread `i` owns edges
    /// `[i·mec, (i+1)·mec)`; it starts at `sv[i]`, the vertex owning the chunk's
    /// first edge, and walks forward across vertex boundaries, expanding the part of
    /// each active vertex's adjacency that falls inside its chunk.
    #[inline(always)]
    pub fn balanced(&self, t: ThreadCtx, sv: &[u32], max_edge_count: u64) {
        if !self.flags.begin(t) || max_edge_count == 0 {
            return;
        }
        let chunks = sv.len() as u64;
        let mut changed = 0u32;
        let mut i = t.global();
        while i < chunks {
            chunk_rows(self.graph, max_edge_count, i, sv[i as usize], |v, edges| {
                if let Some(s) =
                    self.frontier
                        .active(v, || P::State::load(&self.state[v]), self.iter)
                {
                    changed = changed.saturating_add(self.expand(v, s, edges));
                }
            });
            i += t.stride();
        }
        self.flags.raise(changed);
    }
}

/// Calls `f(v, edges)` for each vertex `v` with edges in chunk `i` — edges
/// `[i·chunk, (i+1)·chunk)` of `graph`, the first of them `first_vertex`'s
/// ([`build_sv`]) — with the part of `v`'s row inside the chunk, in order;
/// vertices without edges there are skipped. Seed 000 Alg. 3's walk, shared by
/// the edge-chunk levels and the direction kernels' scan levels.
#[inline(always)]
pub fn chunk_rows(
    graph: CsrView,
    chunk: u64,
    i: u64,
    first_vertex: u32,
    mut f: impl FnMut(usize, core::ops::Range<usize>),
) {
    let offsets = graph.offsets;
    let m = graph.targets.len() as u64;
    let first = i * chunk;
    let last = if m - first < chunk { m } else { first + chunk };
    let mut v = first_vertex as usize;
    let mut e = first;
    while e < last {
        // Skip vertices whose edges all lie before `e` (degree 0 ones).
        let mut end = offsets[v + 1];
        while end <= e {
            v += 1;
            end = offsets[v + 1];
        }
        let stop = if end < last { end } else { last };
        f(v, e as usize..stop as usize);
        e = stop;
        v += 1;
    }
}

/// Number of chunks (the length of `SV`) for `m` edges: `ceil(m / mec)`.
#[inline(always)]
pub fn num_chunks(m: u64, max_edge_count: u64) -> u64 {
    if max_edge_count == 0 {
        0
    } else {
        m.div_ceil(max_edge_count)
    }
}

/// Seed 000 Alg. 4, the parallel `SV` construction: thread per vertex `v` writes
/// `sv[j] = v` for every chunk `j` whose first edge `j·mec` is one of `v`'s edges.
/// Every chunk start belongs to exactly one vertex, so every slot is written once.
#[inline(always)]
pub fn build_sv(t: ThreadCtx, offsets: &[u64], max_edge_count: u64, sv: &[AtomicU32]) {
    let n = offsets.len().saturating_sub(1) as u64;
    if max_edge_count == 0 {
        return;
    }
    let mut v = t.global();
    while v < n {
        let first = offsets[v as usize];
        let last = offsets[v as usize + 1];
        let mut index = first.div_ceil(max_edge_count);
        let mut current = index * max_edge_count;
        while current < last {
            sv[index as usize].store(v as u32, Relaxed);
            current += max_edge_count;
            index += 1;
        }
        v += t.stride();
    }
}

/// Initial state (and parents: the source is its own parent, others `u32::MAX`).
#[inline(always)]
pub fn init<P: Program>(
    t: ThreadCtx,
    state: &[<P::State as StateWord>::Atomic],
    parents: Option<&[AtomicU32]>,
    source: u32,
) {
    let n = state.len() as u64;
    let mut v = t.global();
    while v < n {
        let vi = v as usize;
        P::State::store(&state[vi], P::init(v as u32, source));
        if let Some(p) = parents {
            p[vi].store(if v as u32 == source { source } else { u32::MAX }, Relaxed);
        }
        v += t.stride();
    }
}
