//! GPU checks and benchmarks for the device machine (which has no Rust toolchain:
//! this binary is built here and carried there by `scripts/gpu-bundle.sh`).
//!
//! * `info` — the device and whether PTX is embedded.
//! * `check` — GPU BFS (every kernel variant) equals the sequential oracle on
//!   Kronecker scales 10–20, a grid, graphs with isolated vertices and a
//!   single-vertex graph; parent trees pass the Graph500 validation.
//! * `sanitize` — the same on small graphs, quick enough for compute-sanitizer.
//! * `bench` — balanced vs naive on Kronecker 16–21 (edgefactor 48), the
//!   `max_edge_count` sweep, end-detection batching; JSON + SVG into `--out`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use runtime::generate::GenSpec;
use runtime::gpu::direction::Pull;
use runtime::gpu::{BfsCombine, BfsKernel, Device, GpuBfsOptions};
use runtime::graph::{build, BuildOptions, Csr, EdgeList, Graph};
use runtime::{oracle, validate};
use vertex_bench::gpu_bfs::gunrock as peer;
use vertex_bench::gpu_bfs::{self as bench, BenchConfig};
use vertex_examples::programs::bfs;

#[path = "gpu_bench/multi.rs"]
mod multi;
#[path = "gpu_bench/programs.rs"]
mod programs;
#[path = "gpu_bench/sssp.rs"]
mod sssp;

#[derive(Parser)]
#[command(about = "vertex GPU BFS: correctness checks and seed 000 benchmarks")]
struct Cli {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the device and build information.
    Info,
    /// GPU results vs the CPU oracle on Kronecker 10..=MAX, grid, isolated, single vertex.
    Check {
        #[arg(long, default_value_t = 20)]
        max_scale: u32,
    },
    /// Small graphs only, every kernel variant (for compute-sanitizer).
    Sanitize,
    /// The `#[vertex_program]` kernels (BFS, CC, SSSP, widest) vs the oracles.
    Programs {
        #[arg(long, default_value_t = 18)]
        max_scale: u32,
        /// Small graphs only (for compute-sanitizer).
        #[arg(long)]
        small: bool,
    },
    /// DSL-generated BFS vs the hand-written balanced kernel; JSON + SVG.
    Dsl {
        #[arg(long, default_value_t = 20)]
        scale: u32,
        #[arg(long, default_value_t = 16)]
        edgefactor: u64,
        #[arg(long, default_value_t = 64)]
        roots: usize,
        #[arg(long, default_value_t = 16)]
        max_edge_count: u64,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// Our BFS vs Gunrock on the same .mtx graph and sources (Gunrock kit's
    /// kron.sh/run.sh output); JSON + SVG.
    Peer {
        #[arg(long)]
        graph: std::path::PathBuf,
        /// Comma-separated 0-based sources (kron.sh's GRAPH.sources).
        #[arg(long)]
        sources: std::path::PathBuf,
        /// Gunrock's --export_metrics JSON for the same graph and sources.
        #[arg(long)]
        gunrock: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 16)]
        edgefactor: u64,
        #[arg(long, value_delimiter = ',', default_value = "direction,balanced")]
        kernel: Vec<BfsKernel>,
        #[arg(long)]
        max_edge_count: Option<u64>,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// Multi-GPU (NCCL): BFS/SSSP/CC correctness on 1 and G GPUs vs the CPU
    /// oracles, then BFS strong and weak scaling with a per-level time split;
    /// JSON + SVG.
    Multi {
        #[arg(long, default_value_t = 2)]
        gpus: usize,
        /// Scales run on 1 and G GPUs (strong scaling).
        #[arg(long, value_delimiter = ',', default_value = "22,24")]
        strong: Vec<u32>,
        /// Base scales S of weak scaling: 1 GPU at S, G GPUs at S + log2 G.
        #[arg(long, value_delimiter = ',', default_value = "22,24")]
        weak: Vec<u32>,
        #[arg(long, default_value_t = 16)]
        edgefactor: u64,
        #[arg(long, default_value_t = 16)]
        roots: usize,
        /// Levels per host wait (1: host-driven levels), each measured.
        #[arg(long, value_delimiter = ',', default_value = "1,8")]
        levels_per_sync: Vec<u32>,
        /// Kronecker scale of the correctness graphs (0: skip the checks).
        #[arg(long, default_value_t = 20)]
        check_scale: u32,
        /// Grid of the correctness checks (ROWSxCOLS).
        #[arg(long, default_value = "1000x1000")]
        grid: String,
        /// Kronecker scale of the holdout-style file graph.
        #[arg(long, default_value_t = 18)]
        file_scale: u32,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// The SSSP program: edge chunks vs work list vs near-far buckets (Δ sweep).
    Sssp {
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "kron:20,kron:22,grid:1000x1000"
        )]
        graphs: Vec<String>,
        #[arg(long, default_value_t = 16)]
        sources: usize,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// Balanced vs naive, the max_edge_count sweep; writes JSON + SVG.
    Bench {
        #[arg(long, default_value = "16-21")]
        scales: String,
        #[arg(long, default_value_t = 48)]
        edgefactor: u64,
        #[arg(long, default_value_t = 64)]
        roots: usize,
        #[arg(long, default_value_t = 8)]
        naive_roots: usize,
        #[arg(long, default_value_t = 16)]
        max_edge_count: u64,
        #[arg(long, default_value_t = 20)]
        sweep_scale: u32,
        #[arg(long, default_value_t = 16)]
        sweep_roots: usize,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<bool> {
    if let Cmd::Info = cli.cmd {
        println!(
            "PTX embedded: {} ({})",
            runtime::gpu::ptx::embedded(),
            runtime::gpu::ptx::BUILD_STATUS
        );
        let dev = Device::open(cli.device)?;
        println!("{}", serde_json::to_string_pretty(dev.info())?);
        println!("free memory: {} MiB", dev.free_memory()? >> 20);
        return Ok(true);
    }
    let dev = Device::open(cli.device)?;
    eprintln!(
        "device: {} (sm_{}{}), {} SMs, driver {}",
        dev.info().name,
        dev.info().compute_capability.0,
        dev.info().compute_capability.1,
        dev.info().multiprocessors,
        dev.info().driver_version
    );
    match cli.cmd {
        Cmd::Info => unreachable!(),
        Cmd::Check { max_scale } => check(&dev, &check_graphs(max_scale)?, &variants(true)),
        Cmd::Programs { max_scale, small } => programs::check(&dev, max_scale, small),
        Cmd::Multi {
            gpus,
            strong,
            weak,
            edgefactor,
            roots,
            levels_per_sync,
            check_scale,
            grid,
            file_scale,
            out,
        } => multi::run(&multi::Args {
            gpus,
            strong,
            weak,
            edgefactor,
            roots,
            levels_per_sync,
            check_scale,
            grid,
            file_scale,
            out,
        }),
        Cmd::Sssp {
            graphs,
            sources,
            out,
        } => sssp::run(&dev, &graphs, sources, &out),
        Cmd::Peer {
            graph,
            sources,
            gunrock,
            edgefactor,
            kernel,
            max_edge_count,
            out,
        } => peer::run(
            &dev,
            &peer::PeerArgs {
                graph,
                sources,
                gunrock,
                edgefactor,
                kernels: kernel,
                max_edge_count,
                out,
            },
        ),
        Cmd::Dsl {
            scale,
            edgefactor,
            roots,
            max_edge_count,
            out,
        } => {
            let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
            let r = vertex_bench::gpu_bfs::dsl::run::<bfs::Program>(
                &dev,
                scale,
                edgefactor,
                roots,
                max_edge_count,
                8,
                &cmdline,
            )?;
            for s in &r.sides {
                println!(
                    "{:55} {:8.3} GTEPS  median {:8.3} ms",
                    s.name, s.gteps_hmean, s.time_ms_median
                );
            }
            println!(
                "DSL / hand (store): {:.3}   DSL / hand (atomic-min): {:.3}",
                r.ratio_dsl_vs_hand_store, r.ratio_dsl_vs_hand_atomic_min
            );
            for f in vertex_bench::gpu_bfs::dsl::write(&r, &out)? {
                println!("wrote {}", f.display());
            }
            Ok(true)
        }
        Cmd::Sanitize => {
            let graphs = vec![
                ("kron:8:16".to_string(), gen("kron:8:16")?),
                ("grid:30x20".to_string(), gen("grid:30x20")?),
                ("isolated".to_string(), isolated()?),
                ("single".to_string(), single()?),
            ];
            check(&dev, &graphs, &variants(false))
        }
        Cmd::Bench {
            scales,
            edgefactor,
            roots,
            naive_roots,
            max_edge_count,
            sweep_scale,
            sweep_roots,
            out,
        } => {
            let scales = parse_range(&scales)?;
            let cfg = BenchConfig {
                scales,
                edgefactor,
                roots,
                naive_roots,
                max_edge_count,
                sweep_scale,
                sweep_roots,
                ..BenchConfig::default()
            };
            let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
            let t = Instant::now();
            // Seed 000 Fig. 7's parallel CPU: the sync engine on the BFS program.
            let parallel = |g: &Graph<u32>, root: u32| -> runtime::Result<Vec<u32>> {
                let opts = runtime::cpu::CpuOptions::default();
                Ok(runtime::cpu::sync::run::<bfs::Program>(g, root, &opts)?.states)
            };
            let report = bench::run(&dev, &cfg, &cmdline, Some(&parallel), |l| eprintln!("{l}"))?;
            let files = bench::write_report(&report, &out)?;
            eprintln!("bench finished in {:.1} s", t.elapsed().as_secs_f64());
            println!(
                "{:>5} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10} {:>8} {:>8}",
                "scale",
                "direction ms",
                "balanced ms",
                "naive ms",
                "dir GTEPS",
                "bal GTEPS",
                "nai GTEPS",
                "dir/bal",
                "bal/nai"
            );
            for t in report.scaling.chunks(3) {
                if let [b, n, d] = t {
                    println!(
                        "{:>5} {:>12.3} {:>12.3} {:>12.3} {:>10.3} {:>10.3} {:>10.3} {:>7.2}x {:>7.2}x",
                        b.scale,
                        d.time_ms_median,
                        b.time_ms_median,
                        n.time_ms_median,
                        d.gteps_hmean,
                        b.gteps_hmean,
                        n.gteps_hmean,
                        d.gteps_hmean / b.gteps_hmean,
                        b.gteps_hmean / n.gteps_hmean
                    );
                }
            }
            for s in &report.direction_sweep {
                println!(
                    "direction chunk {:>4}: {:8.3} GTEPS, median {:.3} ms, {:.1} bottom-up levels",
                    s.max_edge_count, s.gteps_hmean, s.time_ms_median, s.bottom_up_levels_mean
                );
            }
            for s in &report.sweep {
                println!(
                    "sweep mec {:>4}: {:8.3} GTEPS, median {:.3} ms, sv {:.3} ms",
                    s.max_edge_count, s.gteps_hmean, s.time_ms_median, s.sv_build_ms_mean
                );
            }
            for s in report.levels_per_sync.iter().chain(&report.combine) {
                println!("{}", bench::summary_line(s));
            }
            for f in files {
                println!("wrote {}", f.display());
            }
            Ok(true)
        }
    }
}

fn parse_range(s: &str) -> Result<Vec<u32>> {
    if let Some((a, b)) = s.split_once('-') {
        let (a, b): (u32, u32) = (a.parse()?, b.parse()?);
        if a > b {
            bail!("empty scale range {s}");
        }
        return Ok((a..=b).collect());
    }
    s.split(',')
        .map(|x| x.parse().with_context(|| format!("bad scale `{x}`")))
        .collect()
}

fn gen(spec: &str) -> Result<Csr<u32>> {
    let spec = GenSpec::parse(spec).context("not a generator spec")??;
    let el = spec.generate()?;
    // Weights (grid) are irrelevant to BFS; keep the structure.
    let el = EdgeList::<u32> {
        num_vertices: el.num_vertices,
        edges: el.edges,
        weights: None,
    };
    Ok(build(&el, BuildOptions::undirected())?.into_csr())
}

/// Sparse uniform graph (most vertices isolated) plus isolated trailing vertices.
fn isolated() -> Result<Csr<u32>> {
    let mut el = runtime::generate::uniform(5000, 1500, 7)?;
    el.num_vertices = 5100;
    el.edges.push([4999, 5000]);
    Ok(build(&el, BuildOptions::undirected())?.into_csr())
}

fn single() -> Result<Csr<u32>> {
    let el = EdgeList::<u32>::new(1);
    Ok(build(&el, BuildOptions::default())?.into_csr())
}

fn check_graphs(max_scale: u32) -> Result<Vec<(String, Csr<u32>)>> {
    let mut v = Vec::new();
    for scale in 10..=max_scale {
        let s = format!("kron:{scale}:16");
        v.push((s.clone(), gen(&s)?));
    }
    v.push((
        "kron:16:48 (seed000 build)".into(),
        bench::kronecker_csr(16, 48, 1)?,
    ));
    v.push(("grid:1000x1000".into(), gen("grid:1000x1000")?));
    v.push(("isolated".into(), isolated()?));
    v.push(("single".into(), single()?));
    Ok(v)
}

fn variants(full: bool) -> Vec<GpuBfsOptions> {
    let mut v = Vec::new();
    for combine in [BfsCombine::Store, BfsCombine::AtomicMin] {
        for lps in [1u32, 3] {
            v.push(GpuBfsOptions {
                kernel: BfsKernel::Naive,
                combine,
                parents: true,
                levels_per_sync: lps,
                ..Default::default()
            });
            let mecs: &[u64] = if full { &[1, 16, 512] } else { &[1, 16] };
            if combine == BfsCombine::Store && lps == 1 {
                for &mec in mecs.iter().chain(&[64]) {
                    for pull in [Pull::Auto, Pull::Never] {
                        // Host-chosen directions (1) and device-planned batches.
                        for levels_per_sync in [1, 2, runtime::gpu::DEFAULT_LEVELS_PER_SYNC] {
                            v.push(GpuBfsOptions {
                                kernel: BfsKernel::Direction,
                                max_edge_count: mec,
                                parents: true,
                                pull,
                                levels_per_sync,
                                ..Default::default()
                            });
                        }
                    }
                }
            }
            for &mec in mecs {
                v.push(GpuBfsOptions {
                    kernel: BfsKernel::Balanced,
                    combine,
                    max_edge_count: mec,
                    parents: true,
                    levels_per_sync: lps,
                    ..Default::default()
                });
            }
        }
    }
    v
}

fn check(dev: &Device, graphs: &[(String, Csr<u32>)], variants: &[GpuBfsOptions]) -> Result<bool> {
    let mut failures = 0;
    let mut runs = 0;
    println!(
        "{:28} {:>9} {:>10} {:>7} {:>8} {:>6}  result",
        "graph", "vertices", "edges", "source", "levels", "runs"
    );
    for (name, g) in graphs {
        // Every check graph is built undirected: its CSR is its own transpose,
        // which is what the direction kernel's bottom-up levels read.
        let dg = dev.upload_traversal(&Graph::new(g.clone(), true), false)?;
        let mut sources = vec![0u32];
        if let Some(s) = (0..g.num_vertices() as u32).find(|&v| g.degree(v) > 0) {
            if s != 0 {
                sources.push(s);
            }
        }
        for &src in &sources {
            let want = oracle::bfs(g, src)?;
            let mut bad = Vec::new();
            for o in variants {
                runs += 1;
                let r = dev.bfs(&dg, src, o)?;
                let mut why = None;
                if r.levels != want.levels {
                    let v = r
                        .levels
                        .iter()
                        .zip(&want.levels)
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    why = Some(format!(
                        "level of {v}: gpu {} oracle {}",
                        r.levels[v], want.levels[v]
                    ));
                } else if r.num_levels != want.num_levels() {
                    why = Some(format!(
                        "num_levels {} vs {}",
                        r.num_levels,
                        want.num_levels()
                    ));
                } else if let Some(p) = &r.parents {
                    if let Err(e) = validate::validate_bfs_tree(g, src, p, Some(&r.levels)) {
                        why = Some(format!("parents: {e}"));
                    }
                }
                if let Some(w) = why {
                    bad.push(format!(
                        "{:?}/{:?}/mec {}/lps {}: {w}",
                        o.kernel, o.combine, o.max_edge_count, o.levels_per_sync
                    ));
                }
            }
            let status = if bad.is_empty() {
                "ok".to_string()
            } else {
                format!("FAIL ({})", bad.len())
            };
            println!(
                "{:28} {:>9} {:>10} {:>7} {:>8} {:>6}  {status}",
                name,
                g.num_vertices(),
                g.num_edges(),
                src,
                want.num_levels(),
                variants.len()
            );
            for b in &bad {
                println!("    {b}");
            }
            failures += bad.len();
        }
    }
    println!("{} passed, {} failed", runs - failures, failures);
    Ok(failures == 0)
}
