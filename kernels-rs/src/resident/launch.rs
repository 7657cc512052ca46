//! The resident kernel's launch side: the GPU's [`Team`] (block and grid
//! barriers, the cycle counter), the entry over raw pointers that the
//! `resident_kernel!` macro and the host emulator both call, and the block's
//! dynamic shared memory.

#[cfg(target_arch = "nvptx64")]
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering::Relaxed;

use super::{Resident, Team, CTL_WORDS, PROFILE_ON};
use crate::program::Program;
use crate::skeleton::CsrView;
#[cfg(target_arch = "nvptx64")]
use crate::thread::ThreadCtx;
use crate::word::StateWord;

/// The GPU's [`Team`]: `bar.sync` and a counter/generation grid barrier.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct PtxTeam(pub ThreadCtx);

#[cfg(target_arch = "nvptx64")]
impl Team for PtxTeam {
    #[inline(always)]
    fn ctx(&self) -> ThreadCtx {
        self.0
    }
    #[inline(always)]
    fn sync_block(&self) {
        // SAFETY: every thread of the block reaches every block barrier of the
        // resident kernel (the loops around them are block-uniform).
        unsafe { core::arch::nvptx::_syncthreads() }
    }
    #[inline(always)]
    fn sync_grid(&self, count: &AtomicU32, generation: &AtomicU32) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire, Release};
        self.sync_block();
        if self.0.thread_idx == 0 {
            let gen = generation.load(Acquire);
            // SAFETY: a gpu-scope fence has no operands; it makes this block's
            // writes (ordered before it by the block barrier) visible device-wide.
            unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) };
            if count.fetch_add(1, AcqRel) + 1 == self.0.grid_dim {
                count.store(0, Relaxed);
                generation.store(gen.wrapping_add(1), Release);
            } else {
                // Back off up to half a microsecond: blocks idle through a long
                // one-block phase poll the line less.
                let mut ns: u32 = 32;
                while generation.load(Acquire) == gen {
                    // SAFETY: `nanosleep` only delays this thread (sm_70+).
                    unsafe {
                        core::arch::asm!("nanosleep.u32 {};", in(reg32) ns, options(nostack))
                    };
                    if ns < 512 {
                        ns *= 2;
                    }
                }
            }
            // SAFETY: as above; orders the other blocks' writes before this
            // block's next reads.
            unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) };
        }
        self.sync_block();
    }
    #[inline(always)]
    fn clock(&self) -> u64 {
        let c: u64;
        // SAFETY: reads the multiprocessor's cycle counter into a register. Not
        // `nomem`: the read stays after the memory accesses before it.
        unsafe { core::arch::asm!("mov.u64 {c}, %clock64;", c = out(reg64) c, options(nostack)) };
        c
    }
}

/// Kernel entry over raw pointers (the host emulator calls it too).
///
/// # Safety
/// `offsets` (`n + 1`), `targets`/`weights` (`m`), `state`/`parents`/`stamps`/
/// queues (`n`), far piles and `in_far` (`n`, or any when `delta == 0`), `ctl`
/// ([`CTL_WORDS`]) valid for the call; `smem` valid for `smem_len` words and
/// private to the calling block; the grid co-resident.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn resident<P: Program, const HUBS: bool>(
    team: &impl Team,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    parents: *mut u32,
    queues: [*mut u32; 2],
    stamps: *mut u32,
    far: [*mut u32; 2],
    in_far: *mut u32,
    ctl: *mut u32,
    delta: u32,
    small_max: u32,
    dedup: u32,
    smem: *mut u32,
    smem_len: u32,
) {
    use crate::word::{opt_u32_cells, slice};
    let n = n as usize;
    let far_n = if delta == 0 { 0 } else { n };
    // SAFETY: lengths and validity are the caller's contract.
    let k = unsafe {
        let ctl = u32::atomics_from_raw(ctl, CTL_WORDS);
        Resident::<P> {
            graph: CsrView {
                offsets: slice(offsets, n + 1),
                targets: slice(targets, m as usize),
            },
            weights: slice(weights, m as usize),
            state: P::State::atomics_from_raw(state, n),
            // The host passes parents only for BFS-like programs.
            parents: opt_u32_cells(parents, n),
            queues: [
                u32::atomics_from_raw(queues[0], n),
                u32::atomics_from_raw(queues[1], n),
            ],
            stamps: u32::atomics_from_raw(stamps, n),
            far: [
                u32::atomics_from_raw(far[0], far_n),
                u32::atomics_from_raw(far[1], far_n),
            ],
            in_far: u32::atomics_from_raw(in_far, far_n),
            ctl,
            delta,
            small_max,
            dedup: dedup != 0,
            // Read once: a load per phase would lengthen the chain it times.
            profile: ctl[PROFILE_ON].load(Relaxed) != 0,
            hubs: HUBS,
        }
    };
    // SAFETY: as above, the block's own shared words.
    let smem = unsafe { u32::atomics_from_raw(smem, smem_len as usize) };
    k.run(team, smem);
}

/// The resident kernels of program `$prog`: `$name`, and `$hubs`, which shares
/// rows longer than [`HEAVY_ROW`](super::HEAVY_ROW) out over the block
/// ([`Resident::hubs`](super::Resident::hubs)). Parameters `(n, m, offsets,
/// targets, weights, state, parents, queue0, queue1, stamps, far0, far1,
/// in_far, ctl, delta, small_max, dedup)`; dynamic shared memory sizes the
/// append buffer.
#[macro_export]
macro_rules! resident_kernel {
    ($prog:ty => $name:ident, $hubs:ident) => {
        $crate::resident_kernel!(@entry $prog, $name, false);
        $crate::resident_kernel!(@entry $prog, $hubs, true);
    };
    (@entry $prog:ty, $name:ident, $with_hubs:literal) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
            queue0: *mut u32,
            queue1: *mut u32,
            stamps: *mut u32,
            far0: *mut u32,
            far1: *mut u32,
            in_far: *mut u32,
            ctl: *mut u32,
            delta: u32,
            small_max: u32,
            dedup: u32,
        ) {
            let (smem, smem_len) = $crate::resident::block_smem();
            // SAFETY: the host launches cooperatively with buffers matching the
            // documented contract and `smem_len` words of dynamic shared memory.
            unsafe {
                $crate::resident::resident::<$prog, $with_hubs>(
                    &$crate::resident::PtxTeam($crate::ThreadCtx::current()),
                    n,
                    m,
                    offsets,
                    targets,
                    weights,
                    state,
                    parents,
                    [queue0, queue1],
                    stamps,
                    [far0, far1],
                    in_far,
                    ctl,
                    delta,
                    small_max,
                    dedup,
                    smem,
                    smem_len,
                )
            }
        }
    };
}

/// The calling block's dynamic shared memory and its length in words
/// (`%dynamic_smem_size / 4`). Here, not in the macro, because the intrinsic
/// needs a feature that program crates do not enable.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn block_smem() -> (*mut u32, u32) {
    let bytes: u32;
    // SAFETY: reads a special register; no side effects.
    unsafe {
        core::arch::asm!("mov.u32 {}, %dynamic_smem_size;", out(reg32) bytes, options(nomem, nostack))
    };
    (
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>(),
        bytes / 4,
    )
}
