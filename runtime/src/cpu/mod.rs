//! CPU engines on rayon. Every engine runs any [`VertexProgram`] unchanged.
//!
//! * [`sync`]: level-synchronous rounds (BSP), push or pull, with Beamer-style
//!   direction switching when the program allows it.
//!
//! [`VertexProgram`]: crate::program::VertexProgram

pub mod frontier;
pub mod sync;
pub mod tree;

use std::time::Duration;

use crate::error::{Error, Result};
use crate::program::{AtomicState, Schedule};

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

/// Push (top-down), pull (bottom-up), or switch by Beamer's heuristic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Push,
    Pull,
    Auto,
}

/// Runs `f` in a pool of `threads` workers (or the global pool).
pub(crate) fn in_pool<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<(R, usize)> {
    match threads {
        None => Ok((f(), rayon::current_num_threads())),
        Some(0) => Err(Error::InvalidArgument(
            "--threads must be at least 1".into(),
        )),
        Some(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| Error::InvalidArgument(format!("cannot start {t} threads: {e}")))?;
            Ok((pool.install(f), t))
        }
    }
}

/// Checks that `source` names a vertex of a graph with `n` vertices.
pub fn check_source(source: u32, n: usize) -> Result<()> {
    if (source as usize) < n {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "source vertex {source} is out of range: the graph has {n} vertices (ids are 0-based)"
        )))
    }
}

/// Reads the final states out of their atomic cells.
pub(crate) fn unload<S: AtomicState>(cells: &[S::Atomic]) -> Vec<S> {
    use rayon::prelude::*;
    cells.par_iter().map(|c| S::load(c)).collect()
}
