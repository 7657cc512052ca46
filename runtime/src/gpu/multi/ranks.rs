//! GPU ranks: one process per GPU, each holding only its part of the graph,
//! joined by NCCL (`ncclCommInitRank`, the unique id handed out over the
//! ranks' TCP link, [`crate::dist::Comm`]). The traversal is the one-process
//! multi-GPU loop ([`super::device`]) with one local part: the same kernels,
//! the same in-place all-gathers of bitmap and state slices, now between
//! processes, and so between hosts wherever NCCL reaches.
//!
//! A rank's part comes from its rows ([`crate::dist::RankGraph`]: the
//! in-neighbours of its vertices): those are the in-edges its bottom-up
//! levels scan, and their transpose is the out-slice its top-down levels
//! relax (edges into its vertices, by source). The whole graph's out-degrees,
//! which the direction heuristic sums over frontiers, are all-gathered by
//! NCCL (4 bytes a vertex; no rank holds another's edges).

use rayon::prelude::*;
use std::sync::Arc;

use cudarc::nccl::sys::ncclDataType_t;

use super::device::{MultiGpu, MultiGraph};
use super::nccl::{Comms, Gather};
use super::partition::{PartGraph, Partition};
use crate::dist::rows::map_rows;
use crate::dist::{Comm, RankEnv, RankGraph};
use crate::error::{Error, Result};
use crate::gpu::device::Device;
use crate::graph::Csr;

/// Why this process cannot be a GPU rank, if it cannot: no CUDA driver or
/// no NCCL library. (Ranks decide together: `auto` runs on GPUs only when
/// every rank can.)
pub fn rank_gpu_missing() -> Option<String> {
    if !crate::gpu::cuda::driver_present() {
        return Some("no CUDA driver (libcuda.so)".into());
    }
    super::device::nccl_setup().err().map(|e| e.to_string())
}

impl MultiGpu {
    /// This process as rank `env.rank` of `env.world` on GPU `env.local_rank`
    /// (of the GPUs it sees): rank 0 draws NCCL's unique id, `comm` hands it
    /// to every rank, and all join one communicator. `comm` is kept
    /// ([`MultiGpu::host`]) for the host-side sums.
    pub fn join(env: &RankEnv, comm: Arc<Comm>) -> Result<MultiGpu> {
        if comm.rank() != env.rank || comm.world() != env.world {
            return Err(Error::InvalidArgument(format!(
                "the host link is rank {} of {}, the environment says rank {} of {}",
                comm.rank(),
                comm.world(),
                env.rank,
                env.world
            )));
        }
        super::device::nccl_setup()?;
        let device = Device::open(env.local_rank).map_err(|e| match e {
            Error::GpuUnavailable(m) => Error::GpuUnavailable(format!(
                "rank {} (LOCAL_RANK {}): {m}",
                env.rank, env.local_rank
            )),
            e => e,
        })?;
        let mine = match env.rank {
            0 => Comms::unique_id()?.to_vec(),
            _ => Vec::new(),
        };
        let ids = comm.all_gather(&mine)?;
        let id: [u8; 128] = ids
            .first()
            .and_then(|b| b.as_slice().try_into().ok())
            .ok_or_else(|| Error::InvalidArgument("rank 0 sent no NCCL id".into()))?;
        device.gpu.bind()?;
        let comms = Comms::join(&id, env.rank, env.world)?;
        let m = MultiGpu {
            devices: vec![device],
            comms,
            parts_of: vec![env.rank],
            world: env.world,
            host: Some(comm),
            peer: None,
            route: super::peer::Route::Nccl,
        };
        m.comms.warm_up(&m.devices, m.world)?;
        Ok(m)
    }

    /// Uploads this rank's part of a graph, its vertex range being the one
    /// `g` was built for. `hubs_first`: each vertex's in-neighbours in
    /// decreasing whole-graph degree (as [`crate::graph::Csr::hubs_first`]
    /// orders a one-process graph), so that bottom-up levels mostly stop at
    /// the first one they test. `weight(u, v)`: the weight of edge `u→v`, for
    /// weighted programs (a function of the edge, such as
    /// [`crate::generate::edge_weight`], so that no rank needs another's).
    pub fn upload_rank(
        &self,
        g: &RankGraph,
        hubs_first: bool,
        weight: Option<&EdgeWeight>,
    ) -> Result<MultiGraph> {
        let host = self.rank_link("upload_rank")?;
        let part = self.rank_partition(g)?;
        let d = &self.devices[0];
        let offsets = self.whole_offsets(g, &part)?;
        let pg = rank_part_graph(g, hubs_first.then_some(offsets.as_slice()), weight)?;
        let part_edges = (pg.out.num_edges(), pg.incoming.num_edges());
        let graph = d.upload_part(&pg, weight.is_some())?;
        drop(pg);
        let degree_offsets = d.gpu.upload(&offsets, "graph offsets")?;
        let m = host.all_reduce_sum(g.targets.len() as u64)?;
        Ok(MultiGraph {
            part,
            graphs: vec![graph],
            degree_offsets: vec![degree_offsets],
            offsets,
            m,
            weighted: weight.is_some(),
            symmetric: g.symmetric,
            part_edges: vec![part_edges],
        })
    }

    /// The partition of the ranks' GPUs, which must be the vertex ranges
    /// `g` was cut by (and this rank's part its rows).
    pub(super) fn rank_partition(&self, g: &RankGraph) -> Result<Partition> {
        if g.parts.world() != self.world {
            return Err(Error::InvalidArgument(format!(
                "a graph cut for {} ranks on a run over {}",
                g.parts.world(),
                self.world
            )));
        }
        let rank = self.parts_of[0];
        let n = g.num_vertices as u64;
        let part = Partition::with_span(n, self.world, g.parts.span() as u64)?;
        if part.range(rank) != (g.first as u64..(g.first + g.rows()) as u64) {
            return Err(Error::InvalidArgument(format!(
                "rank {rank} holds rows {}..{}, its GPU part is {:?}",
                g.first,
                g.first + g.rows(),
                part.range(rank)
            )));
        }
        Ok(part)
    }

    /// The whole graph's out-degree offsets (`n + 1`): each rank's
    /// out-degrees of its vertices (row lengths on a symmetric graph, one
    /// host all-to-all on a directed one), all-gathered in place by NCCL.
    pub(super) fn whole_offsets(&self, g: &RankGraph, part: &Partition) -> Result<Vec<u64>> {
        let host = self.rank_link("whole_offsets")?;
        let mine = crate::dist::out_degrees(g, host)?;
        let padded = part.padded_states() as usize;
        let gpu = &self.devices[0].gpu;
        let mut all = vec![0u32; padded];
        all[g.first..g.first + mine.len()].copy_from_slice(&mine);
        let buf = gpu.upload(&all, "out-degrees")?;
        let gather = Gather {
            buf: buf.ptr,
            slices: (0..part.parts).map(|q| part.state_slice(q)).collect(),
            equal: part.span.is_some(),
            elem: ncclDataType_t::ncclUint32,
            elem_size: 4,
            mask: None,
        };
        self.comms.exchange(&[gpu], &[vec![gather]], None)?;
        gpu.download(&buf, &mut all, "out-degrees")?;
        Ok(super::gather::offsets_of_degrees(&all[..g.num_vertices]))
    }
}

/// The weight of edge `u→v`, computed where the edge is.
pub type EdgeWeight = dyn Fn(u32, u32) -> u32 + Sync;

/// A rank's part as the multi-GPU engine holds it ([`PartGraph`]): `out`,
/// the edges into the rank's vertices by source over all `n` sources (the
/// transpose of its rows, each row sorted), and `incoming`, its rows over
/// all `n` vertices (the other vertices' rows empty), by id, or hubs first
/// when the whole graph's offsets are given (`hubs`: decreasing degree, then
/// id); the out-slice weighted by `weight` when given.
pub fn rank_part_graph(
    g: &RankGraph,
    hubs: Option<&[u64]>,
    weight: Option<&EdgeWeight>,
) -> Result<PartGraph<u32>> {
    let n = g.num_vertices;
    let rows = g.rows();
    if g.first + rows > n || g.offsets.last().copied() != Some(g.targets.len() as u64) {
        return Err(Error::InvalidGraph(format!(
            "rows {}..{} of {n} vertices with {} offsets for {} targets",
            g.first,
            g.first + rows,
            g.offsets.len(),
            g.targets.len()
        )));
    }
    if let Some(&t) = g.targets.par_iter().find_any(|&&t| t as usize >= n) {
        return Err(Error::InvalidGraph(format!(
            "an in-neighbour {t} out of range ({n} vertices)"
        )));
    }
    // The transpose of the rows: source u's edges into this rank.
    let first = g.first;
    let (offsets, targets) = crate::dist::rows::bucket_rows(
        n,
        || {
            (0..rows).into_par_iter().flat_map_iter(move |i| {
                let v = (first + i) as u32;
                g.neighbors(first + i).iter().map(move |&u| (u, v))
            })
        },
        false,
    );
    let weights = weight.map(|w| map_rows(&offsets, &targets, |u, v| w(u as u32, v)));
    let out = Csr::from_parts_unchecked(offsets, targets, weights);
    let in_offsets = super::gather::rank_in_offsets(g);
    let mut in_targets = g.targets.clone();
    if let Some(o) = hubs {
        if o.len() != n + 1 {
            return Err(Error::InvalidArgument(format!(
                "{} offsets for a graph of {n} vertices",
                o.len()
            )));
        }
        let key = |t: &u32| (std::cmp::Reverse(o[*t as usize + 1] - o[*t as usize]), *t);
        crate::dist::rows::sort_rows_by_key(&g.offsets, &mut in_targets, key);
    }
    let incoming = Csr::from_parts_unchecked(in_offsets, in_targets, None);
    Ok(PartGraph { out, incoming })
}
