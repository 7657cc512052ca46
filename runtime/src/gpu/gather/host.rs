//! The host emulator of the gather runner: the kernels' bodies over a simulated
//! grid ([`crate::gpu::emulate`]), behind the same [`GatherExec`] launcher and
//! round loops as the device, so CPU-only tests cover the GPU's logic.

use std::time::Instant;

use kernels_rs::gather::{fold_tallies, RawRound, Tally, TALLY_WORDS};

use super::{
    chunk_owners, drive, drive_sweep, sweep_of, GatherExec, GatherGpuOptions, GpuGatherRun, Mode,
};
use crate::error::Result;
use crate::gather::{weights_of, GatherOptions, GatherProgram, Sweep};
use crate::gpu::launch::{emulated_grid, launch};
use crate::graph::{Csr, Graph, Weight};

/// Runs the program's GPU kernels on the host (see [`crate::gpu::emulate`]): the same
/// kernel bodies and round loop as the device, over a simulated grid of at most
/// `max_blocks` blocks (so grid-stride loops run too).
pub fn emulate<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
) -> Result<GpuGatherRun<P::State>> {
    emulate_inner::<P, W>(g, opts, gopts, max_blocks, None)
}

/// [`emulate`] from the caller's states (see [`crate::gpu::Device::run_gather_from`]).
pub fn emulate_from<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
    initial: &[P::State],
) -> Result<GpuGatherRun<P::State>> {
    emulate_inner::<P, W>(g, opts, gopts, max_blocks, Some(initial))
}

fn emulate_inner<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    gopts: &GatherGpuOptions,
    max_blocks: u32,
    initial: Option<&[P::State]>,
) -> Result<GpuGatherRun<P::State>> {
    gopts.validate()?;
    let n = g.num_vertices();
    crate::gather::check_initial::<P>(initial, n)?;
    opts.rounds_only("the GPU runs Jacobi rounds")?;
    let r = opts.resolve::<P>(n)?;
    let (csr, csc) = (g.csr(), g.csc());
    let out_w = weights_of::<P, W>(csr)?;
    let in_w = weights_of::<P, W>(csc)?;
    let mut x = HostExec::<P>::new(csr, csc, out_w, in_w, gopts, max_blocks);
    x.source = r.source;
    if let Some(states) = initial {
        x.state.copy_from_slice(states);
        x.preset = true;
    }
    let report = match sweep_of::<P, W>(g, initial, r.source) {
        Some(s) => drive_sweep::<P>(&mut x, &r, &s, csc.offsets())?,
        None => drive::<P>(&mut x, &r, g.num_edges())?,
    };
    Ok(GpuGatherRun {
        states: x.state,
        report,
        round_ms: x.round_ms,
    })
}

/// Host buffers of an emulated run.
struct HostExec<'a, P: GatherProgram> {
    out_offsets: &'a [u64],
    out_targets: &'a [u32],
    out_weights: Option<&'a [P::Weight]>,
    in_offsets: &'a [u64],
    in_sources: &'a [u32],
    in_weights: Option<&'a [P::Weight]>,
    state: Vec<P::State>,
    msg: Vec<P::Msg>,
    acc: Vec<P::Acc>,
    bitmaps: [Vec<u32>; 3],
    /// Which of `bitmaps` is the frontier, received, next.
    roles: [usize; 3],
    tally: Vec<u64>,
    sv_in: Vec<u32>,
    sv_out: Vec<u32>,
    mec: u64,
    block: u32,
    max_blocks: u32,
    round_start: Instant,
    round_ms: Vec<f64>,
    slots: usize,
    /// The run's source vertex (`u32::MAX`: none).
    source: u32,
    /// Whether `state` holds the caller's initial states.
    preset: bool,
    /// A level sweep's `order` and `rank`.
    sweep: (Vec<u32>, Vec<u32>),
}

impl<'a, P: GatherProgram> HostExec<'a, P> {
    fn new<W: Weight>(
        csr: &'a Csr<W>,
        csc: &'a Csr<W>,
        out_weights: Option<&'a [P::Weight]>,
        in_weights: Option<&'a [P::Weight]>,
        gopts: &GatherGpuOptions,
        max_blocks: u32,
    ) -> Self {
        let n = csr.num_vertices();
        let words = n.div_ceil(32);
        let grid = emulated_grid(n as u64, gopts.block_size, max_blocks);
        // The emulator's warps are one lane wide: a tally slot per thread.
        let slots = grid as usize * gopts.block_size as usize;
        // Placeholder values, overwritten by the init kernel before any read.
        let zero_ctx = kernels_rs::gather::Ctx {
            vertex: 0,
            out_degree: 0,
            in_degree: 0,
            num_vertices: n as u32,
            num_edges: csr.num_edges(),
            round: 0,
            source: u32::MAX,
            global: 0.0,
        };
        let s0 = P::init(zero_ctx);
        HostExec {
            out_offsets: csr.offsets(),
            out_targets: csr.targets(),
            out_weights,
            in_offsets: csc.offsets(),
            in_sources: csc.targets(),
            in_weights,
            state: vec![s0; n],
            msg: vec![P::emit(zero_ctx, s0); n],
            acc: vec![P::identity(); n],
            bitmaps: [vec![0; words], vec![0; words], vec![0; words]],
            roles: [0, 1, 2],
            tally: vec![0; slots * TALLY_WORDS],
            sv_in: chunk_owners(csc.offsets(), gopts.max_edge_count),
            sv_out: chunk_owners(csr.offsets(), gopts.max_edge_count),
            mec: gopts.max_edge_count,
            block: gopts.block_size,
            max_blocks,
            round_start: Instant::now(),
            round_ms: Vec::new(),
            slots: 0,
            source: u32::MAX,
            preset: false,
            sweep: (Vec::new(), Vec::new()),
        }
    }

    fn raw(&mut self, mode: Mode) -> RawRound<P> {
        let n = self.state.len();
        let [f, r, nx] = self.roles;
        let bm = |i: usize, on: bool, s: &mut Self| {
            if on && P::FRONTIER {
                s.bitmaps[i].as_mut_ptr()
            } else {
                std::ptr::null_mut()
            }
        };
        let frontier = bm(f, mode.frontier, self);
        let received = bm(r, true, self);
        let next = bm(nx, true, self);
        let w = |o: Option<&[P::Weight]>| o.map_or(std::ptr::null(), |w| w.as_ptr());
        RawRound {
            n: n as u64,
            m: self.out_targets.len() as u64,
            out_offsets: self.out_offsets.as_ptr(),
            out_targets: self.out_targets.as_ptr(),
            out_weights: w(self.out_weights),
            in_offsets: self.in_offsets.as_ptr(),
            in_sources: self.in_sources.as_ptr(),
            in_weights: w(self.in_weights),
            state: self.state.as_mut_ptr(),
            msg: self.msg.as_mut_ptr(),
            acc: self.acc.as_mut_ptr(),
            frontier,
            received,
            next,
            tally: self.tally.as_mut_ptr(),
            tally_len: self.tally.len() as u64,
            round: mode.round,
            source: self.source,
            global: mode.global,
        }
    }

    /// Runs `body` over an emulated grid for `work` items.
    fn run(
        &mut self,
        work: u64,
        mode: Mode,
        body: impl Fn(&kernels_rs::gather::Round<'_, P>, kernels_rs::ThreadCtx) + Sync,
    ) {
        let raw = Shared(self.raw(mode));
        let grid = emulated_grid(work, self.block, self.max_blocks);
        self.slots = kernels_rs::gather::tally_slots(u64::from(grid) * u64::from(self.block))
            .min(self.tally.len() / TALLY_WORDS);
        launch(grid, self.block, |t| {
            let raw = &raw;
            // SAFETY: the pointers address this executor's live buffers of the
            // lengths `RawRound::round` expects; the kernels' access rules (one
            // writer per vertex, atomics elsewhere) make concurrent threads sound.
            let r = unsafe { raw.0.round() };
            body(&r, t)
        });
    }

    fn tally(&mut self) -> Tally {
        fold_tallies(P::REDUCE, &self.tally[..self.slots * TALLY_WORDS])
    }
}

/// A [`RawRound`] shared by the emulated threads.
struct Shared<P: GatherProgram>(RawRound<P>);
// SAFETY: the kernels only touch the pointees through atomics or disjoint writes.
unsafe impl<P: GatherProgram> Sync for Shared<P> {}
// SAFETY: as above.
unsafe impl<P: GatherProgram> Send for Shared<P> {}

impl<P: GatherProgram> GatherExec for HostExec<'_, P> {
    fn init(&mut self) -> Result<Tally> {
        self.round_start = Instant::now();
        let n = self.state.len() as u64;
        let mode = Mode {
            frontier: false,
            round: 0,
            global: P::REDUCE.identity(),
        };
        let preset = self.preset;
        self.run(n, mode, |r, t| r.init(t, preset));
        Ok(self.tally())
    }
    fn emit(&mut self, m: Mode) -> Result<()> {
        let n = self.state.len() as u64;
        self.run(n, m, |r, t| r.emit(t));
        Ok(())
    }
    fn gather(&mut self, push: bool, m: Mode) -> Result<()> {
        let sv = if push {
            std::mem::take(&mut self.sv_out)
        } else {
            std::mem::take(&mut self.sv_in)
        };
        let mec = self.mec;
        self.run(sv.len() as u64, m, |r, t| {
            if push {
                r.push(t, &sv, mec)
            } else {
                r.pull(t, &sv, mec)
            }
        });
        if push {
            self.sv_out = sv;
        } else {
            self.sv_in = sv;
        }
        Ok(())
    }
    fn apply(&mut self, all: bool, m: Mode) -> Result<Tally> {
        let n = self.state.len() as u64;
        self.run(n, m, |r, t| r.apply(t, all));
        Ok(self.tally())
    }
    fn refresh(&mut self, m: Mode) -> Result<f64> {
        let n = self.state.len() as u64;
        self.run(n, m, |r, t| r.refresh(t));
        Ok(self.tally().reduced)
    }
    fn advance(&mut self) -> Result<()> {
        let [f, r, nx] = self.roles;
        self.roles = [nx, r, f];
        self.bitmaps[f].iter_mut().for_each(|w| *w = 0);
        self.bitmaps[r].iter_mut().for_each(|w| *w = 0);
        Ok(())
    }
    fn end_round(&mut self) -> Result<()> {
        self.round_ms
            .push(self.round_start.elapsed().as_secs_f64() * 1e3);
        self.round_start = Instant::now();
        Ok(())
    }
    fn load_sweep(&mut self, s: &Sweep) -> Result<()> {
        self.sweep = (s.order.clone(), s.rank.clone());
        Ok(())
    }
    fn sweep(&mut self, lo: u64, hi: u64, m: Mode) -> Result<()> {
        let (order, rank) = std::mem::take(&mut self.sweep);
        self.run(hi - lo, m, |r, t| r.sweep(t, &order, &rank, lo, hi));
        self.sweep = (order, rank);
        Ok(())
    }
}
