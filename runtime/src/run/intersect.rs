//! Intersection programs (`intersect = ..`) through the one run call: the
//! oriented merge of [`crate::tc::program`] on the CPU, the generated kernel of
//! [`Device::run_intersect`] on the GPU.
//!
//! [`Device::run_intersect`]: crate::gpu::Device::run_intersect

use kernels_rs::intersect::IntersectProgram;

use super::{place, refuse, Backend, Kind, Outcome, Placed, Plan, Report, Runnable};
use crate::error::Result;
use crate::graph::Graph;

/// What an intersection program computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Intersected<A, S> {
    /// `per = graph`: the reduction over every triangle; `per = vertex`: the
    /// reduction's identity.
    pub total: A,
    /// `per = vertex`: `apply` of each vertex; empty for `per = graph`.
    pub states: Vec<S>,
}

/// [`Runnable::go`] of an intersection program (what the macro's impl calls).
pub fn go<P>(g: &Graph<u32>, plan: &Plan) -> Result<Outcome<Intersected<P::Acc, P::State>>>
where
    P: IntersectProgram + Runnable<Weight = u32>,
{
    let name = <P as IntersectProgram>::NAME;
    refuse(
        "source / schedule / kernel / delta / max_rounds / tolerance",
        plan.source.is_some()
            || plan.schedule.is_some()
            || plan.kernel.is_some()
            || plan.delta.is_some()
            || plan.max_rounds.is_some()
            || plan.tolerance.is_some(),
        &format!("program `{name}` intersects neighbour lists once: it has no source, schedule, kernel choice or rounds"),
    )?;
    let mut report = Report::empty(name, Kind::Intersect);
    let run = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            report.strategy = "oriented merge".into();
            crate::tc::program::run::<P, u32>(g, plan.threads)?
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            report.strategy = "oriented merge, a thread per edge".into();
            let (r, dev) = super::device_cache::with(plan.device, |slot| {
                Ok((
                    slot.device().run_intersect::<P, u32>(g)?,
                    slot.device().info().name.clone(),
                ))
            })?;
            report.backend = Backend::Gpu;
            report.device = Some(dev);
            r.run
        }
    };
    report.edges = run.oriented_edges;
    report.threads = run.threads;
    report.time = run.orient_time + run.count_time;
    Ok(Outcome {
        values: Intersected {
            total: run.total,
            states: run.states,
        },
        report,
    })
}
