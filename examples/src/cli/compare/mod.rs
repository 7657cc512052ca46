//! `vertex compare PROGRAM GRAPH`: one program under several schedules and thread
//! counts, side by side — time, work, redundant work, rounds or buckets, speedup
//! over sync, and a check that every run computed the same states.
//!
//! Each column comes from a [`Runner`]; the CPU schedules are [`CpuRunner`]s. A
//! new back end (the GPU) is one more `Runner` pushed in [`runners`].

mod pr;

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;
use runtime::cpu::topology::Topology;
use runtime::cpu::{AsyncOptions, CpuOptions, Direction};
use runtime::gpu::GpuProgram;
use runtime::graph::Graph;
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use runtime::program::parse_schedule;
use runtime::program::{Schedule, VertexProgram};
use serde_json::json;
use vertex_bench::compare::gpu::GpuRunner;
use vertex_bench::compare::{compare, Comparison, CpuRunner, Runner, Unavailable};
use vertex_examples::programs::{bfs, cc, reliability, sssp, widest};

use super::gen::parse_range;
use super::report::{human_count, print_json};

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// bfs, sssp, sssp_f64, cc, widest, reliability, or pr (sync vs data-driven PageRank).
    pub program: String,
    /// Graph file or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    #[arg(default_value = "kron:16")]
    pub graph: String,
    /// Source vertex (0-based); default: the first vertex with out-edges.
    #[arg(long, short)]
    pub source: Option<u32>,
    /// Thread counts to try, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Schedules to compare, comma-separated: sync, async, obim (CPU) and gpu (the
    /// program's generated kernels; a row saying why when no GPU is usable); `pr`
    /// also takes driven (PageRank's data-driven sweeps, listed with sync).
    #[arg(long, value_delimiter = ',', default_value = "sync,async,obim,gpu")]
    pub schedules: Vec<String>,
    /// Runs per configuration; the best time is reported.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// obim bucket width in priority units (default: derived from the weights).
    #[arg(long)]
    pub delta: Option<u64>,
    /// Tasks per chunk for async/obim.
    #[arg(long, default_value_t = runtime::cpu::bag::DEFAULT_CHUNK)]
    pub chunk: usize,
    /// Packages x CPUs for async/obim, e.g. 2x8 (default: VERTEX_TOPOLOGY or the OS).
    #[arg(long)]
    pub topology: Option<String>,
    /// Pin async/obim workers to CPUs.
    #[arg(long)]
    pub pin: bool,
    /// Random integer weights LO..HI for graphs without weights (weighted programs
    /// default to 1..255; `reliability` divides them by HI+1 to get probabilities).
    #[arg(long, value_parser = parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also draw time and work per schedule and thread count to this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

pub fn run(a: CompareArgs) -> anyhow::Result<()> {
    runtime::progress::set_quiet(a.json);
    match a.program.as_str() {
        "pr" | "pagerank" => pr::run(&a),
        "bfs" => go::<bfs::Program>(&a, |g| g),
        "cc" => go::<cc::Program>(&a, |g| g),
        "widest" => go::<widest::Program>(&a, |g| g),
        "sssp" => go::<sssp::sssp::Program>(&a, |g| g),
        "sssp_f64" => go::<sssp::sssp_f64::Program>(&a, |g| g),
        "reliability" => {
            let hi = a.weights.map_or(255, |w| w.1) as f64 + 1.0;
            go::<reliability::Program>(&a, move |g| {
                let w: Vec<f64> = g.csr().weights().map_or_else(Vec::new, |w| {
                    w.iter().map(|&x| (x / hi).clamp(0.0, 1.0)).collect()
                });
                match g.csr().with_weights(w) {
                    Ok(c) => Graph::new(c, g.is_symmetric()),
                    Err(_) => g,
                }
            })
        }
        p => {
            bail!("unknown program `{p}`: expected bfs, sssp, sssp_f64, cc, widest, reliability or pr")
        }
    }
}

/// Builds the runners: every CPU schedule × every thread count, and the GPU (one
/// column, the graph uploaded once) when asked for.
fn runners<P: GpuProgram>(
    a: &CompareArgs,
    topology: Option<Topology>,
    g: &Graph<<P as VertexProgram>::Weight>,
) -> anyhow::Result<Vec<Box<dyn Runner<P>>>> {
    let mut out: Vec<Box<dyn Runner<P>>> = Vec::new();
    for s in &a.schedules {
        if s.trim() == "gpu" {
            out.push(match gpu_runner::<P>(g) {
                Ok(r) => Box::new(r),
                Err(reason) => Box::new(Unavailable {
                    name: "gpu".into(),
                    reason,
                }),
            });
            continue;
        }
        let schedule = parse_schedule(s).with_context(|| {
            format!("unknown schedule `{s}`: expected sync, async, obim or gpu")
        })?;
        for &t in &a.threads {
            if t == 0 {
                bail!("--threads: thread counts must be at least 1");
            }
            out.push(Box::new(CpuRunner {
                schedule,
                opts: CpuOptions {
                    threads: Some(t),
                    direction: Direction::Auto,
                },
                aopts: AsyncOptions {
                    topology: topology.clone(),
                    chunk: a.chunk,
                    delta: a.delta,
                    pin: a.pin,
                },
            }));
        }
    }
    Ok(out)
}

/// The GPU column, or why there is none.
fn gpu_runner<P: GpuProgram>(g: &Graph<<P as VertexProgram>::Weight>) -> Result<GpuRunner, String> {
    let (dev, kernels) = super::run::open_gpu::<P>()?;
    GpuRunner::new::<P>(dev, kernels, g).map_err(|e| e.to_string())
}

fn go<P: GpuProgram>(
    a: &CompareArgs,
    adapt: impl Fn(Graph<<P as VertexProgram>::Weight>) -> Graph<<P as VertexProgram>::Weight>,
) -> anyhow::Result<()> {
    let mut opts = LoadOptions::default();
    let file_weighted = weight_kind_of(&a.graph)?.is_some();
    if <P as VertexProgram>::WEIGHTED {
        if let Some((lo, hi)) = a.weights {
            opts.random_weights = Some((lo, hi, 1));
        } else if !file_weighted || <P as VertexProgram>::NAME == "reliability" {
            if !a.json {
                eprintln!(
                    "{}: using random weights 1..255 (--weights to choose)",
                    <P as VertexProgram>::NAME
                );
            }
            opts.random_weights = Some((1, 255, 1));
        }
    } else {
        opts.ignore_weights = true;
    }
    if <P as VertexProgram>::NAME == "cc" {
        // Label propagation finds weakly connected components only on an undirected graph.
        opts.symmetrize = true;
    }
    let loaded = load_graph::<<P as VertexProgram>::Weight>(&a.graph, &opts)
        .with_context(|| format!("loading {}", a.graph))?;
    let g = adapt(loaded.graph);
    let n = g.num_vertices();
    let source = match a.source {
        Some(s) => s,
        None => (0..n as u32).find(|&v| g.csr().degree(v) > 0).unwrap_or(0),
    };
    if <P as VertexProgram>::NEEDS_SOURCE && source as usize >= n {
        bail!(
            "source vertex {source} is out of range: the graph has {n} vertices (ids are 0-based)"
        );
    }
    let topology = a.topology.as_deref().map(Topology::parse).transpose()?;
    let shown_topology = match &topology {
        Some(t) => t.describe(),
        None => {
            Topology::system().map_or("?".into(), |t| format!("{} ({})", t.describe(), t.origin()))
        }
    };
    let runners = runners::<P>(a, topology, &g)?;
    if !a.json {
        println!(
            "{} on {} ({} vertices, {} edges) from {source}; topology {shown_topology}, best of {}",
            <P as VertexProgram>::NAME,
            a.graph,
            human_count(n as u64),
            human_count(g.num_edges()),
            a.repeats.max(1)
        );
    }
    let json = a.json;
    let c = compare(&g, source, &runners, a.repeats, |r| {
        if !json {
            let t = r
                .time_s
                .map_or("n/a".into(), |t| format!("{:.2} ms", t * 1e3));
            let threads = r.threads.map_or(String::new(), |t| format!(" x{t}"));
            eprintln!("  {}{threads}: {t}", r.schedule);
        }
    });
    if !a.json {
        print_table(&c);
    }
    if let Some(p) = &a.svg {
        vertex_bench::compare::plot::comparison_svg(&c, &a.graph, p)?;
        if !a.json {
            println!("chart: {}", p.display());
        }
    }
    if a.json {
        print_json(&json!({
            "graph": a.graph,
            "weights": <P as VertexProgram>::WEIGHTED.then_some(opts.random_weights.map(|w| [w.0, w.1])).flatten(),
            "comparison": c,
        }))?;
    }
    if !c.all_agree {
        bail!("the schedules disagree: see the `agree` column");
    }
    if c.reference.is_none() {
        bail!("no schedule ran: every row is n/a (its note says why)");
    }
    Ok(())
}

fn print_table(c: &Comparison) {
    println!(
        "{:<8} {:>4} {:>10} {:>8} {:>10} {:>9} {:>10} {:>9} {:>9} {:>7} {:>5}",
        "schedule",
        "thr",
        "time ms",
        "vs sync",
        "edges",
        "redundant",
        "rounds",
        "updates",
        "stale",
        "steals",
        "agree"
    );
    for r in &c.rows {
        let threads = r.threads.map_or("-".into(), |t| t.to_string());
        if let Some(e) = &r.error {
            println!("{:<8} {:>4}  n/a: {e}", r.schedule, threads);
            continue;
        }
        let Some(rep) = &r.report else { continue };
        // Work counters exist on CPU rows only (the GPU row has no thread count).
        let on_cpu = r.threads.is_some();
        let counted = |x: u64| {
            if on_cpu {
                human_count(x)
            } else {
                "-".to_string()
            }
        };
        let rounds = match (rep.schedule, rep.delta) {
            (Some(Schedule::Obim), Some(d)) => format!("{}b Δ{d}", rep.rounds),
            (Some(Schedule::Async), _) => "-".into(),
            _ => rep.rounds.to_string(),
        };
        println!(
            "{:<8} {:>4} {:>10.2} {:>8} {:>10} {:>9} {:>10} {:>9} {:>9} {:>7} {:>5}",
            r.schedule,
            threads,
            r.time_s.unwrap_or(0.0) * 1e3,
            r.speedup_vs_sync.map_or("-".into(), |s| format!("{s:.2}x")),
            r.edges_relaxed.map_or("-".into(), human_count),
            r.work_ratio.map_or("-".into(), |w| format!(
                "{:.1}%",
                (w - 1.0).max(0.0) * 100.0
            )),
            rounds,
            counted(rep.updates),
            counted(rep.stale_tasks),
            counted(rep.steals),
            match r.agrees {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "-",
            }
        );
    }
    println!(
        "work: an ideal run relaxes each reached vertex's out-edges once ({} edges of {} vertices); \
         `redundant` is what a run relaxed beyond that (bottom-up rounds test fewer)",
        human_count(c.useful_work),
        human_count(c.reached)
    );
    println!(
        "results: {} (reference: {})",
        if c.all_agree {
            "all runs agree"
        } else {
            "RUNS DISAGREE"
        },
        c.reference.as_deref().unwrap_or("-")
    );
}
