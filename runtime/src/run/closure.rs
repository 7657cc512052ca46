//! Semiring programs' all-pairs closure through the one run call:
//! [`Run::all_pairs`], blocked Floyd–Warshall over the program's own ⊕ and ⊗
//! ([`ProgramSemiring`]) on the CPU or with its generated kernels on the GPU.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

use super::{multi, place, refuse, Backend, Kind, Outcome, Placed, Report, Run, Runnable};
use crate::apsp::{self, DistMatrix, Elem, ProgramSemiring};
use crate::error::{Error, Result};
use crate::program::{AtomicState, VertexProgram};

impl<P, S> Run<'_, P>
where
    P: Runnable<Weight = S>
        + VertexProgram<State = S, Weight = S>
        + kernels_rs::closure::Semiring<T = S>,
    S: Elem + AtomicState + DeviceRepr + ValidAsZeroBits,
{
    /// The closure of a `semiring` program over every pair of vertices (for a
    /// min-plus program: all-pairs shortest paths), as a dense `n × n` matrix.
    /// A negative cycle is an error naming it. Needs a weighted graph (⊗ is the
    /// program's `relax` of a state by an edge's weight).
    pub fn all_pairs(self) -> Result<Outcome<DistMatrix<S>>> {
        ProgramSemiring::<P>::check()?;
        let plan = &self.plan;
        let name = <P as VertexProgram>::NAME;
        refuse(
            "source / schedule / kernel / delta / heuristic / max_rounds / tolerance",
            plan.source.is_some()
                || self.sources.is_some()
                || plan.schedule.is_some()
                || plan.kernel.is_some()
                || plan.delta.is_some()
                || plan.heuristic.is_some()
                || plan.max_rounds.is_some()
                || plan.tolerance.is_some(),
            "the closure runs from every vertex with blocked Floyd–Warshall",
        )?;
        multi::one_gpu(plan, "all-pairs closures")?;
        let g = self.graph.csr();
        if !g.is_weighted() && g.num_edges() > 0 {
            return Err(Error::InvalidArgument(format!(
                "program `{name}`: its closure multiplies states by edge weights, and the graph has none"
            )));
        }
        let mut report = Report::empty(name, Kind::Push);
        (report.backend, report.backend_reason) = match place::<P>(plan)? {
            Placed::Cpu(why) => (Backend::Cpu, why),
            Placed::Gpu(why) => (Backend::Gpu, why),
        };
        report.strategy = "blocked Floyd–Warshall".into();
        let t0 = std::time::Instant::now();
        let ((m, _), _) = apsp::closure_on::<ProgramSemiring<P>, S>(
            g,
            <ProgramSemiring<P> as apsp::Semiring>::one(),
            Some,
            apsp::fw_cpu::DEFAULT_TILE,
            false,
            report.backend,
        )?;
        report.time = t0.elapsed();
        report.rounds = m.n() as u64;
        Ok(Outcome { values: m, report })
    }
}
