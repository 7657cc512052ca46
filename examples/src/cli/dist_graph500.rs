//! `vertex bench graph500` over ranks (under `vertex launch -n N` or a
//! cluster launcher): each rank draws its share of the Kronecker edge blocks
//! and keeps its vertices' rows, the ranks search from the roots the
//! one-process run picks (same seed, same degrees), on one GPU each or on
//! their CPUs, and check every result together by Graph500's rules on the
//! depths. Rank 0 writes the report (`num_mpi_processes` = the ranks).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use runtime::dist::{
    bfs, kronecker_part_with_tuples, out_degrees, validate_bfs, Comm, RankBfs, RankEnv,
};
use runtime::generate::{pick_roots_by_offsets, Kronecker};
use runtime::gpu::multi::{MultiGpu, TimeSplit};
use runtime::gpu::BfsKernel;
use vertex_bench::graph500::{root_stats, Graph500Report, RootResult};
use vertex_bench::host::HostInfo;
use vertex_examples::programs::bfs as bfs_program;

use super::bench::{chart, kernel_name, Backend, Graph500Args, Output, Validator};
use super::dist_gpu::GpuRank;
use super::dist_run::slowest_ms;

const GPU_RANKS_TIMING: &str = "the slowest rank's host wall time of its part of the traversal (direction kernels on its GPU, NCCL all-gather per level); depths, no parent tree";
const CPU_RANKS_TIMING: &str =
    "the slowest rank's wall time of the bottom-up level loop over ranks (TCP exchange)";

pub fn graph500_ranks(a: Graph500Args, env: RankEnv) -> anyhow::Result<()> {
    super::dist_gpu::one_gpu_per_rank(a.gpus, a.exchange)?;
    if a.validator == Validator::Gpu {
        bail!("--validator gpu: over ranks the ranks check every result together (Graph500's rules on the depths); drop the option");
    }
    let gpu = a.backend != Backend::Cpu;
    if gpu && a.kernel != [BfsKernel::Direction] {
        bail!("--kernel: GPU ranks run the direction kernels only");
    }
    if a.levels_per_sync.is_empty() || a.levels_per_sync.iter().any(|&l| !(1..=64).contains(&l)) {
        bail!("--levels-per-sync takes values in 1..=64");
    }
    let heuristic = match a.heuristics()?[..] {
        [h] => h,
        _ => bail!("--alpha: ranks run one value"),
    };
    if !gpu && heuristic != runtime::gpu::Heuristic::DEFAULT {
        bail!("--alpha/--beta: CPU ranks go bottom-up every level; the switch points are the GPU direction kernel's");
    }
    if gpu {
        if let Some(why) = runtime::gpu::multi::rank_gpu_missing() {
            bail!(
                "--backend {}: rank {} cannot use a GPU: {why}",
                a.backend.name(),
                env.rank
            );
        }
    }
    let lead = env.rank == 0;
    if lead {
        std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
        eprintln!(
            "graph500: scale {} edgefactor {} over {} ranks ({})",
            a.scale,
            a.edgefactor,
            env.world,
            if gpu { "one GPU each" } else { "CPU" }
        );
    }
    let comm = Arc::new(Comm::connect(&env)?);
    let cfg = a.config();
    // The GPUs join before generating, so a rank without one fails first.
    let joined = gpu
        .then(|| MultiGpu::join(&env, comm.clone()))
        .transpose()?;
    let k = Kronecker::graph500(a.scale, a.edgefactor, a.seed);
    let t = Instant::now();
    let (g, tuples) = kronecker_part_with_tuples(&k, &comm, true)
        .with_context(|| format!("rank {}: generating its part", env.rank))?;
    let generation_time = slowest_ms(&comm, t.elapsed())? / 1e3;
    let t = Instant::now();
    let rank = joined
        .map(|m| GpuRank::new(m, &g, cfg.hubs_first, None))
        .transpose()?;
    // Every vertex's degree (the roots are drawn among degree > 0, as the
    // one-process run draws them).
    let offsets = match &rank {
        Some(r) => r.graph.degree_offsets().to_vec(),
        None => {
            let mine = out_degrees(&g, &comm)?;
            let mut all = vec![0u32; g.num_vertices];
            comm.all_gather_into(&mine, |r| g.parts.range(r), &mut all, "degrees")?;
            std::iter::once(0)
                .chain(all.iter().scan(0u64, |acc, &d| {
                    *acc += u64::from(d);
                    Some(*acc)
                }))
                .collect()
        }
    };
    let construction_time = slowest_ms(&comm, t.elapsed())? / 1e3;
    let roots = pick_roots_by_offsets(&offsets, a.roots, a.seed);
    if roots.is_empty() {
        bail!("the graph has no vertex with degree > 0");
    }
    let csr_entries = comm.all_reduce_sum(g.targets.len() as u64)?;
    if lead {
        eprintln!(
            "  {} vertices, {csr_entries} CSR entries; generation {generation_time:.3} s, {} {construction_time:.3} s",
            g.num_vertices,
            if gpu { "degrees and upload" } else { "degrees" }
        );
    }
    let kernels = match &rank {
        Some(r) => Some(r.multi.load_program::<bfs_program::Program>()?),
        None => None,
    };
    let search = |root: u32, lps: u32| -> anyhow::Result<(RankBfs, Option<(TimeSplit, f64)>)> {
        match (&rank, &kernels) {
            (Some(r), Some(k)) => {
                let (b, split, host) = r.bfs(k, root, a.max_edge_count, lps, heuristic)?;
                Ok((b, Some((split, host))))
            }
            _ => Ok((bfs(&g, &comm, root)?, None)),
        }
    };
    // One untimed search first on GPUs (module JIT, first touch).
    if gpu {
        search(roots[0], a.levels_per_sync[0])?;
    }
    let lpss: Vec<Option<u32>> = match gpu {
        true => a.levels_per_sync.iter().map(|&l| Some(l)).collect(),
        false => vec![None],
    };
    let mut invalid = Vec::new();
    for lps in lpss {
        let pb = lead.then(|| runtime::progress::bar(roots.len() as u64, "BFS roots"));
        let started = Instant::now();
        let (mut call_time, mut validation_time, mut exchange) = (0.0, 0.0, Duration::ZERO);
        let mut results = Vec::with_capacity(roots.len());
        let mut splits = Vec::with_capacity(roots.len());
        let mut failures = Vec::new();
        for &root in &roots {
            // Every rank starts the search together (as Graph500's MPI reference
            // does before each timed BFS): a rank still finishing the previous
            // root's validation would otherwise be timed as the others' wait
            // in the first exchange.
            comm.barrier()?;
            let t = Instant::now();
            let (r, split) = search(root, lps.unwrap_or(1))?;
            splits.extend(split);
            call_time += t.elapsed().as_secs_f64();
            exchange += r.exchange;
            let seconds = slowest_ms(&comm, r.time)? / 1e3;
            let t = Instant::now();
            let bad = validate_bfs(&g, &comm, root, &r)?;
            validation_time += t.elapsed().as_secs_f64();
            let mine: u64 = r
                .depth
                .iter()
                .zip(&tuples)
                .filter(|(&d, _)| d != u32::MAX)
                .map(|(_, &c)| u64::from(c))
                .sum();
            let nedge = comm.all_reduce_sum(mine)?;
            let error = (bad > 0).then(|| format!("{bad} violations of Graph500's rules"));
            if let Some(e) = &error {
                failures.push((root, e.clone()));
            }
            results.push(RootResult {
                root,
                seconds,
                device_seconds: None,
                nedge,
                reached: r.reached,
                teps: if seconds > 0.0 {
                    nedge as f64 / seconds
                } else {
                    0.0
                },
                validation_error: error,
            });
            if let Some(pb) = &pb {
                pb.inc(1);
            }
        }
        if let Some(pb) = pb {
            pb.finish_and_clear();
        }
        let (bfs_time, nedge, teps) = root_stats(&results);
        // Every rank's mean split (GPU ranks): which rank a slow run waits for.
        let rank_splits = match mean_split(&splits) {
            Some((sp, host)) => {
                let mine = [
                    sp.kernel_max_ms,
                    sp.kernel_min_ms,
                    sp.allgather_ms,
                    sp.wait_ms,
                    sp.level_ms,
                    sp.host_gap_ms,
                    host,
                ];
                comm.all_gather_array(mine)?
                    .into_iter()
                    .map(|w| {
                        let split = TimeSplit {
                            kernel_max_ms: w[0],
                            kernel_min_ms: w[1],
                            allgather_ms: w[2],
                            wait_ms: w[3],
                            level_ms: w[4],
                            host_gap_ms: w[5],
                        };
                        (split, w[6])
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let report = Graph500Report {
            config: cfg.clone(),
            backend: format!("{}-ranks{}", if gpu { "gpu" } else { "cpu" }, env.world),
            vertices: g.num_vertices as u64,
            csr_entries,
            input_edges: a.edgefactor << a.scale,
            generation_time,
            construction_time,
            roots: results,
            bfs_time,
            nedge,
            teps,
            validation_time,
            validator: "ranks (depths)".into(),
            call_time,
            roots_time: started.elapsed().as_secs_f64(),
            valid: failures.is_empty(),
            processes: env.world,
            failures,
        };
        if !report.valid {
            invalid.push(format!(
                "{} of {} searches failed Graph500's checks",
                report.failures.len(),
                report.roots.len()
            ));
        }
        if !lead {
            continue;
        }
        print!("{}", report.output_block());
        let kernel = gpu.then(|| kernel_name(BfsKernel::Direction));
        let out = Output {
            host: HostInfo::read(),
            device: rank.as_ref().map(|r| r.multi.devices[0].info().clone()),
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            warmup: gpu,
            timing: if gpu {
                GPU_RANKS_TIMING
            } else {
                CPU_RANKS_TIMING
            },
            kernel,
            max_edge_count: a.max_edge_count,
            levels_per_sync: lps,
            alpha: gpu.then_some(heuristic.alpha),
            beta: gpu.then_some(heuristic.beta),
            cuda_graphs: None,
            exchange_ms_mean: Some(exchange.as_secs_f64() * 1e3 / roots.len() as f64),
            rank_split_mean: (!rank_splits.is_empty()).then_some(rank_splits),
            report: &report,
        };
        let sync_tag = match lps {
            Some(l) if l != runtime::gpu::DEFAULT_LEVELS_PER_SYNC => format!("-sync{l}"),
            _ => String::new(),
        };
        let stem = format!(
            "graph500-{}-ranks{}{sync_tag}-s{}",
            if gpu { "gpu" } else { "cpu" },
            env.world,
            a.scale
        );
        let json = a.out.join(format!("{stem}.json"));
        std::fs::write(&json, serde_json::to_string_pretty(&out)?)
            .with_context(|| format!("writing {}", json.display()))?;
        let svg = a.out.join(format!("{stem}.svg"));
        chart(&report, &svg)?;
        eprintln!("wrote {} and {}", json.display(), svg.display());
    }
    if !invalid.is_empty() {
        bail!("{}", invalid.join("; "));
    }
    Ok(())
}

/// This rank's mean per search of the per-level split, and of its host
/// time outside the levels (ms).
fn mean_split(splits: &[(TimeSplit, f64)]) -> Option<(TimeSplit, f64)> {
    let k = splits.len() as f64;
    (k > 0.0).then(|| {
        let mut m = TimeSplit::default();
        let mut host = 0.0;
        for (s, h) in splits {
            m.kernel_max_ms += s.kernel_max_ms / k;
            m.kernel_min_ms += s.kernel_min_ms / k;
            m.allgather_ms += s.allgather_ms / k;
            m.wait_ms += s.wait_ms / k;
            m.level_ms += s.level_ms / k;
            m.host_gap_ms += s.host_gap_ms / k;
            host += h / k;
        }
        (m, host)
    })
}
