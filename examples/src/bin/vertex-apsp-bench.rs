//! APSP benchmarks and device checks (seed 002). Built here, run here (`cpu`) or
//! carried to the GPU machine (`check`, `gpu`) like `vertex-gpu-bench`.
//!
//! * `cpu` — blocked FW (tile sizes, all threads / one thread) vs the naive triple
//!   loop vs scipy's floyd_warshall vs Johnson, N = 1024, 2048: apsp-cpu.{json,svg}.
//! * `check` — GPU FW (naive and blocked, exact and fast encodings) equals CPU
//!   blocked FW on random graphs with and without negative weights.
//! * `gpu` — the check, then the seed 002 sweep (naive GPU vs CPU, blocked vs
//!   naive, N = 64 … 4096) and blocked FW at N = 8192, 16384 as relaxations/s
//!   against an add+min peak kernel from the same run: apsp-gpu*.{json,svg}.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use runtime::apsp::bench::{self, CpuConfig, GpuConfig};
use runtime::gpu::apsp::ApspGpu;

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
    /// CPU: blocked vs naive vs scipy vs Johnson.
    Cpu {
        #[arg(long, default_value = "1024,2048")]
        sizes: String,
        #[arg(long, default_value_t = 0.1)]
        density: f64,
        #[arg(long, default_value_t = 2048)]
        naive_max: usize,
        #[arg(long)]
        no_scipy: bool,
        #[arg(long, default_value = "docs/results")]
        out: std::path::PathBuf,
    },
    /// GPU FW equals CPU FW on random graphs.
    Check,
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
            out,
        } => {
            let cfg = CpuConfig {
                sizes: sizes(&s)?,
                density,
                naive_max,
                scipy: !no_scipy,
                ..CpuConfig::default()
            };
            let rep = bench::run_cpu(&cfg, &cmdline, |l| eprintln!("{l}"))?;
            for (n, what, r) in &rep.ratios {
                println!("n {n:6}  {what:40} {r:8.2}x");
            }
            for f in bench::write_cpu(&rep, &out)? {
                println!("wrote {}", f.display());
            }
        }
        Cmd::Check => {
            let dev = ApspGpu::open(cli.device)?;
            eprintln!("device: {}", dev.info().name);
            bench::check_gpu(&dev, |l| println!("{l}"))?;
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
    }
    Ok(())
}
