//! The thin layer over cudarc: every CUDA call the GPU backend makes goes through
//! here and comes back as a [`crate::Error`], and every device resource is an
//! owning type whose `Drop` frees it (cudarc's `CudaSlice`, `CudaEvent`, module).
//!
//! Layering follows cudarc's own: `driver::result`/`sys` (raw calls) → this module
//! (errors, memory checks, raw-pointer buffers for kernel arguments, timing) → the
//! algorithms ([`super::bfs`](mod@super::bfs)). Nothing above this module names a cudarc error.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr,
    DeviceRepr, LaunchConfig, ValidAsZeroBits,
};

use super::graphs::{GraphStats, Graphs};
use crate::error::{Error, Result};

/// Device memory kept free beyond what a request needs (the driver, the module and
/// the launch machinery need some).
pub const MEMORY_RESERVE: u64 = 64 << 20;

pub use super::cuda_error::{cuda_err, describe};

/// What the host learns about the device once, at open.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub multiprocessors: u32,
    pub total_memory: u64,
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
}

/// Threads a multiprocessor holds at most (sm_70 to sm_90): no kernel's
/// occupancy exceeds it, so grids sized by it bound any resident grid.
pub(crate) const MAX_THREADS_PER_MULTIPROCESSOR: u32 = 2048;

/// One CUDA context on one device, its stream, and the loaded kernel module.
pub struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    pub(crate) info: DeviceInfo,
    /// Blocks of `block` threads a multiprocessor holds at once, by block size
    /// and kernel name ([`Self::blocks_per_multiprocessor`]).
    occupancy:
        std::sync::Mutex<std::collections::HashMap<u32, std::collections::HashMap<String, u32>>>,
    /// Recorded batches and their CUDA graphs ([`super::graphs`]).
    pub(crate) graphs: std::sync::Mutex<Graphs>,
}

/// Whether a CUDA driver library can be loaded at all (no library → no GPU path).
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library; no CUDA call is made.
    unsafe { sys::is_culib_present() }
}

impl Gpu {
    /// Makes this GPU's context current on the calling thread: what a library
    /// that takes "the current device" (NCCL's `ncclCommInitRank`) sees.
    pub fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(cuda_err("cuCtxSetCurrent"))
    }

    /// Opens device `ordinal` and loads `ptx`.
    pub fn open(ordinal: usize, ptx: &str) -> Result<Gpu> {
        if !driver_present() {
            return Err(Error::GpuUnavailable(
                "no CUDA driver: libcuda.so could not be loaded (is an NVIDIA driver installed?)"
                    .into(),
            ));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| match e.0 {
            sys::CUresult::CUDA_ERROR_NO_DEVICE | sys::CUresult::CUDA_ERROR_INVALID_DEVICE => {
                Error::GpuUnavailable(format!("no CUDA device {ordinal}: {}", describe(&e)))
            }
            _ => Error::GpuUnavailable(format!(
                "cannot open CUDA device {ordinal}: {}",
                describe(&e)
            )),
        })?;
        let stream = ctx.default_stream();
        let name = ctx.name().map_err(cuda_err("cuDeviceGetName"))?;
        let compute_capability = ctx
            .compute_capability()
            .map_err(cuda_err("cuDeviceGetAttribute(compute capability)"))?;
        let multiprocessors = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(cuda_err("cuDeviceGetAttribute(multiprocessor count)"))?
            as u32;
        let total_memory = ctx.total_mem().map_err(cuda_err("cuDeviceTotalMem"))? as u64;
        let mut driver_version = 0i32;
        // SAFETY: writes one int through a valid pointer.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(cuda_err("cuDriverGetVersion"))?;
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(cuda_err("cuModuleLoadData (JIT of the embedded PTX)"))?;
        Ok(Gpu {
            graphs: std::sync::Mutex::new(Graphs::new(ctx.clone())),
            ctx,
            stream,
            module,
            occupancy: Default::default(),
            info: DeviceInfo {
                ordinal,
                name,
                compute_capability,
                multiprocessors,
                total_memory,
                driver_version,
            },
        })
    }

    /// Loads another PTX module into this context (a program crate's kernels).
    pub fn load_module(&self, ptx: &str, what: &str) -> Result<Arc<CudaModule>> {
        let ptx = super::ptx::adjust_resident_entries(ptx);
        self.ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx.into_owned()))
            .map_err(cuda_err(&format!("cuModuleLoadData (JIT of `{what}` PTX)")))
    }

    /// A kernel of the loaded module.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        self.module
            .load_function(name)
            .map_err(cuda_err(&format!("cuModuleGetFunction({name})")))
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        let (free, _total) = self.ctx.mem_get_info().map_err(cuda_err("cuMemGetInfo"))?;
        Ok(free as u64)
    }

    /// Fails with [`Error::GpuOutOfMemory`] unless `bytes` (plus a reserve) fit in
    /// free device memory. Called before allocating anything for `what`.
    pub fn check_fits(&self, what: &str, bytes: u64) -> Result<()> {
        let free = self.free_memory()?;
        if bytes.saturating_add(MEMORY_RESERVE) > free {
            return Err(Error::GpuOutOfMemory {
                what: what.to_string(),
                needed: bytes,
                free,
            });
        }
        Ok(())
    }

    /// A zeroed device buffer of `len` elements (at least one, so that even empty
    /// arrays have a valid pointer).
    pub fn alloc<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
        what: &str,
    ) -> Result<DevBuf<T>> {
        let slice = self
            .stream
            .alloc_zeros::<T>(len.max(1))
            .map_err(cuda_err(&format!("cuMemAlloc({what}, {len} elements)")))?;
        Ok(DevBuf::new(slice, len, &self.stream))
    }

    /// A device copy of `data`.
    pub fn upload<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        data: &[T],
        what: &str,
    ) -> Result<DevBuf<T>> {
        let mut buf = self.alloc::<T>(data.len(), what)?;
        if !data.is_empty() {
            self.stream
                .memcpy_htod(data, &mut buf.slice)
                .map_err(cuda_err(&format!("cuMemcpyHtoD({what})")))?;
        }
        Ok(buf)
    }

    /// Copies `buf` back into `out` (which must have `buf.len()` elements) and waits.
    pub fn download<T: DeviceRepr>(
        &self,
        buf: &DevBuf<T>,
        out: &mut [T],
        what: &str,
    ) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let view = buf.slice.slice(0..out.len());
        self.stream
            .memcpy_dtoh(&view, out)
            .map_err(cuda_err(&format!("cuMemcpyDtoH({what})")))?;
        self.sync(what)
    }

    /// Copies elements `at..at + out.len()` of `buf` into `out` (a part's own
    /// slice of a replicated array, without the rest).
    pub fn download_at<T: DeviceRepr>(
        &self,
        buf: &DevBuf<T>,
        at: usize,
        out: &mut [T],
        what: &str,
    ) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let end = at
            .checked_add(out.len())
            .filter(|&e| e <= buf.len)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "reading {what} {at}..{} of a buffer of {}",
                    at + out.len(),
                    buf.len
                ))
            })?;
        let view = buf.slice.slice(at..end);
        self.stream
            .memcpy_dtoh(&view, out)
            .map_err(cuda_err(&format!("cuMemcpyDtoH({what})")))?;
        self.sync(what)
    }

    /// Copies `data` into the start of `buf` (stream-ordered).
    pub fn write<T: DeviceRepr>(&self, buf: &mut DevBuf<T>, data: &[T], what: &str) -> Result<()> {
        self.write_at(buf, 0, data, what)
    }

    /// Copies `data` into `buf` from element `at` on (stream-ordered).
    pub fn write_at<T: DeviceRepr>(
        &self,
        buf: &mut DevBuf<T>,
        at: usize,
        data: &[T],
        what: &str,
    ) -> Result<()> {
        if at + data.len() > buf.len {
            return Err(Error::InvalidArgument(format!(
                "{what}: writing {} elements at {at} into a buffer of {}",
                data.len(),
                buf.len
            )));
        }
        let mut view = buf.slice.slice_mut(at..at + data.len());
        self.stream
            .memcpy_htod(data, &mut view)
            .map_err(cuda_err(&format!("cuMemcpyHtoD({what})")))
    }

    /// Waits for all work on the stream; a kernel fault shows up here.
    pub fn sync(&self, after: &str) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(cuda_err(&format!("cuStreamSynchronize (after {after})")))
    }

    /// The GPU's recorder and graph cache.
    pub(crate) fn graphs(&self) -> Result<std::sync::MutexGuard<'_, Graphs>> {
        self.graphs
            .lock()
            .map_err(|_| Error::GpuUnavailable("CUDA graph cache poisoned".into()))
    }

    /// How this GPU's recorded batches ran (CUDA graphs replayed, captured, or
    /// issued call by call), and why call by call if they were.
    pub fn graph_stats(&self) -> Result<(GraphStats, Option<String>)> {
        let g = self.graphs()?;
        Ok((g.stats, g.off_reason().map(str::to_string)))
    }

    /// A timing event recorded now on the stream.
    pub fn record(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(cuda_err("cuEventRecord"))
    }

    /// Milliseconds between two recorded events (waits for both).
    pub fn elapsed_ms(start: &CudaEvent, end: &CudaEvent) -> Result<f64> {
        start
            .elapsed_ms(end)
            .map(f64::from)
            .map_err(cuda_err("cuEventElapsedTime"))
    }

    /// Device-to-device copy bandwidth in GB/s (bytes read + written), the best of
    /// a few 1 GiB copies timed with events (less if memory is short): the yardstick
    /// of the kernels' memory-bandwidth efficiency.
    pub fn copy_bandwidth_gbs(&self) -> Result<f64> {
        let bytes = (1usize << 30)
            .min((self.free_memory()? / 4) as usize)
            .max(1 << 20);
        let src = self.alloc::<u8>(bytes, "bandwidth test")?;
        let mut dst = self.alloc::<u8>(bytes, "bandwidth test")?;
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let a = self.record()?;
            self.stream
                .memcpy_dtod(&src.slice, &mut dst.slice)
                .map_err(cuda_err("cuMemcpyDtoD(bandwidth test)"))?;
            let b = self.record()?;
            best = best.min(Self::elapsed_ms(&a, &b)?);
        }
        Ok(2.0 * bytes as f64 / (best * 1e-3) / 1e9)
    }

    /// A 1-D launch configuration covering `work` items with `block` threads each
    /// (at least one block).
    pub fn grid_for(work: u64, block: u32) -> LaunchConfig {
        let blocks = work.div_ceil(block as u64).clamp(1, i32::MAX as u64) as u32;
        LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// [`Self::grid_for`], but no more blocks than the GPU holds at once
    /// (`blocks_per_multiprocessor` on each), for grid-stride kernels whose
    /// threads flush per-thread tallies at the end: fewer threads, fewer
    /// atomics, same parallelism.
    pub fn resident_grid(
        &self,
        work: u64,
        block: u32,
        blocks_per_multiprocessor: u32,
    ) -> LaunchConfig {
        let mut cfg = Self::grid_for(work, block);
        let resident = self.info.multiprocessors.max(1) * blocks_per_multiprocessor.max(1);
        cfg.grid_dim.0 = cfg.grid_dim.0.min(resident);
        cfg
    }

    /// Blocks of `block` threads of `f` (named `name`) that one multiprocessor
    /// holds at once, from the driver's occupancy calculator (its registers
    /// decide), asked once per kernel and block size. A resident grid sized by
    /// 2048 threads a multiprocessor instead gave a kernel of 40 registers (six
    /// blocks of 256 fit, not eight; `td_scan`, ncu) a second wave a third
    /// full, in which each block walked its whole grid-stride share again.
    /// H200, one call each way (`80310d0`): Graph500 BFS at scale 24 181 GTEPS
    /// against 159–161 before, label-propagation CC on Kronecker 24 12.5 ms
    /// against 14.6; SSSP's scan levels did not change (47.5 ms against 45.6).
    pub(crate) fn blocks_per_multiprocessor(
        &self,
        f: &cudarc::driver::CudaFunction,
        name: &str,
        block: u32,
    ) -> Result<u32> {
        let mut cache = self
            .occupancy
            .lock()
            .map_err(|_| Error::GpuUnavailable("occupancy cache poisoned".into()))?;
        let by_name = cache.entry(block).or_default();
        if let Some(&b) = by_name.get(name) {
            return Ok(b);
        }
        let b = f
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .map_err(cuda_err(&format!(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor({name})"
            )))?
            .max(1);
        by_name.insert(name.to_string(), b);
        Ok(b)
    }
}

/// A device buffer plus its raw address, which is what the kernels take (all
/// kernel pointer parameters are passed as `u64`). Freed on drop by cudarc.
pub struct DevBuf<T> {
    pub(crate) slice: CudaSlice<T>,
    /// Device address of element 0.
    pub ptr: u64,
    /// Logical length (the allocation has at least one element).
    pub len: usize,
}

impl<T> DevBuf<T> {
    fn new(slice: CudaSlice<T>, len: usize, stream: &CudaStream) -> Self {
        let ptr = {
            let (ptr, _guard) = slice.device_ptr(stream);
            ptr
        };
        DevBuf { slice, ptr, len }
    }

    /// Bytes a buffer of `len` `T`s takes.
    pub fn bytes_for(len: usize) -> u64 {
        (len.max(1) * std::mem::size_of::<T>()) as u64
    }
}
