//! All-pairs distances of a sparse unweighted graph by batched BFS: every vertex
//! a source, 64 sources a batch sharing each edge read ([`crate::gpu::msbfs`] on
//! the GPU, [`crate::cpu::msbfs`] on the CPU).
//!
//! Why not Johnson or Floyd–Warshall here: with unit weights a shortest-path
//! tree is a BFS, and 64 BFS's in one bit-parallel sweep cost little more than
//! one, where Johnson pays a heap per source and FW `n³` whatever the edges. The
//! summary needs nothing per vertex: on the GPU each batch is reduced on the
//! device to per-source totals ([`crate::gpu::msbfs::LaneSums`]: distance sum,
//! vertices reached, deepest level), so all pairs of a 100,000-vertex graph move
//! a few words per source. Rows (`-o`) are built from the level lists, a batch
//! of 64 rows at a time, and streamed to the writer.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::johnson::MinPlusElem;
use super::output::{MatrixWriter, Summary, SummaryAcc};
use super::semiring::{Elem, MinPlus, Semiring};
use super::Backend;
use crate::cpu::msbfs::{self, Level, LANES};
use crate::error::{Error, Result};
use crate::gpu::msbfs::LaneSums;
use crate::graph::Csr;
use crate::progress;

/// Why batched BFS cannot give `g`'s all-pairs distances, if it cannot.
pub fn unsupported<W: Elem>(g: &Csr<W>) -> Option<String> {
    g.weights().map(|_| {
        "batched all-pairs here runs breadth-first searches and needs an unweighted graph; \
         this one has weights (the vertex command runs weighted graphs with a min-plus \
         program: `vertex apsp --algorithm batched`; or use johnson or fw)"
            .to_string()
    })
}

/// What a batched all-pairs run found and where.
pub struct BatchedApsp {
    pub summary: Summary,
    pub backend: Backend,
    pub output: Option<PathBuf>,
    /// GPU: first kernel to last (CUDA events); CPU: host time.
    pub kernel_ms: f64,
}

/// One CPU batch's summary and, when rows are written, its rows.
type BatchPart<T> = (SummaryAcc<MinPlus<T>>, Vec<T>);

/// Where the searches run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Cpu,
    Gpu,
    /// The GPU's kernels under the host emulator (tests without a GPU).
    Emulated,
}

/// All-pairs distances of unweighted `g` from every vertex, on `engine`; rows
/// streamed to `out` when given.
pub fn solve<T: MinPlusElem, W: Elem>(
    g: &Csr<W>,
    engine: Engine,
    out: Option<&Path>,
) -> Result<BatchedApsp>
where
    MinPlus<T>: Semiring<T = T>,
{
    if let Some(why) = unsupported(g) {
        return Err(Error::InvalidArgument(why));
    }
    let n = g.num_vertices();
    // Rows go out in order; a summary takes the sources in any order, and
    // batches of nearby sources share more levels.
    let sources: Vec<u32> = match out {
        Some(_) => (0..n as u32).collect(),
        None => crate::ball_batches::ball_order(g, None),
    };
    let bar = progress::bar(n as u64, "all-pairs sources");
    let mut acc = SummaryAcc::<MinPlus<T>>::new(n);
    let mut writer = match out {
        Some(p) => Some(MatrixWriter::<MinPlus<T>>::create(p, n, false)?),
        None => None,
    };
    let t0 = std::time::Instant::now();
    let mut kernel_ms = 0.0;
    if n == 0 {
        // Nothing to search.
    } else if engine == Engine::Gpu {
        kernel_ms = crate::run::device_cache::with(0, |slot| {
            let k = slot.kernels::<crate::gpu::msbfs::MsbfsKernels, _>(|d| d.load_msbfs())?;
            let dev = slot.device();
            let dg = dev.upload(g)?;
            let bar = &bar;
            searched(
                n,
                &mut acc,
                writer.as_mut(),
                || {
                    let run = dev.msbfs_sums(&k, &dg, &sources, |done| bar.inc(done as u64))?;
                    Ok((run.sums, run.time_ms))
                },
                |on_batch| dev.msbfs_levels(&k, &dg, &sources, on_batch),
                bar,
            )
        })?;
    } else if engine == Engine::Emulated {
        // Top-down only, as on the device for a graph uploaded without its
        // in-edges.
        let graph = crate::graph::Graph::new(g.clone(), false);
        kernel_ms = searched(
            n,
            &mut acc,
            writer.as_mut(),
            || {
                let run = crate::gpu::msbfs::emulate_sums(&graph, &sources, 0)?;
                Ok((run.sums, run.time_ms))
            },
            |on_batch| crate::gpu::msbfs::emulate_levels(&graph, &sources, 0, on_batch),
            &bar,
        )?;
    } else {
        // Batches in parallel, each a serial sweep of its levels: with
        // thousands of batches there is work for every core without splitting
        // the levels (whose frontiers are small on the sparse graphs this is for).
        let keep = writer.is_some();
        let chunk_batches = rayon::current_num_threads().max(1) * 4;
        for group in sources.chunks(LANES * chunk_batches) {
            let done: Vec<Result<BatchPart<T>>> = group
                .par_chunks(LANES)
                .map(|batch| {
                    if !keep {
                        // The summary alone: per-source totals, nothing per vertex.
                        let mut sums = vec![LaneSums::default(); batch.len()];
                        msbfs::run_serial(g, batch, |lv| {
                            for &(_, bits) in lv.reached {
                                msbfs::each_lane(bits, |l| {
                                    let s = &mut sums[l];
                                    s.distance_sum += u64::from(lv.depth);
                                    s.reached += u64::from(lv.depth > 0);
                                    s.deepest = u64::from(lv.depth);
                                });
                            }
                        })?;
                        return Ok((from_sums::<T>(n, &sums), Vec::new()));
                    }
                    let mut part = SummaryAcc::<MinPlus<T>>::new(n);
                    let mut cells = vec![MinPlus::<T>::zero(); n * batch.len()];
                    msbfs::run_serial(g, batch, |lv| fill(&mut cells, batch.len(), lv))?;
                    let block = transpose_rows(&cells, n, batch.len());
                    part.rows(batch[0] as usize, &block);
                    Ok((part, block))
                })
                .collect();
            for r in done {
                let (part, rows) = r?;
                acc.merge(&part);
                if let Some(w) = writer.as_mut() {
                    w.write_rows(&rows)?;
                }
            }
            bar.inc(group.len() as u64);
        }
        kernel_ms = t0.elapsed().as_secs_f64() * 1e3;
    }
    bar.finish_and_clear();
    let output = writer.map(|w| w.finish()).transpose()?;
    Ok(BatchedApsp {
        summary: acc.finish(),
        backend: if engine == Engine::Cpu {
            Backend::Cpu
        } else {
            Backend::Gpu
        },
        output,
        kernel_ms,
    })
}

/// The GPU's way (device or emulated): per-source totals reduced by the kernels
/// when no rows are written (`sums`), else each batch's level lists made into
/// rows (`levels`, calling back per batch). Returns the kernel time.
fn searched<T: MinPlusElem>(
    n: usize,
    acc: &mut SummaryAcc<MinPlus<T>>,
    writer: Option<&mut MatrixWriter<MinPlus<T>>>,
    sums: impl FnOnce() -> Result<(Vec<LaneSums>, f64)>,
    levels: impl FnOnce(&mut dyn FnMut(&[u32], &[Level<'_>])) -> Result<f64>,
    bar: &indicatif::ProgressBar,
) -> Result<f64>
where
    MinPlus<T>: Semiring<T = T>,
{
    let Some(w) = writer else {
        let (sums, ms) = sums()?;
        *acc = from_sums::<T>(n, &sums);
        return Ok(ms);
    };
    let mut failed = None;
    let ms = levels(&mut |batch, levels| {
        if failed.is_some() {
            return;
        }
        let rows = rows_of::<T>(n, batch, levels);
        acc.rows(batch[0] as usize, &rows);
        if let Err(e) = w.write_rows(&rows) {
            failed = Some(e);
        }
        bar.inc(batch.len() as u64);
    })?;
    failed.map_or(Ok(ms), Err)
}

/// Writes one level into `cells[v · lanes + l]` (vertex-major).
fn fill<T: MinPlusElem>(cells: &mut [T], lanes: usize, lv: &Level<'_>)
where
    MinPlus<T>: Semiring<T = T>,
{
    let d = T::from_weight(lv.depth).unwrap_or(MinPlus::<T>::zero());
    for &(v, bits) in lv.reached {
        msbfs::each_lane(bits, |l| cells[v as usize * lanes + l] = d);
    }
}

/// Vertex-major `cells` (`n × lanes`) as `lanes` rows of `n`.
fn transpose_rows<T: Copy>(cells: &[T], n: usize, lanes: usize) -> Vec<T> {
    let mut rows = Vec::with_capacity(n * lanes);
    for l in 0..lanes {
        rows.extend((0..n).map(|v| cells[v * lanes + l]));
    }
    rows
}

/// One batch's rows (`batch.len()` rows of `n`) from its levels.
fn rows_of<T: MinPlusElem>(n: usize, batch: &[u32], levels: &[Level<'_>]) -> Vec<T>
where
    MinPlus<T>: Semiring<T = T>,
{
    let mut cells = vec![MinPlus::<T>::zero(); n * batch.len()];
    for lv in levels {
        fill(&mut cells, batch.len(), lv);
    }
    transpose_rows(&cells, n, batch.len())
}

/// The summary from per-source totals (the device's reduction): the checksum is
/// every finite distance, the source's own 0 included, and a source reaches
/// itself plus `reached` others.
fn from_sums<T: MinPlusElem>(n: usize, sums: &[LaneSums]) -> SummaryAcc<MinPlus<T>>
where
    MinPlus<T>: Semiring<T = T>,
{
    let mut acc = SummaryAcc::<MinPlus<T>>::new(n);
    for s in sums {
        let deepest = (s.reached > 0)
            .then(|| T::from_weight(s.deepest as u32))
            .flatten();
        acc.add_totals(
            s.distance_sum as i128,
            n as u64 - 1 - s.reached.min(n as u64 - 1),
            deepest,
        );
    }
    acc
}

/// All-pairs distances of a weighted `g` from every vertex with the min-plus
/// program `P` over `T` (`State = Weight = T`, `init(s, s) = 0`, no path = the
/// semiring's ∞), run 64 sources a batch through the one run call's
/// `go_batched` on `backend` (`Cpu` or `Gpu`): the generic many-sources kernels
/// every push program gets ([`crate::gpu::batched`], [`crate::cpu::batched`]).
/// Negative weights are allowed without a negative cycle (rounds are
/// Bellman-Ford's); a negative cycle is an error naming its vertices, found
/// before any batch runs. Rows streamed to `out` when given.
pub fn solve_program<P, T, W>(
    g: &Csr<W>,
    backend: Backend,
    out: Option<&Path>,
) -> Result<BatchedApsp>
where
    P: crate::gpu::GpuProgram
        + crate::run::Runnable<Weight = T>
        + crate::program::VertexProgram<State = T, Weight = T>
        + crate::program::Batchable<LaneState = T>,
    T: MinPlusElem,
    MinPlus<T>: Semiring<T = T>,
    W: Elem,
{
    let n = g.num_vertices();
    let unit =
        T::from_weight(1u32).ok_or_else(|| Error::InvalidArgument("no unit weight".into()))?;
    let weights = super::johnson::convert_weights::<T, W>(g, unit)?;
    // `one()` is min-plus's 1̄, the distance 0.
    if weights.iter().any(|&w| w < MinPlus::<T>::one()) {
        // Johnson's potentials fail on exactly the graphs with a negative cycle.
        super::johnson::Johnson::<T>::prepare(g, unit)?;
    }
    let graph = crate::graph::Graph::new(g.with_weights(weights)?, false);
    let sources: Vec<u32> = (0..n as u32).collect();
    let bar = progress::bar(n as u64, "all-pairs sources");
    let mut acc = SummaryAcc::<MinPlus<T>>::new(n);
    let mut writer = match out {
        Some(p) => Some(MatrixWriter::<MinPlus<T>>::create(p, n, false)?),
        None => None,
    };
    let mut kernel_ms = 0.0;
    if n > 0 {
        let report = crate::run::run::<P>(&graph)
            .sources(sources)
            .backend(backend)
            .go_batched(|b| {
                let rows = transpose_rows(b.states, n, b.lanes());
                acc.rows(b.sources[0] as usize, &rows);
                if let Some(w) = writer.as_mut() {
                    w.write_rows(&rows)?;
                }
                bar.inc(b.lanes() as u64);
                Ok(())
            })?;
        kernel_ms = report.time.as_secs_f64() * 1e3;
    }
    bar.finish_and_clear();
    let output = writer.map(|w| w.finish()).transpose()?;
    Ok(BatchedApsp {
        summary: acc.finish(),
        backend,
        output,
        kernel_ms,
    })
}
