//! All-pairs shortest paths (and any other semiring closure) — seed 002.
//!
//! Two algorithms, chosen by density:
//! * [`fw_cpu`] — dense closure by blocked Floyd–Warshall over any [`Semiring`]
//!   (min-plus, max-min, or-and, or a `#[vertex_program(semiring)]` through
//!   [`semiring::ProgramSemiring`]); on the GPU in [`crate::gpu::closure`]
//!   (any [`crate::gpu::closure::GpuSemiring`], next hops included);
//! * [`johnson`] — SPFA reweighting + Dijkstra from every source, rows streamed
//!   to disk in blocks ([`output::MatrixWriter`]) so `n²` larger than memory works.
//!
//! ∞ is the semiring's zero, never a large number that arithmetic could reach
//! ([`semiring`]); a negative cycle is an [`Error::NegativeCycle`] naming its
//! vertices, never an answer; next hops give the paths ([`matrix::path_from_next`]).
//! [`solve`] is the entry point the CLI uses ([`placement`] decides where it
//! runs); the binary result layout is in [`output`].

pub mod batched;
pub mod johnson;
pub mod output;
pub mod placement;

/// The dense closure's matrix, semirings and CPU Floyd–Warshall live in
/// [`crate::dense`], below both this front end and the GPU; re-exported here
/// under their old paths.
pub use crate::dense::{fw_cpu, matrix, semiring};

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{Error, Result};
use crate::gpu::closure::{ClosureRun, GpuSemiring};
use crate::graph::Csr;
use johnson::{describe_cycle, find_negative_cycle, Johnson, MinPlusElem};
pub use matrix::{path_from_next, DistMatrix, NO_HOP};
use output::{MatrixWriter, Summary, SummaryAcc};
pub use placement::Placement;
pub use semiring::{Elem, MaxMin, MinPlus, OrAnd, ProgramSemiring, Semiring};

/// `FromStr` for a choice enum from its names; the error lists them.
macro_rules! from_str_choices {
    ($ty:ident, $what:literal, $($name:literal => $v:ident),+) => {
        impl std::str::FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                parse_choice(s, $what, &[$(($name, $ty::$v)),+])
            }
        }
    };
}
/// The value named `s` among `choices`, or an error listing the names.
fn parse_choice<T: Copy>(s: &str, what: &str, choices: &[(&str, T)]) -> Result<T> {
    match choices.iter().find(|c| c.0 == s) {
        Some(c) => Ok(c.1),
        None => {
            let names: Vec<&str> = choices.iter().map(|c| c.0).collect();
            Err(Error::InvalidArgument(format!(
                "unknown {what} `{s}` ({})",
                names.join(", ")
            )))
        }
    }
}

/// Which algorithm to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Blocked Floyd–Warshall (dense, in memory).
    Fw,
    /// Johnson: reweighting + Dijkstra from every source (sparse, streamed).
    Johnson,
    /// Batched BFS from every vertex (unweighted graphs): 64 sources share each
    /// edge read ([`batched`]).
    Batched,
    /// Johnson when the graph is sparse or `n²` does not fit, else FW; batched
    /// BFS instead of Johnson when the graph is unweighted.
    Auto,
}

from_str_choices!(Algorithm, "APSP algorithm", "fw" => Fw, "johnson" => Johnson, "batched" => Batched, "auto" => Auto);

/// Where batched all-pairs runs, and why: what was asked for, else the GPU when
/// one is usable and the graph is not tiny.
fn batched_backend(asked: Backend, n: usize, gpu_usable: bool) -> (Backend, Option<String>) {
    match asked {
        Backend::Cpu | Backend::Gpu => (asked, None),
        Backend::Auto if !gpu_usable => (
            Backend::Cpu,
            Some("auto: batched BFS on the CPU (no usable GPU here)".into()),
        ),
        Backend::Auto if n < placement::GPU_MIN_N => (
            Backend::Cpu,
            Some(format!(
                "auto: batched BFS on the CPU ({n} vertices < {})",
                placement::GPU_MIN_N
            )),
        ),
        Backend::Auto => (Backend::Gpu, Some("auto: batched BFS on the GPU".into())),
    }
}

/// Where the run goes (see [`placement`]): the one run call's backend.
pub use crate::run::Backend;

from_str_choices!(Backend, "backend", "cpu" => Cpu, "gpu" => Gpu, "auto" => Auto);

/// Settings of one APSP run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ApspOptions {
    pub algorithm: Algorithm,
    pub backend: Backend,
    /// CPU FW tile size (one of [`fw_cpu::TILES`]).
    pub tile: usize,
    /// Keep (and write) the next-hop matrix (FW only).
    pub next_hop: bool,
    /// Bytes a dense matrix may take before `auto` streams with Johnson.
    pub memory_budget: u64,
    /// Rows per streamed Johnson block (0 = from the budget).
    pub block_rows: usize,
}

impl Default for ApspOptions {
    fn default() -> Self {
        ApspOptions {
            algorithm: Algorithm::Auto,
            backend: Backend::Cpu,
            tile: fw_cpu::DEFAULT_TILE,
            next_hop: false,
            memory_budget: 8 << 30,
            block_rows: 0,
        }
    }
}

/// Density below which `auto` prefers Johnson: `m < n² / JOHNSON_DENSITY`.
/// FW does n³ SIMD relaxations; Johnson ~n·m heap-bound ones. Measured at
/// density 0.1 (docs/results/apsp-cpu.json, 2 cores): Johnson 12–13× slower
/// than blocked FW at n = 1024 and 2048; its cost is linear in m, so the two
/// meet near density 0.1 / 12 ≈ 1/120.
pub const JOHNSON_DENSITY: u64 = 128;

/// The algorithm `auto` picks for `n` vertices, `m` edges, `elem` bytes per entry.
pub fn choose(n: usize, m: u64, elem: usize, budget: u64) -> Algorithm {
    let dense_bytes = (n as u128 * n as u128 * elem as u128) as f64;
    if dense_bytes > budget as f64 {
        return Algorithm::Johnson;
    }
    let n2 = n as u64 * n as u64;
    if m.saturating_mul(JOHNSON_DENSITY) < n2 && n > 256 {
        Algorithm::Johnson
    } else {
        Algorithm::Fw
    }
}

/// What a run did and found.
#[derive(Debug, serde::Serialize)]
pub struct ApspRun<T> {
    pub algorithm: Algorithm,
    pub backend: Backend,
    /// Why the backend or algorithm differs from the one asked for.
    pub note: Option<String>,
    pub element: String,
    pub summary: Summary,
    /// Closure time (FW or Johnson, output writing included for Johnson).
    pub time_s: f64,
    pub output: Option<PathBuf>,
    /// The GPU closure's own timings, when it ran there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<ClosureRun>,
    #[serde(skip)]
    pub matrix: Option<DistMatrix<T>>,
    #[serde(skip)]
    pub next: Option<Vec<u32>>,
}

/// A closure's distances and, if asked for, its next hops.
pub type Closure<T> = (DistMatrix<T>, Option<Vec<u32>>);

/// Dense closure of `g` over `S` on the CPU: adjacency, blocked FW, the
/// negative-cycle check. `conv` converts weights (`unit` for unweighted graphs).
pub fn closure<S: Semiring, W: Elem>(
    g: &Csr<W>,
    unit: S::T,
    conv: impl Fn(W) -> Option<S::T>,
    tile: usize,
    next_hop: bool,
) -> Result<Closure<S::T>> {
    let mut m = DistMatrix::adjacency::<S, W>(g, unit, conv)?;
    let mut next = next_hop.then(|| matrix::initial_next::<S>(&m));
    fw_cpu::blocked::<S>(&mut m, next.as_deref_mut(), tile)?;
    check_diagonal::<S, W>(&m, g)?;
    Ok((m, next))
}

/// Fails with [`Error::NegativeCycle`] if a diagonal entry improves on 1̄ (for
/// min-plus: `d[i][i] < 0`), naming the cycle's vertices when the semiring is
/// min-plus.
pub fn check_diagonal<S: Semiring, W: Elem>(m: &DistMatrix<S::T>, g: &Csr<W>) -> Result<()> {
    let bad = (0..m.n()).find(|&i| S::improves(m.get(i, i), S::one()));
    let Some(i) = bad else { return Ok(()) };
    if S::is_min_plus() {
        let w: Vec<f64> = match g.weights() {
            Some(ws) => ws.iter().map(|x| x.to_f64()).collect(),
            None => vec![1.0; g.num_edges() as usize],
        };
        if let Some(c) = find_negative_cycle(g.offsets(), g.targets(), &w) {
            return Err(Error::NegativeCycle(describe_cycle(
                &c,
                g.offsets(),
                g.targets(),
                &w,
            )));
        }
    }
    Err(Error::NegativeCycle(format!(
        "vertex {i} reaches itself with {:?}, better than the empty path ({:?})",
        m.get(i, i),
        S::one()
    )))
}

/// The dense closure of `g` over `S` on the CPU or the GPU (`backend` is `Cpu`
/// or `Gpu`; `Auto` means the CPU here): adjacency, blocked FW, the
/// negative-cycle check; the GPU run's timings when it ran there.
pub fn closure_on<S: GpuSemiring, W: Elem>(
    g: &Csr<W>,
    unit: S::T,
    conv: impl Fn(W) -> Option<S::T>,
    tile: usize,
    next_hop: bool,
    backend: Backend,
) -> Result<(Closure<S::T>, Option<ClosureRun>)> {
    if backend != Backend::Gpu {
        return Ok((closure::<S, W>(g, unit, conv, tile, next_hop)?, None));
    }
    let mut m = DistMatrix::adjacency::<S, W>(g, unit, conv)?;
    let mut next = next_hop.then(|| matrix::initial_next::<S>(&m));
    let run = crate::gpu::closure::closure_on_gpu::<S>(&mut m, next.as_deref_mut(), 0)?;
    check_diagonal::<S, W>(&m, g)?;
    Ok(((m, next), Some(run)))
}

/// Min-plus APSP of `g` with element type `T`: picks the algorithm and backend
/// ([`placement::place`]), writes `out` if given (streamed for Johnson), and
/// returns the summary (and the matrix when `keep` and FW ran).
pub fn solve<T: MinPlusElem, W: Elem>(
    g: &Csr<W>,
    opts: &ApspOptions,
    out: Option<&Path>,
    keep: bool,
) -> Result<ApspRun<T>>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    solve_impl::<T, W>(g, opts, out, keep, None)
}

/// Runs weighted batched all-pairs ([`batched::solve_program`] with a program).
type WeightedBatched<'a, W> =
    &'a dyn Fn(&Csr<W>, Backend, Option<&Path>) -> Result<batched::BatchedApsp>;

/// [`solve`], with `P` (a min-plus program over `T`: `State = Weight = T`) for
/// `--algorithm batched` on weighted graphs: every vertex a source, 64 a batch,
/// through the generic many-sources kernels ([`batched::solve_program`]).
pub fn solve_with_program<P, T, W>(
    g: &Csr<W>,
    opts: &ApspOptions,
    out: Option<&Path>,
    keep: bool,
) -> Result<ApspRun<T>>
where
    P: crate::gpu::GpuProgram
        + crate::run::Runnable<Weight = T>
        + crate::program::VertexProgram<State = T, Weight = T>
        + crate::program::Batchable<LaneState = T>,
    T: MinPlusElem,
    MinPlus<T>: GpuSemiring<T = T>,
    W: Elem,
{
    let run = |g: &Csr<W>, b: Backend, o: Option<&Path>| batched::solve_program::<P, T, W>(g, b, o);
    solve_impl::<T, W>(g, opts, out, keep, Some(&run))
}

fn solve_impl<T: MinPlusElem, W: Elem>(
    g: &Csr<W>,
    opts: &ApspOptions,
    out: Option<&Path>,
    keep: bool,
    weighted_batched: Option<WeightedBatched<'_, W>>,
) -> Result<ApspRun<T>>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    type S<T> = MinPlus<T>;
    let n = g.num_vertices();
    // Unweighted and sparse: BFS from every vertex, batched, beats both Johnson
    // (a heap per source) and FW (n³ whatever the edges).
    let sparse = choose(
        n,
        g.num_edges(),
        std::mem::size_of::<T>(),
        opts.memory_budget,
    ) == Algorithm::Johnson;
    let batched_fits = opts.algorithm == Algorithm::Auto
        && !opts.next_hop
        && sparse
        && batched::unsupported(g).is_none();
    if opts.algorithm == Algorithm::Batched || batched_fits {
        if opts.next_hop {
            return Err(Error::InvalidArgument(
                "next hops are kept by FW only; use --algorithm fw (or `vertex path`)".into(),
            ));
        }
        let (backend, mut note) = batched_backend(opts.backend, n, crate::gpu::available());
        if batched_fits {
            note = Some(format!(
                "auto: unweighted and sparse: batched BFS from every vertex{}",
                note.map(|x| format!(" ({x})")).unwrap_or_default()
            ));
        }
        let t0 = Instant::now();
        let engine = if backend == Backend::Gpu {
            batched::Engine::Gpu
        } else {
            batched::Engine::Cpu
        };
        let r = match (batched::unsupported(g), weighted_batched) {
            (Some(_), Some(run)) => run(g, backend, out)?,
            _ => batched::solve::<T, W>(g, engine, out)?,
        };
        return Ok(ApspRun {
            algorithm: Algorithm::Batched,
            backend: r.backend,
            note,
            element: T::KIND.to_string(),
            summary: r.summary,
            time_s: t0.elapsed().as_secs_f64(),
            output: r.output,
            gpu: None,
            matrix: None,
            next: None,
        });
    }
    let unit: T =
        T::from_weight(1u32).ok_or_else(|| Error::InvalidArgument("no unit weight".into()))?;
    let placed = placement::place(
        (opts.algorithm, opts.backend),
        n,
        g.num_edges(),
        std::mem::size_of::<T>(),
        opts.memory_budget,
        opts.next_hop,
        crate::gpu::available(),
    )
    .map_err(Error::InvalidArgument)?;
    let (algorithm, mut note) = (placed.algorithm, placed.note);
    let t0 = Instant::now();
    if algorithm == Algorithm::Johnson {
        let j = Johnson::<T>::prepare(g, unit)?;
        let rows = if opts.block_rows > 0 {
            opts.block_rows
        } else {
            let per_row = (n.max(1) * std::mem::size_of::<T>()) as u64;
            ((opts.memory_budget / 4) / per_row).clamp(1, 4096) as usize
        };
        let mut acc = SummaryAcc::<S<T>>::new(n);
        let mut writer = match out {
            Some(p) => Some(MatrixWriter::<S<T>>::create(p, n, false)?),
            None => None,
        };
        j.for_each_block(rows, |first, block| {
            acc.rows(first, block);
            if let Some(w) = writer.as_mut() {
                w.write_rows(block)?;
            }
            Ok(())
        })?;
        let output = writer.map(|w| w.finish()).transpose()?;
        return Ok(ApspRun {
            algorithm,
            backend: Backend::Cpu,
            note,
            element: T::KIND.to_string(),
            summary: acc.finish(),
            time_s: t0.elapsed().as_secs_f64(),
            output,
            gpu: None,
            matrix: None,
            next: None,
        });
    }
    let mut backend = placed.backend;
    let run =
        |backend| closure_on::<S<T>, W>(g, unit, T::from_weight, opts.tile, opts.next_hop, backend);
    let t0 = Instant::now();
    let ((m, next), gpu) = match run(backend) {
        // `auto` chose the GPU, which turned out missing or too small: the CPU.
        Err(e @ (Error::GpuUnavailable(_) | Error::GpuOutOfMemory { .. }))
            if opts.backend == Backend::Auto =>
        {
            backend = Backend::Cpu;
            note = Some(format!(
                "auto: the GPU closure could not run ({e}): ran on the CPU"
            ));
            run(backend)?
        }
        r => r?,
    };
    let time_s = t0.elapsed().as_secs_f64();
    let summary = output::summarize::<S<T>>(&m);
    let output = match out {
        Some(p) => Some(output::write_matrix::<S<T>>(p, &m, next.as_deref())?),
        None => None,
    };
    Ok(ApspRun {
        algorithm,
        backend,
        note,
        element: T::KIND.to_string(),
        summary,
        time_s,
        output,
        gpu,
        matrix: keep.then_some(m),
        next: if keep { next } else { None },
    })
}

/// A path's vertices and its length.
pub type FoundPath<T> = (Vec<u32>, T);

/// A shortest `from → to` path and its length on the CPU: see [`path_on`].
pub fn path<T: MinPlusElem, W: Elem>(
    g: &Csr<W>,
    from: u32,
    to: u32,
    algorithm: Algorithm,
) -> Result<Option<FoundPath<T>>>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    path_on(g, from, to, algorithm, Backend::Cpu).map(|(p, _)| p)
}

/// A shortest `from → to` path and its length: FW next hops (on the GPU when
/// `backend` says so, or `auto` finds one and the graph is large enough), Johnson
/// from `from` for large graphs on the CPU; `None` if `to` is unreachable. Also
/// returns where it ran and why.
pub fn path_on<T: MinPlusElem, W: Elem>(
    g: &Csr<W>,
    from: u32,
    to: u32,
    algorithm: Algorithm,
    backend: Backend,
) -> Result<(Option<FoundPath<T>>, Placement)>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    let n = g.num_vertices();
    for v in [from, to] {
        if v as usize >= n {
            return Err(Error::InvalidArgument(format!(
                "vertex {v} does not exist (the graph has {n} vertices; ids are 0-based)"
            )));
        }
    }
    let unit: T =
        T::from_weight(1u32).ok_or_else(|| Error::InvalidArgument("no unit weight".into()))?;
    // One path on the CPU: FW's next hops while n² is small, else Johnson from
    // `from` alone.
    let cpu = Placement {
        algorithm: match algorithm {
            Algorithm::Auto if n <= 2048 => Algorithm::Fw,
            Algorithm::Auto => Algorithm::Johnson,
            a => a,
        },
        backend: Backend::Cpu,
        note: None,
    };
    let mut placed = match backend {
        Backend::Cpu => cpu,
        _ => {
            let p = placement::place(
                (algorithm, backend),
                n,
                g.num_edges(),
                std::mem::size_of::<T>(),
                ApspOptions::default().memory_budget,
                algorithm == Algorithm::Fw,
                crate::gpu::available(),
            )
            .map_err(Error::InvalidArgument)?;
            match p.backend {
                Backend::Cpu => Placement {
                    note: p.note,
                    ..cpu
                },
                _ => p,
            }
        }
    };
    if placed.algorithm == Algorithm::Johnson {
        return Ok((Johnson::<T>::prepare(g, unit)?.path(from, to), placed));
    }
    let run =
        |b| closure_on::<MinPlus<T>, W>(g, unit, T::from_weight, fw_cpu::DEFAULT_TILE, true, b);
    let ((m, next), _) = match run(placed.backend) {
        Err(e @ (Error::GpuUnavailable(_) | Error::GpuOutOfMemory { .. }))
            if backend == Backend::Auto =>
        {
            placed.backend = Backend::Cpu;
            placed.note = Some(format!(
                "auto: the GPU closure could not run ({e}): ran on the CPU"
            ));
            run(Backend::Cpu)?
        }
        r => r?,
    };
    let next = next.unwrap_or_default();
    let found = path_from_next(&next, n, from, to).map(|p| (p, m.get(from as usize, to as usize)));
    Ok((found, placed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_choice_by_density_and_memory() {
        assert_eq!(choose(100, 50, 4, 1 << 30), Algorithm::Fw);
        assert_eq!(choose(4096, 4096 * 8, 4, 1 << 30), Algorithm::Johnson);
        assert_eq!(choose(4096, 4096 * 1000, 4, 1 << 30), Algorithm::Fw);
        assert_eq!(choose(100_000, 1 << 40, 4, 1 << 30), Algorithm::Johnson);
    }
}
