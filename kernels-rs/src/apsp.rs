//! Floyd–Warshall kernels (min-plus over i32), seed 002 and its stated next step.
//!
//! * [`naive_cell`]: seed 002 (Pogorely et al.) — one thread per cell `(i, j)`, one
//!   launch per `k`, every relaxation reads `d[i][k]` and `d[k][j]` from global
//!   memory.
//! * [`phase1`], [`phase2`], [`phase3`]: blocked FW (Katz & Kider, 2008) with
//!   `TILE × TILE` tiles in shared memory; phase 3 (the O(n³) bulk) keeps a 4 × 4
//!   block of `C` per thread in registers (register tiling), so each shared-memory
//!   read feeds four relaxations.
//!
//! Shared memory is the launch-sized ("dynamic") shared memory of the block,
//! reached with `core::intrinsics::gpu::gpu_launch_sized_workgroup_mem` (nightly
//! feature `gpu_launch_sized_workgroup_mem`); the host launches with
//! [`SMEM_BYTES`] bytes.
//!
//! Barriers: a kernel body is written against [`Block`], whose [`Block::each`]
//! runs a step for "every thread of the block" and then synchronises. On the GPU
//! that is the calling thread followed by `bar.sync`; the host emulator runs the
//! step for all thread ids in turn, which is one legal schedule of the same
//! program. So the same body is tested on the host.
//!
//! ∞ handling ([`Relax`]): [`Exact`] uses `i32::MAX` as ∞ and a select, so ∞ is
//! never added; [`Fast`] is plain `min(c, a + b)` for the *threshold encoding*
//! the host uses when all weights are non-negative and every finite distance is
//! below [`FAST_INF`]: ∞ is stored as `FAST_INF = 2^30 − 1`, sums of two values
//! `≤ FAST_INF` cannot overflow, and any result `≥ FAST_INF` still means ∞.
//! That form is a candidate for Hopper's fused add-min (DPX `VIADDMNMX`).

// Kernel loops index several arrays by the same (row, column) counters; the
// index form mirrors the CUDA original and unrolls predictably.
#![allow(clippy::needless_range_loop)]

/// Tile side of the blocked kernels.
pub const TILE: u32 = 64;
/// Threads per block of the blocked kernels (16 × 16, each owning 4 × 4 cells).
pub const THREADS: u32 = 256;
/// Dynamic shared memory per block: two `TILE × TILE` i32 tiles.
pub const SMEM_BYTES: u32 = 2 * TILE * TILE * 4;
/// ∞ of the exact kernels.
pub const INF: i32 = i32::MAX;
/// ∞ of the fast (threshold-encoded) kernels; anything `≥` it is ∞.
pub const FAST_INF: i32 = (1 << 30) - 1;

const T: usize = TILE as usize;
const SUB: usize = 4;
const SIDE: usize = 16;

/// One relaxation `c ⊕ (a ⊗ b)` for min-plus.
pub trait Relax {
    fn relax(c: i32, a: i32, b: i32) -> i32;
}

/// ∞ = `i32::MAX`, never added (a select).
pub struct Exact;
impl Relax for Exact {
    #[inline(always)]
    fn relax(c: i32, a: i32, b: i32) -> i32 {
        let s = if a == INF || b == INF {
            INF
        } else {
            a.wrapping_add(b)
        };
        if s < c {
            s
        } else {
            c
        }
    }
}

/// Plain `min(c, a + b)` under the threshold encoding (see the module docs).
pub struct Fast;
impl Relax for Fast {
    #[inline(always)]
    fn relax(c: i32, a: i32, b: i32) -> i32 {
        let s = a.wrapping_add(b);
        if s < c {
            s
        } else {
            c
        }
    }
}

/// A thread block as a kernel body sees it.
pub trait Block {
    fn block_idx(&self) -> u32;
    /// Runs `f(thread)` for every thread of the block, then synchronises.
    fn each(&self, f: impl FnMut(u32));
}

/// The calling GPU thread's block.
#[cfg(target_arch = "nvptx64")]
pub struct GpuBlock {
    pub tid: u32,
    pub bid: u32,
}

#[cfg(target_arch = "nvptx64")]
impl Block for GpuBlock {
    #[inline(always)]
    fn block_idx(&self) -> u32 {
        self.bid
    }
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(u32)) {
        f(self.tid);
        // SAFETY: every thread of the block reaches every `each` (the bodies only
        // return early on block-uniform conditions, before the first `each`).
        unsafe { core::arch::nvptx::_syncthreads() }
    }
}

/// Seed 002: one thread per cell for one `k`, grid-stride over `n × n` cells;
/// writes only on improvement.
///
/// # Safety
/// `d` is valid for `n·n` i32 values; cells of row and column `k` only change
/// when a negative cycle exists (then the result is discarded by the host).
#[inline(always)]
pub unsafe fn naive_cell<R: Relax>(t: crate::ThreadCtx, n: u32, k: u32, d: *mut i32) {
    let n = n as u64;
    let k = k as u64;
    let total = n * n;
    let mut cell = t.global();
    while cell < total {
        let (i, j) = (cell / n, cell % n);
        // SAFETY: i, j, k < n, so every index is below n·n.
        unsafe {
            let c = *d.add(cell as usize);
            let v = R::relax(
                c,
                *d.add((i * n + k) as usize),
                *d.add((k * n + j) as usize),
            );
            if v != c {
                *d.add(cell as usize) = v;
            }
        }
        cell += t.stride();
    }
}

/// Loads tile `(ti, tj)` of the `np × np` matrix into `s` (`TILE²` values).
#[inline(always)]
unsafe fn load_tile<B: Block>(b: &B, d: *const i32, np: usize, ti: usize, tj: usize, s: *mut i32) {
    b.each(|t| {
        for q in 0..(T * T) / THREADS as usize {
            let idx = t as usize + q * THREADS as usize;
            let (r, c) = (idx / T, idx % T);
            // SAFETY: (ti·T + r, tj·T + c) is inside the padded matrix; `s` holds T².
            unsafe { *s.add(idx) = *d.add((ti * T + r) * np + tj * T + c) };
        }
    });
}

/// Stores `s` back to tile `(ti, tj)`.
#[inline(always)]
unsafe fn store_tile<B: Block>(b: &B, d: *mut i32, np: usize, ti: usize, tj: usize, s: *const i32) {
    b.each(|t| {
        for q in 0..(T * T) / THREADS as usize {
            let idx = t as usize + q * THREADS as usize;
            let (r, c) = (idx / T, idx % T);
            // SAFETY: as in `load_tile`.
            unsafe { *d.add((ti * T + r) * np + tj * T + c) = *s.add(idx) };
        }
    });
}

/// `*p = relax(*p, a, b)`, but stores only an improvement.
///
/// Phases 1 and 2 update a tile in place while other threads of the block read
/// its row and column `k`. Those never improve in step `k` (`d[k][k] ≥ 0` when there
/// is no negative cycle, so `d[i][k] + d[k][k] ≥ d[i][k]`); storing them anyway
/// (the same value) is a write racing with the reads, which compute-sanitizer's
/// racecheck rightly reports. With a negative cycle they do change; the host
/// reports that input as a negative cycle, not as distances.
///
/// # Safety
/// `p` is valid for reads and writes.
#[inline(always)]
unsafe fn relax_at<R: Relax>(p: *mut i32, a: i32, b: i32) {
    // SAFETY: caller's contract.
    unsafe {
        let c = *p;
        let v = R::relax(c, a, b);
        if v != c {
            *p = v;
        }
    }
}

/// Phase 1: FW inside the diagonal tile `(kb, kb)`; one block.
///
/// # Safety
/// `d` is valid for `np·np` values, `np` a multiple of [`TILE`], `kb < np / TILE`;
/// `sm` holds `2·TILE²` values private to the block.
#[inline(always)]
pub unsafe fn phase1<R: Relax, B: Block>(b: &B, np: u32, kb: u32, d: *mut i32, sm: *mut i32) {
    let (np, kb) = (np as usize, kb as usize);
    // SAFETY: caller's contract.
    unsafe {
        load_tile(b, d, np, kb, kb, sm);
        for k in 0..T {
            b.each(|t| {
                let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
                for r in 0..SUB {
                    let i = ty + SIDE * r;
                    let a = *sm.add(i * T + k);
                    for c in 0..SUB {
                        let j = tx + SIDE * c;
                        relax_at::<R>(sm.add(i * T + j), a, *sm.add(k * T + j));
                    }
                }
            });
        }
        store_tile(b, d, np, kb, kb, sm);
    }
}

/// Phase 2: the tiles of row `kb` and column `kb`; grid of `2·(np/TILE)` blocks
/// (block `x`: row tile `x` if `x < nt`, else column tile `x − nt`; the diagonal
/// one returns at once).
///
/// # Safety
/// As [`phase1`].
#[inline(always)]
pub unsafe fn phase2<R: Relax, B: Block>(b: &B, np: u32, kb: u32, d: *mut i32, sm: *mut i32) {
    let (npu, kb) = (np as usize, kb as usize);
    let nt = npu / T;
    let x = b.block_idx() as usize;
    let (is_row, other) = (x < nt, x % nt);
    if other == kb || x >= 2 * nt {
        return;
    }
    let (ti, tj) = if is_row { (kb, other) } else { (other, kb) };
    // SAFETY: caller's contract; the diagonal tile goes to sm[..T²], ours to sm[T²..].
    unsafe {
        let diag = sm;
        let own = sm.add(T * T);
        load_tile(b, d, npu, kb, kb, diag);
        load_tile(b, d, npu, ti, tj, own);
        for k in 0..T {
            b.each(|t| {
                let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
                for r in 0..SUB {
                    let i = ty + SIDE * r;
                    for c in 0..SUB {
                        let j = tx + SIDE * c;
                        let p = own.add(i * T + j);
                        if is_row {
                            relax_at::<R>(p, *diag.add(i * T + k), *own.add(k * T + j));
                        } else {
                            relax_at::<R>(p, *own.add(i * T + k), *diag.add(k * T + j));
                        }
                    }
                }
            });
        }
        store_tile(b, d, npu, ti, tj, own);
    }
}

/// Phase 3: every tile off row and column `kb`; grid of `(np/TILE)²` blocks.
/// `A(i, kb)` and `B(kb, j)` go to shared memory; each thread keeps its 4 × 4
/// cells of `C(i, j)` in registers over all `k`.
///
/// # Safety
/// As [`phase1`].
#[inline(always)]
pub unsafe fn phase3<R: Relax, B: Block>(b: &B, np: u32, kb: u32, d: *mut i32, sm: *mut i32) {
    let (npu, kb) = (np as usize, kb as usize);
    let nt = npu / T;
    let x = b.block_idx() as usize;
    let (ti, tj) = (x / nt, x % nt);
    if ti == kb || tj == kb || ti >= nt {
        return;
    }
    // SAFETY: caller's contract; A at sm[..T²], B at sm[T²..].
    unsafe {
        let sa = sm;
        let sb = sm.add(T * T);
        load_tile(b, d, npu, ti, kb, sa);
        load_tile(b, d, npu, kb, tj, sb);
        b.each(|t| {
            let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
            let base = d.add(ti * T * npu + tj * T);
            let mut acc = [[0i32; SUB]; SUB];
            for r in 0..SUB {
                for c in 0..SUB {
                    acc[r][c] = *base.add((ty + SIDE * r) * npu + tx + SIDE * c);
                }
            }
            for k in 0..T {
                let mut a = [0i32; SUB];
                let mut bb = [0i32; SUB];
                for r in 0..SUB {
                    a[r] = *sa.add((ty + SIDE * r) * T + k);
                    bb[r] = *sb.add(k * T + tx + SIDE * r);
                }
                for r in 0..SUB {
                    for c in 0..SUB {
                        acc[r][c] = R::relax(acc[r][c], a[r], bb[c]);
                    }
                }
            }
            for r in 0..SUB {
                for c in 0..SUB {
                    *base.add((ty + SIDE * r) * npu + tx + SIDE * c) = acc[r][c];
                }
            }
        });
    }
}

/// Peak microbenchmark: `iters` rounds of 16 independent add+min relaxations per
/// thread on registers (8 chains of two), the same instruction mix as phase 3
/// without any memory traffic. Relaxations = threads × iters × 16.
///
/// # Safety
/// `out` is valid for one i32 per thread of the grid.
#[inline(always)]
pub unsafe fn peak_add_min<R: Relax>(
    t: crate::ThreadCtx,
    iters: u32,
    x: i32,
    y: i32,
    out: *mut i32,
) {
    let g = t.global() as i32;
    let mut a = [0i32; 8];
    let mut b = [0i32; 8];
    for l in 0..8 {
        a[l] = g.wrapping_add(l as i32);
        b[l] = g.wrapping_sub(l as i32);
    }
    for _ in 0..iters {
        for l in 0..8 {
            a[l] = R::relax(a[l], b[l], x);
            b[l] = R::relax(b[l], a[l], y);
        }
    }
    let mut s = 0i32;
    for l in 0..8 {
        s = s.wrapping_add(a[l]).wrapping_add(b[l]);
    }
    // SAFETY: one slot per thread (caller's contract).
    unsafe { *out.add(t.global() as usize) = s };
}

/// The GPU entry points (PTX build with the crate's built-in kernels only).
#[cfg(all(target_arch = "nvptx64", feature = "builtin-kernels"))]
pub mod ptx {
    use super::*;

    #[inline(always)]
    fn block() -> GpuBlock {
        // SAFETY: reading %tid.x / %ctaid.x has no preconditions in a kernel.
        unsafe {
            GpuBlock {
                tid: core::arch::nvptx::_thread_idx_x() as u32,
                bid: core::arch::nvptx::_block_idx_x() as u32,
            }
        }
    }

    #[inline(always)]
    fn smem() -> *mut i32 {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<i32>()
    }

    macro_rules! fw_kernels {
        ($r:ty, $naive:ident, $p1:ident, $p2:ident, $p3:ident, $peak:ident) => {
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $naive(n: u32, k: u32, d: *mut i32) {
                // SAFETY: the host passes an n·n buffer.
                unsafe { naive_cell::<$r>(crate::ThreadCtx::current(), n, k, d) }
            }
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $p1(np: u32, kb: u32, d: *mut i32) {
                // SAFETY: np·np buffer, SMEM_BYTES of shared memory, THREADS threads.
                unsafe { phase1::<$r, _>(&block(), np, kb, d, smem()) }
            }
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $p2(np: u32, kb: u32, d: *mut i32) {
                // SAFETY: as above.
                unsafe { phase2::<$r, _>(&block(), np, kb, d, smem()) }
            }
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $p3(np: u32, kb: u32, d: *mut i32) {
                // SAFETY: as above.
                unsafe { phase3::<$r, _>(&block(), np, kb, d, smem()) }
            }
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $peak(iters: u32, x: i32, y: i32, out: *mut i32) {
                // SAFETY: one output slot per thread.
                unsafe { peak_add_min::<$r>(crate::ThreadCtx::current(), iters, x, y, out) }
            }
        };
    }

    fw_kernels!(
        Exact,
        apsp_fw_naive,
        apsp_fw_phase1,
        apsp_fw_phase2,
        apsp_fw_phase3,
        apsp_peak_exact
    );
    fw_kernels!(
        Fast,
        apsp_fw_naive_fast,
        apsp_fw_phase1_fast,
        apsp_fw_phase2_fast,
        apsp_fw_phase3_fast,
        apsp_peak_fast
    );
}
