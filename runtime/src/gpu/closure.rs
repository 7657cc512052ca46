//! The dense closure of any semiring on the GPU: blocked Floyd–Warshall from
//! `kernels_rs::closure`, with or without next hops, on the device through
//! cudarc and on the host through the same kernel bodies (CI's check).
//!
//! A semiring reaches the GPU through [`GpuSemiring`]: its device twin (the same
//! ⊕ and ⊗ as a `kernels_rs::closure::Semiring`) and where its kernels are —
//! `minplus_<type>_*` in the runtime's own PTX for the built-in min-plus
//! instances `vertex apsp` uses, `vx_<program>_fw_*` in a program crate's PTX for
//! every `#[vertex_program(semiring)]` (the macro declares them). Min-plus over
//! i32 without next hops keeps its own kernels ([`super::apsp`]: the threshold
//! encoding with a plain add+min, Hopper's fused `VIADDMNMX`) whenever that
//! encoding is exact.
//!
//! The matrix goes to the device padded to a multiple of [`TILE`] (padding
//! vertices are isolated: 0̄ everywhere). With next hops the device also holds
//! each cell's first hop and edge count (`np² · (size + 8)` bytes); the memory is
//! checked before anything is allocated and a matrix that does not fit is an
//! [`Error::GpuOutOfMemory`] naming the bytes needed and free — this module does
//! not stream tiles from the host.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::time::Instant;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};
use kernels_rs::closure::{
    self as k, Cells, PathMatrix, KERNEL_SUFFIXES, NO_HOP, NO_HOPS, THREADS, TILE,
};
use rayon::prelude::*;

use super::blocked::{emulate_phases, peak_grid, time_peak, HostBlock};
use super::cuda::{cuda_err, DeviceInfo, Gpu};
use super::launch::SharedPtr;
use crate::dense::matrix::DistMatrix;
use crate::dense::semiring::{Elem, MinPlus, ProgramSemiring, Semiring};
use crate::error::{Error, Result};
use crate::graph::WeightKind;
use crate::program::{AtomicState, VertexProgram};

/// A semiring whose closure can run on the GPU.
pub trait GpuSemiring: Semiring<T: DeviceRepr + ValidAsZeroBits> {
    /// The device-side twin: the same ⊕ and ⊗ (the emulator runs it on the host).
    type Kernel: k::Semiring<T = Self::T>;
    /// Prefix of its kernels' names (`<prefix>_phase1`, …, see
    /// [`KERNEL_SUFFIXES`]).
    fn kernel_prefix() -> String;
    /// The PTX module holding them, or why there is none.
    fn ptx() -> Result<Cow<'static, str>>;
}

macro_rules! builtin_min_plus {
    ($($t:ty => $kernel:ty, $prefix:literal);*) => {$(
        impl GpuSemiring for MinPlus<$t> {
            type Kernel = $kernel;
            fn kernel_prefix() -> String {
                $prefix.into()
            }
            fn ptx() -> Result<Cow<'static, str>> {
                super::ptx::source()
            }
        }
    )*};
}
builtin_min_plus!(
    i32 => kernels_rs::apsp::Exact, "minplus_i32";
    i64 => kernels_rs::apsp::MinPlus<i64>, "minplus_i64";
    f32 => kernels_rs::apsp::MinPlus<f32>, "minplus_f32";
    f64 => kernels_rs::apsp::MinPlus<f64>, "minplus_f64"
);

impl<P, S> GpuSemiring for ProgramSemiring<P>
where
    P: VertexProgram<State = S, Weight = S> + k::Semiring<T = S>,
    S: Elem + AtomicState + DeviceRepr + ValidAsZeroBits,
{
    type Kernel = P;
    fn kernel_prefix() -> String {
        format!("vx_{}_fw", P::NAME)
    }
    fn ptx() -> Result<Cow<'static, str>> {
        crate::gpu::ptx::program_source(P::NAME, P::gpu_ptx(), P::gpu_ptx_status())
    }
}

pub use super::blocked::padded;

/// Device bytes of a closure over `n` vertices with `elem`-byte values.
pub fn device_bytes(n: usize, elem: usize, next_hops: bool) -> u64 {
    let np = padded(n) as u64;
    np * np * (elem as u64 + if next_hops { 8 } else { 0 })
}

/// Timings of one GPU closure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClosureRun {
    /// The semiring's name.
    pub semiring: String,
    pub element: String,
    pub n: usize,
    /// Padded side on the device.
    pub n_device: usize,
    pub next_hops: bool,
    /// Whether the threshold-encoded i32 min-plus kernels ran.
    pub fast: bool,
    /// Kernel time, CUDA events around all launches.
    pub kernel_ms: f64,
    /// Host wall time including allocation, upload and download.
    pub total_ms: f64,
    pub launches: u64,
}

impl ClosureRun {
    /// Relaxations per second over the unpadded `n³`.
    pub fn relaxations_per_s(&self) -> f64 {
        (self.n as f64).powi(3) / (self.kernel_ms * 1e-3).max(1e-12)
    }
}

/// Host copies of the device matrices: values padded with 0̄, and for next hops
/// the edge counts and first hops of the initial matrix.
struct Padded<T> {
    np: usize,
    val: Vec<T>,
    path: Option<(Vec<u32>, Vec<u32>)>,
}

impl<T: Copy + Send + Sync> Padded<T> {
    fn new(d: &[T], n: usize, zero: T, next: Option<&[u32]>) -> Self {
        let np = padded(n);
        let val = pad(d, n, np, zero);
        let path = next.map(|nx| {
            let hops: Vec<u32> = (0..n * n)
                .map(|p| match (p / n == p % n, nx[p]) {
                    (true, _) => 0,
                    (false, NO_HOP) => NO_HOPS,
                    _ => 1,
                })
                .collect();
            (pad(&hops, n, np, NO_HOPS), pad(nx, n, np, NO_HOP))
        });
        Padded { np, val, path }
    }

    fn unpad_into(&self, d: &mut [T], next: Option<&mut [u32]>, n: usize) {
        unpad(&self.val, d, n, self.np);
        if let (Some(nx), Some((_, pn))) = (next, &self.path) {
            unpad(pn, nx, n, self.np);
        }
    }
}

fn pad<T: Copy + Send + Sync>(d: &[T], n: usize, np: usize, fill: T) -> Vec<T> {
    let mut out = vec![fill; np * np];
    out.par_chunks_mut(np)
        .enumerate()
        .take(n)
        .for_each(|(i, row)| row[..n].copy_from_slice(&d[i * n..(i + 1) * n]));
    out
}

fn unpad<T: Copy + Send + Sync>(src: &[T], d: &mut [T], n: usize, np: usize) {
    d.par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, row)| row.copy_from_slice(&src[i * np..i * np + n]));
}

fn check_next(n: usize, next: Option<&[u32]>) -> Result<()> {
    if n > u32::MAX as usize / 2 {
        return Err(Error::InvalidArgument(format!(
            "{n} vertices is too many for the GPU closure"
        )));
    }
    match next {
        Some(nx) if nx.len() != n * n => Err(Error::InvalidArgument(format!(
            "next-hop matrix has {} entries, expected {n}²",
            nx.len()
        ))),
        _ => Ok(()),
    }
}

/// Launch-sized shared memory of one launch.
fn smem<S: GpuSemiring>(path: bool) -> u32 {
    let elem = std::mem::size_of::<S::T>() as u32;
    if path {
        k::smem_bytes_path(elem)
    } else {
        k::smem_bytes(elem)
    }
}

/// A GPU with one semiring's closure kernels loaded.
pub struct ClosureGpu<S> {
    gpu: Gpu,
    f: Vec<CudaFunction>,
    names: Vec<String>,
    _s: PhantomData<S>,
}

impl<S: GpuSemiring> ClosureGpu<S> {
    /// Opens device `ordinal` and loads `S`'s kernels; phases that need more than
    /// the default 48 KiB of shared memory are allowed it.
    pub fn open(ordinal: usize) -> Result<Self> {
        let ptx = S::ptx()?;
        let gpu = Gpu::open(ordinal, &ptx)?;
        let prefix = S::kernel_prefix();
        let names: Vec<String> = KERNEL_SUFFIXES
            .iter()
            .map(|s| format!("{prefix}_{s}"))
            .collect();
        let f = names
            .iter()
            .map(|n| gpu.function(n))
            .collect::<Result<Vec<_>>>()?;
        for (i, func) in f.iter().enumerate().take(6) {
            let bytes = smem::<S>(i >= 3) as i32;
            func.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes,
            )
            .map_err(cuda_err(&format!(
                "cuFuncSetAttribute({}, {bytes} bytes of shared memory)",
                names[i]
            )))?;
        }
        Ok(ClosureGpu {
            gpu,
            f,
            names,
            _s: PhantomData,
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    /// Runs the closure of the row-major `n × n` matrix `d` in place (0̄ = no
    /// path), updating the next-hop matrix `next` (see
    /// `runtime::apsp::matrix::initial_next`) when given.
    pub fn run(&self, d: &mut [S::T], n: usize, next: Option<&mut [u32]>) -> Result<ClosureRun> {
        check_next(n, next.as_deref())?;
        let t0 = Instant::now();
        let path = next.is_some();
        let np = padded(n);
        let what = if path {
            format!("{np} × {np} closure matrix with next hops and edge counts")
        } else {
            format!("{np} × {np} closure matrix")
        };
        self.gpu
            .check_fits(&what, device_bytes(n, std::mem::size_of::<S::T>(), path))?;
        let mut host = Padded::new(d, n, S::zero(), next.as_deref());
        let val = self.gpu.upload(&host.val, "closure matrix")?;
        let extra = match &host.path {
            Some((h, nx)) => Some((
                self.gpu.upload(h, "edge counts")?,
                self.gpu.upload(nx, "next hops")?,
            )),
            None => None,
        };
        let nt = (np / TILE as usize) as u32;
        let cfg = |blocks: u32| LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: smem::<S>(path),
        };
        let off = if path { 3 } else { 0 };
        let start = self.gpu.record()?;
        for kb in 0..nt {
            for (phase, blocks) in [(0, 1), (1, 2 * nt), (2, nt * nt)] {
                let fi = off + phase;
                let mut l = self.gpu.stream.launch_builder(&self.f[fi]);
                let np32 = np as u32;
                l.arg(&np32);
                l.arg(&kb);
                l.arg(&val.ptr);
                if let Some((h, nx)) = &extra {
                    l.arg(&h.ptr);
                    l.arg(&nx.ptr);
                }
                // SAFETY: the closure kernels take (u32 np, u32 kb, *mut T) and the
                // path ones also (*mut u32 hops, *mut u32 next); every pointer is a
                // live device buffer of np² elements, and the launch has THREADS
                // threads and the shared memory the kernel indexes.
                unsafe { l.launch(cfg(blocks)) }
                    .map_err(cuda_err(&format!("cuLaunchKernel({})", self.names[fi])))?;
            }
        }
        let end = self.gpu.record()?;
        self.gpu.sync("closure kernels")?;
        let kernel_ms = Gpu::elapsed_ms(&start, &end)?;
        self.gpu.download(&val, &mut host.val, "closure matrix")?;
        if let (Some((h, nx)), Some((hh, hn))) = (&extra, host.path.as_mut()) {
            self.gpu.download(h, hh, "edge counts")?;
            self.gpu.download(nx, hn, "next hops")?;
        }
        host.unpad_into(d, next, n);
        Ok(ClosureRun {
            semiring: S::name().to_string(),
            element: <S::T as crate::graph::Weight>::KIND.to_string(),
            n,
            n_device: np,
            next_hops: path,
            fast: false,
            kernel_ms,
            total_ms: t0.elapsed().as_secs_f64() * 1e3,
            launches: 3 * nt as u64,
        })
    }

    /// Relaxations per second of the semiring's peak kernel
    /// ([`kernels_rs::closure::peak`]) over a grid filling the device
    /// (`blocks_per_sm` × SMs blocks of 256 threads); `x`, `y` and `seed` feed the
    /// chains (pick values that keep them changing).
    pub fn peak(
        &self,
        iters: u32,
        blocks_per_sm: u32,
        x: S::T,
        y: S::T,
        seed: [S::T; 16],
    ) -> Result<f64> {
        let cfg = peak_grid(&self.gpu, blocks_per_sm);
        let out = self
            .gpu
            .alloc::<S::T>(cfg.grid_dim.0 as usize * 256, "peak output")?;
        let seed = self.gpu.upload(&seed, "peak seeds")?;
        time_peak(&self.gpu, cfg, iters, |iters| {
            let mut l = self.gpu.stream.launch_builder(&self.f[6]);
            l.arg(&iters);
            l.arg(&x);
            l.arg(&y);
            l.arg(&seed.ptr);
            l.arg(&out.ptr);
            // SAFETY: the peak kernels take (u32, T, T, *const T, *mut T), read 16
            // seeds and write one T per thread; both buffers are that large.
            unsafe { l.launch(cfg) }
                .map(|_| ())
                .map_err(cuda_err(&format!("cuLaunchKernel({})", self.names[6])))
        })
    }
}

/// Whether a closure over `S` without next hops may take the fast i32 kernels:
/// min-plus over i32 with ∞ = `i32::MAX`, and the threshold encoding exact for `d`.
fn fast_i32<S: Semiring>(d: &[S::T], n: usize, next: bool) -> Option<&[i32]> {
    if next || !S::is_min_plus() || <S::T as crate::graph::Weight>::KIND != WeightKind::I32 {
        return None;
    }
    let d: &[i32] = bytemuck::try_cast_slice(d).ok()?;
    let zero = S::zero().to_i128();
    (zero == Some(kernels_rs::apsp::INF as i128) && super::apsp::fast_ok(d, n)).then_some(d)
}

/// Whether [`closure_on_gpu`] would take the fast i32 kernels for `m`.
pub fn takes_fast_kernels<S: Semiring>(m: &DistMatrix<S::T>, next_hops: bool) -> bool {
    fast_i32::<S>(m.as_slice(), m.n(), next_hops).is_some()
}

/// The closure of `m` (distances only) by the fast i32 kernels on `dev`; `m` must
/// pass [`takes_fast_kernels`].
pub fn fast_closure<S: Semiring>(
    dev: &super::apsp::ApspGpu,
    m: &mut DistMatrix<S::T>,
) -> Result<ClosureRun> {
    let n = m.n();
    let d: &mut [i32] = bytemuck::try_cast_slice_mut(m.as_mut_slice())
        .map_err(|e| Error::InvalidArgument(format!("fast kernels need i32: {e}")))?;
    let r = dev.fw(d, n, super::apsp::FwKernel::Blocked, Some(true))?;
    Ok(ClosureRun {
        semiring: S::name().to_string(),
        element: "i32".into(),
        n,
        n_device: r.n_device,
        next_hops: false,
        fast: true,
        kernel_ms: r.kernel_ms,
        total_ms: r.total_ms,
        launches: r.launches,
    })
}

/// The closure of `m` over `S` on device `ordinal`, next hops included when
/// given: the entry point of `runtime::apsp`. Min-plus over i32 without next hops
/// takes the fast kernels when their encoding is exact.
pub fn closure_on_gpu<S: GpuSemiring>(
    m: &mut DistMatrix<S::T>,
    next: Option<&mut [u32]>,
    ordinal: usize,
) -> Result<ClosureRun> {
    if takes_fast_kernels::<S>(m, next.is_some()) {
        return fast_closure::<S>(&super::apsp::ApspGpu::open(ordinal)?, m);
    }
    let n = m.n();
    ClosureGpu::<S>::open(ordinal)?.run(m.as_mut_slice(), n, next)
}

/// The closure through the same kernel bodies on the host (CI's check of the GPU
/// code): same contract as [`ClosureGpu::run`].
pub fn emulate<S: GpuSemiring>(m: &mut DistMatrix<S::T>, next: Option<&mut [u32]>) -> Result<()> {
    let n = m.n();
    check_next(n, next.as_deref())?;
    let mut host = Padded::new(m.as_slice(), n, S::zero(), next.as_deref());
    let np = host.np;
    let val = SharedPtr(host.val.as_mut_ptr());
    match host.path.as_mut() {
        None => {
            let words = smem::<S>(false) as usize / 8;
            emulate_phases::<u64>(np, words, |phase, kb, bid, sm| {
                let (b, sm) = (HostBlock { bid }, sm.as_mut_ptr() as *mut S::T);
                // SAFETY: `val` holds np² values; `sm` is this block's private
                // shared memory (8-byte aligned, smem_bytes long); blocks of one
                // launch touch disjoint tiles (see `emulate_phases`).
                unsafe {
                    match phase {
                        0 => k::phase1::<S::Kernel, _>(&b, np as u32, kb, val.get(), sm),
                        1 => k::phase2::<S::Kernel, _>(&b, np as u32, kb, val.get(), sm),
                        _ => k::phase3::<S::Kernel, _>(&b, np as u32, kb, val.get(), sm),
                    }
                }
            });
        }
        Some((hops, nx)) => {
            let (hops, nx) = (SharedPtr(hops.as_mut_ptr()), SharedPtr(nx.as_mut_ptr()));
            let words = smem::<S>(true) as usize / 8;
            emulate_phases::<u64>(np, words, |phase, kb, bid, sm| {
                let b = HostBlock { bid };
                let pm = PathMatrix {
                    np: np as u32,
                    cells: Cells {
                        val: val.get(),
                        hops: hops.get(),
                        next: nx.get(),
                    },
                };
                let sm = sm.as_mut_ptr() as *mut u8;
                // SAFETY: as above, for the three np² arrays and smem_bytes_path
                // bytes of shared memory.
                unsafe {
                    match phase {
                        0 => k::path1::<S::Kernel, _>(&b, pm, kb, sm),
                        1 => k::path2::<S::Kernel, _>(&b, pm, kb, sm),
                        _ => k::path3::<S::Kernel, _>(&b, pm, kb, sm),
                    }
                }
            });
        }
    }
    host.unpad_into(m.as_mut_slice(), next, n);
    Ok(())
}

pub mod verify;

#[cfg(test)]
mod tests;
