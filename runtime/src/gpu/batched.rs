//! Any push program from many sources at once on the GPU
//! ([`kernels_rs::batched`]): batches of up to 64 sources, each edge read once
//! for every lane live at its source vertex. [`emulate_batched`] runs the same
//! kernel bodies on the host, which is how CI checks them.
//!
//! The host's part per batch: write the sources and the first frontier (one
//! entry per distinct source vertex, its lanes the sources starting there, so
//! repeated sources work), launch rounds a window at a time (1, 2, 4 … 32 rounds
//! between reads of the control words: a road network's thousands of rounds cost
//! one round trip per 32), then hand the `n × lanes` states to the caller.
//! Buffers are made once for all batches.

use kernels_rs::batched::{self as k, PushBatchDesc, CTL_COUNT, CTL_EDGES, CTL_ROUNDS, CTL_WORDS};
use kernels_rs::msbfs::LANES;
use kernels_rs::ThreadCtx;

use super::device::{Device, DeviceGraph};
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
use super::program_api::{host_weights, GpuProgram, ProgramKernels};
use crate::cpu::msbfs::{check_sources, first_level};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::program::{Combine, VertexProgram};

/// Threads per block.
const BLOCK: u32 = 256;
/// Threads per emulated block.
const EMU_BLOCK: u32 = 64;
/// Rounds launched between two reads of the control words, at most.
pub const MAX_WINDOW: u32 = 32;
/// Edges per work item.
const CHUNK: u64 = 64;

/// One batch's result: `states[v · sources.len() + i]` is source `sources[i]`'s
/// state at vertex `v` (vertex-major, as the kernels keep it).
#[derive(Clone, Copy, Debug)]
pub struct LaneStates<'a, S> {
    pub sources: &'a [u32],
    pub states: &'a [S],
}

impl<S: Copy> LaneStates<'_, S> {
    /// Lanes (sources) of the batch.
    pub fn lanes(&self) -> usize {
        self.sources.len()
    }
    /// Source `lane`'s state at `v`.
    pub fn get(&self, v: usize, lane: usize) -> S {
        self.states[v * self.lanes() + lane]
    }
    /// Source `lane`'s states, one per vertex.
    pub fn column(&self, lane: usize) -> Vec<S> {
        let k = self.lanes();
        self.states.iter().skip(lane).step_by(k).copied().collect()
    }
}

/// What a batched run did, over all batches.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct BatchedStats {
    pub batches: u64,
    /// Rounds with a non-empty frontier, summed over the batches.
    pub rounds: u64,
    /// Lane-edge relaxations (an edge read once serves every live lane; each counts).
    pub edges: u64,
    /// First kernel to last (CUDA events), or host time when emulated.
    pub time_ms: f64,
}

/// Whether `P` can run batched, or why not: every lane needs its own source,
/// and rounds in which a vertex may improve more than once need a combine that
/// forgives a repeated delivery (a `sum` would count it twice).
pub fn check_batchable<P: VertexProgram>() -> Result<()> {
    if !P::NEEDS_SOURCE {
        return Err(Error::InvalidArgument(format!(
            "program `{}` starts from every vertex: batched runs are for programs that start from a source",
            P::NAME
        )));
    }
    if P::COMBINE == Combine::Sum || !P::IDEMPOTENT {
        return Err(Error::InvalidArgument(format!(
            "program `{}` combines with a non-idempotent reduction: batched runs need min, max, or, and, or an idempotent custom combine",
            P::NAME
        )));
    }
    Ok(())
}

/// A batch still changing after more rounds than vertices: with an idempotent,
/// monotone combine that only happens when values improve for ever (a negative
/// cycle in a min-plus program), so it stops with an error instead of looping.
pub fn no_convergence<P: VertexProgram>(n: u64) -> Error {
    Error::InvalidArgument(format!(
        "program `{}`: a batch was still changing after {n} rounds (more than the graph has vertices): \
         its values improve without end (a negative cycle?)",
        P::NAME
    ))
}

// Each body reads the argument list `Batches` builds for its kernel (the PTX
// parameter lists of `kernels_rs::batched_kernels!`): the contract their SAFETY
// comments refer to.

/// `(descs, groups)`.
unsafe fn init_body<P: GpuProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::init_group::<P>(t, a[0].ptr(), a[1].u32()) }
}
/// `(descs, groups, round)`.
unsafe fn chunks_body<P: GpuProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::chunks_group::<P>(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}
/// `(descs, groups, round)`.
unsafe fn expand_body<P: GpuProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::expand_group::<P>(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}
/// `(descs, groups, round)`.
unsafe fn settle_body<P: GpuProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { k::settle_group::<P>(t, a[0].ptr(), a[1].u32(), a[2].u32()) }
}

const INIT: usize = 0;
const CHUNKS: usize = 1;
const EXPAND: usize = 2;
const SETTLE: usize = 3;

/// `P`'s four kernels, with the device's functions where loaded.
fn kernels<P: GpuProgram>(device: Option<&ProgramKernels>) -> [Kernel<'_>; 4] {
    const NAMES: [&str; 4] = ["batch_init", "batch_chunks", "batch_expand", "batch_settle"];
    let hosts: [super::launcher::HostBody; 4] = [
        init_body::<P>,
        chunks_body::<P>,
        expand_body::<P>,
        settle_body::<P>,
    ];
    std::array::from_fn(|i| Kernel {
        name: device.map_or(NAMES[i], |d| d.names[11 + i].as_str()),
        device: device.map(|d| &d.batch[i]),
        host: hosts[i],
    })
}

/// One batch's buffers over one graph, made once and reused.
struct Batch<L: Launcher> {
    desc: PushBatchDesc,
    /// `n × lanes` states, as words (a state is at most one word).
    state: L::Buf<u64>,
    sources: L::Buf<u32>,
    lists: [(L::Buf<u32>, L::Buf<u64>); 2],
    ctl: L::Buf<u64>,
    _next: L::Buf<u64>,
    _items: L::Buf<u64>,
}

impl<L: Launcher> Batch<L> {
    /// Buffers for a batch of up to `lanes` sources over `graph`
    /// (`(n, m, offsets, targets, weights)`, addresses) with `state_bytes`
    /// bytes a state.
    fn new(l: &L, graph: [u64; 5], lanes: usize, state_bytes: usize) -> Result<Self> {
        let [n, m, offsets, targets, weights] = graph;
        let nu = n as usize;
        let items_cap = nu + (m / CHUNK) as usize + 1;
        let state = l.zeros::<u64>(
            (nu * lanes * state_bytes).div_ceil(8).max(1),
            "batched states (n × sources)",
        )?;
        let sources = l.zeros::<u32>(LANES as usize, "batch sources")?;
        let list = || -> Result<(L::Buf<u32>, L::Buf<u64>)> {
            Ok((
                l.zeros::<u32>(nu.max(1), "frontier vertices")?,
                l.zeros::<u64>(nu.max(1), "frontier lanes")?,
            ))
        };
        let lists = [list()?, list()?];
        let next = l.zeros::<u64>(nu.max(1), "changed lanes")?;
        let items = l.zeros::<u64>(items_cap, "edge chunks")?;
        let ctl = l.zeros::<u64>(CTL_WORDS, "batch control")?;
        let desc = PushBatchDesc {
            n,
            m,
            offsets,
            targets,
            weights,
            state: L::addr(&state),
            lanes: lanes as u64,
            sources: L::addr(&sources),
            vertices0: L::addr(&lists[0].0),
            masks0: L::addr(&lists[0].1),
            vertices1: L::addr(&lists[1].0),
            masks1: L::addr(&lists[1].1),
            next: L::addr(&next),
            items: L::addr(&items),
            items_cap: items_cap as u64,
            ctl: L::addr(&ctl),
            chunk: CHUNK,
        };
        Ok(Batch {
            desc,
            state,
            sources,
            lists,
            ctl,
            _next: next,
            _items: items,
        })
    }

    /// Writes the sources and the first frontier (one entry per distinct
    /// source vertex); no launch.
    fn prepare(&mut self, l: &L, sources: &[u32]) -> Result<()> {
        let first = first_level(sources, self.desc.n as usize)?;
        self.desc.lanes = sources.len() as u64;
        l.write(&mut self.sources, sources, "batch sources")?;
        l.clear(&mut self.ctl, "batch control")?;
        let vertices: Vec<u32> = first.iter().map(|e| e.0).collect();
        let lanes: Vec<u64> = first.iter().map(|e| e.1).collect();
        l.write(&mut self.lists[0].0, &vertices, "first frontier")?;
        l.write(&mut self.lists[0].1, &lanes, "first frontier")?;
        l.write_at(
            &mut self.ctl,
            CTL_COUNT,
            &[first.len() as u64],
            "batch control",
        )
    }
}

/// Batches run together: each launch serves a round of every batch in the
/// group (descriptors one after another in `descs`), so the rounds of a
/// high-diameter graph cost one launch each for the whole group.
struct Batches<'a, L: Launcher, P: GpuProgram> {
    l: &'a L,
    k: [Kernel<'a>; 4],
    block: u32,
    group: Vec<Batch<L>>,
    descs: L::Buf<u64>,
    stats: BatchedStats,
    _p: std::marker::PhantomData<P>,
}

/// Batches a group launch serves at most.
pub const MAX_GROUP: usize = 32;
/// Device memory a group's buffers may take.
const GROUP_BUDGET: u64 = 8 << 30;

impl<'a, L: Launcher, P: GpuProgram> Batches<'a, L, P> {
    /// Buffers for `size` batches of up to `lanes` sources over `graph`.
    fn new(
        l: &'a L,
        k: [Kernel<'a>; 4],
        block: u32,
        graph: [u64; 5],
        lanes: usize,
        size: usize,
    ) -> Result<Self> {
        let bytes = std::mem::size_of::<<P as VertexProgram>::State>();
        let group = (0..size)
            .map(|_| Batch::new(l, graph, lanes, bytes))
            .collect::<Result<Vec<_>>>()?;
        let descs = l.zeros::<u64>(size * PushBatchDesc::WORDS, "group descriptors")?;
        Ok(Batches {
            l,
            k,
            block,
            group,
            descs,
            stats: BatchedStats::default(),
            _p: std::marker::PhantomData,
        })
    }

    fn launch(&self, i: usize, grid: Grid, groups: usize, extra: &[Arg]) -> Result<()> {
        let mut args = vec![Arg::U64(L::addr(&self.descs)), (groups as u32).into()];
        args.extend_from_slice(extra);
        // SAFETY: every batched kernel takes the descriptor array and its
        // length, then the round (`extra`); each descriptor names live buffers
        // of its batch with the lengths it records.
        unsafe { self.l.launch(&self.k[i], grid, self.block, &args) }
    }

    /// Runs the batches `sets` (at most the group's size) together; their
    /// states are then in the group's buffers.
    fn run(&mut self, sets: &[&[u32]]) -> Result<()> {
        let l = self.l;
        let count = sets.len();
        let n = self.group[0].desc.n;
        let mut words = Vec::with_capacity(count * PushBatchDesc::WORDS);
        for (b, s) in self.group.iter_mut().zip(sets) {
            b.prepare(l, s)?;
            words.extend_from_slice(&b.desc.to_words());
        }
        l.write(&mut self.descs, &words, "group descriptors")?;
        let total = n * LANES as u64;
        self.launch(INIT, Grid::Cover(total.max(1)), count, &[])?;
        let all = Grid::Resident(n.max(1));
        let mut round = 0u32;
        let mut window = 1u32;
        loop {
            for _ in 0..window {
                let r = [round.into()];
                self.launch(CHUNKS, all, count, &r)?;
                self.launch(EXPAND, all, count, &r)?;
                self.launch(SETTLE, all, count, &r)?;
                round += 1;
            }
            let mut ctls = Vec::with_capacity(count);
            for b in &self.group[..count] {
                ctls.push(l.read(&b.ctl, "batch control")?);
            }
            if ctls
                .iter()
                .all(|c| c[CTL_COUNT + (round % 2) as usize] == 0)
            {
                for c in &ctls {
                    self.stats.rounds += c[CTL_ROUNDS];
                    self.stats.edges += c[CTL_EDGES];
                    self.stats.batches += 1;
                }
                return Ok(());
            }
            if u64::from(round) > n + u64::from(MAX_WINDOW) {
                return Err(no_convergence::<P>(n));
            }
            window = (window * 2).min(MAX_WINDOW);
        }
    }

    /// Batch `i`'s states, `lanes` per vertex.
    fn states(&self, i: usize, lanes: usize) -> Result<Vec<<P as VertexProgram>::State>> {
        let len = self.group[i].desc.n as usize * lanes;
        let bytes = len * std::mem::size_of::<<P as VertexProgram>::State>();
        let words =
            self.l
                .read_prefix(&self.group[i].state, bytes.div_ceil(8), "batched states")?;
        let states: &[<P as VertexProgram>::State] = bytemuck::cast_slice(&words);
        Ok(states[..len].to_vec())
    }
}

/// Runs `P` from `sources` in batches of at most 64, run in groups as large as
/// memory allows, on any launcher, handing each batch's states to `each`.
fn batched_on<L: Launcher, P: GpuProgram>(
    l: &L,
    k: [Kernel<'_>; 4],
    block: u32,
    graph: [u64; 5],
    sources: &[u32],
    mut each: impl FnMut(LaneStates<'_, <P as VertexProgram>::State>) -> Result<()>,
) -> Result<BatchedStats> {
    check_batchable::<P>()?;
    check_sources(sources, graph[0] as usize)?;
    let lanes = sources.len().min(LANES as usize);
    let sets: Vec<&[u32]> = sources.chunks(LANES as usize).collect();
    let (n, m) = (graph[0], graph[1]);
    let state = std::mem::size_of::<<P as VertexProgram>::State>() as u64;
    let per_batch = n * (lanes as u64 * state + 8 * 3 + 8) + (n + m / CHUNK) * 8;
    let fit = (GROUP_BUDGET / per_batch.max(1)).max(1) as usize;
    let size = sets.len().min(MAX_GROUP).min(fit);
    let mut b = Batches::<L, P>::new(l, k, block, graph, lanes, size)?;
    let mut kernel_ms = 0.0;
    for chunk in sets.chunks(size) {
        let start = l.mark()?;
        b.run(chunk)?;
        let end = l.mark()?;
        kernel_ms += l.elapsed_ms(&start, &end)?;
        for (i, set) in chunk.iter().enumerate() {
            let states = b.states(i, set.len())?;
            each(LaneStates {
                sources: set,
                states: &states,
            })?;
        }
    }
    b.stats.time_ms = kernel_ms;
    Ok(b.stats)
}

/// The weights `P` reads, or a clear error when it needs them and the graph
/// has none.
pub(crate) fn check_weights<P: VertexProgram>(has_weights: bool) -> Result<()> {
    if P::WEIGHTED && !has_weights {
        return Err(crate::program::weights_missing(P::NAME));
    }
    Ok(())
}

impl Device {
    /// `P` from every source in `sources` (64 a batch) over `g` (uploaded with
    /// its weights when `P` reads them); `each` gets each batch's states.
    pub fn run_batched<P: GpuProgram>(
        &self,
        k: &ProgramKernels,
        g: &DeviceGraph,
        sources: &[u32],
        each: impl FnMut(LaneStates<'_, <P as VertexProgram>::State>) -> Result<()>,
    ) -> Result<BatchedStats> {
        let graph = g.program_args().map(Arg::u64);
        check_weights::<P>(graph[4] != 0)?;
        let l = DeviceLauncher { gpu: &self.gpu };
        batched_on::<_, P>(&l, kernels::<P>(Some(k)), BLOCK, graph, sources, each)
    }
}

/// [`Device::run_batched`] under the host emulator.
pub fn emulate_batched<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    sources: &[u32],
    each: impl FnMut(LaneStates<'_, <P as VertexProgram>::State>) -> Result<()>,
) -> Result<BatchedStats> {
    let c = g.csr();
    check_weights::<P>(c.weights().is_some())?;
    let graph = [
        c.num_vertices() as u64,
        c.num_edges(),
        c.offsets().as_ptr() as u64,
        c.targets().as_ptr() as u64,
        host_weights::<P>(c) as u64,
    ];
    let l = HostLauncher::new(8);
    batched_on::<_, P>(&l, kernels::<P>(None), EMU_BLOCK, graph, sources, each)
}
