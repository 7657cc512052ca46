//! Multi-GPU traversal on the device: one process, one GPU per part, NCCL
//! all-gather of the parts' bitmap (and state) slices after every level, in
//! place (`multi::nccl`).
//!
//! Two loops, as on one GPU ([`crate::gpu::direction`]): host-driven levels
//! (`levels_per_sync` 1: each level's counters are read from every GPU and summed
//! on the host, which picks the direction), and device-planned levels (more per
//! sync: the level counters that decide the direction — next-frontier size and
//! out-degree — are summed over the GPUs by an NCCL all-reduce in the same group
//! as the all-gather, so every GPU's one-thread planner makes the same choice and
//! the host waits once per batch).
//!
//! NVLink multicast (NVLS) stays off (`NCCL_NVLS_ENABLE=0`): on shared machines a
//! program using it can take the host's GPUs out of service. [`MultiGpu::open`]
//! sets it when the environment has not.

use std::time::Instant;

use cudarc::driver::CudaEvent;
use cudarc::nccl;
use kernels_rs::direction::{Heuristic, CTL_CHUNKS, CTL_EDGES, CTL_FRONTIER, CTL_WORDS};

use super::nccl::{Comms, Gather};
use super::partition::{part_graph, Partition};
use super::peer::{enable_peer_access, Barrier, PeerExchange, Route};
use super::timing::{self, LevelTime, Marks, TimeSplit};
use super::{combine_passes, sum_sizes};
use crate::error::{Error, Result};
use crate::gpu::cuda::{DevBuf, Gpu};
use crate::gpu::device::{Device, DeviceGraph};
use crate::gpu::direction::{
    self, initial_size, DirGraph, DirectionExec, DirectionRun, FrontierSize, LevelLog, Pass,
    PlannedExec,
};
use crate::gpu::launcher::DeviceLauncher;
use crate::gpu::program_api::{
    bucket_delta, direction_mode, relax_unit, scan_levels, source_state, GpuProgram,
    ProgramKernels, ProgramOptions,
};
use crate::graph::Graph;
use crate::program::VertexProgram;

// The planned levels' all-reduce sums the first two words of a counter block.
const _: () = assert!(CTL_FRONTIER == 0 && CTL_EDGES == 1);
/// Counter words the planned levels sum over the GPUs (`CTL_FRONTIER`, `CTL_EDGES`).
const SUMMED_WORDS: usize = 2;

/// The GPUs this process drives, with an NCCL communicator over all GPUs of
/// the run: GPUs `0..G` of this machine ([`MultiGpu::open`]), or one GPU as
/// one rank of several processes ([`MultiGpu::join`]).
pub struct MultiGpu {
    pub devices: Vec<Device>,
    pub(super) comms: Comms,
    /// Each device's part of the partition (its rank).
    pub(super) parts_of: Vec<usize>,
    /// Parts over all processes.
    pub(super) world: usize,
    /// The ranks' host link when this process is one rank of several: what
    /// sums the level counters of host-driven levels over the ranks.
    pub(super) host: Option<std::sync::Arc<crate::dist::Comm>>,
    /// The exchange over peer access, when every pair of GPUs has it (one
    /// process driving several GPUs; `None` for a rank).
    pub(super) peer: Option<std::sync::Mutex<PeerExchange>>,
    /// The route exchanges take ([`MultiGpu::set_route`]).
    pub(super) route: Route,
}

/// NVLink multicast off (see the module docs) and NCCL's library present.
pub(super) fn nccl_setup() -> Result<()> {
    if std::env::var("NCCL_NVLS_ENABLE").as_deref() != Ok("0") {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
    }
    // SAFETY: only tries to dlopen libnccl; no NCCL call is made.
    if !unsafe { nccl::sys::is_culib_present() } {
        return Err(Error::GpuUnavailable(
            "libnccl.so.2 not found (put NCCL's lib directory on LD_LIBRARY_PATH)".into(),
        ));
    }
    Ok(())
}

/// A graph partitioned over the GPUs of a [`MultiGpu`] ([`MultiGpu::upload`]).
pub struct MultiGraph {
    pub(super) part: Partition,
    pub(super) graphs: Vec<DeviceGraph>,
    pub(super) degree_offsets: Vec<DevBuf<u64>>,
    /// The whole graph's offsets (initial frontier size on the host).
    pub(super) offsets: Vec<u64>,
    pub(super) m: u64,
    pub(super) weighted: bool,
    /// Whether the graph is symmetric (each part's in-edges are then its
    /// vertices' rows, what the BFS-tree check reads).
    pub(super) symmetric: bool,
    /// Edges each part holds (its out-slice; in-edges of its vertices).
    pub part_edges: Vec<(u64, u64)>,
}

impl MultiGraph {
    pub fn partition(&self) -> &Partition {
        &self.part
    }

    /// The whole graph's CSR offsets (out-degrees), which every part holds.
    pub fn degree_offsets(&self) -> &[u64] {
        &self.offsets
    }
}

/// Result of a multi-GPU run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MultiRun<S> {
    /// The states of this process's vertices, `first..first + states.len()`
    /// (every vertex in one process; a rank's own vertices over ranks).
    #[serde(skip)]
    pub states: Vec<S>,
    /// Their parents, when asked for.
    #[serde(skip)]
    pub parents: Option<Vec<u32>>,
    /// The first vertex of `states`.
    pub first: u64,
    pub gpus: usize,
    pub levels: Vec<LevelLog>,
    /// Host wall time from the first launch to the last level's counters.
    pub time_ms: f64,
    /// Of which the exchanges: per level the longest exchange span of any GPU
    /// (the all-gather plus the wait for the slower GPU), summed.
    pub exchange_ms: f64,
    /// How the exchanges went: NCCL or peer access.
    pub route: Route,
    /// Bytes each GPU received per level (bitmap, plus states if exchanged).
    pub bytes_per_level: u64,
    /// Levels launched per host wait (1: host-driven levels).
    pub levels_per_sync: u32,
    /// Host waits.
    pub syncs: u32,
    /// Per launched level (planned batches may launch a few past the end):
    /// kernel time of the slowest and fastest GPU, the all-gather, the wait,
    /// GPU 0's idle gap before the level ([`LevelTime`]).
    pub level_times: Vec<LevelTime>,
    /// Their sums.
    pub split: TimeSplit,
    /// Wall time not covered by any level on the device: `time_ms −
    /// split.level_ms` (launch latency, counter reads, syncs, the tail).
    pub host_ms: f64,
}

impl MultiGpu {
    /// Opens GPUs `0..gpus` (or the devices `VERTEX_MULTI_DEVICES` names,
    /// [`super::ordinals`]) and an NCCL communicator over them.
    pub fn open(gpus: usize) -> Result<MultiGpu> {
        if gpus == 0 {
            return Err(Error::InvalidArgument("at least one GPU is needed".into()));
        }
        nccl_setup()?;
        let ordinals = super::ordinals::device_ordinals(gpus)?;
        let shared = super::ordinals::shared(&ordinals);
        let devices = ordinals
            .iter()
            .map(|&d| Device::open(d))
            .collect::<Result<Vec<_>>>()?;
        let comms = match shared {
            true => Comms::none(),
            false => Comms::open(&ordinals)?,
        };
        // Peer access where every pair has it (NVLink on these hosts); NCCL
        // otherwise, or when VERTEX_EXCHANGE=nccl asks for it.
        let wanted = Route::from_env()?;
        let barrier = Barrier::from_env()?;
        let peer = match gpus > 1 && enable_peer_access(&devices)? {
            true => Some(std::sync::Mutex::new(PeerExchange::new(&devices, barrier)?)),
            false => None,
        };
        super::ordinals::check_shared(shared, wanted, barrier, peer.is_some())?;
        let route = match peer {
            Some(_) => wanted,
            None => Route::Nccl,
        };
        let m = MultiGpu {
            devices,
            comms,
            parts_of: (0..gpus).collect(),
            world: gpus,
            host: None,
            peer,
            route,
        };
        m.comms.warm_up(&m.devices, m.world)?;
        Ok(m)
    }

    /// An error when this process is one rank of several: a rank uploads its
    /// own part (with `instead`), never a whole graph.
    pub(super) fn whole_graph_only(&self, instead: &str) -> Result<()> {
        match self.host {
            Some(_) => Err(Error::InvalidArgument(format!(
                "a rank uploads its own part ({instead}), not a whole graph"
            ))),
            None => Ok(()),
        }
    }

    /// The route exchanges take: peer access between the GPUs when every pair
    /// has it (the default), else NCCL.
    pub fn route(&self) -> Route {
        self.route
    }

    /// Picks the exchange's route (to compare them): peer access is an error
    /// where it is not available (ranks; GPUs without P2P).
    pub fn set_route(&mut self, route: Route) -> Result<()> {
        super::ordinals::check_shared(
            self.shares_gpus(),
            route,
            self.peer_barrier().unwrap_or(Barrier::Events),
            true,
        )?;
        if route == Route::Peer && self.peer.is_none() {
            return Err(Error::InvalidArgument(
                "no peer access between these GPUs (or one GPU per process): the exchange stays on NCCL"
                    .into(),
            ));
        }
        self.route = route;
        Ok(())
    }

    /// How the peer exchange's launches wait for every GPU's level
    /// ([`Barrier`], `VERTEX_PEER_BARRIER`); `None` without peer access.
    pub fn peer_barrier(&self) -> Option<Barrier> {
        let peer = self.peer.as_ref()?;
        peer.lock().ok().map(|p| p.barrier())
    }

    /// Picks how the peer exchange's launches wait (to compare them); an error
    /// without peer access.
    pub fn set_peer_barrier(&mut self, barrier: Barrier) -> Result<()> {
        super::ordinals::check_shared(self.shares_gpus(), self.route, barrier, true)?;
        let peer = self.peer.as_mut().ok_or_else(|| {
            Error::InvalidArgument(
                "no peer access between these GPUs: no peer barrier to pick".into(),
            )
        })?;
        peer.get_mut()
            .map_err(|_| Error::InvalidArgument("the peer exchange panicked earlier".into()))?
            .set_barrier(barrier);
        Ok(())
    }

    /// Enqueues an exchange ([`Comms::exchange`]) on the route picked: over
    /// peer access when it is on and the slices are whole words, else NCCL.
    /// `double_buffered` as [`PeerExchange::exchange`] takes it.
    pub(super) fn exchange(
        &self,
        gpus: &[&Gpu],
        gathers: &[Vec<Gather>],
        sums: Option<(&[u64], usize)>,
        double_buffered: bool,
    ) -> Result<()> {
        if let (Route::Peer, Some(peer)) = (self.route, &self.peer) {
            let mut peer = peer
                .lock()
                .map_err(|_| Error::InvalidArgument("the peer exchange panicked earlier".into()))?;
            if peer.exchange(gpus, gathers, sums, double_buffered)? {
                return Ok(());
            }
        }
        self.comms.exchange(gpus, gathers, sums)
    }

    /// The ranks' host link, which `what` needs: an error when this process
    /// drives all the GPUs itself (it uploads the whole graph instead).
    pub(super) fn rank_link(&self, what: &str) -> Result<&crate::dist::Comm> {
        self.host.as_deref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{what} is for a rank (MultiGpu::join); one process uploads the whole graph"
            ))
        })
    }

    /// The ranks' host link, when this process is one rank of several.
    pub fn host(&self) -> Option<&crate::dist::Comm> {
        self.host.as_deref()
    }

    /// Partitions `g` over the GPUs and uploads each part (with weights if
    /// `weights`), once for any number of runs.
    pub fn upload<W: crate::graph::Weight>(
        &self,
        g: &Graph<W>,
        weights: bool,
    ) -> Result<MultiGraph> {
        self.whole_graph_only("MultiGpu::upload_rank")?;
        let part = Partition::for_graph(g, self.devices.len())?;
        let mut graphs = Vec::with_capacity(self.devices.len());
        let mut degree_offsets = Vec::with_capacity(self.devices.len());
        let mut part_edges = Vec::with_capacity(self.devices.len());
        for (p, d) in self.devices.iter().enumerate() {
            let pg = part_graph(g, &part, p)?;
            part_edges.push((pg.out.num_edges(), pg.incoming.num_edges()));
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
            symmetric: g.is_symmetric(),
            part_edges,
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
        let part = &mg.part;
        if part.parts != self.world {
            return Err(Error::InvalidArgument(format!(
                "a graph cut into {} parts on a run over {} GPUs",
                part.parts, self.world
            )));
        }
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
        let padded_states = part.padded_states() as usize;
        let mut states = Vec::with_capacity(gpus);
        let mut parents = Vec::with_capacity(gpus);
        for d in &self.devices {
            states.push(d.gpu.alloc::<u8>(padded_states * size, "program state")?);
            parents.push(match opts.parents {
                true => Some(d.gpu.alloc::<u32>(n, "parents")?),
                false => None,
            });
        }
        let mut parts = Vec::with_capacity(gpus);
        for p in 0..gpus {
            let dk = kernels[p].direction::<P>(&self.devices[p]);
            let pptr = parents[p].as_ref().map_or(0, |b| b.ptr);
            let l = DeviceLauncher {
                gpu: &self.devices[p].gpu,
            };
            let mut x = DirectionRun::new(
                l,
                dk,
                DirGraph::of(&graphs[p]),
                opts.max_edge_count
                    .unwrap_or(crate::gpu::direction::DEFAULT_CHUNK),
                opts.block_size,
                states[p].ptr,
                pptr,
                size,
            )?;
            x.pad_bitmaps(padded)?;
            x.degree_offsets = degree_offsets[p].ptr;
            let r = part.range(self.parts_of[p]);
            x.owned = (r.start, r.end);
            x.whole_m = mg.m;
            x.heuristic = opts.heuristic;
            if scan_levels::<P>(opts, pull) {
                x.enable_scan()?;
            }
            parts.push(x);
        }
        for d in &self.devices {
            d.gpu.sync("multi-GPU buffer allocation")?;
        }
        let mut exec = MultiGpuExec {
            parts,
            multi: self,
            host: self.host.as_deref(),
            part,
            offsets: &mg.offsets,
            states: &states,
            exchange_states: uniform.is_none(),
            state_size: size,
            marks: (0..gpus).map(|_| Vec::new()).collect(),
        };
        let t0 = Instant::now();
        let src = P::NEEDS_SOURCE.then_some(source);
        let lps = opts.levels_per_sync;
        let (levels, syncs) = match bucket_delta::<P>(opts) {
            Some(delta) => {
                let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                direction::drive_buckets_levels::<<P as VertexProgram>::State>(
                    &mut exec, n as u64, src, p0, delta, lps,
                )?
            }
            None => direction::drive_levels(
                &mut exec,
                n as u64,
                mg.m,
                src,
                uniform,
                relax_unit::<P>,
                lps,
            )?,
        };
        let time_ms = t0.elapsed().as_secs_f64() * 1e3;
        let exchange_states = exec.exchange_states;
        let marks = std::mem::take(&mut exec.marks);
        drop(exec);
        let level_times = timing::read(&marks)?;
        let exchange_ms = level_times.iter().map(|l| l.allgather_ms + l.wait_ms).sum();
        let split = TimeSplit::of(&level_times);
        // Each of this process's vertices' answer from its owner (the local
        // parts are consecutive).
        let zero = <<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed();
        let first = part.range(self.parts_of[0]).start as usize;
        let end = part.range(self.parts_of[gpus - 1]).end as usize;
        let mut out = vec![zero; end - first];
        let mut out_parents = opts.parents.then(|| vec![0u32; end - first]);
        for (p, d) in self.devices.iter().enumerate() {
            let r = part.range(self.parts_of[p]);
            let (lo, hi) = (r.start as usize, r.end as usize);
            if lo == hi {
                continue;
            }
            // Only the part's own slice: at scale 28 the whole arrays are 1 GB
            // each per GPU.
            d.gpu.download_at(
                &states[p],
                lo * size,
                bytemuck::cast_slice_mut(&mut out[lo - first..hi - first]),
                "program state",
            )?;
            if let (Some(op), Some(pb)) = (out_parents.as_mut(), parents[p].as_ref()) {
                d.gpu
                    .download_at(pb, lo, &mut op[lo - first..hi - first], "parents")?;
            }
        }
        let bytes_per_level = 4 * padded as u64
            + if exchange_states {
                (padded_states * size) as u64
            } else {
                0
            };
        Ok(MultiRun {
            states: out,
            parents: out_parents,
            first: first as u64,
            gpus: self.world,
            levels,
            time_ms,
            exchange_ms,
            route: self.route,
            bytes_per_level,
            levels_per_sync: lps,
            syncs,
            host_ms: (time_ms - split.level_ms).max(0.0),
            level_times,
            split,
        })
    }
}

/// The parts on their GPUs and what the exchange moves.
struct MultiGpuExec<'a, 'd> {
    parts: Vec<DirectionRun<'d, DeviceLauncher<'d>>>,
    /// Whose exchange route the levels take.
    multi: &'a MultiGpu,
    /// Over ranks: what sums the host-driven levels' counters.
    host: Option<&'a crate::dist::Comm>,
    part: &'a Partition,
    offsets: &'a [u64],
    states: &'a [DevBuf<u8>],
    exchange_states: bool,
    state_size: usize,
    /// Per GPU, per launched level: the timing events ([`timing`]).
    marks: Vec<Vec<Marks>>,
}

/// One GPU's level: the events before and after its kernels.
type Span = (CudaEvent, CudaEvent);

impl MultiGpuExec<'_, '_> {
    /// Records each GPU's level-start event (before its level is launched).
    fn starts(&self) -> Result<Vec<CudaEvent>> {
        self.parts.iter().map(|x| x.gpu().record()).collect()
    }

    /// Each GPU's level span from `starts` to an event recorded now, after its
    /// kernels.
    fn spans(&self, starts: Vec<CudaEvent>) -> Result<Vec<Span>> {
        starts
            .into_iter()
            .zip(&self.parts)
            .map(|(a, x)| Ok((a, x.gpu().record()?)))
            .collect()
    }

    /// The spans the parts recorded around the planned level or pass they
    /// just enqueued (no events of our own: a level's host calls are what
    /// bounds small searches over several GPUs).
    fn planned_spans(&mut self) -> Result<Vec<Span>> {
        self.parts
            .iter_mut()
            .map(|x| {
                x.levels.pop().ok_or_else(|| {
                    Error::InvalidArgument("a planned level without its marks".into())
                })
            })
            .collect()
    }

    /// All-gathers, in place, every part's slice of the bitmap its level just
    /// wrote (`current`: the current one, else the next) and of the states when
    /// the frontier is not uniform; with `sum_slot`, sums the planned level's
    /// frontier counters over the GPUs. One NCCL group or peer exchange;
    /// events around it. `swapped`: the level swaps its bitmaps (levels do,
    /// near-far passes do not).
    fn exchange(
        &mut self,
        spans: Vec<Span>,
        current: bool,
        sum_slot: Option<u32>,
        swapped: bool,
    ) -> Result<()> {
        let gpus: Vec<&Gpu> = self.parts.iter().map(|x| x.gpu()).collect();
        let size = self.state_size;
        let part = self.part;
        let gathers: Vec<Vec<Gather>> = self
            .parts
            .iter()
            .zip(self.states)
            .map(|(x, st)| {
                // Device buffers are padded: the slices stand whole.
                let mut g = vec![Gather::bitmap(
                    part,
                    x.bitmap_ptr(current),
                    part.padded_words(),
                )];
                if self.exchange_states {
                    g.push(Gather::states(part, st.ptr, part.padded_states(), size));
                }
                g
            })
            .collect();
        let sums = match sum_slot {
            Some(slot) => Some(
                self.parts
                    .iter()
                    .map(|x| {
                        x.batch_block(slot).ok_or_else(|| {
                            Error::InvalidArgument("a planned level outside a batch".into())
                        })
                    })
                    .collect::<Result<Vec<u64>>>()?,
            ),
            None => None,
        };
        // A level's bitmap is double-buffered (the next level writes the other
        // one); states and the passes' pending set are not.
        self.multi.exchange(
            &gpus,
            &gathers,
            sums.as_deref().map(|s| (s, SUMMED_WORDS)),
            swapped && !self.exchange_states,
        )?;
        for (p, (a, b)) in spans.into_iter().enumerate() {
            let c = gpus[p].record()?;
            self.marks[p].push(Marks { a, b, c });
        }
        Ok(())
    }

    /// This process's summed counters, summed over the ranks too when there
    /// are ranks (one host all-gather: host-driven levels only; planned
    /// levels sum on the GPUs).
    fn total(&self, mine: FrontierSize) -> Result<FrontierSize> {
        let Some(host) = self.host else {
            return Ok(mine);
        };
        let all = host.all_gather_array([mine.vertices, mine.edges])?;
        Ok(all
            .iter()
            .fold(FrontierSize::default(), |a, [v, e]| FrontierSize {
                vertices: a.vertices + v,
                edges: a.edges + e,
            }))
    }

    /// Waits for every part's level and reads its counters.
    fn finish(&mut self, marks: Vec<CudaEvent>, swap: bool) -> Result<Vec<[u64; CTL_WORDS]>> {
        self.parts
            .iter_mut()
            .zip(marks)
            .map(|(x, a)| x.finish_level(a, swap))
            .collect()
    }
}

impl<S: bytemuck::Pod> DirectionExec<S> for MultiGpuExec<'_, '_> {
    fn heuristic(&self) -> Heuristic {
        // Every part was given the run's.
        self.parts[0].heuristic
    }

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
        let starts = self.starts()?;
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_top_down(iter, frontier, c))
            .collect::<Result<Vec<_>>>()?;
        let spans = self.spans(starts)?;
        self.exchange(spans, false, None, true)?;
        let sizes = self.finish(marks, true)?;
        self.total(sum_sizes(
            &sizes
                .iter()
                .map(|c| FrontierSize::from_ctl(c))
                .collect::<Vec<_>>(),
        ))
    }

    fn bottom_up(&mut self, _iter: u32, candidate: S) -> Result<FrontierSize> {
        let c = bytemuck::bytes_of(&candidate);
        let starts = self.starts()?;
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_bottom_up(c))
            .collect::<Result<Vec<_>>>()?;
        let spans = self.spans(starts)?;
        self.exchange(spans, false, None, true)?;
        let sizes = self.finish(marks, true)?;
        self.total(sum_sizes(
            &sizes
                .iter()
                .map(|c| FrontierSize::from_ctl(c))
                .collect::<Vec<_>>(),
        ))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let starts = self.starts()?;
        let marks = self
            .parts
            .iter_mut()
            .map(|x| x.launch_near_far(iter, limit))
            .collect::<Result<Vec<_>>>()?;
        let spans = self.spans(starts)?;
        self.exchange(spans, true, None, false)?;
        let ctls = self.finish(marks, false)?;
        let pass = combine_passes(&ctls.iter().map(|c| Pass::from_ctl(c)).collect::<Vec<_>>())?;
        match self.host {
            None => Ok(pass),
            Some(host) => {
                let mine = [
                    pass.selected,
                    pass.inserted,
                    pass.min_pending.unwrap_or(u64::MAX),
                ];
                let passes: Vec<Pass> = host
                    .all_gather_array(mine)?
                    .into_iter()
                    .map(|[selected, inserted, min]| Pass {
                        selected,
                        inserted,
                        min_pending: (min != u64::MAX).then_some(min),
                    })
                    .collect();
                combine_passes(&passes)
            }
        }
    }
}

impl<S: bytemuck::Pod> PlannedExec<S> for MultiGpuExec<'_, '_> {
    fn begin_batch(&mut self, candidates: &[Option<S>]) -> Result<()> {
        for x in &mut self.parts {
            PlannedExec::<S>::begin_batch(x, candidates)?;
        }
        Ok(())
    }

    fn enqueue_level(
        &mut self,
        iter: u32,
        slot: u32,
        level: u32,
        first: FrontierSize,
    ) -> Result<()> {
        for x in &mut self.parts {
            PlannedExec::<S>::enqueue_level(x, iter, slot, level, first)?;
        }
        let spans = self.planned_spans()?;
        // The level swapped its bitmaps: the one it wrote is now current.
        self.exchange(spans, true, Some(slot), true)
    }

    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()> {
        for x in &mut self.parts {
            PlannedExec::<S>::enqueue_pass(x, iter, slot, first_pending, first_limit, delta)?;
        }
        let spans = self.planned_spans()?;
        self.exchange(spans, true, Some(slot), false)
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        let mut first: Option<Vec<[u64; CTL_WORDS]>> = None;
        for (p, x) in self.parts.iter_mut().enumerate() {
            let blocks = PlannedExec::<S>::finish_batch(x)?;
            match &first {
                None => first = Some(blocks),
                Some(f) => check_same_plan(f, &blocks, p)?,
            }
        }
        Ok(first.unwrap_or_default())
    }
}

/// Every GPU must have planned the same levels from the summed counters: the
/// blocks agree in every word but the part's own work-list length.
pub(super) fn check_same_plan(
    first: &[[u64; CTL_WORDS]],
    other: &[[u64; CTL_WORDS]],
    part: usize,
) -> Result<()> {
    let same = |a: &[u64; CTL_WORDS], b: &[u64; CTL_WORDS]| {
        (0..CTL_WORDS).all(|i| i == CTL_CHUNKS || a[i] == b[i])
    };
    if first.len() != other.len() || first.iter().zip(other).any(|(a, b)| !same(a, b)) {
        return Err(Error::InvalidGraph(format!(
            "GPU {part} planned different levels than GPU 0: {other:?} vs {first:?}"
        )));
    }
    Ok(())
}
