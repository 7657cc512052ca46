//! Gather/apply programs on the GPU: the macro's `vx_<name>_ga_*` kernels
//! ([`kernels_rs::gather`]) driven round by round.
//!
//! One round is `emit` → `pull` or `push` (edge-chunk balanced over the CSC or the
//! CSR, seed 000's `SV` per direction) → `apply`, which also reduces the round's
//! tallies per warp; the host reads those back (one small copy per round) to decide
//! the next round's direction and whether to stop, by the same rules as the CPU
//! engine ([`crate::gather`]), so both back ends run the same rounds.
//!
//! Level sweeps ([`GatherProgram::level`]) run from a [`Sweep`] built on the host
//! and uploaded once (`order` and `rank`): one `sweep` launch per level, all queued
//! without reading anything back, each over that level's vertices only (always a
//! pull, one thread per vertex: no atomics, and a level's vertices are known; the
//! direction option applies to the CPU's sweeps).
//!
//! [`GatherExec`] is what the round loops (`drive`, `drive_sweep`) need; its one
//! implementation is `GatherRun` (the `run` child module) over the device's or
//! the emulator's `Launcher`, used by [`Device::run_gather`] and by [`emulate`]
//! (the `host` child module).
//!
//! Programs that read their source also run from up to 64 sources at once
//! ([`batched`]: a lane per source at every vertex).

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaModule};
use kernels_rs::gather::Tally;
use rayon::prelude::*;

use super::cuda::{cuda_err, DevBuf};
use super::device::Device;
use super::launcher::{DeviceLauncher, Launcher};
use crate::error::{Error, Result};
use crate::gather::{
    init_states, weights_of, GatherOptions, GatherProgram, GatherReport, Resolved, StopReason,
    Sweep,
};
use crate::graph::{Graph, Weight};

/// Launch settings of a GPU gather run.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct GatherGpuOptions {
    /// Edges per thread in the gather kernels.
    pub max_edge_count: u64,
    /// Threads per block.
    pub block_size: u32,
}

impl Default for GatherGpuOptions {
    fn default() -> Self {
        GatherGpuOptions {
            max_edge_count: 16,
            block_size: 256,
        }
    }
}

impl GatherGpuOptions {
    fn validate(&self) -> Result<()> {
        super::options::validate_launch(
            super::options::BfsKernel::Balanced,
            self.max_edge_count,
            self.block_size,
            1,
        )
    }
}

/// Final states, the report, and per-round device times.
pub struct GpuGatherRun<S> {
    pub states: Vec<S>,
    pub report: GatherReport,
    /// Time of each round (CUDA events on the device, host time emulated), ms.
    pub round_ms: Vec<f64>,
}

/// What a round's launches read: which bitmaps apply, and the round's scalars.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    /// Gather only from frontier vertices (frontier-driven programs).
    pub frontier: bool,
    pub round: u32,
    pub global: f64,
}

/// Launches of one gather/apply run, on the device or emulated.
pub trait GatherExec {
    /// Initial states and accumulators; the initial frontier into `next` (with
    /// its tally) for frontier-driven programs.
    fn init(&mut self) -> Result<Tally>;
    fn emit(&mut self, m: Mode) -> Result<()>;
    fn gather(&mut self, push: bool, m: Mode) -> Result<()>;
    /// Applies every vertex (`all`) or those that received a value; with
    /// `emit`, each also writes its message for the next round (dense
    /// programs whose `emit` reads no global).
    fn apply(&mut self, all: bool, emit: bool, m: Mode) -> Result<Tally>;
    /// The reduction of `reduce(s, s)` over all vertices.
    fn refresh(&mut self, m: Mode) -> Result<f64>;
    /// `next` becomes the frontier; `next` and `received` are cleared.
    fn advance(&mut self) -> Result<()>;
    /// Marks the end of a round (timing).
    fn end_round(&mut self) -> Result<()>;
    /// Level sweeps: keeps the schedule's `order` and `rank` for [`Self::sweep`].
    fn load_sweep(&mut self, s: &Sweep) -> Result<()>;
    /// Level sweeps: round `m.round`, applying `order[lo..hi]`.
    fn sweep(&mut self, lo: u64, hi: u64, m: Mode) -> Result<()>;
}

/// The schedule of a level sweep from its initial states (`initial`, else `init`
/// evaluated on the host); `None` for other programs.
fn sweep_of<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    initial: Option<&[P::State]>,
    source: u32,
) -> Option<Sweep> {
    if !P::LEVELS {
        return None;
    }
    Some(match initial {
        Some(s) => Sweep::build::<P>(s),
        None => Sweep::build::<P>(&init_states::<P, W>(g.csr(), g.csc(), source)),
    })
}

/// The rounds of a level sweep over `x` (see the module docs).
fn drive_sweep<P: GatherProgram>(
    x: &mut impl GatherExec,
    r: &Resolved,
    s: &Sweep,
    in_offsets: &[u64],
) -> Result<GatherReport> {
    let mut report = GatherReport::empty();
    let start = Instant::now();
    x.load_sweep(s)?;
    x.init()?;
    report.stop = StopReason::Quiescent;
    for round in 0..s.rounds() {
        if round as u32 >= r.max_rounds {
            report.stop = StopReason::MaxRounds;
            break;
        }
        let mode = Mode {
            frontier: false,
            round: round as u32,
            global: P::REDUCE.identity(),
        };
        x.sweep(s.starts[round] as u64, s.starts[round + 1] as u64, mode)?;
        x.end_round()?;
        report.rounds = round as u32 + 1;
        report.applies += s.level(round).len() as u64;
        if round > 0 {
            report.edges_gathered += s
                .level(round)
                .iter()
                .map(|&v| in_offsets[v as usize + 1] - in_offsets[v as usize])
                .sum::<u64>();
        }
    }
    report.reduced = P::REDUCE.identity();
    report.time = start.elapsed();
    Ok(report)
}

/// The round loop (see the module docs): the CPU engine's rules over launches.
pub(crate) fn drive<P: GatherProgram>(
    x: &mut impl GatherExec,
    r: &Resolved,
    m: u64,
) -> Result<GatherReport> {
    let mut report = GatherReport::empty();
    let start = Instant::now();
    let t0 = x.init()?;
    let mut global = P::REDUCE.identity();
    if !P::FRONTIER {
        // Apply writes the next round's messages itself when `emit` cannot
        // read the round's reduction: one launch fewer a round.
        let fused = !P::EMIT_READS_GLOBAL;
        for round in 0.. {
            let mode = Mode {
                frontier: false,
                round,
                global,
            };
            if round == 0 || !fused {
                x.emit(mode)?;
            }
            x.gather(false, mode)?;
            let t = x.apply(true, fused, mode)?;
            x.end_round()?;
            report.rounds = round + 1;
            report.edges_gathered += m;
            report.reduced = t.reduced;
            global = t.reduced;
            if let Some(stop) = r.dense_stop(round, t.reduced, t.changed as u64) {
                report.stop = stop;
                break;
            }
        }
    } else {
        x.advance()?;
        let (mut count, mut edges) = (t0.activated, t0.activated_edges);
        let mut round = 0u32;
        loop {
            if round >= r.max_rounds {
                report.stop = StopReason::MaxRounds;
                break;
            }
            let mut mode = Mode {
                frontier: true,
                round,
                global,
            };
            let t = if count == 0 {
                report.dense_rounds += 1;
                global = x.refresh(mode)?;
                mode.global = global;
                x.apply(true, false, mode)?
            } else {
                x.emit(mode)?;
                let push = r.push(false, edges, m);
                x.gather(push, mode)?;
                report.push_rounds += push as u32;
                report.edges_gathered += if push { edges } else { m };
                x.apply(false, false, mode)?
            };
            x.advance()?;
            x.end_round()?;
            report.rounds = round + 1;
            if count == 0 && t.activated == 0 {
                report.stop = StopReason::Quiescent;
                break;
            }
            (count, edges) = (t.activated, t.activated_edges);
            round += 1;
        }
        report.reduced = global;
    }
    report.time = start.elapsed();
    r.check_bound::<P>(&report)?;
    Ok(report)
}

/// `SV` of seed 000 for a CSR: the vertex owning each chunk's first edge.
pub fn chunk_owners(offsets: &[u64], mec: u64) -> Vec<u32> {
    let m = offsets.last().copied().unwrap_or(0);
    let chunks = kernels_rs::skeleton::num_chunks(m, mec);
    (0..chunks)
        .into_par_iter()
        .map(|i| (offsets.partition_point(|&o| o <= i * mec) - 1) as u32)
        .collect()
}

/// The seven steps of a gather program, in kernel order (the emulator's
/// kernel names; the device's are [`kernel_names`]).
pub(crate) const STEPS: [&str; 7] = ["init", "emit", "pull", "push", "apply", "refresh", "sweep"];

/// Kernel names of gather program `name`, as the macro generates them.
pub fn kernel_names(name: &str) -> [String; 7] {
    STEPS.map(|k| format!("vx_{name}_ga_{k}"))
}

/// A gather program's kernels, loaded.
pub struct GatherKernels {
    _module: Arc<CudaModule>,
    f: [CudaFunction; 7],
    names: [String; 7],
}

impl GatherKernels {
    /// The seven launchable kernels (`run::kernels`).
    pub(crate) fn kernels<P: GatherProgram>(&self) -> [run::Kernel<'_>; 7] {
        let names = [0, 1, 2, 3, 4, 5, 6].map(|i| self.names[i].as_str());
        run::kernels::<P>(names, Some(&self.f))
    }
}

/// Raw addresses of a run's arrays (device or host).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ptrs {
    pub out_offsets: u64,
    pub out_targets: u64,
    pub out_weights: u64,
    pub in_offsets: u64,
    pub in_sources: u64,
    pub in_weights: u64,
    pub state: u64,
    pub msg: u64,
    pub acc: u64,
}

impl Device {
    /// Loads gather program `P`'s kernels.
    pub fn load_gather<P: GatherProgram>(&self) -> Result<GatherKernels> {
        let names = kernel_names(P::NAME);
        let (module, f) = self.program_functions::<P, 7>(&names)?;
        Ok(GatherKernels {
            _module: module,
            f,
            names,
        })
    }

    /// Program `P`'s PTX module and its functions `names`: what the single
    /// and the batched gather runners load (a clear error when the program's
    /// crate built no PTX).
    pub(super) fn program_functions<P: GatherProgram, const N: usize>(
        &self,
        names: &[String; N],
    ) -> Result<(Arc<CudaModule>, [CudaFunction; N])> {
        let ptx = crate::gpu::ptx::program_source(P::NAME, P::gpu_ptx(), P::gpu_ptx_status())?;
        let module = self.gpu.load_module(&ptx, P::NAME)?;
        let mut f = Vec::with_capacity(N);
        for name in names {
            f.push(
                module
                    .load_function(name)
                    .map_err(cuda_err(&format!("cuModuleGetFunction({name})")))?,
            );
        }
        let f: [CudaFunction; N] = f
            .try_into()
            .map_err(|_| Error::InvalidArgument("kernel count".into()))?;
        Ok((module, f))
    }

    /// Uploads `g` for gather runs ([`Device::run_gather_on`]): the CSR and the
    /// CSC (one copy when `g` is symmetric), their weights when `weights`, and the
    /// chunk owners of `gopts`'s edge chunks. Upload once, run many times: a
    /// multi-source kernel (Brandes) then copies no graph per source or phase.
    pub fn upload_gather_graph<'g, W: Weight>(
        &self,
        g: &'g Graph<W>,
        gopts: &GatherGpuOptions,
        weights: bool,
    ) -> Result<GatherGraph<'g, W>> {
        Ok(GatherGraph {
            g,
            up: self.upload_gather(g, gopts, weights)?,
        })
    }

    /// [`Device::upload_gather_graph`]'s device arrays alone, owned (no borrow
    /// of `g`): what a cache keeps between runs ([`crate::run::device_cache`]).
    /// Run with [`Device::run_gather_uploaded`], handing `g` again.
    pub fn upload_gather<W: Weight>(
        &self,
        g: &Graph<W>,
        gopts: &GatherGpuOptions,
        weights: bool,
    ) -> Result<GatherUpload<W>> {
        gopts.validate()?;
        let n = g.num_vertices();
        let (csr, csc) = (g.csr(), g.csc());
        let m = g.num_edges();
        let wsize = if weights { std::mem::size_of::<W>() } else { 0 };
        let sym = g.is_symmetric();
        let sv_in = chunk_owners(csc.offsets(), gopts.max_edge_count);
        let sv_out = chunk_owners(csr.offsets(), gopts.max_edge_count);
        self.gpu.check_fits(
            "gather graph (CSR + CSC, chunk owners)",
            (n as u64 + 1) * 8 * 2
                + m * (4 + wsize as u64) * if sym { 1 } else { 2 }
                + 4 * (sv_in.len() + sv_out.len()) as u64,
        )?;
        let up = |bytes: &[u8], what: &str| self.gpu.upload::<u8>(bytes, what);
        let mut bufs = Vec::new();
        let mut ptr = Ptrs::default();
        let mut put = |b: DevBuf<u8>| -> u64 {
            let p = b.ptr;
            bufs.push(b);
            p
        };
        ptr.out_offsets = put(up(bytemuck::cast_slice(csr.offsets()), "CSR offsets")?);
        ptr.out_targets = put(up(bytemuck::cast_slice(csr.targets()), "CSR targets")?);
        if let Some(w) = csr.weights().filter(|_| weights) {
            ptr.out_weights = put(up(bytemuck::cast_slice(w), "CSR weights")?);
        }
        if sym {
            (ptr.in_offsets, ptr.in_sources, ptr.in_weights) =
                (ptr.out_offsets, ptr.out_targets, ptr.out_weights);
        } else {
            ptr.in_offsets = put(up(bytemuck::cast_slice(csc.offsets()), "CSC offsets")?);
            ptr.in_sources = put(up(bytemuck::cast_slice(csc.targets()), "CSC sources")?);
            if let Some(w) = csc.weights().filter(|_| weights) {
                ptr.in_weights = put(up(bytemuck::cast_slice(w), "CSC weights")?);
            }
        }
        Ok(GatherUpload {
            graph: g.id(),
            gopts: *gopts,
            weights,
            _bufs: bufs,
            ptr,
            sv_in: self.gpu.upload(&sv_in, "SV (in-edges)")?,
            sv_out: self.gpu.upload(&sv_out, "SV (out-edges)")?,
            _w: std::marker::PhantomData,
        })
    }

    /// Runs `P` on `g` (uploads it first: [`Device::upload_gather_graph`], with
    /// weights if `P` reads them).
    pub fn run_gather<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherKernels,
        g: &Graph<W>,
        opts: &GatherOptions,
        gopts: &GatherGpuOptions,
    ) -> Result<GpuGatherRun<P::State>> {
        let gg = self.upload_gather_graph(g, gopts, P::WEIGHTED)?;
        self.run_gather_inner::<P, W>(k, g, &gg.up, opts, None)
    }

    /// [`Device::run_gather`] from the caller's states instead of `init` (one per
    /// vertex): how programs compose, a later phase starting from an earlier one's
    /// results (Brandes's backward sweep from the forward phase's depths and path
    /// counts). The initial frontier is `active(s, s)` of the given states.
    pub fn run_gather_from<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherKernels,
        g: &Graph<W>,
        opts: &GatherOptions,
        gopts: &GatherGpuOptions,
        initial: &[P::State],
    ) -> Result<GpuGatherRun<P::State>> {
        let gg = self.upload_gather_graph(g, gopts, P::WEIGHTED)?;
        self.run_gather_inner::<P, W>(k, g, &gg.up, opts, Some(initial))
    }

    /// [`Device::run_gather`] (`initial: None`) or [`Device::run_gather_from`] on a
    /// graph already on the device.
    pub fn run_gather_on<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherKernels,
        gg: &GatherGraph<'_, W>,
        opts: &GatherOptions,
        initial: Option<&[P::State]>,
    ) -> Result<GpuGatherRun<P::State>> {
        self.run_gather_inner::<P, W>(k, gg.g, &gg.up, opts, initial)
    }

    /// [`Device::run_gather_on`] on an owned upload of `g`
    /// ([`Device::upload_gather`]); fails if `up` was made from another graph.
    pub fn run_gather_uploaded<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherKernels,
        g: &Graph<W>,
        up: &GatherUpload<W>,
        opts: &GatherOptions,
        initial: Option<&[P::State]>,
    ) -> Result<GpuGatherRun<P::State>> {
        if up.graph != g.id() {
            return Err(Error::InvalidArgument(format!(
                "program `{}`: the uploaded gather graph (id {}) is not the graph given (id {})",
                P::NAME,
                up.graph,
                g.id()
            )));
        }
        self.run_gather_inner::<P, W>(k, g, up, opts, initial)
    }

    fn run_gather_inner<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherKernels,
        g: &Graph<W>,
        gg: &GatherUpload<W>,
        opts: &GatherOptions,
        initial: Option<&[P::State]>,
    ) -> Result<GpuGatherRun<P::State>> {
        let gopts = &gg.gopts;
        let n = g.num_vertices();
        crate::gather::check_initial::<P>(initial, n)?;
        opts.rounds_only("the GPU runs Jacobi rounds")?;
        let r = opts.resolve::<P>(n)?;
        let csc = g.csc();
        // Checks the graph carries weights of `P`'s type.
        let (_, _) = (weights_of::<P, W>(g.csr())?, weights_of::<P, W>(csc)?);
        if P::WEIGHTED && !gg.weights {
            return Err(Error::InvalidArgument(format!(
                "program `{}` reads edge weights: upload the graph with its weights",
                P::NAME
            )));
        }
        let m = g.num_edges();
        let words = n.div_ceil(32);
        let state_size = std::mem::size_of::<P::State>();
        let msg_size = std::mem::size_of::<P::Msg>();
        let acc_size = std::mem::size_of::<P::Acc>();
        let l = DeviceLauncher { gpu: &self.gpu };
        let slots = l.warps(run::max_grid(), gopts.block_size) as usize;
        self.gpu.check_fits(
            &format!("`{}`: state, messages, accumulators, bitmaps", P::NAME),
            (n * (state_size + msg_size + acc_size)) as u64
                + 3 * 4 * words as u64
                + 8 * kernels_rs::gather::tally::words_for(slots as u64) as u64,
        )?;
        let graph = RunGraph {
            ptr: gg.ptr,
            sv_in: (gg.sv_in.ptr, gg.sv_in.len as u64),
            sv_out: (gg.sv_out.ptr, gg.sv_out.len as u64),
            n: n as u64,
            m,
            out_len: m,
            in_len: m,
            own: 0..n as u64,
            pad_to: n as u64,
        };
        let kernels = k.kernels::<P>();
        run::run_rounds::<_, P, W>(&l, kernels, graph, g, gopts, &r, initial)
    }
}

/// A graph uploaded for gather runs ([`Device::upload_gather_graph`]), with the
/// host graph it mirrors (level sweeps build their schedule from it).
pub struct GatherGraph<'g, W: Weight> {
    g: &'g Graph<W>,
    up: GatherUpload<W>,
}

/// The device arrays of a graph uploaded for gather runs
/// ([`Device::upload_gather`]), owned and tagged with the graph's
/// [`Graph::id`].
pub struct GatherUpload<W: Weight> {
    graph: u64,
    gopts: GatherGpuOptions,
    /// Whether the weights were uploaded.
    weights: bool,
    /// Owns the graph's device arrays (freed on drop).
    _bufs: Vec<DevBuf<u8>>,
    /// The graph's addresses; the per-run arrays are filled in by each run.
    ptr: Ptrs,
    sv_in: DevBuf<u32>,
    sv_out: DevBuf<u32>,
    _w: std::marker::PhantomData<fn() -> W>,
}

impl<W: Weight> GatherGraph<'_, W> {
    /// The host graph.
    pub fn graph(&self) -> &Graph<W> {
        self.g
    }
}

/// The bytes of states to upload (`State` is plain data by the program model).
fn state_bytes<P: GatherProgram>(states: &[P::State]) -> &[u8] {
    // SAFETY: `State` is a plain-data `Copy` type (the macro refuses others), so its
    // storage may be viewed as bytes for the copy to the device; the length is the
    // slice's size in bytes.
    unsafe {
        std::slice::from_raw_parts(states.as_ptr() as *const u8, std::mem::size_of_val(states))
    }
}

/// States from their bytes (`State` is plain data by the program model).
fn states_from_bytes<P: GatherProgram>(bytes: &[u8]) -> Vec<P::State> {
    let size = std::mem::size_of::<P::State>();
    bytes
        .chunks_exact(size.max(1))
        .map(|c| {
            // SAFETY: `c` holds the bytes of one `State` the kernels wrote from a valid
            // value; `read_unaligned` copes with the byte buffer's alignment.
            unsafe { std::ptr::read_unaligned(c.as_ptr() as *const P::State) }
        })
        .collect()
}

pub mod batched;
mod host;
pub(crate) mod run;

pub use host::{emulate, emulate_from};
use run::RunGraph;
