//! What the two blocked Floyd–Warshall front ends share ([`super::apsp`]'s i32
//! kernels and [`super::closure`]'s semiring kernels): the host emulation of a
//! thread block and of the three phases, and the peak-kernel timer. A leaf, so
//! that neither front end imports the other for it.

use cudarc::driver::LaunchConfig;
use kernels_rs::closure::{Block, THREADS, TILE};
use rayon::prelude::*;

use super::cuda::Gpu;
use crate::error::Result;

/// The peak kernels' grid: `blocks_per_sm` × SMs blocks of 256 threads.
pub(crate) fn peak_grid(gpu: &Gpu, blocks_per_sm: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (gpu.info.multiprocessors.max(1) * blocks_per_sm.max(1), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Relaxations per second of a peak kernel doing 16 relaxations per thread and
/// round over grid `cfg`: `launch(iters)` timed with CUDA events after a
/// warm-up launch.
pub(crate) fn time_peak(
    gpu: &Gpu,
    cfg: LaunchConfig,
    iters: u32,
    launch: impl Fn(u32) -> Result<()>,
) -> Result<f64> {
    let run = |iters: u32| -> Result<f64> {
        let start = gpu.record()?;
        launch(iters)?;
        let end = gpu.record()?;
        gpu.sync("peak kernel")?;
        Gpu::elapsed_ms(&start, &end)
    };
    run(16)?; // warm-up
    let ms = run(iters)?;
    let threads = cfg.grid_dim.0 as f64 * cfg.block_dim.0 as f64;
    Ok(threads * iters as f64 * 16.0 / (ms * 1e-3).max(1e-12))
}

/// The host's stand-in for a thread block: `each` runs the step for every thread
/// id in turn (a legal schedule of the barrier program).
pub(crate) struct HostBlock {
    pub(crate) bid: u32,
}

impl Block for HostBlock {
    fn block_idx(&self) -> u32 {
        self.bid
    }
    fn each(&self, mut f: impl FnMut(u32)) {
        for t in 0..THREADS {
            f(t)
        }
    }
}

/// Runs the three phases for every `kb` over an `np × np` matrix, blocks of one
/// launch in parallel (they write disjoint tiles and read only tiles no block of
/// that launch writes); `launch(phase, block, shared memory)`.
pub(crate) fn emulate_phases<V: Default + Copy + Send>(
    np: usize,
    smem_values: usize,
    launch: impl Fn(u32, u32, u32, &mut [V]) + Sync,
) {
    let nt = (np / TILE as usize) as u32;
    for kb in 0..nt {
        for (phase, blocks) in [(0, 1), (1, 2 * nt), (2, nt * nt)] {
            (0..blocks).into_par_iter().for_each(|bid| {
                let mut sm = vec![V::default(); smem_values];
                launch(phase, kb, bid, &mut sm);
            });
        }
    }
}

/// `n` rounded up to a multiple of [`TILE`] (at least one tile).
pub fn padded(n: usize) -> usize {
    n.div_ceil(TILE as usize).max(1) * TILE as usize
}
