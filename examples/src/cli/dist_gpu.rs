//! GPU ranks for the commands that run over several ranks: one GPU per rank
//! (its `LOCAL_RANK`), the one-process multi-GPU engine's kernels and NCCL
//! exchange, each rank holding only its part (`runtime::gpu::multi::ranks`).

use std::time::Duration;

use anyhow::bail;
use runtime::dist::{Comm, RankBfs, RankEnv, RankGraph};
use runtime::gpu::multi::{rank_gpu_missing, EdgeWeight, MultiGpu, MultiGraph, TimeSplit};
use runtime::gpu::{BfsKernel, GpuProgram, ProgramOptions};
use runtime::program::VertexProgram;
use vertex_examples::programs::sssp::sssp;
use vertex_examples::programs::{bfs, cc};

use super::common::Backend;

/// Whether the ranks run on GPUs: `gpu` yes (a rank that cannot fails
/// naming why), `cpu` no, `auto` when every rank can (they decide together,
/// so that all run the same engine; rank 0 says which).
pub(super) fn use_gpus(backend: Backend, env: &RankEnv, comm: &Comm) -> anyhow::Result<bool> {
    let missing = rank_gpu_missing();
    Ok(match backend {
        Backend::Cpu => false,
        Backend::Gpu => match missing {
            Some(why) => bail!("--backend gpu: rank {} cannot use a GPU: {why}", env.rank),
            None => true,
        },
        Backend::Auto => {
            let all = comm.all_reduce_min(u64::from(missing.is_none()))? == 1;
            if env.rank == 0 {
                eprintln!(
                    "auto: {}",
                    match (all, &missing) {
                        (true, _) => "one GPU per rank (NCCL between them)".to_string(),
                        (false, Some(why)) => format!("the CPU engine (rank 0: {why})"),
                        (false, None) => "the CPU engine (a rank has no usable GPU)".to_string(),
                    }
                );
            }
            all
        }
    })
}

/// The multi-GPU options over ranks: `--gpus` (each rank drives one GPU, so
/// only 1 is taken) and `--exchange` (ranks exchange over NCCL; peer access is
/// for the GPUs of one process).
pub(super) fn one_gpu_per_rank(
    gpus: usize,
    exchange: Option<crate::cli::common::Exchange>,
) -> anyhow::Result<()> {
    if gpus != 1 {
        bail!(
            "--gpus {gpus}: over ranks each rank drives one GPU (its LOCAL_RANK); start more ranks instead"
        );
    }
    if exchange == Some(crate::cli::common::Exchange::Peer) {
        bail!("--exchange peer: ranks (one GPU per process) exchange over NCCL; peer access is for --gpus N in one process");
    }
    Ok(())
}

/// A run's result on one rank: its vertices' states, the levels run, the
/// run's time and, of it, the exchanges.
pub(super) type RankRun<S> = (Vec<S>, u32, Duration, Duration);

/// This rank's GPU joined to the others' and its part uploaded.
pub(super) struct GpuRank {
    pub multi: MultiGpu,
    pub graph: MultiGraph,
}

impl GpuRank {
    /// `g` uploaded to the joined GPU (in-neighbours hubs first if
    /// `hubs_first`; weighted by `weight` for weighted programs).
    pub fn new(
        multi: MultiGpu,
        g: &RankGraph,
        hubs_first: bool,
        weight: Option<&EdgeWeight>,
    ) -> anyhow::Result<GpuRank> {
        let graph = multi.upload_rank(g, hubs_first, weight)?;
        Ok(GpuRank { multi, graph })
    }

    /// BFS from `source` with the direction kernels (`levels_per_sync`
    /// levels between host waits): this rank's depths and exchange time, and
    /// where its time went (per-level split on its GPU, host time outside).
    pub fn bfs(
        &self,
        k: &[runtime::gpu::program::ProgramKernels],
        source: u32,
        max_edge_count: Option<u64>,
        levels_per_sync: u32,
        heuristic: runtime::gpu::Heuristic,
    ) -> anyhow::Result<(RankBfs, TimeSplit, f64)> {
        let opts = ProgramOptions {
            kernel: BfsKernel::Direction,
            max_edge_count,
            levels_per_sync,
            heuristic,
            ..ProgramOptions::default()
        };
        let r = self
            .multi
            .run_program::<bfs::Program>(k, &self.graph, source, &opts)?;
        let comm = self.host()?;
        let deepest = r.states.iter().filter(|&&d| d != u32::MAX).max();
        let levels = comm.all_reduce_max(deepest.map_or(0, |&d| u64::from(d) + 1))? as u32;
        let reached =
            comm.all_reduce_sum(r.states.iter().filter(|&&d| d != u32::MAX).count() as u64)?;
        let rb = RankBfs {
            depth: r.states,
            levels,
            reached,
            time: Duration::from_secs_f64(r.time_ms / 1e3),
            exchange: Duration::from_secs_f64(r.exchange_ms / 1e3),
        };
        Ok((rb, r.split, r.host_ms))
    }

    /// Components by label propagation (`cc`'s program): this rank's labels,
    /// rounds run, time and exchange time.
    pub fn components(&self) -> anyhow::Result<RankRun<u32>> {
        self.run_once::<cc::Program>(0, ProgramOptions::default())
    }

    /// Shortest distances from `source` (`sssp`'s program, 64-bit
    /// distances): near-far buckets of width `delta` when given, else
    /// frontier levels. This rank's distances, levels run, time, exchange.
    pub fn sssp(
        &self,
        source: u32,
        delta: Option<u64>,
        max_edge_count: Option<u64>,
    ) -> anyhow::Result<RankRun<u64>> {
        let opts = ProgramOptions {
            delta,
            max_edge_count,
            ..ProgramOptions::default()
        };
        self.run_once::<sssp::Program>(source, opts)
    }

    /// `P` from `source` once (its kernels loaded for the run) with the
    /// direction kernels, `opts` otherwise.
    fn run_once<P: GpuProgram>(
        &self,
        source: u32,
        opts: ProgramOptions,
    ) -> anyhow::Result<RankRun<<P as VertexProgram>::State>> {
        let k = self.multi.load_program::<P>()?;
        let opts = ProgramOptions {
            kernel: BfsKernel::Direction,
            ..opts
        };
        let r = self
            .multi
            .run_program::<P>(&k, &self.graph, source, &opts)?;
        Ok((
            r.states,
            r.levels.len() as u32,
            Duration::from_secs_f64(r.time_ms / 1e3),
            Duration::from_secs_f64(r.exchange_ms / 1e3),
        ))
    }

    pub fn host(&self) -> anyhow::Result<&Comm> {
        self.multi
            .host()
            .ok_or_else(|| anyhow::anyhow!("a GPU rank without its host link"))
    }
}
