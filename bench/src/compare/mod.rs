//! One program under several schedules and thread counts, side by side: the data
//! behind `vertex compare`.
//!
//! A *runner* is one column source: something that runs a program on a graph and
//! returns states plus a [`RunReport`]. The CPU schedules are [`CpuRunner`]s; other
//! back ends (the GPU) plug in by implementing [`Runner`] — [`compare`] neither
//! knows nor cares where a run happened.
//!
//! Every run is checked against the first successful one (the *reference*, normally
//! sync with the fewest threads): integer states must be equal, float states equal
//! within a relative 1e-9. *Useful work* is the out-degree sum of every vertex that
//! ever became active (it changed from its initial state, or it started active) —
//! what one ideal pass relaxes; `redundant = edges_relaxed − useful work`.

pub mod gpu;
pub mod plot;

use std::any::TypeId;

use runtime::cpu::{AsyncOptions, CpuOptions, RunReport, RunResult};
use runtime::error::Result;
use runtime::graph::Graph;
use runtime::program::{schedule_name, AtomicState, Schedule, VertexProgram};

/// Something that runs `P` and reports on it: one column of a comparison.
pub trait Runner<P: VertexProgram>: Send + Sync {
    /// The schedule or back end, e.g. `sync`, `async`, `obim`, `gpu`.
    fn name(&self) -> String;
    /// Threads used (CPU) or `None` when that does not apply.
    fn threads(&self) -> Option<usize>;
    /// Why this runner cannot run `P` at all (shown instead of numbers), if so.
    fn unsupported(&self) -> Option<String> {
        None
    }
    /// Whether the report's `edges_relaxed` is counted (the GPU kernels do not
    /// count: their column shows no work figures).
    fn counts_edges(&self) -> bool {
        true
    }
    fn run(&self, g: &Graph<P::Weight>, source: u32) -> Result<RunResult<P::State>>;
}

/// A CPU schedule with its options.
#[derive(Clone, Debug)]
pub struct CpuRunner {
    pub schedule: Schedule,
    pub opts: CpuOptions,
    pub aopts: AsyncOptions,
}

impl<P: VertexProgram> Runner<P> for CpuRunner {
    fn name(&self) -> String {
        schedule_name(self.schedule).to_string()
    }
    fn threads(&self) -> Option<usize> {
        Some(runtime::cpu::threads_for(self.opts.threads))
    }
    fn unsupported(&self) -> Option<String> {
        runtime::cpu::operator::check_schedule::<P>(self.schedule)
            .err()
            .map(|e| e.to_string())
    }
    fn run(&self, g: &Graph<P::Weight>, source: u32) -> Result<RunResult<P::State>> {
        runtime::cpu::run::<P>(g, source, self.schedule, &self.opts, &self.aopts)
    }
}

/// A column that cannot run here (no GPU, no kernels): its row shows why.
#[derive(Clone, Debug)]
pub struct Unavailable {
    pub name: String,
    pub reason: String,
}

impl<P: VertexProgram> Runner<P> for Unavailable {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn threads(&self) -> Option<usize> {
        None
    }
    fn unsupported(&self) -> Option<String> {
        Some(self.reason.clone())
    }
    fn run(&self, _g: &Graph<P::Weight>, _source: u32) -> Result<RunResult<P::State>> {
        Err(runtime::error::Error::InvalidArgument(self.reason.clone()))
    }
}

/// One runner's results.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub schedule: String,
    pub threads: Option<usize>,
    /// Best (smallest) time over the repetitions, seconds.
    pub time_s: Option<f64>,
    /// Every repetition, seconds.
    pub times_s: Vec<f64>,
    pub edges_relaxed: Option<u64>,
    /// `edges_relaxed − useful work` (see the module doc).
    pub redundant: Option<u64>,
    /// `edges_relaxed / useful work` (1.0 = no wasted relaxation).
    pub work_ratio: Option<f64>,
    /// Time of the sync row with the same thread count (for a runner without
    /// threads, the GPU: the fastest sync row) divided by this row's time (> 1:
    /// faster than sync).
    pub speedup_vs_sync: Option<f64>,
    /// Whether the states equal the reference's.
    pub agrees: Option<bool>,
    /// The report of the fastest repetition.
    pub report: Option<RunReport>,
    /// Why there are no numbers (schedule refused, run failed).
    pub error: Option<String>,
}

/// A whole comparison.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    pub program: String,
    pub source: u32,
    pub vertices: u64,
    pub edges: u64,
    /// Out-degree sum of every vertex that became active.
    pub useful_work: u64,
    /// Vertices reached: the source and those whose state changed (every vertex
    /// for a program without a source), as `vertex bfs|sssp|…` counts them.
    pub reached: u64,
    /// `schedule@threads` of the reference run.
    pub reference: Option<String>,
    pub rows: Vec<Row>,
    /// Every run that produced states agrees with the reference.
    pub all_agree: bool,
}

/// Runs every runner `repeats` times (≥ 1) and compares.
pub fn compare<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    runners: &[Box<dyn Runner<P>>],
    repeats: usize,
    mut progress: impl FnMut(&Row),
) -> Comparison {
    let mut reference: Option<(String, Vec<P::State>)> = None;
    let mut rows = Vec::new();
    for r in runners {
        let mut row = Row {
            schedule: r.name(),
            threads: r.threads(),
            time_s: None,
            times_s: Vec::new(),
            edges_relaxed: None,
            redundant: None,
            work_ratio: None,
            speedup_vs_sync: None,
            agrees: None,
            report: None,
            error: r.unsupported(),
        };
        if row.error.is_none() {
            let mut best: Option<RunResult<P::State>> = None;
            for _ in 0..repeats.max(1) {
                match r.run(g, source) {
                    Ok(res) => {
                        row.times_s.push(res.report.time.as_secs_f64());
                        if best
                            .as_ref()
                            .is_none_or(|b| res.report.time < b.report.time)
                        {
                            best = Some(res);
                        }
                    }
                    Err(e) => {
                        row.error = Some(e.to_string());
                        break;
                    }
                }
            }
            if let (Some(b), None) = (best, &row.error) {
                row.time_s = Some(b.report.time.as_secs_f64());
                row.edges_relaxed = r.counts_edges().then_some(b.report.edges_relaxed);
                match &reference {
                    None => {
                        row.agrees = Some(true);
                        reference = Some((
                            format!("{}@{}", row.schedule, row.threads.unwrap_or(0)),
                            b.states,
                        ));
                    }
                    Some((_, states)) => row.agrees = Some(states_agree(states, &b.states)),
                }
                row.report = Some(b.report);
            }
        }
        progress(&row);
        rows.push(row);
    }
    let (useful_work, reached) = reference
        .as_ref()
        .map_or((0, 0), |(_, s)| useful_work::<P>(g, source, s));
    for i in 0..rows.len() {
        if let Some(e) = rows[i].edges_relaxed {
            rows[i].redundant = Some(e.saturating_sub(useful_work));
            rows[i].work_ratio = (useful_work > 0).then(|| e as f64 / useful_work as f64);
        }
        let sync_time = match rows[i].threads {
            Some(t) => rows
                .iter()
                .find(|r| r.schedule == "sync" && r.threads == Some(t))
                .and_then(|r| r.time_s),
            // A back end without threads (the GPU) is measured against sync's best.
            None => rows
                .iter()
                .filter(|r| r.schedule == "sync")
                .filter_map(|r| r.time_s)
                .min_by(f64::total_cmp),
        };
        if let (Some(s), Some(t)) = (sync_time, rows[i].time_s) {
            rows[i].speedup_vs_sync = (t > 0.0).then(|| s / t);
        }
    }
    Comparison {
        program: P::NAME.to_string(),
        source,
        vertices: g.num_vertices() as u64,
        edges: g.num_edges(),
        useful_work,
        reached,
        all_agree: rows.iter().all(|r| r.agrees != Some(false)),
        reference: reference.map(|r| r.0),
        rows,
    }
}

/// `(useful work, reached vertices)` of final `states`.
pub fn useful_work<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    states: &[P::State],
) -> (u64, u64) {
    let csr = g.csr();
    let mut work = 0u64;
    let mut reached = 0u64;
    for (v, &s) in states.iter().enumerate() {
        let v = v as u32;
        let changed = s != P::init(v, source);
        // As `vertex bfs|sssp|…` counts them: the source is reached (its
        // state is its initial one), and a program without a source reaches
        // every vertex.
        let active = !P::NEEDS_SOURCE || changed || v == source;
        reached += active as u64;
        if active {
            work += csr.degree(v);
        }
    }
    (work, reached)
}

/// Equal, or for floats equal within a relative 1e-9 (∞ = ∞).
pub fn states_agree<S: AtomicState>(a: &[S], b: &[S]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    fn close(x: f64, y: f64) -> bool {
        x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
    }
    if TypeId::of::<S>() == TypeId::of::<f64>() {
        let (a, b): (&[f64], &[f64]) = (bytemuck::cast_slice(a), bytemuck::cast_slice(b));
        return a.iter().zip(b).all(|(&x, &y)| close(x, y));
    }
    if TypeId::of::<S>() == TypeId::of::<f32>() {
        let (a, b): (&[f32], &[f32]) = (bytemuck::cast_slice(a), bytemuck::cast_slice(b));
        return a.iter().zip(b).all(|(&x, &y)| {
            x == y
                || close(x as f64, y as f64)
                || (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1.0)
        });
    }
    a == b
}
