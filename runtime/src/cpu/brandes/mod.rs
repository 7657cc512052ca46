//! Brandes's betweenness on the CPU, as gapbs `bc` defines it, under one team of
//! workers kept for the whole run and meeting at a spinning barrier between
//! phases (the structure of gapbs: one OpenMP team, a barrier per level) instead
//! of several rayon calls per level, and without an atomic read-modify-write
//! where a read can tell it is not needed. Two engines:
//!
//! * `solo`: one source at a time, gapbs's algorithm with 4-byte depth tags
//!   that are never reset, a successor bitmap set a word at a time, and large
//!   levels pulled bottom-up (no atomics where hubs would contend);
//! * `batch`: up to 64 sources a batch share every edge visit, for a vertex
//!   reached at the same depth by several sources. It reads fewer edges, but
//!   every lane's path counts are live at once, so the data each visit brings
//!   into the cache grows with the batch: measured, it pays only for full
//!   batches on small-world graphs ([`Engine::pick`]).
//!
//! The result is gapbs's raw score (each source's own dependency included), not
//! yet normalized.

use core::ops::Range;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

use super::barrier::SpinBarrier;
use super::msbfs::{check_sources, first_level, lane_mask, LANES};
use crate::error::Result;
use crate::graph::{Graph, Weight};

mod batch;
mod solo;

/// A level is pulled when its frontier's out-edges times this exceed the
/// in-edges of the vertices still missing lanes.
const PULL_FACTOR: u64 = 4;

/// Most entries per grab from a shared cursor (gapbs's `dynamic, 64`).
const GRAIN: usize = 64;

/// Edges a grab aims at: the grain is this over the mean degree (capped by
/// [`GRAIN`]), so hubs get a grab each.
const GRAB_EDGES: u64 = 1024;

/// Edges per worker up to which a phase is split evenly by entries instead of
/// grabbed from the shared cursor (a grid's levels: every grab is a locked
/// instruction on the line all workers write).
const STATIC_EDGES: u64 = 4096;

/// Mean degree up to which a phase is split evenly whatever its size.
const STATIC_DEGREE: u64 = 8;

/// Vertices per grab in pulled levels and clearing phases.
const SCAN_GRAIN: usize = 1024;

/// Raw betweenness sums over `sources` (any number; repeats count again) along
/// `g`'s out-edges, with `threads` workers (or the global pool), by the engine
/// [`Engine::pick`] picks. Reads the in-edges too: a directed graph builds them
/// on first use (once per graph).
pub fn betweenness<W: Weight>(
    g: &Graph<W>,
    sources: &[u32],
    threads: Option<usize>,
) -> Result<Vec<f64>> {
    betweenness_by(g, sources, threads, Engine::Auto)
}

/// Which engine runs (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// [`Engine::pick`]'s choice.
    #[default]
    Auto,
    /// Batches of up to 64 sources sharing each edge visit.
    Batch,
    /// One source at a time.
    Solo,
}

impl Engine {
    /// The engine that runs `sources` sources on `g`: for [`Engine::Auto`],
    /// batches when there are at least 64 sources (a full batch) on a small
    /// world ([`crate::shape::small_world`]), else one source at a time.
    ///
    /// Measured on a 2-core machine, 1 thread, ms (batches / one at a time):
    /// 4 sources, kron:18 184-187 / 163-183, urand:18 193-209 / 178-181,
    /// grid:1000x1000 592 / 313, mesh:100000 63 / 50; kron:20 1012 / 763, and
    /// with 32 sources 5020 / 4768; 64 sources, kron:18 2072 / 2662, urand:18
    /// 3123 / 3123.
    pub fn pick<W: Weight>(self, g: &Graph<W>, sources: usize) -> Engine {
        match self {
            Engine::Auto if sources >= LANES && crate::shape::small_world(g) => Engine::Batch,
            Engine::Auto => Engine::Solo,
            e => e,
        }
    }

    /// A short description of the engine picked, for reports.
    pub fn describe<W: Weight>(self, g: &Graph<W>, sources: usize) -> &'static str {
        match self.pick(g, sources) {
            Engine::Batch => "batches of 64 sources",
            _ => "one source at a time",
        }
    }
}

/// [`betweenness`] by `engine`.
pub fn betweenness_by<W: Weight>(
    g: &Graph<W>,
    sources: &[u32],
    threads: Option<usize>,
    engine: Engine,
) -> Result<Vec<f64>> {
    // Batches on a sparse graph take the layout and the pushed counts that
    // suit wavefronts apart (see `batch::Counts`).
    let dense = crate::shape::small_world(g);
    let options = Options {
        pull_factor: PULL_FACTOR,
        solo: engine.pick(g, sources.len()) == Engine::Solo,
        vertex_major: dense,
        atomic_counts: !dense,
    };
    betweenness_with(g, sources, threads, options)
}

/// Choices [`betweenness`] makes from the graph (tests force each).
#[derive(Clone, Copy)]
struct Options {
    /// A level is pulled when its frontier's out-edges times this exceed the
    /// in-edges still to be read (0: never).
    pull_factor: u64,
    /// One source at a time ([`solo`]) rather than batches ([`batch`]).
    solo: bool,
    /// Batches: the layout of the path counts (`batch::Counts`).
    vertex_major: bool,
    /// Pushed levels add path counts along their edges (atomically), instead
    /// of a second pass pulling them along the new level's in-edges.
    atomic_counts: bool,
}

fn betweenness_with<W: Weight>(
    g: &Graph<W>,
    sources: &[u32],
    threads: Option<usize>,
    options: Options,
) -> Result<Vec<f64>> {
    let n = g.num_vertices();
    check_sources(sources, n)?;
    let batches = sources
        .chunks(LANES)
        .map(|b| first_level(b, n).map(|f| (f, lane_mask(b.len()))))
        .collect::<Result<Vec<_>>>()?;
    let (out, inc) = (g.csr(), g.csc());
    let max_degree = g.max_out_degree();
    let k = sources.len().min(LANES);
    Ok(super::in_pool(threads, || {
        if options.solo {
            solo::run(out, inc, max_degree, options.pull_factor, sources)
        } else if k <= 32 {
            batch::run::<W, batch::Narrow>(out, inc, max_degree, k, options, &batches)
        } else {
            batch::run::<W, batch::Wide>(out, inc, max_degree, k, options, &batches)
        }
    })?
    .0)
}

/// A team's phases, for both engines: three rotating slots of sums (a phase
/// adds to its own, reads the one before, and the one after it is zeroed
/// meanwhile) and the barrier that ends each phase.
struct Phases {
    slots: [CachePadded<Slot>; 3],
    barrier: SpinBarrier,
}

impl Phases {
    fn new(threads: usize) -> Self {
        Phases {
            slots: Default::default(),
            barrier: SpinBarrier::new(threads),
        }
    }

    /// Opens phase `*phase` for worker `me` and counts it: worker 0 zeroes the
    /// slot the phase after it uses (its previous readers finished before the
    /// barrier that opened this one).
    fn open(&self, me: usize, phase: &mut usize) -> &Slot {
        if me == 0 {
            self.slots[(*phase + 1) % 3].reset();
        }
        let s = &self.slots[*phase % 3];
        *phase += 1;
        s
    }

    /// Closes a phase: adds `sums` to its slot and waits for the team. `false`:
    /// a worker panicked.
    fn close(&self, slot: &Slot, sums: &Sums) -> bool {
        if sums.found != 0 {
            slot.found.fetch_add(sums.found, Relaxed);
        }
        if sums.scout != 0 {
            slot.scout.fetch_add(sums.scout, Relaxed);
        }
        if sums.done != 0 {
            slot.done.fetch_add(sums.done, Relaxed);
        }
        self.barrier.wait()
    }
}

/// One phase's cursor and sums.
#[derive(Default)]
struct Slot {
    cursor: AtomicUsize,
    /// Entries the phase appended.
    found: AtomicU64,
    /// Out-edges of the vertices that joined a level.
    scout: AtomicU64,
    /// In-edges of the vertices that got their last lane.
    done: AtomicU64,
}

impl Slot {
    fn reset(&self) {
        self.cursor.store(0, Relaxed);
        self.found.store(0, Relaxed);
        self.scout.store(0, Relaxed);
        self.done.store(0, Relaxed);
    }

    #[inline]
    fn grab(&self, grain: usize, len: usize) -> Option<Range<usize>> {
        let lo = self.cursor.fetch_add(grain, Relaxed);
        (lo < len).then(|| lo..(lo + grain).min(len))
    }
}

/// Sums a worker adds to its phase's slot.
#[derive(Default)]
struct Sums {
    found: u64,
    scout: u64,
    done: u64,
}

/// Worker `me`'s pieces of `0..len` whose items cost `edges` in all: an even
/// split when the phase is small or of low degree, else grabs from the cursor.
#[inline]
fn share_with(
    me: usize,
    workers: usize,
    slot: &Slot,
    len: usize,
    edges: u64,
    mut f: impl FnMut(Range<usize>),
) {
    if workers == 1 {
        f(0..len);
    } else if edges <= STATIC_EDGES * workers as u64 || edges <= STATIC_DEGREE * len as u64 {
        f(len * me / workers..len * (me + 1) / workers);
    } else {
        let grain = (GRAB_EDGES * len as u64 / edges.max(1)).clamp(1, GRAIN as u64) as usize;
        while let Some(r) = slot.grab(grain, len) {
            f(r);
        }
    }
}

fn sums_of(slot: &Slot) -> Sums {
    Sums {
        found: slot.found.load(Relaxed),
        scout: slot.scout.load(Relaxed),
        done: slot.done.load(Relaxed),
    }
}

#[inline(always)]
fn load(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Relaxed))
}

#[inline(always)]
fn store(a: &AtomicU64, x: f64) {
    a.store(x.to_bits(), Relaxed)
}

/// `a += x`, atomically.
#[inline(always)]
fn add(a: &AtomicU64, x: f64) {
    let mut cur = a.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + x).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(now) => cur = now,
        }
    }
}

/// Scores divided by the largest (all zeros stay zeros), as gapbs reports them.
pub fn normalize(mut scores: Vec<f64>) -> Vec<f64> {
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    if biggest > 0.0 {
        scores.iter_mut().for_each(|t| *t /= biggest);
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_sequential_brandes() {
        for spec in ["kron:9", "grid:9x7"] {
            let g = crate::load::load_graph::<u32>(spec, &Default::default())
                .unwrap()
                .graph;
            let n = g.num_vertices() as u32;
            let sources: Vec<u32> = (0..70).map(|i| (i * 37) % n).chain([3, 3]).collect();
            // Pushed levels only, the default rule, pulled whenever possible;
            // one source at a time, or batches: both layouts of the counts,
            // counts pushed or pulled, wide (70 lanes) and narrow (20) marks.
            let cases = [
                (1, 0, false, false, true),
                (2, PULL_FACTOR, false, true, false),
                (3, u64::MAX, false, false, false),
                (3, PULL_FACTOR, false, false, true),
                (2, u64::MAX, false, true, true),
                (1, PULL_FACTOR, false, true, false),
                (1, 0, true, false, false),
                (1, u64::MAX, true, false, false),
                (2, PULL_FACTOR, true, false, false),
                (3, 0, true, false, false),
            ];
            for (threads, pull_factor, solo, vertex_major, atomic_counts) in cases {
                for sources in [&sources[..], &sources[..20]] {
                    let options = Options {
                        pull_factor,
                        solo,
                        vertex_major,
                        atomic_counts,
                    };
                    let got = betweenness_with(&g, sources, Some(threads), options).unwrap();
                    let want = crate::oracle::betweenness(g.csr(), sources);
                    for (v, (x, y)) in normalize(got).iter().zip(&want).enumerate() {
                        assert!(
                            (x - y).abs() <= 1e-9 * y.abs().max(1e-12),
                            "{spec}, {} sources, {threads} threads, pull {pull_factor}, \
                             solo {solo}, vertex-major {vertex_major}, \
                             atomic {atomic_counts}, {v}: {x} vs {y}",
                            sources.len()
                        );
                    }
                }
            }
        }
        assert!(betweenness(
            &crate::load::load_graph::<u32>("grid:3x3", &Default::default())
                .unwrap()
                .graph,
            &[],
            None
        )
        .is_err());
    }
}
