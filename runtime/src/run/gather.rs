//! Gather/apply programs (`gather = ..`, level sweeps included) through the one
//! run call: synchronous rounds or the asynchronous engines on the CPU
//! ([`crate::cpu::gather`], [`crate::cpu::gather_async`]), the generated round
//! kernels on the GPU ([`Device::run_gather`]) or on several
//! ([`MultiGpu::run_gather`]).
//!
//! [`Device::run_gather`]: crate::gpu::Device::run_gather
//! [`MultiGpu::run_gather`]: crate::gpu::multi::MultiGpu::run_gather

use super::device_cache::GraphKey;
use super::{
    multi, pick_source, place, refuse, Backend, Kind, Outcome, Placed, Plan, Report, Runnable,
};
use crate::cpu::gather_async::AsyncOrder;
use crate::error::Result;
use crate::gather::{GatherOptions, GatherProgram, GatherReport};
use crate::gpu::gather::batched::GatherBatchKernels;
use crate::gpu::gather::{GatherGpuOptions, GatherKernels};
use crate::graph::Graph;
use crate::program::Schedule;

/// [`Runnable::go`] of a gather/apply program (what the macro's impl calls).
pub fn go<P>(
    g: &Graph<<P as Runnable>::Weight>,
    plan: &Plan,
) -> Result<Outcome<Vec<<P as GatherProgram>::State>>>
where
    P: GatherProgram + Runnable,
{
    let name = <P as GatherProgram>::NAME;
    refuse(
        "kernel / delta / heuristic",
        plan.kernel.is_some() || plan.delta.is_some() || plan.heuristic.is_some(),
        &format!(
            "program `{name}` is a gather/apply program: it runs in rounds (one kind of kernel, no buckets)"
        ),
    )?;
    let (source, source_note) = pick_source(g, plan, <P as GatherProgram>::NEEDS_SOURCE, name)?;
    let opts = GatherOptions {
        max_rounds: plan.max_rounds,
        tolerance: plan.tolerance,
        source,
        threads: plan.threads,
        ..GatherOptions::default()
    };
    let mut report = Report::empty(name, Kind::Gather);
    report.source = source;
    report.source_reason = source_note;
    if let Some(why) = multi::placed::<P>(plan)? {
        report.backend_reason = why;
        let (values, r) = gpus::<P>(g, plan, &opts, &mut report)?;
        fill(&mut report, &r);
        return Ok(Outcome { values, report });
    }
    let (values, r) = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            let (schedule, why) = match plan.schedule {
                Some(s) => (s, None),
                None => (
                    Schedule::Sync,
                    Some("gather/apply: synchronous rounds (name `async` or `obim` for a delta program)".to_string()),
                ),
            };
            report.strategy = crate::program::schedule_name(schedule).into();
            report.strategy_reason = why;
            let run = match schedule {
                Schedule::Sync => crate::cpu::gather::run::<P, <P as Runnable>::Weight>(g, &opts)?,
                Schedule::Async => crate::cpu::gather_async::run::<P, <P as Runnable>::Weight>(
                    g,
                    &opts,
                    AsyncOrder::Fifo,
                )?,
                Schedule::Obim => crate::cpu::gather_async::run::<P, <P as Runnable>::Weight>(
                    g,
                    &opts,
                    AsyncOrder::Obim,
                )?,
            };
            (run.states, run.report)
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            let gopts = gpu_options(plan);
            let weighted = <P as GatherProgram>::WEIGHTED;
            let (run, name) = super::device_cache::with(plan.device, |slot| {
                let k = slot.kernels::<P, GatherKernels>(|d| d.load_gather::<P>())?;
                let key = gather_key(g, &gopts, weighted);
                let up = slot.graph(key, |d| d.upload_gather(g, &gopts, weighted))?;
                let r = slot
                    .device()
                    .run_gather_uploaded::<P, <P as Runnable>::Weight>(&k, g, &up, &opts, None)?;
                Ok((r, slot.device().info().name.clone()))
            })?;
            report.backend = Backend::Gpu;
            report.device = Some(name);
            report.strategy = "rounds".into();
            (run.states, run.report)
        }
    };
    fill(&mut report, &r);
    Ok(Outcome { values, report })
}

/// `P` in rounds over the plan's GPUs, as `vertex --gpus N` runs it.
fn gpus<P: GatherProgram + Runnable>(
    g: &Graph<<P as Runnable>::Weight>,
    plan: &Plan,
    opts: &GatherOptions,
    report: &mut Report,
) -> Result<(Vec<<P as GatherProgram>::State>, GatherReport)> {
    let gopts = gpu_options(plan);
    let weighted = <P as GatherProgram>::WEIGHTED;
    let r = multi::with(plan, |slot| {
        let k = slot.kernels::<P, Vec<GatherKernels>>(|m| m.load_gather::<P>())?;
        let key = gather_key(g, &gopts, weighted);
        let mg = slot.graph(key, |m| m.upload_gather(g, &gopts, weighted))?;
        let r = slot.device().run_gather::<P>(&k, &mg, opts, None)?;
        multi::describe(slot.device(), "rounds", report);
        Ok(r)
    })?;
    Ok((r.states, r.report))
}

/// The engine's report in the common one (GPU runs report 0 threads).
fn fill(report: &mut Report, r: &GatherReport) {
    report.rounds = u64::from(r.rounds);
    report.edges = r.edges_gathered;
    report.threads = r.threads;
    report.time = r.time;
}

/// [`super::Run::go_batched`] of a gather/apply program that reads its source
/// (what the macro's `Batchable` impl calls): batches of up to 64 sources, each
/// source a lane of every vertex, synchronous rounds in which one walk of a
/// vertex's in-edges serves every lane; each lane stops by the program's rules
/// (tolerance on its own reduction, round limit, quiescence) and ends with the
/// states a run from its source alone gives. On the CPU
/// ([`crate::cpu::gather::batched`]) or the GPU ([`crate::gpu::gather::batched`])
/// as the plan says; `auto` places it as a single run.
pub fn go_batched<P>(
    g: &Graph<<P as Runnable>::Weight>,
    plan: &Plan,
    sources: &[u32],
    each: impl FnMut(crate::gpu::batched::LaneStates<'_, <P as GatherProgram>::State>) -> Result<()>
        + Send,
) -> Result<Report>
where
    P: GatherProgram + Runnable,
{
    let name = <P as GatherProgram>::NAME;
    refuse(
        "kernel / delta / heuristic / schedule",
        plan.kernel.is_some()
            || plan.delta.is_some()
            || plan.heuristic.is_some()
            || plan.schedule.is_some(),
        &format!(
            "program `{name}` runs batched in synchronous rounds (one kind of kernel, no buckets, no other schedule)"
        ),
    )?;
    multi::one_gpu(plan, "batched runs (many sources at once)")?;
    let opts = GatherOptions {
        max_rounds: plan.max_rounds,
        tolerance: plan.tolerance,
        threads: plan.threads,
        ..GatherOptions::default()
    };
    let mut report = Report::empty(name, Kind::Gather);
    let stats = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            report.backend = Backend::Cpu;
            report.threads = crate::cpu::threads_for(plan.threads);
            crate::cpu::gather::batched::run::<P, <P as Runnable>::Weight>(g, &opts, sources, each)?
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            let gopts = gpu_options(plan);
            let weighted = <P as GatherProgram>::WEIGHTED;
            let (stats, name) = super::device_cache::with(plan.device, |slot| {
                let k = slot.kernels::<P, GatherBatchKernels>(|d| d.load_gather_batched::<P>())?;
                let up = slot.graph(gather_key(g, &gopts, weighted), |d| {
                    d.upload_gather(g, &gopts, weighted)
                })?;
                let stats = slot
                    .device()
                    .run_gather_batched::<P, <P as Runnable>::Weight>(
                        &k, g, &up, &opts, sources, each,
                    )?;
                Ok((stats, slot.device().info().name.clone()))
            })?;
            report.backend = Backend::Gpu;
            report.device = Some(name);
            stats
        }
    };
    super::batched_report(&mut report, sources.len(), &stats);
    Ok(report)
}

/// The GPU launch settings a plan asks for.
fn gpu_options(plan: &Plan) -> GatherGpuOptions {
    GatherGpuOptions {
        max_edge_count: plan
            .max_edge_count
            .unwrap_or(GatherGpuOptions::default().max_edge_count),
        ..GatherGpuOptions::default()
    }
}

/// The device cache's key of `g` uploaded for gather runs.
fn gather_key<W: crate::graph::Weight>(
    g: &Graph<W>,
    gopts: &GatherGpuOptions,
    weighted: bool,
) -> GraphKey {
    GraphKey {
        graph: g.id(),
        what: if weighted {
            "gather, weighted"
        } else {
            "gather"
        },
        edges_per_thread: gopts.max_edge_count,
    }
}
