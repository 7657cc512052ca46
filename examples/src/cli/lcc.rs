//! `vertex lcc GRAPH`: the local clustering coefficient of every vertex, by the
//! per-vertex intersection program `programs::lcc` on the CPU or the GPU.
//!
//! The input is made undirected as for `vertex tc` (both directions, no self
//! loops or parallel edges). `--validate` compares every vertex with
//! `oracle::local_clustering` (absolute difference under 1e-12).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use runtime::gpu::Device;
use runtime::graph::BuildOptions;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::lcc::Program as Lcc;

use super::common::KernelArgs;
use super::report::{print_json, secs};

/// Options of `vertex lcc`.
#[derive(Args, Debug, Clone)]
pub struct LccArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, grid:WxH).
    /// Made undirected (symmetrized, without self loops or parallel edges).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// Write `vertex coefficient` per line to this file.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    /// Stored directed edges of the undirected graph (each edge twice).
    edges: u64,
    symmetrized: bool,
    backend: &'static str,
    backend_note: Option<String>,
    threads: Option<usize>,
    /// The mean of the coefficients over all vertices.
    average: f64,
    /// Orientation plus intersections and `apply`, seconds.
    time_s: f64,
    orient_s: f64,
    /// CPU: intersections and `apply`; GPU: the kernel (CUDA events).
    count_s: f64,
    upload_s: Option<f64>,
    load_s: f64,
    validated: Option<bool>,
}

pub fn lcc_cmd(a: LccArgs) -> anyhow::Result<()> {
    let (dev, note) = super::common::pick_gpu(a.common.backend, || {
        Device::open(0).map(|d| (d, ())).map_err(|e| e.to_string())
    })?;
    let dev = dev.map(|(d, ())| d);
    if let (Some(n), false) = (&note, a.common.json) {
        eprintln!("{n}");
    }
    let t_load = Instant::now();
    let symmetrized = !super::tc::source_is_symmetric(&a.graph)
        .with_context(|| format!("loading {}", a.graph))?;
    let lo = LoadOptions {
        ignore_weights: true,
        build: Some(BuildOptions::undirected()),
        symmetrize: true,
        ..LoadOptions::default()
    };
    let loaded =
        load_graph::<u32>(&a.graph, &lo).with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    if symmetrized && !a.common.json {
        eprintln!(
            "{}: directed input made undirected (both directions, no self loops or parallel edges)",
            a.graph
        );
    }
    let (run, upload_s, backend) = match &dev {
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
        runtime::formats::vgr::atomic_write(path, |w| {
            writeln!(
                w,
                "# local clustering coefficient on {}: vertex coefficient",
                loaded.source
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
        program: "lcc",
        graph: loaded.source.clone(),
        vertices: g.num_vertices(),
        edges: g.num_edges(),
        symmetrized,
        backend,
        backend_note: note,
        threads,
        average,
        time_s: orient_s + count_s,
        orient_s,
        count_s,
        upload_s,
        load_s,
        validated,
    };
    if a.common.json {
        print_json(&s)?;
    } else {
        println!(
            "lcc on {} ({} vertices, {} undirected edges), {} backend{}",
            s.graph,
            s.vertices,
            s.edges / 2,
            backend,
            threads.map_or(String::new(), |t| format!(", {t} threads"))
        );
        println!("  average      {:.6}", s.average);
        println!(
            "  time         {:.6} s (orient {:.6} s, count {:.6} s)",
            s.time_s, s.orient_s, s.count_s
        );
        if let Some(u) = s.upload_s {
            println!("  upload       {u:.6} s");
        }
        super::common::print_check(validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the coefficients disagree with the sequential oracle");
    }
    Ok(())
}
