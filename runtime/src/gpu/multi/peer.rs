//! The exchange over NVLink peer access (`kernels_rs::peer`), for the GPUs one
//! process drives: each GPU reads the peers' slices out of their memory in one
//! launch, after a cross-GPU event barrier (and before a second one where the
//! buffers are not double-buffered), instead of NCCL's all-gather and
//! all-reduce. Ranks (one GPU per process) keep NCCL.
//!
//! Per exchange and GPU: the level's counters published to a slot the peers
//! read → every GPU's level done (barrier 1) → one `vertex_peer_gather`
//! launch (the peers' slices; the published counters' sums over the GPU's own)
//! → where the buffers are not double-buffered, every GPU's reads done
//! (barrier 2) before any GPU writes them again ([`PeerExchange::exchange`]).
//!
//! Barrier 1 is cross-GPU event waits before the launch by default
//! ([`Barrier::Events`], after a copy that publishes the counters), or the
//! launch's own ([`Barrier::Device`], `VERTEX_PEER_BARRIER=device`,
//! `kernels_rs::peer::Arrive`: the launch publishes the counters, writes its
//! arrival into the peers' memory and waits for theirs). Barrier 2 is event
//! waits either way. Measured side by side (2 H200s, Graph500 BFS, `33ef9ce`),
//! the launch's own barrier gained nothing: searches 1.04× faster at scale 24,
//! 0.93× at 25, its exchange 0.342 and 0.370 ms a search against 0.314 and
//! 0.331 with events. A launch spinning for a peer also never finishes under a
//! tool that serialises the GPUs' kernels (it traps after its timeout).
//!
//! `VERTEX_EXCHANGE=nccl` keeps NCCL (the comparison the multi-GPU bench makes).

use cudarc::driver::{result as cu, sys, CudaEvent, CudaFunction};
use kernels_rs::peer::ROW;
use kernels_rs::ThreadCtx;

use super::nccl::Gather;
use crate::error::{Error, Result};
use crate::gpu::cuda::{cuda_err, DevBuf, Gpu};
use crate::gpu::device::Device;
use crate::gpu::launcher::{Arg, DeviceLauncher, Grid, Kernel, Launcher};

/// Counter words a sum may cover (the planners sum two).
pub(super) const MAX_SUM_WORDS: usize = 4;

/// Which route the exchange takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// NCCL collectives (all-gather, broadcast, all-reduce).
    Nccl,
    /// Direct reads over NVLink peer access ([`kernels_rs::peer`]).
    Peer,
}

/// The choice environment variable `var` names among `choices` (name, value);
/// the first when it is unset or empty, an error naming the choices otherwise.
fn env_choice<T: Copy>(var: &str, choices: &[(&str, T)]) -> Result<T> {
    let wanted = std::env::var(var).unwrap_or_default();
    if wanted.is_empty() {
        return Ok(choices[0].1);
    }
    named(&format!("{var}={wanted}"), &wanted, choices)
}

/// The value called `wanted` among `choices` (name, value); an error that
/// starts with `what` and names the choices otherwise.
fn named<T: Copy>(what: &str, wanted: &str, choices: &[(&str, T)]) -> Result<T> {
    match choices.iter().find(|(name, _)| *name == wanted) {
        Some(&(_, v)) => Ok(v),
        None => {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
            Err(Error::InvalidArgument(format!(
                "{what}: expected {}",
                names.join(" or ")
            )))
        }
    }
}

impl Route {
    /// The routes by the names `VERTEX_EXCHANGE`, the CLI's `--exchange` and
    /// Python's `exchange=` take; the first is the default.
    pub const NAMES: [(&'static str, Route); 2] = [("peer", Route::Peer), ("nccl", Route::Nccl)];

    /// `VERTEX_EXCHANGE` (`peer` or `nccl`), default peer.
    pub fn from_env() -> Result<Route> {
        env_choice("VERTEX_EXCHANGE", &Self::NAMES)
    }

    /// The route called `name` ([`Route::NAMES`]); an error naming the choices
    /// otherwise.
    pub fn from_name(name: &str) -> Result<Route> {
        named(&format!("exchange `{name}`"), name, &Self::NAMES)
    }

    /// Its name in [`Route::NAMES`].
    pub fn name(self) -> &'static str {
        match self {
            Route::Peer => "peer",
            Route::Nccl => "nccl",
        }
    }

    /// What a report says about it.
    pub fn describe(self) -> &'static str {
        match self {
            Route::Peer => "peer access (NVLink)",
            Route::Nccl => "NCCL",
        }
    }
}

/// How a peer exchange's launches wait for every GPU's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Barrier {
    /// Each launch waits itself, on arrival words the peers write into its
    /// memory (`kernels_rs::peer::Arrive`).
    Device,
    /// The host enqueues cross-GPU event waits before the launches.
    Events,
}

impl Barrier {
    /// `VERTEX_PEER_BARRIER` (`events` or `device`), default events.
    pub fn from_env() -> Result<Barrier> {
        env_choice(
            "VERTEX_PEER_BARRIER",
            &[("events", Barrier::Events), ("device", Barrier::Device)],
        )
    }
}

/// Enables peer access between every pair of `devices`: `Ok(false)` when some
/// pair cannot (no NVLink or PCIe P2P between them), which leaves the exchange
/// on NCCL.
pub(super) fn enable_peer_access(devices: &[Device]) -> Result<bool> {
    for (p, a) in devices.iter().enumerate() {
        for (q, b) in devices.iter().enumerate() {
            // Parts sharing a device (`multi::ordinals`) read each other's
            // memory in one context: nothing to enable.
            if p == q || a.gpu.ctx.cu_device() == b.gpu.ctx.cu_device() {
                continue;
            }
            let mut can = 0i32;
            // SAFETY: writes one int; both handles come from open contexts.
            unsafe {
                sys::cuDeviceCanAccessPeer(&mut can, a.gpu.ctx.cu_device(), b.gpu.ctx.cu_device())
            }
            .result()
            .map_err(cuda_err("cuDeviceCanAccessPeer"))?;
            if can == 0 {
                return Ok(false);
            }
            a.gpu.bind()?;
            // SAFETY: `a`'s context is current; `b`'s context is live.
            match unsafe { sys::cuCtxEnablePeerAccess(b.gpu.ctx.cu_ctx(), 0) } {
                sys::CUresult::CUDA_SUCCESS
                | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                e => {
                    return Err(Error::Cuda {
                        call: format!("cuCtxEnablePeerAccess(GPU {p} -> GPU {q})"),
                        msg: format!("{e:?}"),
                    })
                }
            }
            // cudarc allocates from the device's stream-ordered memory pool
            // where the driver has one, and context peer access does not
            // reach pool memory: `q` gets access to `p`'s pool as well.
            if a.gpu.ctx.has_async_alloc() {
                let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
                // SAFETY: writes one pool handle for a valid device.
                unsafe { sys::cuDeviceGetMemPool(&mut pool, a.gpu.ctx.cu_device()) }
                    .result()
                    .map_err(cuda_err("cuDeviceGetMemPool"))?;
                let desc = sys::CUmemAccessDesc {
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: b.gpu.ctx.cu_device(),
                    },
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                };
                // SAFETY: one access descriptor for a live pool.
                unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) }
                    .result()
                    .map_err(cuda_err("cuMemPoolSetAccess"))?;
            }
        }
    }
    Ok(true)
}

/// The table every GPU's launch reads: per buffer, per part, the part's copy's
/// address, its slice in 4-byte words and its mask (the part's bitmap and
/// words per element, or zeros). `None` when a slice is not whole words (a
/// state of 1 or 2 bytes), which NCCL then moves.
pub(super) fn table(gathers: &[Vec<Gather>]) -> Option<Vec<u64>> {
    let bufs = gathers.first()?.len();
    if gathers.iter().any(|g| g.len() != bufs) {
        return None;
    }
    let mut t = Vec::with_capacity(bufs * gathers.len() * ROW);
    for b in 0..bufs {
        for (q, g) in gathers.iter().enumerate() {
            let g = &g[b];
            let (first, count) = *g.slices.get(q)?;
            let bytes = |x: u64| x * g.elem_size as u64;
            if g.buf % 4 != 0 || bytes(first) % 4 != 0 || bytes(count) % 4 != 0 {
                return None;
            }
            let (mask, unit) = match g.mask {
                None => (0, 0),
                Some((m, elem_bytes)) if elem_bytes % 4 == 0 && elem_bytes > 0 => {
                    (gathers[q].get(m)?.buf, (elem_bytes / 4) as u64)
                }
                Some(_) => return None,
            };
            t.extend([g.buf, bytes(first) / 4, bytes(count) / 4, mask, unit]);
        }
    }
    Some(t)
}

/// Words the largest (buffer, peer) copy of `table` moves: what sizes the grid.
pub(super) fn largest_copy(table: &[u64]) -> u64 {
    table.chunks(ROW).map(|r| r[2]).max().unwrap_or(0)
}

/// `peer_gather(me, parts, table, bufs, sums, sum_words, sum_out, epoch, flags,
/// publish_from, publish_to)`.
unsafe fn body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `gather_on` builds.
    unsafe {
        kernels_rs::entry::peer_gather(
            t,
            a[0].u32(),
            a[1].u32(),
            a[2].ptr(),
            a[3].u32(),
            a[4].ptr(),
            a[5].u32(),
            a[6].ptr(),
            a[7].u64(),
            a[8].ptr(),
            a[9].ptr(),
            a[10].ptr(),
        )
    }
}

/// A launch's own barrier ([`Barrier::Device`]): device addresses on the
/// launching GPU.
#[derive(Clone, Copy, Debug)]
pub(super) struct ArriveArgs {
    /// The exchange's number, above every earlier one's.
    pub epoch: u64,
    /// `parts` addresses: every GPU's arrival array.
    pub flags: u64,
    /// This GPU's counters and its published slot.
    pub publish: (u64, u64),
}

/// One GPU's launch on any launcher. `table` (addresses on `l`) holds `bufs ·
/// parts` rows, then the `parts` counter addresses when `sum_words > 0`;
/// `arrive`, the launch's own barrier (`None`: the host ordered it).
///
/// # Safety
/// As [`kernels_rs::peer::PeerGather::run`]: every address in the table
/// readable from `l`'s device, no part touching the slices until every
/// launch of the exchange ends; with `arrive`, every part's launch of the
/// exchange enqueued with the same epoch (or the launches wait until the
/// kernel's timeout and fail).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gather_on<L: Launcher>(
    l: &L,
    device: Option<&CudaFunction>,
    me: usize,
    parts: usize,
    table: u64,
    bufs: usize,
    words: u64,
    sum_words: usize,
    sum_out: u64,
    arrive: Option<ArriveArgs>,
) -> Result<()> {
    let sums = match sum_words {
        0 => 0,
        _ => table + (bufs * parts * ROW * 8) as u64,
    };
    let k = Kernel {
        name: "vertex_peer_gather",
        device,
        host: body,
    };
    let args = [
        (me as u32).into(),
        (parts as u32).into(),
        table.into(),
        (bufs as u32).into(),
        sums.into(),
        (sum_words as u32).into(),
        sum_out.into(),
        arrive.map_or(0, |a| a.epoch).into(),
        arrive.map_or(0, |a| a.flags).into(),
        arrive.map_or(0, |a| a.publish.0).into(),
        arrive.map_or(0, |a| a.publish.1).into(),
    ];
    // Enough threads for every (buffer, peer) copy to get its share of blocks.
    let jobs = (bufs * parts.saturating_sub(1)).max(1) as u64;
    // SAFETY: forwarded contract; the argument list is `body`'s.
    unsafe { l.launch(&k, Grid::Resident(words.max(1) * jobs), 256, &args) }
}

/// Tables a GPU keeps on the device before they are all dropped: a run uses
/// a few (two bitmaps, with or without states, a counter block per planned
/// slot), and a new run's buffers mostly land at the same addresses again.
const CACHED_TABLES: usize = 64;

/// The device side: each GPU's kernel, its tables and its published counters.
pub(super) struct PeerExchange {
    kernels: Vec<CudaFunction>,
    /// Per GPU, the tables uploaded so far, by content: a level reuses one
    /// instead of copying it from pageable host memory (a few µs of the
    /// stream's time, every level).
    tables: Vec<Vec<(Vec<u64>, DevBuf<u64>)>>,
    /// Per GPU, two slots of its level counters as the peers read them
    /// ([`PeerExchange::exchange`]), by the exchange's parity.
    published: Vec<DevBuf<u64>>,
    /// Exchanges so far (whose parity picks the published slot).
    count: u64,
    /// How launches wait for every GPU's level.
    barrier: Barrier,
    /// Per GPU, its arrival array (a word per GPU, written by the peers) and
    /// the table of every GPU's arrays' addresses ([`Barrier::Device`]).
    arrivals: Vec<(DevBuf<u64>, DevBuf<u64>)>,
    /// Per GPU, the event its stream records where the event barrier waits
    /// (ordering only, no timestamp). One event recorded again at every
    /// barrier: a stream's wait takes the record made before it, so a later
    /// record does not move it, and no event is created or destroyed a level.
    signals: Vec<CudaEvent>,
}

/// Every GPU records its signal, then every GPU's stream waits for every
/// other GPU's.
fn barrier(gpus: &[&Gpu], signals: &[CudaEvent]) -> Result<()> {
    for (g, e) in gpus.iter().zip(signals) {
        e.record(&g.stream).map_err(cuda_err("cuEventRecord"))?;
    }
    for (q, g) in gpus.iter().enumerate() {
        for (p, e) in signals.iter().enumerate() {
            if p != q {
                g.stream.wait(e).map_err(cuda_err("cuStreamWaitEvent"))?;
            }
        }
    }
    Ok(())
}

impl PeerExchange {
    /// For `devices`, whose peer access [`enable_peer_access`] enabled.
    pub(super) fn new(devices: &[Device], barrier: Barrier) -> Result<PeerExchange> {
        let parts = devices.len();
        let mut x = PeerExchange {
            kernels: Vec::with_capacity(parts),
            tables: Vec::with_capacity(parts),
            published: Vec::with_capacity(parts),
            count: 0,
            barrier,
            arrivals: Vec::with_capacity(parts),
            signals: Vec::with_capacity(parts),
        };
        let mut arrays = Vec::with_capacity(parts);
        for d in devices {
            x.signals.push(
                d.gpu
                    .ctx
                    .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                    .map_err(cuda_err("cuEventCreate"))?,
            );
            x.kernels.push(d.k.peer_gather.clone());
            x.tables.push(Vec::new());
            x.published.push(
                d.gpu
                    .alloc::<u64>(2 * MAX_SUM_WORDS, "published level counters")?,
            );
            // Zeroed: no exchange has arrived (epochs start at 1).
            arrays.push(d.gpu.upload(&vec![0u64; parts], "peer arrival words")?);
        }
        let addrs: Vec<u64> = arrays.iter().map(|a| a.ptr).collect();
        for (d, a) in devices.iter().zip(arrays) {
            let table = d.gpu.upload(&addrs, "peer arrival table")?;
            x.arrivals.push((a, table));
        }
        for d in devices {
            // The zeroed words are on the device before any peer writes one.
            d.gpu.sync("zeroing the peer arrival words")?;
        }
        Ok(x)
    }

    /// How the launches wait for every GPU's level.
    pub(super) fn barrier(&self) -> Barrier {
        self.barrier
    }

    /// Picks how the launches wait. The epochs go on across the switch (the
    /// event barrier counts exchanges too), so arrival words stay below them.
    pub(super) fn set_barrier(&mut self, barrier: Barrier) {
        self.barrier = barrier;
    }

    /// The device address of table `t` on GPU `q`, uploaded the first time.
    fn table_on(&mut self, q: usize, g: &Gpu, t: &[u64]) -> Result<u64> {
        let cache = &mut self.tables[q];
        if let Some((_, b)) = cache.iter().find(|(k, _)| k.as_slice() == t) {
            return Ok(b.ptr);
        }
        if cache.len() >= CACHED_TABLES {
            // Stream-ordered frees: launches already enqueued keep theirs.
            cache.clear();
        }
        let b = g.upload(t, "peer exchange table")?;
        let ptr = b.ptr;
        cache.push((t.to_vec(), b));
        Ok(ptr)
    }

    /// Enqueues [`super::nccl::Comms::exchange`]'s exchange over peer access:
    /// `Ok(false)` (nothing enqueued) when a slice is not whole words.
    ///
    /// `double_buffered`: no GPU writes the exchanged buffers again before the
    /// next exchange's barrier (a level's bitmap, swapped for the other one
    /// next level, with no states beside it). Then one barrier suffices: a GPU
    /// next touches this buffer two levels on, after waiting for every peer's
    /// next level, which its stream ordered after the peer's reads. Otherwise
    /// (states, the near-far passes' pending set, gather messages) a second
    /// barrier keeps every GPU off its buffers until every peer has read them.
    ///
    /// The counters to sum are first published (copied to a slot the peers
    /// read, by the exchange's parity), so each GPU's launch writes the sum
    /// over its own counters while a peer may still be reading: a GPU is at
    /// most one exchange ahead of any peer, so the slot it writes next is not
    /// the one a peer still reads.
    pub(super) fn exchange(
        &mut self,
        gpus: &[&Gpu],
        gathers: &[Vec<Gather>],
        sums: Option<(&[u64], usize)>,
        double_buffered: bool,
    ) -> Result<bool> {
        let parts = gpus.len();
        if gathers.len() != parts || parts != self.kernels.len() {
            return Err(Error::InvalidArgument(format!(
                "peer exchange over {parts} GPUs with {} gathers and {} set up",
                gathers.len(),
                self.kernels.len()
            )));
        }
        let Some(mut t) = table(gathers) else {
            return Ok(false);
        };
        let bufs = gathers[0].len();
        let words = largest_copy(&t);
        let sum_words = sums.map_or(0, |s| s.1);
        if sum_words > MAX_SUM_WORDS {
            return Ok(false);
        }
        let slot = (self.count % 2) as usize * MAX_SUM_WORDS * 8;
        self.count += 1;
        let device = self.barrier == Barrier::Device;
        if let Some((ptrs, counters)) = sums {
            for (q, g) in gpus.iter().enumerate() {
                let published = self.published[q].ptr + slot as u64;
                t.push(published);
                if device {
                    continue; // the launch publishes them
                }
                // The stream is the context's default (null) one, which a raw
                // call resolves through the thread's current context: unbound,
                // GPU 0's copy went onto the last-bound GPU's stream, unordered
                // with GPU 0's level (a 2-GPU run planned from unsummed counters).
                g.bind()?;
                // SAFETY: `ptrs[q]` holds `counters` counters on GPU `q`, the
                // published slot `MAX_SUM_WORDS`; stream-ordered after the level.
                unsafe {
                    cu::memcpy_dtod_async(published, ptrs[q], counters * 8, g.stream.cu_stream())
                }
                .map_err(cuda_err("cuMemcpyDtoDAsync(published counters)"))?;
            }
        }
        if !device {
            barrier(gpus, &self.signals)?;
        }
        for (q, g) in gpus.iter().enumerate() {
            let l = DeviceLauncher { gpu: g };
            let table = self.table_on(q, g, &t)?;
            let own = sums.map_or(0, |(ptrs, _)| ptrs[q]);
            let arrive = device.then(|| ArriveArgs {
                epoch: self.count,
                flags: self.arrivals[q].1.ptr,
                publish: (own, self.published[q].ptr + slot as u64),
            });
            // SAFETY: peer access is on between all GPUs (`enable_peer_access`);
            // the table names each GPU's live buffer and slices (`table`) and
            // published counters; the barriers keep every part off what is
            // read until it is read (see above). The sums go over GPU `q`'s
            // own counters (`sums[q]`), which no peer reads. With the device
            // barrier every GPU's launch is enqueued here with the same epoch
            // (an error above returns before any is).
            unsafe {
                gather_on(
                    &l,
                    Some(&self.kernels[q]),
                    q,
                    parts,
                    table,
                    bufs,
                    words,
                    sum_words,
                    own,
                    arrive,
                )?
            };
        }
        if !double_buffered {
            barrier(gpus, &self.signals)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::launcher::HostLauncher;
    use cudarc::nccl::sys::ncclDataType_t;

    fn gather(buf: u64, slices: &[(u64, u64)], elem_size: usize) -> Gather {
        Gather {
            buf,
            slices: slices.to_vec(),
            equal: false,
            elem: ncclDataType_t::ncclUint8,
            elem_size,
            mask: None,
        }
    }

    #[test]
    fn choices_from_the_environment_default_to_the_first_and_name_the_others() {
        let var = "VERTEX_TEST_PEER_CHOICE";
        let choices = [("events", 1), ("device", 2)];
        std::env::remove_var(var);
        assert_eq!(env_choice(var, &choices).unwrap(), 1);
        std::env::set_var(var, "device");
        assert_eq!(env_choice(var, &choices).unwrap(), 2);
        std::env::set_var(var, "fast");
        let e = env_choice(var, &choices).unwrap_err().to_string();
        assert!(
            e.contains("VERTEX_TEST_PEER_CHOICE=fast: expected `events` or `device`"),
            "{e}"
        );
        std::env::remove_var(var);
    }

    #[test]
    fn tables_take_whole_words_only() {
        // A bitmap of words and 8-byte states: slices in words.
        let g = vec![
            vec![
                gather(64, &[(0, 2), (2, 3)], 4),
                gather(128, &[(0, 2), (2, 3)], 8),
            ],
            vec![
                gather(256, &[(0, 2), (2, 3)], 4),
                gather(512, &[(0, 2), (2, 3)], 8),
            ],
        ];
        let t = table(&g).unwrap();
        assert_eq!(
            t,
            vec![64, 0, 2, 0, 0, 256, 2, 3, 0, 0, 128, 0, 4, 0, 0, 512, 4, 6, 0, 0],
            "rows per buffer, then per part"
        );
        assert_eq!(largest_copy(&t), 6);
        // States in bytes, masked by the bitmap (gather 0): 8 bytes = 2 words
        // a vertex; a mask of 2-byte elements is NCCL's.
        let masked = |elem_bytes| {
            (0..2u64)
                .map(|p| {
                    let mut s = gather(1024 * (p + 1), &[(0, 16), (16, 24)], 1);
                    s.mask = Some((0, elem_bytes));
                    vec![gather(64 * (p + 1), &[(0, 2), (2, 3)], 4), s]
                })
                .collect::<Vec<_>>()
        };
        let t = table(&masked(8)).unwrap();
        assert_eq!(&t[10..], &[1024, 0, 4, 64, 2, 2048, 4, 6, 128, 2]);
        assert_eq!(table(&masked(2)), None);
        // Two-byte states whose slice starts mid-word: NCCL's job.
        let odd = vec![
            vec![gather(64, &[(0, 3), (3, 3)], 2)],
            vec![gather(256, &[(0, 3), (3, 3)], 2)],
        ];
        assert_eq!(table(&odd), None);
    }

    #[test]
    fn emulated_gpus_end_with_every_slice_and_the_summed_counters() {
        // Three "GPUs" (host buffers) with uneven slices of a 37-word bitmap and
        // of 37 two-word states; each holds only its own slices before.
        let parts = 3;
        let words = [(0u64, 10u64), (10, 0), (10, 27)];
        let fill = |p: usize, mult: u64, len: u64, unit: u64| -> Vec<u32> {
            (0..len * unit)
                .map(|i| {
                    let (f, c) = words[p];
                    let v = i / unit;
                    if v >= f && v < f + c {
                        (mult * (p as u64 + 1) + i) as u32
                    } else {
                        0xdead
                    }
                })
                .collect()
        };
        let mut bits: Vec<Vec<u32>> = (0..parts).map(|p| fill(p, 1000, 37, 1)).collect();
        let mut states: Vec<Vec<u32>> = (0..parts).map(|p| fill(p, 100_000, 37, 2)).collect();
        let counters: Vec<Vec<u64>> = (0..parts as u64)
            .map(|p| vec![p + 1, 10 * (p + 1)])
            .collect();
        let gathers: Vec<Vec<Gather>> = (0..parts)
            .map(|p| {
                vec![
                    gather(bits[p].as_mut_ptr() as u64, &words, 4),
                    gather(states[p].as_mut_ptr() as u64, &words, 8),
                ]
            })
            .collect();
        let mut t = table(&gathers).unwrap();
        t.extend(counters.iter().map(|c| c.as_ptr() as u64));
        let largest = largest_copy(&t);
        let l = HostLauncher::new(4);
        for me in 0..parts {
            let mut out = [0u64; 2];
            // SAFETY: every address names a live host buffer of the sizes given.
            unsafe {
                gather_on(
                    &l,
                    None,
                    me,
                    parts,
                    t.as_ptr() as u64,
                    2,
                    largest,
                    2,
                    out.as_mut_ptr() as u64,
                    None,
                )
            }
            .unwrap();
            assert_eq!(out, [6, 60], "GPU {me}'s sums");
        }
        let owner = |v: u64| {
            words
                .iter()
                .position(|&(f, c)| v >= f && v < f + c)
                .unwrap()
        };
        for p in 0..parts {
            for (i, &w) in bits[p].iter().enumerate() {
                assert_eq!(w as u64, 1000 * (owner(i as u64) as u64 + 1) + i as u64);
            }
            for (i, &w) in states[p].iter().enumerate() {
                let i = i as u64;
                assert_eq!(w as u64, 100_000 * (owner(i / 2) as u64 + 1) + i);
            }
        }
    }

    #[test]
    fn emulated_gpus_that_wait_for_each_other_themselves_run_side_by_side() {
        // Three "GPUs" as threads, each launching its share with the device
        // barrier (arrival words and published counters in host memory): the
        // launch publishes, arrives, waits for the others and copies.
        use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
        let parts = 3;
        let words = [(0u64, 5u64), (5, 9), (14, 3)];
        let bits: Vec<Vec<AtomicU32>> = (0..parts)
            .map(|p| {
                (0..17u64)
                    .map(|i| {
                        let (f, c) = words[p];
                        AtomicU32::new(if i >= f && i < f + c {
                            7 * i as u32 + 1
                        } else {
                            0
                        })
                    })
                    .collect()
            })
            .collect();
        let counters: Vec<[AtomicU64; 2]> = (0..parts as u64)
            .map(|p| [AtomicU64::new(p + 1), AtomicU64::new(10 * (p + 1))])
            .collect();
        let published: Vec<[AtomicU64; 2]> =
            (0..parts).map(|_| [0, 0].map(AtomicU64::new)).collect();
        let arrivals: Vec<Vec<AtomicU64>> = (0..parts)
            .map(|_| (0..parts).map(|_| AtomicU64::new(0)).collect())
            .collect();
        let flags: Vec<u64> = arrivals.iter().map(|a| a.as_ptr() as u64).collect();
        let gathers: Vec<Vec<Gather>> = (0..parts)
            .map(|p| vec![gather(bits[p].as_ptr() as u64, &words, 4)])
            .collect();
        let mut t = table(&gathers).unwrap();
        t.extend(published.iter().map(|c| c.as_ptr() as u64));
        let largest = largest_copy(&t);
        // The emulator runs a launch's blocks on rayon, and a block waiting for
        // a peer holds its worker: a pool with a worker for every part's
        // blocks (2 each), not the global one (2 workers on a 2-core machine).
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2 * parts + 2)
            .build()
            .unwrap();
        std::thread::scope(|s| {
            for me in 0..parts {
                let (t, flags, counters, published, pool) =
                    (&t, &flags, &counters, &published, &pool);
                s.spawn(move || {
                    pool.install(|| {
                        let l = HostLauncher::new(2);
                        let out = [AtomicU64::new(0), AtomicU64::new(0)];
                        let arrive = ArriveArgs {
                            epoch: 1,
                            flags: flags.as_ptr() as u64,
                            publish: (counters[me].as_ptr() as u64, published[me].as_ptr() as u64),
                        };
                        // SAFETY: every address names a live host buffer of the sizes
                        // given; the parts touch one another's only through atomics
                        // and the slices the barrier orders.
                        unsafe {
                            gather_on(
                                &l,
                                None,
                                me,
                                parts,
                                t.as_ptr() as u64,
                                1,
                                largest,
                                2,
                                out.as_ptr() as u64,
                                Some(arrive),
                            )
                        }
                        .unwrap();
                        assert_eq!(
                            [out[0].load(Relaxed), out[1].load(Relaxed)],
                            [6, 60],
                            "GPU {me}'s sums"
                        );
                    })
                });
            }
        });
        for (p, b) in bits.iter().enumerate() {
            for (i, w) in b.iter().enumerate() {
                assert_eq!(w.load(Relaxed), 7 * i as u32 + 1, "GPU {p} word {i}");
            }
        }
        assert!(arrivals.iter().enumerate().all(|(q, a)| a
            .iter()
            .enumerate()
            .all(|(p, w)| w.load(Relaxed) == u64::from(p != q))));
    }
}
