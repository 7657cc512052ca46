//! Direction-optimizing traversal, host side: the level loop that picks top-down or
//! bottom-up per level, and its two executors (the GPU, and the same kernel bodies
//! emulated on the host for CI). The kernels are `kernels_rs::direction`.
//!
//! The switch follows Beamer's heuristic as gapbs does (with its own α): go bottom-up when the frontier's
//! out-edges exceed the still unexplored edges / [`ALPHA`]; go back to top-down once
//! the frontier shrinks and is at most `n / `[`BETA`]. Both counts come from the
//! level counters the kernels fill. `drive` reads them back after each level
//! (one small copy and a wait: a host round trip per level). `drive_planned`
//! instead launches `levels_per_sync` levels back to back and lets a one-thread
//! kernel ([`kernels_rs::direction::plan_level`]) make the same choice on the
//! device before each level; the level's kernels then run or return at once by
//! that plan, and the host reads all the levels' counters with one copy. The
//! choice itself is one function ([`kernels_rs::direction::choose_bottom_up`]) in
//! both loops.
//!
//! Bottom-up needs a *uniform* frontier (every frontier vertex offers the same
//! candidate): unweighted programs with a `min`/`max` combine run from one source.
//! The loop tracks that candidate on the host (`relax` of the previous one) and
//! hands it to the bottom-up kernel; any other idempotent program runs top-down
//! only: over the frontier work list while the frontier is small, and by a scan
//! of every edge chunk (`td_scan`, seed 000's edge chunks tested against the
//! frontier bitmap) once its out-edges exceed the graph's edges /
//! [`kernels_rs::direction::SCAN_RATIO`] (`DirectionRun::enable_scan`).
//!
//! Files: this one holds the level loop (`drive`, `drive_planned`) and the
//! executor traits; `buckets` the near-far loops; `run` the one executor
//! (`DirectionRun`, over the device's or the emulator's launcher); `kernels`
//! its kernels with their host bodies; `fits` the device memory check.

mod buckets;
mod fits;
mod kernels;
mod run;

use kernels_rs::direction::{
    choose_bottom_up, CTL_EDGES, CTL_FRONTIER, CTL_IN_EDGES, CTL_IN_VERTICES, CTL_MIN_PENDING,
    CTL_PLAN, CTL_SELECTED, CTL_WORDS, LEVEL_MAY_PULL, LEVEL_OVER, LEVEL_TOP_DOWN_ONLY,
    PLAN_BOTTOM_UP, PLAN_DONE,
};
use kernels_rs::entry;

use crate::error::{Error, Result};

pub use super::options::{Handover, Pull, TAIL_HANDOVER};
pub(crate) use buckets::drive_buckets_levels;
pub(crate) use kernels::DirectionKernels;
pub use kernels_rs::direction::{Heuristic, ALPHA, BETA};
pub(crate) use run::{DirGraph, DirectionRun};
/// Edges per top-down work item when none is asked for.
pub const DEFAULT_CHUNK: u64 = super::options::DIRECTION_CHUNK;

/// What one level did, for reports and plots.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LevelLog {
    /// Direction the level ran in.
    pub bottom_up: bool,
    /// Frontier vertices it expanded (or, bottom-up, looked for).
    pub frontier: u64,
    /// Their out-edges (top-down/bottom-up; 0 in bucketed passes).
    pub frontier_edges: u64,
    /// Bucketed traversal: the priority limit of the pass.
    pub bucket_limit: Option<u64>,
}

/// What one bucketed (near-far) pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pass {
    /// Pending vertices below the limit, expanded.
    pub selected: u64,
    /// Vertices that became pending (improved and not pending before).
    pub inserted: u64,
    /// Lowest priority still pending above the limit.
    pub min_pending: Option<u64>,
}

impl Pass {
    pub(crate) fn from_ctl(ctl: &[u64]) -> Pass {
        Pass {
            selected: ctl[CTL_SELECTED],
            inserted: ctl[CTL_FRONTIER],
            min_pending: (ctl[CTL_MIN_PENDING] != 0).then(|| (1u64 << 32) - ctl[CTL_MIN_PENDING]),
        }
    }
}

/// Size and out-degree of a frontier, as the kernels count it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FrontierSize {
    pub vertices: u64,
    pub edges: u64,
}

impl FrontierSize {
    /// The next frontier a level's counter block reports.
    pub(crate) fn from_ctl(ctl: &[u64]) -> FrontierSize {
        FrontierSize {
            vertices: ctl[CTL_FRONTIER],
            edges: ctl[CTL_EDGES],
        }
    }
}

/// What the loop needs from an executor (GPU or emulation).
pub(crate) trait DirectionExec<S> {
    /// Beamer's α and β for this run (the host loop's choice; planned levels
    /// pass the same to the device).
    fn heuristic(&self) -> Heuristic;
    /// Initial states (and parents); the frontier = `{source}` or, without a
    /// source, every vertex.
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize>;
    /// One top-down level: work list from the frontier, relax its edges.
    /// `candidate`: the frontier's uniform candidate when known (the kernel then
    /// does not read frontier states, which a partition may not hold).
    fn top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<S>,
    ) -> Result<FrontierSize>;
    /// One bottom-up level with the frontier's uniform candidate.
    fn bottom_up(&mut self, iter: u32, candidate: S) -> Result<FrontierSize>;
    /// One bucketed pass: expand the pending vertices with priority < `limit`
    /// (the frontier bitmap holds the pending set and is not swapped).
    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass>;
}

/// The level loop. `uniform` is the initial frontier's state when bottom-up is
/// allowed (one source, unweighted, min/max), `relax` the program's edge operator
/// on it; `max_levels` bounds the loop (a broken kernel must not hang the host).
pub(crate) fn drive<S: Copy>(
    exec: &mut impl DirectionExec<S>,
    n: u64,
    m: u64,
    source: Option<u32>,
    mut uniform: Option<S>,
    relax: impl Fn(S) -> Option<S>,
    handover: Option<Handover>,
) -> Result<(Vec<LevelLog>, bool)> {
    let mut frontier = exec.init(source)?;
    let mut unexplored = m;
    let mut bottom_up = false;
    let mut previous = 0u64;
    let mut log = Vec::new();
    let mut iter = 0u32;
    while frontier.vertices > 0 {
        if u64::from(iter) > n + 1 {
            return Err(Error::InvalidGraph(format!(
                "traversal did not end after {iter} levels on a graph of {n} vertices"
            )));
        }
        let candidate = match uniform {
            Some(s) => match relax(s) {
                Some(c) => Some(c),
                // The frontier offers nothing: the traversal is over.
                None => break,
            },
            None => None,
        };
        bottom_up = candidate.is_some()
            && choose_bottom_up(
                exec.heuristic(),
                bottom_up,
                frontier.vertices,
                frontier.edges,
                previous,
                unexplored,
                n,
            );
        let next = match (bottom_up, candidate) {
            (true, Some(c)) => exec.bottom_up(iter, c)?,
            _ => {
                unexplored = unexplored.saturating_sub(frontier.edges);
                exec.top_down(iter, frontier, candidate)?
            }
        };
        log.push(LevelLog {
            bottom_up,
            frontier: frontier.vertices,
            frontier_edges: frontier.edges,
            bucket_limit: None,
        });
        previous = frontier.vertices;
        frontier = next;
        uniform = candidate;
        iter += 1;
        if handover.is_some_and(|h| hand_over_now(&h, &log, frontier.vertices)) {
            return Ok((log, true));
        }
    }
    Ok((log, false))
}

/// What device-planned levels ([`drive_planned`]) need from an executor.
pub(crate) trait PlannedExec<S>: DirectionExec<S> {
    /// Starts a batch of `candidates.len()` levels (at least 2): room for their
    /// counter blocks, and their uniform candidates (`None`: the level has none).
    fn begin_batch(&mut self, candidates: &[Option<S>]) -> Result<()>;
    /// Enqueues level `iter`, slot `slot` of the batch: [`plan_level`]
    /// (`kernels_rs::direction::plan_level`) on the previous level's block (or
    /// on `first` at level 0), then both directions' kernels, which follow the
    /// plan. `level` is one of `LEVEL_*`.
    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()>;
    /// Enqueues bucketed pass `iter`, slot `slot` of the batch:
    /// `kernels_rs::direction::plan_pass` on the previous pass's block (or on
    /// `first_pending` / `first_limit` for the first pass), then `td_select`
    /// and the relax kernel, which follow the plan.
    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()>;
    /// Waits for the batch; the counter blocks of its levels, in slot order.
    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>>;
}

/// The level loop with the direction planned on the device (see the module
/// docs): the same levels, directions and results as [`drive`], with one host
/// wait per `per_sync` levels. Levels launched after the traversal ended are
/// planned as done and return at once. Returns the log and the number of waits.
pub(crate) fn drive_planned<S: Copy>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    source: Option<u32>,
    mut uniform: Option<S>,
    relax: impl Fn(S) -> Option<S>,
    per_sync: u32,
    handover: Option<Handover>,
) -> Result<(Vec<LevelLog>, u32, bool)> {
    let per_sync = per_sync.max(2);
    let first = exec.init(source)?;
    let mut log = Vec::new();
    let mut iter = 0u32;
    let mut syncs = 0u32;
    let mut over = false;
    loop {
        if u64::from(iter) > n + 1 {
            return Err(Error::InvalidGraph(format!(
                "traversal did not end after {iter} levels on a graph of {n} vertices"
            )));
        }
        // What the host knows of the batch's levels: their uniform candidates
        // (the chain of `relax` from the source's state) and whether it ended.
        let mut levels = Vec::with_capacity(per_sync as usize);
        let mut candidates = Vec::with_capacity(per_sync as usize);
        for _ in 0..per_sync {
            let (level, c) = match uniform {
                _ if over => (LEVEL_OVER, None),
                None => (LEVEL_TOP_DOWN_ONLY, None),
                Some(s) => match relax(s) {
                    Some(c) => {
                        uniform = Some(c);
                        (LEVEL_MAY_PULL, Some(c))
                    }
                    None => {
                        over = true;
                        (LEVEL_OVER, None)
                    }
                },
            };
            levels.push(level);
            candidates.push(c);
        }
        exec.begin_batch(&candidates)?;
        for (slot, &level) in levels.iter().enumerate() {
            exec.enqueue_level(iter + slot as u32, slot as u32, level, first)?;
        }
        let blocks = exec.finish_batch()?;
        syncs += 1;
        iter += per_sync;
        let mut done = false;
        for b in &blocks {
            if b[CTL_PLAN] == PLAN_DONE {
                done = true;
                break;
            }
            log.push(LevelLog {
                bottom_up: b[CTL_PLAN] == PLAN_BOTTOM_UP,
                frontier: b[CTL_IN_VERTICES],
                frontier_edges: b[CTL_IN_EDGES],
                bucket_limit: None,
            });
        }
        let next = blocks.last().map_or(0, |b| b[CTL_FRONTIER]);
        if done || next == 0 {
            return Ok((log, syncs, false));
        }
        if handover.is_some_and(|h| hand_over_now(&h, &log, next)) {
            return Ok((log, syncs, true));
        }
    }
}

/// [`drive`] when `levels_per_sync` is 1, else [`drive_planned`]: the log and
/// the number of host waits.
pub(crate) fn drive_levels<S: Copy>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    m: u64,
    source: Option<u32>,
    uniform: Option<S>,
    relax: impl Fn(S) -> Option<S>,
    levels_per_sync: u32,
) -> Result<(Vec<LevelLog>, u32)> {
    let (log, syncs, _) =
        drive_levels_until(exec, n, m, source, uniform, relax, levels_per_sync, None)?;
    Ok((log, syncs))
}

/// [`drive_levels`] that stops early when `handover` says the rest belongs to
/// the resident kernel: the log, the host waits, and whether it stopped so (the
/// executor's current frontier bitmap then holds the next level's vertices).
#[allow(clippy::too_many_arguments)]
pub(crate) fn drive_levels_until<S: Copy>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    m: u64,
    source: Option<u32>,
    uniform: Option<S>,
    relax: impl Fn(S) -> Option<S>,
    levels_per_sync: u32,
    handover: Option<Handover>,
) -> Result<(Vec<LevelLog>, u32, bool)> {
    if levels_per_sync > 1 {
        drive_planned(exec, n, source, uniform, relax, levels_per_sync, handover)
    } else {
        let (log, stopped) = drive(exec, n, m, source, uniform, relax, handover)?;
        let syncs = log.len() as u32;
        Ok((log, syncs, stopped))
    }
}

/// Whether a level loop with `h` stops now, after the levels in `log`, with
/// `next` vertices in the next frontier.
pub(crate) fn hand_over_now(h: &Handover, log: &[LevelLog], next: u64) -> bool {
    next > 0
        && next <= h.frontier
        && log.len() >= h.levels
        && log[log.len() - h.levels..]
            .iter()
            .all(|l| l.frontier <= h.frontier)
}

/// One level's counter block as read back (`CTL_WORDS` words).
fn counter_block(words: &[u64]) -> [u64; CTL_WORDS] {
    let mut b = [0u64; CTL_WORDS];
    b.copy_from_slice(words);
    b
}

/// Bitmap with the initial frontier: `source`'s bit, or every vertex.
fn initial_bits(n: u64, source: Option<u32>) -> Vec<u32> {
    let words = entry::bitmap_words(n) as usize;
    match source {
        Some(s) => {
            let mut b = vec![0u32; words];
            b[s as usize / 32] = 1 << (s % 32);
            b
        }
        None => {
            let mut b = vec![u32::MAX; words];
            if n % 32 != 0 {
                if let Some(last) = b.last_mut() {
                    *last = (1u32 << (n % 32)) - 1;
                }
            }
            b
        }
    }
}

/// The vertices below `n` whose bits are set in `words`, in increasing order
/// (a frontier bitmap as a queue, for the resident kernel after a handover).
pub(crate) fn set_bits(words: &[u32], n: u64) -> Vec<u32> {
    let mut ids = Vec::new();
    for (i, &w) in words.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            let v = i as u64 * 32 + u64::from(w.trailing_zeros());
            if v >= n {
                return ids;
            }
            ids.push(v as u32);
            w &= w - 1;
        }
    }
    ids
}

pub(crate) fn initial_size(offsets: &[u64], source: Option<u32>) -> FrontierSize {
    let n = offsets.len().saturating_sub(1);
    match source {
        Some(s) => FrontierSize {
            vertices: 1,
            edges: offsets[s as usize + 1] - offsets[s as usize],
        },
        None => FrontierSize {
            vertices: n as u64,
            edges: offsets[n],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_bitmaps() {
        assert_eq!(initial_bits(40, Some(33)), vec![0, 2]);
        assert_eq!(initial_bits(40, None), vec![u32::MAX, 0xff]);
        assert_eq!(initial_bits(64, None), vec![u32::MAX, u32::MAX]);
    }

    #[test]
    fn bitmap_to_queue() {
        assert_eq!(
            set_bits(&[0b1010, 1 << 31, 0b111], 66),
            vec![1, 3, 63, 64, 65]
        );
        assert_eq!(set_bits(&[], 0), Vec::<u32>::new());
    }

    fn level(frontier: u64) -> LevelLog {
        LevelLog {
            bottom_up: false,
            frontier,
            frontier_edges: 0,
            bucket_limit: None,
        }
    }

    #[test]
    fn handover_waits_for_a_run_of_small_levels() {
        let h = Handover {
            levels: 3,
            frontier: 10,
        };
        let log: Vec<LevelLog> = [1, 5000, 4, 2].into_iter().map(level).collect();
        assert!(!hand_over_now(&h, &log, 3), "only two small levels so far");
        let log: Vec<LevelLog> = [1, 5000, 4, 2, 7].into_iter().map(level).collect();
        assert!(hand_over_now(&h, &log, 3));
        assert!(!hand_over_now(&h, &log, 0), "the traversal is over");
        assert!(!hand_over_now(&h, &log, 11), "the next level is large");
        assert!(!hand_over_now(&h, &log[..2], 1));
    }
}
