//! Gather/apply programs that read a source, from many sources at once on the
//! GPU ([`kernels_rs::gather::batched`]): batches of up to 64 sources, thread
//! `t` lane `t % k` of vertex `t / k`, so a warp's threads walk one in-edge list
//! together. [`emulate_batched`] runs the same kernel bodies on the host, which
//! is how CI checks them.
//!
//! The host's part per round is the single-source runner's (`drive` in [`super`]),
//! lane by lane: it reads the lanes' tallies (per-lane activation counts, or the
//! per-chunk sums of [`kernels_rs::gather::batched::reduce`], folded here in chunk
//! order), stops each lane by the program's rules, and tells the next launches
//! which lanes run (`live`), gather (`front`) or take a dense round (`dense`).
//! Buffers are made once for all batches.

use cudarc::driver::CudaFunction;
use kernels_rs::gather::batched::{self as k, LaneDesc};
use kernels_rs::ThreadCtx;

use super::{GatherUpload, Ptrs};
use crate::cpu::msbfs::{check_sources, lane_mask, LANES};
use crate::error::{Error, Result};
use crate::gather::{
    check_batchable, weights_of, GatherOptions, GatherProgram, GatherReport, Resolved, StopReason,
};
use crate::gpu::batched::{BatchedStats, LaneStates};
use crate::gpu::device::Device;
use crate::gpu::launcher::{Arg, DeviceLauncher, Grid, HostBody, HostLauncher, Kernel, Launcher};
use crate::graph::{Graph, Weight};

/// Threads per block.
const BLOCK: u32 = 256;
/// Threads per emulated block.
const EMU_BLOCK: u32 = 64;
/// Chunks [`k::reduce`] splits the vertices into (about; at least 64 vertices
/// a chunk): the per-round read-back is `2 · chunks · lanes` words.
const CHUNKS: u64 = 256;

/// Kernel names of batched gather program `name`, as the macro generates them.
pub fn kernel_names(name: &str) -> [String; 4] {
    ["init", "emit", "step", "reduce"].map(|k| format!("vx_{name}_gb_{k}"))
}

/// A gather program's batched kernels, loaded ([`Device::load_gather_batched`]).
pub struct GatherBatchKernels {
    _module: std::sync::Arc<cudarc::driver::CudaModule>,
    f: [CudaFunction; 4],
    names: [String; 4],
}

// Each body reads the argument list `Run::launch` builds for its kernel (the
// PTX parameter lists of `kernels_rs::gather_batched_kernels!`): the contract
// their SAFETY comments refer to.

/// `(desc)`.
unsafe fn init_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::init::<P>(t, a[0].ptr()) }
}
/// `(desc, round, lanes)`.
unsafe fn emit_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::emit::<P>(t, a[0].ptr(), a[1].u32(), a[2].u64()) }
}
/// `(desc, round, live, front, dense)`.
unsafe fn step_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe {
        k::step::<P>(
            t,
            a[0].ptr(),
            a[1].u32(),
            a[2].u64(),
            a[3].u64(),
            a[4].u64(),
        )
    }
}
/// `(desc, round, lanes, refresh)`.
unsafe fn reduce_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::reduce::<P>(t, a[0].ptr(), a[1].u32(), a[2].u64(), a[3].u32()) }
}

const INIT: usize = 0;
const EMIT: usize = 1;
const STEP: usize = 2;
const REDUCE: usize = 3;

/// `P`'s four kernels, with the device's functions where loaded.
fn kernels<P: GatherProgram>(device: Option<&GatherBatchKernels>) -> [Kernel<'_>; 4] {
    const NAMES: [&str; 4] = ["gb_init", "gb_emit", "gb_step", "gb_reduce"];
    let hosts: [HostBody; 4] = [
        init_body::<P>,
        emit_body::<P>,
        step_body::<P>,
        reduce_body::<P>,
    ];
    std::array::from_fn(|i| Kernel {
        name: device.map_or(NAMES[i], |d| d.names[i].as_str()),
        device: device.map(|d| &d.f[i]),
        host: hosts[i],
    })
}

/// Bytes of device memory a run over `n` vertices with `lanes` lanes holds.
fn run_bytes<P: GatherProgram>(n: u64, lanes: u64) -> u64 {
    let per_lane = std::mem::size_of::<P::State>() as u64
        + std::mem::size_of::<P::Msg>() as u64
        + if P::FRONTIER { 0 } else { 8 + 4 };
    n * lanes * per_lane
        + if P::FRONTIER { 2 * 8 * n } else { 0 }
        + 2 * 8 * lanes * (CHUNKS + 1)
        + 8 * 4 * LANES as u64
}

/// One run's buffers, made once and reused by every batch.
struct Run<'a, L: Launcher, P: GatherProgram> {
    l: &'a L,
    k: [Kernel<'a>; 4],
    block: u32,
    r: Resolved,
    desc: LaneDesc,
    state: L::Buf<u64>,
    _msg: L::Buf<u64>,
    _red: L::Buf<f64>,
    _flag: L::Buf<u32>,
    masks: [L::Buf<u64>; 2],
    count: L::Buf<u64>,
    sources: L::Buf<u32>,
    global: L::Buf<f64>,
    partial: L::Buf<u64>,
    descs: L::Buf<u64>,
    state_buf: usize,
    _p: std::marker::PhantomData<P>,
}

/// The graph's addresses a run reads.
struct GraphArgs {
    n: u64,
    m: u64,
    ptr: Ptrs,
}

impl<'a, L: Launcher, P: GatherProgram> Run<'a, L, P> {
    fn new(
        l: &'a L,
        k: [Kernel<'a>; 4],
        block: u32,
        r: Resolved,
        g: &GraphArgs,
        lanes: usize,
    ) -> Result<Self> {
        let nk = g.n as usize * lanes;
        let words = |size: usize| (nk * size).div_ceil(8).max(1);
        let state = l.zeros::<u64>(words(std::mem::size_of::<P::State>()), "batched states")?;
        let msg = l.zeros::<u64>(words(std::mem::size_of::<P::Msg>()), "batched messages")?;
        let dense = if P::FRONTIER { 1 } else { nk.max(1) };
        let red = l.zeros::<f64>(dense, "batched reductions")?;
        let flag = l.zeros::<u32>(dense, "batched change flags")?;
        let frontier = if P::FRONTIER { g.n as usize } else { 0 }.max(1);
        let masks = [
            l.zeros::<u64>(frontier, "frontier lanes")?,
            l.zeros::<u64>(frontier, "frontier lanes")?,
        ];
        let count = l.zeros::<u64>(LANES, "lane counts")?;
        let sources = l.zeros::<u32>(LANES, "batch sources")?;
        let global = l.zeros::<f64>(LANES, "lane reductions")?;
        let chunk = g.n.div_ceil(CHUNKS).max(64);
        let chunks = g.n.div_ceil(chunk) as usize;
        let partial = l.zeros::<u64>((2 * chunks * LANES).max(1), "lane partial sums")?;
        let descs = l.zeros::<u64>(LaneDesc::WORDS, "batch descriptor")?;
        let desc = LaneDesc {
            n: g.n,
            m: g.m,
            k: lanes as u64,
            out_offsets: g.ptr.out_offsets,
            in_offsets: g.ptr.in_offsets,
            in_sources: g.ptr.in_sources,
            in_weights: g.ptr.in_weights,
            state: L::addr(&state),
            msg: L::addr(&msg),
            red: if P::FRONTIER { 0 } else { L::addr(&red) },
            flag: if P::FRONTIER { 0 } else { L::addr(&flag) },
            mask0: if P::FRONTIER { L::addr(&masks[0]) } else { 0 },
            mask1: if P::FRONTIER { L::addr(&masks[1]) } else { 0 },
            count: L::addr(&count),
            sources: L::addr(&sources),
            global: L::addr(&global),
            partial: L::addr(&partial),
            chunk,
        };
        Ok(Run {
            l,
            k,
            block,
            r,
            desc,
            state_buf: words(std::mem::size_of::<P::State>()),
            state,
            _msg: msg,
            _red: red,
            _flag: flag,
            masks,
            count,
            sources,
            global,
            partial,
            descs,
            _p: std::marker::PhantomData,
        })
    }

    fn launch(&self, i: usize, work: u64, extra: &[Arg]) -> Result<()> {
        let mut args = vec![Arg::U64(L::addr(&self.descs))];
        args.extend_from_slice(extra);
        // SAFETY: every batched gather kernel takes the descriptor, then the
        // round's scalars (`extra`, in `gather_batched_kernels!`'s order); the
        // descriptor names this run's live buffers with the lengths it records
        // (`k` lanes, at most the lanes they were made for).
        unsafe {
            self.l
                .launch(&self.k[i], Grid::Cover(work.max(1)), self.block, &args)
        }
    }

    /// Per-lane `(reduction, changed)` of a [`k::reduce`] launch over `lanes`,
    /// folded in chunk order.
    fn reduce(&mut self, round: u32, lanes: u64, refresh: bool) -> Result<Vec<(f64, u64)>> {
        let d = self.desc;
        let kk = d.k as usize;
        let chunks = d.chunks() as usize;
        self.launch(
            REDUCE,
            (chunks * kk) as u64,
            &[round.into(), lanes.into(), (refresh as u32).into()],
        )?;
        let words = self
            .l
            .read_prefix(&self.partial, 2 * chunks * kk, "lane partial sums")?;
        let mut out = vec![(P::REDUCE.identity(), 0u64); kk];
        for c in 0..chunks {
            for (l, o) in out.iter_mut().enumerate() {
                let j = 2 * (c * kk + l);
                o.0 = P::REDUCE.combine(o.0, f64::from_bits(words[j]));
                o.1 += words[j + 1];
            }
        }
        Ok(out)
    }

    fn counts(&self) -> Result<Vec<u64>> {
        let k = self.desc.k as usize;
        self.l.read_prefix(&self.count, k, "lane counts")
    }

    /// Runs one batch; returns its rounds and lane-edges (`m` per lane per
    /// round that gathered), the states left in the state buffer.
    fn batch(&mut self, sources: &[u32]) -> Result<(u32, u64)> {
        let l = self.l;
        let kk = sources.len();
        self.desc.k = kk as u64;
        let n = self.desc.n;
        let m = self.desc.m;
        let nk = n * kk as u64;
        l.write(&mut self.descs, &self.desc.to_words(), "batch descriptor")?;
        l.write(&mut self.sources, sources, "batch sources")?;
        let mut global = vec![P::REDUCE.identity(); kk];
        l.write(&mut self.global, &global, "lane reductions")?;
        l.clear(&mut self.count, "lane counts")?;
        if P::FRONTIER {
            l.clear(&mut self.masks[0], "frontier lanes")?;
        }
        self.launch(INIT, nk, &[])?;
        let mut live = lane_mask(kk);
        let (mut rounds, mut edges) = (0u32, 0u64);
        let lanes_of = |mask: u64| u64::from(mask.count_ones());
        if !P::FRONTIER {
            for round in 0.. {
                self.launch(EMIT, nk, &[round.into(), live.into()])?;
                self.launch(
                    STEP,
                    nk,
                    &[round.into(), live.into(), 0u64.into(), 0u64.into()],
                )?;
                let t = self.reduce(round, live, false)?;
                rounds = round + 1;
                edges += m * lanes_of(live);
                let ran = live;
                kernels_rs::msbfs::each_lane(ran, |i| {
                    global[i] = t[i].0;
                    if self.r.dense_stop(round, t[i].0, t[i].1).is_some() {
                        live &= !(1 << i);
                    }
                });
                if live == 0 {
                    break;
                }
                l.write(&mut self.global, &global, "lane reductions")?;
            }
            return Ok((rounds, edges));
        }
        let mut count = self.counts()?;
        let mut round = 0u32;
        let mut bound = false;
        loop {
            if round >= self.r.max_rounds {
                bound = true;
                break;
            }
            let dense = (0..kk)
                .filter(|&i| live & (1 << i) != 0 && count[i] == 0)
                .fold(0u64, |d, i| d | 1 << i);
            let front = live & !dense;
            if dense != 0 {
                let t = self.reduce(round, dense, true)?;
                kernels_rs::msbfs::each_lane(dense, |i| global[i] = t[i].0);
                l.write(&mut self.global, &global, "lane reductions")?;
            }
            if front != 0 {
                self.launch(EMIT, nk, &[round.into(), front.into()])?;
            }
            let next = ((round + 1) % 2) as usize;
            l.clear(&mut self.masks[next], "frontier lanes")?;
            l.clear(&mut self.count, "lane counts")?;
            let args = [round.into(), live.into(), front.into(), dense.into()];
            self.launch(STEP, nk, &args)?;
            count = self.counts()?;
            rounds = round + 1;
            edges += m * lanes_of(front);
            kernels_rs::msbfs::each_lane(dense, |i| {
                if count[i] == 0 {
                    live &= !(1 << i); // a dense round that activated nothing
                }
            });
            if live == 0 {
                break;
            }
            round += 1;
        }
        if bound && self.r.safety_bound {
            let report = GatherReport {
                stop: StopReason::MaxRounds,
                ..GatherReport::empty()
            };
            self.r.check_bound::<P>(&report)?;
        }
        Ok((rounds, edges))
    }

    /// The last batch's states, `k` per vertex.
    fn states(&self) -> Result<Vec<P::State>> {
        let len = (self.desc.n * self.desc.k) as usize;
        let size = std::mem::size_of::<P::State>();
        let words = self.l.read_prefix(
            &self.state,
            (len * size).div_ceil(8).min(self.state_buf),
            "batched states",
        )?;
        let bytes = bytemuck::cast_slice::<u64, u8>(&words);
        Ok(super::states_from_bytes::<P>(&bytes[..len * size]))
    }
}

/// Runs `P` from `sources` in batches of at most 64 on any launcher, handing
/// each batch's states to `each`.
#[allow(clippy::too_many_arguments)]
fn batched_on<L: Launcher, P: GatherProgram>(
    l: &L,
    k: [Kernel<'_>; 4],
    block: u32,
    g: &GraphArgs,
    r: Resolved,
    sources: &[u32],
    mut each: impl FnMut(LaneStates<'_, P::State>) -> Result<()>,
) -> Result<BatchedStats> {
    let lanes = sources.len().min(LANES);
    let mut run = Run::<L, P>::new(l, k, block, r, g, lanes)?;
    l.sync("batched gather buffer allocation")?;
    let mut stats = BatchedStats::default();
    for set in sources.chunks(LANES) {
        let start = l.mark()?;
        let (rounds, edges) = run.batch(set)?;
        let end = l.mark()?;
        stats.time_ms += l.elapsed_ms(&start, &end)?;
        stats.batches += 1;
        stats.rounds += u64::from(rounds);
        stats.edges += edges;
        let states = run.states()?;
        each(LaneStates {
            sources: set,
            states: &states,
        })?;
    }
    Ok(stats)
}

/// The checks every batched run makes before it allocates anything; returns
/// the resolved settings.
fn prepare<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    sources: &[u32],
) -> Result<Resolved> {
    let n = g.num_vertices();
    check_batchable::<P>(opts)?;
    check_sources(sources, n)?;
    // Checks the graph carries weights of `P`'s type.
    weights_of::<P, W>(g.csc())?;
    GatherOptions {
        source: Some(sources[0]),
        ..opts.clone()
    }
    .resolve::<P>(n)
}

impl Device {
    /// Loads gather program `P`'s batched kernels (programs that read their
    /// source; `#[vertex_program]` makes no others).
    pub fn load_gather_batched<P: GatherProgram>(&self) -> Result<GatherBatchKernels> {
        let names = kernel_names(P::NAME);
        let (module, f) = self.program_functions::<P, 4>(&names)?;
        Ok(GatherBatchKernels {
            _module: module,
            f,
            names,
        })
    }

    /// `P` from every source in `sources` (64 a batch) over `g`, uploaded with
    /// [`Device::upload_gather`] (with its weights when `P` reads them); `each`
    /// gets each batch's states. `opts` as for a single run, but no `source`.
    pub fn run_gather_batched<P: GatherProgram, W: Weight>(
        &self,
        k: &GatherBatchKernels,
        g: &Graph<W>,
        up: &GatherUpload<W>,
        opts: &GatherOptions,
        sources: &[u32],
        each: impl FnMut(LaneStates<'_, P::State>) -> Result<()>,
    ) -> Result<BatchedStats> {
        if up.graph != g.id() {
            return Err(Error::InvalidArgument(format!(
                "program `{}`: the uploaded gather graph (id {}) is not the graph given (id {})",
                P::NAME,
                up.graph,
                g.id()
            )));
        }
        if P::WEIGHTED && !up.weights {
            return Err(Error::InvalidArgument(format!(
                "program `{}` reads edge weights: upload the graph with its weights",
                P::NAME
            )));
        }
        let r = prepare::<P, W>(g, opts, sources)?;
        let n = g.num_vertices() as u64;
        let lanes = sources.len().min(LANES) as u64;
        self.gpu.check_fits(
            &format!("`{}` batched: states, messages, reductions", P::NAME),
            run_bytes::<P>(n, lanes),
        )?;
        let graph = GraphArgs {
            n,
            m: g.num_edges(),
            ptr: up.ptr,
        };
        let l = DeviceLauncher { gpu: &self.gpu };
        batched_on::<_, P>(&l, kernels::<P>(Some(k)), BLOCK, &graph, r, sources, each)
    }
}

/// [`Device::run_gather_batched`] under the host emulator (at most
/// `max_blocks` simulated blocks a launch, so grid-stride loops run too).
pub fn emulate_batched<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    sources: &[u32],
    max_blocks: u32,
    each: impl FnMut(LaneStates<'_, P::State>) -> Result<()>,
) -> Result<BatchedStats> {
    let r = prepare::<P, W>(g, opts, sources)?;
    let (csr, csc) = (g.csr(), g.csc());
    let in_w = weights_of::<P, W>(csc)?.map_or(0, |w| w.as_ptr() as u64);
    let graph = GraphArgs {
        n: g.num_vertices() as u64,
        m: g.num_edges(),
        ptr: Ptrs {
            out_offsets: csr.offsets().as_ptr() as u64,
            in_offsets: csc.offsets().as_ptr() as u64,
            in_sources: csc.targets().as_ptr() as u64,
            in_weights: in_w,
            ..Ptrs::default()
        },
    };
    let l = HostLauncher::new(max_blocks);
    batched_on::<_, P>(&l, kernels::<P>(None), EMU_BLOCK, &graph, r, sources, each)
}
