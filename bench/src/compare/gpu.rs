//! The GPU as one more column of a comparison ([`crate::compare`]): the same
//! program, its generated kernels, checked against the same reference run as the
//! CPU schedules.
//!
//! The graph is uploaded once, when the runner is made, so the column's time is
//! the traversal alone (CUDA events), as the CPU columns' times are; uploading is
//! a cost a user pays once per graph, not per run.

use std::time::Duration;

use super::Runner;
use runtime::cpu::{RunReport, RunResult};
use runtime::error::{Error, Result};
use runtime::gpu::device::{Device, DeviceGraph};
use runtime::gpu::program_api::{GpuProgram, ProgramKernels, ProgramOptions};
use runtime::graph::Graph;
use runtime::program::VertexProgram;

/// A program's kernels on one device, with one graph already uploaded.
pub struct GpuRunner {
    dev: Device,
    kernels: ProgramKernels,
    graph: DeviceGraph,
    /// `(vertices, edges)` of the uploaded graph: a run on another graph is refused.
    shape: (usize, u64),
    opts: ProgramOptions,
    name: String,
}

impl GpuRunner {
    /// Takes `P`'s kernels loaded on `dev` (`Device::load_program`) and uploads `g`
    /// (with in-edges, so the direction kernel can go bottom-up).
    pub fn new<P: GpuProgram>(
        dev: Device,
        kernels: ProgramKernels,
        g: &Graph<<P as VertexProgram>::Weight>,
    ) -> Result<Self> {
        let graph = dev.upload_traversal(g, <P as VertexProgram>::WEIGHTED)?;
        // `--kernel auto`'s pick, probed from the first vertex with out-edges:
        // resident queues on high-diameter graphs, else direction for BFS-like
        // programs and edge chunks for the rest (see `runtime::gpu::auto`).
        let from = (0..g.num_vertices() as u32)
            .find(|&v| g.csr().degree(v) > 0)
            .unwrap_or(0);
        let choice = runtime::gpu::auto::choose::<P>(g, from);
        let opts = choice.options(ProgramOptions::default());
        Ok(GpuRunner {
            name: "gpu".into(),
            shape: (g.num_vertices(), g.num_edges()),
            dev,
            kernels,
            graph,
            opts,
        })
    }

    /// The device's name, for the comparison's header.
    pub fn device_name(&self) -> &str {
        &self.dev.info().name
    }
}

impl<P: GpuProgram> Runner<P> for GpuRunner {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn threads(&self) -> Option<usize> {
        None
    }
    fn counts_edges(&self) -> bool {
        false // the kernels do not count relaxations
    }
    fn run(
        &self,
        g: &Graph<<P as VertexProgram>::Weight>,
        source: u32,
    ) -> Result<RunResult<<P as VertexProgram>::State>> {
        if (g.num_vertices(), g.num_edges()) != self.shape {
            return Err(Error::InvalidArgument(format!(
                "this GPU runner holds a graph of {} vertices and {} edges, not the one given",
                self.shape.0, self.shape.1
            )));
        }
        let r = self
            .dev
            .run_program::<P>(&self.kernels, &self.graph, source, &self.opts)?;
        Ok(RunResult {
            states: r.states,
            report: RunReport {
                threads: 0,
                time: Duration::from_secs_f64(r.time_ms.max(0.0) * 1e-3),
                rounds: u64::from(r.num_levels),
                pull_rounds: r.directions.iter().filter(|l| l.bottom_up).count() as u64,
                delta: self.opts.delta,
                ..RunReport::default()
            },
        })
    }
}
