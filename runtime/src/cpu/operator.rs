//! What the asynchronous engines share: the task type, the edge operator applied
//! to one task, per-worker counters, checks of what a program allows, and starting
//! the workers (placed on packages, optionally pinned).
//!
//! A task is `(v, s)`: "vertex `v` changed to state `s`, push it along its
//! out-edges". When the task is popped and `v`'s state is no longer `s`, a later
//! improvement already queued its own task, so this one is *stale* and skipped.
//! That is sound because asynchronous schedules run only idempotent, monotone
//! reductions (min, max, or, and, or a declared idempotent custom one): a state
//! never returns to an old value, and every change queues a task.

use std::time::Instant;

use rayon::prelude::*;

use super::topology::{pin_current_thread, pin_for_now, Topology};
use super::{AsyncOptions, CpuOptions, RunReport};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};
use crate::program::{AtomicState, Combine, Schedule, VertexProgram};
use crate::shape::{auto_delta, mean_step, probe};

/// A unit of asynchronous work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task<S> {
    pub v: u32,
    pub s: S,
}

/// Per-worker tallies, summed into the [`RunReport`] at the end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub edges: u64,
    pub updates: u64,
    pub tasks: u64,
    pub stale: u64,
    pub steals: u64,
    pub chunks: u64,
    pub bucket_switches: u64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.edges += o.edges;
        self.updates += o.updates;
        self.tasks += o.tasks;
        self.stale += o.stale;
        self.steals += o.steals;
        self.chunks += o.chunks;
        self.bucket_switches += o.bucket_switches;
    }
}

/// The reduction as a plain function (native kinds inline).
#[inline(always)]
pub fn combine<P: VertexProgram>(old: P::State, new: P::State) -> P::State {
    match P::COMBINE {
        Combine::Custom => P::combine(old, new),
        k => P::State::combine_with(k, old, new),
    }
}

/// Applies the edge operator to task `t`: relaxes every out-edge and calls `push`
/// for each target whose state this worker changed (with the state it now has).
#[inline]
pub fn expand<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    t: Task<P::State>,
    c: &mut Counters,
    mut push: impl FnMut(Task<P::State>),
) {
    c.tasks += 1;
    let s = P::State::load(&cells[t.v as usize]);
    if s != t.s {
        c.stale += 1;
        return;
    }
    c.edges += relax_edges::<P>(g, cells, t.v, s, |v, new| {
        c.updates += 1;
        push(Task { v, s: new });
    });
}

/// Relaxes every out-edge of `u` (state `s`) into `cells` and calls
/// `changed(target, new state)` for each target whose state this worker
/// changed; returns the number of edges. The push loop of every asynchronous
/// engine (work stealing, obim, bulk delta-stepping).
#[inline(always)]
pub(super) fn relax_edges<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    u: u32,
    s: P::State,
    mut changed: impl FnMut(u32, P::State),
) -> u64 {
    for_each_edge::<P>(g, u, |v, w| {
        let Some(cand) = P::relax(s, w) else {
            return;
        };
        debug_assert!((v as usize) < cells.len());
        // SAFETY: every target of a `Csr` (and of its packed copy) is below its
        // vertex count (checked by `Csr::from_parts`, guaranteed by the builder),
        // and `cells` has one entry per vertex.
        let cell = unsafe { cells.get_unchecked(v as usize) };
        // Cheap read first: most arrivals change nothing.
        let cur = P::State::load(cell);
        if combine::<P>(cur, cand) == cur {
            return;
        }
        let old = P::State::fetch_combine(cell, P::COMBINE, cand, P::combine);
        let new = combine::<P>(old, cand);
        if new != old {
            changed(v, new);
        }
    })
}

/// Calls `f(target, weight)` for each out-edge of `u` (weight `Weight::ONE` for
/// programs that do not read weights) and returns how many there were. A
/// weighted program reads the interleaved copy ([`Graph::packed`], built by
/// [`prepare_edges`] before the timed region): one stream of `(target, weight)`
/// pairs instead of two arrays. One loop per program, so `f` is inlined into it.
#[inline(always)]
fn for_each_edge<P: VertexProgram>(
    g: &Graph<P::Weight>,
    u: u32,
    mut f: impl FnMut(u32, P::Weight),
) -> u64 {
    let range = g.csr().edge_range(u);
    if P::WEIGHTED {
        let es = &g.packed()[range];
        for e in es {
            f(e.to, e.w);
        }
        es.len() as u64
    } else {
        let es = &g.csr().targets()[range];
        for &v in es {
            f(v, <P::Weight as Weight>::ONE);
        }
        es.len() as u64
    }
}

/// Staged prefetches for a walk that relaxes the out-edges of `vs(0)`, `vs(1)`,
/// … with [`relax_edges`], called at step `i` ([`super::prefetch::prefetch_walk`]
/// over the edge array [`for_each_edge`] reads, plus the state of `vs(i + 16)`,
/// which the walk loads before its edges). A Δ-stepping bucket of a grid holds
/// vertices rows apart: without them each task waits for its offsets, then its
/// edge list, then its neighbours' states, one miss after another.
#[inline(always)]
pub(super) fn prefetch_relax<P: VertexProgram>(
    g: &Graph<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    vs: impl Fn(usize) -> Option<u32>,
    i: usize,
) {
    use super::prefetch::{prefetch, prefetch_walk};
    let offsets = g.csr().offsets();
    if let Some(u) = vs(i + 16) {
        prefetch(cells, u as usize);
    }
    if P::WEIGHTED {
        prefetch_walk(vs, i, offsets, g.packed(), |e| {
            prefetch(cells, e.to as usize)
        });
    } else {
        prefetch_walk(vs, i, offsets, g.csr().targets(), |&v| {
            prefetch(cells, v as usize)
        });
    }
}

/// Builds the interleaved edges a weighted program's push loop reads
/// (`for_each_edge`); engines call it before their timed region.
pub fn prepare_edges<P: VertexProgram>(g: &Graph<P::Weight>) {
    if P::WEIGHTED {
        g.packed();
    }
}

/// Refuses schedules the program does not allow, with a message saying why.
pub fn check_schedule<P: VertexProgram>(schedule: Schedule) -> Result<()> {
    let name = crate::program::schedule_name(schedule);
    if schedule != Schedule::Sync && !P::IDEMPOTENT {
        return Err(Error::InvalidArgument(format!(
            "program `{}` cannot run under the {name} schedule: its combine ({:?}) is not \
             idempotent, and asynchronous schedules may deliver a value more than once; \
             use the sync schedule",
            P::NAME,
            P::COMBINE
        )));
    }
    if schedule == Schedule::Obim && !P::HAS_PRIORITY {
        return Err(Error::InvalidArgument(format!(
            "program `{}` cannot run under the obim schedule: obim orders work by priority \
             and the program defines no `fn priority(state) -> u32`; use async or sync",
            P::NAME
        )));
    }
    if !P::SCHEDULES.contains(&schedule) {
        return Err(Error::InvalidArgument(format!(
            "program `{}` does not allow the {name} schedule (it allows {:?})",
            P::NAME,
            P::SCHEDULES
        )));
    }
    Ok(())
}

/// The checks every engine starts with: `schedule` is one the program allows and,
/// when the program has a source, `source` names a vertex of `g`.
pub fn check_run<P: VertexProgram>(
    schedule: Schedule,
    g: &Graph<P::Weight>,
    source: u32,
) -> Result<()> {
    check_schedule::<P>(schedule)?;
    if P::NEEDS_SOURCE {
        crate::program::check_source(source, g.num_vertices())?;
    }
    super::check_weights::<P>(g)?;
    Ok(())
}

/// Δ for the CPU engines when none is given: [`auto_delta`], except on a
/// high-diameter graph ([`probe`]: a mesh, a road network), where
/// [`auto_delta`]'s buckets hold a fraction of one hop's ring each — a few hundred
/// vertices per pass, too little to share among workers — and Δ is one mean
/// priority step (about one hop per bucket) instead: the 1000² grid (weights
/// 1..100) gets 50 instead of 25; `vertex bench-cpu`'s Δ sweep found 64 best on
/// both sides there and 25 about 20 % slower at 2 threads. (The GPU scales
/// [`auto_delta`] its own way.)
pub fn cpu_delta<P: VertexProgram>(g: &Graph<P::Weight>, source: u32) -> u64 {
    let d = auto_delta::<P>(g, source);
    match mean_step::<P>(g, source) {
        Some(step) if probe(g, source).high_diameter => (step.round() as u64).max(d),
        _ => d,
    }
}

/// The bucket width Δ of the priority engines: `aopts.delta`, or derived from the
/// graph ([`cpu_delta`]) when not given.
pub fn resolve_delta<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    aopts: &AsyncOptions,
) -> Result<u64> {
    match aopts.delta {
        Some(0) => Err(Error::InvalidArgument(
            "delta (bucket width) must be at least 1".into(),
        )),
        Some(d) => Ok(d),
        None => Ok(cpu_delta::<P>(g, source)),
    }
}

/// The resolved run configuration of an asynchronous engine.
pub struct Setup {
    pub threads: usize,
    pub topology: Topology,
    /// `(package, cpu)` per worker.
    pub placement: Vec<(usize, usize)>,
    pub chunk: usize,
    pub pin: bool,
}

impl Setup {
    pub fn resolve(opts: &CpuOptions, aopts: &AsyncOptions) -> Result<Setup> {
        let threads = match opts.threads {
            Some(0) => {
                return Err(Error::InvalidArgument(
                    "threads must be at least 1 (got 0)".into(),
                ))
            }
            Some(t) => t,
            None => rayon::current_num_threads(),
        };
        if threads > 4096 {
            return Err(Error::InvalidArgument(format!(
                "{threads} threads is more than the 4096 the asynchronous engines support"
            )));
        }
        if !super::bag::CHUNK_RANGE.contains(&aopts.chunk) {
            return Err(Error::InvalidArgument(format!(
                "chunk size {} is outside {:?}",
                aopts.chunk,
                super::bag::CHUNK_RANGE
            )));
        }
        let topology = match &aopts.topology {
            Some(t) => t.clone(),
            None => Topology::system()?,
        };
        let placement = topology.place(threads);
        Ok(Setup {
            threads,
            topology,
            placement,
            chunk: aopts.chunk,
            pin: aopts.pin,
        })
    }

    /// Runs `work(worker index, package)` on `threads` threads at once (pinned if
    /// asked) and returns their results in worker order.
    ///
    /// The threads are the process's kept pool for that count (`cpu::pool`),
    /// as gapbs keeps its OpenMP team: new threads cost the run their start-up
    /// and their cold caches inside the timed region, every run (16 threads on
    /// the 16-core host: about a millisecond of bulk delta-stepping's 17–20 on
    /// the 1000² grid). Pinned runs whose placement is not the system's (a
    /// topology given by a test or `VERTEX_TOPOLOGY`) get scoped threads pinned
    /// where the placement says.
    pub fn spawn<R: Send>(&self, work: impl Fn(usize, usize) -> R + Sync) -> Vec<R> {
        if self.threads == 1 {
            // The caller's own thread: pinned only for this run.
            let _pinned = self.pin.then(|| pin_for_now(self.placement[0].1));
            return vec![work(0, self.placement[0].0)];
        }
        if let Some(pool) = self.kept_pool() {
            // Every thread of the pool runs one worker; they all run at once (a
            // pool thread only waits inside a worker, at its barrier).
            return pool.broadcast(|ctx| work(ctx.index(), self.placement[ctx.index()].0));
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .placement
                .iter()
                .enumerate()
                .map(|(i, &(pkg, cpu))| {
                    let work = &work;
                    let pin = self.pin;
                    s.spawn(move || {
                        if pin {
                            pin_current_thread(cpu);
                        }
                        work(i, pkg)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h.join() {
                    Ok(c) => c,
                    // A panic inside user code (relax/combine) is not ours to hide.
                    Err(p) => std::panic::resume_unwind(p),
                })
                .collect()
        })
    }

    /// The kept pool of `threads` threads, if its threads sit where this run's
    /// placement says (any CPU when not pinned).
    fn kept_pool(&self) -> Option<std::sync::Arc<rayon::ThreadPool>> {
        if self.pin {
            let system = Topology::system().ok()?.place(self.threads);
            let same = system.iter().zip(&self.placement).all(|(a, b)| a.1 == b.1);
            if !same || system.len() != self.placement.len() {
                return None;
            }
        }
        super::pool(self.threads, self.pin).ok()
    }

    /// Fills in the shared parts of a report.
    pub fn report(&self, schedule: Schedule, counters: &[Counters], t0: Instant) -> RunReport {
        let mut total = Counters::default();
        for c in counters {
            total += *c;
        }
        RunReport {
            schedule: Some(schedule),
            threads: self.threads,
            time: t0.elapsed(),
            edges_relaxed: total.edges,
            updates: total.updates,
            tasks: total.tasks,
            stale_tasks: total.stale,
            steals: total.steals,
            chunks: total.chunks,
            packages: self.topology.num_packages(),
            topology: Some(self.topology.describe()),
            chunk: Some(self.chunk),
            ..RunReport::default()
        }
    }
}

/// Initial states, in parallel.
pub fn init_cells<P: VertexProgram>(
    n: usize,
    source: u32,
) -> Vec<<P::State as AtomicState>::Atomic> {
    (0..n as u32)
        .into_par_iter()
        .map(|v| P::State::new_atomic(P::init(v, source)))
        .collect()
}

/// The vertices worker `i` of `workers` seeds when every vertex starts active.
pub fn seed_range(n: usize, i: usize, workers: usize) -> std::ops::Range<u32> {
    let lo = (n as u64 * i as u64 / workers as u64) as u32;
    let hi = (n as u64 * (i as u64 + 1) / workers as u64) as u32;
    lo..hi
}

/// `priority / Δ` without a division instruction (a 64-bit `div` was a tenth of
/// bulk delta-stepping's time; it runs once per update and once per task):
/// Lemire, Kaser & Kurz's direct computation, `⌊p/Δ⌋ = ⌊M·p / 2^64⌋` with
/// `M = ⌊(2^64 − 1)/Δ⌋ + 1`, exact for every 32-bit `p` and `Δ`.
#[derive(Clone, Copy, Debug)]
pub struct BucketOf {
    magic: u64,
    kind: DivKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DivKind {
    /// Δ = 1.
    Identity,
    /// Δ above every priority: one bucket.
    Zero,
    Magic,
}

impl BucketOf {
    /// For bucket width `delta` (at least 1; 0 is treated as 1).
    pub fn new(delta: u64) -> Self {
        match delta {
            0 | 1 => BucketOf {
                magic: 0,
                kind: DivKind::Identity,
            },
            d if d > u64::from(u32::MAX) => BucketOf {
                magic: 0,
                kind: DivKind::Zero,
            },
            d => BucketOf {
                magic: u64::MAX / d + 1,
                kind: DivKind::Magic,
            },
        }
    }

    /// `priority / delta`.
    #[inline(always)]
    pub fn of(&self, priority: u32) -> u32 {
        match self.kind {
            DivKind::Identity => priority,
            DivKind::Zero => 0,
            DivKind::Magic => ((u128::from(self.magic) * u128::from(priority)) >> 64) as u32,
        }
    }
}

/// The targets of the edges in `range` and, for programs that read weights, their
/// weights (`None` otherwise: relax then gets `Weight::ONE`).
#[inline(always)]
pub(super) fn edge_slices<P: VertexProgram>(
    csr: &crate::graph::Csr<P::Weight>,
    range: std::ops::Range<usize>,
) -> (&[u32], Option<&[P::Weight]>) {
    let targets = &csr.targets()[range.clone()];
    let weights = if P::WEIGHTED {
        csr.weights().map(|w| &w[range])
    } else {
        None
    };
    (targets, weights)
}

#[cfg(test)]
mod tests {
    use super::BucketOf;

    #[test]
    fn bucket_of_matches_division() {
        let ps = [
            0u32,
            1,
            2,
            3,
            7,
            254,
            255,
            256,
            1 << 20,
            u32::MAX - 1,
            u32::MAX,
        ];
        let ds = [
            1u64,
            2,
            3,
            5,
            7,
            9,
            25,
            100,
            255,
            1 << 16,
            65_537,
            u32::MAX as u64 - 1,
        ];
        let ds = ds.iter().chain(&[u32::MAX as u64, 1 << 32, u64::MAX]);
        for &d in ds {
            let b = BucketOf::new(d);
            let mut x = 0x9e37_79b9u32;
            for p in ps.iter().copied().chain((0..2000).map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            })) {
                assert_eq!(u64::from(b.of(p)), u64::from(p) / d, "{p} / {d}");
            }
        }
    }
}
