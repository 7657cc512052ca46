//! `vertex lcc GRAPH`: the local clustering coefficient of every vertex, by the
//! per-vertex intersection program `programs::lcc` on the CPU or the GPU.
//!
//! The input is made undirected as for `vertex tc` (both directions, no self
//! loops or parallel edges). `--validate` compares every vertex with
//! `oracle::local_clustering` (absolute difference under 1e-12).

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use serde::Serialize;
use vertex_examples::programs::lcc::Program as Lcc;

use super::common::{human_out, write_result, KernelArgs};
use super::report::{print_json, secs};
use super::tc::{open_undirected, print_text, Shared, Times};

/// Options of `vertex lcc`.
#[derive(Args, Debug, Clone)]
pub struct LccArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    /// Made undirected (symmetrized, without self loops or parallel edges).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// Write `vertex coefficient` per line to this file; `-o -` writes them to
    /// stdout and the summary to stderr (not with --json, which also wants stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Summary {
    #[serde(flatten)]
    run: Shared,
    /// The mean of the coefficients over all vertices.
    average: f64,
    #[serde(flatten)]
    times: Times,
    validated: Option<bool>,
}

pub fn lcc_cmd(a: LccArgs) -> anyhow::Result<()> {
    super::common::check_output(a.output.as_deref(), a.common.json)?;
    let u = open_undirected(&a.graph, &a.common)?;
    let g = &u.loaded.graph;
    let (run, upload_s, backend) = match &u.dev {
        Some(d) => {
            let r = d.run_intersect::<Lcc, _>(g)?;
            (r.run, Some(secs(r.upload_time)), "gpu")
        }
        None => (
            runtime::tc::program::run::<Lcc, _>(g, a.common.threads)?,
            None,
            "cpu",
        ),
    };
    let values = &run.states;
    let average = if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    };
    let validated = a.common.validate.then(|| {
        let expect = runtime::oracle::local_clustering(g.csr());
        expect.len() == values.len()
            && expect
                .iter()
                .zip(values)
                .all(|(e, x)| (e - x).abs() < 1e-12)
    });
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(
                w,
                "# local clustering coefficient on {}: vertex coefficient",
                u.loaded.source
            )?;
            for (v, c) in values.iter().enumerate() {
                writeln!(w, "{v} {c:.12e}")?;
            }
            Ok(())
        })?;
    }
    let (orient_s, count_s) = (secs(run.orient_time), secs(run.count_time));
    let threads = (backend == "cpu").then_some(run.threads);
    let s = Summary {
        run: Shared {
            program: "lcc",
            graph: u.loaded.source.clone(),
            vertices: g.num_vertices(),
            edges: g.num_edges(),
            symmetrized: u.symmetrized,
            backend,
            backend_note: u.note,
            threads,
        },
        average,
        times: Times::new(orient_s, count_s, upload_s, u.load_s, run.in_place),
        validated,
    };
    if a.common.json {
        print_json(&s)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        print_text(
            &mut h,
            &s.run,
            &format!("average      {:.6}", s.average),
            &s.times,
        );
        super::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the coefficients disagree with the sequential oracle");
    }
    Ok(())
}
