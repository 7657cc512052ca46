//! The tiled kernel's launch side: the GPU's [`Crew`] (the resident kernel's
//! team with scoped fences and a short sleep), the entry over raw pointers that
//! the `tiles_kernel!` macro and the host emulator both call, and that macro.

use core::sync::atomic::Ordering::Relaxed;

use super::rings::packed;
use super::{queue_len, Crew, Outbox, TileSmem, Tiles, CHAIN_HOPS, CTL_WORDS, OUTBOX, SMEM_HEADER};
use crate::program::Program;
use crate::skeleton::CsrView;
#[cfg(target_arch = "nvptx64")]
use crate::thread::ThreadCtx;
use crate::word::StateWord;

/// The GPU's [`Crew`]: the resident kernel's team, with its block barrier,
/// plus scoped fences and a short sleep.
#[cfg(target_arch = "nvptx64")]
impl Crew for crate::resident::PtxTeam {
    #[inline(always)]
    fn ctx(&self) -> ThreadCtx {
        self.0
    }
    #[inline(always)]
    fn sync_block(&self) {
        // Every thread of the block reaches every block barrier of the tiled
        // kernel: the round loop's branches and its exit depend only on shared
        // words read after a barrier, the same in every thread.
        crate::resident::Team::sync_block(self)
    }
    #[inline(always)]
    fn sync_workers(&self, threads: u32) {
        // SAFETY: barrier 1 is the workers' alone (whole warps, `threads` of
        // them, a multiple of 32): each reaches each of its barriers, since
        // their branches depend only on shared words read after one.
        unsafe { core::arch::asm!("bar.sync 1, {n};", n = in(reg32) threads, options(nostack)) };
    }
    #[inline(always)]
    fn fence_block(&self) {
        // SAFETY: a fence has no operands and no other effect.
        unsafe { core::arch::asm!("fence.acq_rel.cta;", options(nostack)) };
    }
    #[inline(always)]
    fn fence_device(&self) {
        // SAFETY: as above.
        unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) };
    }
    #[inline(always)]
    fn idle(&self) {
        // SAFETY: `nanosleep` only delays this thread (sm_70+).
        unsafe { core::arch::asm!("nanosleep.u32 64;", options(nostack)) };
    }
    #[inline(always)]
    fn clock(&self) -> u64 {
        let c: u64;
        // SAFETY: reads the multiprocessor's cycle counter into a register.
        unsafe {
            core::arch::asm!("mov.u64 {c}, %clock64;", c = out(reg64) c, options(nostack, nomem))
        };
        c
    }
}

/// Kernel entry over raw pointers (the host emulator calls it too).
///
/// # Safety
/// `offsets` (`n + 1`), `targets`/`weights` (`m`), `state` (`n`), `msgs`
/// (`blocks · cap`, zeroed), `cands` (`blocks · cap` for states wider than 4
/// bytes, else unused), `tails` and `heads` (one per block, zeroed), `ctl`
/// ([`CTL_WORDS`], [`OUTSTANDING`](super::OUTSTANDING) = blocks) valid for the
/// call; `smem` 8-byte aligned, `smem_words` words, at least
/// [`smem_bytes`](super::smem_bytes)`(tile, size_of::<State>(), blocks)` bytes,
/// and private to the calling block;
/// `tile · blocks ≥ n`, `cap ≥ 1`; the grid co-resident.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn tiles<P: Program>(
    crew: &impl Crew,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    msgs: *mut u64,
    cands: *mut P::State,
    tails: *mut u32,
    heads: *mut u32,
    ctl: *mut u32,
    tile: u32,
    delta: u32,
    cap: u32,
    source: u32,
    every: u32,
    smem: *mut u32,
    smem_words: u32,
) {
    use crate::word::slice;
    let n = n as usize;
    let blocks = crew.ctx().grid_dim as usize;
    let t = tile as usize;
    let q = queue_len(tile as u64) as usize;
    let state_bytes = core::mem::size_of::<P::State>();
    let state_words = (t * state_bytes).div_ceil(8) * 2;
    // Header, states, pending bits, queues, outbox candidates and targets,
    // cached heads; each state region 8-byte aligned, and the rows after them.
    let bits_at = SMEM_HEADER + state_words;
    let queues_at = bits_at + t.div_ceil(32);
    let cands_at = (queues_at + 2 * q).div_ceil(2) * 2;
    let keys_at = cands_at + (OUTBOX * state_bytes).div_ceil(8) * 2;
    let heads_at = keys_at + OUTBOX;
    let used = (heads_at + blocks).div_ceil(2) * 2;
    let ring = blocks * cap as usize;
    // SAFETY: lengths and validity are the caller's contract; the shared regions
    // do not overlap (header, states, bits, queues, outbox, heads in that order).
    unsafe {
        let s = TileSmem::<P> {
            header: u32::atomics_from_raw(smem, SMEM_HEADER),
            states: P::State::atomics_from_raw(smem.add(SMEM_HEADER).cast(), t),
            pending: u32::atomics_from_raw(smem.add(bits_at), t.div_ceil(32)),
            queues: u32::atomics_from_raw(smem.add(queues_at), 2 * q),
            out: Outbox {
                keys: u32::atomics_from_raw(smem.add(keys_at), OUTBOX),
                cands: P::State::atomics_from_raw(smem.add(cands_at).cast(), OUTBOX),
            },
            heads: u32::atomics_from_raw(smem.add(heads_at), blocks),
            spare: smem.add(used).cast(),
            spare_words: (smem_words as usize).saturating_sub(used) / 2,
        };
        let ctl = u32::atomics_from_raw(ctl, CTL_WORDS);
        let k = Tiles::<P> {
            graph: CsrView {
                offsets: slice(offsets, n + 1),
                targets: slice(targets, m as usize),
            },
            weights: slice(weights, m as usize),
            state: P::State::atomics_from_raw(state, n),
            msgs: u64::atomics_from_raw(msgs, ring),
            cands: if packed::<P::State>() {
                &[]
            } else {
                P::State::atomics_from_raw(cands, ring)
            },
            tails: u32::atomics_from_raw(tails, blocks),
            heads: u32::atomics_from_raw(heads, blocks),
            ctl,
            tile,
            delta,
            cap: cap.max(1),
            source,
            every: every != 0,
            chain: ctl[CHAIN_HOPS].load(Relaxed),
        };
        k.run(crew, &s);
    }
}

/// The tiled kernel of program `$prog`, named `$name`: parameters `(n, m,
/// offsets, targets, weights, state, msgs, cands, tails, heads, ctl, tile,
/// delta, cap, source, every)`; dynamic shared memory of
/// [`smem_bytes`](super::smem_bytes) for the tile.
#[macro_export]
macro_rules! tiles_kernel {
    ($prog:ty => $name:ident) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            msgs: *mut u64,
            cands: *mut <$prog as $crate::Program>::State,
            tails: *mut u32,
            heads: *mut u32,
            ctl: *mut u32,
            tile: u32,
            delta: u32,
            cap: u32,
            source: u32,
            every: u32,
        ) {
            let (smem, smem_words) = $crate::resident::block_smem();
            // SAFETY: the host launches cooperatively with buffers matching the
            // documented contract and the tile's shared memory.
            unsafe {
                $crate::tiles::tiles::<$prog>(
                    &$crate::resident::PtxTeam($crate::ThreadCtx::current()),
                    n,
                    m,
                    offsets,
                    targets,
                    weights,
                    state,
                    msgs,
                    cands,
                    tails,
                    heads,
                    ctl,
                    tile,
                    delta,
                    cap,
                    source,
                    every,
                    smem,
                    smem_words,
                )
            }
        }
    };
}
