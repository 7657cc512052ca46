//! Push programs (`combine = ..`) through the one run call: the CPU schedules of
//! [`crate::cpu::run`] and the GPU kernels of [`Device::run_program`], each with
//! its `auto` choice when the plan names none; on several GPUs the direction
//! kernel of [`MultiGpu::run_program`].
//!
//! [`Device::run_program`]: crate::gpu::Device::run_program
//! [`MultiGpu::run_program`]: crate::gpu::multi::MultiGpu::run_program

use std::time::Duration;

use super::device_cache::{self, GraphKey};
use super::{
    multi, pick_source, place, refuse, Backend, Kind, Outcome, Placed, Plan, Report, Runnable,
};
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
    direction_only(plan)?;
    if let Some(why) = multi::placed::<P>(plan)? {
        report.backend_reason = why;
        let values = gpus::<P>(g, s, plan, &mut report)?;
        return Ok(Outcome { values, report });
    }
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

/// Refuses a kernel other than the direction kernel on several GPUs: it is
/// the one kernel with a multi-GPU engine, and running another than the one
/// named would mislead.
fn direction_only(plan: &Plan) -> Result<()> {
    match plan.kernel {
        Some(k) if plan.gpus > 1 && !matches!(k, BfsKernel::Auto | BfsKernel::Direction) => refuse(
            &format!("kernel {}", k.name()),
            true,
            &format!(
                "on several GPUs (gpus {}) the direction kernel runs, on a 1-D partition: name `direction` or `auto`",
                plan.gpus
            ),
        ),
        _ => Ok(()),
    }
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
    let dg = slot.graph(traversal_key(g, weighted), |d| {
        d.upload_traversal(g, weighted)
    })?;
    Ok((k, dg))
}

/// The cache key of `g` uploaded for traversal (with its weights or not).
fn traversal_key<W: crate::graph::Weight>(g: &Graph<W>, weighted: bool) -> GraphKey {
    GraphKey {
        graph: g.id(),
        what: if weighted {
            "traversal, weighted"
        } else {
            "traversal"
        },
        edges_per_thread: 0,
    }
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
        heuristic: plan.heuristic.unwrap_or_default(),
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

/// `P` from `source` with the direction kernel over the plan's GPUs, as
/// `vertex --gpus N` runs it.
fn gpus<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
    plan: &Plan,
    report: &mut Report,
) -> Result<Vec<<P as VertexProgram>::State>> {
    let opts = ProgramOptions {
        kernel: BfsKernel::Direction,
        max_edge_count: plan.max_edge_count,
        delta: plan.delta,
        heuristic: plan.heuristic.unwrap_or_default(),
        ..ProgramOptions::default()
    };
    report.warning = crate::gpu::auto::several_gpus_warning::<P>(g, source)
        .map(|why| format!("gpus {}: {why}", plan.gpus));
    let weighted = <P as VertexProgram>::WEIGHTED;
    let r = multi::with(plan, |slot| {
        let k = slot.kernels::<P, Vec<ProgramKernels>>(|m| m.load_program::<P>())?;
        let mg = slot.graph(traversal_key(g, weighted), |m| m.upload(g, weighted))?;
        let r = slot.device().run_program::<P>(&k, &mg, source, &opts)?;
        multi::describe(slot.device(), BfsKernel::Direction.name(), report);
        Ok(r)
    })?;
    if matches!(plan.kernel, None | Some(BfsKernel::Auto)) {
        report.strategy_reason =
            Some("the direction kernel is the one that runs on several GPUs".into());
    }
    report.rounds = r.levels.len() as u64;
    report.time = Duration::from_secs_f64(r.time_ms * 1e-3);
    Ok(r.states)
}

/// [`super::Run::go_batched`] of a push program (what the macro's `Batchable`
/// impl calls): programs that start from a source and combine idempotently
/// (BFS, SSSP, widest path, reachability, ...), 64 sources a batch, each edge
/// read once for every source live at its vertex, on the CPU or the GPU as the
/// plan says. The report's rounds and edges are summed over the batches (edges
/// count one per live source per edge read).
pub fn go_batched<P>(
    g: &Graph<<P as VertexProgram>::Weight>,
    plan: &Plan,
    sources: &[u32],
    each: impl FnMut(LaneStates<'_, <P as VertexProgram>::State>) -> Result<()> + Send,
) -> Result<Report>
where
    P: GpuProgram + Runnable<Weight = <P as VertexProgram>::Weight>,
{
    refuse(
        "max_rounds / tolerance / kernel / delta / heuristic / schedule",
        plan.max_rounds.is_some()
            || plan.tolerance.is_some()
            || plan.kernel.is_some()
            || plan.delta.is_some()
            || plan.heuristic.is_some()
            || plan.schedule.is_some(),
        "settings of single-source runs; batched runs have their own rounds",
    )?;
    multi::one_gpu(plan, "batched runs (many sources at once)")?;
    crate::gpu::batched::check_batchable::<P>()?;
    let mut report = Report::empty(<P as VertexProgram>::NAME, Kind::Push);
    let stats = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            report.backend = Backend::Cpu;
            let stats = crate::cpu::batched::run::<P>(g, sources, plan.threads, each)?;
            report.threads = crate::cpu::threads_for(plan.threads);
            stats
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            let (stats, name) = device_cache::with(plan.device, |slot| {
                let (k, dg) = program_and_graph::<P>(slot, g)?;
                let stats = slot.device().run_batched::<P>(&k, &dg, sources, each)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_gpus_take_the_direction_kernel_only() {
        let on = |gpus, kernel| Plan {
            backend: Backend::Gpu,
            gpus,
            kernel,
            ..Plan::default()
        };
        let e = direction_only(&on(2, Some(BfsKernel::Tiles)))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("kernel tiles:") && e.contains("direction"),
            "{e}"
        );
        for k in [None, Some(BfsKernel::Auto), Some(BfsKernel::Direction)] {
            direction_only(&on(2, k)).unwrap();
        }
        direction_only(&on(1, Some(BfsKernel::Tiles))).unwrap();
    }
}
