//! APSP benchmarks and device checks (seed 002). Built here, run here (`cpu`) or
//! carried to the GPU machine (`check`, `gpu`) like `vertex-gpu-bench`.
//!
//! * `cpu` — blocked FW (tile sizes, all threads / one thread) vs the naive triple
//!   loop vs Johnson vs the peers scipy and petgraph (`floyd_warshall` of each,
//!   results compared entry by entry with ours), N = 1024, 2048:
//!   apsp-cpu.{json,svg}, apsp-cpu-ratios.svg.
//! * `check` — GPU FW (naive and blocked, exact and fast encodings) equals CPU
//!   blocked FW on random graphs with and without negative weights.
//! * `gpu` — the check, then the seed 002 sweep (naive GPU vs CPU, blocked vs
//!   naive, N = 64 … 4096) and blocked FW at N = 8192, 16384 as relaxations/s
//!   against an add+min peak kernel from the same run: apsp-gpu*.{json,svg}.
//! * `closure` — every semiring program's GPU closure (min-plus over i32, f32,
//!   i64, f64; or-and; max-min over u32 and u64; max-times) at N = 4096, 8192,
//!   16384: time, relaxations/s, % of the semiring's own peak kernel, vs our CPU
//!   blocked FW, every result checked (vertex_bench::apsp::closure):
//!   apsp-closure.json, apsp-closure-{rate,peak}.svg.
//! * `closure-check` — each program's two kernel sets (with and without next
//!   hops) against the CPU at small N (for compute-sanitizer).

use std::process::ExitCode;

#[path = "apsp_bench/closure.rs"]
mod closure;

use anyhow::Result;
use clap::{Parser, Subcommand};
use runtime::gpu::apsp::ApspGpu;
use vertex_bench::apsp::closure::{self as closure_bench, ClosureBenchConfig, ClosureReport};
use vertex_bench::apsp::peer::{CpuPeer, Petgraph, Scipy};
use vertex_bench::apsp::{self as bench, CpuConfig, GpuConfig};

#[derive(Parser)]
#[command(about = "vertex APSP: CPU and GPU Floyd–Warshall benchmarks (seed 002)")]
struct Cli {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    #[command(subcommand)]
    cmd: Cmd,
}

fn sizes(s: &str) -> Result<Vec<usize>> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| Ok(x.trim().parse()?))
        .collect()
}

#[derive(Subcommand)]
enum Cmd {
    /// CPU: blocked vs naive vs Johnson vs scipy and petgraph.
    Cpu {
        #[arg(long, default_value = "1024,2048")]
        sizes: String,
        #[arg(long, default_value_t = 0.1)]
        density: f64,
        #[arg(long, default_value_t = 2048)]
        naive_max: usize,
        #[arg(long)]
        no_scipy: bool,
        #[arg(long)]
        no_petgraph: bool,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// GPU FW equals CPU FW on random graphs (n ≤ --max-n; small for
    /// compute-sanitizer).
    Check {
        #[arg(long, default_value_t = usize::MAX)]
        max_n: usize,
    },
    /// The check, the seed 002 sweep, large-n blocked vs the add+min peak.
    Gpu {
        #[arg(long, default_value = "64,128,256,512,1024,2048,4096")]
        sweep: String,
        #[arg(long, default_value = "8192,16384")]
        big: String,
        #[arg(long, default_value_t = 0.1)]
        density: f64,
        #[arg(long, default_value_t = 1024)]
        cpu_naive_max: usize,
        #[arg(long, default_value_t = 4096)]
        cpu_blocked_max: usize,
        #[arg(long, default_value_t = 8192)]
        gpu_naive_max: usize,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// Every semiring program's GPU closure at large N, checked (JSON + SVG).
    Closure {
        #[arg(long, default_value = "4096,8192,16384")]
        sizes: String,
        /// Programs to run (comma-separated; default all).
        #[arg(
            long,
            default_value = "apsp,apsp_f32,apsp_i64,apsp_f64,closure,bottleneck,widest_u64,reliable"
        )]
        programs: String,
        /// Above this N only the --large programs run.
        #[arg(long, default_value_t = 8192)]
        large_min: usize,
        #[arg(
            long,
            default_value = "apsp,apsp_f32,apsp_f64,closure,bottleneck,reliable"
        )]
        large: String,
        #[arg(long, default_value_t = 0.1)]
        density: f64,
        /// Largest N also run on the CPU and compared cell by cell.
        #[arg(long, default_value_t = 4096)]
        full_max: usize,
        /// Largest N also run with next hops.
        #[arg(long, default_value_t = 8192)]
        path_max: usize,
        #[arg(long, default_value_t = 4)]
        sample_rows: usize,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// Each semiring program's closure kernels equal the CPU's at small N.
    ClosureCheck {
        #[arg(long, default_value = "1,70,200")]
        sizes: String,
        #[arg(
            long,
            default_value = "apsp,apsp_f32,apsp_i64,apsp_f64,closure,bottleneck,widest_u64,reliable"
        )]
        programs: String,
    },
}

fn names(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    match cli.cmd {
        Cmd::Cpu {
            sizes: s,
            density,
            naive_max,
            no_scipy,
            no_petgraph,
            out,
        } => {
            let cfg = CpuConfig {
                sizes: sizes(&s)?,
                density,
                naive_max,
                ..CpuConfig::default()
            };
            let mut peers: Vec<&dyn CpuPeer> = Vec::new();
            if !no_scipy {
                peers.push(&Scipy);
            }
            if !no_petgraph {
                peers.push(&Petgraph);
            }
            let rep = bench::run_cpu(&cfg, &peers, &cmdline, |l| eprintln!("{l}"))?;
            for (n, what, r) in &rep.ratios {
                println!("n {n:6}  {what:52} {r:8.2}x");
            }
            for f in bench::write_cpu(&rep, &out)? {
                println!("wrote {}", f.display());
            }
        }
        Cmd::Check { max_n } => {
            let dev = ApspGpu::open(cli.device)?;
            eprintln!("device: {}", dev.info().name);
            bench::check_gpu(&dev, max_n, |l| println!("{l}"))?;
            println!("all GPU FW checks passed");
        }
        Cmd::Gpu {
            sweep,
            big,
            density,
            cpu_naive_max,
            cpu_blocked_max,
            gpu_naive_max,
            out,
        } => {
            let dev = ApspGpu::open(cli.device)?;
            eprintln!("device: {}", dev.info().name);
            let cfg = GpuConfig {
                sweep: sizes(&sweep)?,
                big: sizes(&big)?,
                density,
                cpu_naive_max,
                cpu_blocked_max,
                gpu_naive_max,
                ..GpuConfig::default()
            };
            let rep = bench::run_gpu(&dev, &cfg, &cmdline, |l| eprintln!("{l}"))?;
            for (n, what, r) in &rep.ratios {
                println!("n {n:6}  {what:44} {r:8.3}");
            }
            for f in bench::write_gpu(&rep, &out)? {
                println!("wrote {}", f.display());
            }
        }
        Cmd::Closure {
            sizes: s,
            programs,
            large_min,
            large,
            density,
            full_max,
            path_max,
            sample_rows,
            out,
        } => {
            let cfg = ClosureBenchConfig {
                sizes: sizes(&s)?,
                density,
                full_max,
                path_max,
                sample_rows,
                ..ClosureBenchConfig::default()
            };
            let mut rep = ClosureReport::new(cfg.clone(), &cmdline);
            let large = names(&large);
            for p in names(&programs) {
                let mut job = closure::Job::Bench {
                    device: cli.device,
                    cfg: &cfg,
                    large_min,
                    large: &large,
                    rep: &mut rep,
                };
                if let Err(e) = closure::run(&p, &mut job) {
                    eprintln!("{p}: {e:#}");
                    rep.failures.push(format!("{p}: {e:#}"));
                }
            }
            for f in closure_bench::write_closure(&rep, &out)? {
                println!("wrote {}", f.display());
            }
            if !rep.failures.is_empty() {
                anyhow::bail!(
                    "{} failures: {}",
                    rep.failures.len(),
                    rep.failures.join("; ")
                );
            }
            println!("all closure results checked");
        }
        Cmd::ClosureCheck { sizes: s, programs } => {
            let n = sizes(&s)?;
            for p in names(&programs) {
                closure::run(
                    &p,
                    &mut closure::Job::Check {
                        device: cli.device,
                        sizes: &n,
                    },
                )?;
            }
            println!("all closure checks passed");
        }
    }
    Ok(())
}
