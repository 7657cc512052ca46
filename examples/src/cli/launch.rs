//! `vertex launch -n N -- COMMAND...`: N ranks of a distributed run on this
//! host, each a process with the environment a cluster launcher would give
//! it (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`), so
//! the command runs the same here as under torchrun, MPI wrappers or a
//! scheduler on many hosts.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;

#[derive(Args, Debug)]
pub struct LaunchArgs {
    /// Number of ranks (processes) to start.
    #[arg(short = 'n', long = "ranks")]
    pub ranks: usize,
    /// Port of rank 0's rendezvous on 127.0.0.1 (default: a free one).
    #[arg(long)]
    pub port: Option<u16>,
    /// Seconds a rank waits for another before giving up (VERTEX_DIST_TIMEOUT).
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Where each rank runs: `none` (wherever the OS puts it) or `gpu` (rank
    /// `r` bound to the CPUs next to GPU `r`, the `r`-th NVIDIA GPU in PCI order,
    /// and CUDA_DEVICE_ORDER=PCI_BUS_ID so that CUDA numbers the GPUs alike; its
    /// host memory then comes from that NUMA node by first touch).
    #[arg(long, value_enum, default_value_t = Bind::None)]
    pub bind: Bind,
    /// The command every rank runs, after `--` (e.g. `vertex bfs kron:20`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<String>,
}

/// Where `vertex launch` runs each rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Bind {
    None,
    Gpu,
}

/// The CPUs rank `r` is bound to under `--bind gpu`: those next to its GPU (the
/// `r`-th of CUDA_VISIBLE_DEVICES when that lists ordinals). `None`, with a
/// warning, when they cannot be found: the rank then runs unbound.
fn rank_cpus(r: usize) -> Option<Vec<usize>> {
    let ordinal = match std::env::var("CUDA_VISIBLE_DEVICES") {
        Ok(list) => {
            let ids: Option<Vec<usize>> = list.split(',').map(|x| x.trim().parse().ok()).collect();
            match ids.and_then(|ids| ids.get(r).copied()) {
                Some(o) => o,
                None => {
                    eprintln!(
                        "vertex launch: --bind gpu: rank {r} has no ordinal in CUDA_VISIBLE_DEVICES={list}; it runs unbound"
                    );
                    return None;
                }
            }
        }
        Err(_) => r,
    };
    match runtime::dist::gpu_cpus::gpu_cpus(ordinal) {
        Ok(cpus) => Some(cpus),
        Err(e) => {
            eprintln!("vertex launch: --bind gpu: {e}; rank {r} runs unbound");
            None
        }
    }
}

/// Copies `from` line by line to our stderr, each line prefixed.
fn relay(from: impl Read + Send + 'static, prefix: String) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            let _ = writeln!(std::io::stderr().lock(), "{prefix}{line}");
        }
    })
}

fn describe(s: ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exited with status {c}"),
        None => "was killed by a signal".into(),
    }
}

pub fn run(a: LaunchArgs) -> anyhow::Result<()> {
    if a.ranks == 0 {
        bail!("-n must be at least 1");
    }
    let (program, args) = a.command.split_first().context("no command to launch")?;
    let port = match a.port {
        Some(p) => p,
        None => std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .context("finding a free port for the rendezvous")?
            .port(),
    };
    // Ranks share this host's cores unless told otherwise.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads =
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| (cores / a.ranks).max(1).to_string());
    let mut children: Vec<Child> = Vec::with_capacity(a.ranks);
    let mut relays = Vec::new();
    for r in 0..a.ranks {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env("RANK", r.to_string())
            .env("WORLD_SIZE", a.ranks.to_string())
            .env("LOCAL_RANK", r.to_string())
            .env("MASTER_ADDR", "127.0.0.1")
            .env("MASTER_PORT", port.to_string())
            .env("VERTEX_DIST_TIMEOUT", a.timeout.to_string())
            .env("RAYON_NUM_THREADS", &threads)
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        if a.bind == Bind::Gpu {
            cmd.env("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
            #[cfg(unix)]
            if let Some(cpus) = rank_cpus(r) {
                use std::os::unix::process::CommandExt;
                // SAFETY: runs in the forked child before exec; it only reads
                // `cpus`, built before the fork, and makes the sched_setaffinity
                // system call: no allocation, no lock.
                unsafe {
                    cmd.pre_exec(move || {
                        runtime::cpu::topology::set_affinity(&cpus);
                        Ok(())
                    })
                };
            }
        }
        // Rank 0's output is the run's (e.g. --json); the others' goes to
        // stderr, prefixed with their rank.
        cmd.stdout(if r == 0 {
            Stdio::inherit()
        } else {
            Stdio::piped()
        });
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                children.iter_mut().for_each(|c| drop(c.kill()));
                return Err(e).with_context(|| format!("starting rank {r}: `{program}`"));
            }
        };
        if let Some(out) = child.stdout.take() {
            relays.push(relay(out, format!("[rank {r}] ")));
        }
        if let Some(err) = child.stderr.take() {
            relays.push(relay(err, format!("[rank {r}] ")));
        }
        children.push(child);
    }
    // Wait for all; after the first failure give the others a few seconds to
    // end on their own (they see the failed rank's connection close), then
    // stop them.
    let mut status: Vec<Option<ExitStatus>> = vec![None; a.ranks];
    let mut failed: Option<(usize, ExitStatus)> = None;
    let mut grace: Option<Instant> = None;
    while status.iter().any(Option::is_none) {
        for (r, c) in children.iter_mut().enumerate() {
            if status[r].is_none() {
                if let Some(s) = c
                    .try_wait()
                    .with_context(|| format!("waiting for rank {r}"))?
                {
                    status[r] = Some(s);
                    if !s.success() && failed.is_none() {
                        failed = Some((r, s));
                        grace = Some(Instant::now() + Duration::from_secs(5));
                    }
                }
            }
        }
        if grace.is_some_and(|g| Instant::now() >= g) {
            for (r, c) in children.iter_mut().enumerate() {
                if status[r].is_none() {
                    let _ = c.kill();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    relays.into_iter().for_each(|h| drop(h.join()));
    if let Some((r, s)) = failed {
        bail!("rank {r} of {} {}", a.ranks, describe(s));
    }
    Ok(())
}
