//! `vertex cc`: Afforest (`runtime::cc`) by default, or the min-label program
//! through the generic path of [`super::program`].

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use runtime::gpu::{BfsKernel, Device};
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::cc;

use super::program::run_program_with;
use super::{cpu_as_written, gpu_as_written, RunArgs, ScheduleArg};
use crate::cli::common::{human_out, say, warn_unused, write_result};
use crate::cli::report::{print_json, secs};

/// How `vertex cc` finds components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcAlgorithm {
    /// Afforest (gapbs `cc`): lock-free linking with subgraph sampling; its
    /// work does not grow with the diameter. Directed inputs: in-edges too.
    Afforest,
    /// Min-label propagation, the `#[vertex_program]` example: one round per
    /// hop of the diameter (slow on grids and roads). Runs on the symmetrized
    /// graph.
    Label,
}

/// `vertex cc`: the shared run options plus the algorithm.
#[derive(Args, Debug, Clone)]
pub struct CcArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[arg(long, value_enum, default_value_t = CcAlgorithm::Afforest)]
    pub algorithm: CcAlgorithm,
}

/// Weakly connected components whatever the input: Afforest walks in- and
/// out-edges; the label program, which only pushes along out-edges, gets the
/// symmetrized graph (an edge list stored one way would otherwise split).
pub fn cc_cmd(a: CcArgs) -> anyhow::Result<()> {
    match a.algorithm {
        CcAlgorithm::Afforest => afforest_cmd(a.run),
        CcAlgorithm::Label => run_program_with::<cc::Program>(
            a.run,
            |g, _| runtime::oracle::components(g.csr()),
            true,
            cpu_as_written::<cc::Program>,
            gpu_as_written::<cc::Program>,
        ),
    }
}

/// `vertex cc --json` for Afforest: the fields of the other programs plus the
/// algorithm and the component counts.
#[derive(Serialize)]
struct CcSummary {
    program: &'static str,
    algorithm: CcAlgorithm,
    graph: String,
    vertices: usize,
    edges: u64,
    /// The input had no reverse twins guaranteed: in-edges were walked too.
    directed_input: bool,
    backend: &'static str,
    backend_note: Option<String>,
    /// Linking and compressing only (no loading, no in-edge build, no upload).
    time_s: f64,
    load_s: f64,
    /// Link passes: the neighbour rounds plus the final one.
    rounds: u64,
    reached: u64,
    teps: f64,
    /// Largest label (the smallest id of the last component), a JSON number.
    max_value: Option<u32>,
    /// Worker threads of the CPU run (`null` on the GPU).
    threads: Option<usize>,
    components: u64,
    largest_component: u64,
    /// Share of the sampled vertices in the component the last pass skipped.
    skipped_share: f64,
    validated: Option<bool>,
}

fn open_cc_gpu() -> Result<(Device, runtime::gpu::cc::CcKernels), String> {
    let dev = Device::open(0).map_err(|e| e.to_string())?;
    let k = dev.load_cc().map_err(|e| e.to_string())?;
    Ok((dev, k))
}

fn afforest_cmd(a: RunArgs) -> anyhow::Result<()> {
    crate::cli::common::check_output(a.output.as_deref(), a.json)?;
    if a.gpus != 1 {
        bail!("--gpus {}: cc --algorithm afforest runs on one GPU", a.gpus);
    }
    let (gpu, note) = crate::cli::common::pick_gpu(a.backend, open_cc_gpu)?;
    if let Some(n) = &note {
        if !a.json {
            eprintln!("{n}");
        }
    }
    warn_unused_afforest(&a, gpu.is_some());
    let opts = LoadOptions {
        ignore_weights: true,
        ..LoadOptions::default()
    };
    let t_load = Instant::now();
    let loaded =
        load_graph::<u32>(&a.graph, &opts).with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    let n = g.num_vertices();
    let ao = runtime::cc::AfforestOptions {
        threads: a.threads,
        ..Default::default()
    };
    let (labels, time_s, share, backend, threads) = match &gpu {
        Some((dev, k)) => {
            let dg = dev.upload_traversal(g, false)?;
            let r = dev.afforest(k, &dg, &ao)?;
            (r.labels, r.time_ms * 1e-3, r.skipped_share, "gpu", None)
        }
        None => {
            let r = runtime::cc::afforest(g, &ao)?;
            let t = Some(r.report.threads);
            (
                r.labels,
                secs(r.report.time),
                r.report.skipped_share,
                "cpu",
                t,
            )
        }
    };
    let validated = a
        .validate
        .then(|| runtime::oracle::components(g.csr()) == labels);
    if let Some(path) = &a.output {
        write_result(path, |w| {
            writeln!(
                w,
                "# cc on {}: vertex component (its smallest vertex id)",
                loaded.source
            )?;
            for (v, l) in labels.iter().enumerate() {
                writeln!(w, "{v} {l}")?;
            }
            Ok(())
        })?;
    }
    let edges = g.num_edges();
    let s = CcSummary {
        program: "cc",
        algorithm: CcAlgorithm::Afforest,
        graph: loaded.source.clone(),
        vertices: n,
        edges,
        directed_input: !g.is_symmetric(),
        backend,
        backend_note: note,
        time_s,
        load_s,
        rounds: u64::from(ao.neighbor_rounds) + 1,
        reached: n as u64,
        teps: if time_s > 0.0 {
            edges as f64 / time_s
        } else {
            0.0
        },
        max_value: labels.iter().max().copied(),
        threads,
        components: runtime::cc::count_components(&labels),
        largest_component: runtime::cc::largest_component(&labels),
        skipped_share: share,
        validated,
    };
    if a.json {
        print_json(&s)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "cc (afforest) on {} ({} vertices, {} edges{}), {} backend",
            s.graph,
            n,
            edges,
            if s.directed_input {
                ", directed: weak components"
            } else {
                ""
            },
            backend
        );
        say!(
            h,
            "  time         {:.6} s ({} link passes)",
            time_s,
            s.rounds
        );
        say!(
            h,
            "  components   {} (largest {} vertices)",
            s.components,
            s.largest_component
        );
        if let Some(m) = &s.max_value {
            say!(h, "  max value    {m}");
        }
        say!(h, "  rate         {:.3} M edges/s", s.teps / 1e6);
        crate::cli::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}

/// Warns about the options of `vertex cc` that Afforest does not read: it is not
/// a vertex program, so it has no schedule, kernel choice, buckets, source or
/// weights (`--algorithm label` runs the program that has them).
fn warn_unused_afforest(a: &RunArgs, on_gpu: bool) {
    let why =
        "cc --algorithm afforest has no such setting (--algorithm label runs the vertex program)";
    if a.schedule != ScheduleArg::Auto {
        warn_unused(&format!("--schedule {:?}", a.schedule).to_lowercase(), why);
    }
    if !matches!(a.kernel, BfsKernel::Auto) {
        warn_unused(&format!("--kernel {}", a.kernel.name()), why);
    }
    if let Some(m) = a.max_edge_count {
        warn_unused(&format!("--max-edge-count {m}"), why);
    }
    if let Some(d) = &a.delta {
        warn_unused(&format!("--delta {d}"), why);
    }
    if a.source.is_some() {
        warn_unused("--source", "components start from every vertex");
    }
    if let Some((lo, hi)) = a.weights {
        warn_unused(
            &format!("--weights {lo}..{hi}"),
            "components do not read edge weights",
        );
    }
    crate::cli::common::warn_threads_on_gpu(a.threads, on_gpu);
}
