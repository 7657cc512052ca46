//! `vertex tc GRAPH`: triangle counting (gapbs `tc`) on the CPU or the GPU, by
//! the DSL program `programs::triangles` (an intersection program: the engine
//! in `runtime::tc::program` and the macro's GPU kernel); `--library` runs the
//! hand-written count (`runtime::tc::count`, the library GPU kernel) instead, to
//! compare the two.
//!
//! Triangles are defined on undirected graphs, so the input is always made
//! undirected here (both directions, no self loops, no parallel edges), as
//! gapbs's `tc` expects of its input; the output says so when the source was
//! directed. `--validate` compares with the sequential oracle.

use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use runtime::gpu::Device;
use runtime::graph::BuildOptions;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;

use super::common::KernelArgs;
use super::report::{print_json, secs};
use vertex_examples::programs::triangles::Program as Triangles;

/// Options of `vertex tc`.
#[derive(Args, Debug, Clone)]
pub struct TcArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, grid:WxH).
    /// Made undirected (symmetrized, without self loops or parallel edges).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    #[command(flatten)]
    pub common: KernelArgs,
    /// Run the hand-written library count instead of the DSL program (for
    /// comparisons; same results).
    #[arg(long, hide = true)]
    pub library: bool,
}

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    /// Stored directed edges of the undirected graph (each edge twice).
    edges: u64,
    /// Whether the input was directed and symmetrized here.
    symmetrized: bool,
    backend: &'static str,
    backend_note: Option<String>,
    threads: Option<usize>,
    triangles: u64,
    /// Orientation plus counting (as gapbs times its relabel and count), seconds.
    time_s: f64,
    orient_s: f64,
    /// CPU: the intersections; GPU: the kernel (CUDA events).
    count_s: f64,
    /// GPU only: copying the oriented graph to the device.
    upload_s: Option<f64>,
    load_s: f64,
    validated: Option<bool>,
}

/// Whether `spec` is undirected as stored (generators, `symmetric` Matrix
/// Market and METIS files, symmetric snapshots), so the output can say when we
/// symmetrized a directed input. Reads headers only.
pub(super) fn source_is_symmetric(spec: &str) -> anyhow::Result<bool> {
    if runtime::generate::GenSpec::parse(spec).is_some() {
        return Ok(true);
    }
    let path = std::path::Path::new(spec);
    let (format, _) = runtime::formats::Format::from_path(path)?;
    if format == runtime::formats::Format::Vgr {
        return Ok(runtime::formats::vgr::read_header(path)?.symmetric);
    }
    Ok(runtime::formats::probe(path)?.symmetric)
}

pub fn tc_cmd(a: TcArgs) -> anyhow::Result<()> {
    let (dev, note) = super::common::pick_gpu(a.common.backend, || {
        Device::open(0).map(|d| (d, ())).map_err(|e| e.to_string())
    })?;
    let dev = dev.map(|(d, ())| d);
    if let (Some(n), false) = (&note, a.common.json) {
        eprintln!("{n}");
    }
    let t_load = Instant::now();
    let symmetrized =
        !source_is_symmetric(&a.graph).with_context(|| format!("loading {}", a.graph))?;
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
    let (triangles, orient_s, count_s, upload_s, backend, threads) = match (&dev, a.library) {
        (Some(d), true) => {
            let r = d.triangle_count(g)?;
            (
                r.triangles,
                secs(r.orient_time),
                r.kernel_ms / 1e3,
                Some(secs(r.upload_time)),
                "gpu",
                None,
            )
        }
        (Some(d), false) => {
            let r = d.run_intersect::<Triangles, _>(g)?;
            (
                r.run.total,
                secs(r.run.orient_time),
                secs(r.run.count_time),
                Some(secs(r.upload_time)),
                "gpu",
                None,
            )
        }
        (None, true) => {
            let r = runtime::tc::count(g, a.common.threads)?;
            (
                r.triangles,
                secs(r.orient_time),
                secs(r.count_time),
                None,
                "cpu",
                Some(r.threads),
            )
        }
        (None, false) => {
            let r = runtime::tc::program::run::<Triangles, _>(g, a.common.threads)?;
            (
                r.total,
                secs(r.orient_time),
                secs(r.count_time),
                None,
                "cpu",
                Some(r.threads),
            )
        }
    };
    let validated = a
        .common
        .validate
        .then(|| runtime::oracle::triangles(g.csr()) == triangles);
    let s = Summary {
        program: "tc",
        graph: loaded.source.clone(),
        vertices: g.num_vertices(),
        edges: g.num_edges(),
        symmetrized,
        backend,
        backend_note: note,
        threads,
        triangles,
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
            "tc on {} ({} vertices, {} undirected edges), {} backend{}",
            s.graph,
            s.vertices,
            s.edges / 2,
            backend,
            threads.map_or(String::new(), |t| format!(", {t} threads"))
        );
        println!("  triangles    {}", s.triangles);
        println!(
            "  time         {:.6} s (orient {:.6} s, count {:.6} s)",
            s.time_s, s.orient_s, s.count_s
        );
        if let Some(u) = s.upload_s {
            println!("  upload       {u:.6} s");
        }
        super::common::print_check(validated, None);
    }
    if validated == Some(false) {
        bail!("the triangle count disagrees with the sequential oracle");
    }
    Ok(())
}
