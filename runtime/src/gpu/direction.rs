//! Direction-optimizing traversal, host side: the level loop that picks top-down or
//! bottom-up per level, and its two executors (the GPU, and the same kernel bodies
//! emulated on the host for CI). The kernels are `kernels_rs::direction`.
//!
//! The switch follows gapbs (Beamer's heuristic): go bottom-up when the frontier's
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
//! only, still over the frontier work list rather than a scan of all edges.

use std::time::Instant;

use cudarc::driver::{CudaEvent, CudaFunction, PushKernelArg};
use kernels_rs::direction::{
    choose_bottom_up, chunk_capacity, CTL_CHUNKS, CTL_EDGES, CTL_FRONTIER, CTL_IN_EDGES,
    CTL_IN_VERTICES, CTL_LIMIT, CTL_MIN_PENDING, CTL_PENDING, CTL_PLAN, CTL_SELECTED, CTL_WORDS,
    LEVEL_MAY_PULL, LEVEL_OVER, LEVEL_TOP_DOWN_ONLY, PLAN_BOTTOM_UP, PLAN_DONE, PLAN_STUCK,
};
use kernels_rs::entry;

use super::bfs::DeviceGraph;
use super::cuda::{cuda_err, DevBuf, Gpu};
use super::emulate::{emulated_grid, launch, SharedPtr};
use crate::error::{Error, Result};

pub use kernels_rs::direction::{ALPHA, BETA};
/// Edges per top-down work item when none is asked for.
pub const DEFAULT_CHUNK: u64 = 32;

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

/// The bucketed (near-far) loop, Davidson et al.'s "near-far" form of
/// Δ-stepping: pass after pass expands the pending vertices whose priority is below
/// the limit (re-improved ones come back in the next pass), and when none is left
/// below it the limit jumps to the lowest pending priority + `delta`.
pub(crate) fn drive_buckets<S>(
    exec: &mut impl DirectionExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
) -> Result<Vec<LevelLog>> {
    let delta = delta.max(1);
    let mut pending = exec.init(source)?.vertices;
    let mut limit = first_priority.saturating_add(delta);
    let mut log = Vec::new();
    let mut iter = 0u32;
    // Label-correcting passes are bounded by the number of improvements; this only
    // stops a broken kernel from hanging the host.
    let max_passes = n.saturating_mul(64).saturating_add(1024);
    while pending > 0 {
        if u64::from(iter) > max_passes {
            return Err(Error::InvalidGraph(format!(
                "bucketed traversal did not end after {iter} passes on {n} vertices"
            )));
        }
        let pass = exec.near_far(iter, limit)?;
        if pass.selected > pending {
            return Err(Error::InvalidGraph(format!(
                "bucketed pass took {} vertices of {pending} pending",
                pass.selected
            )));
        }
        log.push(LevelLog {
            bottom_up: false,
            frontier: pass.selected,
            frontier_edges: 0,
            bucket_limit: Some(limit),
        });
        pending = pending - pass.selected + pass.inserted;
        iter += 1;
        if pass.selected == 0 {
            match pass.min_pending {
                Some(p) => limit = p.saturating_add(delta).max(limit + 1),
                None => {
                    return Err(Error::InvalidGraph(format!(
                        "{pending} vertices pending but none found in the bitmap"
                    )))
                }
            }
        }
    }
    Ok(log)
}

/// How the loop may move between directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pull {
    /// Beamer's heuristic (when the program and graph allow bottom-up).
    Auto,
    /// Top-down only (to measure what bottom-up brings).
    Never,
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
) -> Result<Vec<LevelLog>> {
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
    }
    Ok(log)
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

/// [`drive_buckets`] with each pass planned on the device
/// (`kernels_rs::direction::plan_pass`): the same passes, limits and results,
/// one host wait per `per_sync` passes. Returns the log and the number of waits.
pub(crate) fn drive_buckets_planned<S>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
    per_sync: u32,
) -> Result<(Vec<LevelLog>, u32)> {
    let per_sync = per_sync.max(2);
    let delta = delta.max(1);
    let pending = exec.init(source)?.vertices;
    let limit = first_priority.saturating_add(delta);
    let max_passes = n.saturating_mul(64).saturating_add(1024);
    let mut log = Vec::new();
    let (mut iter, mut syncs) = (0u32, 0u32);
    let none: Vec<Option<S>> = (0..per_sync).map(|_| None).collect();
    loop {
        if u64::from(iter) > max_passes {
            return Err(Error::InvalidGraph(format!(
                "bucketed traversal did not end after {iter} passes on {n} vertices"
            )));
        }
        exec.begin_batch(&none)?;
        for slot in 0..per_sync {
            exec.enqueue_pass(iter + slot, slot, pending, limit, delta)?;
        }
        let blocks = exec.finish_batch()?;
        syncs += 1;
        iter += per_sync;
        for b in &blocks {
            match b[CTL_PLAN] {
                PLAN_DONE => return Ok((log, syncs)),
                PLAN_STUCK => {
                    return Err(Error::InvalidGraph(format!(
                        "bucketed pass found {} vertices pending but none in the bitmap \
                         (or took more than were pending)",
                        b[CTL_PENDING]
                    )))
                }
                _ => log.push(LevelLog {
                    bottom_up: false,
                    frontier: b[CTL_SELECTED],
                    frontier_edges: 0,
                    bucket_limit: Some(b[CTL_LIMIT]),
                }),
            }
        }
        let last = blocks.last().copied().unwrap_or([0; CTL_WORDS]);
        if last[CTL_PENDING].saturating_sub(last[CTL_SELECTED]) + last[CTL_FRONTIER] == 0 {
            return Ok((log, syncs));
        }
    }
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
) -> Result<(Vec<LevelLog>, u32)> {
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
        if done || blocks.last().is_none_or(|b| b[CTL_FRONTIER] == 0) {
            return Ok((log, syncs));
        }
    }
}

/// [`drive_buckets`] when `levels_per_sync` is 1, else
/// [`drive_buckets_planned`]: the log and the number of host waits.
pub(crate) fn drive_buckets_levels<S>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
    levels_per_sync: u32,
) -> Result<(Vec<LevelLog>, u32)> {
    if levels_per_sync > 1 {
        drive_buckets_planned(exec, n, source, first_priority, delta, levels_per_sync)
    } else {
        let log = drive_buckets(exec, n, source, first_priority, delta)?;
        let syncs = log.len() as u32;
        Ok((log, syncs))
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
    if levels_per_sync > 1 {
        drive_planned(exec, n, source, uniform, relax, levels_per_sync)
    } else {
        let log = drive(exec, n, m, source, uniform, relax)?;
        let syncs = log.len() as u32;
        Ok((log, syncs))
    }
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

/// A program's direction-optimizing kernels in a loaded module.
pub(crate) struct DirectionKernels<'a> {
    /// `init(n, source, state, parents)` of `kernels_rs::ptx_kernels!`.
    pub init: &'a CudaFunction,
    pub td_chunks: &'a CudaFunction,
    pub td_select: &'a CudaFunction,
    pub td_relax: &'a CudaFunction,
    pub bottom_up: &'a CudaFunction,
    /// `plan_level(prev, cur, n, m, first_vertices, first_edges, level)`, the
    /// program-independent kernel of device-planned levels.
    pub plan: &'a CudaFunction,
    /// `plan_pass(prev, cur, first_pending, first_limit, delta)`, the same for
    /// bucketed passes.
    pub plan_pass: &'a CudaFunction,
    /// Kernel name prefix, for error messages.
    pub name: &'a str,
}

/// Device buffers and timing of one direction-optimizing run.
pub(crate) struct GpuDirection<'a> {
    gpu: &'a Gpu,
    k: DirectionKernels<'a>,
    g: &'a DeviceGraph,
    block: u32,
    chunk: u64,
    /// Device pointers of the state and parents (0 = none) arrays.
    state: u64,
    parents: u64,
    bits: [DevBuf<u32>; 2],
    chunks: DevBuf<u64>,
    capacity: u64,
    ctl: DevBuf<u64>,
    candidate: DevBuf<u8>,
    state_size: usize,
    /// Device-planned levels: one counter block and one candidate per level of a
    /// batch (allocated by the first batch).
    batch: Option<Batch>,
    /// Device pointer of the whole graph's offsets when `g` is a partition (0 =
    /// `g`'s own), for the next-frontier degree tally.
    pub degree_offsets: u64,
    pub start: Option<CudaEvent>,
    pub levels: Vec<(CudaEvent, CudaEvent)>,
    pub end: Option<CudaEvent>,
}

impl<'a> GpuDirection<'a> {
    /// The GPU this part runs on.
    pub(crate) fn gpu(&self) -> &'a Gpu {
        self.gpu
    }

    /// Device bytes [`Self::new`] allocates for a graph with `n` vertices and `m`
    /// edges (checked against free memory before anything is allocated).
    pub fn bytes(n: u64, m: u64, chunk: u64, state_size: usize) -> u64 {
        let words = entry::bitmap_words(n) as usize;
        2 * DevBuf::<u32>::bytes_for(words)
            + DevBuf::<u64>::bytes_for(chunk_capacity(n, m, chunk) as usize)
            + DevBuf::<u64>::bytes_for(CTL_WORDS)
            + DevBuf::<u8>::bytes_for(state_size)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &'a Gpu,
        k: DirectionKernels<'a>,
        g: &'a DeviceGraph,
        chunk: u64,
        block: u32,
        state: u64,
        parents: u64,
        state_size: usize,
    ) -> Result<Self> {
        if chunk == 0 {
            return Err(Error::InvalidArgument(
                "edges per chunk must be at least 1".into(),
            ));
        }
        let capacity = chunk_capacity(g.n, g.m, chunk);
        let words = entry::bitmap_words(g.n) as usize;
        Ok(GpuDirection {
            gpu,
            k,
            g,
            // The relax and bottom-up kernels vote and sum across whole warps, so
            // every block is a multiple of 32 threads (1024, the largest block,
            // is one).
            block: block.next_multiple_of(32),
            chunk,
            state,
            parents,
            bits: [
                gpu.alloc::<u32>(words, "frontier bitmap")?,
                gpu.alloc::<u32>(words, "frontier bitmap")?,
            ],
            chunks: gpu.alloc::<u64>(capacity as usize, "top-down work list")?,
            capacity,
            ctl: gpu.alloc::<u64>(CTL_WORDS, "level counters")?,
            candidate: gpu.alloc::<u8>(state_size, "frontier candidate")?,
            state_size,
            batch: None,
            degree_offsets: 0,
            start: None,
            levels: Vec::new(),
            end: None,
        })
    }

    /// Clears the next bitmap and the counters (stream-ordered).
    fn clear_next(&mut self) -> Result<()> {
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.bits[1].slice)
            .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
        s.memset_zeros(&mut self.ctl.slice)
            .map_err(cuda_err("cuMemsetD8(level counters)"))
    }

    /// Threads of a kernel that scans the bitmap by `WORDS_PER_THREAD` words.
    fn word_threads(&self) -> u64 {
        entry::bitmap_words(self.g.n).div_ceil(kernels_rs::direction::WORDS_PER_THREAD)
    }

    /// Launches `td_relax` over the work list into bitmap `next`, with a grid for
    /// at most `work` chunks.
    /// `ctl`: the level's counter block.
    fn relax(&self, iter: u32, next: u64, work: u64, candidate: u64, ctl: u64) -> Result<()> {
        let (n, m, offsets, targets) = (self.g.n, self.g.m, self.g.offsets.ptr, self.g.targets.ptr);
        let weights = self.g.weights.as_ref().map_or(0, |w| w.ptr);
        let (state, parents) = (self.state, self.parents);
        let (chunks, capacity, chunk) = (self.chunks.ptr, self.capacity, self.chunk);
        let mut b = self.gpu.stream.launch_builder(self.k.td_relax);
        b.arg(&n)
            .arg(&m)
            .arg(&offsets)
            .arg(&targets)
            .arg(&weights)
            .arg(&state)
            .arg(&parents)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&chunk)
            .arg(&next)
            .arg(&ctl)
            .arg(&iter)
            .arg(&self.degree_offsets)
            .arg(&candidate);
        let grid = self
            .gpu
            .resident_grid(work.clamp(1, capacity.max(1)), self.block);
        // SAFETY: `td_relax(n, m, offsets, targets, weights, state, parents, chunks,
        // capacity, chunk, next, ctl, iter, degree_offsets, candidate)` of
        // kernels_rs::direction_kernels!; weights: m of the program's weight type
        // or null when unweighted; degree_offsets n + 1 or null; candidate one
        // state or null.
        unsafe { b.launch(grid) }.map_err(self.err("td_relax"))?;
        Ok(())
    }

    /// Waits for the level, reads its counters, swaps the bitmaps if `swap`.
    pub(crate) fn finish_level(&mut self, a: CudaEvent, swap: bool) -> Result<[u64; CTL_WORDS]> {
        let mut ctl = [0u64; CTL_WORDS];
        let b = self.gpu.record()?;
        self.gpu
            .stream
            .memcpy_dtoh(&self.ctl.slice, &mut ctl[..])
            .map_err(cuda_err("cuMemcpyDtoH(level counters)"))?;
        let e = self.gpu.record()?;
        self.gpu.sync(&format!("{} level", self.k.name))?;
        self.levels.push((a, b));
        self.end = Some(e);
        if swap {
            self.bits.swap(0, 1);
        }
        Ok(ctl)
    }

    fn err(&self, kernel: &str) -> impl FnOnce(cudarc::driver::DriverError) -> Error + '_ {
        let what = format!("cuLaunchKernel({}_{kernel})", self.k.name);
        move |e| cuda_err(&what)(e)
    }
}

/// Launch halves of the levels (no waiting), so that several GPUs can run a level
/// side by side before their exchange; [`GpuDirection::finish_level`] completes one.
impl GpuDirection<'_> {
    /// The bitmap a level writes (the next frontier; the pending set itself in a
    /// bucketed pass): what the multi-GPU exchange all-gathers.
    pub(crate) fn written_bits(&mut self, bucketed: bool) -> &mut DevBuf<u32> {
        &mut self.bits[if bucketed { 0 } else { 1 }]
    }

    /// Grows both bitmaps to `words` words (a multi-GPU exchange gathers equal
    /// slices, so its bitmaps are padded to `parts · words per part`).
    pub(crate) fn pad_bitmaps(&mut self, words: usize) -> Result<()> {
        if words > self.bits[0].len {
            self.bits = [
                self.gpu.alloc::<u32>(words, "frontier bitmap")?,
                self.gpu.alloc::<u32>(words, "frontier bitmap")?,
            ];
        }
        Ok(())
    }

    /// Offsets the next-frontier degree tally reads.
    fn tally_offsets(&self) -> u64 {
        if self.degree_offsets != 0 {
            self.degree_offsets
        } else {
            self.g.offsets.ptr
        }
    }

    pub(crate) fn launch_init(&mut self, source: Option<u32>) -> Result<()> {
        let n = self.g.n;
        match source {
            // One bit: cleared and set on the device rather than n/8 bytes uploaded
            // from the host inside the timed traversal (16 MB at Graph500 scale 27).
            Some(s) => {
                self.gpu
                    .stream
                    .memset_zeros(&mut self.bits[0].slice)
                    .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
                self.gpu.write_at(
                    &mut self.bits[0],
                    s as usize / 32,
                    &[1u32 << (s % 32)],
                    "frontier bitmap",
                )?;
            }
            None => {
                let bits = initial_bits(n, None);
                self.gpu
                    .write(&mut self.bits[0], &bits, "frontier bitmap")?;
            }
        }
        self.start = Some(self.gpu.record()?);
        let (state, parents) = (self.state, self.parents);
        let src = source.unwrap_or(u32::MAX);
        let mut b = self.gpu.stream.launch_builder(self.k.init);
        b.arg(&n).arg(&src).arg(&state).arg(&parents);
        // SAFETY: `init(n: u64, source: u32, state, parents)` of
        // kernels_rs::ptx_kernels!; state holds n states, parents n words or null.
        unsafe { b.launch(Gpu::grid_for(n, self.block)) }.map_err(self.err("init"))?;
        Ok(())
    }

    pub(crate) fn launch_top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<&[u8]>,
    ) -> Result<CudaEvent> {
        let cand = match candidate {
            Some(c) => {
                self.gpu
                    .write(&mut self.candidate, c, "frontier candidate")?;
                self.candidate.ptr
            }
            None => 0,
        };
        self.clear_next()?;
        let a = self.gpu.record()?;
        self.td_chunks(self.ctl.ptr)?;
        // At most this many chunks (Σ⌈deg/chunk⌉ over the frontier).
        let work = frontier.vertices + frontier.edges / self.chunk;
        self.relax(iter, self.bits[1].ptr, work, cand, self.ctl.ptr)?;
        Ok(a)
    }

    /// Launches `td_chunks` over the current frontier with counter block `ctl`.
    fn td_chunks(&self, ctl: u64) -> Result<()> {
        let (n, offsets, cur) = (self.g.n, self.g.offsets.ptr, self.bits[0].ptr);
        let (chunk, chunks, capacity) = (self.chunk, self.chunks.ptr, self.capacity);
        let mut b = self.gpu.stream.launch_builder(self.k.td_chunks);
        b.arg(&n)
            .arg(&offsets)
            .arg(&cur)
            .arg(&chunk)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&ctl);
        // SAFETY: `td_chunks(n, offsets, frontier, chunk, chunks, capacity, ctl)` of
        // kernels_rs::direction_kernels!; buffers of the documented lengths.
        unsafe { b.launch(Gpu::grid_for(self.word_threads(), self.block)) }
            .map_err(self.err("td_chunks"))?;
        Ok(())
    }

    pub(crate) fn launch_near_far(&mut self, iter: u32, limit: u64) -> Result<CudaEvent> {
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.ctl.slice)
            .map_err(cuda_err("cuMemsetD8(level counters)"))?;
        let a = self.gpu.record()?;
        self.select(limit, self.ctl.ptr)?;
        // The work list size is only known on the device: cover the whole bound.
        self.relax(iter, self.bits[0].ptr, self.capacity, 0, self.ctl.ptr)?;
        Ok(a)
    }

    /// Launches `td_select` over the pending bitmap with `limit` (a planned
    /// pass reads its limit from the block instead) and counter block `ctl`.
    fn select(&self, limit: u64, ctl: u64) -> Result<()> {
        let (n, offsets, pending) = (self.g.n, self.g.offsets.ptr, self.bits[0].ptr);
        let (state, chunk, chunks, capacity) =
            (self.state, self.chunk, self.chunks.ptr, self.capacity);
        let mut b = self.gpu.stream.launch_builder(self.k.td_select);
        b.arg(&n)
            .arg(&offsets)
            .arg(&state)
            .arg(&pending)
            .arg(&limit)
            .arg(&chunk)
            .arg(&chunks)
            .arg(&capacity)
            .arg(&ctl);
        // SAFETY: `td_select(n, offsets, state, pending, limit, chunk, chunks,
        // capacity, ctl)` of kernels_rs::direction_kernels!.
        unsafe { b.launch(Gpu::grid_for(self.word_threads(), self.block)) }
            .map_err(self.err("td_select"))?;
        Ok(())
    }

    pub(crate) fn launch_bottom_up(&mut self, candidate: &[u8]) -> Result<CudaEvent> {
        let (in_offsets, in_sources, m_in) = self.g.incoming().ok_or_else(|| {
            Error::InvalidArgument("bottom-up levels need the graph's in-edges".into())
        })?;
        self.gpu
            .write(&mut self.candidate, candidate, "frontier candidate")?;
        self.clear_next()?;
        let a = self.gpu.record()?;
        self.bottom_up_kernel(
            in_offsets,
            in_sources,
            m_in,
            self.candidate.ptr,
            self.ctl.ptr,
        )?;
        Ok(a)
    }

    /// Launches `bottom_up` from the current frontier with candidate `cand` (one
    /// state) and counter block `ctl`.
    fn bottom_up_kernel(
        &self,
        in_offsets: u64,
        in_sources: u64,
        m_in: u64,
        cand: u64,
        ctl: u64,
    ) -> Result<()> {
        let (n, out_offsets) = (self.g.n, self.tally_offsets());
        let (state, parents) = (self.state, self.parents);
        let (cur, next) = (self.bits[0].ptr, self.bits[1].ptr);
        let mut b = self.gpu.stream.launch_builder(self.k.bottom_up);
        b.arg(&n)
            .arg(&m_in)
            .arg(&in_offsets)
            .arg(&in_sources)
            .arg(&out_offsets)
            .arg(&state)
            .arg(&parents)
            .arg(&cur)
            .arg(&next)
            .arg(&cand)
            .arg(&ctl);
        // SAFETY: `bottom_up(n, m_in, in_offsets, in_sources, out_offsets, state,
        // parents, frontier, next, candidate, ctl)` of kernels_rs::direction_kernels!,
        // launched with whole warps (see `new`).
        unsafe { b.launch(self.gpu.resident_grid(n, self.block)) }
            .map_err(self.err("bottom_up"))?;
        Ok(())
    }
}

impl<S: bytemuck::Pod> DirectionExec<S> for GpuDirection<'_> {
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        self.launch_init(source)?;
        Ok(initial_size(&self.g.host_offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<S>,
    ) -> Result<FrontierSize> {
        let c = candidate.as_ref().map(bytemuck::bytes_of);
        let a = self.launch_top_down(iter, frontier, c)?;
        Ok(FrontierSize::from_ctl(&self.finish_level(a, true)?))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let a = self.launch_near_far(iter, limit)?;
        Ok(Pass::from_ctl(&self.finish_level(a, false)?))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: S) -> Result<FrontierSize> {
        let a = self.launch_bottom_up(bytemuck::bytes_of(&candidate))?;
        Ok(FrontierSize::from_ctl(&self.finish_level(a, true)?))
    }
}

impl GpuDirection<'_> {
    /// The batch, and the device pointers of the counter blocks of the level
    /// before `iter` (0 at level 0; the previous slot, wrapping around, since a
    /// batch always runs all its slots) and of `iter` itself (slot `slot`).
    fn batch_blocks(&self, iter: u32, slot: u32) -> Result<(&Batch, u64, u64)> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(Error::InvalidArgument(
                "a planned level enqueued before begin_batch".into(),
            ));
        };
        let block = |s: u32| batch.blocks.ptr + u64::from(s) * (CTL_WORDS * 8) as u64;
        let prev = if iter == 0 {
            0
        } else {
            block((slot + batch.slots - 1) % batch.slots)
        };
        Ok((batch, prev, block(slot)))
    }
}

/// Device buffers of a batch of device-planned levels.
struct Batch {
    /// One counter block per level of the batch (slot = level mod size).
    blocks: DevBuf<u64>,
    /// One candidate state per level of the batch (zeros where it has none).
    candidates: DevBuf<u8>,
    slots: u32,
    /// Which slots have a candidate.
    uniform: Vec<bool>,
}

impl<S: bytemuck::Pod> PlannedExec<S> for GpuDirection<'_> {
    fn begin_batch(&mut self, candidates: &[Option<S>]) -> Result<()> {
        let slots = candidates.len();
        if slots < 2 {
            return Err(Error::InvalidArgument(
                "device-planned levels need at least 2 levels per sync".into(),
            ));
        }
        if self
            .batch
            .as_ref()
            .is_none_or(|b| b.slots as usize != slots)
        {
            self.batch = Some(Batch {
                blocks: self
                    .gpu
                    .alloc::<u64>(slots * CTL_WORDS, "planned level counters")?,
                candidates: self
                    .gpu
                    .alloc::<u8>(slots * self.state_size, "planned level candidates")?,
                slots: slots as u32,
                uniform: Vec::new(),
            });
        }
        let mut bytes = vec![0u8; slots * self.state_size];
        for (dst, c) in bytes.chunks_exact_mut(self.state_size).zip(candidates) {
            if let Some(c) = c {
                dst.copy_from_slice(bytemuck::bytes_of(c));
            }
        }
        let Some(batch) = self.batch.as_mut() else {
            unreachable!("allocated above")
        };
        batch.uniform = candidates.iter().map(Option::is_some).collect();
        self.gpu
            .write(&mut batch.candidates, &bytes, "planned level candidates")
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        let (batch, prev, cur) = self.batch_blocks(iter, slot)?;
        let cand = if batch.uniform[slot as usize] {
            batch.candidates.ptr + u64::from(slot) * self.state_size as u64
        } else {
            0
        };
        let s = &self.gpu.stream;
        s.memset_zeros(&mut self.bits[1].slice)
            .map_err(cuda_err("cuMemsetD8(frontier bitmap)"))?;
        let a = self.gpu.record()?;
        let (n, m) = (self.g.n, self.g.m);
        let mut b = s.launch_builder(self.k.plan);
        b.arg(&prev)
            .arg(&cur)
            .arg(&n)
            .arg(&m)
            .arg(&first.vertices)
            .arg(&first.edges)
            .arg(&level);
        // SAFETY: `plan_level(prev, cur, n, m, first_vertices, first_edges, level)`
        // of kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe { b.launch(Gpu::grid_for(1, 32)) }.map_err(self.err("plan_level"))?;
        self.td_chunks(cur)?;
        // The work list's size is only known on the device: cover the bound
        // (the relax kernel is grid-stride over a resident grid).
        self.relax(iter, self.bits[1].ptr, self.capacity, cand, cur)?;
        // Bottom-up can only be planned where the level has a candidate; there
        // the kernel is launched every level and the plan says whether it works.
        if let (Some((in_offsets, in_sources, m_in)), true) = (self.g.incoming(), cand != 0) {
            self.bottom_up_kernel(in_offsets, in_sources, m_in, cand, cur)?;
        }
        let b = self.gpu.record()?;
        self.levels.push((a, b));
        self.bits.swap(0, 1);
        Ok(())
    }

    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()> {
        let (_, prev, cur) = self.batch_blocks(iter, slot)?;
        let a = self.gpu.record()?;
        let s = &self.gpu.stream;
        let mut b = s.launch_builder(self.k.plan_pass);
        b.arg(&prev)
            .arg(&cur)
            .arg(&first_pending)
            .arg(&first_limit)
            .arg(&delta);
        // SAFETY: `plan_pass(prev, cur, first_pending, first_limit, delta)` of
        // kernels_rs::plan_kernel!: prev null or another block of CTL_WORDS
        // counters (slots ≥ 2), cur CTL_WORDS counters.
        unsafe { b.launch(Gpu::grid_for(1, 32)) }.map_err(self.err("plan_pass"))?;
        self.select(u64::MAX, cur)?;
        // The work list's size is only known on the device: cover the bound.
        self.relax(iter, self.bits[0].ptr, self.capacity, 0, cur)?;
        let b = self.gpu.record()?;
        self.levels.push((a, b));
        Ok(())
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(Error::InvalidArgument(
                "finish_batch before begin_batch".into(),
            ));
        };
        let mut words = vec![0u64; batch.slots as usize * CTL_WORDS];
        self.gpu
            .stream
            .memcpy_dtoh(&batch.blocks.slice, &mut words[..])
            .map_err(cuda_err("cuMemcpyDtoH(planned level counters)"))?;
        let e = self.gpu.record()?;
        self.gpu.sync(&format!("{} planned levels", self.k.name))?;
        self.end = Some(e);
        Ok(words.chunks_exact(CTL_WORDS).map(counter_block).collect())
    }
}

/// The same kernels over host buffers (CI without a GPU).
pub(crate) struct HostDirection<'a, P: kernels_rs::Program> {
    pub offsets: &'a [u64],
    pub targets: &'a [u32],
    /// `m` weights of `P`'s weight type, or null when unweighted.
    pub weights: *const P::Weight,
    /// In-edges (`None` for a symmetric graph: the CSR itself).
    pub incoming: Option<(&'a [u64], &'a [u32])>,
    pub chunk: u64,
    pub block: u32,
    pub max_blocks: u32,
    pub state: &'a mut [P::State],
    pub parents: Option<&'a mut [u32]>,
    /// The whole graph's offsets when `offsets`/`targets` are a partition's.
    pub degree_offsets: Option<&'a [u64]>,
    bits: [Vec<u32>; 2],
    chunks: Vec<u64>,
    ctl: Vec<u64>,
    /// Host time of each level.
    pub level_ms: Vec<f64>,
    /// Device-planned levels: the batch's counter blocks and candidates.
    batch_blocks: Vec<Vec<u64>>,
    batch_candidates: Vec<Option<P::State>>,
}

impl<'a, P: kernels_rs::Program> HostDirection<'a, P> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        offsets: &'a [u64],
        targets: &'a [u32],
        weights: *const P::Weight,
        incoming: Option<(&'a [u64], &'a [u32])>,
        chunk: u64,
        block: u32,
        max_blocks: u32,
        state: &'a mut [P::State],
        parents: Option<&'a mut [u32]>,
    ) -> Result<Self> {
        if chunk == 0 {
            return Err(Error::InvalidArgument(
                "edges per chunk must be at least 1".into(),
            ));
        }
        let n = offsets.len().saturating_sub(1) as u64;
        let words = entry::bitmap_words(n) as usize;
        Ok(HostDirection {
            offsets,
            targets,
            weights,
            incoming,
            chunk,
            block,
            max_blocks: max_blocks.max(1),
            state,
            parents,
            degree_offsets: None,
            bits: [vec![0; words], vec![0; words]],
            chunks: vec![0; chunk_capacity(n, targets.len() as u64, chunk) as usize],
            ctl: vec![0; CTL_WORDS],
            level_ms: Vec::new(),
            batch_blocks: Vec::new(),
            batch_candidates: Vec::new(),
        })
    }

    fn n(&self) -> u64 {
        self.offsets.len().saturating_sub(1) as u64
    }

    /// The current frontier (or pending set) bitmap, for the multi-GPU exchange.
    pub(crate) fn frontier_words(&mut self) -> &mut [u32] {
        &mut self.bits[0]
    }

    fn grid(&self, work: u64) -> u32 {
        emulated_grid(work, self.block, self.max_blocks)
    }

    fn parents_ptr(&mut self) -> SharedPtr<u32> {
        SharedPtr(
            self.parents
                .as_deref_mut()
                .map_or(std::ptr::null_mut(), |p| p.as_mut_ptr()),
        )
    }

    fn clear_next(&mut self) {
        self.bits[1].iter_mut().for_each(|w| *w = 0);
        self.ctl.iter_mut().for_each(|c| *c = 0);
    }

    fn word_threads(&self) -> u64 {
        entry::bitmap_words(self.n()).div_ceil(kernels_rs::direction::WORDS_PER_THREAD)
    }

    /// `td_relax` over the work list the last chunk/select step built, into
    /// bitmap `bits[next]`.
    fn relax(&mut self, iter: u32, next: usize, candidate: Option<P::State>) {
        let n = self.n();
        let m = self.targets.len() as u64;
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let targets = SharedPtr(self.targets.as_ptr() as *mut u32);
        let weights = SharedPtr(self.weights as *mut P::Weight);
        let next = SharedPtr(self.bits[next].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        let work = self.ctl[CTL_CHUNKS];
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let degree_offsets =
            SharedPtr(self.degree_offsets.map_or(std::ptr::null(), |d| d.as_ptr()) as *mut u64);
        let cand = candidate.map(|c| [c]);
        let cand_ptr =
            SharedPtr(cand.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()) as *mut P::State);
        launch(self.grid(work), self.block, |t| {
            // SAFETY: host buffers of the lengths td_relax documents; state,
            // parents, next bitmap and counters through atomics, the work list
            // read-only during this launch.
            unsafe {
                entry::td_relax::<P>(
                    t,
                    n,
                    m,
                    offsets.get(),
                    targets.get(),
                    weights.get(),
                    state.get(),
                    parents.get(),
                    chunks.get(),
                    capacity,
                    chunk,
                    next.get(),
                    ctl.get(),
                    iter,
                    degree_offsets.get(),
                    cand_ptr.get(),
                )
            }
        });
    }

    fn finish(&mut self, t0: Instant, swap: bool) -> FrontierSize {
        self.level_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if swap {
            self.bits.swap(0, 1);
        }
        FrontierSize::from_ctl(&self.ctl)
    }
}

impl<P: kernels_rs::Program> DirectionExec<P::State> for HostDirection<'_, P> {
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        let n = self.n();
        self.bits[0] = initial_bits(n, source);
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let src = source.unwrap_or(u32::MAX);
        launch(self.grid(n), self.block, |t| {
            // SAFETY: n-element host buffers (parents: n or null), written atomically.
            unsafe { entry::init::<P>(t, n, src, state.get(), parents.get()) }
        });
        Ok(initial_size(self.offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        _frontier: FrontierSize,
        candidate: Option<P::State>,
    ) -> Result<FrontierSize> {
        let t0 = Instant::now();
        self.clear_next();
        self.td_chunks();
        self.relax(iter, 1, candidate);
        Ok(self.finish(t0, true))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let t0 = Instant::now();
        self.ctl.iter_mut().for_each(|c| *c = 0);
        self.select(limit);
        self.relax(iter, 0, None);
        self.finish(t0, false);
        Ok(Pass::from_ctl(&self.ctl))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: P::State) -> Result<FrontierSize> {
        let t0 = Instant::now();
        self.clear_next();
        self.bottom_up_kernel(candidate);
        Ok(self.finish(t0, true))
    }
}

impl<P: kernels_rs::Program> PlannedExec<P::State> for HostDirection<'_, P> {
    fn begin_batch(&mut self, candidates: &[Option<P::State>]) -> Result<()> {
        if candidates.len() < 2 {
            return Err(Error::InvalidArgument(
                "device-planned levels need at least 2 levels per sync".into(),
            ));
        }
        self.batch_blocks
            .resize_with(candidates.len(), || vec![0; CTL_WORDS]);
        self.batch_candidates = candidates.to_vec();
        Ok(())
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        let (n, m) = (self.n(), self.targets.len() as u64);
        self.in_batch_slot(iter, slot, |x, prev, cur| {
            launch(1, 32, |t| {
                // SAFETY: see `in_batch_slot`; only thread 0 touches the blocks.
                unsafe {
                    entry::plan_level(
                        t,
                        prev.get(),
                        cur.get(),
                        n,
                        m,
                        first.vertices,
                        first.edges,
                        level,
                    )
                }
            });
            x.bits[1].iter_mut().for_each(|w| *w = 0);
            let candidate = x.batch_candidates[slot as usize];
            x.td_chunks();
            x.relax(iter, 1, candidate);
            // Launched on every level with a candidate, as on the GPU: the plan
            // says whether it does anything.
            if let Some(c) = candidate {
                x.bottom_up_kernel(c);
            }
            x.bits.swap(0, 1);
        });
        Ok(())
    }

    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()> {
        self.in_batch_slot(iter, slot, |x, prev, cur| {
            launch(1, 32, |t| {
                // SAFETY: see `in_batch_slot`; only thread 0 touches the blocks.
                unsafe {
                    entry::plan_pass(t, prev.get(), cur.get(), first_pending, first_limit, delta)
                }
            });
            x.select(u64::MAX);
            x.relax(iter, 0, None);
        });
        Ok(())
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        Ok(self.batch_blocks.iter().map(|b| counter_block(b)).collect())
    }
}

impl<P: kernels_rs::Program> HostDirection<'_, P> {
    /// Runs `body` for planned level (or pass) `iter` in slot `slot` of the batch,
    /// with that slot's counter block standing in for `self.ctl` and the
    /// pointers of the previous level's block (null at level 0; the previous
    /// slot, wrapping, otherwise: a batch has ≥ 2 slots, so it is never `cur`)
    /// and of this one, as the planning kernels take them. Records the time.
    fn in_batch_slot(
        &mut self,
        iter: u32,
        slot: u32,
        body: impl FnOnce(&mut Self, SharedPtr<u64>, SharedPtr<u64>),
    ) {
        let t0 = Instant::now();
        let (slots, slot) = (self.batch_blocks.len(), slot as usize);
        std::mem::swap(&mut self.ctl, &mut self.batch_blocks[slot]);
        let cur = SharedPtr(self.ctl.as_mut_ptr());
        let prev = SharedPtr(if iter == 0 {
            std::ptr::null_mut()
        } else {
            self.batch_blocks[(slot + slots - 1) % slots].as_mut_ptr()
        });
        body(self, prev, cur);
        std::mem::swap(&mut self.ctl, &mut self.batch_blocks[slot]);
        self.level_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    /// `td_select` over the pending bitmap with `limit` into `self.ctl`.
    fn select(&mut self, limit: u64) {
        let n = self.n();
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let state = SharedPtr(self.state.as_mut_ptr());
        let pending = SharedPtr(self.bits[0].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        launch(self.grid(self.word_threads()), self.block, |t| {
            // SAFETY: host buffers of the lengths td_select documents; state read
            // through atomics, bitmap/chunks/counters written through atomics.
            unsafe {
                entry::td_select::<P>(
                    t,
                    n,
                    offsets.get(),
                    state.get(),
                    pending.get(),
                    limit,
                    chunk,
                    chunks.get(),
                    capacity,
                    ctl.get(),
                )
            }
        });
    }

    /// `td_chunks` over the current frontier into `self.ctl`.
    fn td_chunks(&mut self) {
        let n = self.n();
        let offsets = SharedPtr(self.offsets.as_ptr() as *mut u64);
        let cur = SharedPtr(self.bits[0].as_mut_ptr());
        let chunks = SharedPtr(self.chunks.as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let (chunk, capacity) = (self.chunk, self.chunks.len() as u64);
        launch(self.grid(self.word_threads()), self.block, |t| {
            // SAFETY: host buffers of the lengths td_chunks documents; bitmap,
            // chunks and counters only touched through atomics.
            unsafe {
                entry::td_chunks(
                    t,
                    n,
                    offsets.get(),
                    cur.get(),
                    chunk,
                    chunks.get(),
                    capacity,
                    ctl.get(),
                )
            }
        });
    }

    /// `bottom_up` from the current frontier with `candidate` into `self.ctl`.
    fn bottom_up_kernel(&mut self, candidate: P::State) {
        let n = self.n();
        let (in_off, in_src) = self.incoming.unwrap_or((self.offsets, self.targets));
        let m_in = in_src.len() as u64;
        let in_off = SharedPtr(in_off.as_ptr() as *mut u64);
        let in_src = SharedPtr(in_src.as_ptr() as *mut u32);
        let out_off = SharedPtr(self.degree_offsets.unwrap_or(self.offsets).as_ptr() as *mut u64);
        let state = SharedPtr(self.state.as_mut_ptr());
        let parents = self.parents_ptr();
        let cur = SharedPtr(self.bits[0].as_mut_ptr());
        let next = SharedPtr(self.bits[1].as_mut_ptr());
        let ctl = SharedPtr(self.ctl.as_mut_ptr());
        let cand = [candidate];
        let cand = SharedPtr(cand.as_ptr() as *mut P::State);
        launch(self.grid(n), self.block, |t| {
            // SAFETY: host buffers of the lengths bottom_up documents; each vertex's
            // state/parent written by its own thread only, bitmaps and counters
            // through atomics, the candidate read-only.
            unsafe {
                entry::bottom_up::<P>(
                    t,
                    n,
                    m_in,
                    in_off.get(),
                    in_src.get(),
                    out_off.get(),
                    state.get(),
                    parents.get(),
                    cur.get(),
                    next.get(),
                    cand.get(),
                    ctl.get(),
                )
            }
        });
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
}
