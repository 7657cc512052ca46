//! CPU engines on rayon. Every engine runs any [`VertexProgram`] unchanged.
//!
//! * [`sync`]: level-synchronous rounds (BSP), push or pull, with Beamer-style
//!   direction switching when the program allows it.
//! * [`steal`]: asynchronous worklist, Galois-style chunked bags ([`bag`]) with
//!   topology-aware work stealing ([`topology`]).
//! * [`obim`]: ordered-by-integer-metric soft priorities; delta-stepping.
//! * [`termination`]: how the asynchronous engines know they are done.
//!
//! [`run`] dispatches on a [`Schedule`].
//!
//! [`VertexProgram`]: crate::program::VertexProgram

pub mod auto;
pub mod bag;
pub mod barrier;
pub mod batched;
pub mod brandes;
pub mod delta;
pub mod frontier;
pub mod gather;
pub mod gather_async;
mod level;
pub mod msbfs;
pub mod narrow;
pub mod obim;
pub mod operator;
mod prefetch;
mod recycle;
pub mod steal;
pub mod sync;
pub mod termination;
pub mod topology;
pub mod tree;

use std::time::Duration;

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::program::{AtomicState, Schedule, VertexProgram};

/// What a run did, for reports and `vertex compare`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RunReport {
    pub schedule: Option<Schedule>,
    pub threads: usize,
    /// Wall time of the traversal itself (no graph loading).
    pub time: Duration,
    /// Rounds (sync) or priority buckets drained (obim).
    pub rounds: u64,
    /// Edges whose `relax` was evaluated.
    pub edges_relaxed: u64,
    /// Arrivals that changed a vertex's state.
    pub updates: u64,
    /// Rounds run bottom-up (pull).
    pub pull_rounds: u64,
    /// Tasks popped (async/obim), stale ones included.
    pub tasks: u64,
    /// Tasks skipped because their vertex had improved since they were queued.
    pub stale_tasks: u64,
    /// Chunks taken from another package's queue.
    pub steals: u64,
    /// Chunks published to shared queues.
    pub chunks: u64,
    /// Times a worker moved to another priority bucket (obim).
    pub bucket_switches: u64,
    /// Bucket width Δ in priority units (obim).
    pub delta: Option<u64>,
    /// Packages of the topology the workers were spread over (async/obim).
    pub packages: usize,
    /// The topology as `PxC` (async/obim).
    pub topology: Option<String>,
    /// Tasks per chunk (async/obim).
    pub chunk: Option<usize>,
}

/// Per-vertex results plus the report.
pub struct RunResult<S> {
    pub states: Vec<S>,
    pub report: RunReport,
}

/// Knobs shared by the CPU engines.
#[derive(Clone, Debug)]
pub struct CpuOptions {
    /// Worker threads (default: rayon's global pool).
    pub threads: Option<usize>,
    /// Direction policy for sync rounds.
    pub direction: Direction,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            threads: None,
            direction: Direction::Auto,
        }
    }
}

/// Knobs of the asynchronous engines (async, obim), and pinning for every
/// engine [`run`] dispatches to. Kept apart from [`CpuOptions`] so that code
/// building `CpuOptions` literally keeps compiling.
#[derive(Clone, Debug)]
pub struct AsyncOptions {
    /// Packages to spread workers over; `None`: `VERTEX_TOPOLOGY` or the OS.
    pub topology: Option<topology::Topology>,
    /// Tasks per chunk (8–64 is the useful range).
    pub chunk: usize,
    /// obim bucket width Δ in priority units; `None`: derived from the weights.
    pub delta: Option<u64>,
    /// Pin each worker to one CPU (the level-synchronous engine's pool too,
    /// through [`run`]). Default: [`pin_default`] (the `VERTEX_PIN`
    /// environment variable; off unless set).
    pub pin: bool,
}

impl Default for AsyncOptions {
    fn default() -> Self {
        AsyncOptions {
            topology: None,
            chunk: bag::DEFAULT_CHUNK,
            delta: None,
            pin: pin_default(),
        }
    }
}

/// Whether workers are pinned when nobody says: `VERTEX_PIN=1` (or `true`,
/// `on`, `yes`) turns it on. Off by default: on a 2-core machine shared with
/// other builds it measured no better overall (BFS Kronecker 20, one thread:
/// 43.7 ms pinned vs 52.2; 1000² grid: 65.8 vs 54.1; SSSP within noise) — a
/// pinned worker cannot move off a core another process is using. `vertex
/// bench-cpu` runs `pinned` variants next to the others, so a dedicated host's
/// run says whether to turn it on there.
pub fn pin_default() -> bool {
    matches!(
        std::env::var("VERTEX_PIN").as_deref().map(str::trim),
        Ok("1" | "true" | "on" | "yes")
    )
}

/// Runs `P` under `schedule`. Schedules the program does not allow (e.g. async for
/// a non-idempotent `sum`, obim without a `priority`) are refused with
/// [`Error::InvalidArgument`] saying why.
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    schedule: Schedule,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    match schedule {
        Schedule::Sync => {
            operator::check_schedule::<P>(schedule)?;
            sync::run_pinned::<P>(g, source, opts, aopts.pin)
        }
        Schedule::Async => steal::run::<P>(g, source, opts, aopts),
        Schedule::Obim => obim::run_ordered::<P>(g, source, opts, aopts),
    }
}

/// Push (top-down), pull (bottom-up), or switch by Beamer's heuristic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Push,
    Pull,
    Auto,
}

/// The worker count a CPU run given `threads` uses: that count, else the size of
/// rayon's global pool (all cores, or `RAYON_NUM_THREADS`). For reports of runs
/// whose engine does not return its own count.
pub fn threads_for(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(rayon::current_num_threads)
}

/// Runs `f` in a pool of `threads` workers (or the global pool): the pools
/// the engines use, kept per process, for parallel code outside them too
/// (the Python backend's own loops).
pub fn in_pool<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<(R, usize)> {
    in_pool_pinned(threads, false, f)
}

/// [`in_pool`], in a pool whose workers are pinned one per CPU if `pin` (the
/// placement of the asynchronous engines: [`topology::Topology::place`]).
pub(crate) fn in_pool_pinned<R: Send>(
    threads: Option<usize>,
    pin: bool,
    f: impl FnOnce() -> R + Send,
) -> Result<(R, usize)> {
    match (threads, pin) {
        // On a worker of the global pool, not on the caller's thread: a
        // parallel call made from outside a pool is injected into it and the
        // caller sleeps until it is done, a futex wake-up per call — per round
        // for the round-based engines (widest on a 100,000-vertex chain: 1.5 s
        // from the caller's thread, 0.3 s from a worker, on 2 cores).
        (None, false) => Ok((rayon::scope(|_| f()), rayon::current_num_threads())),
        (Some(0), _) => Err(Error::InvalidArgument(
            "threads must be at least 1 (got 0)".into(),
        )),
        (t, _) => {
            let t = threads_for(t);
            Ok((pool(t, pin)?.install(f), t))
        }
    }
}

/// The pool of `t` threads (pinned or not), built once per process and kept.
///
/// A run in a freshly built pool wakes cold threads inside its timed region, and a
/// caller looping over roots (a benchmark, Graph500's 64 roots) paid that on every
/// run; the kept pools sleep between runs. At most one pool per (thread count,
/// pinning) asked for.
pub(crate) fn pool(t: usize, pin: bool) -> Result<std::sync::Arc<rayon::ThreadPool>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock, PoisonError};
    type Pools = HashMap<(usize, bool), Arc<rayon::ThreadPool>>;
    static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = pools.get(&(t, pin)) {
        return Ok(Arc::clone(p));
    }
    let mut b = rayon::ThreadPoolBuilder::new().num_threads(t);
    if pin {
        let cpus: Vec<usize> = topology::Topology::system()?
            .place(t)
            .into_iter()
            .map(|(_, cpu)| cpu)
            .collect();
        b = b.start_handler(move |i| {
            topology::pin_current_thread(cpus[i % cpus.len()]);
        });
    }
    let p = Arc::new(
        b.build()
            .map_err(|e| Error::InvalidArgument(format!("cannot start {t} threads: {e}")))?,
    );
    pools.insert((t, pin), Arc::clone(&p));
    Ok(p)
}

/// A program that reads edge weights refuses a graph without them, as the GPU
/// runs do: it would otherwise run with every weight 1 and say nothing.
pub(crate) fn check_weights<P: crate::program::VertexProgram>(
    g: &crate::graph::Graph<P::Weight>,
) -> Result<()> {
    if P::WEIGHTED && !g.csr().is_weighted() && g.num_edges() > 0 {
        return Err(crate::program::weights_missing(P::NAME));
    }
    Ok(())
}

/// The final states, out of their atomic cells ([`AtomicState::into_values`]:
/// in place for the built-in states).
pub(crate) fn unload<S: AtomicState>(cells: Vec<S::Atomic>) -> Vec<S> {
    S::into_values(cells)
}
