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

use super::common::{say, KernelArgs};
use super::report::{print_json, secs};
use vertex_examples::programs::triangles::Program as Triangles;

/// Options of `vertex tc`.
#[derive(Args, Debug, Clone)]
pub struct TcArgs {
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
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
    #[serde(flatten)]
    run: Shared,
    triangles: u64,
    #[serde(flatten)]
    times: Times,
    validated: Option<bool>,
}

/// What `vertex tc` and `vertex lcc` report alike (flattened into their JSON).
#[derive(Serialize)]
pub(super) struct Shared {
    pub program: &'static str,
    pub graph: String,
    pub vertices: usize,
    /// Stored directed edges of the undirected graph (each edge twice).
    pub edges: u64,
    /// Whether the input was directed and symmetrized here.
    pub symmetrized: bool,
    pub backend: &'static str,
    pub backend_note: Option<String>,
    pub threads: Option<usize>,
}

/// Timings of an intersection run, seconds.
#[derive(Serialize)]
pub(super) struct Times {
    /// Orientation plus counting (as gapbs times its relabel and count).
    pub time_s: f64,
    pub orient_s: f64,
    /// CPU: the intersections (and `apply`); GPU: the kernel (CUDA events).
    pub count_s: f64,
    /// GPU only: copying the rows to the device.
    pub upload_s: Option<f64>,
    pub load_s: f64,
    /// Whether the graph's own rows were counted on (no oriented copy: the
    /// order by id, when ranking by degree is not worth it).
    pub in_place: bool,
}

impl Times {
    pub fn new(
        orient_s: f64,
        count_s: f64,
        upload_s: Option<f64>,
        load_s: f64,
        in_place: bool,
    ) -> Self {
        Times {
            time_s: orient_s + count_s,
            orient_s,
            count_s,
            upload_s,
            load_s,
            in_place,
        }
    }
}

/// The text output's head: what ran where, the result line, the timings.
pub(super) fn print_text(h: &mut dyn std::io::Write, run: &Shared, result: &str, t: &Times) {
    say!(
        h,
        "{} on {} ({} vertices, {} undirected edges), {} backend{}",
        run.program,
        run.graph,
        run.vertices,
        run.edges / 2,
        run.backend,
        run.threads
            .map_or(String::new(), |t| format!(", {t} threads"))
    );
    say!(h, "  {result}");
    say!(
        h,
        "  time         {:.6} s (orient {:.6} s, count {:.6} s{})",
        t.time_s,
        t.orient_s,
        t.count_s,
        if t.in_place {
            ", in place: no copy"
        } else {
            ""
        }
    );
    if let Some(u) = t.upload_s {
        say!(h, "  upload       {u:.6} s");
    }
}

/// The GPU `--backend` picks (if any), with its note, and the graph made
/// undirected (both directions, no self loops or parallel edges).
pub(super) struct Undirected {
    pub dev: Option<Device>,
    pub note: Option<String>,
    pub loaded: runtime::load::Loaded<u32>,
    pub symmetrized: bool,
    pub load_s: f64,
}

pub(super) fn open_undirected(graph: &str, common: &KernelArgs) -> anyhow::Result<Undirected> {
    let (dev, note) = super::common::pick_gpu(common.backend, || {
        Device::open(0).map(|d| (d, ())).map_err(|e| e.to_string())
    })?;
    if let (Some(n), false) = (&note, common.json) {
        eprintln!("{n}");
    }
    super::common::warn_threads_on_gpu(common.threads, dev.is_some());
    let t_load = Instant::now();
    let symmetrized = !source_is_symmetric(graph).with_context(|| format!("loading {graph}"))?;
    let lo = LoadOptions {
        ignore_weights: true,
        build: Some(BuildOptions::undirected()),
        symmetrize: true,
        ..LoadOptions::default()
    };
    let loaded = load_graph::<u32>(graph, &lo).with_context(|| format!("loading {graph}"))?;
    if symmetrized && !common.json {
        eprintln!(
            "{graph}: directed input made undirected (both directions, no self loops or parallel edges)"
        );
    }
    Ok(Undirected {
        dev: dev.map(|(d, ())| d),
        note,
        loaded,
        symmetrized,
        load_s: secs(t_load.elapsed()),
    })
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
    let u = open_undirected(&a.graph, &a.common)?;
    let g = &u.loaded.graph;
    let (triangles, times, backend, threads) = match (&u.dev, a.library) {
        (Some(d), true) => {
            let r = d.triangle_count(g)?;
            let upload_s = Some(secs(r.upload_time));
            let t = Times::new(
                secs(r.orient_time),
                r.kernel_ms / 1e3,
                upload_s,
                u.load_s,
                r.in_place,
            );
            (r.triangles, t, "gpu", None)
        }
        (Some(d), false) => {
            let r = d.run_intersect::<Triangles, _>(g)?;
            let upload_s = Some(secs(r.upload_time));
            let run = r.run;
            let t = Times::new(
                secs(run.orient_time),
                secs(run.count_time),
                upload_s,
                u.load_s,
                run.in_place,
            );
            (run.total, t, "gpu", None)
        }
        (None, true) => {
            let r = runtime::tc::count(g, a.common.threads)?;
            let t = Times::new(
                secs(r.orient_time),
                secs(r.count_time),
                None,
                u.load_s,
                r.in_place,
            );
            (r.triangles, t, "cpu", Some(r.threads))
        }
        (None, false) => {
            let r = runtime::tc::program::run::<Triangles, _>(g, a.common.threads)?;
            let t = Times::new(
                secs(r.orient_time),
                secs(r.count_time),
                None,
                u.load_s,
                r.in_place,
            );
            (r.total, t, "cpu", Some(r.threads))
        }
    };
    let validated = a
        .common
        .validate
        .then(|| runtime::oracle::triangles(g.csr()) == triangles);
    let s = Summary {
        run: Shared {
            program: "tc",
            graph: u.loaded.source.clone(),
            vertices: g.num_vertices(),
            edges: g.num_edges(),
            symmetrized: u.symmetrized,
            backend,
            backend_note: u.note,
            threads,
        },
        triangles,
        times,
        validated,
    };
    if a.common.json {
        print_json(&s)?;
    } else {
        print_text(
            &mut std::io::stdout(),
            &s.run,
            &format!("triangles    {}", s.triangles),
            &s.times,
        );
        super::common::print_check(&mut std::io::stdout(), validated, None);
    }
    if validated == Some(false) {
        bail!("the triangle count disagrees with the sequential oracle");
    }
    Ok(())
}
