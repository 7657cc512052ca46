//! `vertex bench-cpu --gapbs DIR`: our CPU engines against the GAP benchmark suite
//! (gapbs `bfs`, `sssp` and `pr`) on the same graphs, same roots, same machine, one run.
//!
//! Method: each graph is generated once and handed to gapbs as its own serialized
//! format (`.sg` / `.wsg`, written here, so both sides read the identical CSR);
//! the same `--roots` random roots with degree > 0 are used on both sides; every
//! (root, thread count) is run `--trials` times and the median kept; a side's time
//! is the mean over roots of those medians. gapbs times are its own per-trial
//! "Trial Time" (graph loading excluded, as ours). Our result for the first root
//! is checked against the sequential oracle, gapbs's with its `-v` verifier.
//! SSSP's Δ sweep and distance widths: see [`sssp`]. PageRank
//! has no root: see [`pr`].
//! Ratios are ours / gapbs: below 1.0 means we are faster. An empty list
//! (`--bfs=` or `--bfs ''`) skips that kernel.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use runtime::cpu::{self, AsyncOptions, CpuOptions, Direction};
use runtime::generate::GenSpec;
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use runtime::program::{Schedule, VertexProgram};
use serde::Serialize;
use vertex_bench::plot::{panels_svg, Panel, Series};
use vertex_examples::programs::bfs;

mod gapbs;
pub(super) mod pr;
mod sssp;

use super::report::print_json;
pub(super) use gapbs::gapbs_run;
use gapbs::{gapbs_best, gapbs_run_in, EnvTimes};

#[derive(Args, Debug, Clone)]
pub struct BenchCpuArgs {
    /// Folder holding the built gapbs binaries `bfs`, `sssp` and `pr` (only those
    /// of the kernels asked for are needed).
    #[arg(long)]
    pub gapbs: PathBuf,
    /// Graphs for BFS (comma-separated specs or files; `--bfs=`: none).
    #[arg(long, value_delimiter = ',', default_value = "kron:20")]
    pub bfs: Vec<String>,
    /// Graphs for SSSP (kron graphs get weights 1..255; grids keep theirs; `--sssp=`: none).
    #[arg(long, value_delimiter = ',', default_value = "kron:20,grid:1000x1000")]
    pub sssp: Vec<String>,
    /// Graphs for PageRank (unweighted; `--pr=`: none).
    #[arg(long, value_delimiter = ',', default_value = "kron:20,grid:1000x1000")]
    pub pr: Vec<String>,
    /// PageRank: stop when a round's L1 change is below this (both sides).
    #[arg(long, default_value_t = 1e-4)]
    pub pr_tolerance: f64,
    /// PageRank: round limit (both sides).
    #[arg(long, default_value_t = 20)]
    pub pr_max_rounds: u32,
    /// Thread counts, comma-separated (default: 1 and every power of two up to
    /// the machine's CPUs, and the CPU count).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Roots per graph.
    #[arg(long, default_value_t = 8)]
    pub roots: usize,
    /// Runs per (root, threads) on each side; the median is kept.
    #[arg(long, default_value_t = 3)]
    pub trials: usize,
    /// Δ values tried for SSSP on both sides (best kept per side). The sweep
    /// reaches 1024: on the 16-core host gapbs's best for the 1000² grid at 16
    /// threads is Δ 256–512 (12 ms, against 21 ms at Δ 64), so a sweep that
    /// stopped at 128 understated it.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2,4,8,16,32,64,128,256,512,1024"
    )]
    pub deltas: Vec<u64>,
    /// Where to write cpu-*.json and cpu-*.svg.
    #[arg(long, default_value = "docs/results")]
    pub out: PathBuf,
    /// Scratch folder for the graph files handed to gapbs.
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Pin every one of our variants' workers to CPUs (without it, only the
    /// variants labelled `pinned` are; gapbs runs both with
    /// OMP_PROC_BIND/OMP_WAIT_POLICY unset and with close/passive; the faster counts).
    #[arg(long)]
    pub pin: bool,
}

#[derive(Serialize)]
pub(super) struct Point {
    pub threads: usize,
    /// Median time over trials, seconds (BFS/SSSP: mean of that over roots).
    pub ours: Vec<(String, f64)>,
    pub ours_best: f64,
    pub ours_best_schedule: String,
    /// gapbs's time: the best of its OpenMP settings (none when gapbs was not run).
    pub gapbs: Option<f64>,
    /// gapbs's time under each OpenMP setting (bench-cpu; empty elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gapbs_env: EnvTimes,
    /// ours_best / gapbs.
    pub ratio: Option<f64>,
}

#[derive(Serialize)]
pub(super) struct Job {
    kernel: &'static str,
    graph: String,
    vertices: u64,
    csr_entries: u64,
    #[serde(flatten)]
    detail: Detail,
    ours_checked: bool,
    gapbs_verified: Option<bool>,
    points: Vec<Point>,
}

/// What a job records besides the timings, per kind of kernel.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Detail {
    /// BFS and SSSP: the roots, and SSSP's Δ choice.
    Rooted {
        roots: Vec<u32>,
        ours_delta: Option<u64>,
        gapbs_delta: Option<u64>,
        delta_sweep: DeltaSweep,
        /// SSSP: which distance widths ran and why.
        #[serde(skip_serializing_if = "Option::is_none")]
        distances: Option<sssp::Distances>,
    },
    PageRank(pr::PrDetail),
}

impl Detail {
    /// `deltas`: SSSP's (ours, gapbs's, sweep).
    pub fn rooted(roots: Vec<u32>, deltas: Option<(u64, u64, DeltaSweep)>) -> Self {
        let (ours_delta, gapbs_delta, delta_sweep) = match deltas {
            Some((o, g, s)) => (Some(o), Some(g), s),
            None => (None, None, Vec::new()),
        };
        Detail::Rooted {
            roots,
            ours_delta,
            gapbs_delta,
            delta_sweep,
            distances: None,
        }
    }
}

#[derive(Serialize)]
struct Host {
    cpu: String,
    cpus: usize,
    topology: String,
    command_line: String,
    unix_time: u64,
    gapbs: String,
}

/// What every kernel's benchmark gets besides its graph.
pub(super) struct Setup<'a> {
    pub a: &'a BenchCpuArgs,
    pub threads: &'a [usize],
    /// Scratch folder for the graph files.
    pub work: &'a Path,
    /// The kernel's gapbs binary.
    pub bin: &'a Path,
}

/// One kernel's benchmark of one graph.
type Bench = fn(&Setup, &str) -> anyhow::Result<Job>;

/// The specs of a graph list, without empty ones (`--pr ''` asks for none).
fn specs(list: &[String]) -> Vec<&str> {
    list.iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect()
}

pub fn run(a: BenchCpuArgs) -> anyhow::Result<()> {
    // (name, gapbs binary, graphs, benchmark) of every kernel.
    let kernels: [(&str, PathBuf, Vec<&str>, Bench); 3] = [
        ("BFS", a.gapbs.join("bfs"), specs(&a.bfs), bench_bfs),
        (
            "SSSP",
            a.gapbs.join("sssp"),
            specs(&a.sssp),
            sssp::bench_sssp,
        ),
        ("PR", a.gapbs.join("pr"), specs(&a.pr), pr::bench_pr),
    ];
    for (_, b, specs, _) in &kernels {
        if !specs.is_empty() && !b.is_file() {
            bail!(
                "{} not found: build gapbs (`make` in its folder) and pass that folder to --gapbs",
                b.display()
            );
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = thread_counts(&a.threads);
    let work = bench_dirs(a.work.as_deref(), "vertex-bench-cpu", &a.out)?;
    let info = vertex_bench::host::HostInfo::read();
    let host = Host {
        cpu: info.cpu,
        cpus,
        topology: runtime::cpu::topology::Topology::system().map_or("?".into(), |t| t.describe()),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        unix_time: info.unix_time,
        gapbs: a.gapbs.display().to_string(),
    };
    let mut jobs = Vec::new();
    for (name, bin, specs, bench) in &kernels {
        let setup = Setup {
            a: &a,
            threads: &threads,
            work: &work,
            bin,
        };
        for spec in specs {
            eprintln!("{name} on {spec}: loading");
            let job = bench(&setup, spec)?;
            write_job(&a.out, &host, &job)?;
            jobs.push(job);
        }
    }
    eprintln!("\nratios ours/gapbs (below 1.0: ours faster):");
    for j in &jobs {
        for p in &j.points {
            eprintln!(
                "  {:<5} {:<18} {:>3} threads: ours {:>9.2} ms ({}) gapbs {:>9.2} ms  ratio {:.2}",
                j.kernel,
                j.graph,
                p.threads,
                p.ours_best * 1e3,
                p.ours_best_schedule,
                p.gapbs.unwrap_or(f64::NAN) * 1e3,
                p.ratio.unwrap_or(f64::NAN)
            );
            for (env, t) in &p.gapbs_env {
                eprintln!("{:>40} gapbs {:>9.2} ms with {env}", "", t * 1e3);
            }
        }
        if let Detail::PageRank(d) = &j.detail {
            eprintln!("  {:<5} {:<18} {}", j.kernel, j.graph, d.summary());
        }
    }
    print_json(&serde_json::json!({ "host": host, "jobs": jobs }))?;
    Ok(())
}

/// `given`, or by default 1, every power of two up to the CPU count, and that count.
pub(super) fn thread_counts(given: &[usize]) -> Vec<usize> {
    if !given.is_empty() {
        return given.to_vec();
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut t: Vec<usize> = (0..)
        .map(|k| 1usize << k)
        .take_while(|&t| t <= cpus)
        .collect();
    if !t.contains(&cpus) {
        t.push(cpus);
    }
    t
}

pub(super) fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn write_job(out: &Path, host: &Host, job: &Job) -> anyhow::Result<()> {
    let base = format!("cpu-{}-{}", job.kernel, slug(&job.graph));
    let json = out.join(format!("{base}.json"));
    let mut f =
        std::fs::File::create(&json).with_context(|| format!("writing {}", json.display()))?;
    f.write_all(
        serde_json::to_string_pretty(&serde_json::json!({ "host": host, "job": job }))?.as_bytes(),
    )?;
    let mut names: Vec<String> = job
        .points
        .iter()
        .flat_map(|p| p.ours.iter().map(|o| o.0.clone()))
        .collect();
    names.dedup();
    names.sort();
    names.dedup();
    let mut series: Vec<Series> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let pts = job
                .points
                .iter()
                .filter_map(|p| {
                    p.ours
                        .iter()
                        .find(|o| &o.0 == n)
                        .map(|o| (p.threads as f64, o.1 * 1e3))
                })
                .collect();
            (format!("vertex {n}"), i, pts)
        })
        .collect();
    series.push((
        "gapbs".into(),
        names.len(),
        job.points
            .iter()
            .filter_map(|p| Some((p.threads as f64, p.gapbs? * 1e3)))
            .collect(),
    ));
    let ratio: Vec<Series> = vec![(
        "best vertex / gapbs".into(),
        0,
        job.points
            .iter()
            .filter_map(|p| Some((p.threads as f64, p.ratio?)))
            .collect(),
    )];
    let time_title = match job.detail {
        Detail::Rooted { .. } => "time (mean over roots of median)",
        Detail::PageRank(_) => "time (median of trials)",
    };
    let svg = out.join(format!("{base}.svg"));
    panels_svg(
        &svg,
        &format!("{} on {} — {}", job.kernel, job.graph, host.cpu),
        &[
            Panel {
                title: time_title.into(),
                x_desc: "threads".into(),
                y_desc: "milliseconds".into(),
                series,
                log_y: true,
            },
            Panel {
                title: "ratio ours / gapbs (< 1: ours faster)".into(),
                x_desc: "threads".into(),
                y_desc: "ratio".into(),
                series: ratio,
                log_y: false,
            },
        ],
    )?;
    eprintln!("wrote {} and {}", json.display(), svg.display());
    Ok(())
}

/// A bench command's scratch folder (`work`, else `default` in the system's
/// temporary folder) and its results folder `out`, both created.
pub(crate) fn bench_dirs(
    work: Option<&Path>,
    default: &str,
    out: &Path,
) -> anyhow::Result<PathBuf> {
    let work = work.map_or_else(|| std::env::temp_dir().join(default), Path::to_path_buf);
    for dir in [work.as_path(), out] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    Ok(work)
}

/// Writes `g` in gapbs's serialized format (`.sg`, or `.wsg` with int32 weights):
/// `bool directed, i64 edges, i64 nodes, i64 offsets[n+1], neighbours`, then the
/// inverse graph the same way when directed.
pub(super) fn write_gapbs<W: runtime::graph::Weight>(
    g: &Graph<W>,
    path: &Path,
    weight: impl Fn(W) -> i32,
) -> anyhow::Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?;
    let mut f = std::io::BufWriter::with_capacity(1 << 22, f);
    let directed = !g.is_symmetric();
    f.write_all(&[directed as u8])?;
    let csr = g.csr();
    f.write_all(&(csr.num_edges() as i64).to_le_bytes())?;
    f.write_all(&(csr.num_vertices() as i64).to_le_bytes())?;
    let mut dirs = vec![csr];
    if directed {
        dirs.push(g.csc());
    }
    for c in dirs {
        for &o in c.offsets() {
            f.write_all(&(o as i64).to_le_bytes())?;
        }
        match c.weights() {
            Some(ws) => {
                for (&t, &w) in c.targets().iter().zip(ws) {
                    f.write_all(&(t as i32).to_le_bytes())?;
                    f.write_all(&weight(w).to_le_bytes())?;
                }
            }
            None => {
                for &t in c.targets() {
                    f.write_all(&(t as i32).to_le_bytes())?;
                }
            }
        }
    }
    f.flush()?;
    Ok(())
}

/// Roots with degree > 0, reproducibly shuffled.
pub(super) fn pick_roots<W: runtime::graph::Weight>(g: &Graph<W>, count: usize) -> Vec<u32> {
    let n = g.num_vertices() as u64;
    let mut roots = Vec::new();
    let mut k = 0u64;
    while roots.len() < count && k < 64 * count as u64 + n {
        k += 1;
        let v = runtime::generate::rng::below(runtime::generate::rng::hash3(27, 5, k), n) as u32;
        if g.csr().degree(v) > 0 && !roots.contains(&v) {
            roots.push(v);
        }
    }
    roots
}

pub(super) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Runs `f` `trials` times (at least once); returns the median of the seconds
/// it reports and the last run's result.
pub(super) fn median_of<T>(
    trials: usize,
    mut f: impl FnMut() -> anyhow::Result<(f64, T)>,
) -> anyhow::Result<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..trials.max(1) {
        let (t, x) = f()?;
        times.push(t);
        last = Some(x);
    }
    Ok((median(times), last.expect("at least one trial")))
}

/// Our side: median over trials of `schedule` from `root` (`bulk`: obim's
/// gapbs-style bulk delta-stepping path; otherwise obim is soft-priority obim).
#[allow(clippy::too_many_arguments)]
pub(super) fn ours_run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    root: u32,
    schedule: Schedule,
    bulk: bool,
    threads: usize,
    delta: Option<u64>,
    trials: usize,
    pin: bool,
) -> anyhow::Result<(f64, Vec<P::State>)> {
    let opts = CpuOptions {
        threads: Some(threads),
        direction: Direction::Auto,
    };
    let aopts = AsyncOptions {
        delta,
        pin,
        ..AsyncOptions::default()
    };
    median_of(trials, || {
        let r = if bulk {
            cpu::obim::run_bulk::<P>(g, root, &opts, &aopts)?
        } else if schedule == Schedule::Obim {
            // Soft priorities as labelled (`cpu::run` would pick lock-step
            // buckets on a high-diameter graph: the `bulk` variants).
            cpu::obim::run::<P>(g, root, &opts, &aopts)?
        } else {
            cpu::run::<P>(g, root, schedule, &opts, &aopts)?
        };
        Ok((r.report.time.as_secs_f64(), r.states))
    })
}

/// Loads `spec` without weights and writes it for gapbs as `WORK/<slug>.sg`.
pub(super) fn load_unweighted(spec: &str, work: &Path) -> anyhow::Result<(Graph<u32>, PathBuf)> {
    let opts = LoadOptions {
        ignore_weights: true,
        ..LoadOptions::default()
    };
    let g = load_graph::<u32>(spec, &opts)?.graph;
    let file = work.join(format!("{}.sg", slug(spec)));
    write_gapbs(&g, &file, |_| 1)?;
    Ok((g, file))
}

/// Loads `spec` with weights (its own for grids and weighted files, else
/// random 1..255, the same both ways) and writes it for gapbs as `WORK/<slug>.wsg`.
pub(super) fn load_weighted(spec: &str, work: &Path) -> anyhow::Result<(Graph<u32>, PathBuf)> {
    let native_weights = matches!(
        GenSpec::parse(spec),
        Some(Ok(GenSpec::Grid { .. } | GenSpec::Mesh { .. }))
    ) || runtime::load::weight_kind_of(spec)?.is_some();
    let opts = LoadOptions {
        random_weights: (!native_weights).then_some((1, 255, 1)),
        ..LoadOptions::default()
    };
    let g = load_graph::<u32>(spec, &opts)?.graph;
    let file = work.join(format!("{}.wsg", slug(spec)));
    write_gapbs(&g, &file, |w| w.min(i32::MAX as u32) as i32)?;
    Ok((g, file))
}

fn bench_bfs(s: &Setup, spec: &str) -> anyhow::Result<Job> {
    let (a, threads, work, bin) = (s.a, s.threads, s.work, s.bin);
    let (g, file) = load_unweighted(spec, work)?;
    let roots = pick_roots(&g, a.roots);
    let expect = runtime::oracle::bfs_levels(g.csr(), roots[0]);
    let mut variants: Vec<Variant> = [Schedule::Sync, Schedule::Async]
        .map(|s| Variant::new(schedule_label(s), s, false, None))
        .into();
    if !a.pin {
        // What pinning is worth on this machine, side by side.
        variants.push(variants[0].pinned());
    }
    let ours = |v: &Variant, r: u32, t: usize| {
        let pin = a.pin || v.pin;
        ours_run::<bfs::Program>(&g, r, v.schedule, v.bulk, t, v.delta, a.trials, pin)
    };
    let m = measure(
        a,
        &roots,
        &expect,
        threads,
        &variants,
        ours,
        bin,
        &file,
        &[],
    )?;
    job("bfs", spec, &g, m, Detail::rooted(roots, None))
}

/// What a kernel's measurement found: the points, whether ours matched the
/// oracle (BFS/SSSP: on the first root) everywhere, and gapbs's own verification.
pub(super) struct Measured {
    pub points: Vec<Point>,
    pub checked: bool,
    pub verified: Option<bool>,
}

/// SSSP's Δ sweep: `(Δ, ours seconds, gapbs seconds)`.
pub(super) type DeltaSweep = Vec<(u64, f64, f64)>;

/// The job record of a measured graph (an error if ours disagreed with the
/// oracle).
pub(super) fn job<W: runtime::graph::Weight>(
    kernel: &'static str,
    spec: &str,
    g: &Graph<W>,
    m: Measured,
    detail: Detail,
) -> anyhow::Result<Job> {
    if !m.checked {
        bail!(
            "our {} disagreed with the oracle on {spec}",
            kernel.to_uppercase()
        );
    }
    Ok(Job {
        kernel,
        graph: spec.to_string(),
        vertices: g.num_vertices() as u64,
        csr_entries: g.num_edges(),
        detail,
        ours_checked: m.checked,
        gapbs_verified: m.verified,
        points: m.points,
    })
}

/// One of our configurations in a job: label, schedule, bulk path, Δ,
/// (SSSP) whether it runs with 32-bit distances, and whether its workers are
/// pinned to CPUs (`--pin` pins every variant).
#[derive(Clone)]
pub(super) struct Variant {
    pub label: String,
    pub schedule: Schedule,
    pub bulk: bool,
    pub delta: Option<u64>,
    pub narrow: bool,
    pub pin: bool,
}

impl Variant {
    pub fn new(label: String, schedule: Schedule, bulk: bool, delta: Option<u64>) -> Self {
        Variant {
            label,
            schedule,
            bulk,
            delta,
            narrow: false,
            pin: false,
        }
    }

    /// The same configuration with pinned workers, labelled so.
    pub fn pinned(&self) -> Self {
        Variant {
            label: format!("{} pinned", self.label),
            pin: true,
            ..self.clone()
        }
    }
}

/// The per-thread-count loop every kernel shares: at each thread count, each of
/// our variants (`ours(variant index, threads)`, seconds) and then gapbs
/// (`gapbs(threads)`, seconds, none when gapbs is not run), one [`Point`] per
/// thread count.
pub(super) fn sweep_threads(
    threads: &[usize],
    labels: &[String],
    mut ours: impl FnMut(usize, usize) -> anyhow::Result<f64>,
    mut gapbs: impl FnMut(usize) -> anyhow::Result<Option<f64>>,
) -> anyhow::Result<Vec<Point>> {
    let mut points = Vec::new();
    for &t in threads {
        // Wall time of each side (timed runs plus their setup and checks): where
        // a long sweep's time goes, shown as it goes.
        let started = std::time::Instant::now();
        let mut times = Vec::new();
        for (i, label) in labels.iter().enumerate() {
            times.push((label.clone(), ours(i, t)?));
        }
        let ours_wall = started.elapsed().as_secs_f64();
        let peer = gapbs(t)?;
        let peer_wall = started.elapsed().as_secs_f64() - ours_wall;
        points.push(point(t, times, peer));
        eprintln!("  {t} threads done (ours {ours_wall:.1} s, gapbs {peer_wall:.1} s)");
    }
    Ok(points)
}

/// BFS and SSSP over [`sweep_threads`]: every variant of ours (`ours(variant,
/// root, threads)`: median seconds and states) and then gapbs (`extra`
/// arguments) from every root, mean over roots; ours checked against `expect`
/// on the first root, gapbs verified once on the first root.
#[allow(clippy::too_many_arguments)]
pub(super) fn measure<S: PartialEq>(
    a: &BenchCpuArgs,
    roots: &[u32],
    expect: &[S],
    threads: &[usize],
    variants: &[Variant],
    ours: impl Fn(&Variant, u32, usize) -> anyhow::Result<(f64, Vec<S>)>,
    bin: &Path,
    file: &Path,
    extra: &[String],
) -> anyhow::Result<Measured> {
    let mut checked = true;
    let mut verified = None;
    let mut env_times = Vec::new();
    let labels: Vec<String> = variants.iter().map(|v| v.label.clone()).collect();
    let points = sweep_threads(
        threads,
        &labels,
        |i, t| {
            let v = &variants[i];
            let mut per_root = Vec::new();
            for (k, &r) in roots.iter().enumerate() {
                let (time, states) = ours(v, r, t)?;
                if k == 0 {
                    checked &= states == expect;
                }
                per_root.push(time);
            }
            Ok(mean(&per_root))
        },
        |t| {
            let (best, times) = gapbs_best(|env| {
                let mut per_root = Vec::new();
                for (k, &r) in roots.iter().enumerate() {
                    let verify = k == 0 && verified.is_none();
                    let run = gapbs_run_in(env, bin, file, Some(r), a.trials, t, extra, verify)?;
                    if run.verified.is_some() {
                        verified = run.verified;
                    }
                    per_root.push(run.time);
                }
                Ok(mean(&per_root))
            })?;
            env_times.push(times);
            Ok(Some(best))
        },
    )?;
    Ok(Measured {
        points: with_env_times(points, env_times),
        checked,
        verified,
    })
}

/// `points` with gapbs's per-setting times, one entry per point in order.
pub(super) fn with_env_times(mut points: Vec<Point>, times: Vec<EnvTimes>) -> Vec<Point> {
    for (p, t) in points.iter_mut().zip(times) {
        p.gapbs_env = t;
    }
    points
}

pub(super) fn schedule_label(s: Schedule) -> String {
    runtime::program::schedule_name(s).to_string()
}

pub(super) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn point(threads: usize, ours: Vec<(String, f64)>, gapbs: Option<f64>) -> Point {
    let (name, best) = ours
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .cloned()
        .unwrap_or_else(|| ("-".into(), f64::NAN));
    Point {
        threads,
        ours,
        ours_best: best,
        ours_best_schedule: name,
        gapbs,
        gapbs_env: EnvTimes::new(),
        ratio: gapbs.map(|g| best / g),
    }
}
