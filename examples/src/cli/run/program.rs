//! The generic path every shipped program runs through: load the graph with the
//! program's weight type, pick the backend and its settings, run, summarise the
//! states, optionally validate and write them.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context};
use runtime::cpu::{auto, AsyncOptions, CpuOptions};
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::Graph;
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use runtime::program::schedule_name;
use runtime::program::{Schedule, VertexProgram};
use serde::Serialize;
use vertex_examples::programs::bfs;

use super::{open_gpu, Backend, CpuRun, GpuRun, Oracle, RunArgs, ScheduleArg};
use crate::cli::common::{human_out, say, warn_unused, write_result};
use crate::cli::report::{print_json, secs};

#[derive(Serialize)]
struct Summary {
    program: &'static str,
    graph: String,
    vertices: usize,
    edges: u64,
    source: Option<u32>,
    /// How the source was chosen when none was given.
    source_note: Option<String>,
    backend: &'static str,
    /// The CPU schedule that ran (CPU backend).
    schedule: Option<&'static str>,
    /// Why `--schedule auto` picked it.
    schedule_note: Option<String>,
    /// Worker threads of the CPU run (`null` on the GPU).
    threads: Option<usize>,
    /// What the CPU run changed about the program's states (integer SSSP: 32-bit
    /// distances where no path can overflow them).
    #[serde(skip_serializing_if = "Option::is_none")]
    states_note: Option<String>,
    /// The GPU kernel that ran (GPU backend).
    kernel: Option<&'static str>,
    /// Why `--kernel auto` picked it.
    kernel_note: Option<String>,
    /// The resident kernel's rounds by width (GPU, `--kernel resident`).
    #[serde(skip_serializing_if = "Option::is_none")]
    resident: Option<runtime::gpu::resident::ResidentStats>,
    /// The tiled kernel's work (GPU, `--kernel tiles`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tiles: Option<runtime::gpu::program::TileStats>,
    backend_note: Option<String>,
    /// Traversal only (no loading): CUDA events on the GPU, wall clock on the CPU.
    time_s: f64,
    load_s: f64,
    rounds: u64,
    reached: u64,
    /// Edges out of reached vertices over the traversal time (Graph500-style TEPS
    /// counts input edges; this counts stored directed edges).
    teps: f64,
    /// The largest value of a reached vertex, as a JSON number (unreached
    /// vertices, whose value is the program's infinity, are left out; `null`
    /// when there is no value, or for a float that is not finite).
    max_value: Option<serde_json::Value>,
    validated: Option<bool>,
}

/// Warns when several GPUs are likely much slower than one
/// ([`runtime::gpu::auto::several_gpus_warning`]).
fn warn_high_diameter_gpus<P: GpuProgram>(
    g: &runtime::graph::Graph<<P as VertexProgram>::Weight>,
    source: u32,
    gpus: usize,
) {
    if let Some(why) = runtime::gpu::auto::several_gpus_warning::<P>(g, source) {
        eprintln!("warning: --gpus {gpus}: {why}");
    }
}

/// [`super::run_program`], on the symmetrized graph if `symmetrize`, with `cpu` as the
/// CPU run.
pub(super) fn run_program_with<P: GpuProgram>(
    a: RunArgs,
    oracle: Oracle<P>,
    symmetrize: bool,
    cpu: CpuRun<P>,
    gpu_run: GpuRun<P>,
) -> anyhow::Result<()>
where
    <P as VertexProgram>::State: std::fmt::Display + Serialize,
{
    crate::cli::common::check_output(a.output.as_deref(), a.json)?;
    crate::cli::common::check_exchange(a.gpus, a.exchange)?;
    if a.gpus == 0 || (a.gpus > 1 && a.backend == Backend::Cpu) {
        bail!(
            "--gpus {}: expected 1, or more with --backend gpu|auto",
            a.gpus
        );
    }
    // Pick the backend first: a GPU request that cannot work fails before loading.
    // `--backend auto` keeps the first attempt's error: it is the note's text.
    let (gpu, note) = crate::cli::common::pick_gpu(a.backend, open_gpu::<P>)?;
    if let Some(n) = &note {
        if !a.json {
            eprintln!("{n}");
        }
    }
    let mut opts = LoadOptions {
        symmetrize,
        ..LoadOptions::default()
    };
    let file_weighted = weight_kind_of(&a.graph)?.is_some();
    if let (Some((lo, hi)), false) = (a.weights, P::WEIGHTED) {
        warn_unused(
            &format!("--weights {lo}..{hi}"),
            &format!("`{}` reads no edge weights", P::NAME),
        );
    }
    if let Some((lo, hi)) = a.weights {
        if file_weighted && !a.json {
            eprintln!(
                "{}: --weights {lo}..{hi} replaces the weights stored in {}",
                P::NAME,
                a.graph
            );
        }
        opts.random_weights = Some((lo, hi, 1));
    } else if P::WEIGHTED && !file_weighted {
        if !a.json {
            eprintln!(
                "{}: the graph has no weights; using random weights 1..255 (--weights to choose)",
                P::NAME
            );
        }
        opts.random_weights = Some((1, 255, 1));
    } else if !P::WEIGHTED {
        opts.ignore_weights = true;
    }
    let t_load = Instant::now();
    let loaded = load_graph::<<P as VertexProgram>::Weight>(&a.graph, &opts)
        .with_context(|| format!("loading {}", a.graph))?;
    let load_s = secs(t_load.elapsed());
    let g = &loaded.graph;
    let n = g.num_vertices();
    let (source, source_note) = match a.source {
        Some(s) => (s, None),
        None if !P::NEEDS_SOURCE => (0, None),
        None => match (0..n as u32).find(|&v| g.csr().degree(v) > 0) {
            Some(v) => (
                v,
                Some(format!(
                    "vertex {v}, the first with out-edges (--source to choose)"
                )),
            ),
            None => (0, Some("vertex 0: the graph has no edges".to_string())),
        },
    };
    if a.source.is_some() && !P::NEEDS_SOURCE {
        warn_unused(
            "--source",
            &format!("`{}` starts from every vertex", P::NAME),
        );
    }
    if P::NEEDS_SOURCE && source as usize >= n {
        bail!(
            "source vertex {source} is out of range: the graph has {n} vertices (ids are 0-based)"
        );
    }

    let delta = match a.delta.as_deref() {
        None => None,
        Some("auto") => Some(runtime::gpu::program::gpu_delta::<P>(g, source)),
        Some(d) => Some(
            d.parse::<u64>()
                .ok()
                .filter(|&d| d > 0)
                .with_context(|| format!("--delta {d}: expected a positive integer or `auto`"))?,
        ),
    };
    let base = ProgramOptions {
        kernel: a.kernel,
        max_edge_count: a.max_edge_count,
        delta,
        ..ProgramOptions::default()
    };
    let (po, kernel_note) = match &gpu {
        Some(_) if a.gpus > 1 => {
            warn_high_diameter_gpus::<P>(g, source, a.gpus);
            (
                ProgramOptions {
                    kernel: BfsKernel::Direction,
                    ..base
                },
                None,
            )
        }
        Some(_) => runtime::gpu::auto::options_for::<P>(g, source, a.kernel, base),
        None => (base, None),
    };
    let (kernel, delta) = (po.kernel, po.delta);
    warn_unused_backend_options::<P>(&a, gpu.is_some());
    // --delta N is the obim bucket width too (`auto` leaves it to the engine).
    let cpu_delta = delta.filter(|_| a.delta.as_deref() != Some("auto"));
    let mut resident = None;
    let mut tiles = None;
    let mut states_note = None;
    let mut threads = None;
    let mut route_note = None;
    let (states, time_s, rounds, backend, ran) = match &gpu {
        Some(_) if a.gpus > 1 => {
            let multi = crate::cli::common::open_gpus(a.gpus, a.exchange)?;
            // Which exchange ran (--exchange or VERTEX_EXCHANGE picks it).
            route_note = Some(format!(
                "{} GPUs, exchange: {}",
                a.gpus,
                multi.route().describe()
            ));
            let k = multi.load_program::<P>()?;
            let mg = multi.upload(g, P::WEIGHTED)?;
            let r = multi.run_program::<P>(&k, &mg, source, &po)?;
            (
                r.states,
                r.time_ms * 1e-3,
                r.levels.len() as u64,
                "gpus",
                None,
            )
        }
        Some((dev, k)) => {
            // With in-edges, so that the direction kernel can go bottom-up.
            let dg = dev.upload_traversal(g, P::WEIGHTED)?;
            let (r, note) = gpu_run(g, dev, k, &dg, source, &po)?;
            states_note = note;
            resident = r.resident;
            tiles = r.tiles;
            (
                r.states,
                r.time_ms * 1e-3,
                u64::from(r.num_levels),
                "gpu",
                None,
            )
        }
        None => {
            let co = CpuOptions {
                threads: a.threads,
                ..CpuOptions::default()
            };
            let (schedule, why) = match a.schedule {
                ScheduleArg::Auto => {
                    let c = auto::choose::<P>(g, source);
                    (c.schedule, Some(c.reason))
                }
                ScheduleArg::Sync => (Schedule::Sync, None),
                ScheduleArg::Async => (Schedule::Async, None),
                ScheduleArg::Obim => (Schedule::Obim, None),
            };
            let aopts = AsyncOptions {
                delta: cpu_delta,
                ..AsyncOptions::default()
            };
            if let (Some(d), true, false) = (&a.delta, P::HAS_PRIORITY, schedule == Schedule::Obim)
            {
                warn_unused(
                    &format!("--delta {d}"),
                    &format!(
                        "the CPU schedule is {}; only obim has buckets",
                        schedule_name(schedule)
                    ),
                );
            }
            let (r, note) = cpu(g, source, schedule, &co, &aopts)?;
            states_note = note;
            threads = Some(r.report.threads);
            let rounds = r.report.rounds;
            (
                r.states,
                secs(r.report.time),
                rounds,
                "cpu",
                Some((schedule_name(schedule), why)),
            )
        }
    };

    // Every vertex but the source starts at this value; it stays if unreached.
    // The source is reached by definition (also where it is the only vertex,
    // and no other vertex's initial value can be asked for).
    let unreached = P::NEEDS_SOURCE
        .then(|| <P as VertexProgram>::init(if source == 0 { 1 } else { 0 }, source));
    let is_reached = |v: usize, s: &<P as VertexProgram>::State| {
        !P::NEEDS_SOURCE || v == source as usize || unreached.is_none_or(|u| *s != u)
    };
    let csr = g.csr();
    let (reached, edges) = states
        .iter()
        .enumerate()
        .filter(|&(v, s)| is_reached(v, s))
        .fold((0u64, 0u64), |(r, e), (v, _)| {
            (r + 1, e + csr.degree(v as u32))
        });
    let max_value = states
        .iter()
        .enumerate()
        .filter(|&(v, s)| is_reached(v, s))
        .map(|(_, s)| *s)
        .reduce(|x, y| if y > x { y } else { x });
    let validated = if a.validate {
        Some(oracle(g, source) == states)
    } else {
        None
    };
    if let Some(path) = &a.output {
        // BFS also writes each vertex's parent in a BFS tree.
        let parents = (std::any::TypeId::of::<P>() == std::any::TypeId::of::<bfs::Program>())
            .then(|| bfs_parents::<P>(g, &states, source, &is_reached));
        write_result(path, |w| {
            let from = if P::NEEDS_SOURCE {
                format!(" from {source}")
            } else {
                String::new()
            };
            let columns = if parents.is_some() {
                "vertex level parent"
            } else {
                "vertex value"
            };
            writeln!(w, "# {} on {}{from}: {columns}", P::NAME, loaded.source)?;
            for (v, s) in states.iter().enumerate() {
                let parent = match parents.as_ref().map(|p| p[v]) {
                    None => String::new(),
                    Some(Some(u)) => format!(" {u}"),
                    Some(None) => " -".to_string(),
                };
                // Unreached: an infinite distance or level, but for a program
                // that keeps the largest value (widest paths) its state as is
                // (width 0): `inf` would read as an unlimited width.
                if is_reached(v, s) || P::COMBINE == runtime::program::Combine::Max {
                    writeln!(w, "{v} {s}{parent}")?;
                } else {
                    writeln!(w, "{v} inf{parent}")?;
                }
            }
            Ok(())
        })?;
    }
    let summary = Summary {
        program: P::NAME,
        graph: loaded.source.clone(),
        vertices: n,
        edges: csr.num_edges(),
        source: P::NEEDS_SOURCE.then_some(source),
        source_note,
        backend,
        schedule: ran.as_ref().map(|r| r.0),
        schedule_note: ran.and_then(|r| r.1),
        threads,
        states_note,
        // The tiled kernel hands a graph too large for it to the resident one.
        // The direction kernel may hand a long tail over to it.
        kernel: (backend != "cpu").then(|| match (kernel, &resident) {
            (BfsKernel::Tiles, Some(_)) => BfsKernel::Resident.name(),
            (BfsKernel::Direction, Some(_)) => "direction, then resident",
            _ => kernel.name(),
        }),
        kernel_note,
        resident,
        tiles,
        backend_note: note.or(route_note),
        time_s,
        load_s,
        rounds,
        reached,
        teps: if time_s > 0.0 {
            edges as f64 / time_s
        } else {
            0.0
        },
        // A number (integers exactly, u64 included); a float that is not
        // finite serializes as `null`.
        max_value: max_value.map(serde_json::to_value).transpose()?,
        validated,
    };
    if a.json {
        print_json(&summary)?;
    } else {
        let mut h = human_out(a.output.as_deref());
        say!(
            h,
            "{} on {} ({} vertices, {} edges), {} backend",
            summary.program,
            summary.graph,
            n,
            summary.edges,
            backend
        );
        if let Some(s) = summary.source {
            match &summary.source_note {
                Some(why) => say!(h, "  source       {why}"),
                None => say!(h, "  source       {s}"),
            }
        }
        if let Some(s) = summary.schedule {
            match &summary.schedule_note {
                Some(why) => say!(h, "  schedule     {s} (auto: {why})"),
                None => say!(h, "  schedule     {s}"),
            }
        }
        if let Some(n) = &summary.states_note {
            say!(h, "  states       {n}");
        }
        if let Some(k) = summary.kernel {
            match &summary.kernel_note {
                Some(why) => say!(h, "  kernel       {k} (auto: {why})"),
                None => say!(h, "  kernel       {k}"),
            }
        }
        if let Some(t) = &summary.tiles {
            say!(h,
                "  tiles        {} relaxed, {} messages, {} rounds in the busiest tile, chains of up to {} ({} blocks × {} threads, {} vertices a tile; rows in shared memory: {} as they are, {} narrow)",
                t.pops, t.messages, t.rounds, t.chain, t.blocks, t.threads_per_block, t.tile, t.rows_wide, t.rows_narrow
            );
        }
        if let Some(r) = &summary.resident {
            say!(h,
                "  resident     {} rounds: {} on one block, {} on the grid, {} bucket splits ({} blocks × {} threads)",
                r.rounds, r.small_rounds, r.wide_rounds, r.splits, r.blocks, r.threads_per_block
            );
        }
        say!(h, "  time         {:.6} s ({} rounds)", time_s, rounds);
        say!(h, "  reached      {reached} vertices");
        if let Some(m) = &max_value {
            say!(h, "  max value    {m}");
        }
        say!(h, "  rate         {:.3} M edges/s", summary.teps / 1e6);
        crate::cli::common::print_check(&mut h, validated, a.output.as_deref());
    }
    if validated == Some(false) {
        bail!("the result disagrees with the sequential oracle");
    }
    Ok(())
}

/// Warns about the options of a program command that the backend that runs
/// does not read: CPU settings on the GPU and GPU settings on the CPU, and
/// bucket widths for a program without a priority. (`--delta` with a CPU
/// schedule other than obim is warned about where the schedule is known.)
fn warn_unused_backend_options<P: VertexProgram>(a: &RunArgs, on_gpu: bool) {
    if on_gpu && a.gpus > 1 && !matches!(a.kernel, BfsKernel::Auto | BfsKernel::Direction) {
        warn_unused(
            &format!("--kernel {}", a.kernel.name()),
            &format!(
                "with --gpus {} the direction kernel runs, on a 1-D partition",
                a.gpus
            ),
        );
    }
    if on_gpu {
        if a.schedule != ScheduleArg::Auto {
            warn_unused(
                &format!("--schedule {:?}", a.schedule).to_lowercase(),
                "the GPU ran; schedules are for the CPU (--backend cpu)",
            );
        }
        crate::cli::common::warn_threads_on_gpu(a.threads, true);
    } else {
        if !matches!(a.kernel, BfsKernel::Auto) {
            warn_unused(
                &format!("--kernel {}", a.kernel.name()),
                "the CPU ran; kernels are for the GPU (--backend gpu)",
            );
        }
        if let Some(m) = a.max_edge_count {
            warn_unused(
                &format!("--max-edge-count {m}"),
                "the CPU ran; it sets the GPU kernels' work per thread (--backend gpu)",
            );
        }
    }
    if let (Some(d), false) = (&a.delta, P::HAS_PRIORITY) {
        warn_unused(
            &format!("--delta {d}"),
            &format!("`{}` has no priority, so no buckets", P::NAME),
        );
    }
}

/// BFS's parents for `-o`: the source's is itself; every other reached vertex
/// gets its smallest-id in-neighbour one level up (any such vertex is a parent
/// in a BFS tree, and levels fall by one along it, so it is a tree). Derived
/// from the levels after the run, in one pass over the in-edges, so that no
/// engine pays for parent writes.
fn bfs_parents<P: VertexProgram>(
    g: &Graph<P::Weight>,
    levels: &[P::State],
    source: u32,
    is_reached: &impl Fn(usize, &P::State) -> bool,
) -> Vec<Option<u32>> {
    let csc = g.csc();
    (0..levels.len())
        .map(|v| {
            if v == source as usize {
                return Some(source);
            }
            if !is_reached(v, &levels[v]) {
                return None;
            }
            csc.neighbors(v as u32).iter().copied().find(|&u| {
                is_reached(u as usize, &levels[u as usize])
                    && P::relax(
                        levels[u as usize],
                        <P::Weight as runtime::graph::Weight>::ONE,
                    ) == Some(levels[v])
            })
        })
        .collect()
}
