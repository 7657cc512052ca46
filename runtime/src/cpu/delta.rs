//! Bulk delta-stepping, gapbs-style: the obim bucket order run in lock-step.
//!
//! Where [`super::obim`] lets workers drift between buckets (soft priorities,
//! 16-byte `(vertex, state)` tasks, chunked bags), this path follows gapbs `sssp`:
//! one shared frontier per bucket, processed in parallel; every worker keeps
//! thread-local bins of plain vertex ids (4 bytes) for the buckets it pushes to;
//! after each pass the lowest non-empty bin over all workers becomes the next
//! frontier. A task is a vertex id; its state is read when it is processed.
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

use std::sync::Mutex;
use std::time::Instant;

use core::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::operator::{check_schedule, combine, init_cells, Counters};
use super::{check_source, in_pool, unload, AsyncOptions, CpuOptions, RunReport, RunResult};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};
use crate::program::{AtomicState, Schedule, VertexProgram};

/// Buckets held in each worker's ring past the current one.
pub const WINDOW: usize = 1024;

/// A worker's own bin for the current bucket smaller than this is drained at once
/// (gapbs's `kBinSizeThreshold`).
const FUSE_BELOW: usize = 1000;

/// Frontier vertices per parallel task.
const GRAIN: usize = 64;

/// One worker's bins.
struct Bins {
    ring: Vec<Vec<u32>>,
    far: Vec<u32>,
    c: Counters,
}

impl Bins {
    fn new() -> Self {
        Bins {
            ring: (0..WINDOW).map(|_| Vec::new()).collect(),
            far: Vec::new(),
            c: Counters::default(),
        }
    }

    #[inline]
    fn push(&mut self, idx: u32, cur: u32, v: u32) {
        if (idx - cur) as usize >= WINDOW {
            self.far.push(v);
        } else {
            self.ring[idx as usize % WINDOW].push(v);
        }
    }
}

/// Locks a worker's bins. Poisoned only if user code panicked in another worker;
/// the bins themselves stay valid.
fn lock(b: &Mutex<Bins>) -> std::sync::MutexGuard<'_, Bins> {
    b.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `P` by bulk delta-stepping from `source`; `aopts.delta` as in obim
/// (`None`: [`super::obim::auto_delta`]). Topology, chunk and pinning do not apply.
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    check_schedule::<P>(Schedule::Obim)?;
    let n = g.num_vertices();
    if P::NEEDS_SOURCE {
        check_source(source, n)?;
    }
    let delta = match aopts.delta {
        Some(0) => {
            return Err(Error::InvalidArgument(
                "delta (bucket width) must be at least 1".into(),
            ))
        }
        Some(d) => d,
        None => super::obim::auto_delta::<P>(g, source),
    };
    let (mut result, threads) = in_pool(opts.threads, || run_in_pool::<P>(g, source, delta))?;
    result.report.threads = threads;
    Ok(result)
}

fn run_in_pool<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    delta: u64,
) -> RunResult<P::State> {
    let t0 = Instant::now();
    let n = g.num_vertices();
    let cells = init_cells::<P>(n, source);
    let bucket = |s: P::State| (u64::from(P::priority(s)) / delta) as u32;
    let workers = rayon::current_num_threads().max(1);
    let bins: Vec<Mutex<Bins>> = (0..workers).map(|_| Mutex::new(Bins::new())).collect();
    let clamped = AtomicBool::new(false);
    // The first frontier: everything that starts active, in the lowest bucket it needs.
    let mut far: Vec<u32> = if P::NEEDS_SOURCE {
        vec![source]
    } else {
        (0..n as u32).collect()
    };
    let mut frontier: Vec<u32> = Vec::new();
    let mut cur = far
        .iter()
        .map(|&v| bucket(P::State::load(&cells[v as usize])))
        .min()
        .unwrap_or(0);
    let mut rounds = 0u64;
    let mut buckets = 0u64;
    let csr = g.csr();
    let offsets = csr.offsets();
    let all_targets = csr.targets();
    let all_weights = if P::WEIGHTED { csr.weights() } else { None };
    loop {
        if !far.is_empty() {
            // Re-bin the far list (and the start) relative to the current bucket.
            let mut w0 = lock(&bins[0]);
            for v in far.drain(..) {
                let b = bucket(P::State::load(&cells[v as usize])).max(cur);
                w0.push(b, cur, v);
            }
        }
        // Gather bin `cur` from every worker; if all are empty move to the next.
        frontier.clear();
        let mut next_cur = None;
        for b in &bins {
            let mut b = lock(b);
            frontier.append(&mut b.ring[cur as usize % WINDOW]);
        }
        if frontier.is_empty() {
            // Lowest non-empty bin past `cur` within the window, over all workers.
            'scan: for off in 1..WINDOW as u32 {
                let idx = cur.saturating_add(off);
                for b in &bins {
                    if !lock(b).ring[idx as usize % WINDOW].is_empty() {
                        next_cur = Some(idx);
                        break 'scan;
                    }
                }
            }
            match next_cur {
                Some(idx) => {
                    cur = idx;
                    buckets += 1;
                    continue;
                }
                None => {
                    for b in &bins {
                        far.append(&mut lock(b).far);
                    }
                    if far.is_empty() {
                        break;
                    }
                    cur = far
                        .iter()
                        .map(|&v| bucket(P::State::load(&cells[v as usize])))
                        .min()
                        .unwrap_or(cur)
                        .max(cur);
                    buckets += 1;
                    continue;
                }
            }
        }
        rounds += 1;
        let k = cur;
        // Relaxes `u`'s out-edges if its task in bin `k` is not stale.
        let process = |u: u32, skip_low: bool, bins_here: &mut Bins, c: &mut Counters| {
            c.tasks += 1;
            let s = P::State::load(&cells[u as usize]);
            let b = bucket(s);
            if b > k || (skip_low && b < k) {
                c.stale += 1;
                return;
            }
            let lo = offsets[u as usize] as usize;
            let hi = offsets[u as usize + 1] as usize;
            let targets = &all_targets[lo..hi];
            let weights = all_weights.map(|w| &w[lo..hi]);
            c.edges += targets.len() as u64;
            for (e, &v) in targets.iter().enumerate() {
                let w = weights.map_or(<P::Weight as Weight>::ONE, |w| w[e]);
                let Some(cand) = P::relax(s, w) else {
                    continue;
                };
                let cell = &cells[v as usize];
                let old = P::State::load(cell);
                if combine::<P>(old, cand) == old {
                    continue;
                }
                let old = P::State::fetch_combine(cell, P::COMBINE, cand, P::combine);
                let new = combine::<P>(old, cand);
                if new != old {
                    c.updates += 1;
                    let nb = bucket(new);
                    if nb < k {
                        clamped.store(true, Ordering::Release);
                    }
                    bins_here.push(nb.max(k), k, v);
                }
            }
        };
        let skip_low = !clamped.load(Ordering::Acquire);
        frontier.par_chunks(GRAIN).for_each(|chunk| {
            let me = rayon::current_thread_index().unwrap_or(0) % workers;
            let mut mine = lock(&bins[me]);
            let bins_here = &mut *mine;
            let mut c = Counters::default();
            for &u in chunk {
                process(u, skip_low, bins_here, &mut c);
            }
            // gapbs's bin fusion: a small local bin for the current bucket is
            // drained here and now instead of waiting for the next pass. The
            // clamp flag is re-read: this worker may just have set it.
            let slot = k as usize % WINDOW;
            let mut batch = Vec::new();
            while !bins_here.ring[slot].is_empty() && bins_here.ring[slot].len() < FUSE_BELOW {
                std::mem::swap(&mut batch, &mut bins_here.ring[slot]);
                let skip_low = !clamped.load(Ordering::Acquire);
                for &u in &batch {
                    process(u, skip_low, bins_here, &mut c);
                }
                batch.clear();
            }
            bins_here.c += c;
        });
    }
    let mut total = Counters::default();
    for b in &bins {
        total += lock(b).c;
    }
    let states = unload::<P::State>(&cells);
    let report = RunReport {
        schedule: Some(Schedule::Obim),
        time: t0.elapsed(),
        rounds,
        edges_relaxed: total.edges,
        updates: total.updates,
        tasks: total.tasks,
        stale_tasks: total.stale,
        bucket_switches: buckets,
        delta: Some(delta),
        packages: 1,
        ..RunReport::default()
    };
    RunResult { states, report }
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
            for threads in [1, 2, 3] {
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
