//! Floyd–Warshall on the GPU (seed 002): the naive one-thread-per-cell kernel and
//! the blocked 3-phase kernel of `kernels_rs::apsp`, on the device through cudarc
//! and on the host through the emulator (same kernel bodies).
//!
//! Distances are i32 min-plus. The matrix goes to the device padded to a multiple
//! of [`TILE`] for the blocked kernel (padding vertices are isolated, all ∞). When
//! every weight is non-negative and every finite distance is below [`FAST_INF`]
//! ([`fast_ok`]), ∞ is re-encoded as `FAST_INF` and the `_fast` kernels run plain
//! `min(c, a + b)`; otherwise the exact kernels (∞ = `i32::MAX`, a select).
//! Timing uses CUDA events (seed 002: host timers mis-measure asynchronous
//! launches).

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use kernels_rs::apsp::{
    self as k, Exact, Fast, Semiring, FAST_INF, INF, SMEM_BYTES, THREADS, TILE,
};
use kernels_rs::ThreadCtx;
use rayon::prelude::*;

pub use super::blocked::padded;
use super::blocked::{emulate_phases, peak_grid, time_peak, HostBlock};
use super::cuda::{DevBuf, DeviceInfo, Gpu};
use super::launch::SharedPtr;
use crate::error::{Error, Result};

/// Which FW kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FwKernel {
    /// Seed 002: one thread per cell, one launch per `k`.
    Naive,
    /// Katz & Kider 3-phase tiles in shared memory, register-tiled phase 3.
    Blocked,
}

/// Timings of one GPU FW run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuFwRun {
    pub kernel: FwKernel,
    /// Whether the threshold-encoded (`_fast`) kernels ran.
    pub fast: bool,
    pub n: usize,
    /// Padded side on the device.
    pub n_device: usize,
    /// Kernel time, CUDA events around all launches.
    pub kernel_ms: f64,
    /// Host wall time including upload, download and allocation.
    pub total_ms: f64,
    pub launches: u64,
}

impl GpuFwRun {
    /// Relaxations per second over the unpadded `n³`.
    pub fn relaxations_per_s(&self) -> f64 {
        (self.n as f64).powi(3) / (self.kernel_ms * 1e-3).max(1e-12)
    }
}

/// Whether the fast (threshold) encoding is exact for this matrix: entries are
/// ∞ or in `0..`, and `(n − 1) · max` stays below [`FAST_INF`].
pub fn fast_ok(d: &[i32], n: usize) -> bool {
    let mut max = 0i64;
    for &x in d {
        if x == INF {
            continue;
        }
        if x < 0 {
            return false;
        }
        max = max.max(x as i64);
    }
    (n.saturating_sub(1) as i64).saturating_mul(max) < FAST_INF as i64
}

fn encode_fast(d: &mut [i32]) {
    d.par_iter_mut().for_each(|x| {
        if *x == INF {
            *x = FAST_INF
        }
    });
}

fn decode_fast(d: &mut [i32]) {
    d.par_iter_mut().for_each(|x| {
        if *x >= FAST_INF {
            *x = INF
        }
    });
}

fn pad(d: &[i32], n: usize, np: usize, inf: i32) -> Vec<i32> {
    let mut out = vec![inf; np * np];
    out.par_chunks_mut(np)
        .enumerate()
        .take(n)
        .for_each(|(i, row)| {
            row[..n].copy_from_slice(&d[i * n..(i + 1) * n]);
        });
    out
}

fn unpad(src: &[i32], d: &mut [i32], n: usize, np: usize) {
    d.par_chunks_mut(n.max(1)).enumerate().for_each(|(i, row)| {
        row.copy_from_slice(&src[i * np..i * np + n]);
    });
}

fn check_len(d: &[i32], n: usize) -> Result<()> {
    if Some(d.len()) != n.checked_mul(n) {
        return Err(Error::InvalidArgument(format!(
            "matrix has {} entries, expected {n}²",
            d.len()
        )));
    }
    if n > u32::MAX as usize / 2 {
        return Err(Error::InvalidArgument(format!(
            "{n} vertices is too many for GPU FW"
        )));
    }
    Ok(())
}

/// A GPU with the APSP kernels loaded.
pub struct ApspGpu {
    gpu: Gpu,
    f: [CudaFunction; 10],
}

const NAMES: [&str; 10] = [
    "apsp_fw_naive",
    "apsp_fw_phase1",
    "apsp_fw_phase2",
    "apsp_fw_phase3",
    "apsp_peak_exact",
    "apsp_fw_naive_fast",
    "apsp_fw_phase1_fast",
    "apsp_fw_phase2_fast",
    "apsp_fw_phase3_fast",
    "apsp_peak_fast",
];

impl ApspGpu {
    pub fn open(ordinal: usize) -> Result<Self> {
        let ptx = super::ptx::source()?;
        let gpu = Gpu::open(ordinal, &ptx)?;
        let mut f = Vec::with_capacity(NAMES.len());
        for name in NAMES {
            f.push(gpu.function(name)?);
        }
        let f: [CudaFunction; 10] = f
            .try_into()
            .map_err(|_| Error::GpuUnavailable("APSP kernels missing".into()))?;
        Ok(ApspGpu { gpu, f })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    fn launch(&self, fi: usize, cfg: LaunchConfig, a: u32, b: u32, ptr: u64) -> Result<()> {
        let mut l = self.gpu.stream.launch_builder(&self.f[fi]);
        l.arg(&a);
        l.arg(&b);
        l.arg(&ptr);
        // SAFETY: every APSP FW kernel takes (u32, u32, *mut i32); `ptr` is a live
        // device buffer of the size the kernel indexes (n² or np² i32), and the
        // blocked kernels get THREADS threads and SMEM_BYTES of shared memory.
        unsafe { l.launch(cfg) }
            .map(|_| ())
            .map_err(super::cuda::cuda_err(&format!(
                "cuLaunchKernel({})",
                NAMES[fi]
            )))
    }

    /// Runs FW on the row-major `n × n` matrix `d` in place (∞ = `i32::MAX`).
    /// `fast`: `None` = use the fast kernels when [`fast_ok`].
    pub fn fw(
        &self,
        d: &mut [i32],
        n: usize,
        kernel: FwKernel,
        fast: Option<bool>,
    ) -> Result<GpuFwRun> {
        check_len(d, n)?;
        let t0 = std::time::Instant::now();
        let fast = fast.unwrap_or_else(|| fast_ok(d, n));
        if fast && !fast_ok(d, n) {
            return Err(Error::InvalidArgument(
                "the fast kernels need non-negative weights and distances below 2^30".into(),
            ));
        }
        let np = match kernel {
            FwKernel::Naive => n.max(1),
            FwKernel::Blocked => padded(n),
        };
        self.gpu.check_fits(
            &format!("{np} × {np} distance matrix"),
            DevBuf::<i32>::bytes_for(np * np),
        )?;
        let mut host = if np == n {
            d.to_vec()
        } else {
            pad(d, n, np, INF)
        };
        if fast {
            encode_fast(&mut host);
        }
        let buf = self.gpu.upload(&host, "distance matrix")?;
        let off = if fast { 5 } else { 0 };
        let start = self.gpu.record()?;
        let mut launches = 0u64;
        match kernel {
            FwKernel::Naive => {
                let cfg = Gpu::grid_for((np * np) as u64, 256);
                for kk in 0..n as u32 {
                    self.launch(off, cfg, np as u32, kk, buf.ptr)?;
                    launches += 1;
                }
            }
            FwKernel::Blocked => {
                let nt = (np / TILE as usize) as u32;
                let cfg = |blocks: u32| LaunchConfig {
                    grid_dim: (blocks, 1, 1),
                    block_dim: (THREADS, 1, 1),
                    shared_mem_bytes: SMEM_BYTES,
                };
                for kb in 0..nt {
                    self.launch(off + 1, cfg(1), np as u32, kb, buf.ptr)?;
                    self.launch(off + 2, cfg(2 * nt), np as u32, kb, buf.ptr)?;
                    self.launch(off + 3, cfg(nt * nt), np as u32, kb, buf.ptr)?;
                    launches += 3;
                }
            }
        }
        let end = self.gpu.record()?;
        self.gpu.sync("APSP FW kernels")?;
        let kernel_ms = Gpu::elapsed_ms(&start, &end)?;
        self.gpu.download(&buf, &mut host, "distance matrix")?;
        if fast {
            decode_fast(&mut host);
        }
        if np == n {
            d.copy_from_slice(&host);
        } else {
            unpad(&host, d, n, np);
        }
        Ok(GpuFwRun {
            kernel,
            fast,
            n,
            n_device: np,
            kernel_ms,
            total_ms: t0.elapsed().as_secs_f64() * 1e3,
            launches,
        })
    }

    /// The add+min peak: relaxations per second of [`k::peak_add_min`] over a
    /// grid filling the device (`blocks_per_sm` × SMs blocks of 256 threads).
    pub fn peak(&self, fast: bool, iters: u32, blocks_per_sm: u32) -> Result<f64> {
        let cfg = peak_grid(&self.gpu, blocks_per_sm);
        let out = self
            .gpu
            .alloc::<i32>(cfg.grid_dim.0 as usize * 256, "peak output")?;
        let fi = if fast { 9 } else { 4 };
        time_peak(&self.gpu, cfg, iters, |iters| {
            let mut l = self.gpu.stream.launch_builder(&self.f[fi]);
            let (x, y) = (3i32, -1i32);
            l.arg(&iters);
            l.arg(&x);
            l.arg(&y);
            l.arg(&out.ptr);
            // SAFETY: the peak kernels take (u32, i32, i32, *mut i32) and write one
            // i32 per thread; `out` holds one per thread of this grid.
            unsafe { l.launch(cfg) }
                .map(|_| ())
                .map_err(super::cuda::cuda_err(&format!(
                    "cuLaunchKernel({})",
                    NAMES[fi]
                )))
        })
    }
}

/// Opens device `ordinal` and runs FW (fast kernels when exact): the entry
/// point of `runtime::apsp::solve`.
pub fn fw_i32(d: &mut [i32], n: usize, kernel: FwKernel, ordinal: usize) -> Result<GpuFwRun> {
    ApspGpu::open(ordinal)?.fw(d, n, kernel, None)
}

/// FW through the same kernel bodies on the host (CI's check of the GPU code).
/// Same contract as [`ApspGpu::fw`]; returns whether the fast encoding ran.
pub fn emulate_fw(d: &mut [i32], n: usize, kernel: FwKernel, fast: Option<bool>) -> Result<bool> {
    check_len(d, n)?;
    let fast = fast.unwrap_or_else(|| fast_ok(d, n));
    if fast && !fast_ok(d, n) {
        return Err(Error::InvalidArgument(
            "fast kernels not exact for this matrix".into(),
        ));
    }
    if fast {
        emulate_with::<Fast>(d, n, kernel, true);
    } else {
        emulate_with::<Exact>(d, n, kernel, false);
    }
    Ok(fast)
}

fn emulate_with<R: Semiring<T = i32>>(d: &mut [i32], n: usize, kernel: FwKernel, fast: bool) {
    match kernel {
        FwKernel::Naive => {
            if fast {
                encode_fast(d);
            }
            let p = d.as_mut_ptr();
            // Sequential threads: the launch is one legal schedule, and plain
            // (non-atomic) host memory must not be raced.
            let (block, grid) = (64u32, 7u32);
            for kk in 0..n as u32 {
                for b in 0..grid {
                    for t in 0..block {
                        let ctx = ThreadCtx {
                            thread_idx: t,
                            block_idx: b,
                            block_dim: block,
                            grid_dim: grid,
                        };
                        // SAFETY: `p` holds n² values, no other access meanwhile.
                        unsafe { k::naive_cell::<R>(ctx, n as u32, kk, p) };
                    }
                }
            }
            if fast {
                decode_fast(d);
            }
        }
        FwKernel::Blocked => {
            let np = padded(n);
            let mut host = pad(d, n, np, INF);
            if fast {
                encode_fast(&mut host);
            }
            let p = SharedPtr(host.as_mut_ptr());
            emulate_phases::<i32>(np, SMEM_BYTES as usize / 4, |phase, kb, bid, sm| {
                let (b, sm) = (HostBlock { bid }, sm.as_mut_ptr());
                // SAFETY: `p` holds np² values, `sm` is this block's private shared
                // memory; blocks of one launch write disjoint tiles and read only
                // tiles none of them writes.
                unsafe {
                    match phase {
                        0 => k::phase1::<R, _>(&b, np as u32, kb, p.get(), sm),
                        1 => k::phase2::<R, _>(&b, np as u32, kb, p.get(), sm),
                        _ => k::phase3::<R, _>(&b, np as u32, kb, p.get(), sm),
                    }
                }
            });
            if fast {
                decode_fast(&mut host);
            }
            unpad(&host, d, n, np);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::fw_cpu;
    use crate::dense::matrix::DistMatrix;
    use crate::dense::semiring::MinPlus;
    use rand::{Rng, SeedableRng};

    fn random(n: usize, p: f64, neg: bool, seed: u64) -> Vec<i32> {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let h: Vec<i32> = (0..n)
            .map(|_| if neg { rng.gen_range(0..50) } else { 0 })
            .collect();
        let mut d = vec![INF; n * n];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    d[i * n + j] = 0;
                } else if rng.gen_bool(p) {
                    d[i * n + j] = rng.gen_range(0..100) + h[i] - h[j];
                }
            }
        }
        d
    }

    #[test]
    fn emulated_kernels_equal_the_cpu_oracle() {
        for (n, neg) in [
            (1, false),
            (7, true),
            (64, false),
            (100, true),
            (130, false),
            (150, true),
        ] {
            let d0 = random(n, 0.06, neg, n as u64);
            let mut want = DistMatrix::from_vec(n, d0.clone()).unwrap();
            fw_cpu::naive::<MinPlus<i32>>(&mut want, None);
            for kernel in [FwKernel::Naive, FwKernel::Blocked] {
                for fast in [None, Some(false)] {
                    let mut got = d0.clone();
                    let used = emulate_fw(&mut got, n, kernel, fast).unwrap();
                    assert_eq!(used, fast.unwrap_or(!neg || fast_ok(&d0, n)));
                    let bad = (0..n * n).find(|&p| got[p] != want.as_slice()[p]);
                    assert!(bad.is_none(), "{kernel:?} fast {used} n {n}: entry {bad:?}");
                }
            }
        }
    }

    #[test]
    fn negative_cycle_shows_on_the_diagonal() {
        let n = 70;
        let mut d = random(n, 0.05, false, 9);
        d[3 * n + 66] = -50;
        d[66 * n + 3] = -50;
        assert!(!fast_ok(&d, n));
        emulate_fw(&mut d, n, FwKernel::Blocked, None).unwrap();
        assert!(d[3 * n + 3] < 0);
        assert!(emulate_fw(&mut d, n, FwKernel::Blocked, Some(true)).is_err());
    }
}
