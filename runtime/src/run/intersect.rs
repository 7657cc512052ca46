//! Intersection programs (`intersect = ..`) through the one run call: the
//! oriented merge of [`crate::tc::program`] on the CPU, the generated kernel of
//! [`Device::run_intersect_rows`] on the GPU. When the graph's own rows are read
//! (in place), the GPU reads the upload its traversal programs share (the
//! device cache's `traversal` entry), so a graph on the device is not copied
//! again.
//!
//! [`Device::run_intersect_rows`]: crate::gpu::Device::run_intersect_rows

use std::time::Instant;

use kernels_rs::intersect::IntersectProgram;

use super::device_cache::GraphKey;
use super::{multi, place, refuse, Backend, Kind, Outcome, Placed, Plan, Report, Runnable};
use crate::error::Result;
use crate::graph::Graph;

/// The strategy a report names.
fn strategy(in_place: bool, gpu: bool) -> String {
    let rows = if in_place {
        "merge on the graph's own rows"
    } else {
        "oriented merge (degree-ordered copy)"
    };
    if gpu {
        format!("{rows}, a thread per edge")
    } else {
        rows.into()
    }
}

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
        "source / schedule / kernel / delta / heuristic / max_rounds / tolerance",
        plan.source.is_some()
            || plan.schedule.is_some()
            || plan.kernel.is_some()
            || plan.delta.is_some()
            || plan.heuristic.is_some()
            || plan.max_rounds.is_some()
            || plan.tolerance.is_some(),
        &format!("program `{name}` intersects neighbour lists once: it has no source, schedule, kernel choice or rounds"),
    )?;
    multi::one_gpu(plan, "intersection programs")?;
    let mut report = Report::empty(name, Kind::Intersect);
    let run = match place::<P>(plan)? {
        Placed::Cpu(why) => {
            report.backend_reason = why;
            let r = crate::tc::program::run::<P, u32>(g, plan.threads)?;
            report.strategy = strategy(r.in_place, false);
            r
        }
        Placed::Gpu(why) => {
            report.backend_reason = why;
            let (r, dev) = super::device_cache::with(plan.device, |slot| {
                let t0 = Instant::now();
                let o = crate::tc::orientation(g)?;
                let orient_time = t0.elapsed();
                let uploaded = if o.in_place() {
                    // The key push programs upload an undirected graph under.
                    let key = GraphKey {
                        graph: g.id(),
                        what: "traversal",
                        edges_per_thread: 0,
                    };
                    Some(slot.graph(key, |d| d.upload_traversal(g, false))?)
                } else {
                    None
                };
                let mut r = slot
                    .device()
                    .run_intersect_rows::<P>(&o, uploaded.as_deref())?;
                r.run.orient_time = orient_time;
                Ok((r, slot.device().info().name.clone()))
            })?;
            report.backend = Backend::Gpu;
            report.device = Some(dev);
            report.strategy = strategy(r.run.in_place, true);
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
