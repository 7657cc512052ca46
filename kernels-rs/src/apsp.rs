//! Floyd–Warshall kernels for min-plus, seed 002 and its stated next step.
//!
//! * [`naive_cell`]: seed 002 (Pogorely et al.) — one thread per cell `(i, j)`, one
//!   launch per `k`, every relaxation reads `d[i][k]` and `d[k][j]` from global
//!   memory (i32).
//! * [`phase1`], [`phase2`], [`phase3`]: blocked FW (Katz & Kider, 2008), the
//!   semiring-generic skeleton of [`crate::closure`] (shared-memory tiles,
//!   register-tiled phase 3), instantiated here for min-plus: i32 ([`Exact`],
//!   [`Fast`]) and [`MinPlus`] over i64, f32 and f64, next hops included. Programs
//!   declared `#[vertex_program(semiring)]` get their own instances from the macro.
//!
//! Shared memory is the launch-sized ("dynamic") shared memory of the block; the
//! host launches the i32 kernels with [`SMEM_BYTES`] bytes, the others with
//! [`crate::closure::smem_bytes`] / [`crate::closure::smem_bytes_path`].
//!
//! ∞ handling (i32): [`Exact`] uses `i32::MAX` as ∞ and a select, so ∞ is
//! never added; [`Fast`] is plain `min(c, a + b)` for the *threshold encoding*
//! the host uses when all weights are non-negative and every finite distance is
//! below [`FAST_INF`]: ∞ is stored as `FAST_INF = 2^30 − 1`, sums of two values
//! `≤ FAST_INF` cannot overflow, and any result `≥ FAST_INF` still means ∞.
//! That form is a candidate for Hopper's fused add-min (DPX `VIADDMNMX`).

// Kernel loops index several arrays by the same (row, column) counters; the
// index form mirrors the CUDA original and unrolls predictably.
#![allow(clippy::needless_range_loop)]

pub use crate::closure::{phase1, phase2, phase3, Block, Semiring, THREADS, TILE};

/// Dynamic shared memory per block of the i32 kernels: two `TILE × TILE` tiles.
pub const SMEM_BYTES: u32 = crate::closure::smem_bytes(4);
/// ∞ of the exact kernels.
pub const INF: i32 = i32::MAX;
/// ∞ of the fast (threshold-encoded) kernels; anything `≥` it is ∞.
pub const FAST_INF: i32 = (1 << 30) - 1;

/// Min-plus over i32 with ∞ = `i32::MAX`, never added (a select).
pub struct Exact;
impl Semiring for Exact {
    type T = i32;
    #[inline(always)]
    fn add(a: i32, b: i32) -> i32 {
        if b < a {
            b
        } else {
            a
        }
    }
    #[inline(always)]
    fn mul(a: i32, b: i32) -> i32 {
        if a == INF || b == INF {
            INF
        } else {
            a.wrapping_add(b)
        }
    }
}

/// Plain `min(c, a + b)` under the threshold encoding (see the module docs).
pub struct Fast;
impl Semiring for Fast {
    type T = i32;
    #[inline(always)]
    fn add(a: i32, b: i32) -> i32 {
        Exact::add(a, b)
    }
    #[inline(always)]
    fn mul(a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
}

/// Min-plus over a wider type: i64 with ∞ = `i64::MAX` never added (a select),
/// f32 / f64 with ∞ = +∞, which IEEE addition keeps (the host rejects −∞ and NaN
/// weights).
pub struct MinPlus<T>(core::marker::PhantomData<T>);

impl Semiring for MinPlus<i64> {
    type T = i64;
    #[inline(always)]
    fn add(a: i64, b: i64) -> i64 {
        a.min(b)
    }
    #[inline(always)]
    fn mul(a: i64, b: i64) -> i64 {
        if a == i64::MAX || b == i64::MAX {
            i64::MAX
        } else {
            a.wrapping_add(b)
        }
    }
}

macro_rules! min_plus_float {
    ($($t:ty),*) => {$(
        impl Semiring for MinPlus<$t> {
            type T = $t;
            #[inline(always)]
            fn add(a: $t, b: $t) -> $t {
                a.min(b)
            }
            #[inline(always)]
            fn mul(a: $t, b: $t) -> $t {
                a + b
            }
        }
    )*};
}
min_plus_float!(f32, f64);

/// Seed 002: one thread per cell for one `k`, grid-stride over `n × n` cells;
/// writes only on improvement.
///
/// # Safety
/// `d` is valid for `n·n` i32 values; cells of row and column `k` only change
/// when a negative cycle exists (then the result is discarded by the host).
#[inline(always)]
pub unsafe fn naive_cell<R: Semiring<T = i32>>(t: crate::ThreadCtx, n: u32, k: u32, d: *mut i32) {
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

/// Peak microbenchmark: `iters` rounds of 16 independent add+min relaxations per
/// thread on registers (8 chains of two), the same instruction mix as phase 3
/// without any memory traffic. Relaxations = threads × iters × 16.
///
/// # Safety
/// `out` is valid for one i32 per thread of the grid.
#[inline(always)]
pub unsafe fn peak_add_min<R: Semiring<T = i32>>(
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

    use crate::closure::GpuBlock;

    #[inline(always)]
    fn block() -> GpuBlock {
        GpuBlock::current()
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

    // The semiring skeleton over min-plus for every distance type `vertex apsp`
    // uses (the i32 set is the exact one, with next hops; the fast i32 kernels
    // above stay the distance-only path).
    crate::closure_kernels!(Exact => minplus_i32_phase1, minplus_i32_phase2, minplus_i32_phase3,
        minplus_i32_path1, minplus_i32_path2, minplus_i32_path3, minplus_i32_peak);
    crate::closure_kernels!(MinPlus<i64> => minplus_i64_phase1, minplus_i64_phase2, minplus_i64_phase3,
        minplus_i64_path1, minplus_i64_path2, minplus_i64_path3, minplus_i64_peak);
    crate::closure_kernels!(MinPlus<f32> => minplus_f32_phase1, minplus_f32_phase2, minplus_f32_phase3,
        minplus_f32_path1, minplus_f32_path2, minplus_f32_path3, minplus_f32_peak);
    crate::closure_kernels!(MinPlus<f64> => minplus_f64_phase1, minplus_f64_phase2, minplus_f64_phase3,
        minplus_f64_path1, minplus_f64_path2, minplus_f64_path3, minplus_f64_peak);
}
