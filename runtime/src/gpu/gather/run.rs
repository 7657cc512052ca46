//! The gather/apply rounds' one executor, over any [`Launcher`]: [`GatherRun`]
//! owns a run's per-vertex arrays, bitmaps and tallies and launches the
//! program's seven kernels on them. The device ([`Device::run_gather`]) and
//! the emulator ([`super::emulate`]) both run it, so the argument lists of
//! `kernels_rs::gather_kernels!` are spelled once, here.
//!
//! [`Device::run_gather`]: crate::gpu::Device::run_gather

use std::time::Duration;

use cudarc::driver::CudaFunction;
use kernels_rs::gather::{fold_tallies, tally, RawRound, ReduceKind, Tally, TALLY_WORDS};
use kernels_rs::word::slice;
use kernels_rs::ThreadCtx;

use super::{drive, drive_sweep, sweep_of, GatherExec, GatherGpuOptions, GpuGatherRun, Mode, Ptrs};
use crate::error::{Error, Result};
use crate::gather::{GatherProgram, Resolved, Sweep};
pub(crate) use crate::gpu::launcher::Kernel;
use crate::gpu::launcher::{Arg, Grid, HostBody, Launcher};
use crate::graph::{Graph, Weight};

/// The seven kernels of program `P` (`init, emit, pull, push, apply, refresh,
/// sweep`), named `names`, with their device functions where loaded.
pub(super) fn kernels<'k, P: GatherProgram>(
    names: [&'k str; 7],
    device: Option<&'k [CudaFunction; 7]>,
) -> [Kernel<'k>; 7] {
    let hosts: [HostBody; 7] = [
        init_body::<P>,
        emit_body::<P>,
        pull_body::<P>,
        push_body::<P>,
        apply_body::<P>,
        refresh_body::<P>,
        sweep_body::<P>,
    ];
    std::array::from_fn(|i| Kernel {
        name: names[i],
        device: device.map(|f| &f[i]),
        host: hosts[i],
    })
}

/// The seven kernels of `P` as the host emulator runs them.
pub(crate) fn host_kernels<P: GatherProgram>() -> [Kernel<'static>; 7] {
    kernels::<P>(super::STEPS, None)
}

/// Words of a [`RawRound`], the start of every gather kernel's list.
const ROUND_WORDS: usize = 23;

fn raw<P: GatherProgram>(a: &[Arg]) -> RawRound<P> {
    RawRound {
        n: a[0].u64(),
        m: a[1].u64(),
        out_len: a[2].u64(),
        in_len: a[3].u64(),
        first: a[4].u64(),
        end: a[5].u64(),
        out_offsets: a[6].ptr(),
        out_targets: a[7].ptr(),
        out_weights: a[8].ptr(),
        in_offsets: a[9].ptr(),
        in_sources: a[10].ptr(),
        in_weights: a[11].ptr(),
        state: a[12].ptr(),
        msg: a[13].ptr(),
        acc: a[14].ptr(),
        frontier: a[15].ptr(),
        received: a[16].ptr(),
        next: a[17].ptr(),
        tally: a[18].ptr(),
        tally_len: a[19].u64(),
        round: a[20].u32(),
        source: a[21].u32(),
        global: a[22].f64(),
    }
}

// Each body reads the argument list `GatherRun::launch` builds for its kernel,
// which is that kernel's PTX parameter list (`gather_kernels!`): a `RawRound`'s
// fields, then the extras. That is the contract the SAFETY comments refer to.

unsafe fn init_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    let r = unsafe { raw::<P>(a).round() };
    r.init(t, a[ROUND_WORDS].u32() != 0)
}

unsafe fn emit_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { raw::<P>(a).round() }.emit(t)
}

unsafe fn pull_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    let x = &a[ROUND_WORDS..];
    // SAFETY: see above; `sv` holds `nchunks` entries.
    let (r, sv) = unsafe {
        (
            raw::<P>(a).round(),
            slice(x[0].ptr::<u32>(), x[1].u64() as usize),
        )
    };
    r.pull(t, sv, x[2].u64())
}

unsafe fn push_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    let x = &a[ROUND_WORDS..];
    // SAFETY: as for `pull_body`.
    let (r, sv) = unsafe {
        (
            raw::<P>(a).round(),
            slice(x[0].ptr::<u32>(), x[1].u64() as usize),
        )
    };
    r.push(t, sv, x[2].u64())
}

unsafe fn apply_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    let r = unsafe { raw::<P>(a).round() };
    r.apply(t, a[ROUND_WORDS].u32() != 0, a[ROUND_WORDS + 1].u32() != 0)
}

unsafe fn refresh_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { raw::<P>(a).round() }.refresh(t)
}

unsafe fn sweep_body<P: GatherProgram>(t: ThreadCtx, a: &[Arg]) {
    let x = &a[ROUND_WORDS..];
    let (lo, hi) = (x[2].u64(), x[3].u64());
    let n = a[0].u64() as usize;
    // SAFETY: see above; `order` holds at least `hi` entries and `rank` `n`.
    let (r, order, rank) = unsafe {
        (
            raw::<P>(a).round(),
            slice(x[0].ptr::<u32>(), hi as usize),
            slice(x[1].ptr::<u32>(), n),
        )
    };
    r.sweep(t, order, rank, lo, hi)
}

/// The graph a run reads: its addresses (the per-run arrays of `ptr` are
/// filled in by [`GatherRun::new`]) and the chunk owners per direction.
pub(crate) struct RunGraph {
    pub ptr: Ptrs,
    /// `(address, entries)` of the `SV` over the in-edges and the out-edges.
    pub sv_in: (u64, u64),
    pub sv_out: (u64, u64),
    pub n: u64,
    /// The whole graph's edges.
    pub m: u64,
    /// Edges stored at `ptr`'s out- and in-edge arrays (`m` each on one GPU;
    /// on a part of several GPUs no out-edges and its vertices' in-edges).
    pub out_len: u64,
    pub in_len: u64,
    /// The vertices whose states this run keeps (`0..n` on one GPU).
    pub own: std::ops::Range<u64>,
    /// Vertices the exchanged arrays (messages, bitmaps) are allocated for:
    /// `n` on one GPU, the partition's padded length on several (an
    /// all-gather of equal slices may write past `n`).
    pub pad_to: u64,
}

impl RunGraph {
    /// Vertices the per-vertex launches run.
    fn own_len(&self) -> u64 {
        self.own.end - self.own.start
    }
}

/// One run's arrays and launches.
pub(crate) struct GatherRun<'a, L: Launcher> {
    l: &'a L,
    k: [Kernel<'a>; 7],
    kind: ReduceKind,
    g: RunGraph,
    block: u32,
    mec: u64,
    state: L::Buf<u64>,
    msg: L::Buf<u64>,
    _acc: L::Buf<u64>,
    /// Frontier-driven programs: three bitmaps and which is the frontier,
    /// received and next.
    bitmaps: Option<[L::Buf<u32>; 3]>,
    roles: [usize; 3],
    /// The launches' tallies, folded on the device ([`tally`]).
    tally: L::Buf<u64>,
    /// See [`resident_edges`].
    resident_edges: bool,
    /// The run's source vertex (`u32::MAX`: none).
    source: u32,
    /// Whether the state buffer holds the caller's initial states.
    preset: bool,
    round_start: Option<L::Mark>,
    pub round_ms: Vec<f64>,
    /// A level sweep's `order` and `rank`, uploaded once.
    sweep: Option<(L::Buf<u32>, L::Buf<u32>)>,
}

/// A whole run of `P` on `g` with kernels `k` on `l`: the arrays, the rounds
/// (or the level sweep), the states. The device and the emulator both call it.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_rounds<L: Launcher, P: GatherProgram, W: Weight>(
    l: &L,
    k: [Kernel<'_>; 7],
    graph: RunGraph,
    g: &Graph<W>,
    gopts: &GatherGpuOptions,
    r: &Resolved,
    initial: Option<&[P::State]>,
) -> Result<GpuGatherRun<P::State>> {
    let m = graph.m;
    let (block, mec) = (gopts.block_size, gopts.max_edge_count);
    let mut x = GatherRun::new::<P>(l, k, graph, block, mec, r.source, initial)?;
    l.sync("gather buffer allocation")?;
    let mut report = match sweep_of::<P, W>(g, initial, r.source) {
        Some(s) => drive_sweep::<P>(&mut x, r, &s, g.csc().offsets())?,
        None => drive::<P>(&mut x, r, m)?,
    };
    l.sync("gather rounds")?;
    report.time = x.time();
    Ok(GpuGatherRun {
        states: x.states::<P>()?,
        report,
        round_ms: std::mem::take(&mut x.round_ms),
    })
}

/// `bytes` in whole words (zero padded), so any state type is aligned.
fn words_of(bytes: &[u8]) -> Vec<u64> {
    let mut w = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut w)[..bytes.len()].copy_from_slice(bytes);
    w
}

/// The largest grid any launch of a run gets (its tallies are sized by it).
pub(super) fn max_grid() -> Grid {
    Grid::Resident(u64::MAX / 2)
}

/// The grid of a per-vertex launch over `work` vertices: what the device holds
/// at once, striding over the rest.
fn vertices(work: u64) -> Grid {
    Grid::Resident(work.max(1))
}

/// Whether the edge-chunk gathers stride a resident grid
/// (`VERTEX_GATHER_GRID=resident`) instead of one thread per chunk, the
/// default: the hardware then hands blocks to multiprocessors as they free up,
/// as `bench/cuda/pr_pull.cu` launches its chunks. A knob for measuring the two.
fn resident_edges() -> bool {
    std::env::var("VERTEX_GATHER_GRID").is_ok_and(|v| v == "resident")
}

impl<'a, L: Launcher> GatherRun<'a, L> {
    /// Allocates `P`'s arrays (the states from `initial` when given).
    pub(crate) fn new<P: GatherProgram>(
        l: &'a L,
        k: [Kernel<'a>; 7],
        mut g: RunGraph,
        block: u32,
        mec: u64,
        source: u32,
        initial: Option<&[P::State]>,
    ) -> Result<Self> {
        let n = g.n as usize;
        let pad = (g.pad_to as usize).max(n);
        let words = |size: usize| (n * size).div_ceil(8);
        let state = match initial {
            Some(s) => l.upload(&words_of(super::state_bytes::<P>(s)), "initial state")?,
            None => l.zeros::<u64>(words(std::mem::size_of::<P::State>()), "state")?,
        };
        let msg_words = (pad * std::mem::size_of::<P::Msg>()).div_ceil(8);
        let msg = l.zeros::<u64>(msg_words, "messages")?;
        let acc = l.zeros::<u64>(words(std::mem::size_of::<P::Acc>()), "accumulators")?;
        let bitmaps = if P::FRONTIER {
            let w = pad.div_ceil(32);
            Some([
                l.zeros::<u32>(w, "frontier bitmap")?,
                l.zeros::<u32>(w, "received bitmap")?,
                l.zeros::<u32>(w, "next frontier bitmap")?,
            ])
        } else {
            None
        };
        let warps = l.warps(max_grid(), block).max(1);
        g.ptr.state = L::addr(&state);
        g.ptr.msg = L::addr(&msg);
        g.ptr.acc = L::addr(&acc);
        Ok(GatherRun {
            l,
            k,
            kind: P::REDUCE,
            g,
            block,
            mec,
            state,
            msg,
            _acc: acc,
            bitmaps,
            roles: [0, 1, 2],
            // Zeroed once: the fold's counters are left at zero by each launch.
            tally: l.zeros::<u64>(tally::words_for(warps), "round tallies")?,
            resident_edges: resident_edges(),
            source,
            preset: initial.is_some(),
            round_start: None,
            round_ms: Vec::new(),
            sweep: None,
        })
    }

    /// The states of the run's own vertices at the end (waits for the
    /// rounds): every vertex on one GPU, a part's on several (only the words
    /// up to its last vertex are read back).
    pub(crate) fn states<P: GatherProgram>(&self) -> Result<Vec<P::State>> {
        let size = std::mem::size_of::<P::State>();
        let end = self.g.own.end as usize * size;
        let words = self.l.read_prefix(&self.state, end.div_ceil(8), "state")?;
        let bytes = bytemuck::cast_slice::<u64, u8>(&words);
        let start = (self.g.own.start as usize * size).min(bytes.len());
        Ok(super::states_from_bytes::<P>(
            &bytes[start..end.min(bytes.len())],
        ))
    }

    /// The rounds' total time.
    pub(crate) fn time(&self) -> Duration {
        Duration::from_secs_f64(self.round_ms.iter().sum::<f64>() / 1e3)
    }

    /// Address of bitmap `role` (0 frontier, 1 received, 2 next), or null.
    fn bitmap(&self, role: usize, on: bool) -> u64 {
        match &self.bitmaps {
            Some(b) if on => L::addr(&b[self.roles[role]]),
            _ => 0,
        }
    }

    fn launch(&mut self, i: usize, grid: Grid, mode: Mode, extra: &[Arg]) -> Result<()> {
        let p = &self.g.ptr;
        let mut args = vec![
            self.g.n.into(),
            self.g.m.into(),
            self.g.out_len.into(),
            self.g.in_len.into(),
            self.g.own.start.into(),
            self.g.own.end.into(),
            p.out_offsets.into(),
            p.out_targets.into(),
            p.out_weights.into(),
            p.in_offsets.into(),
            p.in_sources.into(),
            p.in_weights.into(),
            p.state.into(),
            p.msg.into(),
            p.acc.into(),
            self.bitmap(0, mode.frontier).into(),
            self.bitmap(1, true).into(),
            self.bitmap(2, true).into(),
            L::addr(&self.tally).into(),
            (L::len(&self.tally) as u64).into(),
            mode.round.into(),
            self.source.into(),
            mode.global.into(),
        ];
        args.extend_from_slice(extra);
        // init, apply and refresh write tallies: their grids are resident, so
        // the buffer sized by `max_grid` holds every warp's slot.
        let tallies = matches!(i, 0 | 4 | 5);
        if tallies && tally::words_for(self.l.warps(grid, self.block)) > L::len(&self.tally) {
            return Err(Error::InvalidArgument(format!(
                "gather launch of {} warps: the tally buffer holds fewer",
                self.l.warps(grid, self.block)
            )));
        }
        // SAFETY: the parameter list is `gather_kernels!`'s (a `RawRound`'s fields,
        // then the kernel's extras), every address is a live buffer of the
        // length `RawRound::round` documents, or null where the mode says so.
        unsafe { self.l.launch(&self.k[i], grid, self.block, &args) }
    }

    /// The message array's address (what a part of several GPUs exchanges
    /// after each emit).
    pub(crate) fn msg_addr(&self) -> u64 {
        L::addr(&self.msg)
    }

    /// The next frontier's bitmap address (frontier-driven programs), which a
    /// part of several GPUs exchanges after each apply.
    pub(crate) fn next_addr(&self) -> Option<u64> {
        self.bitmaps.as_ref().map(|b| L::addr(&b[self.roles[2]]))
    }

    /// Launches `init` without reading its tally ([`Self::read_tally`]): parts
    /// of several GPUs launch all before any waits.
    pub(crate) fn start_init(&mut self) -> Result<()> {
        self.round_start = Some(self.l.mark()?);
        let preset = Arg::from(self.preset as u32);
        self.launch(0, vertices(self.g.own_len()), self.mode0(), &[preset])
    }

    /// Launches `apply` without reading its tally.
    pub(crate) fn start_apply(&mut self, all: bool, emit: bool, m: Mode) -> Result<()> {
        let extra = [Arg::from(all as u32), Arg::from(emit as u32)];
        self.launch(4, vertices(self.g.own_len()), m, &extra)
    }

    /// Launches `refresh` without reading its tally.
    pub(crate) fn start_refresh(&mut self, m: Mode) -> Result<()> {
        self.launch(5, vertices(self.g.own_len()), m, &[])
    }

    /// The last init, apply or refresh launch's tally (waits for it).
    pub(crate) fn read_tally(&self) -> Result<Tally> {
        // The launch's warps folded their slots into the first words.
        let words = self
            .l
            .read_prefix(&self.tally, TALLY_WORDS, "round tallies")?;
        Ok(fold_tallies(self.kind, &words))
    }

    fn mode0(&self) -> Mode {
        Mode {
            frontier: false,
            round: 0,
            global: self.kind.identity(),
        }
    }
}

impl<L: Launcher> GatherExec for GatherRun<'_, L> {
    fn init(&mut self) -> Result<Tally> {
        self.start_init()?;
        self.read_tally()
    }
    fn emit(&mut self, m: Mode) -> Result<()> {
        self.launch(1, vertices(self.g.own_len()), m, &[])
    }
    fn gather(&mut self, push: bool, m: Mode) -> Result<()> {
        let (sv, chunks) = if push { self.g.sv_out } else { self.g.sv_in };
        let extra = [sv.into(), chunks.into(), self.mec.into()];
        let grid = if self.resident_edges {
            Grid::Resident(chunks.max(1))
        } else {
            Grid::Cover(chunks.max(1))
        };
        self.launch(if push { 3 } else { 2 }, grid, m, &extra)
    }
    fn apply(&mut self, all: bool, emit: bool, m: Mode) -> Result<Tally> {
        self.start_apply(all, emit, m)?;
        self.read_tally()
    }
    fn refresh(&mut self, m: Mode) -> Result<f64> {
        self.start_refresh(m)?;
        Ok(self.read_tally()?.reduced)
    }
    fn advance(&mut self) -> Result<()> {
        let Some(b) = self.bitmaps.as_mut() else {
            return Ok(());
        };
        let [f, r, nx] = self.roles;
        self.roles = [nx, r, f];
        self.l.clear(&mut b[f], "bitmap")?;
        self.l.clear(&mut b[r], "bitmap")
    }
    fn end_round(&mut self) -> Result<()> {
        let end = self.l.mark()?;
        if let Some(s) = &self.round_start {
            self.round_ms.push(self.l.elapsed_ms(s, &end)?);
        }
        self.round_start = Some(end);
        Ok(())
    }
    fn load_sweep(&mut self, s: &Sweep) -> Result<()> {
        // An empty sweep still passes valid pointers.
        let order = if s.order.is_empty() {
            &[0u32][..]
        } else {
            &s.order
        };
        self.sweep = Some((
            self.l.upload(order, "sweep order")?,
            self.l.upload(&s.rank, "sweep ranks")?,
        ));
        Ok(())
    }
    fn sweep(&mut self, lo: u64, hi: u64, m: Mode) -> Result<()> {
        let (order, rank) = match &self.sweep {
            Some((o, r)) => (L::addr(o), L::addr(r)),
            None => {
                return Err(Error::InvalidArgument(
                    "sweep launched before load_sweep".into(),
                ))
            }
        };
        let extra = [order.into(), rank.into(), lo.into(), hi.into()];
        self.launch(6, vertices(hi - lo), m, &extra)
    }
}
