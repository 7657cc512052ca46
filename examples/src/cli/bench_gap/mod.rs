//! `vertex bench gap`: the GAP benchmark suite's six kernels (BFS, SSSP, PR, CC,
//! BC, TC) on the same graphs, ours (CPU at every thread count; the GPU when one
//! is usable) against gapbs, every result verified, one table, one JSON and one
//! SVG (`gap-<label>.json|svg`).
//!
//! Method (as `bench-cpu`): each graph is generated or loaded once and written
//! once in gapbs's serialized format (`.sg`; `.wsg` for SSSP, weights 1..255
//! unless the graph has its own), so both sides run on the identical CSR. The same
//! `--roots` sources (degree > 0) serve BFS, SSSP and BC on both sides (gapbs
//! `-r`, BC one source per run, `-i 1`). A time is the median over `--trials`
//! (rooted kernels: the mean over sources of that); gapbs's is its own "Trial
//! Time", graph loading excluded on both sides. gapbs runs with
//! `OMP_NUM_THREADS`. Our results are compared with the sequential oracles (see
//! [`kernels`]); gapbs checks itself (`-v`, one extra run at the
//! most threads), except TC, whose count gapbs prints (`-a`, after each call's
//! last trial) is compared with the oracle's on every call. A failed check or a kernel that errs marks its row and makes
//! the command exit non-zero after the results are written. Without `--gapbs`
//! only our side runs (still verified). Ratios are ours / gapbs: below 1 means we
//! are faster.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use runtime::generate::GenSpec;
use runtime::gpu::Device;
use runtime::graph::{Buf, BuildOptions, Csr, Graph};
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_bench::plot::{panels_svg, Panel, Series};

use super::bench_cpu::{
    gapbs_run, load_unweighted, load_weighted, mean, pick_roots, slug, sweep_threads,
    thread_counts, write_gapbs, Point,
};
mod kernels;

use super::report::print_json;
use kernels::{make, Params};

/// A GAP kernel (also the gapbs binary's name).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    Bfs,
    Sssp,
    Pr,
    Cc,
    Bc,
    Tc,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Bfs => "bfs",
            Kernel::Sssp => "sssp",
            Kernel::Pr => "pr",
            Kernel::Cc => "cc",
            Kernel::Bc => "bc",
            Kernel::Tc => "tc",
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct GapArgs {
    /// Graphs: generator specs (kron:S, urand:S = GAP's uniform graph, 2^S
    /// vertices and 16·2^S edges, uniform:N:M, grid:WxH, mesh:N) or files. The
    /// default covers power-law, uniform, road-like and mesh-like shapes.
    #[arg(default_values_t = [
        "kron:20".to_string(),
        "urand:20".to_string(),
        "grid:1000x1000".to_string(),
        "mesh:1000000".to_string(),
    ])]
    pub graphs: Vec<String>,
    /// Folder with the built gapbs binaries (bfs sssp pr cc bc tc: those of the
    /// kernels asked for); without it only ours runs (still verified).
    #[arg(long)]
    pub gapbs: Option<PathBuf>,
    /// CPU thread counts, comma-separated (default: 1, powers of two, all CPUs).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Runs per (source, thread count) on each side; the median is kept.
    #[arg(long, default_value_t = 3)]
    pub trials: usize,
    /// Kernels, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "bfs,sssp,pr,cc,bc,tc"
    )]
    pub kernels: Vec<Kernel>,
    /// Sources per graph for BFS, SSSP and BC (the same on both sides).
    #[arg(long, default_value_t = 4)]
    pub roots: usize,
    /// SSSP bucket width for both sides (default: ours `auto_delta` on the first source).
    #[arg(long)]
    pub delta: Option<u64>,
    /// PageRank: stop when a round's L1 change is below this (both sides).
    #[arg(long, default_value_t = 1e-4)]
    pub pr_tolerance: f64,
    /// PageRank: round limit (both sides).
    #[arg(long, default_value_t = 20)]
    pub pr_max_rounds: u32,
    /// BC: all --roots sources in one run on every side (gapbs `-i ROOTS`, its
    /// own random sources), instead of one run per source.
    #[arg(long)]
    pub bc_together: bool,
    /// Skip the GPU column even when a GPU is usable.
    #[arg(long)]
    pub no_gpu: bool,
    /// Where to write `gap-<label>.json` and `.svg`.
    #[arg(long, default_value = "docs/results")]
    pub out: PathBuf,
    /// The file name's label (default: the host name).
    #[arg(long)]
    pub label: Option<String>,
    /// Scratch folder for the graph files handed to gapbs.
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Print the results as JSON on stdout (the table goes to stderr).
    #[arg(long)]
    pub json: bool,
}

/// A graph as every kernel sees it, with its gapbs files.
pub(super) struct GapGraph {
    /// As given on the command line.
    pub label: String,
    pub g: Graph<u32>,
    pub sg: PathBuf,
    /// With weights, and its `.wsg` (when SSSP runs).
    pub weighted: Option<(Graph<u32>, PathBuf)>,
    /// Made simple and undirected for TC (files only: generators already are).
    pub simple: Option<(Graph<u32>, PathBuf)>,
    pub roots: Vec<u32>,
}

impl GapGraph {
    /// The simple undirected graph TC runs on, and its `.sg`.
    pub fn undirected(&self) -> (&Graph<u32>, &Path) {
        match &self.simple {
            Some((g, f)) => (g, f),
            None => (&self.g, &self.sg),
        }
    }
}

/// The same CSR without weights.
fn unweighted(g: &Graph<u32>) -> anyhow::Result<Graph<u32>> {
    let c = g.csr();
    let csr = Csr::from_parts(
        Buf::Owned(c.offsets().to_vec()),
        Buf::Owned(c.targets().to_vec()),
        None,
    )?;
    Ok(Graph::new(csr, g.is_symmetric()))
}

/// Loads (or generates) `spec` once and writes its gapbs files into `work`.
fn prepare(spec: &str, a: &GapArgs, work: &Path) -> anyhow::Result<GapGraph> {
    let generated = match GenSpec::parse(spec) {
        Some(g) => {
            g?;
            true
        }
        None => false,
    };
    let (g, sg, weighted) = if a.kernels.contains(&Kernel::Sssp) {
        let (gw, wsg) = load_weighted(spec, work)?;
        let g = unweighted(&gw)?;
        let sg = work.join(format!("{}.sg", slug(spec)));
        write_gapbs(&g, &sg, |_| 1)?;
        (g, sg, Some((gw, wsg)))
    } else {
        let (g, sg) = load_unweighted(spec, work)?;
        (g, sg, None)
    };
    let simple = if a.kernels.contains(&Kernel::Tc) && !generated {
        let lo = LoadOptions {
            ignore_weights: true,
            build: Some(BuildOptions::undirected()),
            symmetrize: true,
            ..LoadOptions::default()
        };
        let gu = load_graph::<u32>(spec, &lo)?.graph;
        let file = work.join(format!("{}-undirected.sg", slug(spec)));
        write_gapbs(&gu, &file, |_| 1)?;
        Some((gu, file))
    } else {
        None
    };
    let roots = pick_roots(&g, a.roots.max(1));
    if roots.is_empty() {
        bail!("{spec}: no vertex has an out-edge, so there is no source to pick");
    }
    Ok(GapGraph {
        label: spec.to_string(),
        g,
        sg,
        weighted,
        simple,
        roots,
    })
}

/// Our GPU run of one kernel on one graph.
#[derive(Serialize)]
struct GpuCell {
    kernel: String,
    seconds: f64,
    verified: bool,
    /// GPU / gapbs at the most threads.
    ratio: Option<f64>,
}

/// One kernel on one graph: every thread count, the GPU, the checks.
#[derive(Serialize)]
struct Row {
    kernel: Kernel,
    graph: String,
    vertices: usize,
    csr_entries: u64,
    /// Sources (BFS, SSSP, BC), the same on both sides.
    sources: Vec<u32>,
    detail: serde_json::Value,
    points: Vec<Point>,
    /// Our results matched the oracle at every thread count and on the GPU.
    ours_verified: bool,
    /// gapbs's own `-v` verdict (none: gapbs not run).
    gapbs_verified: Option<bool>,
    gpu: Option<GpuCell>,
    gpu_note: Option<String>,
    /// Why the row is incomplete (a run that failed).
    error: Option<String>,
}

impl Row {
    fn failed(&self) -> bool {
        !self.ours_verified || self.gapbs_verified == Some(false) || self.error.is_some()
    }
}

#[derive(Serialize)]
struct Host {
    label: String,
    cpu: String,
    cpus: usize,
    topology: String,
    command_line: String,
    git_rev: Option<String>,
    unix_time: u64,
    gapbs: Option<String>,
    gpu: Option<String>,
    gpu_note: Option<String>,
    trials: usize,
    threads: Vec<usize>,
}

/// A usable GPU, or why not.
fn open_gpu(no_gpu: bool) -> Result<Device, String> {
    if no_gpu {
        return Err("--no-gpu".into());
    }
    if !runtime::gpu::available() {
        return Err("no GPU: no embedded PTX or no CUDA driver library".into());
    }
    Device::open(0).map_err(|e| format!("no GPU: {e}"))
}

/// The commit the binaries were built from: `VERTEX_GIT_REV` (set by the GPU
/// bundle's scripts, whose copy of the tree may carry another HEAD), else git's.
pub(super) fn git_rev() -> Option<String> {
    if let Some(r) = std::env::var("VERTEX_GIT_REV")
        .ok()
        .filter(|r| !r.is_empty())
    {
        return Some(r);
    }
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()?;
    let rev = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !rev.is_empty()).then_some(rev)
}

pub(super) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into())
}

pub fn run(a: GapArgs) -> anyhow::Result<()> {
    if a.graphs.is_empty() || a.kernels.is_empty() {
        bail!("nothing to run: give at least one graph and one kernel");
    }
    if a.threads.contains(&0) {
        bail!("--threads: thread counts start at 1");
    }
    if let Some(dir) = &a.gapbs {
        for k in &a.kernels {
            let b = dir.join(k.name());
            if !b.is_file() {
                bail!(
                    "gapbs binary `{}` not found in {}: build it (`make {}` in the gapbs folder) or leave out --gapbs",
                    k.name(),
                    dir.display(),
                    k.name()
                );
            }
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = thread_counts(&a.threads);
    let tmax = threads.iter().copied().max().unwrap_or(1);
    let work = super::bench_cpu::bench_dirs(a.work.as_deref(), "vertex-bench-gap", &a.out)?;
    let gpu = open_gpu(a.no_gpu);
    let gpu_note = gpu.as_ref().err().cloned();
    if let Some(n) = &gpu_note {
        eprintln!("GPU column empty: {n}");
    }
    let info = vertex_bench::host::HostInfo::read();
    let label = a.label.clone().unwrap_or_else(host_name);
    let host = Host {
        label: label.clone(),
        cpu: info.cpu,
        cpus,
        topology: runtime::cpu::topology::Topology::system().map_or("?".into(), |t| t.describe()),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        git_rev: git_rev(),
        unix_time: info.unix_time,
        gapbs: a.gapbs.as_ref().map(|d| d.display().to_string()),
        gpu: gpu.as_ref().ok().map(|d| d.info().name.clone()),
        gpu_note: gpu_note.clone(),
        trials: a.trials,
        threads: threads.clone(),
    };
    let params = Params {
        trials: a.trials,
        delta: a.delta,
        pr_tolerance: a.pr_tolerance,
        pr_max_rounds: a.pr_max_rounds,
        bc_together: a.bc_together,
    };
    let ctx = Ctx {
        a: &a,
        p: &params,
        threads: &threads,
        tmax,
        dev: gpu.as_ref().map_err(|e| e.as_str()),
    };
    let base = format!("gap-{}", slug(&label));
    let json = a.out.join(format!("{base}.json"));
    // Rewritten after every row, so a run cut off by a time limit keeps what it
    // measured (`"complete": false` until the last row).
    let save = |rows: &[Row], complete: bool| -> anyhow::Result<serde_json::Value> {
        let doc = serde_json::json!({ "host": &host, "complete": complete, "rows": rows });
        let tmp = json.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &json).with_context(|| format!("writing {}", json.display()))?;
        Ok(doc)
    };
    let mut rows = Vec::new();
    for spec in &a.graphs {
        eprintln!("{spec}: loading, writing the gapbs files");
        let started = std::time::Instant::now();
        let gg = prepare(spec, &a, &work).with_context(|| format!("preparing {spec}"))?;
        eprintln!(
            "  {} vertices, {} CSR entries, sources {:?} ({:.1} s)",
            gg.g.num_vertices(),
            gg.g.num_edges(),
            gg.roots,
            started.elapsed().as_secs_f64()
        );
        for &k in &a.kernels {
            eprintln!("{} on {spec}", k.name());
            let row = bench_row(k, &gg, &ctx);
            rows.push(row);
            save(&rows, false)?;
        }
    }
    let table = table(&rows, tmax);
    let doc = save(&rows, true)?;
    let svg = a.out.join(format!("{base}.svg"));
    chart(&rows, &svg, tmax, &host)?;
    if a.json {
        eprint!("{table}");
        print_json(&doc)?;
    } else {
        print!("{table}");
    }
    eprintln!("wrote {} and {}", json.display(), svg.display());
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.failed())
        .map(|r| format!("{} on {}", r.kernel.name(), r.graph))
        .collect();
    if !failed.is_empty() {
        bail!("check failed or run erred: {}", failed.join(", "));
    }
    Ok(())
}

/// What every row's benchmark shares.
struct Ctx<'a> {
    a: &'a GapArgs,
    p: &'a Params,
    threads: &'a [usize],
    tmax: usize,
    /// The GPU, or why there is none.
    dev: Result<&'a Device, &'a str>,
}

/// Benchmarks kernel `k` on `gg`; errors end up in the row.
fn bench_row(k: Kernel, gg: &GapGraph, c: &Ctx) -> Row {
    let mut row = Row {
        kernel: k,
        graph: gg.label.clone(),
        vertices: gg.g.num_vertices(),
        csr_entries: gg.g.num_edges(),
        sources: if matches!(k, Kernel::Bfs | Kernel::Sssp | Kernel::Bc) {
            gg.roots.clone()
        } else {
            Vec::new()
        },
        detail: serde_json::Value::Null,
        points: Vec::new(),
        ours_verified: false,
        gapbs_verified: None,
        gpu: None,
        gpu_note: c.dev.err().map(str::to_string),
        error: None,
    };
    if let Err(e) = fill_row(&mut row, k, gg, c) {
        eprintln!("  ERROR: {e:#}");
        row.error = Some(format!("{e:#}"));
    }
    row
}

fn fill_row(row: &mut Row, k: Kernel, gg: &GapGraph, c: &Ctx) -> anyhow::Result<()> {
    let (p, tmax) = (c.p, c.tmax);
    let mut kernel = timed("oracle", || make(k, gg, p))?;
    row.detail = kernel.detail();
    let bin = c.a.gapbs.as_ref().map(|d| d.join(k.name()));
    let roots: Vec<Option<u32>> = if kernel.rooted() {
        gg.roots.iter().map(|&r| Some(r)).collect()
    } else {
        vec![None]
    };
    let (file, extra) = kernel.gapbs_input();
    let (file, extra) = (file.to_path_buf(), extra);
    // gapbs checks itself (`-v`, one extra run) unless its printed answer is
    // checked on every call below.
    let check = kernel.gapbs_answer_check();
    let answers = check.is_some();
    if let (Some(bin), false) = (&bin, answers) {
        let v = timed("gapbs -v", || {
            gapbs_run(bin, &file, roots[0], 1, tmax, &extra, true)
        })?;
        row.gapbs_verified = v.verified;
        if v.verified != Some(true) {
            eprintln!("  gapbs {} did not pass its own verifier", k.name());
        }
    }
    let mut gapbs_answers = answers.then_some(true);
    let labels = kernel.schedules();
    let mut ok = true;
    let points = sweep_threads(
        c.threads,
        &labels,
        |i, t| {
            let (time, good) = kernel.ours(i, t)?;
            ok &= good;
            Ok(time)
        },
        |t| {
            let Some(bin) = &bin else { return Ok(None) };
            let mut times = Vec::new();
            for &r in &roots {
                let run = gapbs_run(bin, &file, r, p.trials, t, &extra, false)?;
                if let (Some(all), Some(check)) = (&mut gapbs_answers, &check) {
                    let good = check(&run.text);
                    if !good {
                        eprintln!("  gapbs {} printed a wrong answer at {t} threads", k.name());
                    }
                    *all &= good;
                }
                times.push(run.time);
            }
            Ok(Some(mean(&times)))
        },
    )?;
    if answers && bin.is_some() {
        row.gapbs_verified = gapbs_answers;
    }
    row.points = points;
    row.ours_verified = ok;
    if let Ok(dev) = c.dev {
        match timed("GPU", || kernel.gpu(dev)) {
            Ok((name, (seconds, verified))) => {
                row.ours_verified &= verified;
                let gapbs = at_max(row, tmax);
                row.gpu = Some(GpuCell {
                    kernel: name,
                    seconds,
                    verified,
                    ratio: gapbs.and_then(|p| p.gapbs).map(|g| seconds / g),
                });
            }
            Err(e) => row.gpu_note = Some(format!("GPU run failed: {e:#}")),
        }
    }
    Ok(())
}

/// `f()`, its wall time printed after `what`: where a long sequence's time goes
/// (oracles, gapbs's verifier and the GPU column are not in the timed runs).
fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = std::time::Instant::now();
    let out = f();
    eprintln!("  {what} {:.1} s", started.elapsed().as_secs_f64());
    out
}

/// The point at the most threads.
fn at_max(r: &Row, tmax: usize) -> Option<&Point> {
    r.points.iter().find(|p| p.threads == tmax)
}

/// The closing table: one line per kernel, graph and thread count, then the GPU.
fn table(rows: &[Row], tmax: usize) -> String {
    use std::fmt::Write;
    let ms = |s: Option<f64>| s.map_or("-".into(), |s| format!("{:.3}", s * 1e3));
    let ratio = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.2}"));
    let mut t = String::new();
    let _ = writeln!(
        t,
        "\n{:<5} {:<16} {:>7} {:>11} {:>11} {:>7}  {:<28} check",
        "kernel", "graph", "threads", "ours ms", "gapbs ms", "ratio", "ours best schedule"
    );
    for r in rows {
        let check = format!(
            "ours {}, gapbs {}",
            if r.ours_verified { "ok" } else { "FAIL" },
            match r.gapbs_verified {
                Some(true) => "PASS",
                Some(false) => "FAIL",
                None => "-",
            }
        );
        for p in &r.points {
            let _ = writeln!(
                t,
                "{:<5} {:<16} {:>7} {:>11} {:>11} {:>7}  {:<28} {check}",
                r.kernel.name(),
                r.graph,
                p.threads,
                ms(Some(p.ours_best)),
                ms(p.gapbs),
                ratio(p.ratio),
                p.ours_best_schedule
            );
        }
        if let Some(g) = &r.gpu {
            let _ = writeln!(
                t,
                "{:<5} {:<16} {:>7} {:>11} {:>11} {:>7}  {:<28} {}",
                r.kernel.name(),
                r.graph,
                "gpu",
                ms(Some(g.seconds)),
                format!("({tmax}t)"),
                ratio(g.ratio),
                g.kernel,
                if g.verified { "ok" } else { "FAIL" }
            );
        }
        if let Some(e) = &r.error {
            let _ = writeln!(t, "{:<5} {:<16} ERROR: {e}", r.kernel.name(), r.graph);
        }
    }
    t
}

/// Ratio ours / gapbs at the most threads (and GPU / gapbs), per kernel, one
/// series per graph; our times when gapbs did not run.
fn chart(rows: &[Row], path: &Path, tmax: usize, host: &Host) -> anyhow::Result<()> {
    let mut graphs: Vec<&str> = Vec::new();
    let mut kernels: Vec<Kernel> = Vec::new();
    for r in rows {
        if !graphs.contains(&r.graph.as_str()) {
            graphs.push(&r.graph);
        }
        if !kernels.contains(&r.kernel) {
            kernels.push(r.kernel);
        }
    }
    let x = |k: Kernel| kernels.iter().position(|&y| y == k).unwrap_or(0) as f64;
    let series = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<Series> {
        graphs
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.graph == *g)
                    .filter_map(|r| Some((x(r.kernel), f(r)?)))
                    .collect();
                (g.to_string(), i, pts)
            })
            .filter(|s| !s.2.is_empty())
            .collect()
    };
    let x_desc = format!(
        "kernel ({})",
        kernels
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{i} {}", k.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut panels = Vec::new();
    let cpu_ratio = series(&|r| at_max(r, tmax)?.ratio);
    if cpu_ratio.is_empty() {
        panels.push(Panel {
            title: format!("ours, {tmax} threads (no gapbs run)"),
            x_desc: x_desc.clone(),
            y_desc: "milliseconds".into(),
            series: series(&|r| Some(at_max(r, tmax)?.ours_best * 1e3)),
            log_y: true,
        });
    } else {
        panels.push(Panel {
            title: format!("ours CPU / gapbs, {tmax} threads (< 1: ours faster)"),
            x_desc: x_desc.clone(),
            y_desc: "ratio".into(),
            series: cpu_ratio,
            log_y: true,
        });
    }
    let gpu_ratio = series(&|r| r.gpu.as_ref()?.ratio);
    if !gpu_ratio.is_empty() {
        panels.push(Panel {
            title: format!("ours GPU / gapbs {tmax} threads"),
            x_desc,
            y_desc: "ratio".into(),
            series: gpu_ratio,
            log_y: true,
        });
    }
    panels_svg(
        path,
        &format!("GAP kernels — {} ({} CPUs)", host.cpu, host.cpus),
        &panels,
    )?;
    Ok(())
}
