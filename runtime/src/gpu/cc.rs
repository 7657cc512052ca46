//! Connected components by Afforest on the GPU (`kernels_rs::cc`), and the same
//! kernel bodies under the host emulator ([`emulate`]) for CI without a GPU.
//!
//! The phases are those of the CPU version ([`crate::cc`]): `neighbor_rounds`
//! launches of `cc_link_round` each followed by `cc_compress`, then `cc_sample`
//! (1024 labels come back to the host, which picks the most frequent with
//! [`crate::cc::most_frequent`], the same choice as the CPU), then `cc_link_rest`
//! skipping that component and a last `cc_compress`. [`CcExec`] is the launcher
//! both the device and the emulator implement; [`drive`] is the phase sequence
//! over it, so the two cannot drift apart.
//!
//! Directed graphs: uploaded with their transpose ([`Device::upload_traversal`]),
//! whose rows `cc_link_rest` walks too, giving weakly connected components.

use std::time::Instant;

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::cuda::{cuda_err, DevBuf, Gpu};
use super::device::{Device, DeviceGraph, Incoming};
use super::launch::{emulated_grid, launch, SharedPtr};
use crate::cc::{most_frequent, AfforestOptions};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};

/// Threads per block of every cc kernel.
const BLOCK: u32 = 256;

/// Labels and timing of a GPU (or emulated) Afforest run.
#[derive(Clone, Debug)]
pub struct GpuCcRun {
    /// `labels[v]` = smallest vertex id of `v`'s (weakly) connected component.
    pub labels: Vec<u32>,
    /// From the first kernel to the last (CUDA events); host time when emulated.
    pub time_ms: f64,
    /// The sampled label skipped by the last link phase.
    pub skipped: Option<u32>,
    pub skipped_share: f64,
}

/// The Afforest kernels of the loaded module.
pub struct CcKernels {
    init: CudaFunction,
    link_round: CudaFunction,
    compress: CudaFunction,
    sample: CudaFunction,
    link_rest: CudaFunction,
}

/// One launcher of the Afforest phases: the device or the emulator.
pub trait CcExec {
    /// Every vertex its own tree.
    fn init(&mut self) -> Result<()>;
    /// Links every vertex with its `round`-th out-neighbour.
    fn link_round(&mut self, round: u32) -> Result<()>;
    /// Points every vertex at its root.
    fn compress(&mut self) -> Result<()>;
    /// The labels of the `nsamples` vertices `sample_vertex(seed, i, n)`.
    fn sample(&mut self, seed: u64, nsamples: u32) -> Result<Vec<u32>>;
    /// Links the remaining edges of the vertices not labelled `skip`.
    fn link_rest(&mut self, skip: u32, rounds: u32) -> Result<()>;
}

/// Runs the phases; returns the skipped label and its sample count.
pub fn drive(x: &mut impl CcExec, o: &AfforestOptions) -> Result<Option<(u32, u32)>> {
    x.init()?;
    for r in 0..o.neighbor_rounds {
        x.link_round(r)?;
        x.compress()?;
    }
    let giant = if o.samples > 0 {
        most_frequent(&x.sample(o.seed, o.samples)?)
    } else {
        None
    };
    x.link_rest(giant.map_or(u32::MAX, |(c, _)| c), o.neighbor_rounds)?;
    x.compress()?;
    Ok(giant)
}

fn share(giant: Option<(u32, u32)>, o: &AfforestOptions) -> f64 {
    giant.map_or(0.0, |(_, k)| f64::from(k) / f64::from(o.samples.max(1)))
}

/// The device launcher: buffers of one run.
struct DeviceExec<'a> {
    gpu: &'a Gpu,
    k: &'a CcKernels,
    g: &'a DeviceGraph,
    comp: DevBuf<u32>,
    samples: DevBuf<u32>,
    cfg: LaunchConfig,
}

impl DeviceExec<'_> {
    /// In-edge count and pointers (0 = none: a symmetric graph).
    fn incoming(&self) -> (u64, u64, u64) {
        match &self.g.incoming {
            Incoming::Transpose { offsets, sources } => {
                (sources.len as u64, offsets.ptr, sources.ptr)
            }
            _ => (0, 0, 0),
        }
    }
}

impl CcExec for DeviceExec<'_> {
    fn init(&mut self) -> Result<()> {
        let mut b = self.gpu.stream.launch_builder(&self.k.init);
        b.arg(&self.g.n).arg(&self.comp.ptr);
        // SAFETY: `cc_init(n, comp)` with `comp` holding `n` words.
        unsafe { b.launch(self.cfg) }.map_err(cuda_err("cuLaunchKernel(cc_init)"))?;
        Ok(())
    }

    fn link_round(&mut self, round: u32) -> Result<()> {
        let g = self.g;
        let mut b = self.gpu.stream.launch_builder(&self.k.link_round);
        g.csr_args(&mut b).arg(&self.comp.ptr).arg(&round);
        // SAFETY: `cc_link_round(n, m, offsets, targets, comp, round)` over the
        // uploaded CSR (checked on upload) and `n` comp words.
        unsafe { b.launch(self.cfg) }.map_err(cuda_err("cuLaunchKernel(cc_link_round)"))?;
        Ok(())
    }

    fn compress(&mut self) -> Result<()> {
        let mut b = self.gpu.stream.launch_builder(&self.k.compress);
        b.arg(&self.g.n).arg(&self.comp.ptr);
        // SAFETY: `cc_compress(n, comp)` with `comp` holding `n` words.
        unsafe { b.launch(self.cfg) }.map_err(cuda_err("cuLaunchKernel(cc_compress)"))?;
        Ok(())
    }

    fn sample(&mut self, seed: u64, nsamples: u32) -> Result<Vec<u32>> {
        if nsamples as usize > self.samples.len {
            return Err(Error::InvalidArgument(format!(
                "{nsamples} samples for a buffer of {}",
                self.samples.len
            )));
        }
        let mut b = self.gpu.stream.launch_builder(&self.k.sample);
        b.arg(&self.g.n)
            .arg(&self.comp.ptr)
            .arg(&seed)
            .arg(&self.samples.ptr)
            .arg(&nsamples);
        // SAFETY: `cc_sample(n, comp, seed, samples, nsamples)`, `samples` holds
        // at least `nsamples` words (checked above).
        unsafe { b.launch(Gpu::grid_for(u64::from(nsamples), BLOCK)) }
            .map_err(cuda_err("cuLaunchKernel(cc_sample)"))?;
        let mut out = vec![0u32; nsamples as usize];
        self.gpu.download(&self.samples, &mut out, "cc samples")?;
        Ok(out)
    }

    fn link_rest(&mut self, skip: u32, rounds: u32) -> Result<()> {
        let g = self.g;
        let (m_in, in_offsets, in_sources) = self.incoming();
        let mut b = self.gpu.stream.launch_builder(&self.k.link_rest);
        g.csr_args(&mut b)
            .arg(&m_in)
            .arg(&in_offsets)
            .arg(&in_sources)
            .arg(&self.comp.ptr)
            .arg(&skip)
            .arg(&rounds);
        // SAFETY: `cc_link_rest(n, m, offsets, targets, m_in, in_offsets,
        // in_sources, comp, skip, rounds)`: the uploaded CSR, its transpose or
        // null pointers, `n` comp words.
        unsafe { b.launch(self.cfg) }.map_err(cuda_err("cuLaunchKernel(cc_link_rest)"))?;
        Ok(())
    }
}

impl Device {
    /// Loads the Afforest kernels from the vertex module.
    pub fn load_cc(&self) -> Result<CcKernels> {
        Ok(CcKernels {
            init: self.gpu.function("cc_init")?,
            link_round: self.gpu.function("cc_link_round")?,
            compress: self.gpu.function("cc_compress")?,
            sample: self.gpu.function("cc_sample")?,
            link_rest: self.gpu.function("cc_link_rest")?,
        })
    }

    /// Weakly connected components of a graph uploaded with
    /// [`Device::upload_traversal`] (a directed graph needs its in-edges there).
    pub fn afforest(
        &self,
        k: &CcKernels,
        g: &DeviceGraph,
        o: &AfforestOptions,
    ) -> Result<GpuCcRun> {
        if matches!(g.incoming, Incoming::Unknown) {
            return Err(Error::InvalidArgument(
                "GPU connected components need a graph uploaded with upload_traversal \
                 (in-edges of directed graphs)"
                    .into(),
            ));
        }
        if g.n == 0 {
            return Ok(GpuCcRun {
                labels: Vec::new(),
                time_ms: 0.0,
                skipped: None,
                skipped_share: 0.0,
            });
        }
        let gpu = &self.gpu;
        gpu.check_fits(
            "connected-component labels",
            DevBuf::<u32>::bytes_for(g.n as usize) + DevBuf::<u32>::bytes_for(o.samples as usize),
        )?;
        let mut x = DeviceExec {
            gpu,
            k,
            g,
            comp: gpu.alloc::<u32>(g.n as usize, "cc labels")?,
            samples: gpu.alloc::<u32>(o.samples as usize, "cc samples")?,
            cfg: gpu.resident_grid(g.n, BLOCK),
        };
        let start = gpu.record()?;
        let giant = drive(&mut x, o)?;
        let end = gpu.record()?;
        let time_ms = Gpu::elapsed_ms(&start, &end)?;
        let mut labels = vec![0u32; g.n as usize];
        gpu.download(&x.comp, &mut labels, "cc labels")?;
        Ok(GpuCcRun {
            labels,
            time_ms,
            skipped: giant.map(|(c, _)| c),
            skipped_share: share(giant, o),
        })
    }
}

/// The emulator's launcher: host arrays, the kernel bodies of `kernels_rs::cc`
/// called through their raw-pointer entries over a simulated grid.
struct HostExec {
    n: u64,
    m: u64,
    offsets: SharedPtr<u64>,
    targets: SharedPtr<u32>,
    m_in: u64,
    in_offsets: SharedPtr<u64>,
    in_sources: SharedPtr<u32>,
    comp: SharedPtr<u32>,
    grid: u32,
}

/// Threads per emulated block; few blocks, so grid-stride loops are exercised.
const EMU_BLOCK: u32 = 64;

impl CcExec for HostExec {
    fn init(&mut self) -> Result<()> {
        let (n, comp) = (self.n, self.comp);
        // SAFETY: `comp` holds `n` words, accessed only atomically.
        launch(self.grid, EMU_BLOCK, |t| unsafe {
            kernels_rs::cc::init(t, n, comp.get())
        });
        Ok(())
    }

    fn link_round(&mut self, round: u32) -> Result<()> {
        let Self {
            n,
            m,
            offsets,
            targets,
            comp,
            ..
        } = *self;
        // SAFETY: a valid host CSR of `n` vertices and `m` edges, `n` comp words.
        launch(self.grid, EMU_BLOCK, |t| unsafe {
            kernels_rs::cc::link_round(t, n, m, offsets.get(), targets.get(), comp.get(), round)
        });
        Ok(())
    }

    fn compress(&mut self) -> Result<()> {
        let (n, comp) = (self.n, self.comp);
        // SAFETY: `comp` holds `n` words, accessed only atomically.
        launch(self.grid, EMU_BLOCK, |t| unsafe {
            kernels_rs::cc::compress(t, n, comp.get())
        });
        Ok(())
    }

    fn sample(&mut self, seed: u64, nsamples: u32) -> Result<Vec<u32>> {
        let mut out = vec![0u32; nsamples as usize];
        let (n, comp, s) = (self.n, self.comp, SharedPtr(out.as_mut_ptr()));
        let grid = emulated_grid(u64::from(nsamples), EMU_BLOCK, 4);
        // SAFETY: `comp` holds `n` words, `out` `nsamples`; both accessed atomically.
        launch(grid, EMU_BLOCK, |t| unsafe {
            kernels_rs::cc::sample(t, n, comp.get(), seed, s.get(), nsamples)
        });
        Ok(out)
    }

    fn link_rest(&mut self, skip: u32, rounds: u32) -> Result<()> {
        let Self {
            n,
            m,
            offsets,
            targets,
            m_in,
            in_offsets,
            in_sources,
            comp,
            ..
        } = *self;
        // SAFETY: host CSRs of `n` vertices (`m` out-edges, `m_in` in-edges, or
        // null in-edge pointers) and `n` comp words.
        launch(self.grid, EMU_BLOCK, |t| unsafe {
            kernels_rs::cc::link_rest(
                t,
                n,
                m,
                offsets.get(),
                targets.get(),
                m_in,
                in_offsets.get(),
                in_sources.get(),
                comp.get(),
                skip,
                rounds,
            )
        });
        Ok(())
    }
}

/// [`Device::afforest`] on the host: the kernel bodies under the emulator, for
/// tests and machines without a GPU. Directed graphs walk their in-edges.
pub fn emulate<W: Weight>(g: &Graph<W>, o: &AfforestOptions) -> Result<GpuCcRun> {
    let csr = g.csr();
    let n = csr.num_vertices() as u64;
    let (m_in, in_offsets, in_sources) = if g.is_symmetric() {
        (0, std::ptr::null_mut(), std::ptr::null_mut())
    } else {
        let csc = g.csc();
        (
            csc.num_edges(),
            csc.offsets().as_ptr() as *mut u64,
            csc.targets().as_ptr() as *mut u32,
        )
    };
    let mut labels = vec![0u32; n as usize];
    let t0 = Instant::now();
    let mut x = HostExec {
        n,
        m: csr.num_edges(),
        offsets: SharedPtr(csr.offsets().as_ptr() as *mut u64),
        targets: SharedPtr(csr.targets().as_ptr() as *mut u32),
        m_in,
        in_offsets: SharedPtr(in_offsets),
        in_sources: SharedPtr(in_sources),
        comp: SharedPtr(labels.as_mut_ptr()),
        grid: emulated_grid(n, EMU_BLOCK, 16),
    };
    let giant = if n == 0 { None } else { drive(&mut x, o)? };
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(GpuCcRun {
        labels,
        time_ms,
        skipped: giant.map(|(c, _)| c),
        skipped_share: share(giant, o),
    })
}
