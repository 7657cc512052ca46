//! The NCCL calls of the multi-GPU exchange, on raw communicators: cudarc's
//! `Comm::all_gather` takes the send and receive buffers as two borrows, so it
//! cannot express NCCL's in-place all-gather (`sendbuff = recvbuff + rank ·
//! count`), which saves a device copy of the part's slice before every exchange.
//! Everything here is enqueued on the GPU's one stream, between its level kernels.

use cudarc::nccl::result as nr;
use cudarc::nccl::sys;

use super::partition::Partition;
use crate::error::{Error, Result};
use crate::gpu::cuda::Gpu;
use crate::gpu::device::Device;

/// This process's NCCL communicators, one per GPU it drives: all of one
/// host's GPUs ([`Comms::open`]), or one rank's ([`Comms::join`]).
pub(super) struct Comms {
    raw: Vec<sys::ncclComm_t>,
    /// Each communicator's rank (its part of the partition).
    ranks: Vec<usize>,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a
// time (NCCL's docs: not thread-safe for concurrent use). `Comms` is only
// `Send`, not `Sync`: what moves it across threads (the run cache's mutex)
// gives it to one thread at a time, and its calls take `&self` on that thread.
unsafe impl Send for Comms {}

fn nccl_err(what: &str) -> impl FnOnce(nr::NcclError) -> Error + '_ {
    move |e| Error::Cuda {
        call: what.to_string(),
        msg: format!("{e:?}"),
    }
}

/// What one rank exchanges of one buffer: rank `q`'s slice is elements
/// `[slices[q].0, slices[q].0 + slices[q].1)` of `buf`, and every rank ends with
/// every slice. With `equal` slices laid end to end (`slices[q].0 = q · count`)
/// that is one in-place all-gather; otherwise one in-place broadcast per rank.
pub(super) struct Gather {
    pub buf: u64,
    pub slices: Vec<(u64, u64)>,
    pub equal: bool,
    pub elem: sys::ncclDataType_t,
    pub elem_size: usize,
    /// For the peer exchange only: `(g, bytes)` moves an element of `bytes`
    /// only where its bit is set in the bitmap of gather `g` of the same list
    /// (states along their frontier bitmap, `kernels_rs::peer`); NCCL moves
    /// the whole slice.
    pub mask: Option<(usize, usize)>,
}

impl Gather {
    /// The parts' slices of a frontier bitmap of `words` words at `buf` (each
    /// slice cut to the buffer: a host copy holds the graph's words, a device
    /// one the padded count).
    pub(super) fn bitmap(part: &Partition, buf: u64, words: u64) -> Gather {
        Gather {
            buf,
            slices: (0..part.parts)
                .map(|q| within(part.word_slice(q), words))
                .collect(),
            equal: part.span.is_some(),
            elem: sys::ncclDataType_t::ncclUint32,
            elem_size: 4,
            mask: None,
        }
    }

    /// The parts' slices of `len` states of `size` bytes at `buf`, in bytes,
    /// masked for the peer exchange by the bitmap that is gather 0 of the same
    /// list: only the states of the bitmap's vertices changed.
    pub(super) fn states(part: &Partition, buf: u64, len: u64, size: usize) -> Gather {
        let bytes = size as u64;
        Gather {
            buf,
            slices: (0..part.parts)
                .map(|q| {
                    let (first, count) = within(part.state_slice(q), len);
                    (first * bytes, count * bytes)
                })
                .collect(),
            equal: part.span.is_some(),
            elem: sys::ncclDataType_t::ncclUint8,
            elem_size: 1,
            mask: Some((0, size)),
        }
    }
}

/// Slice `(first, count)` cut to a buffer of `len` elements.
fn within((first, count): (u64, u64), len: u64) -> (u64, u64) {
    let first = first.min(len);
    (first, count.min(len - first))
}

impl Comms {
    /// Communicators over CUDA devices `ordinals`, part `p` on `ordinals[p]`
    /// (`ncclCommInitAll`, which refuses a device listed twice).
    pub(super) fn open(ordinals: &[usize]) -> Result<Comms> {
        let gpus = ordinals.len();
        let mut raw = vec![std::ptr::null_mut(); gpus];
        let ordinals: Vec<i32> = ordinals.iter().map(|&d| d as i32).collect();
        // SAFETY: `raw` has room for `gpus` communicators, `ordinals` lists `gpus`
        // device ordinals; NCCL writes one communicator per device.
        unsafe { nr::comm_init_all(raw.as_mut_ptr(), gpus as i32, ordinals.as_ptr()) }
            .map_err(nccl_err("ncclCommInitAll"))?;
        Ok(Comms {
            raw,
            ranks: (0..gpus).collect(),
        })
    }

    /// No communicators: parts that share a GPU, which exchange over peer
    /// access alone (`multi::ordinals`).
    pub(super) fn none() -> Comms {
        Comms {
            raw: Vec::new(),
            ranks: Vec::new(),
        }
    }

    /// Whether there are no communicators ([`Comms::none`]).
    pub(super) fn is_none(&self) -> bool {
        self.raw.is_empty()
    }

    /// One tiny all-gather and all-reduce over the `world` ranks, from
    /// `devices` (this process's). NCCL connects its peers at the first
    /// collective (tens of ms over NVLink), which would otherwise be timed as
    /// part of the first run's first exchange. Nothing without communicators.
    pub(super) fn warm_up(&self, devices: &[Device], world: usize) -> Result<()> {
        if self.is_none() {
            return Ok(());
        }
        let bufs = devices
            .iter()
            .map(|d| d.gpu.upload(&vec![0u64; world], "NCCL warm-up"))
            .collect::<Result<Vec<_>>>()?;
        let gathers: Vec<Vec<Gather>> = bufs
            .iter()
            .map(|b| {
                vec![Gather {
                    buf: b.ptr,
                    slices: (0..world as u64).map(|q| (q, 1)).collect(),
                    equal: true,
                    elem: sys::ncclDataType_t::ncclUint64,
                    elem_size: 8,
                    mask: None,
                }]
            })
            .collect();
        let ptrs: Vec<u64> = bufs.iter().map(|b| b.ptr).collect();
        let gpus: Vec<&Gpu> = devices.iter().map(|d| &d.gpu).collect();
        self.exchange(&gpus, &gathers, Some((&ptrs, 1)))?;
        for g in gpus {
            g.sync("NCCL warm-up")?;
        }
        Ok(())
    }

    /// A new NCCL id, to be handed to every rank ([`Comms::join`]).
    pub(super) fn unique_id() -> Result<[u8; 128]> {
        let id = nr::get_uniqueid().map_err(nccl_err("ncclGetUniqueId"))?;
        Ok(id.internal.map(|c| c as u8))
    }

    /// Rank `rank` of `world` joining the communicator of `id` on the GPU
    /// current on this thread (`ncclCommInitRank`; returns once every rank
    /// has joined).
    pub(super) fn join(id: &[u8; 128], rank: usize, world: usize) -> Result<Comms> {
        let id = sys::ncclUniqueId {
            internal: id.map(|b| b as core::ffi::c_char),
        };
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` receives one communicator; `id` is the 128-byte id
        // rank 0 drew, `rank < world`.
        unsafe { nr::comm_init_rank(&mut raw, world as i32, id, rank as i32) }
            .map_err(nccl_err("ncclCommInitRank"))?;
        Ok(Comms {
            raw: vec![raw],
            ranks: vec![rank],
        })
    }

    /// Enqueues, as one NCCL group, on each local communicator `p`'s stream
    /// (`gpus[p]`): the in-place exchanges `gathers[p]` and, if `sum` is
    /// given, an in-place sum over the ranks of the `sum.1` u64 words at
    /// device address `sum[p]`.
    pub(super) fn exchange(
        &self,
        gpus: &[&Gpu],
        gathers: &[Vec<Gather>],
        sums: Option<(&[u64], usize)>,
    ) -> Result<()> {
        if self.raw.is_empty() {
            return Err(Error::InvalidArgument(
                "this exchange needs NCCL (slices of 1- or 2-byte states, or `exchange nccl`), \
                 and the parts share a GPU (VERTEX_MULTI_DEVICES), which NCCL cannot join"
                    .into(),
            ));
        }
        if gpus.len() != self.raw.len() || gathers.len() != self.raw.len() {
            return Err(Error::InvalidArgument(format!(
                "exchange over {} GPUs with {} communicators",
                gpus.len(),
                self.raw.len()
            )));
        }
        nr::group_start().map_err(nccl_err("ncclGroupStart"))?;
        let mut out = Ok(());
        for (p, ((&comm, gpu), gs)) in self.raw.iter().zip(gpus).zip(gathers).enumerate() {
            let rank = self.ranks[p];
            let stream = gpu.stream.cu_stream() as sys::cudaStream_t;
            for g in gs {
                let r = match g.equal {
                    true => {
                        let count = g.slices.first().map_or(0, |s| s.1) as usize;
                        let send = g.buf + (rank * count * g.elem_size) as u64;
                        // SAFETY: `buf` holds `ranks · count` elements on this
                        // rank's device (the padded bitmap or state array), and
                        // the send slice is this rank's part of it: NCCL's
                        // in-place all-gather.
                        unsafe {
                            nr::all_gather(
                                send as *const _,
                                g.buf as *mut _,
                                count,
                                g.elem,
                                comm,
                                stream,
                            )
                        }
                        .map(|_| ())
                    }
                    false => g
                        .slices
                        .iter()
                        .enumerate()
                        .filter(|(_, &(_, count))| count > 0)
                        .try_for_each(|(root, &(first, count))| {
                            let at = g.buf + first * g.elem_size as u64;
                            // SAFETY: `[first, first + count)` lies in `buf` on
                            // every rank (the bitmap or state array, sized for
                            // all vertices); send = receive: in-place broadcast
                            // from `root`, which owns the slice.
                            unsafe {
                                nr::broadcast(
                                    at as *const _,
                                    at as *mut _,
                                    count as usize,
                                    g.elem,
                                    root as i32,
                                    comm,
                                    stream,
                                )
                            }
                            .map(|_| ())
                        }),
                };
                if let Err(e) = r {
                    out = Err(nccl_err("ncclAllGather/ncclBroadcast")(e));
                }
            }
            if let Some((ptrs, words)) = sums {
                let at = ptrs[p];
                // SAFETY: `at` is `words` u64 counters on this rank's device.
                let r = unsafe {
                    nr::all_reduce(
                        at as *const _,
                        at as *mut _,
                        words,
                        sys::ncclDataType_t::ncclUint64,
                        sys::ncclRedOp_t::ncclSum,
                        comm,
                        stream,
                    )
                };
                if let Err(e) = r {
                    out = Err(nccl_err("ncclAllReduce(level counters)")(e));
                }
            }
        }
        // The group is closed even when a call failed, so NCCL is left usable.
        nr::group_end().map_err(nccl_err("ncclGroupEnd"))?;
        out
    }
}

impl Drop for Comms {
    fn drop(&mut self) {
        for &c in &self.raw {
            // SAFETY: a communicator from `ncclCommInitAll`, destroyed once.
            let _ = unsafe { nr::comm_destroy(c) };
        }
    }
}
