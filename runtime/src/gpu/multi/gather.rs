//! Gather/apply programs (PageRank, k-core, …) over several GPUs, on the same
//! 1-D partition as the traversals: part `p` keeps the states of its vertices
//! and the in-edges of those vertices (every source), and each round runs the
//! one-GPU kernels (`kernels_rs::gather`) on its own vertices only:
//!
//! 1. `emit` writes the messages of its vertices, and the parts' message slices
//!    are all-gathered (NCCL, in place) — the one exchange a dense round needs,
//!    `n · size_of(Msg)` bytes received per GPU (PageRank: 4 bytes a vertex);
//! 2. `pull` reduces over its vertices' in-edges, reading any source's message;
//! 3. `apply` updates its vertices (fused with the next round's `emit` when
//!    `emit` reads no global, the exchange then following the apply); for
//!    frontier-driven programs the next frontier's bitmap slices are
//!    all-gathered too, since the next pull reads the frontier bit of any source;
//! 4. the round's tallies (the global reduction, changed and activated counts)
//!    are read from every part and combined on the host, so the stopping rule and
//!    `Ctx::global` are the one-GPU run's.
//!
//! Rounds always pull: a push walks a frontier vertex's out-edges, which are
//! spread over the parts, and `Ctx::out_degree` needs the whole graph's
//! offsets where a part's out-slice would sit. So each part passes the whole
//! graph's out-offsets (degrees only, no targets) and its in-edges. Level sweeps
//! (Brandes's backward phase) are not run over parts.
//!
//! [`emulate_gather`] runs the same executor over parts emulated on the host
//! (the exchange is a copy between the parts' arrays): what CI checks.

use std::ops::Range;

use cudarc::nccl::sys::ncclDataType_t;
use kernels_rs::gather::{ReduceKind, Tally};
use rayon::prelude::*;

use super::device::MultiGpu;
use super::nccl::Gather;
use super::partition::Partition;
use crate::dist::{Comm, RankGraph};
use crate::error::{Error, Result};
use crate::gather::{
    check_initial, weights_of, Direction, GatherOptions, GatherProgram, GatherReport, Resolved,
    Sweep,
};
use crate::gpu::cuda::DevBuf;
use crate::gpu::gather::run::{host_kernels, GatherRun, Kernel, RunGraph};
use crate::gpu::gather::{
    chunk_owners, drive, GatherExec, GatherGpuOptions, GatherKernels, GpuGatherRun, Mode, Ptrs,
};
use crate::gpu::launcher::{DeviceLauncher, HostLauncher, Launcher};
use crate::graph::{Csr, Graph, Weight};

/// CSR offsets over all `n` vertices for the rows of the vertices `own`
/// alone (every other row empty), vertex ids staying global: `row(v)` is
/// where row `v` starts among `own`'s entries, for `v` in `own.start..=own.end`
/// (`row(own.start) = 0`).
pub(super) fn spread_rows(
    n: usize,
    own: Range<usize>,
    row: impl Fn(usize) -> u64 + Sync,
) -> Vec<u64> {
    let total = row(own.end);
    (0..=n)
        .into_par_iter()
        .map(|v| match v {
            v if v <= own.start => 0,
            v if v >= own.end => total,
            v => row(v),
        })
        .collect()
}

/// The in-edges of a part's vertices `own`: rows of `t` (the graph's CSC)
/// for `own`, empty rows for every other vertex ([`spread_rows`]). Returns
/// the offsets (`n + 1`), sources and weights (if any).
fn own_rows<'g, W: Weight>(
    t: &'g Csr<W>,
    own: &Range<u64>,
) -> (Vec<u64>, &'g [u32], Option<&'g [W]>) {
    let o = t.offsets();
    let (lo, hi) = (o[own.start as usize], o[own.end as usize]);
    let offsets = spread_rows(
        t.num_vertices(),
        own.start as usize..own.end as usize,
        |v| o[v] - lo,
    );
    let edges = lo as usize..hi as usize;
    let weights = t.weights().map(|w| &w[edges.clone()]);
    (offsets, &t.targets()[edges], weights)
}

/// How the parts' slices of an exchanged array reach every part.
pub(crate) trait Exchange {
    /// Every part `q`'s slice `slices[q]` (`(first, count)` in `elem`-byte
    /// elements) of the array at `bufs[i]` (local part `i`'s copy) is copied
    /// into every other part's copy, at the same place.
    fn exchange(&mut self, bufs: &[u64], slices: &[(u64, u64)], elem: usize) -> Result<()>;
}

/// The host emulator's exchange: the parts' arrays are host memory.
struct HostCopy;

impl Exchange for HostCopy {
    fn exchange(&mut self, bufs: &[u64], slices: &[(u64, u64)], elem: usize) -> Result<()> {
        for (q, &(first, count)) in slices.iter().enumerate() {
            let (at, len) = ((first as usize) * elem, (count as usize) * elem);
            for (i, &to) in bufs.iter().enumerate() {
                if i != q && len > 0 {
                    // SAFETY: `bufs` are the parts' host arrays of the same
                    // length, each holding every part's slice (sized by
                    // `RunGraph::pad_to`); no launch runs during an exchange, and
                    // distinct parts' arrays are distinct allocations, so the
                    // two ranges do not overlap.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            (bufs[q] as *const u8).add(at),
                            (to as *mut u8).add(at),
                            len,
                        )
                    }
                }
            }
        }
        Ok(())
    }
}

/// The device exchange: NCCL's in-place all-gather (equal slices) or one
/// broadcast per part, on each GPU's stream after its kernels.
struct Nccl<'a> {
    multi: &'a MultiGpu,
    equal: bool,
}

impl Exchange for Nccl<'_> {
    fn exchange(&mut self, bufs: &[u64], slices: &[(u64, u64)], elem: usize) -> Result<()> {
        let (dtype, scale) = match elem {
            4 => (ncclDataType_t::ncclUint32, 1),
            e => (ncclDataType_t::ncclUint8, e as u64),
        };
        let gathers: Vec<Vec<Gather>> = bufs
            .iter()
            .map(|&buf| {
                vec![Gather {
                    buf,
                    slices: slices
                        .iter()
                        .map(|&(f, c)| (f * scale, c * scale))
                        .collect(),
                    equal: self.equal,
                    elem: dtype,
                    elem_size: if elem == 4 { 4 } else { 1 },
                    mask: None,
                }]
            })
            .collect();
        let gpus: Vec<_> = self.multi.devices.iter().map(|d| &d.gpu).collect();
        self.multi.exchange(&gpus, &gathers, None, false)
    }
}

/// One run over the local parts: [`GatherExec`] for the round loops, each
/// step launched on every part before any part is waited for.
struct Parts<'a, L: Launcher, X: Exchange> {
    parts: Vec<GatherRun<'a, L>>,
    x: X,
    /// The ranks' host link when this process is one rank of several: the
    /// tallies are combined over the ranks through it.
    host: Option<&'a Comm>,
    kind: ReduceKind,
    /// Every part's vertices `(first, count)` in the exchanged arrays.
    vertex_slices: Vec<(u64, u64)>,
    /// Every part's bitmap words.
    word_slices: Vec<(u64, u64)>,
    msg_size: usize,
}

impl<L: Launcher, X: Exchange> Parts<'_, L, X> {
    fn exchange_msgs(&mut self) -> Result<()> {
        let bufs: Vec<u64> = self.parts.iter().map(|p| p.msg_addr()).collect();
        self.x.exchange(&bufs, &self.vertex_slices, self.msg_size)
    }

    fn exchange_next(&mut self) -> Result<()> {
        let bufs: Option<Vec<u64>> = self.parts.iter().map(|p| p.next_addr()).collect();
        match bufs {
            Some(b) => self.x.exchange(&b, &self.word_slices, 4),
            None => Ok(()),
        }
    }

    /// Every part's tally, combined (over the ranks too, in rank order, so
    /// that every rank takes the same decision on the same bits).
    fn tally(&self) -> Result<Tally> {
        let local = self
            .parts
            .iter()
            .map(|p| p.read_tally())
            .collect::<Result<Vec<_>>>()?;
        let all = match self.host {
            None => local,
            Some(c) => {
                let mine = combine(self.kind, &local);
                c.all_gather_array([
                    mine.reduced.to_bits(),
                    u64::from(mine.changed),
                    u64::from(mine.activated),
                    mine.activated_edges,
                ])?
                .into_iter()
                .map(|[r, c, a, e]| Tally {
                    reduced: f64::from_bits(r),
                    changed: c as u32,
                    activated: a as u32,
                    activated_edges: e,
                })
                .collect()
            }
        };
        Ok(combine(self.kind, &all))
    }
}

/// Tallies combined: the reduction by `kind`, the counts summed.
fn combine(kind: ReduceKind, tallies: &[Tally]) -> Tally {
    tallies.iter().fold(
        Tally {
            reduced: kind.identity(),
            ..Tally::default()
        },
        |t, x| Tally {
            reduced: kind.combine(t.reduced, x.reduced),
            changed: t.changed + x.changed,
            activated: t.activated + x.activated,
            activated_edges: t.activated_edges + x.activated_edges,
        },
    )
}

fn no_sweep() -> Error {
    Error::InvalidArgument(
        "level sweeps (`level`) are not run over several GPUs: run the program on one".into(),
    )
}

impl<L: Launcher, X: Exchange> GatherExec for Parts<'_, L, X> {
    fn init(&mut self) -> Result<Tally> {
        for p in &mut self.parts {
            p.start_init()?;
        }
        self.exchange_next()?;
        self.tally()
    }
    fn emit(&mut self, m: Mode) -> Result<()> {
        for p in &mut self.parts {
            p.emit(m)?;
        }
        self.exchange_msgs()
    }
    fn gather(&mut self, push: bool, m: Mode) -> Result<()> {
        if push {
            return Err(Error::InvalidArgument(
                "a push round over several GPUs (parts hold in-edges only)".into(),
            ));
        }
        for p in &mut self.parts {
            p.gather(false, m)?;
        }
        Ok(())
    }
    fn apply(&mut self, all: bool, emit: bool, m: Mode) -> Result<Tally> {
        for p in &mut self.parts {
            p.start_apply(all, emit, m)?;
        }
        if emit {
            self.exchange_msgs()?;
        }
        self.exchange_next()?;
        self.tally()
    }
    fn refresh(&mut self, m: Mode) -> Result<f64> {
        for p in &mut self.parts {
            p.start_refresh(m)?;
        }
        Ok(self.tally()?.reduced)
    }
    fn advance(&mut self) -> Result<()> {
        self.parts.iter_mut().try_for_each(|p| p.advance())
    }
    fn end_round(&mut self) -> Result<()> {
        self.parts.iter_mut().try_for_each(|p| p.end_round())
    }
    fn load_sweep(&mut self, _: &Sweep) -> Result<()> {
        Err(no_sweep())
    }
    fn sweep(&mut self, _: u64, _: u64, _: Mode) -> Result<()> {
        Err(no_sweep())
    }
}

/// The checks and settings every multi-part run shares: no level sweeps,
/// Jacobi rounds, pull only.
fn resolve<P: GatherProgram>(opts: &GatherOptions, n: usize) -> Result<Resolved> {
    if P::LEVELS {
        return Err(no_sweep());
    }
    opts.rounds_only("several GPUs run Jacobi rounds")?;
    let mut r = opts.resolve::<P>(n)?;
    // A program's own default (pr-delta pushes) gives way; a caller asking
    // for push is told why not.
    if opts.direction == Some(Direction::Push) {
        return Err(Error::InvalidArgument(format!(
            "program `{}` over several GPUs: rounds pull (each GPU holds the in-edges of its vertices); push is not available",
            P::NAME
        )));
    }
    r.direction = Direction::Pull;
    Ok(r)
}

/// The states of the local parts' own vertices, in order, and the run's
/// report: the round loop over `parts` (one per local part, `own[i]` its
/// vertices) with the exchange `x`.
#[allow(clippy::too_many_arguments)]
fn run_parts<L: Launcher, P: GatherProgram, X: Exchange>(
    launchers: &[&L],
    kernels: Vec<[Kernel<'_>; 7]>,
    graphs: Vec<RunGraph>,
    part: &Partition,
    (x, host): (X, Option<&Comm>),
    gopts: &GatherGpuOptions,
    r: &Resolved,
    initial: Option<&[P::State]>,
) -> Result<(Vec<P::State>, GatherReport, Vec<f64>)> {
    let m = graphs.first().map_or(0, |g| g.m);
    let mut parts = Vec::with_capacity(graphs.len());
    for ((l, k), g) in launchers.iter().zip(kernels).zip(graphs) {
        let (block, mec) = (gopts.block_size, gopts.max_edge_count);
        parts.push(GatherRun::new::<P>(
            *l, k, g, block, mec, r.source, initial,
        )?);
    }
    for l in launchers {
        l.sync("gather buffer allocation")?;
    }
    let mut exec = Parts {
        parts,
        x,
        host,
        kind: P::REDUCE,
        vertex_slices: (0..part.parts).map(|q| part.state_slice(q)).collect(),
        word_slices: (0..part.parts).map(|q| part.word_slice(q)).collect(),
        msg_size: std::mem::size_of::<P::Msg>(),
    };
    let mut report = drive::<P>(&mut exec, r, m)?;
    for l in launchers {
        l.sync("gather rounds")?;
    }
    let first = exec.parts.first();
    report.time = first.map_or_else(Default::default, |p| p.time());
    let mut states = Vec::new();
    for p in &exec.parts {
        states.extend(p.states::<P>()?);
    }
    let round_ms = exec
        .parts
        .first_mut()
        .map(|p| std::mem::take(&mut p.round_ms))
        .unwrap_or_default();
    Ok((states, report, round_ms))
}

/// Runs `P` on `g` over `parts` parts emulated on the host (the executor and
/// kernels of [`MultiGpu::run_gather`], an in-memory copy for the exchange):
/// every vertex's state, which CI compares with the one-GPU emulator's.
pub fn emulate_gather<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    parts: usize,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
    initial: Option<&[P::State]>,
) -> Result<GpuGatherRun<P::State>> {
    let n = g.num_vertices();
    check_initial::<P>(initial, n)?;
    let r = resolve::<P>(opts, n)?;
    let part = Partition::for_graph(g, parts)?;
    let csc = g.csc();
    weights_of::<P, W>(csc)?;
    let rows: Vec<_> = (0..parts).map(|p| own_rows(csc, &part.range(p))).collect();
    let svs: Vec<Vec<u32>> = rows
        .iter()
        .map(|(o, _, _)| chunk_owners(o, gopts.max_edge_count))
        .collect();
    let graphs = rows
        .iter()
        .zip(&svs)
        .enumerate()
        .map(|(p, ((offsets, sources, weights), sv))| RunGraph {
            ptr: Ptrs {
                out_offsets: g.csr().offsets().as_ptr() as u64,
                in_offsets: offsets.as_ptr() as u64,
                in_sources: sources.as_ptr() as u64,
                in_weights: weights
                    .filter(|_| P::WEIGHTED)
                    .map_or(0, |w| w.as_ptr() as u64),
                ..Ptrs::default()
            },
            sv_in: (sv.as_ptr() as u64, sv.len() as u64),
            sv_out: (0, 0),
            n: n as u64,
            m: g.num_edges(),
            out_len: 0,
            in_len: sources.len() as u64,
            own: part.range(p),
            pad_to: part.padded_states(),
        })
        .collect();
    let l = HostLauncher::new(max_blocks);
    let launchers = vec![&l; parts];
    let kernels = (0..parts).map(|_| host_kernels::<P>()).collect();
    let (states, report, round_ms) = run_parts::<_, P, _>(
        &launchers,
        kernels,
        graphs,
        &part,
        (HostCopy, None),
        gopts,
        &r,
        initial,
    )?;
    Ok(GpuGatherRun {
        states,
        report,
        round_ms,
    })
}

/// A rank's rows as a part's in-edges: offsets over all `n` vertices (the
/// rows of its vertices, the others empty), sources as the rows list them.
pub(super) fn rank_in_offsets(g: &RankGraph) -> Vec<u64> {
    spread_rows(g.num_vertices, g.first..g.first + g.rows(), |v| {
        g.offsets[v - g.first]
    })
}

/// CSR offsets (`n + 1`) from the out-degrees of all `n` vertices.
pub(super) fn offsets_of_degrees(degrees: &[u32]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(degrees.len() + 1);
    offsets.push(0u64);
    let mut acc = 0u64;
    for &d in degrees {
        acc += u64::from(d);
        offsets.push(acc);
    }
    offsets
}

/// The exchange of ranks emulated on the host: each rank's slice of its one
/// part's array all-gathered over the ranks' TCP link.
struct CommExchange<'a> {
    comm: &'a Comm,
    rank: usize,
}

impl Exchange for CommExchange<'_> {
    fn exchange(&mut self, bufs: &[u64], slices: &[(u64, u64)], elem: usize) -> Result<()> {
        let [buf] = bufs else {
            return Err(Error::InvalidArgument(
                "an emulated rank holds one part".into(),
            ));
        };
        let bytes = |(first, count): (u64, u64)| (first as usize * elem, count as usize * elem);
        let (at, len) = bytes(slices[self.rank]);
        // SAFETY: `buf` is this rank's host array, holding every rank's slice
        // (sized by `RunGraph::pad_to`); no launch runs during an exchange.
        let mine = unsafe { std::slice::from_raw_parts((*buf as *const u8).add(at), len) };
        let got = self.comm.all_gather(mine)?;
        for (q, b) in got.iter().enumerate() {
            let (at, len) = bytes(slices[q]);
            if q == self.rank || len == 0 {
                continue;
            }
            if b.len() != len {
                return Err(Error::InvalidArgument(format!(
                    "rank {q} sent {} bytes of a {len}-byte slice",
                    b.len()
                )));
            }
            // SAFETY: as above; `b` is a separate buffer of `len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), (*buf as *mut u8).add(at), len) }
        }
        Ok(())
    }
}

/// Runs `P` (unweighted) over the ranks of `comm` with each rank's GPU
/// emulated on the host: the inputs of [`MultiGpu::upload_gather_rank`] (its
/// rows, the whole graph's out-offsets from the ranks' out-degrees), the
/// executor of [`MultiGpu::run_gather`], the exchanges over the TCP link.
/// The states of this rank's vertices; what CI checks the rank path with.
pub fn emulate_gather_rank<P: GatherProgram>(
    g: &RankGraph,
    comm: &Comm,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
) -> Result<GpuGatherRun<P::State>> {
    if P::WEIGHTED {
        return Err(Error::InvalidArgument(format!(
            "program `{}` reads edge weights: ranks run unweighted gather programs",
            P::NAME
        )));
    }
    let n = g.num_vertices;
    let r = resolve::<P>(opts, n)?;
    let rank = comm.rank();
    let part = Partition::with_span(n as u64, comm.world(), g.parts.span() as u64)?;
    let mine = crate::dist::out_degrees(g, comm)?;
    let mut degrees = vec![0u32; n];
    comm.all_gather_into(&mine, |q| g.parts.range(q), &mut degrees, "out-degrees")?;
    let out_offsets = offsets_of_degrees(&degrees);
    let in_offsets = rank_in_offsets(g);
    let sv = chunk_owners(&in_offsets, gopts.max_edge_count);
    let graph = RunGraph {
        ptr: Ptrs {
            out_offsets: out_offsets.as_ptr() as u64,
            in_offsets: in_offsets.as_ptr() as u64,
            in_sources: g.targets.as_ptr() as u64,
            ..Ptrs::default()
        },
        sv_in: (sv.as_ptr() as u64, sv.len() as u64),
        sv_out: (0, 0),
        n: n as u64,
        m: comm.all_reduce_sum(g.targets.len() as u64)?,
        out_len: 0,
        in_len: g.targets.len() as u64,
        own: part.range(rank),
        pad_to: part.padded_states(),
    };
    let l = HostLauncher::new(max_blocks);
    let kernels = vec![host_kernels::<P>()];
    let x = CommExchange { comm, rank };
    let (states, report, round_ms) = run_parts::<_, P, _>(
        &[&l],
        kernels,
        vec![graph],
        &part,
        (x, Some(comm)),
        gopts,
        &r,
        None,
    )?;
    Ok(GpuGatherRun {
        states,
        report,
        round_ms,
    })
}

/// A graph uploaded for gather runs over the GPUs of a [`MultiGpu`]
/// ([`MultiGpu::upload_gather`]): each GPU's in-edges of its vertices, the
/// whole graph's out-offsets, the chunk owners.
pub struct MultiGatherGraph {
    part: Partition,
    parts: Vec<PartUpload>,
    n: u64,
    m: u64,
    gopts: GatherGpuOptions,
    weights: bool,
    /// In-edges each GPU holds.
    pub part_edges: Vec<u64>,
}

struct PartUpload {
    _bufs: Vec<DevBuf<u8>>,
    ptr: Ptrs,
    sv: DevBuf<u32>,
    in_len: u64,
    own: Range<u64>,
}

/// Uploads one part: the whole graph's out-offsets, the in-edge rows of its
/// vertices `own` (ids global, other rows empty) with their weights' bytes,
/// and the chunk owners of those in-edges.
fn upload_part(
    d: &crate::gpu::Device,
    out_offsets: &[u64],
    in_offsets: &[u64],
    sources: &[u32],
    weights: Option<&[u8]>,
    gopts: &GatherGpuOptions,
    own: Range<u64>,
) -> Result<PartUpload> {
    let sv = chunk_owners(in_offsets, gopts.max_edge_count);
    d.gpu.check_fits(
        "gather part (in-edges of its vertices, out-offsets, chunk owners)",
        8 * (out_offsets.len() + in_offsets.len()) as u64
            + 4 * (sources.len() + sv.len()) as u64
            + weights.map_or(0, |w| w.len() as u64),
    )?;
    let up = |b: &[u8], what: &str| d.gpu.upload::<u8>(b, what);
    let mut bufs = Vec::new();
    let mut put = |b: DevBuf<u8>| {
        let p = b.ptr;
        bufs.push(b);
        p
    };
    let mut ptr = Ptrs {
        out_offsets: put(up(bytemuck::cast_slice(out_offsets), "out-offsets")?),
        in_offsets: put(up(bytemuck::cast_slice(in_offsets), "part in-offsets")?),
        in_sources: put(up(bytemuck::cast_slice(sources), "part in-sources")?),
        ..Ptrs::default()
    };
    if let Some(w) = weights {
        ptr.in_weights = put(up(w, "part in-weights")?);
    }
    Ok(PartUpload {
        _bufs: bufs,
        ptr,
        sv: d.gpu.upload(&sv, "SV (part in-edges)")?,
        in_len: sources.len() as u64,
        own,
    })
}

/// A gather run over several GPUs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MultiGatherRun<S> {
    /// The states of this process's vertices, `first..first + states.len()`.
    #[serde(skip)]
    pub states: Vec<S>,
    pub first: u64,
    pub gpus: usize,
    pub report: GatherReport,
    /// Each round's time on the first GPU (CUDA events), ms.
    pub round_ms: Vec<f64>,
    /// Bytes each GPU receives per exchange of messages.
    pub msg_bytes: u64,
}

impl MultiGpu {
    /// Uploads `g` for gather runs (with weights if `weights`): each GPU gets the
    /// in-edges of its part's vertices and the whole graph's out-offsets.
    pub fn upload_gather<W: Weight>(
        &self,
        g: &Graph<W>,
        gopts: &GatherGpuOptions,
        weights: bool,
    ) -> Result<MultiGatherGraph> {
        self.whole_graph_only("MultiGpu::upload_gather_rank")?;
        let part = Partition::for_graph(g, self.devices.len())?;
        let csc = g.csc();
        let out_offsets = g.csr().offsets();
        let mut parts = Vec::with_capacity(self.devices.len());
        for (i, d) in self.devices.iter().enumerate() {
            let own = part.range(self.parts_of[i]);
            let (offsets, sources, w) = own_rows(csc, &own);
            let w = w.filter(|_| weights).map(bytemuck::cast_slice::<W, u8>);
            parts.push(upload_part(
                d,
                out_offsets,
                &offsets,
                sources,
                w,
                gopts,
                own,
            )?);
        }
        Ok(MultiGatherGraph {
            part_edges: parts.iter().map(|p| p.in_len).collect(),
            part,
            parts,
            n: g.num_vertices() as u64,
            m: g.num_edges(),
            gopts: *gopts,
            weights,
        })
    }

    /// This rank's rows (the in-neighbours of its vertices) uploaded for
    /// gather runs over the ranks' GPUs (unweighted programs): the whole
    /// graph's out-offsets come from the ranks' out-degrees, all-gathered
    /// by NCCL; no rank holds another's edges.
    pub fn upload_gather_rank(
        &self,
        g: &RankGraph,
        gopts: &GatherGpuOptions,
    ) -> Result<MultiGatherGraph> {
        let host = self.rank_link("upload_gather_rank")?;
        let part = self.rank_partition(g)?;
        let out_offsets = self.whole_offsets(g, &part)?;
        let own = part.range(self.parts_of[0]);
        let in_offsets = rank_in_offsets(g);
        let up = upload_part(
            &self.devices[0],
            &out_offsets,
            &in_offsets,
            &g.targets,
            None,
            gopts,
            own,
        )?;
        Ok(MultiGatherGraph {
            part_edges: vec![up.in_len],
            part,
            parts: vec![up],
            n: g.num_vertices as u64,
            m: host.all_reduce_sum(g.targets.len() as u64)?,
            gopts: *gopts,
            weights: false,
        })
    }

    /// Loads gather program `P`'s kernels on every GPU.
    pub fn load_gather<P: GatherProgram>(&self) -> Result<Vec<GatherKernels>> {
        self.devices.iter().map(|d| d.load_gather::<P>()).collect()
    }

    /// Runs `P` over the GPUs on a graph from [`MultiGpu::upload_gather`]
    /// (`initial`: the states to start from, one per vertex, instead of
    /// `init`). See the module docs for what runs where.
    pub fn run_gather<P: GatherProgram>(
        &self,
        k: &[GatherKernels],
        mg: &MultiGatherGraph,
        opts: &GatherOptions,
        initial: Option<&[P::State]>,
    ) -> Result<MultiGatherRun<P::State>> {
        let n = mg.n as usize;
        check_initial::<P>(initial, n)?;
        let r = resolve::<P>(opts, n)?;
        if P::WEIGHTED && !mg.weights {
            return Err(Error::InvalidArgument(format!(
                "program `{}` reads edge weights: upload the graph with its weights",
                P::NAME
            )));
        }
        let size = std::mem::size_of::<P::State>()
            + std::mem::size_of::<P::Msg>()
            + std::mem::size_of::<P::Acc>();
        for d in &self.devices {
            d.gpu.check_fits(
                &format!("`{}`: state, messages, accumulators, bitmaps", P::NAME),
                mg.part.padded_states() * (size as u64 + 1),
            )?;
        }
        let launchers: Vec<DeviceLauncher> = self
            .devices
            .iter()
            .map(|d| DeviceLauncher { gpu: &d.gpu })
            .collect();
        let refs: Vec<&DeviceLauncher> = launchers.iter().collect();
        let kernels = k.iter().map(|k| k.kernels::<P>()).collect();
        let graphs = mg
            .parts
            .iter()
            .map(|p| RunGraph {
                ptr: p.ptr,
                sv_in: (p.sv.ptr, p.sv.len as u64),
                sv_out: (0, 0),
                n: mg.n,
                m: mg.m,
                out_len: 0,
                in_len: p.in_len,
                own: p.own.clone(),
                pad_to: mg.part.padded_states(),
            })
            .collect();
        let x = Nccl {
            multi: self,
            equal: mg.part.span.is_some(),
        };
        let (states, report, round_ms) = run_parts::<_, P, _>(
            &refs,
            kernels,
            graphs,
            &mg.part,
            (x, self.host.as_deref()),
            &mg.gopts,
            &r,
            initial,
        )?;
        Ok(MultiGatherRun {
            states,
            first: mg.parts.first().map_or(0, |p| p.own.start),
            gpus: self.world,
            report,
            round_ms,
            msg_bytes: mg.part.padded_states() * std::mem::size_of::<P::Msg>() as u64,
        })
    }
}
