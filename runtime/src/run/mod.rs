//! The one way to run a program, whatever its kind: [`run`] → a [`Run`] builder →
//! [`Run::go`] → an [`Outcome`] (the values and a [`Report`] saying what ran and
//! why).
//!
//! Every program kind the macro generates — push (`combine = ..`), gather/apply
//! and level sweeps (`gather = ..`), intersection (`intersect = ..`) — implements
//! [`Runnable`], so callers never pick among the engines' own entry points
//! (`cpu::run`, `cpu::gather::run`, `Device::run_program`, `Device::run_gather`,
//! `tc::program::run`, `Device::run_intersect`), their option structs and their
//! result types. Semiring programs add [`Run::all_pairs`] (the dense closure).
//!
//! Backends: [`Backend::Auto`] (the default) takes GPU 0 when the program's crate
//! built PTX and a device opens, else the CPU, and the report says which and why;
//! `Cpu` and `Gpu` force one (a forced GPU that cannot work is an error saying
//! why). Strategies (`schedule` on the CPU, `kernel` on the GPU) default to the
//! `auto` choices of [`crate::cpu::auto`] and [`crate::gpu::auto`], the same the
//! `vertex` command makes. [`Run::gpus`] spreads push and gather programs over
//! several GPUs of the machine (`vertex --gpus N`; [`Run::exchange`] picks how
//! they exchange).
//!
//! GPU state is kept between calls ([`device_cache`]): the device is opened once
//! per process, a program's kernels are loaded once per device, and the last
//! graphs uploaded stay resident (keyed by [`Graph::id`]), so a loop over
//! sources or programs pays no reload or upload.

mod closure;
pub mod columns;
pub mod device_cache;
pub mod gather;
pub mod intersect;
mod multi;
pub mod push;

use std::time::Duration;

use crate::error::{Error, Result};
use crate::gpu::batched::{BatchedStats, LaneStates};
use crate::gpu::multi::Route;
use crate::gpu::{BfsKernel, Heuristic};
use crate::graph::{Graph, Weight};
use crate::program::{Batchable, Schedule};

pub use columns::Columns;
pub use intersect::Intersected;

/// Where a run goes (also `apsp`'s, which parses it from its names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The rayon engines.
    Cpu,
    /// GPU [`Plan::device`] with the program's generated kernels.
    Gpu,
    /// The GPU when it is usable (and, for APSP, the job suits it), else the CPU.
    #[default]
    Auto,
}

impl Backend {
    /// The name the command line takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
            Backend::Auto => "auto",
        }
    }
}

/// The program kinds [`Runnable`] covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `combine = ..`: candidates pushed along edges, reduced on arrival.
    Push,
    /// `gather = ..`: rounds of emit / gather / apply (level sweeps included).
    Gather,
    /// `intersect = ..`: a value per triangle, reduced per graph or per vertex.
    Intersect,
}

/// Everything a run may be told; unset fields take the program's and the
/// engines' defaults. Filled by the [`Run`] builder.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Plan {
    pub backend: Backend,
    /// The source vertex, for programs that start from one. `None`: the first
    /// vertex with out-edges (the report names it).
    pub source: Option<u32>,
    /// CPU schedule; `None`: [`crate::cpu::auto::choose`] (push programs) or
    /// synchronous rounds (gather programs).
    pub schedule: Option<Schedule>,
    /// CPU worker threads; `None`: all cores (rayon's global pool).
    pub threads: Option<usize>,
    /// GPU kernel of push programs; `None` or `Some(Auto)`:
    /// [`crate::gpu::auto::choose`].
    pub kernel: Option<BfsKernel>,
    /// Edges per GPU thread or work item; `None`: the kernel's default.
    pub max_edge_count: Option<u64>,
    /// Bucket width of ordered schedules and kernels (programs with a priority);
    /// `None`: from the weights.
    pub delta: Option<u64>,
    /// Round limit of gather programs (default: the program's `MAX_ROUNDS`).
    pub max_rounds: Option<u32>,
    /// Convergence tolerance of gather programs (default: the program's
    /// `TOLERANCE`).
    pub tolerance: Option<f64>,
    /// Which GPU (0-based), for runs on one.
    pub device: usize,
    /// GPUs `0..gpus` of this machine for one run (push and gather programs
    /// from one source; the CPU backend refuses more than one). 0 (the
    /// default) and 1 both mean one GPU, [`Plan::device`].
    pub gpus: usize,
    /// How several GPUs exchange frontiers and messages; `None`:
    /// `VERTEX_EXCHANGE`, else peer access where every pair of GPUs has it,
    /// else NCCL ([`crate::gpu::multi::MultiGpu::open`]). Only with `gpus` > 1.
    pub exchange: Option<Route>,
    /// Beamer's α and β for the direction kernel of push programs (where it
    /// turns bottom-up and back); `None`: [`Heuristic::DEFAULT`].
    #[serde(serialize_with = "crate::gpu::options::optional_heuristic_json")]
    pub heuristic: Option<Heuristic>,
}

/// What a run did: where it ran and why, how, and how long.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub program: &'static str,
    pub kind: Kind,
    /// The backend that ran (`cpu` or `gpu`, never `auto`).
    pub backend: Backend,
    /// Why that backend: what was asked for, or why `auto` chose it.
    pub backend_reason: String,
    /// The GPU's name, when the run went there ("2 x NAME" on several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The CPU schedule or GPU kernel that ran (`sync`, `obim`, `tiles`, ...;
    /// on several GPUs with the partition and the exchange route).
    pub strategy: String,
    /// Why that strategy, when an `auto` choice made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy_reason: Option<String>,
    /// What the run's settings likely cost, when the run can tell (several
    /// GPUs on a high-diameter graph, where one GPU is much faster): said, as
    /// the command line's warnings are, since the caller asked for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The source vertex, for programs that start from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<u32>,
    /// Why that source, when the run picked it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_reason: Option<String>,
    /// Rounds, levels or priority buckets (0 where the engine has none).
    pub rounds: u64,
    /// Edges whose operator ran (relaxed, gathered); 0 where not counted.
    pub edges: u64,
    /// CPU worker threads (0 on the GPU).
    pub threads: usize,
    /// The engine's own time, without loading the graph or uploading it
    /// (serialized as `time_ms`).
    #[serde(serialize_with = "ms", rename = "time_ms")]
    pub time: Duration,
}

fn ms<S: serde::Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1e3)
}

/// A run's values and its report.
#[derive(Clone, Debug)]
pub struct Outcome<T> {
    /// One state per vertex (push and gather programs), or what an
    /// intersection program reduced ([`Intersected`]), or the closure's matrix
    /// ([`Run::all_pairs`]).
    pub values: T,
    pub report: Report,
}

/// A program the one run call takes. `#[vertex_program]` implements it for every
/// program it generates; the engines behind [`Runnable::go`] are the kind's.
pub trait Runnable: Copy + Send + Sync + 'static {
    /// The edge weight type of the graphs it runs on.
    type Weight: Weight;
    /// What a run returns besides the report.
    type Output;
    const NAME: &'static str;
    const KIND: Kind;
    /// Whether it starts from a source vertex.
    const NEEDS_SOURCE: bool;
    /// Whether it reads edge weights.
    const WEIGHTED: bool;
    /// Whether the crate defining it compiled its GPU kernels.
    fn has_gpu_kernels() -> bool;
    /// Runs it as `plan` says.
    fn go(graph: &Graph<Self::Weight>, plan: &Plan) -> Result<Outcome<Self::Output>>;
}

/// Starts a run of `P` on `graph`: set what differs from the defaults, then
/// [`Run::go`].
///
/// ```
/// use runtime::graph::{build, BuildOptions, EdgeList};
/// # use runtime::run::{Backend, Kind, Outcome, Plan, Report, Runnable};
/// # // A stand-in for a `#[vertex_program]` (the macro lives downstream).
/// # #[derive(Clone, Copy)] struct Hops;
/// # impl Runnable for Hops {
/// #     type Weight = u32; type Output = Vec<u32>;
/// #     const NAME: &'static str = "hops"; const KIND: Kind = Kind::Push;
/// #     const NEEDS_SOURCE: bool = true; const WEIGHTED: bool = false;
/// #     fn has_gpu_kernels() -> bool { false }
/// #     fn go(g: &runtime::graph::Graph<u32>, plan: &Plan) -> runtime::Result<Outcome<Vec<u32>>> {
/// #         let s = plan.source.unwrap_or(0);
/// #         let d = runtime::oracle::bfs_levels(g.csr(), s);
/// #         Ok(Outcome { values: d, report: Report::empty("hops", Kind::Push) })
/// #     }
/// # }
/// let el = EdgeList::<u32> { num_vertices: 3, edges: vec![[0, 1], [1, 2]], weights: None };
/// let g = build(&el, BuildOptions::default())?;
/// let out = runtime::run::run::<Hops>(&g).source(0).backend(Backend::Cpu).go()?;
/// assert_eq!(out.values, [0, 1, 2]);
/// # Ok::<(), runtime::Error>(())
/// ```
pub fn run<P: Runnable>(graph: &Graph<P::Weight>) -> Run<'_, P> {
    Run {
        graph,
        plan: Plan::default(),
        sources: None,
        _p: std::marker::PhantomData,
    }
}

/// A run being set up ([`run`]).
#[must_use = "a run does nothing until `.go()`"]
pub struct Run<'g, P: Runnable> {
    graph: &'g Graph<P::Weight>,
    plan: Plan,
    sources: Option<Vec<u32>>,
    _p: std::marker::PhantomData<P>,
}

impl<'g, P: Runnable> Run<'g, P> {
    /// CPU, GPU, or the GPU when usable (the default).
    pub fn backend(mut self, b: Backend) -> Self {
        self.plan.backend = b;
        self
    }
    /// The source vertex (programs that start from one).
    pub fn source(mut self, s: u32) -> Self {
        self.plan.source = Some(s);
        self
    }
    /// Several sources, for [`Run::go_each`]: one run per source, the GPU's
    /// kernels and uploaded graph shared between them.
    pub fn sources(mut self, s: impl IntoIterator<Item = u32>) -> Self {
        self.sources = Some(s.into_iter().collect());
        self
    }
    /// The CPU schedule (default: picked from the program and the graph).
    pub fn schedule(mut self, s: Schedule) -> Self {
        self.plan.schedule = Some(s);
        self
    }
    /// CPU worker threads (default: all cores).
    pub fn threads(mut self, t: usize) -> Self {
        self.plan.threads = Some(t);
        self
    }
    /// The GPU kernel of a push program (default: picked from the program and
    /// the graph).
    pub fn kernel(mut self, k: BfsKernel) -> Self {
        self.plan.kernel = Some(k);
        self
    }
    /// Edges per GPU thread or work item.
    pub fn max_edge_count(mut self, m: u64) -> Self {
        self.plan.max_edge_count = Some(m);
        self
    }
    /// Beamer's α and β for the direction kernel of push programs on the GPU
    /// (default [`Heuristic::DEFAULT`]): a larger α turns bottom-up sooner.
    pub fn heuristic(mut self, h: Heuristic) -> Self {
        self.plan.heuristic = Some(h);
        self
    }
    /// Bucket width of ordered schedules and kernels (programs with a priority).
    pub fn delta(mut self, d: u64) -> Self {
        self.plan.delta = Some(d);
        self
    }
    /// Round limit (gather programs).
    pub fn max_rounds(mut self, r: u32) -> Self {
        self.plan.max_rounds = Some(r);
        self
    }
    /// Convergence tolerance (gather programs with a reduction).
    pub fn tolerance(mut self, t: f64) -> Self {
        self.plan.tolerance = Some(t);
        self
    }
    /// Which GPU (default 0).
    pub fn device(mut self, d: usize) -> Self {
        self.plan.device = d;
        self
    }
    /// Runs on GPUs `0..n` of this machine, the graph partitioned among them
    /// (`vertex --gpus N`): for graphs too big for one GPU, or big enough
    /// that each GPU's share of a level outweighs the exchange after it.
    /// Push programs run the direction kernel (the one with a multi-GPU
    /// engine), gather programs their rounds; intersection programs, batched
    /// runs and [`Run::all_pairs`] refuse it, as does [`Backend::Cpu`].
    /// `auto` takes the GPUs and never falls back to the CPU: GPUs that cannot
    /// be opened are the run's error. 0 and 1 (the default) mean one GPU;
    /// with more, [`Run::device`] stays 0 (the GPUs are `0..n`).
    ///
    /// ```no_run
    /// # use runtime::run::{Kind, Outcome, Plan, Report, Runnable};
    /// # #[derive(Clone, Copy)] struct Bfs;
    /// # impl Runnable for Bfs {
    /// #     type Weight = u32; type Output = Vec<u32>;
    /// #     const NAME: &'static str = "bfs"; const KIND: Kind = Kind::Push;
    /// #     const NEEDS_SOURCE: bool = true; const WEIGHTED: bool = false;
    /// #     fn has_gpu_kernels() -> bool { true }
    /// #     fn go(_: &runtime::graph::Graph<u32>, _: &Plan) -> runtime::Result<Outcome<Vec<u32>>> {
    /// #         unimplemented!("the macro's impl")
    /// #     }
    /// # }
    /// use runtime::gpu::multi::Route;
    /// use runtime::run::{run, Backend};
    ///
    /// // `Bfs`: a `#[vertex_program]` push program with GPU kernels.
    /// let g = runtime::load::load_graph::<u32>("kron:24", &Default::default())?.graph;
    /// let out = run::<Bfs>(&g).source(0).backend(Backend::Gpu).gpus(2).go()?;
    /// println!("{} on {:?}: {}", out.report.strategy, out.report.device, out.report.time.as_secs_f64());
    /// // The same over NCCL instead of peer access, to compare the routes.
    /// let nccl = run::<Bfs>(&g).source(0).gpus(2).exchange(Route::Nccl).go()?;
    /// assert_eq!(nccl.values, out.values);
    /// # Ok::<(), runtime::Error>(())
    /// ```
    pub fn gpus(mut self, n: usize) -> Self {
        self.plan.gpus = n;
        self
    }
    /// How several GPUs ([`Run::gpus`]) exchange after each level or round:
    /// [`Route::Peer`] (NVLink peer access; an error where some pair of GPUs
    /// lacks it) or [`Route::Nccl`]. Default: `VERTEX_EXCHANGE`, else peer
    /// access where available. Set it to compare the routes; with one GPU it
    /// is an error (nothing is exchanged).
    pub fn exchange(mut self, r: Route) -> Self {
        self.plan.exchange = Some(r);
        self
    }
    /// Everything at once (what a command line parsed).
    pub fn plan(mut self, p: Plan) -> Self {
        self.plan = p;
        self
    }

    /// Runs it.
    pub fn go(self) -> Result<Outcome<P::Output>> {
        if let Some(s) = &self.sources {
            return match s.as_slice() {
                [one] => P::go(
                    self.graph,
                    &Plan {
                        source: Some(*one),
                        ..self.plan
                    },
                ),
                _ => Err(Error::InvalidArgument(format!(
                    "{} sources given: `.go()` runs one source; use `.go_each()`",
                    s.len()
                ))),
            };
        }
        P::go(self.graph, &self.plan)
    }

    /// The sources of a many-sources run: [`Run::sources`], or the one
    /// [`Run::source`].
    fn batch_sources(&self) -> Result<Vec<u32>> {
        match (&self.sources, self.plan.source) {
            (Some(s), _) => Ok(s.clone()),
            (None, Some(s)) => Ok(vec![s]),
            (None, None) => Err(Error::InvalidArgument(
                "a many-sources run needs `.sources(..)`".into(),
            )),
        }
    }

    /// One run per source of [`Run::sources`] (or of the one [`Run::source`]),
    /// in order. Push programs that start from a source run them together
    /// instead with `go_batched` / `go_many` (64 sources share each edge read).
    pub fn go_each(self) -> Result<Vec<Outcome<P::Output>>> {
        let sources = match (self.sources, self.plan.source) {
            (Some(s), _) => s,
            (None, Some(s)) => vec![s],
            (None, None) => {
                return Err(Error::InvalidArgument(
                    "`.go_each()` needs `.sources(..)`".into(),
                ))
            }
        };
        sources
            .into_iter()
            .map(|s| {
                P::go(
                    self.graph,
                    &Plan {
                        source: Some(s),
                        ..self.plan.clone()
                    },
                )
            })
            .collect()
    }
}

/// Many sources at once, for programs that can ([`Batchable`]: push programs
/// with a source and an idempotent combine; gather/apply programs that read
/// `ctx.source`, level sweeps aside).
// The bound is on each method, not on the impl, and the lane state is a type
// parameter, not `<P as Batchable>::LaneState` in the signature: that way an
// unmet bound reports `Batchable`'s own message (E0277); an unmet bound on the
// impl, or a projection through it, reports only that the method exists with
// bounds not satisfied (E0599).
impl<P: Runnable> Run<'_, P> {
    /// Runs from every source of [`Run::sources`] in batches of up to 64;
    /// `each` gets each batch's states ([`LaneStates`]: `sources[i]`'s state at
    /// `v` is `get(v, i)`), so an all-sources run need not hold `n²` values.
    /// Sources may repeat; an empty list or one out of range is an error before
    /// any batch runs. The report's rounds and edges are summed over the
    /// batches (edges count one per live source per edge read).
    ///
    /// ```
    /// use runtime::gpu::batched::LaneStates;
    /// use runtime::program::Batchable;
    /// use runtime::run::run;
    ///
    /// /// Each source's eccentricity under a BFS-like program `P` (hop counts,
    /// /// `u32::MAX` = not reached), 64 sources per edge sweep.
    /// fn eccentricities<P>(g: &runtime::graph::Graph<u32>, sources: &[u32]) -> runtime::Result<Vec<u32>>
    /// where
    ///     P: Batchable<Weight = u32, LaneState = u32>,
    /// {
    ///     let mut far = Vec::new();
    ///     run::<P>(g).sources(sources.iter().copied()).go_batched(|b: LaneStates<'_, u32>| {
    ///         for lane in 0..b.lanes() {
    ///             let reached = b.column(lane).into_iter().filter(|&d| d != u32::MAX);
    ///             far.push(reached.max().unwrap_or(0));
    ///         }
    ///         Ok(())
    ///     })?;
    ///     Ok(far)
    /// }
    /// ```
    pub fn go_batched<S>(
        self,
        each: impl FnMut(LaneStates<'_, S>) -> Result<()> + Send,
    ) -> Result<Report>
    where
        P: Batchable<LaneState = S>,
    {
        let sources = self.batch_sources()?;
        crate::cpu::msbfs::check_sources(&sources, self.graph.num_vertices())?;
        P::go_batched(self.graph, &self.plan, &sources, each)
    }

    /// [`Self::go_batched`] keeping every source's states: `values[i]` is
    /// `sources[i]`'s state per vertex (`n` values per source: for all sources
    /// of a large graph, use `go_batched` and reduce each batch instead).
    pub fn go_many<S: Copy + Send>(self) -> Result<Outcome<Vec<Vec<S>>>>
    where
        P: Batchable<LaneState = S>,
    {
        let mut values = Vec::new();
        let report = self.go_batched(|b| {
            values.extend((0..b.lanes()).map(|l| b.column(l)));
            Ok(())
        })?;
        Ok(Outcome { values, report })
    }
}

/// A batched run's totals in its report.
pub(crate) fn batched_report(report: &mut Report, sources: usize, stats: &BatchedStats) {
    report.strategy = format!("batched ({sources} sources, {} batches)", stats.batches);
    report.rounds = stats.rounds;
    report.edges = stats.edges;
    report.time = Duration::from_secs_f64(stats.time_ms * 1e-3);
}

impl Report {
    /// A report with nothing filled in yet (engines fill it).
    pub fn empty(program: &'static str, kind: Kind) -> Self {
        Report {
            program,
            kind,
            backend: Backend::Cpu,
            backend_reason: String::new(),
            device: None,
            strategy: String::new(),
            strategy_reason: None,
            warning: None,
            source: None,
            source_reason: None,
            rounds: 0,
            edges: 0,
            threads: 0,
            time: Duration::ZERO,
        }
    }
}

/// Which backend runs `P`, and why: `Gpu(device name)` or `Cpu`.
pub(crate) enum Placed {
    Cpu(String),
    Gpu(String),
}

/// Resolves [`Plan::backend`] for `P`: a forced GPU that cannot work is an
/// error saying why; `auto` falls back to the CPU and says why. A forced
/// backend refuses the other one's settings (`auto` may end on either side, so
/// it takes both).
pub(crate) fn place<P: Runnable>(plan: &Plan) -> Result<Placed> {
    multi::check(plan)?;
    if let Some(h) = plan.heuristic {
        crate::gpu::options::validate_heuristic(h)?;
    }
    if plan.backend == Backend::Cpu {
        refuse(
            "kernel / max_edge_count / heuristic",
            plan.kernel.is_some() || plan.max_edge_count.is_some() || plan.heuristic.is_some(),
            "GPU settings, and the run is on the CPU",
        )?;
    }
    if plan.backend == Backend::Gpu {
        refuse(
            "schedule / threads",
            plan.schedule.is_some() || plan.threads.is_some(),
            "CPU settings, and the run is on the GPU",
        )?;
    }
    let usable = || -> Result<String> {
        gpu_kernels::<P>()?;
        device_cache::device_name(plan.device)
    };
    match plan.backend {
        Backend::Cpu => Ok(Placed::Cpu("asked for".into())),
        Backend::Gpu => usable().map(|name| Placed::Gpu(format!("asked for ({name})"))),
        Backend::Auto => Ok(match usable() {
            Ok(name) => Placed::Gpu(format!("auto: GPU {} ({name})", plan.device)),
            Err(e) => Placed::Cpu(format!("auto: the CPU ({e})")),
        }),
    }
}

/// An error unless `P`'s crate built its GPU kernels.
pub(crate) fn gpu_kernels<P: Runnable>() -> Result<()> {
    if P::has_gpu_kernels() {
        return Ok(());
    }
    Err(Error::GpuUnavailable(format!(
        "program `{}` has no GPU kernels (its crate built no PTX)",
        P::NAME
    )))
}

/// The source a run starts from: the plan's (checked), else the first vertex
/// with out-edges; `None` for programs without one. The second value says why
/// when the run picked it.
pub(crate) fn pick_source<W: Weight>(
    g: &Graph<W>,
    plan: &Plan,
    needs: bool,
    name: &str,
) -> Result<(Option<u32>, Option<String>)> {
    if !needs {
        if let Some(s) = plan.source {
            return Err(Error::InvalidArgument(format!(
                "program `{name}` starts from every vertex: it takes no source (got {s})"
            )));
        }
        return Ok((None, None));
    }
    let n = g.num_vertices();
    match plan.source {
        Some(s) => {
            crate::program::check_source(s, n)?;
            Ok((Some(s), None))
        }
        None => match (0..n as u32).find(|&v| g.csr().degree(v) > 0) {
            Some(v) => Ok((
                Some(v),
                Some(format!("vertex {v}, the first with out-edges")),
            )),
            None if n > 0 => Ok((Some(0), Some("vertex 0: the graph has no edges".into()))),
            None => Err(Error::InvalidArgument(format!(
                "program `{name}` starts from a source, and the graph has no vertices"
            ))),
        },
    }
}

/// Refuses plan fields that mean nothing for this run (a kernel on the CPU, a
/// schedule on the GPU, ...): silently ignoring them would let a caller believe
/// they took effect.
pub(crate) fn refuse(what: &str, set: bool, why: &str) -> Result<()> {
    if set {
        return Err(Error::InvalidArgument(format!("{what}: {why}")));
    }
    Ok(())
}
