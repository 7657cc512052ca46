//! The multi-GPU loop over simulated parts on the host: each part is a
//! `DirectionRun` on the emulator's launcher over its [`PartGraph`] with its
//! own copy of the state, and the per-level exchange copies each part's slices
//! to the others with the device's peer exchange (its table and kernel body,
//! `super::peer`). CI checks with it that any number of parts gives the
//! single-GPU answer, with host-driven levels and with device-planned ones
//! (there the parts' next-frontier counters are summed into every part's block
//! after each level, as the device's exchange does).

use std::time::Instant;

use super::device::check_same_plan;
use super::nccl::Gather;
use super::partition::{part_graph, PartGraph, Partition};
use super::{combine_passes, sum_sizes};
use crate::error::{Error, Result};
use crate::gpu::direction::{
    self, initial_size, DirGraph, DirectionExec, DirectionKernels, DirectionRun, FrontierSize,
    Pass, PlannedExec,
};
use crate::gpu::launcher::HostLauncher;
use crate::gpu::program_api::{
    bucket_delta, direction_mode, relax_unit, scan_levels, source_state, GpuProgram,
    ProgramOptions, ProgramRun,
};
use crate::graph::Graph;
use crate::program::VertexProgram;
use kernels_rs::direction::{Heuristic, CTL_EDGES, CTL_FRONTIER, CTL_WORDS};

/// The parts and what the exchange must copy.
struct MultiHost<'a, P: kernels_rs::Program> {
    parts: Vec<DirectionRun<'a, HostLauncher>>,
    /// Each part's copy of the states (`n` each), written by its kernels
    /// through their addresses; read and written here only between launches.
    states_of: Vec<*mut P::State>,
    n: usize,
    partition: Partition,
    /// The whole graph's offsets (initial frontier size).
    offsets: &'a [u64],
    /// Whether states are exchanged too (frontier not uniform).
    states: bool,
}

impl<P: kernels_rs::Program> MultiHost<'_, P> {
    /// Copies every part's slice of the frontier bitmap (and states) to the
    /// others, through the device's peer exchange: its table
    /// ([`super::peer::table`]) and `vertex_peer_gather`'s body under the
    /// emulator, one part after another. States go only for the vertices in
    /// the part's exchanged bitmap, as there: a state changes only where its
    /// vertex joins that bitmap, and the kernels read other parts' states only
    /// of vertices in it, so the tests here check, on every program and path,
    /// both that the smaller copy is enough and the peer path itself.
    fn exchange(&mut self) -> Result<()> {
        if !self.exchange_peer()? {
            self.exchange_direct();
        }
        Ok(())
    }

    /// [`Self::exchange`] over the peer path: `false` (nothing copied) where
    /// the device would use NCCL (a state not whole 4-byte words).
    fn exchange_peer(&mut self) -> Result<bool> {
        let parts = self.parts.len();
        let size = std::mem::size_of::<P::State>();
        let mut gathers = Vec::with_capacity(parts);
        for p in 0..parts {
            let bits = self.parts[p].frontier_words();
            let words = bits.len() as u64;
            let mut g = vec![Gather::bitmap(
                &self.partition,
                bits.as_mut_ptr() as u64,
                words,
            )];
            if self.states {
                g.push(Gather::states(
                    &self.partition,
                    self.states_of[p] as u64,
                    self.n as u64,
                    size,
                ));
            }
            gathers.push(g);
        }
        let Some(table) = super::peer::table(&gathers) else {
            return Ok(false);
        };
        let words = super::peer::largest_copy(&table);
        let l = HostLauncher::new(4);
        for me in 0..parts {
            // SAFETY: the table names each part's live bitmap and state
            // vector and slices within them (clamped to their lengths); no
            // launch runs now, and a part writes only other parts' slices of
            // its own copies, which no later part reads.
            unsafe {
                super::peer::gather_on(
                    &l,
                    None,
                    me,
                    parts,
                    table.as_ptr() as u64,
                    gathers[0].len(),
                    words,
                    0,
                    0,
                    None,
                )
            }?;
        }
        Ok(true)
    }

    /// [`Self::exchange`] by plain copies (states masked the same way).
    fn exchange_direct(&mut self) {
        for p in 0..self.parts.len() {
            let (first, count) = self.partition.word_slice(p);
            let bits = self.parts[p].frontier_words();
            let lo = (first as usize).min(bits.len());
            let hi = ((first + count) as usize).min(bits.len());
            let slice = bits[lo..hi].to_vec();
            let words = lo..hi;
            let in_bitmap = |v: usize| {
                words.contains(&(v / 32)) && slice[v / 32 - words.start] >> (v % 32) & 1 == 1
            };
            for (q, other) in self.parts.iter_mut().enumerate() {
                if q != p {
                    other.frontier_words()[lo..hi].copy_from_slice(&slice);
                }
            }
            if self.states {
                let r = self.partition.range(p);
                let (lo, hi) = (r.start as usize, r.end as usize);
                // SAFETY: each pointer is a live vector of `n` states owned by
                // `emulate_multi` for the whole run; no launch runs now, and the
                // parts' copies are distinct vectors, so the two slices are
                // disjoint.
                let from = unsafe { std::slice::from_raw_parts(self.states_of[p], self.n) };
                for (q, &other) in self.states_of.iter().enumerate() {
                    if q != p {
                        // SAFETY: as above.
                        let to = unsafe { std::slice::from_raw_parts_mut(other, self.n) };
                        for v in (lo..hi).filter(|&v| in_bitmap(v)) {
                            to[v] = from[v];
                        }
                    }
                }
            }
        }
    }
}

impl<P: kernels_rs::Program> DirectionExec<P::State> for MultiHost<'_, P>
where
    P::State: bytemuck::Pod,
{
    fn heuristic(&self) -> Heuristic {
        // Every part was given the run's.
        self.parts[0].heuristic
    }

    fn init(&mut self, source: Option<u32>) -> Result<FrontierSize> {
        for part in &mut self.parts {
            DirectionExec::<P::State>::init(part, source)?;
        }
        Ok(initial_size(self.offsets, source))
    }

    fn top_down(
        &mut self,
        iter: u32,
        frontier: FrontierSize,
        candidate: Option<P::State>,
    ) -> Result<FrontierSize> {
        let sizes = self
            .parts
            .iter_mut()
            .map(|p| p.top_down(iter, frontier, candidate))
            .collect::<Result<Vec<_>>>()?;
        self.exchange()?;
        Ok(sum_sizes(&sizes))
    }

    fn bottom_up(&mut self, iter: u32, candidate: P::State) -> Result<FrontierSize> {
        let sizes = self
            .parts
            .iter_mut()
            .map(|p| p.bottom_up(iter, candidate))
            .collect::<Result<Vec<_>>>()?;
        self.exchange()?;
        Ok(sum_sizes(&sizes))
    }

    fn near_far(&mut self, iter: u32, limit: u64) -> Result<Pass> {
        let passes = self
            .parts
            .iter_mut()
            .map(|p| DirectionExec::<P::State>::near_far(p, iter, limit))
            .collect::<Result<Vec<_>>>()?;
        self.exchange()?;
        combine_passes(&passes)
    }
}

impl<P: kernels_rs::Program> MultiHost<'_, P> {
    /// Sums the parts' next-frontier counters of a planned level's block into
    /// every part's block (the device's in-place NCCL all-reduce).
    fn sum_counters(&mut self, slot: u32) -> Result<()> {
        let mut sum = [0u64; 2];
        for part in &mut self.parts {
            let b = part
                .batch_block_mut(slot)
                .ok_or_else(|| Error::InvalidArgument("a planned level outside a batch".into()))?;
            sum[0] += b[CTL_FRONTIER];
            sum[1] += b[CTL_EDGES];
        }
        for part in &mut self.parts {
            if let Some(b) = part.batch_block_mut(slot) {
                b[CTL_FRONTIER] = sum[0];
                b[CTL_EDGES] = sum[1];
            }
        }
        Ok(())
    }
}

impl<P: kernels_rs::Program> PlannedExec<P::State> for MultiHost<'_, P>
where
    P::State: bytemuck::Pod,
{
    fn begin_batch(&mut self, candidates: &[Option<P::State>]) -> Result<()> {
        for part in &mut self.parts {
            part.begin_batch(candidates)?;
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
        for part in &mut self.parts {
            PlannedExec::<P::State>::enqueue_level(part, iter, slot, level, first)?;
        }
        self.exchange()?;
        self.sum_counters(slot)
    }

    fn enqueue_pass(
        &mut self,
        iter: u32,
        slot: u32,
        first_pending: u64,
        first_limit: u64,
        delta: u64,
    ) -> Result<()> {
        for part in &mut self.parts {
            PlannedExec::<P::State>::enqueue_pass(
                part,
                iter,
                slot,
                first_pending,
                first_limit,
                delta,
            )?;
        }
        self.exchange()?;
        self.sum_counters(slot)
    }

    fn finish_batch(&mut self) -> Result<Vec<[u64; CTL_WORDS]>> {
        let mut first: Option<Vec<[u64; CTL_WORDS]>> = None;
        for (p, part) in self.parts.iter_mut().enumerate() {
            let blocks = PlannedExec::<P::State>::finish_batch(part)?;
            match &first {
                None => first = Some(blocks),
                Some(f) => check_same_plan(f, &blocks, p)?,
            }
        }
        Ok(first.unwrap_or_default())
    }
}

/// Runs `P` with the direction kernels over `gpus` simulated GPUs; the answer is
/// the single-GPU one (states gathered from their owners).
pub fn emulate_multi<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    gpus: usize,
    source: u32,
    opts: &ProgramOptions,
    max_blocks: u32,
) -> Result<ProgramRun<<P as VertexProgram>::State>> {
    let n = g.num_vertices();
    let partition = Partition::for_graph(g, gpus)?;
    crate::gpu::program_api::check_emulated::<P>(g, source, opts)?;
    let pull = direction_mode::<P>(opts, true)?;
    let uniform = pull.then(|| source_state::<P>(source));
    let graphs: Vec<PartGraph<_>> = (0..gpus)
        .map(|p| part_graph(g, &partition, p))
        .collect::<Result<_>>()?;
    let zero = <<P as VertexProgram>::State as bytemuck::Zeroable>::zeroed();
    let mut states: Vec<Vec<_>> = (0..gpus).map(|_| vec![zero; n]).collect();
    let mut parents: Vec<Vec<u32>> = (0..gpus)
        .map(|_| if opts.parents { vec![0; n] } else { Vec::new() })
        .collect();
    let t0 = Instant::now();
    let (log, syncs) = {
        let mut parts = Vec::with_capacity(gpus);
        let mut states_of = Vec::with_capacity(gpus);
        for ((pg, st), pa) in graphs.iter().zip(&mut states).zip(&mut parents) {
            let weights = crate::gpu::program_api::host_weights::<P>(&pg.out) as u64;
            let incoming = Some(Some((pg.incoming.offsets(), pg.incoming.targets())));
            let graph = DirGraph::host(pg.out.offsets(), pg.out.targets(), weights, incoming);
            let pptr = if opts.parents {
                pa.as_mut_ptr() as u64
            } else {
                0
            };
            states_of.push(st.as_mut_ptr());
            let mut h = DirectionRun::new(
                HostLauncher::new(max_blocks),
                DirectionKernels::host::<P>(P::NAME),
                graph,
                opts.max_edge_count
                    .unwrap_or(crate::gpu::direction::DEFAULT_CHUNK),
                opts.block_size,
                st.as_mut_ptr() as u64,
                pptr,
                std::mem::size_of::<<P as VertexProgram>::State>(),
            )?;
            h.degree_offsets = g.csr().offsets().as_ptr() as u64;
            let r = partition.range(parts.len());
            h.owned = (r.start, r.end);
            h.whole_m = g.num_edges();
            h.heuristic = opts.heuristic;
            if scan_levels::<P>(opts, pull) {
                h.enable_scan()?;
            }
            parts.push(h);
        }
        let mut multi = MultiHost::<P> {
            parts,
            states_of,
            n,
            partition: partition.clone(),
            offsets: g.csr().offsets(),
            // Uniform frontiers pass their candidate; others need the states.
            states: uniform.is_none(),
        };
        let src = P::NEEDS_SOURCE.then_some(source);
        let lps = opts.levels_per_sync;
        match bucket_delta::<P>(opts) {
            Some(delta) => {
                let p0 = u64::from(<P as VertexProgram>::priority(source_state::<P>(source)));
                direction::drive_buckets_levels(&mut multi, n as u64, src, p0, delta, lps)?
            }
            None => direction::drive_levels(
                &mut multi,
                n as u64,
                g.num_edges(),
                src,
                uniform,
                relax_unit::<P>,
                lps,
            )?,
        }
    };
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    // Each vertex's answer lives with its owner.
    let mut out = vec![zero; n];
    let mut out_parents = opts.parents.then(|| vec![0u32; n]);
    for p in 0..gpus {
        let r = partition.range(p);
        let (lo, hi) = (r.start as usize, r.end as usize);
        out[lo..hi].copy_from_slice(&states[p][lo..hi]);
        if let Some(op) = out_parents.as_mut() {
            op[lo..hi].copy_from_slice(&parents[p][lo..hi]);
        }
    }
    let rounds = log.len() as u32;
    Ok(ProgramRun {
        states: out,
        num_levels: rounds,
        launched_levels: rounds,
        syncs,
        time_ms,
        wall_ms: time_ms,
        parents: out_parents,
        directions: log,
        resident: None,
        tiles: None,
    })
}
