//! Multi-GPU traversal on the device: one process, one GPU per part, NCCL
//! all-gather of the parts' bitmap (and state) slices after every level.
//!
//! NVLink multicast (NVLS) stays off (`NCCL_NVLS_ENABLE=0`): on shared machines a
//! program using it can take the host's GPUs out of service. [`MultiGpu::open`]
//! sets it when the environment has not.

use std::time::Instant;

use cudarc::driver::CudaEvent;
use cudarc::nccl::{self, Comm};

use super::partition::{part_graph, PartGraph, Partition};
use super::{combine_passes, sum_sizes};
use crate::error::{Error, Result};
use crate::gpu::cuda::{cuda_err, DevBuf, Gpu};
use crate::gpu::device::{Device, DeviceGraph, Incoming};
use crate::gpu::direction::{
    self, initial_size, DirectionExec, DirectionKernels, FrontierSize, GpuDirection, LevelLog, Pass,
};
use crate::gpu::program_api::{
    bucket_delta, direction_mode, relax_unit, source_state, GpuProgram, ProgramKernels,
    ProgramOptions,
};
use crate::graph::{Graph, Weight};
use crate::program::VertexProgram;

/// GPUs `0..G` of this machine with an NCCL communicator over them.
pub struct MultiGpu {
    pub devices: Vec<Device>,
    comms: Vec<Comm>,
}

/// A graph partitioned over the GPUs of a [`MultiGpu`] ([`MultiGpu::upload`]).
pub struct MultiGraph {
    part: Partition,
    graphs: Vec<DeviceGraph>,
    degree_offsets: Vec<DevBuf<u64>>,
    /// The whole graph's offsets (initial frontier size on the host).
    offsets: Vec<u64>,
    m: u64,
    weighted: bool,
}

impl MultiGraph {
    pub fn partition(&self) -> &Partition {
        &self.part
    }
}

/// Result of a multi-GPU run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MultiRun<S> {
    #[serde(skip)]
    pub states: Vec<S>,
    #[serde(skip)]
    pub parents: Option<Vec<u32>>,
    pub gpus: usize,
    pub levels: Vec<LevelLog>,
    /// Host wall time from the first launch to the last level's counters.
    pub time_ms: f64,
    /// Of which the exchanges (slowest GPU's events around its all-gathers).
    pub exchange_ms: f64,
    /// Bytes each GPU received per level (bitmap, plus states if exchanged).
    pub bytes_per_level: u64,
}

fn nccl_err(what: &str) -> impl FnOnce(nccl::result::NcclError) -> Error + '_ {
    move |e| Error::Cuda {
        call: what.to_string(),
        msg: format!("{e:?}"),
    }
}

impl MultiGpu {
    /// Opens GPUs `0..gpus` and an NCCL communicator over them.
    pub fn open(gpus: usize) -> Result<MultiGpu> {
        if gpus == 0 {
            return Err(Error::InvalidArgument("at least one GPU is needed".into()));
        }
        if std::env::var("NCCL_NVLS_ENABLE").as_deref() != Ok("0") {
            std::env::set_var("NCCL_NVLS_ENABLE", "0");
        }
        // SAFETY: only tries to dlopen libnccl; no NCCL call is made.
        if !unsafe { nccl::sys::is_culib_present() } {
            return Err(Error::GpuUnavailable(
                "libnccl.so.2 not found (put NCCL's lib directory on LD_LIBRARY_PATH)".into(),
            ));
        }
        let devices = (0..gpus).map(Device::open).collect::<Result<Vec<_>>>()?;
        let streams = devices.iter().map(|d| d.gpu.stream.clone()).collect();
        let comms = Comm::from_devices(streams).map_err(nccl_err("ncclCommInitAll"))?;
        Ok(MultiGpu { devices, comms })
    }

    /// Partitions `g` over the GPUs and uploads each part (with weights if
    /// `weights`), once for any number of runs.
    pub fn upload<W: crate::graph::Weight>(
        &self,
        g: &Graph<W>,
        weights: bool,
    ) -> Result<MultiGraph> {
        let n = g.num_vertices();
        let part = Partition::new(n as u64, self.devices.len())?;
        let mut graphs = Vec::with_capacity(self.devices.len());
        let mut degree_offsets = Vec::with_capacity(self.devices.len());
        for (p, d) in self.devices.iter().enumerate() {
            let pg = part_graph(g, &part, p)?;
            graphs.push(d.upload_part(&pg, weights)?);
            degree_offsets.push(d.gpu.upload(g.csr().offsets(), "graph offsets")?);
        }
        Ok(MultiGraph {
            part,
            graphs,
            degree_offsets,
            offsets: g.csr().offsets().to_vec(),
            m: g.num_edges(),
            weighted: weights,
        })
    }

    /// Loads `P`'s kernels on every GPU (module JIT once).
    pub fn load_program<P: GpuProgram>(&self) -> Result<Vec<ProgramKernels>> {
        self.devices.iter().map(|d| d.load_program::<P>()).collect()
    }

    /// Runs `P` with the direction kernels on an uploaded partitioned graph.
    pub fn run_program<P: GpuProgram>(
        &self,
        kernels: &[ProgramKernels],
        mg: &MultiGraph,
        source: u32,
        opts: &ProgramOptions,
    ) -> Result<MultiRun<<P as VertexProgram>::State>> {
        opts.validate()?;
        let gpus = self.devices.len();
        let part = mg.part;
        let n = part.n as usize;
        if kernels.len() != gpus || mg.graphs.len() != gpus {
            return Err(Error::InvalidArgument(format!(
                "{gpus} GPUs but kernels for {} and a graph for {}",
                kernels.len(),
                mg.graphs.len()
            )));
        }
        if P::NEEDS_SOURCE && source as usize >= n {
            return Err(Error::InvalidArgument(format!(
                "source vertex {source} is out of range: the graph has {n} vertices"
            )));
        }
        if P::WEIGHTED && !mg.weighted {
            return Err(Error::InvalidArgument(format!(
                "program `{}` reads edge weights, but the graph was uploaded without them",
                P::NAME
            )));
        }
        let pull = direction_mode::<P>(opts, true)?;
        let uniform = pull.then(|| source_state::<P>(source));
        let size = std::mem::size_of::<<P as VertexProgram>::State>();
        let graphs = &mg.graphs;
        let degree_offsets = &mg.degree_offsets;
        let padded = part.padded_words() as usize;
        let span = part.span as usize;
        let mut states = Vec::with_capacity(gpus);
        let mut parents = Vec::with_capacity(gpus);
        let mut send_bits = Vec::with_capacity(gpus);
        let mut send_states = Vec::with_capacity(gpus);
        for d in &self.devices {
            states.push(d.gpu.alloc::<u8>(gpus * span * size, "program state")?);
            parents.push(match opts.parents {
                true => Some(d.gpu.alloc::<u32>(n, "parents")?),
                false => None,
            });
            send_bits.push(
                d.gpu
                    .alloc::<u32>(part.words() as usize, "exchange buffer")?,
            );
            send_states.push(d.gpu.alloc::<u8>(span * size, "exchange buffer")?);
        }
        let mut parts = Vec::with_capacity(gpus);
        for p in 0..gpus {
            let k = &kernels[p];
            let dk = DirectionKernels {
                init: k.init_fn(),
                td_chunks: k.td_chunks_fn(),
                td_select: k.td_select_fn(),
                td_relax: k.td_relax_fn(),
                bottom_up: k.bottom_up_fn(),
                plan: &self.devices[p].k.plan,
                plan_pass: &self.devices[p].k.plan_pass,
                name: P::NAME,
            };
            let pptr = parents[p].as_ref().map_or(0, |b| b.ptr);
            let mut x = GpuDirection::new(
                &self.devices[p].gpu,
                dk,
                &graphs[p],
                opts.max_edge_count,
                opts.block_size,
                states[p].ptr,
                pptr,
                size,
            )?;
            x.pad_bitmaps(padded)?;
            x.degree_offsets = degree_offsets[p].ptr;
            parts.push(x);
        }
        for d in &self.devices {
            d.gpu.sync("multi-GPU buffer allocation")?;
        }
        let mut exec = MultiGpuExec {
            parts,
            comms: &self.comms,
            part,
            offsets: &mg.offsets,
            states: &mut states,
            send_bits: &mut send_bits,
            send_states: &mut send_states,
            exchange_states: uniform.is_none(),
            state_size: size,
            exchange_ms: 0.0,
        };
        let t0 = Instant::now();
        let src = P::NEEDS_SOURCE.then_some(source);
        let levels = match bucket_delta::<P>(opts) {
            Some(delta) => {
                let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                direction::drive_buckets::<<P as VertexProgram>::State>(
                    &mut exec, n as u64, src, p0, delta,
                )?
            }
            None => direction::drive(&mut exec, n as u64, mg.m, src, uniform, relax_unit::<P>)?,
        };
        let time_ms = t0.elapsed().as_secs_f64() * 1e3;
        let exchange_ms = exec.exchange_ms;
        let exchange_states = exec.exchange_states;
        drop(exec);
        // Each vertex's answer from its owner.
        let zero = <<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed();
        let mut out = vec![zero; n];
        let mut out_parents = opts.parents.then(|| vec![0u32; n]);
        for (p, d) in self.devices.iter().enumerate() {
            let r = part.range(p);
            let (lo, hi) = (r.start as usize, r.end as usize);
            if lo == hi {
                continue;
            }
            let mut all = vec![zero; gpus * span];
            d.gpu.download(
                &states[p],
                bytemuck::cast_slice_mut(&mut all),
                "program state",
            )?;
            out[lo..hi].copy_from_slice(&all[lo..hi]);
            if let (Some(op), Some(pb)) = (out_parents.as_mut(), parents[p].as_ref()) {
                let mut all = vec![0u32; n];
                d.gpu.download(pb, &mut all, "parents")?;
                op[lo..hi].copy_from_slice(&all[lo..hi]);
            }
        }
        let bytes_per_level = 4 * padded as u64
            + if exchange_states {
                (gpus * span * size) as u64
            } else {
                0
            };
        Ok(MultiRun {
            states: out,
            parents: out_parents,
            gpus,
            levels,
            time_ms,
            exchange_ms,
            bytes_per_level,
        })
    }
}

/// The parts on their GPUs and the exchange buffers.
struct MultiGpuExec<'a, 'd> {
    parts: Vec<GpuDirection<'d>>,
    comms: &'a [Comm],
    part: Partition,
    offsets: &'a [u64],
    states: &'a mut [DevBuf<u8>],
    send_bits: &'a mut [DevBuf<u32>],
    send_states: &'a mut [DevBuf<u8>],
    exchange_states: bool,
    state_size: usize,
    exchange_ms: f64,
}

impl MultiGpuExec<'_, '_> {
    /// All-gathers every part's slice of the bitmap it just wrote (and of the
    /// states), timed with events on each GPU's stream.
    fn exchange(&mut self, bucketed: bool) -> Result<()> {
        let words = self.part.words() as usize;
        let span = self.part.span as usize * self.state_size;
        let mut marks: Vec<(CudaEvent, &Gpu)> = Vec::with_capacity(self.parts.len());
        for (p, x) in self.parts.iter_mut().enumerate() {
            let gpu = x.gpu();
            marks.push((gpu.record()?, gpu));
            let bits = x.written_bits(bucketed);
            let own = bits.slice.slice(p * words..(p + 1) * words);
            gpu.stream
                .memcpy_dtod(&own, &mut self.send_bits[p].slice)
                .map_err(cuda_err("cuMemcpyDtoD(exchange bitmap)"))?;
            if self.exchange_states {
                let own = self.states[p].slice.slice(p * span..(p + 1) * span);
                gpu.stream
                    .memcpy_dtod(&own, &mut self.send_states[p].slice)
                    .map_err(cuda_err("cuMemcpyDtoD(exchange states)"))?;
            }
        }
        nccl::result::group_start().map_err(nccl_err("ncclGroupStart"))?;
        for (p, x) in self.parts.iter_mut().enumerate() {
            let bits = x.written_bits(bucketed);
            self.comms[p]
                .all_gather(&self.send_bits[p].slice, &mut bits.slice)
                .map_err(nccl_err("ncclAllGather(frontier bitmap)"))?;
            if self.exchange_states {
                self.comms[p]
                    .all_gather(&self.send_states[p].slice, &mut self.states[p].slice)
                    .map_err(nccl_err("ncclAllGather(states)"))?;
            }
        }
        nccl::result::group_end().map_err(nccl_err("ncclGroupEnd"))?;
        let mut slowest = 0.0f64;
        for (a, gpu) in marks {
            let b = gpu.record()?;
            slowest = slowest.max(Gpu::elapsed_ms(&a, &b)?);
        }
        self.exchange_ms += slowest;
        Ok(())
    }
}

impl<S: bytemuck::Pod> DirectionExec<S> for MultiGpuExec<'_, '_> {
    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        for x in &mut self.parts {
            x.launch_init(source)?;
        }
        Ok(initial_size(self.offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<S>,
    ) -> Result<FrontierSize> {
        let c = candidate.as_ref().map(bytemuck::bytes_of);
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_top_down(iter, frontier, c))
            .collect::<Result<Vec<_>>>()?;
        self.exchange(false)?;
        let sizes = self.finish(marks, true)?;
        Ok(sum_sizes(
            &sizes
                .iter()
                .map(|c| FrontierSize::from_ctl(c))
                .collect::<Vec<_>>(),
        ))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: S) -> Result<FrontierSize> {
        let c = bytemuck::bytes_of(&candidate);
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_bottom_up(c))
            .collect::<Result<Vec<_>>>()?;
        self.exchange(false)?;
        let sizes = self.finish(marks, true)?;
        Ok(sum_sizes(
            &sizes
                .iter()
                .map(|c| FrontierSize::from_ctl(c))
                .collect::<Vec<_>>(),
        ))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_near_far(iter, limit))
            .collect::<Result<Vec<_>>>()?;
        self.exchange(true)?;
        let ctls = self.finish(marks, false)?;
        combine_passes(&ctls.iter().map(|c| Pass::from_ctl(c)).collect::<Vec<_>>())
    }
}

impl MultiGpuExec<'_, '_> {
    /// Waits for every part's level and reads its counters.
    fn finish(
        &mut self,
        marks: Vec<CudaEvent>,
        swap: bool,
    ) -> Result<Vec<[u64; kernels_rs::direction::CTL_WORDS]>> {
        self.parts
            .iter_mut()
            .zip(marks)
            .map(|(x, a)| x.finish_level(a, swap))
            .collect()
    }
}

impl Device {
    /// Uploads one part of a multi-GPU partition: its slice of the out-edges (and
    /// their weights if `weights`) and its vertices' in-edges.
    pub fn upload_part<W: Weight>(&self, pg: &PartGraph<W>, weights: bool) -> Result<DeviceGraph> {
        let n = pg.incoming.num_vertices();
        let m_in = pg.incoming.num_edges() as usize;
        self.gpu.check_fits(
            &format!("in-edges of a graph part ({m_in} edges)"),
            DevBuf::<u64>::bytes_for(n + 1) + DevBuf::<u32>::bytes_for(m_in),
        )?;
        let offsets = self
            .gpu
            .upload(pg.incoming.offsets(), "part in-edge offsets")?;
        let sources = self
            .gpu
            .upload(pg.incoming.targets(), "part in-edge sources")?;
        let mut d = self.upload_graph(&pg.out, weights)?;
        d.incoming = Incoming::Transpose { offsets, sources };
        Ok(d)
    }
}
