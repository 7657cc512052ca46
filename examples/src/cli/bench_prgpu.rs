//! `vertex bench pr-gpu`: GPU PageRank, the shipped `pagerank` program (the DSL's
//! generated gather kernels) against the hand-written CUDA pull kernel
//! `bench/cuda/pr_pull.cu`, side by side in one run, every result validated.
//! Issue 51's target reads from it: ours ≤ 1.1× the hand kernel on Kronecker
//! 22/24 and the grid, and both ≥ 50 % of the memory bandwidth per pull round.
//!
//! Method, per graph:
//! * The graph is loaded **undirected and simple** (both directions, no
//!   self-loops or repeated edges: gapbs's `SquishGraph`): PageRank's pull
//!   reads in-edges and divides by out-degrees, so on an undirected graph the
//!   CSR is also the CSC and both sides read one array pair; a file that is
//!   directed would otherwise give the two sides different work. It is written
//!   once as a gapbs `.sg` into `--work`, and `pr_pull` (and gapbs `pr`, with
//!   `--gapbs`) read **that file**: every side ranks the very same CSR, vertex
//!   for vertex, so ranks can be compared per vertex and times per round.
//! * Ours: the graph is uploaded once, one untimed run warms up (module load,
//!   first touch, as `pr_pull` does), then `--trials` runs; a run's time is the
//!   runtime's own CUDA-event time of its rounds, per-round times likewise. The
//!   medians are taken as `pr_pull` takes them (total: over trials; per round:
//!   over every round of every trial).
//! * The hand kernel: `pr_pull FILE.sg --kernel chunk|warp --trials T --tol X
//!   --max-rounds R --mec E --out RANKS`; its JSON on stdout, its ranks from
//!   the file. Same tolerance, round limit and edges per thread as ours.
//! * Bytes per round: `pr_pull`'s model for both (`pull_bytes_per_round`), so
//!   GB/s and % of the peak (`--peak-gbps`: the runtime does not report the
//!   device's bandwidth; 4800 is the H200's HBM3e) measure the same work.
//!
//! Validated (a failure marks the row `WRONG`, the files are still written and
//! the command exits non-zero):
//! * ours against `oracle::pagerank` (sequential, same rounds): same round
//!   count, every rank within relative 1e-6 (absolute 1e-12);
//! * each hand kernel against ours: same vertex and edge counts, same round
//!   count, every rank within the same bound (both sides round contributions to
//!   `f32` and sum in `f64`, in different orders);
//! * gapbs with its own `-v` verifier. gapbs iterates Gauss–Seidel in `f32`, so
//!   its round count and ranks differ from the Jacobi sides by design: it is the
//!   "one GPU vs all CPU cores" column, time to convergence, not a per-round peer.
//!
//! Without a usable GPU the command stops before any work, naming the reason.
//! Without `--hand`, ours alone (the ratio columns empty).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use clap::Args;
use runtime::gather::GatherOptions;
use runtime::gpu::gather::GatherGpuOptions;
use runtime::gpu::DeviceInfo;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_bench::host::HostInfo;
use vertex_bench::plot::{panels_svg, Panel, Series};
use vertex_examples::pr_pull_output::{
    compare_ranks, parse_pr_pull_json, parse_pr_pull_ranks, pull_bytes_per_round, PrPullResult,
};
use vertex_examples::programs::pagerank;

use super::bench_cpu::{gapbs_run, median, slug, write_gapbs};
use super::common::gapbs_build;

#[derive(Args, Debug, Clone)]
pub struct PrGpuArgs {
    /// Graphs: generator specs (kron:22, grid:1000x1000, ...) or files; each is
    /// made undirected and simple.
    #[arg(required = true)]
    pub graphs: Vec<String>,
    /// The hand-written kernel's binary (`nvcc -O3 -arch=sm_90 -o pr_pull
    /// bench/cuda/pr_pull.cu`); without it, ours alone.
    #[arg(long)]
    pub hand: Option<PathBuf>,
    /// gapbs's folder (with `pr` built): its PageRank on all cores, same file.
    #[arg(long)]
    pub gapbs: Option<PathBuf>,
    /// Timed runs per side (after one untimed warm-up); medians are reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub trials: u32,
    /// Stop after the first round whose L1 change is below this.
    #[arg(long, default_value_t = pagerank::pagerank::TOLERANCE)]
    pub tolerance: f64,
    /// Round limit.
    #[arg(long, default_value_t = pagerank::pagerank::MAX_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: u32,
    /// In-edges per GPU thread, ours (`max_edge_count`) and pr_pull's `--mec`.
    #[arg(long, default_value_t = GatherGpuOptions::default().max_edge_count)]
    pub max_edge_count: u64,
    /// The device's peak memory bandwidth, GB/s (the runtime does not report
    /// it; 4800: the H200's HBM3e).
    #[arg(long, default_value_t = 4800.0)]
    pub peak_gbps: f64,
    /// The file names' label: `pr-gpu-<label>.json` and `.svg`.
    #[arg(long, default_value = "gpu")]
    pub label: String,
    /// Where to write the JSON and SVG.
    #[arg(long, default_value = "docs/results/pagerank-gpu")]
    pub out: PathBuf,
    /// Scratch folder for the `.sg` files and pr_pull's rank files.
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Also print the report as JSON on stdout (the table goes to stderr).
    #[arg(long)]
    pub json: bool,
}

/// One GPU side's times.
#[derive(Serialize, Clone, Copy)]
struct Timing {
    rounds: u32,
    /// Median over trials of a run's rounds (CUDA events), ms.
    ms_total: f64,
    /// Median over every round of every trial, ms.
    ms_per_round: f64,
    /// `bytes_per_round` / `ms_per_round`.
    gbps: f64,
    /// `gbps` / `--peak-gbps`, percent.
    pct_peak: f64,
}

impl Timing {
    fn new(rounds: u32, ms_total: f64, ms_per_round: f64, bytes: f64, peak: f64) -> Self {
        let gbps = if ms_per_round > 0.0 {
            bytes / (ms_per_round * 1e6)
        } else {
            0.0
        };
        Timing {
            rounds,
            ms_total,
            ms_per_round,
            gbps,
            pct_peak: 100.0 * gbps / peak,
        }
    }
}

/// One run of the hand-written kernel.
#[derive(Serialize)]
struct Hand {
    kernel: String,
    timing: Timing,
    /// What pr_pull printed (its own bytes model and GB/s among it).
    pr_pull_bytes_per_round: f64,
    pr_pull_gbps: f64,
    l1_last: f64,
    /// Largest relative difference of its ranks from ours.
    max_rel_diff_vs_ours: f64,
    verified: bool,
}

#[derive(Serialize)]
struct Gapbs {
    threads: usize,
    /// Median "Trial Time", ms (gapbs's Gauss–Seidel to its tolerance).
    ms_total: f64,
    /// Its `-v` verifier.
    verified: bool,
}

#[derive(Serialize)]
struct Row {
    graph: String,
    vertices: usize,
    /// CSR entries (each undirected edge twice), the `m` of the bytes model.
    edges: u64,
    sg_file: String,
    bytes_per_round: f64,
    oracle_rounds: u32,
    ours: Timing,
    ours_max_rel_diff_vs_oracle: f64,
    ours_verified: bool,
    hand_chunk: Option<Hand>,
    hand_warp: Option<Hand>,
    /// Ours / the faster hand kernel, total time (same rounds when verified).
    ratio_vs_best_hand: Option<f64>,
    /// Ours / the chunk kernel (the same edge-chunk balancing as ours).
    ratio_vs_chunk: Option<f64>,
    gapbs: Option<Gapbs>,
    /// Ours / gapbs, time to convergence.
    gpu_vs_gapbs: Option<f64>,
    /// Every check of the row passed.
    verified: bool,
    /// What failed, in words.
    problems: Vec<String>,
}

#[derive(Serialize)]
struct Report {
    benchmark: &'static str,
    command_line: String,
    host_name: String,
    host: HostInfo,
    /// The commit the binary was built from.
    git_rev: Option<String>,
    device: DeviceInfo,
    peak_gbps: f64,
    peak_gbps_source: &'static str,
    hand: Option<String>,
    gapbs: Option<String>,
    trials: u32,
    tolerance: f64,
    max_rounds: u32,
    max_edge_count: u64,
    damping: f64,
    bytes_model: &'static str,
    rows: Vec<Row>,
}

/// The checks that need no GPU, so a mistyped option fails at once.
fn check_args(a: &PrGpuArgs) -> anyhow::Result<()> {
    if !(a.tolerance.is_finite() && a.tolerance > 0.0) {
        bail!("--tolerance {}: want a positive number", a.tolerance);
    }
    if !(a.peak_gbps.is_finite() && a.peak_gbps > 0.0) {
        bail!("--peak-gbps {}: want a positive number", a.peak_gbps);
    }
    if a.max_edge_count == 0 {
        bail!("--max-edge-count 0: want at least one edge per thread");
    }
    if let Some(h) = &a.hand {
        if !h.is_file() {
            bail!(
                "--hand {}: no such file (build it: nvcc -O3 -arch=sm_90 -o pr_pull bench/cuda/pr_pull.cu)",
                h.display()
            );
        }
    }
    if let Some(d) = &a.gapbs {
        let pr = d.join("pr");
        if !pr.is_file() {
            bail!(
                "--gapbs {}: {} not found (build gapbs: `make pr` in its folder)",
                d.display(),
                pr.display()
            );
        }
    }
    Ok(())
}

pub fn run(a: PrGpuArgs) -> anyhow::Result<()> {
    check_args(&a)?;
    let (dev, kernels) = super::gather::open_gpu::<pagerank::Program>().map_err(|e| {
        anyhow::anyhow!(
            "vertex bench pr-gpu needs a GPU, and none is usable here: {e}. \
             (The CPU PageRank comparison is `vertex bench-cpu --pr GRAPH`.)"
        )
    })?;
    let work = super::bench_cpu::bench_dirs(a.work.as_deref(), "vertex-bench-pr-gpu", &a.out)?;
    eprintln!(
        "GPU 0: {}; hand kernel: {}; gapbs: {}",
        dev.info().name,
        a.hand
            .as_ref()
            .map_or("none".into(), |h| h.display().to_string()),
        a.gapbs
            .as_ref()
            .map_or("none".into(), |g| g.display().to_string()),
    );
    let mut rows = Vec::new();
    for spec in &a.graphs {
        rows.push(bench_graph(&a, &dev, &kernels, spec, &work)?);
    }
    let report = Report {
        benchmark: "GPU PageRank: the pagerank program vs the hand-written pull kernel (bench/cuda/pr_pull.cu)",
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        host_name: super::bench_gap::host_name(),
        host: HostInfo::read(),
        git_rev: super::bench_gap::git_rev(),
        device: dev.info().clone(),
        peak_gbps: a.peak_gbps,
        peak_gbps_source: "--peak-gbps (the runtime does not report the device's bandwidth)",
        hand: a.hand.as_ref().map(|h| h.display().to_string()),
        gapbs: a.gapbs.as_ref().map(|g| g.display().to_string()),
        trials: a.trials,
        tolerance: a.tolerance,
        max_rounds: a.max_rounds,
        max_edge_count: a.max_edge_count,
        damping: pagerank::pagerank::DAMPING,
        bytes_model: "pr_pull's: 8(n+1) + 8m + 24n (in-offsets, in-sources, contribution reads; contribution writes, rank read/write, out-degrees)",
        rows,
    };
    print_table(&report.rows);
    write_results(&a, &report)?;
    let bad: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| !r.verified)
        .map(|r| r.graph.as_str())
        .collect();
    if !bad.is_empty() {
        bail!("validation failed on {} (see WRONG above)", bad.join(", "));
    }
    Ok(())
}

fn bench_graph(
    a: &PrGpuArgs,
    dev: &runtime::gpu::Device,
    kernels: &runtime::gpu::gather::GatherKernels,
    spec: &str,
    work: &Path,
) -> anyhow::Result<Row> {
    let lo = LoadOptions {
        ignore_weights: true,
        build: Some(gapbs_build(true)),
        symmetrize: true,
        ..LoadOptions::default()
    };
    let g = load_graph::<u32>(spec, &lo)
        .with_context(|| format!("loading {spec}"))?
        .graph;
    let (n, m) = (g.num_vertices(), g.num_edges());
    if n == 0 {
        bail!("{spec}: the graph has no vertices");
    }
    // Not bench-cpu's name: its `.sg` of a file keeps the file's directions.
    let sg = work.join(format!("{}-undirected.sg", slug(spec)));
    write_gapbs(&g, &sg, |_| 1).with_context(|| format!("writing {}", sg.display()))?;
    eprintln!(
        "{spec}: {n} vertices, {m} CSR entries; wrote {}",
        sg.display()
    );
    let bytes = pull_bytes_per_round(n as u64, m);
    let mut problems = Vec::new();

    // The sequential oracle, round for round.
    let damping = pagerank::pagerank::DAMPING;
    let (expect, oracle_rounds) =
        runtime::oracle::pagerank(g.csr(), damping, a.tolerance, a.max_rounds);

    // Ours: upload once, warm up, time.
    let opts = GatherOptions {
        max_rounds: Some(a.max_rounds),
        tolerance: Some(a.tolerance),
        ..GatherOptions::default()
    };
    let go = GatherGpuOptions {
        max_edge_count: a.max_edge_count,
        ..GatherGpuOptions::default()
    };
    let gg = dev
        .upload_gather_graph(&g, &go, false)
        .with_context(|| format!("{spec}: uploading the graph"))?;
    dev.run_gather_on::<pagerank::Program, u32>(kernels, &gg, &opts, None)
        .with_context(|| format!("{spec}: the warm-up run"))?;
    let (mut totals, mut per_round, mut rounds, mut ranks) = (Vec::new(), Vec::new(), None, vec![]);
    for t in 0..a.trials {
        let r = dev
            .run_gather_on::<pagerank::Program, u32>(kernels, &gg, &opts, None)
            .with_context(|| format!("{spec}: run {}", t + 1))?;
        totals.push(r.report.time.as_secs_f64() * 1e3);
        per_round.extend_from_slice(&r.round_ms);
        if rounds.is_some_and(|x| x != r.report.rounds) {
            problems.push(format!(
                "ours: run {} took {} rounds, an earlier one {}",
                t + 1,
                r.report.rounds,
                rounds.unwrap_or(0)
            ));
        }
        rounds = Some(r.report.rounds);
        ranks = r.states;
    }
    drop(gg);
    let ours_rounds = rounds.unwrap_or(0);
    let ours = Timing::new(
        ours_rounds,
        median(totals),
        median(per_round),
        bytes,
        a.peak_gbps,
    );
    let (ours_diff, ranks_ok) = compare_ranks(&ranks, &expect);
    if ours_rounds != oracle_rounds {
        problems.push(format!(
            "ours: {ours_rounds} rounds, the oracle {oracle_rounds}"
        ));
    }
    if !ranks_ok {
        problems.push(format!(
            "ours: ranks differ from the oracle's (max rel diff {ours_diff:.2e})"
        ));
    }
    let ours_verified = problems.is_empty();
    eprintln!(
        "  ours: {ours_rounds} rounds, {:.3} ms ({:.4} ms/round), vs oracle {ours_diff:.1e}{}",
        ours.ms_total,
        ours.ms_per_round,
        if ours_verified { "" } else { " WRONG" }
    );

    // The hand-written kernel, both pull variants.
    let mut hands = Vec::new();
    if let Some(bin) = &a.hand {
        for kernel in ["chunk", "warp"] {
            let h = run_hand(a, bin, kernel, &sg, work, n, m, bytes, &ranks, ours_rounds)
                .with_context(|| format!("{spec}: pr_pull --kernel {kernel}"))?;
            eprintln!(
                "  hand {kernel}: {} rounds, {:.3} ms ({:.4} ms/round), vs ours {:.1e}{}",
                h.0.timing.rounds,
                h.0.timing.ms_total,
                h.0.timing.ms_per_round,
                h.0.max_rel_diff_vs_ours,
                if h.0.verified { "" } else { " WRONG" }
            );
            problems.extend(h.1);
            hands.push(h.0);
        }
    }
    let hand_warp = hands.pop();
    let hand_chunk = hands.pop();
    let best = [&hand_chunk, &hand_warp]
        .iter()
        .filter_map(|h| h.as_ref().map(|h| h.timing.ms_total))
        .fold(None, |b: Option<f64>, t| Some(b.map_or(t, |b| b.min(t))));
    let ratio = |hand_ms: f64| (hand_ms > 0.0).then(|| ours.ms_total / hand_ms);

    // gapbs on all cores, same file.
    let gapbs = match &a.gapbs {
        None => None,
        Some(dir) => {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let limits = [
                "-i".to_string(),
                a.max_rounds.to_string(),
                "-t".to_string(),
                a.tolerance.to_string(),
            ];
            let r = gapbs_run(
                &dir.join("pr"),
                &sg,
                None,
                a.trials as usize,
                threads,
                &limits,
                true,
            )
            .with_context(|| format!("{spec}: gapbs pr"))?;
            let verified = r.verified == Some(true);
            if !verified {
                problems.push("gapbs: its verifier failed".into());
            }
            eprintln!(
                "  gapbs pr, {threads} threads: {:.3} ms{}",
                r.time * 1e3,
                if verified { "" } else { " WRONG" }
            );
            Some(Gapbs {
                threads,
                ms_total: r.time * 1e3,
                verified,
            })
        }
    };
    let gpu_vs_gapbs = gapbs.as_ref().and_then(|x| ratio(x.ms_total));
    Ok(Row {
        graph: spec.to_string(),
        vertices: n,
        edges: m,
        sg_file: sg.display().to_string(),
        bytes_per_round: bytes,
        oracle_rounds,
        ours,
        ours_max_rel_diff_vs_oracle: ours_diff,
        ours_verified,
        ratio_vs_best_hand: best.and_then(ratio),
        ratio_vs_chunk: hand_chunk.as_ref().and_then(|h| ratio(h.timing.ms_total)),
        hand_chunk,
        hand_warp,
        gapbs,
        gpu_vs_gapbs,
        verified: problems.is_empty(),
        problems,
    })
}

/// Runs `pr_pull --kernel KERNEL` on `sg`; its result and what failed.
#[allow(clippy::too_many_arguments)]
fn run_hand(
    a: &PrGpuArgs,
    bin: &Path,
    kernel: &str,
    sg: &Path,
    work: &Path,
    n: usize,
    m: u64,
    bytes: f64,
    ours: &[f64],
    ours_rounds: u32,
) -> anyhow::Result<(Hand, Vec<String>)> {
    let ranks_file = work.join(format!(
        "{}-{kernel}.ranks",
        sg.file_stem()
            .map_or("graph".into(), |s| s.to_string_lossy())
    ));
    let out = Command::new(bin)
        .arg(sg)
        .args(["--kernel", kernel])
        .args(["--trials", &a.trials.to_string()])
        .args(["--tol", &a.tolerance.to_string()])
        .args(["--max-rounds", &a.max_rounds.to_string()])
        .args(["--mec", &a.max_edge_count.to_string()])
        .arg("--out")
        .arg(&ranks_file)
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "{} failed ({}): {}{}",
            bin.display(),
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let j: PrPullResult = parse_pr_pull_json(&stdout).map_err(|e| anyhow::anyhow!(e))?;
    let text = std::fs::read_to_string(&ranks_file)
        .with_context(|| format!("reading pr_pull's ranks {}", ranks_file.display()))?;
    let ranks = parse_pr_pull_ranks(&text, n)
        .map_err(|e| anyhow::anyhow!("{}: {e}", ranks_file.display()))?;
    drop(text);
    // The rank files are big (25 bytes a vertex) and read once.
    let _ = std::fs::remove_file(&ranks_file);
    let mut problems = Vec::new();
    if j.vertices != n as u64 || j.edges != m || j.directed {
        problems.push(format!(
            "hand {kernel}: read {} vertices, {} edges (directed: {}), ours {n}, {m} (undirected)",
            j.vertices, j.edges, j.directed
        ));
    }
    if j.rounds != ours_rounds {
        problems.push(format!(
            "hand {kernel}: {} rounds, ours {ours_rounds}",
            j.rounds
        ));
    }
    let (diff, ok) = compare_ranks(&ranks, ours);
    if !ok {
        problems.push(format!(
            "hand {kernel}: ranks differ from ours (max rel diff {diff:.2e})"
        ));
    }
    let hand = Hand {
        kernel: kernel.to_string(),
        timing: Timing::new(
            j.rounds,
            j.ms_total_median,
            j.ms_per_round_median,
            bytes,
            a.peak_gbps,
        ),
        pr_pull_bytes_per_round: j.bytes_per_round,
        pr_pull_gbps: j.gbps,
        l1_last: j.l1_last,
        max_rel_diff_vs_ours: diff,
        verified: problems.is_empty(),
    };
    Ok((hand, problems))
}

fn print_table(rows: &[Row]) {
    let opt = |x: Option<f64>, prec: usize| x.map_or("-".to_string(), |v| format!("{v:.prec$}"));
    eprintln!(
        "\n{:<16} {:>10} {:>11} {:>6} {:>10} {:>9} {:>10} {:>10} {:>7} {:>7} {:>7} {:>6} {:>10} {:>8}  check",
        "graph",
        "vertices",
        "edges",
        "rounds",
        "ours ms",
        "ms/round",
        "chunk ms",
        "warp ms",
        "/best",
        "/chunk",
        "GB/s",
        "%peak",
        "gapbs ms",
        "/gapbs"
    );
    for r in rows {
        eprintln!(
            "{:<16} {:>10} {:>11} {:>6} {:>10.3} {:>9.4} {:>10} {:>10} {:>7} {:>7} {:>7.0} {:>6.1} {:>10} {:>8}  {}",
            r.graph,
            r.vertices,
            r.edges,
            r.ours.rounds,
            r.ours.ms_total,
            r.ours.ms_per_round,
            opt(r.hand_chunk.as_ref().map(|h| h.timing.ms_total), 3),
            opt(r.hand_warp.as_ref().map(|h| h.timing.ms_total), 3),
            opt(r.ratio_vs_best_hand, 2),
            opt(r.ratio_vs_chunk, 2),
            r.ours.gbps,
            r.ours.pct_peak,
            opt(r.gapbs.as_ref().map(|g| g.ms_total), 1),
            opt(r.gpu_vs_gapbs, 3),
            if r.verified {
                "ok".to_string()
            } else {
                format!("WRONG: {}", r.problems.join("; "))
            }
        );
        for h in [&r.hand_chunk, &r.hand_warp].into_iter().flatten() {
            eprintln!(
                "{:<16} hand {:<5}: {:.4} ms/round, {:.0} GB/s, {:.1} % of peak",
                "", h.kernel, h.timing.ms_per_round, h.timing.gbps, h.timing.pct_peak
            );
        }
    }
}

fn write_results(a: &PrGpuArgs, report: &Report) -> anyhow::Result<()> {
    let json = a.out.join(format!("pr-gpu-{}.json", a.label));
    let text = serde_json::to_string_pretty(report)? + "\n";
    std::fs::write(&json, &text).with_context(|| format!("writing {}", json.display()))?;
    if a.json {
        print!("{text}");
    }
    let series = |name: &str, c: usize, f: &dyn Fn(&Row) -> Option<f64>| -> Series {
        super::report::row_series(&report.rows, name, c, f)
    };
    let graphs = report
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{}={}", i + 1, r.graph))
        .collect::<Vec<_>>()
        .join(", ");
    let ms = Panel {
        title: format!("ms per pull round ({graphs})"),
        x_desc: "graph".into(),
        y_desc: "ms per round (median)".into(),
        series: vec![
            series("ours (pagerank program)", 0, &|r| Some(r.ours.ms_per_round)),
            series("hand chunk", 1, &|r| {
                r.hand_chunk.as_ref().map(|h| h.timing.ms_per_round)
            }),
            series("hand warp", 2, &|r| {
                r.hand_warp.as_ref().map(|h| h.timing.ms_per_round)
            }),
        ],
        log_y: true,
    };
    let bw = Panel {
        title: format!(
            "% of {:.0} GB/s per round (pr_pull's bytes model)",
            a.peak_gbps
        ),
        x_desc: "graph".into(),
        y_desc: "% of peak bandwidth".into(),
        series: vec![
            series("ours (pagerank program)", 0, &|r| Some(r.ours.pct_peak)),
            series("hand chunk", 1, &|r| {
                r.hand_chunk.as_ref().map(|h| h.timing.pct_peak)
            }),
            series("hand warp", 2, &|r| {
                r.hand_warp.as_ref().map(|h| h.timing.pct_peak)
            }),
        ],
        log_y: false,
    };
    let svg = a.out.join(format!("pr-gpu-{}.svg", a.label));
    panels_svg(
        &svg,
        &format!(
            "GPU PageRank on {}: ours vs hand-written",
            report.device.name
        ),
        &[ms, bw],
    )
    .with_context(|| format!("writing {}", svg.display()))?;
    eprintln!("wrote {} and {}", json.display(), svg.display());
    Ok(())
}
