//! Bulk delta-stepping, gapbs-style: the obim bucket order run in lock-step.
//!
//! Where [`super::obim`] lets workers drift between buckets (soft priorities,
//! 16-byte `(vertex, state)` tasks, chunked bags), this path follows gapbs `sssp`:
//! one shared frontier per bucket, processed in parallel; every worker keeps
//! thread-local bins of plain vertex ids (4 bytes) for the buckets it pushes to;
//! after each pass the lowest non-empty bin over all workers becomes the next
//! frontier. A task is a vertex id; its state is read when it is processed.
//!
//! The workers live for the whole run (as gapbs's OpenMP team) and meet at a
//! spinning barrier once per pass. Before it, every worker *offers* its lowest
//! non-empty bin: it moves the bin out of its ring and publishes where the ids
//! are and which bucket they belong to. After it, every worker reads all offers:
//! the next bucket `k` is their lowest (no shared minimum to update and reset),
//! and the pass's frontier is the concatenation of the offers for `k`, read in
//! place. A pass hands out chunks of `GRAIN` ids of it from a shared cursor
//! (OpenMP's `schedule(dynamic, 64)`), or, when it holds at most
//! `EVEN_UP_TO` ids per worker, splits it evenly with no cursor at all; a worker whose offer was
//! for a later bucket takes it back. gapbs (and this engine before) met twice
//! per pass, once to agree on the bucket and once after copying every worker's
//! bin into one shared frontier; barriers and shared lines are the fixed cost of
//! a pass, and a 1000² grid takes a thousand passes at Δ 50, tens of thousands
//! at Δ 1.
//!
//! An offer is read by the others only during the pass right after it; its
//! owner leaves it alone until two iterations later (offers alternate between
//! two buffers), by which time everyone has passed the next barrier. Cursors
//! rotate through three slots: worker 0 clears slot `(i + 1) % 3` before the
//! barrier of iteration `i`, after every use of it in iteration `i − 2`
//! (finished before the previous barrier) and before its first use in iteration
//! `i + 1` (after this one).
//!
//! Correctness for any idempotent program with a priority (not only monotone
//! ones like SSSP): a vertex whose state changes is pushed to bin
//! `max(bucket(new state), current)`, so bins are drained in increasing order and
//! every change is followed by a later visit. A task in bin `k` is skipped when
//! its vertex's current bucket is above `k` (its latest push is in a later bin) or,
//! as gapbs does, below `k` (its latest push was to an earlier bin, already
//! drained) — the latter only while no push has been clamped up to the current
//! bin, which never happens for programs whose `relax` does not lower priority.
//!
//! Bins live in a ring of [`WINDOW`] buckets past the current one; pushes further
//! out wait in a per-worker far list that is re-binned when the ring runs dry, so
//! memory does not depend on how large priorities get.

use std::time::Instant;

use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

use super::barrier::SpinBarrier;
use super::operator::{
    check_run, init_cells, prefetch_relax, prepare_edges, relax_edges, resolve_delta, seed_range,
    BucketOf, Counters, Setup,
};
use super::{unload, AsyncOptions, CpuOptions, RunReport, RunResult};
use crate::error::Result;
use crate::graph::Graph;
use crate::program::{AtomicState, Schedule, VertexProgram};

/// Buckets held in each worker's ring past the current one.
pub const WINDOW: usize = 1024;

/// A worker's own bin for the current bucket smaller than this is drained at once
/// (gapbs's `kBinSizeThreshold`).
const FUSE_BELOW: usize = 1000;

/// Ids a worker drains from its own bin in one pass's fusion loop before it
/// leaves the rest for the next pass, where every worker shares it. Fusion is
/// where a pass's workers drift apart (each drains only its own bin while the
/// others wait at the barrier); a cap puts a long chain back on the shared
/// frontier. 16-core host, 1000² grid, 8 and 16 threads, Δ 64 / 256 / 512, 3 roots
/// × 2 rounds: the sum of best-of-5 times was lower than uncapped in all six
/// settings (126 / 134 / 143 / 84 / 93 / 98 ms against 133 / 135 / 147 / 93 / 104 /
/// 101), and caps of 1,024 and 256 gained less or lost
/// (`74e218a:docs/results/h100/cpu-issue20/session14/fuse-cap/`).
const FUSE_BUDGET: usize = 4096;

/// Frontier ids handed out per grab.
const GRAIN: usize = 64;

/// Ids per worker up to which a pass's frontier is split evenly, with no
/// shared cursor (OpenMP's static schedule). Each grab is a locked instruction
/// on the one line every worker writes; the 1000² grid's passes at Δ 256–512
/// hold a few thousand ids. 16-core host, bulk Δ-stepping's best on the grid
/// (two rounds, alternating builds): 16 threads 18.0 / 16.9 ms with the cursor
/// above 64 ids a worker, 17.9 / 15.3 above 512, 16.6 / 14.0 above 4,096;
/// 8 threads 28.8 / 26.6, 23.7 / 23.2, 25.5 / 20.4. Kept at 512: a larger
/// even share risks putting several hubs of a Kronecker frontier on one worker.
const EVEN_UP_TO: usize = 512;

/// Largest out-degree of a graph whose passes are split evenly whatever their
/// size (roads, grids, meshes): with no hub a worker's share of ids is its
/// share of edges, and an even split of the offers, read in worker order, keeps
/// each worker on the ids it pushed itself, whose states and neighbours are in
/// its cache, where the cursor's grabs interleave the workers' parts of the
/// wavefront (the same effect as the level engine's, see `level::Chunk`).
const EVEN_MAX_DEGREE: u64 = 16;

/// "No bucket" in the shared minimum (buckets are `u32`, so this is none of them).
const NONE: u64 = u64::MAX;

/// One worker's bins.
struct Bins {
    ring: Vec<Vec<u32>>,
    far: Vec<u32>,
    /// Lowest bucket pushed to `far` since it was last re-binned (`u32::MAX`: none).
    far_low: u32,
    /// The fusion loop's buffer, kept from pass to pass.
    spare: Vec<u32>,
}

impl Bins {
    fn new() -> Self {
        Bins {
            ring: (0..WINDOW).map(|_| Vec::new()).collect(),
            far: Vec::new(),
            far_low: u32::MAX,
            spare: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, idx: u32, cur: u32, v: u32) {
        if (idx - cur) as usize >= WINDOW {
            self.far.push(v);
            self.far_low = self.far_low.min(idx);
        } else {
            self.ring[idx as usize % WINDOW].push(v);
        }
    }

    /// Moves the far list into the ring relative to `cur` (what still does not fit
    /// stays far). Called as soon as the window reaches the lowest far bucket, so
    /// the current bucket never passes a far task: re-binning one *below* `cur`
    /// would clamp it and the stale check would wrongly drop it.
    fn rebin(&mut self, cur: u32, bucket: impl Fn(u32) -> u32) {
        self.far_low = u32::MAX;
        let far = std::mem::take(&mut self.far);
        for &v in &far {
            self.push(bucket(v).max(cur), cur, v);
        }
    }

    /// The lowest bucket in `[cur, cur + WINDOW)` with a non-empty bin.
    fn lowest(&self, cur: u32) -> Option<u32> {
        (0..WINDOW as u32)
            .map_while(|off| cur.checked_add(off))
            .find(|&idx| !self.ring[idx as usize % WINDOW].is_empty())
    }
}

/// A worker's bin offered for a pass: where its ids are, how many, and for
/// which bucket ([`NONE`]: the worker had none).
struct Offer {
    ptr: AtomicPtr<u32>,
    len: AtomicUsize,
    bucket: AtomicU64,
}

impl Default for Offer {
    fn default() -> Self {
        Offer {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
            bucket: AtomicU64::new(NONE),
        }
    }
}

/// What the workers share: each worker's offers (by iteration parity), three
/// cursors used by turns, the far-list minimum and the clamp flag.
struct Shared {
    offers: Vec<[CachePadded<Offer>; 2]>,
    cursor: [CachePadded<AtomicUsize>; 3],
    far_min: CachePadded<AtomicU64>,
    clamped: AtomicBool,
    barrier: SpinBarrier,
}

/// Runs `P` by bulk delta-stepping from `source`; `aopts.delta` as in obim
/// (`None`: [`super::operator::cpu_delta`]), `aopts.pin` and the topology place the
/// workers as in the asynchronous engines; the chunk size does not apply.
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    check_run::<P>(Schedule::Obim, g, source)?;
    let delta = resolve_delta::<P>(g, source, aopts)?;
    let setup = Setup::resolve(opts, aopts)?;
    prepare_edges::<P>(g);
    let t0 = Instant::now();
    let n = g.num_vertices();
    let cells = init_cells::<P>(n, source);
    let t_init = t0.elapsed();
    let shared = Shared {
        offers: (0..setup.threads).map(|_| Default::default()).collect(),
        cursor: Default::default(),
        far_min: CachePadded::new(AtomicU64::new(NONE)),
        clamped: AtomicBool::new(false),
        barrier: SpinBarrier::new(setup.threads),
    };
    let workers = setup.threads;
    let tallies = setup.spawn(|i, _pkg| {
        let w = Worker::<P> {
            g,
            cells: &cells,
            sh: &shared,
            bucket_of: BucketOf::new(delta),
            me: i,
        };
        // A panic in user code must not leave the other workers at the barrier.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.run(source, workers))) {
            Ok(t) => t,
            Err(p) => {
                shared.barrier.poison();
                std::panic::resume_unwind(p)
            }
        }
    });
    let mut total = Counters::default();
    for t in &tallies {
        total += t.c;
    }
    let t_loop = t0.elapsed();
    let states = unload::<P::State>(cells);
    if profiling() {
        print_phases(&tallies);
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "delta profile: {:.2} ms in all: states set up {:.2}, workers {:.2}, states read out {:.2}",
            ms(t0.elapsed()),
            ms(t_init),
            ms(t_loop - t_init),
            ms(t0.elapsed() - t_loop)
        );
    }
    let report = RunReport {
        schedule: Some(Schedule::Obim),
        threads: workers,
        time: t0.elapsed(),
        rounds: tallies[0].passes,
        edges_relaxed: total.edges,
        updates: total.updates,
        tasks: total.tasks,
        stale_tasks: total.stale,
        bucket_switches: tallies[0].buckets,
        delta: Some(delta),
        packages: setup.topology.num_packages(),
        topology: Some(setup.topology.describe()),
        ..RunReport::default()
    };
    Ok(RunResult { states, report })
}

/// A worker's counters plus the pass/bucket counts every worker keeps alike.
#[derive(Default)]
struct Tally {
    c: Counters,
    passes: u64,
    buckets: u64,
    /// Where the worker's time went, when `VERTEX_DELTA_PROFILE` is set.
    phases: Phases,
}

/// A worker's time by phase of a pass (`VERTEX_DELTA_PROFILE=1`): offering
/// its bin, waiting at the barrier, reading the offers, working the shared
/// frontier, and draining its own bin (fusion).
#[derive(Default, Clone, Copy)]
struct Phases([std::time::Duration; PHASES]);

const PHASES: usize = 5;
const PHASE_NAMES: [&str; PHASES] = ["offer", "barrier", "read offers", "frontier", "fusion"];

/// Whether `VERTEX_DELTA_PROFILE` asks for the phase profile.
fn profiling() -> bool {
    std::env::var_os("VERTEX_DELTA_PROFILE").is_some()
}

/// Prints µs per pass of each phase: the workers' mean and their largest.
fn print_phases(tallies: &[Tally]) {
    let passes = tallies[0].passes.max(1) as f64;
    let mut line = format!(
        "delta profile ({} workers, {} passes, µs a pass, mean / largest worker):",
        tallies.len(),
        tallies[0].passes
    );
    for (i, name) in PHASE_NAMES.iter().enumerate() {
        let us: Vec<f64> = tallies
            .iter()
            .map(|t| t.phases.0[i].as_secs_f64() * 1e6 / passes)
            .collect();
        let mean = us.iter().sum::<f64>() / us.len() as f64;
        let max = us.iter().copied().fold(0.0, f64::max);
        line += &format!(" {name} {mean:.2} / {max:.2};");
    }
    eprintln!("{line}");
}

/// Stamps phase boundaries when profiling (a no-op otherwise).
struct Clock {
    on: bool,
    last: Instant,
}

impl Clock {
    #[inline]
    fn lap(&mut self, phases: &mut Phases, phase: usize) {
        if self.on {
            let now = Instant::now();
            phases.0[phase] += now - self.last;
            self.last = now;
        }
    }
}

/// A pass's frontier: the offered bins `segs` (pointer, length) taken in
/// order, walked forward (a worker's grabs only move forward).
struct Walk<'a> {
    segs: &'a [(*const u32, usize)],
    /// The bin holding the next index, and the index of its first id.
    seg: usize,
    start: usize,
}

impl Walk<'_> {
    /// Calls `f(ids, j)` for every index in `lo..hi` (none below an earlier
    /// call's), with `ids` the offered bin that holds it and `j` its place there.
    #[inline(always)]
    fn range(&mut self, lo: usize, hi: usize, mut f: impl FnMut(&[u32], usize)) {
        let mut i = lo;
        while i < hi {
            while i >= self.start + self.segs[self.seg].1 {
                self.start += self.segs[self.seg].1;
                self.seg += 1;
            }
            let (ptr, len) = self.segs[self.seg];
            // SAFETY: an offer points at `len` initialised ids of a `Vec<u32>`
            // its owner neither moves (the buffer stays where it is when the
            // `Vec` is swapped) nor writes until two iterations later, after the
            // barrier that every worker passes only once this pass is over; the
            // barrier this pass started after made the owner's writes visible
            // (see the module docs). `len > 0` here, so `ptr` is a live
            // allocation.
            let ids = unsafe { core::slice::from_raw_parts(ptr, len) };
            let end = (hi - self.start).min(len);
            for j in i - self.start..end {
                f(ids, j);
            }
            i = self.start + end;
        }
    }
}

struct Worker<'a, P: VertexProgram> {
    g: &'a Graph<P::Weight>,
    cells: &'a [<P::State as AtomicState>::Atomic],
    sh: &'a Shared,
    bucket_of: BucketOf,
    me: usize,
}

impl<P: VertexProgram> Worker<'_, P> {
    #[inline]
    fn bucket(&self, s: P::State) -> u32 {
        self.bucket_of.of(P::priority(s))
    }

    /// The bucket of `v`'s current state.
    #[inline]
    fn vertex_bucket(&self, v: u32) -> u32 {
        self.bucket(P::State::load(&self.cells[v as usize]))
    }

    fn run(&self, source: u32, workers: usize) -> Tally {
        let sh = self.sh;
        let mut bins = Bins::new();
        let mut t = Tally::default();
        // Everything starts in the far lists; the first pass re-bins it.
        if P::NEEDS_SOURCE {
            if self.me == 0 {
                bins.far.push(source);
            }
        } else {
            bins.far
                .extend(seed_range(self.cells.len(), self.me, workers));
        }
        // The bins offered in even and odd iterations (see the module docs).
        let mut offered: [Vec<u32>; 2] = Default::default();
        let mut segs: Vec<(*const u32, usize)> = Vec::with_capacity(workers);
        let mut cur = 0u32;
        let mut last = None;
        let mut iter = 0usize;
        let mut clock = Clock {
            on: profiling(),
            last: Instant::now(),
        };
        loop {
            let (p, s) = (iter & 1, iter % 3);
            if (bins.far_low as u64) < cur as u64 + WINDOW as u64 {
                bins.rebin(cur, |v| self.vertex_bucket(v));
            }
            if self.me == 0 {
                sh.cursor[(iter + 1) % 3].store(0, Ordering::Relaxed);
            }
            // Offer the lowest bin: out of the ring, into this parity's buffer
            // (read by others last in iteration `iter - 2`).
            let offer = &sh.offers[self.me][p];
            let mine = &mut offered[p];
            mine.clear();
            let low = bins.lowest(cur);
            match low {
                Some(b) => {
                    core::mem::swap(mine, &mut bins.ring[b as usize % WINDOW]);
                    offer.ptr.store(mine.as_mut_ptr(), Ordering::Relaxed);
                    offer.len.store(mine.len(), Ordering::Relaxed);
                    offer.bucket.store(u64::from(b), Ordering::Relaxed);
                }
                None => offer.bucket.store(NONE, Ordering::Relaxed),
            }
            clock.lap(&mut t.phases, 0);
            if !sh.barrier.wait() {
                return t;
            }
            clock.lap(&mut t.phases, 1);
            let offers = sh.offers.iter().map(|o| &o[p]);
            let k = offers
                .clone()
                .map(|o| o.bucket.load(Ordering::Relaxed))
                .min()
                .unwrap_or(NONE);
            if k == NONE {
                // Every ring is empty: restart from the lowest far bucket, if any.
                match self.rebin_far(&mut bins, &mut cur) {
                    Some(true) => {}
                    Some(false) | None => return t,
                }
                iter += 1;
                continue;
            }
            let k = k as u32;
            if let Some(b) = low.filter(|&b| b != k) {
                // Not this pass's bucket: nobody reads it, back into the ring.
                core::mem::swap(&mut offered[p], &mut bins.ring[b as usize % WINDOW]);
            }
            cur = k;
            if last != Some(k) {
                t.buckets += 1;
                last = Some(k);
            }
            segs.clear();
            segs.extend(
                offers
                    .filter(|o| o.bucket.load(Ordering::Relaxed) == u64::from(k))
                    .map(|o| {
                        (
                            o.ptr.load(Ordering::Relaxed).cast_const(),
                            o.len.load(Ordering::Relaxed),
                        )
                    }),
            );
            t.passes += 1;
            clock.lap(&mut t.phases, 2);
            self.pass(
                s,
                k,
                &segs,
                workers,
                &mut bins,
                &mut t.c,
                &mut clock,
                &mut t.phases,
            );
            iter += 1;
        }
    }

    /// All rings ran dry: every worker offers the lowest bucket of its far list,
    /// and all re-bin relative to the minimum. `Some(false)`: nothing is left
    /// anywhere (the run is over); `None`: the barrier was poisoned.
    fn rebin_far(&self, bins: &mut Bins, cur: &mut u32) -> Option<bool> {
        let sh = self.sh;
        if let Some(m) = bins.far.iter().map(|&v| self.vertex_bucket(v)).min() {
            sh.far_min
                .fetch_min(u64::from(m.max(*cur)), Ordering::AcqRel);
        }
        if !sh.barrier.wait() {
            return None;
        }
        let m = sh.far_min.load(Ordering::Acquire);
        if !sh.barrier.wait() {
            return None;
        }
        if self.me == 0 {
            // Read by everyone above; next used after at least one more barrier.
            sh.far_min.store(NONE, Ordering::Relaxed);
        }
        if m == NONE {
            return Some(false);
        }
        *cur = m as u32;
        bins.rebin(*cur, |v| self.vertex_bucket(v));
        Some(true)
    }

    /// One pass over bucket `k`, whose frontier is the offered bins `segs`
    /// (pointer, length) taken in order, handed out with cursor slot `s` (or
    /// split evenly over the `workers` when small); then
    /// gapbs's bin fusion: a small own bin for `k` is drained at once instead of
    /// waiting for the next pass.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        s: usize,
        k: u32,
        segs: &[(*const u32, usize)],
        workers: usize,
        bins: &mut Bins,
        c: &mut Counters,
        clock: &mut Clock,
        phases: &mut Phases,
    ) {
        let sh = self.sh;
        let skip_low = !sh.clamped.load(Ordering::Acquire);
        let total: usize = segs.iter().map(|&(_, len)| len).sum();
        let mut walk = Walk {
            segs,
            seg: 0,
            start: 0,
        };
        let mut relax = |ids: &[u32], j: usize| {
            prefetch_relax::<P>(self.g, self.cells, |x| ids.get(x).copied(), j);
            self.process(ids[j], k, skip_low, bins, c);
        };
        if total <= workers * EVEN_UP_TO || self.g.max_out_degree() <= EVEN_MAX_DEGREE {
            // Small (a grid's passes): an even split, and no
            // shared cursor line bouncing between the workers.
            let share = |w: usize| total * w / workers;
            walk.range(share(self.me), share(self.me + 1), &mut relax);
        } else {
            let cursor = &sh.cursor[s];
            loop {
                let lo = cursor.fetch_add(GRAIN, Ordering::Relaxed);
                if lo >= total {
                    break;
                }
                walk.range(lo, (lo + GRAIN).min(total), &mut relax);
            }
        }
        clock.lap(phases, 3);
        let slot = k as usize % WINDOW;
        // The buffer the fused bin is drained from is kept from pass to pass:
        // a fresh one would be freed at the end of each pass, and the bin it
        // is swapped with regrown from nothing (16 threads, Δ 512 on the
        // 1000² grid: 26.1 / 27.6 → 21.8 / 20.9 ms, `call6.log`).
        let mut batch = std::mem::take(&mut bins.spare);
        let mut fused = 0usize;
        while !bins.ring[slot].is_empty()
            && bins.ring[slot].len() < FUSE_BELOW
            && fused < FUSE_BUDGET
        {
            fused += bins.ring[slot].len();
            std::mem::swap(&mut batch, &mut bins.ring[slot]);
            // Re-read: this worker may just have set it.
            let skip_low = !sh.clamped.load(Ordering::Acquire);
            for (i, &u) in batch.iter().enumerate() {
                prefetch_relax::<P>(self.g, self.cells, |j| batch.get(j).copied(), i);
                self.process(u, k, skip_low, bins, c);
            }
            batch.clear();
        }
        bins.spare = batch;
        clock.lap(phases, 4);
    }

    /// Relaxes `u`'s out-edges if its task in bin `k` is not stale.
    #[inline]
    fn process(&self, u: u32, k: u32, skip_low: bool, bins: &mut Bins, c: &mut Counters) {
        c.tasks += 1;
        let s = P::State::load(&self.cells[u as usize]);
        let b = self.bucket(s);
        if b > k || (skip_low && b < k) {
            c.stale += 1;
            return;
        }
        c.edges += relax_edges::<P>(self.g, self.cells, u, s, |v, new| {
            c.updates += 1;
            let nb = self.bucket(new);
            if nb < k {
                self.sh.clamped.store(true, Ordering::Release);
            }
            bins.push(nb.max(k), k, v);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{load_graph, LoadOptions};
    use crate::program::Combine;

    /// SSSP as `#[vertex_program]` would write it (u64 distances, u32 weights).
    #[derive(Clone, Copy)]
    struct Sssp;

    impl VertexProgram for Sssp {
        type State = u64;
        type Weight = u32;
        const NAME: &'static str = "sssp_test";
        const COMBINE: Combine = Combine::Min;
        const IDEMPOTENT: bool = true;
        const WEIGHTED: bool = true;
        const NEEDS_SOURCE: bool = true;
        const HAS_PRIORITY: bool = true;
        const SEMIRING: bool = false;
        const SCHEDULES: &'static [Schedule] = &[Schedule::Sync, Schedule::Async, Schedule::Obim];
        fn init(v: u32, source: u32) -> u64 {
            if v == source {
                0
            } else {
                u64::MAX
            }
        }
        fn relax(d: u64, w: u32) -> Option<u64> {
            d.checked_add(u64::from(w))
        }
        fn combine(a: u64, b: u64) -> u64 {
            a.min(b)
        }
        fn priority(d: u64) -> u32 {
            d.min(u64::from(u32::MAX)) as u32
        }
    }

    /// The same distances with a priority that falls as the distance grows, so
    /// pushes land below the current bucket and are clamped.
    #[derive(Clone, Copy)]
    struct Reversed;

    impl VertexProgram for Reversed {
        type State = u64;
        type Weight = u32;
        const NAME: &'static str = "sssp_reversed_test";
        const COMBINE: Combine = Combine::Min;
        const IDEMPOTENT: bool = true;
        const WEIGHTED: bool = true;
        const NEEDS_SOURCE: bool = true;
        const HAS_PRIORITY: bool = true;
        const SEMIRING: bool = false;
        const SCHEDULES: &'static [Schedule] = &[Schedule::Sync, Schedule::Async, Schedule::Obim];
        fn init(v: u32, source: u32) -> u64 {
            Sssp::init(v, source)
        }
        fn relax(d: u64, w: u32) -> Option<u64> {
            Sssp::relax(d, w)
        }
        fn combine(a: u64, b: u64) -> u64 {
            a.min(b)
        }
        fn priority(d: u64) -> u32 {
            u32::MAX - Sssp::priority(d)
        }
    }

    fn graph(spec: &str) -> Graph<u32> {
        let opts = LoadOptions {
            random_weights: Some((1, 255, 7)),
            ..LoadOptions::default()
        };
        load_graph::<u32>(spec, &opts).unwrap().graph
    }

    #[test]
    fn bulk_delta_stepping_matches_dijkstra() {
        for spec in ["kron:10", "grid:30x30", "uniform:500:1200"] {
            let g = graph(spec);
            let src = (0..g.num_vertices() as u32)
                .find(|&v| g.csr().degree(v) > 0)
                .unwrap();
            let want = crate::oracle::dijkstra(g.csr(), src);
            // 8: several offers for one bucket, others for later ones.
            for threads in [1, 2, 3, 8] {
                for delta in [None, Some(1), Some(7), Some(100_000)] {
                    let o = CpuOptions {
                        threads: Some(threads),
                        ..CpuOptions::default()
                    };
                    let a = AsyncOptions {
                        delta,
                        ..AsyncOptions::default()
                    };
                    let r = run::<Sssp>(&g, src, &o, &a).unwrap();
                    assert_eq!(r.states, want, "{spec} t{threads} Δ{delta:?}");
                    let r = run::<Reversed>(&g, src, &o, &a).unwrap();
                    assert_eq!(r.states, want, "reversed {spec} t{threads} Δ{delta:?}");
                }
            }
        }
    }
}
