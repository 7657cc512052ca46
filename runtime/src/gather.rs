//! Gather/apply programs on the host side: options, the round loop's stopping rules
//! and the run report, shared by the CPU engine ([`crate::cpu::gather`]) and the GPU
//! runner ([`crate::gpu::gather`]) so both stop after the same rounds.
//!
//! The model itself (what a round is, dense vs frontier-driven programs) is
//! documented with the trait, [`GatherProgram`].

use std::time::Duration;

pub use kernels_rs::gather::{Ctx, Direction, GatherKind, GatherProgram, ReduceKind};

use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

mod sweep;
pub use sweep::Sweep;

/// Settings of one run; `None` fields take the program's defaults.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GatherOptions {
    /// Round limit (default: the program's `MAX_ROUNDS`). A run that reaches a
    /// limit given here or by the program stops there (`StopReason::MaxRounds`).
    /// A frontier-driven program that sets no limit gets
    /// [`frontier_round_bound`] instead, and reaching *that* is an error: its
    /// `active` rule never let the frontier die out.
    pub max_rounds: Option<u32>,
    /// Stop when a round's reduction is below this (default: the program's
    /// `TOLERANCE`). Must be positive and finite.
    pub tolerance: Option<f64>,
    /// Push, pull or per round (default: the program's `DIRECTION`).
    #[serde(skip)]
    pub direction: Option<Direction>,
    /// The source vertex, for programs whose `init` reads one.
    pub source: Option<u32>,
    /// Worker threads (CPU; default: rayon's pool).
    pub threads: Option<usize>,
    /// Dense programs on the CPU: Gauss–Seidel rounds instead of Jacobi. A vertex
    /// emits its message as soon as it is applied, so vertices gathered later in
    /// the same round already read it: the fixed point is the same, usually reached
    /// in fewer rounds (about half for PageRank on grids), with one message
    /// array instead of two. Results then depend on the order threads run in (not
    /// bit-reproducible across thread counts). Needs a `Msg` of 4 or 8 bytes (read
    /// and written as one relaxed atomic word).
    pub gauss_seidel: bool,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The round's reduction fell under the tolerance.
    Converged,
    /// A round changed no state (dense) or a dense round activated nothing.
    Quiescent,
    /// The round limit was reached.
    MaxRounds,
}

/// What a run did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GatherReport {
    pub rounds: u32,
    /// Rounds whose accumulators were built by pushing along out-edges.
    pub push_rounds: u32,
    /// Frontier-driven programs: rounds run over every vertex (frontier empty).
    pub dense_rounds: u32,
    /// Edges whose `gather` was evaluated.
    pub edges_gathered: u64,
    /// `apply` calls (vertex updates); the work measure of asynchronous runs.
    pub applies: u64,
    /// The last round's reduction.
    pub reduced: f64,
    pub stop: StopReason,
    /// The rounds' wall time (serialized as `time_ms`).
    #[serde(serialize_with = "ms", rename = "time_ms")]
    pub time: Duration,
    pub threads: usize,
}

impl GatherReport {
    /// A report of nothing yet (engines fill it in).
    pub fn empty() -> Self {
        GatherReport {
            rounds: 0,
            push_rounds: 0,
            dense_rounds: 0,
            edges_gathered: 0,
            applies: 0,
            reduced: 0.0,
            stop: StopReason::MaxRounds,
            time: Duration::ZERO,
            threads: 0,
        }
    }
}

fn ms<S: serde::Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1e3)
}

/// Final states plus the report.
pub struct GatherRun<S> {
    pub states: Vec<S>,
    pub report: GatherReport,
}

/// The settings of a run after defaults and checks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved {
    pub max_rounds: u32,
    pub tolerance: Option<f64>,
    pub direction: Direction,
    pub source: u32,
    /// `max_rounds` is [`frontier_round_bound`], not a limit anyone asked for:
    /// reaching it is an error ([`Resolved::check_bound`]), not a stop.
    pub safety_bound: bool,
}

/// Rounds a frontier-driven program that sets no `MAX_ROUNDS` may run, per vertex.
pub const FRONTIER_ROUNDS_PER_VERTEX: u64 = 8;
/// ... and at least this many, whatever the graph's size.
pub const FRONTIER_ROUNDS_FLOOR: u64 = 10_000;

/// The round bound of a frontier-driven program that sets no limit, on `n`
/// vertices: `max(8·n, 10 000)`.
///
/// A wrong `active` rule (one that keeps some vertex active for ever) would
/// otherwise loop without end. Correct programs stay well inside this bound:
/// monotone ones (BFS, Bellman–Ford-style paths, label propagation, k-core
/// peeling) change some vertex every round and need at most about `n` rounds,
/// even where a vertex is re-activated many times; tolerance-driven ones
/// (residual PageRank) need rounds by the tolerance, not by `n` (a few hundred
/// at most), which the floor covers on small graphs. A program that needs more
/// sets `MAX_ROUNDS` or the caller passes [`GatherOptions::max_rounds`].
pub fn frontier_round_bound(n: usize) -> u32 {
    (n as u64)
        .saturating_mul(FRONTIER_ROUNDS_PER_VERTEX)
        .max(FRONTIER_ROUNDS_FLOOR)
        .min(u64::from(u32::MAX - 1)) as u32
}

impl GatherOptions {
    /// Refuses Gauss–Seidel rounds on an engine that has none (`why` says what it
    /// runs instead); only the CPU round engine updates in place.
    pub(crate) fn rounds_only(&self, why: &str) -> Result<()> {
        if self.gauss_seidel {
            return Err(Error::InvalidArgument(format!(
                "Gauss–Seidel rounds run on the CPU engine ({why})"
            )));
        }
        Ok(())
    }

    /// Fills defaults from `P` and refuses settings that cannot be run.
    pub(crate) fn resolve<P: GatherProgram>(&self, n: usize) -> Result<Resolved> {
        if let Some(t) = self.tolerance {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "tolerance must be a positive finite number, not {t}"
                )));
            }
        }
        if self.max_rounds == Some(0) {
            return Err(Error::InvalidArgument(
                "max rounds must be at least 1".into(),
            ));
        }
        if !P::WEIGHTED && std::mem::size_of::<P::Weight>() != 0 {
            return Err(Error::InvalidArgument(format!(
                "program `{}` reads no weights, so its `Weight` must be `()`",
                P::NAME
            )));
        }
        if n > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "{n} vertices do not fit u32 ids"
            )));
        }
        let source = match (P::NEEDS_SOURCE, self.source) {
            (true, None) => {
                return Err(Error::InvalidArgument(format!(
                    "program `{}` starts from a source vertex: give one",
                    P::NAME
                )))
            }
            (_, Some(s)) => {
                crate::program::check_source(s, n)?;
                s
            }
            (false, None) => u32::MAX,
        };
        if self.gauss_seidel {
            if P::FRONTIER || P::LEVELS {
                return Err(Error::InvalidArgument(format!(
                    "program `{}` is frontier-driven or a level sweep; Gauss–Seidel rounds are for dense programs",
                    P::NAME
                )));
            }
            if !matches!(std::mem::size_of::<P::Msg>(), 4 | 8) {
                return Err(Error::InvalidArgument(format!(
                    "Gauss–Seidel rounds need a `Msg` of 4 or 8 bytes (program `{}`: {} bytes)",
                    P::NAME,
                    std::mem::size_of::<P::Msg>()
                )));
            }
        }
        // `u32::MAX` is what `#[vertex_program]` writes for a frontier-driven
        // program without `MAX_ROUNDS`: no limit was asked for. Level sweeps
        // run one round per level and always end.
        let (max_rounds, safety_bound) = match self.max_rounds {
            Some(m) => (m, false),
            None if P::FRONTIER && !P::LEVELS && P::MAX_ROUNDS == u32::MAX => {
                (frontier_round_bound(n), true)
            }
            None => (P::MAX_ROUNDS, false),
        };
        Ok(Resolved {
            max_rounds,
            safety_bound,
            tolerance: self.tolerance.or(P::TOLERANCE),
            direction: self.direction.unwrap_or(P::DIRECTION),
            source,
        })
    }
}

/// Whether `P` can run from many sources at once with `opts` (batched runs,
/// [`crate::cpu::gather::batched`], [`crate::gpu::gather::batched`]), or why
/// not: every lane needs its own source (`P` reads `ctx.source`), a level
/// sweep's schedule comes from its states (one per source, so one schedule per
/// lane), and lanes run synchronous Jacobi rounds side by side (Gauss–Seidel
/// rounds depend on the order threads run in). `#[vertex_program]` implements
/// `Batchable` only for programs that pass the first two, so this is the run's
/// own check of what the type system cannot see.
pub(crate) fn check_batchable<P: GatherProgram>(opts: &GatherOptions) -> Result<()> {
    if !P::NEEDS_SOURCE {
        return Err(Error::InvalidArgument(format!(
            "program `{}` reads no `ctx.source`: a batched run gives every lane its own source, and this program would give the same states for each",
            P::NAME
        )));
    }
    if P::LEVELS {
        return Err(Error::InvalidArgument(format!(
            "program `{}` is a level sweep: its schedule is built from its initial states, one per source; run it once per source",
            P::NAME
        )));
    }
    if opts.source.is_some() {
        return Err(Error::InvalidArgument(
            "a batched run takes its sources as lanes, not `source`".into(),
        ));
    }
    opts.rounds_only("batched runs are synchronous Jacobi rounds, lane by lane")
}

/// Push a round when the frontier's out-edges are under `m / PUSH_SHARE`.
pub const PUSH_SHARE: u64 = 20;

impl Resolved {
    /// Refuses a run that stopped at the safety bound of a frontier-driven
    /// program ([`frontier_round_bound`]): its states are whatever the last round
    /// left, not the program's answer, so returning them would be a silent wrong
    /// result. A limit the program or the caller set stops the run quietly.
    pub(crate) fn check_bound<P: GatherProgram>(&self, report: &GatherReport) -> Result<()> {
        if self.safety_bound && report.stop == StopReason::MaxRounds {
            return Err(Error::RoundBound(format!(
                "program `{}` still had active vertices after {} rounds, the bound for \
                 frontier-driven programs that set no round limit (max({} × vertices, {})): \
                 its `active` rule may never let the frontier empty. If it needs more rounds, \
                 set a limit: `pub const MAX_ROUNDS: u32 = ..;` in the program, or \
                 `GatherOptions::max_rounds` (`--max-rounds` on the command line); a run \
                 stops quietly at a limit set so",
                P::NAME,
                self.max_rounds,
                FRONTIER_ROUNDS_PER_VERTEX,
                FRONTIER_ROUNDS_FLOOR
            )));
        }
        Ok(())
    }

    /// Whether the round with `frontier_edges` out-edges in its frontier pushes.
    pub(crate) fn push(&self, dense_program: bool, frontier_edges: u64, m: u64) -> bool {
        match self.direction {
            Direction::Push => true,
            Direction::Pull => false,
            Direction::Auto => !dense_program && frontier_edges.saturating_mul(PUSH_SHARE) < m,
        }
    }

    /// Whether a level sweep's round pushes from the previous level (`prev`
    /// vertices) instead of pulling over the current one's (`cur`). Auto pulls
    /// (no atomics, sums in a fixed order) unless the previous level is under a
    /// quarter of the current one in vertices and, by `edges()` (its out-edges,
    /// the current level's in-edges; only counted then), in edges.
    pub(crate) fn sweep_push(
        &self,
        prev: usize,
        cur: usize,
        edges: impl FnOnce() -> (u64, u64),
    ) -> bool {
        match self.direction {
            Direction::Push => true,
            Direction::Pull => false,
            Direction::Auto => {
                prev.saturating_mul(4) < cur && {
                    let (push_edges, pull_edges) = edges();
                    push_edges.saturating_mul(4) < pull_edges
                }
            }
        }
    }

    /// Whether to stop after a round of a *dense* program.
    pub(crate) fn dense_stop(&self, round: u32, reduced: f64, changed: u64) -> Option<StopReason> {
        if self.tolerance.is_some_and(|t| reduced < t) {
            Some(StopReason::Converged)
        } else if changed == 0 {
            Some(StopReason::Quiescent)
        } else if round + 1 >= self.max_rounds {
            Some(StopReason::MaxRounds)
        } else {
            None
        }
    }
}

/// The graph's weights as the program's weight type: `Some` for weighted programs
/// (the graph must carry weights of that type), `None` otherwise.
pub(crate) fn weights_of<P: GatherProgram, W: Weight>(
    csr: &Csr<W>,
) -> Result<Option<&[P::Weight]>> {
    if !P::WEIGHTED {
        return Ok(None);
    }
    let Some(w) = csr.weights() else {
        return Err(crate::program::weights_missing(P::NAME));
    };
    if std::any::TypeId::of::<W>() != std::any::TypeId::of::<P::Weight>() {
        return Err(Error::InvalidArgument(format!(
            "program `{}` reads {} weights, but the graph stores {}",
            P::NAME,
            std::any::type_name::<P::Weight>(),
            std::any::type_name::<W>()
        )));
    }
    // SAFETY: `W` and `P::Weight` are the same type (checked above).
    Ok(Some(unsafe {
        std::slice::from_raw_parts(w.as_ptr() as *const P::Weight, w.len())
    }))
}

/// The weight an unweighted program's `gather` receives.
#[inline(always)]
pub(crate) fn no_weight<P: GatherProgram>() -> P::Weight {
    debug_assert_eq!(std::mem::size_of::<P::Weight>(), 0);
    // SAFETY: unweighted programs have a zero-sized `Weight` (`()`, made so by the
    // macro); reading a ZST from a dangling aligned pointer is sound.
    unsafe { std::ptr::NonNull::<P::Weight>::dangling().as_ptr().read() }
}

/// Out-degree (or in-degree) of `v` as the context holds it.
#[inline(always)]
pub(crate) fn degree(offsets: &[u64], v: usize) -> u32 {
    // No panic path (engines only ask for v < n): a context field the operators
    // never read then costs no loads, the optimizer drops the unused reads.
    match (offsets.get(v), offsets.get(v + 1)) {
        (Some(&lo), Some(&hi)) => (hi - lo).min(u32::MAX as u64) as u32,
        _ => 0,
    }
}

/// `P::init` of every vertex, on the host: what the GPU runners build a level
/// sweep's schedule from when the states start on the device.
pub(crate) fn init_states<P: GatherProgram, W: Weight>(
    csr: &Csr<W>,
    csc: &Csr<W>,
    source: u32,
) -> Vec<P::State> {
    use rayon::prelude::*;
    let n = csr.num_vertices();
    (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|v| {
            P::init(Ctx {
                vertex: v as u32,
                out_degree: degree(csr.offsets(), v),
                in_degree: degree(csc.offsets(), v),
                num_vertices: n as u32,
                num_edges: csr.num_edges(),
                round: 0,
                source,
                global: P::REDUCE.identity(),
            })
        })
        .collect()
}

/// Refuses initial states ([`crate::cpu::gather::run_from`] and its GPU twins) that
/// do not cover the graph's vertices.
pub(crate) fn check_initial<P: GatherProgram>(
    initial: Option<&[P::State]>,
    n: usize,
) -> Result<()> {
    match initial {
        Some(s) if s.len() != n => Err(Error::InvalidArgument(format!(
            "program `{}`: {} initial states for {n} vertices",
            P::NAME,
            s.len()
        ))),
        _ => Ok(()),
    }
}
