//! Push programs (`combine = ..`) through the one run call: the CPU schedules of
//! [`crate::cpu::run`] and the GPU kernels of [`Device::run_program`], each with
//! its `auto` choice when the plan names none.
//!
//! [`Device::run_program`]: crate::gpu::Device::run_program

use std::time::Duration;

use super::device_cache::{self, GraphKey};
use super::{pick_source, place, refuse, Backend, Kind, Outcome, Placed, Plan, Report, Runnable};
use crate::cpu::{AsyncOptions, CpuOptions};
use crate::error::Result;
use crate::gpu::batched::LaneStates;
use crate::gpu::program::ProgramKernels;
use crate::gpu::{BfsKernel, GpuProgram, ProgramOptions};
use crate::graph::Graph;
use crate::program::{schedule_name, VertexProgram};

/// [`Runnable::go`] of a push program (what the macro's impl calls).
pub fn go<P>(
    g: &Graph<<P as VertexProgram>::Weight>,
    plan: &Plan,
) -> Result<Outcome<Vec<<P as VertexProgram>::State>>>
where
    P: GpuProgram + Runnable<Weight = <P as VertexProgram>::Weight>,
{
    refuse(
        "max_rounds / tolerance",
        plan.max_rounds.is_some() || plan.tolerance.is_some(),
        &format!(
            "program `{}` is a push program: it runs until no state changes (round limits and tolerances belong to gather programs)",
            <P as VertexProgram>::NAME
        ),
    )?;
    let (source, source_note) = pick_source(
        g,
        plan,
        <P as VertexProgram>::NEEDS_SOURCE,
        <P as VertexProgram>::NAME,
    )?;
    let mut report = Report::empty(<P as VertexProgram>::NAME, Kind::Push);
    report.source = source;
    report.source_reason = source_note;
    let s = source.unwrap_or(0);
    let values = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            cpu::<P>(g, s, plan, &mut report)?
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            gpu::<P>(g, s, plan, &mut report)?
        }
    };
    Ok(Outcome { values, report })
}

fn cpu<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    plan: &Plan,
    report: &mut Report,
) -> Result<Vec<P::State>> {
    let (schedule, why) = match plan.schedule {
        Some(s) => (s, None),
        None => {
            let c = crate::cpu::auto::choose::<P>(g, source);
            (c.schedule, Some(c.reason))
        }
    };
    let co = CpuOptions {
        threads: plan.threads,
        ..CpuOptions::default()
    };
    let ao = AsyncOptions {
        delta: plan.delta,
        ..AsyncOptions::default()
    };
    let r = crate::cpu::run::<P>(g, source, schedule, &co, &ao)?;
    report.backend = Backend::Cpu;
    report.strategy = schedule_name(schedule).into();
    report.strategy_reason = why;
    report.rounds = r.report.rounds;
    report.edges = r.report.edges_relaxed;
    report.threads = r.report.threads;
    report.time = r.report.time;
    Ok(r.states)
}

/// `P`'s kernels and `g` uploaded for traversal (with its weights when `P`
/// reads them), both from the device cache.
fn program_and_graph<P: GpuProgram>(
    slot: &mut device_cache::Slot,
    g: &Graph<<P as VertexProgram>::Weight>,
) -> Result<(
    std::sync::Arc<ProgramKernels>,
    std::sync::Arc<crate::gpu::DeviceGraph>,
)> {
    let weighted = <P as VertexProgram>::WEIGHTED;
    let k = slot.kernels::<P, ProgramKernels>(|d| d.load_program::<P>())?;
    let key = GraphKey {
        graph: g.id(),
        what: if weighted {
            "traversal, weighted"
        } else {
            "traversal"
        },
        edges_per_thread: 0,
    };
    let dg = slot.graph(key, |d| d.upload_traversal(g, weighted))?;
    Ok((k, dg))
}

fn gpu<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
    plan: &Plan,
    report: &mut Report,
) -> Result<Vec<<P as VertexProgram>::State>> {
    let base = ProgramOptions {
        max_edge_count: plan.max_edge_count,
        delta: plan.delta,
        ..ProgramOptions::default()
    };
    let (opts, why) =
        crate::gpu::auto::options_for::<P>(g, source, plan.kernel.unwrap_or(BfsKernel::Auto), base);
    let (r, name) = device_cache::with(plan.device, |slot| {
        let (k, dg) = program_and_graph::<P>(slot, g)?;
        let r = slot.device().run_program::<P>(&k, &dg, source, &opts)?;
        Ok((r, slot.device().info().name.clone()))
    })?;
    report.backend = Backend::Gpu;
    report.device = Some(name);
    report.strategy = opts.kernel.name().into();
    report.strategy_reason = why;
    report.rounds = u64::from(r.num_levels);
    report.time = Duration::from_secs_f64(r.time_ms * 1e-3);
    Ok(r.states)
}

/// Many sources at once (push programs that start from a source and combine
/// idempotently: BFS, SSSP, widest path, reachability, ...): 64 sources a
/// batch, each edge read once for every source live at its vertex, on the CPU
/// or the GPU as the plan says.
impl<P> super::Run<'_, P>
where
    P: GpuProgram + Runnable<Weight = <P as VertexProgram>::Weight>,
{
    /// Runs from every source of [`super::Run::sources`] in batches of up to 64;
    /// `each` gets each batch's states ([`LaneStates`]: `sources[i]`'s state at
    /// `v` is `get(v, i)`), so an all-sources run need not hold `n²` values.
    /// The report's rounds and edges are summed over the batches (edges count
    /// one per live source per edge read).
    ///
    /// ```
    /// use runtime::gpu::batched::LaneStates;
    /// use runtime::gpu::GpuProgram;
    /// use runtime::program::{Batchable, VertexProgram};
    /// use runtime::run::{run, Runnable};
    ///
    /// /// Each source's eccentricity under a BFS-like program `P` (hop counts,
    /// /// `u32::MAX` = not reached), 64 sources per edge sweep.
    /// fn eccentricities<P>(g: &runtime::graph::Graph<u32>, sources: &[u32]) -> runtime::Result<Vec<u32>>
    /// where
    ///     P: GpuProgram + VertexProgram<Weight = u32, State = u32> + Runnable<Weight = u32> + Batchable,
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
    pub fn go_batched(
        self,
        each: impl FnMut(LaneStates<'_, <P as VertexProgram>::State>) -> Result<()> + Send,
    ) -> Result<Report>
    where
        P: crate::program::Batchable,
    {
        let sources = self.batch_sources()?;
        let plan = &self.plan;
        refuse(
            "max_rounds / tolerance / kernel / delta",
            plan.max_rounds.is_some()
                || plan.tolerance.is_some()
                || plan.kernel.is_some()
                || plan.delta.is_some()
                || plan.schedule.is_some(),
            "settings of single-source runs; batched runs have their own rounds",
        )?;
        crate::gpu::batched::check_batchable::<P>()?;
        let g = self.graph;
        let mut report = Report::empty(<P as VertexProgram>::NAME, Kind::Push);
        let stats = match place::<P>(plan)? {
            Placed::Cpu(why) => {
                report.backend_reason = why;
                report.backend = Backend::Cpu;
                let stats = crate::cpu::batched::run::<P>(g, &sources, plan.threads, each)?;
                report.threads = crate::cpu::threads_for(plan.threads);
                stats
            }
            Placed::Gpu(why) => {
                report.backend_reason = why;
                let (stats, name) = device_cache::with(plan.device, |slot| {
                    let (k, dg) = program_and_graph::<P>(slot, g)?;
                    let stats = slot.device().run_batched::<P>(&k, &dg, &sources, each)?;
                    Ok((stats, slot.device().info().name.clone()))
                })?;
                report.backend = Backend::Gpu;
                report.device = Some(name);
                stats
            }
        };
        report.strategy = format!(
            "batched ({} sources, {} batches)",
            sources.len(),
            stats.batches
        );
        report.rounds = stats.rounds;
        report.edges = stats.edges;
        report.time = Duration::from_secs_f64(stats.time_ms * 1e-3);
        Ok(report)
    }

    /// [`Self::go_batched`] keeping every source's states: `values[i]` is
    /// `sources[i]`'s state per vertex (`n` values per source: for all sources
    /// of a large graph, use `go_batched` and reduce each batch instead).
    pub fn go_many(self) -> Result<Outcome<Vec<Vec<<P as VertexProgram>::State>>>>
    where
        P: crate::program::Batchable,
    {
        let mut values = Vec::new();
        let report = self.go_batched(|b| {
            values.extend((0..b.lanes()).map(|l| b.column(l)));
            Ok(())
        })?;
        Ok(Outcome { values, report })
    }
}
