//! [`Launcher`] on a GPU: buffers are [`DevBuf`]s, launches go on the
//! context's stream through cudarc, marks are CUDA events.

use cudarc::driver::{CudaEvent, LaunchArgs, LaunchConfig, PushKernelArg};

use super::{Arg, Elem, Grid, Kernel, Launcher, TeamKernel, TeamShape};
use crate::error::{Error, Result};
use crate::gpu::cuda::{cuda_err, DevBuf, Gpu};
use crate::gpu::graphs::Op;

/// A device's stream as a [`Launcher`].
pub(crate) struct DeviceLauncher<'g> {
    pub(crate) gpu: &'g Gpu,
}

/// Pushes `args` in order, each in its own type.
fn push_args<'a>(b: &mut LaunchArgs<'a>, args: &'a [Arg]) {
    for a in args {
        match a {
            Arg::U32(x) => b.arg(x),
            Arg::U64(x) => b.arg(x),
            Arg::F64(x) => b.arg(x),
        };
    }
}

impl DeviceLauncher<'_> {
    /// Refuses an operation that cannot be recorded while a batch has
    /// recorded ones (it would run before them).
    fn not_recording(&self, what: &str) -> Result<()> {
        if self.gpu.graphs()?.pending() {
            return Err(Error::Cuda {
                call: "CUDA graph recording".into(),
                msg: format!("{what} inside a recorded batch"),
            });
        }
        Ok(())
    }

    fn config(
        &self,
        f: &cudarc::driver::CudaFunction,
        name: &str,
        grid: Grid,
        block: u32,
    ) -> Result<LaunchConfig> {
        Ok(match grid {
            Grid::Cover(work) => Gpu::grid_for(work, block),
            Grid::Resident(work) => {
                let per_sm = self.gpu.blocks_per_multiprocessor(f, name, block)?;
                self.gpu.resident_grid(work, block, per_sm)
            }
        })
    }
}

impl Launcher for DeviceLauncher<'_> {
    type Buf<T: Elem> = DevBuf<T>;
    type Mark = CudaEvent;

    fn zeros<T: Elem>(&self, len: usize, what: &str) -> Result<DevBuf<T>> {
        self.gpu.alloc(len, what)
    }

    fn upload<T: Elem>(&self, data: &[T], what: &str) -> Result<DevBuf<T>> {
        self.gpu.upload(data, what)
    }

    fn write_at<T: Elem>(
        &self,
        buf: &mut DevBuf<T>,
        at: usize,
        data: &[T],
        what: &str,
    ) -> Result<()> {
        self.not_recording(what)?;
        self.gpu.write_at(buf, at, data, what)
    }

    fn clear<T: Elem>(&self, buf: &mut DevBuf<T>, what: &str) -> Result<()> {
        if let Some(ops) = self.gpu.graphs()?.recording() {
            ops.push(Op::Memset {
                ptr: buf.ptr,
                bytes: buf.slice.num_bytes(),
            });
            return Ok(());
        }
        self.gpu
            .stream
            .memset_zeros(&mut buf.slice)
            .map_err(cuda_err(&format!("cuMemsetD8({what})")))
    }

    fn read_prefix<T: Elem>(&self, buf: &DevBuf<T>, len: usize, what: &str) -> Result<Vec<T>> {
        self.not_recording(what)?;
        let mut out = vec![T::zeroed(); len.min(buf.len)];
        self.gpu.download(buf, &mut out, what)?;
        Ok(out)
    }

    fn read_marked<T: Elem>(&self, buf: &DevBuf<T>, what: &str) -> Result<(Vec<T>, CudaEvent)> {
        self.not_recording(what)?;
        let mut out = vec![T::zeroed(); buf.len];
        if !out.is_empty() {
            self.gpu
                .stream
                .memcpy_dtoh(&buf.slice.slice(0..buf.len), &mut out[..])
                .map_err(cuda_err(&format!("cuMemcpyDtoH({what})")))?;
        }
        let e = self.gpu.record()?;
        self.gpu.sync(what)?;
        Ok((out, e))
    }

    fn addr<T: Elem>(buf: &DevBuf<T>) -> u64 {
        buf.ptr
    }

    fn len<T: Elem>(buf: &DevBuf<T>) -> usize {
        buf.len
    }

    unsafe fn launch(&self, k: &Kernel<'_>, grid: Grid, block: u32, args: &[Arg]) -> Result<()> {
        let Some(f) = k.device else {
            return Err(Error::Cuda {
                call: format!("cuLaunchKernel({})", k.name),
                msg: "the kernel was not loaded on the device".into(),
            });
        };
        let cfg = self.config(f, k.name, grid, block)?;
        if let Some(ops) = self.gpu.graphs()?.recording() {
            ops.push(Op::Launch {
                f: f.clone(),
                grid: cfg.grid_dim.0,
                block: cfg.block_dim.0,
                smem: cfg.shared_mem_bytes,
                params: args
                    .iter()
                    .map(|a| match *a {
                        Arg::U32(x) => u64::from(x),
                        Arg::U64(x) => x,
                        Arg::F64(x) => x.to_bits(),
                    })
                    .collect(),
            });
            return Ok(());
        }
        let mut b = self.gpu.stream.launch_builder(f);
        push_args(&mut b, args);
        // SAFETY: the caller's contract: `args` is `k`'s parameter list, in its
        // types (u32 or u64 words), addresses of live device buffers.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(cuda_err(&format!("cuLaunchKernel({})", k.name)))
    }

    fn sync(&self, after: &str) -> Result<()> {
        self.not_recording(after)?;
        self.gpu.sync(after)
    }

    unsafe fn launch_team(&self, k: &TeamKernel<'_>, shape: TeamShape, args: &[Arg]) -> Result<()> {
        self.not_recording(k.name)?;
        let call = if shape.cooperative {
            "cuLaunchCooperativeKernel"
        } else {
            "cuLaunchKernel"
        };
        let Some(f) = k.device else {
            return Err(Error::Cuda {
                call: format!("{call}({})", k.name),
                msg: "the kernel was not loaded on the device".into(),
            });
        };
        let mut b = self.gpu.stream.launch_builder(f);
        push_args(&mut b, args);
        let cfg = LaunchConfig {
            grid_dim: (shape.blocks, 1, 1),
            block_dim: (shape.threads, 1, 1),
            shared_mem_bytes: shape.smem_words * 4,
        };
        // SAFETY: the caller's contract, as for `launch`; a cooperative launch
        // is refused by the driver when the grid is not co-resident.
        let r = unsafe {
            if shape.cooperative {
                b.launch_cooperative(cfg)
            } else {
                b.launch(cfg)
            }
        };
        r.map(|_| ())
            .map_err(cuda_err(&format!("{call}({})", k.name)))
    }

    fn warps(&self, grid: Grid, block: u32) -> u64 {
        // An upper bound for resident grids: callers size per-warp buffers by
        // it, and the kernels' own occupancy may launch fewer.
        let cfg = match grid {
            Grid::Cover(work) => Gpu::grid_for(work, block),
            Grid::Resident(work) => self.gpu.resident_grid(
                work,
                block,
                (crate::gpu::cuda::MAX_THREADS_PER_MULTIPROCESSOR / block.max(1)).max(1),
            ),
        };
        u64::from(cfg.grid_dim.0) * u64::from(block.div_ceil(32))
    }

    fn mark(&self) -> Result<CudaEvent> {
        let mut graphs = self.gpu.graphs()?;
        if let Some(ops) = graphs.recording() {
            // Recorded where the batch runs (see `gpu::graphs`).
            let e = self
                .gpu
                .ctx
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(cuda_err("cuEventCreate"))?;
            ops.push(Op::Mark(e.cu_event()));
            return Ok(e);
        }
        drop(graphs);
        self.gpu.record()
    }

    fn elapsed_ms(&self, a: &CudaEvent, b: &CudaEvent) -> Result<f64> {
        Gpu::elapsed_ms(a, b)
    }

    fn begin_batch(&self) -> Result<()> {
        self.gpu.graphs()?.begin()
    }

    fn replay(&self) -> Result<()> {
        self.gpu.graphs()?.replay(self.gpu.stream.cu_stream())
    }

    fn abandon_batch(&self) {
        if let Ok(mut g) = self.gpu.graphs() {
            g.abandon();
        }
    }
}
