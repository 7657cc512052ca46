//! Blocked Floyd–Warshall over any semiring: the dense-closure skeleton.
//!
//! `d[i][j] ← d[i][j] ⊕ (d[i][k] ⊗ d[k][j])` for every `k`, in `TILE × TILE` tiles
//! (Katz & Kider, 2008): phase 1 closes the diagonal tile `(kb, kb)`, phase 2 the
//! tiles of row and column `kb` against it, phase 3 every other tile from its row
//! and column tiles (the O(n³) bulk). Tiles live in the block's launch-sized
//! shared memory; phase 3 keeps a 4 × 4 block of `C` per thread in registers
//! (register tiling), so each shared-memory read feeds four relaxations.
//!
//! The skeleton is generic over a [`Semiring`] — ⊕ and ⊗ over a `Copy` element —
//! so one body serves the hand-written min-plus instances of [`crate::apsp`] and
//! every `#[vertex_program(semiring)]`, whose `combine` is ⊕ and `relax` ⊗ (the
//! macro instantiates [`crate::closure_kernels!`] with the program). ∞ ("no path") is the
//! semiring's zero, prepared by the host; the kernels never need 0̄ or 1̄.
//!
//! Next hops ([`path1`], [`path2`], [`path3`]): alongside each value a tile keeps
//! the first hop of its best path and that path's edge count. A candidate wins
//! when it improves the value, or ties it on fewer edges: blocked FW may offer a
//! `k → j` path that already runs through `i`, and with a tie (a zero-weight
//! cycle, or any semiring where many paths are equally good) taking that
//! detour's hop makes the next-hop walk circle. Breaking ties by edge count makes
//! each step of the walk strictly shorten the rest (the CPU's
//! `runtime::apsp::fw_cpu` does the same).
//!
//! Barriers: a body is written against [`Block`], whose [`Block::each`] runs a step
//! for every thread of the block and then synchronises. On the GPU that is the
//! calling thread followed by `bar.sync`; the host emulator runs the step for all
//! thread ids in turn, one legal schedule of the same program. So the host tests
//! the very bodies the GPU runs.
//!
//! In-place tiles (phases 1 and 2): other threads read row and column `k` of the
//! tile being updated. Those cells never change in step `k` unless a cycle beats
//! the empty path (`d[k][k]` better than 1̄, a negative cycle for min-plus), and a
//! cell is stored only when it changes, so without such a cycle there is no
//! write to race with the reads; with one, the host reports the cycle, never the
//! values.

// Kernel loops index several arrays by the same (row, column) counters; the
// index form mirrors the CUDA original and unrolls predictably.
#![allow(clippy::needless_range_loop)]

/// Tile side of the blocked kernels.
pub const TILE: u32 = 64;
/// Threads per block of the blocked kernels (16 × 16, each owning 4 × 4 cells).
pub const THREADS: u32 = 256;
/// "No next hop" in the next-hop matrix.
pub const NO_HOP: u32 = u32::MAX;
/// Edge count of "no path" (a tie needs a finite value, so it is never compared).
pub const NO_HOPS: u32 = u32::MAX;

const T: usize = TILE as usize;
const TT: usize = T * T;
const SUB: usize = 4; // `unroll4!` assumes it
const SIDE: usize = 16;

/// Launch-sized shared memory of the distance-only phases for element size
/// `elem` bytes: two tiles.
pub const fn smem_bytes(elem: u32) -> u32 {
    2 * TILE * TILE * elem
}

/// Launch-sized shared memory of the next-hop phases: two tiles of values, edge
/// counts and next hops.
pub const fn smem_bytes_path(elem: u32) -> u32 {
    2 * TILE * TILE * (elem + 8)
}

/// The algebra the closure runs over: ⊕ chooses between two paths, ⊗ extends one.
/// ⊗ must absorb the zero ("no path") the host stored; ⊕ must be idempotent and
/// selective (min, max, or, and).
pub trait Semiring: 'static {
    /// A matrix element.
    type T: Copy + PartialEq + Default;
    /// ⊕.
    fn add(a: Self::T, b: Self::T) -> Self::T;
    /// ⊗.
    fn mul(a: Self::T, b: Self::T) -> Self::T;
    /// One relaxation `c ⊕ (a ⊗ b)`.
    #[inline(always)]
    fn relax(c: Self::T, a: Self::T, b: Self::T) -> Self::T {
        Self::add(c, Self::mul(a, b))
    }
    /// Whether `cand` strictly improves `cur` (`cur ⊕ cand ≠ cur`).
    #[inline(always)]
    fn improves(cand: Self::T, cur: Self::T) -> bool {
        Self::add(cur, cand) != cur
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
impl GpuBlock {
    /// The calling thread's block.
    #[inline(always)]
    pub fn current() -> Self {
        // SAFETY: reading %tid.x / %ctaid.x has no preconditions in a kernel.
        unsafe {
            GpuBlock {
                tid: core::arch::nvptx::_thread_idx_x() as u32,
                bid: core::arch::nvptx::_block_idx_x() as u32,
            }
        }
    }
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

/// The block's launch-sized shared memory, 8-byte aligned (enough for every
/// element type). A function here, not in the macros, so that program crates need
/// no nightly feature of their own.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn shared_mem() -> *mut u64 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u64>()
}

/// Where one tile's arrays start: values, and (next-hop kernels) edge counts
/// and next hops. The global matrix uses the same triple with row length `np`.
#[derive(Clone, Copy)]
pub struct Cells<V> {
    pub val: *mut V,
    pub hops: *mut u32,
    pub next: *mut u32,
}

impl<V> Cells<V> {
    /// The three arrays of a path tile laid out one after another from `sm`
    /// (values first, so the byte offset of the `u32` arrays stays aligned).
    ///
    /// # Safety
    /// `sm` holds `TILE²` values followed by `2·TILE²` u32.
    #[inline(always)]
    unsafe fn tile_at(sm: *mut u8) -> Self {
        // SAFETY: caller's contract.
        unsafe {
            let val = sm as *mut V;
            let hops = val.add(TT) as *mut u32;
            Cells {
                val,
                hops,
                next: hops.add(TT),
            }
        }
    }
    #[inline(always)]
    fn bytes() -> usize {
        TT * (core::mem::size_of::<V>() + 8)
    }
}

/// Copies tile `(ti, tj)` of the `np × np` matrix `d` into `s` (`TILE²` values),
/// or back when `store`.
#[inline(always)]
unsafe fn move_tile<V: Copy, B: Block>(
    b: &B,
    d: *mut V,
    np: usize,
    (ti, tj): (usize, usize),
    s: *mut V,
    store: bool,
) {
    b.each(|t| {
        for q in 0..TT / THREADS as usize {
            let idx = t as usize + q * THREADS as usize;
            let (r, c) = (idx / T, idx % T);
            // SAFETY: (ti·T + r, tj·T + c) is inside the padded matrix; `s` holds T².
            unsafe {
                let g = d.add((ti * T + r) * np + tj * T + c);
                if store {
                    *g = *s.add(idx);
                } else {
                    *s.add(idx) = *g;
                }
            }
        }
    });
}

/// [`move_tile`] for the three arrays of a path tile.
#[inline(always)]
unsafe fn move_cells<V: Copy, B: Block>(
    b: &B,
    d: Cells<V>,
    np: usize,
    at: (usize, usize),
    s: Cells<V>,
    store: bool,
) {
    // SAFETY: caller's contract, for each array.
    unsafe {
        move_tile(b, d.val, np, at, s.val, store);
        move_tile(b, d.hops, np, at, s.hops, store);
        move_tile(b, d.next, np, at, s.next, store);
    }
}

/// `*p = relax(*p, a, b)`, storing only a change (see the module docs on
/// in-place tiles).
///
/// # Safety
/// `p` is valid for reads and writes.
#[inline(always)]
unsafe fn relax_at<S: Semiring>(p: *mut S::T, a: S::T, b: S::T) {
    // SAFETY: caller's contract.
    unsafe {
        let c = *p;
        let v = S::relax(c, a, b);
        if v != c {
            *p = v;
        }
    }
}

/// The path form of [`relax_at`]: cell `x` of `c` against `a ⊗ b` with edge
/// counts `ha + hb` and first hop `na`; stores only a win (better value, or the
/// same value on fewer edges).
///
/// # Safety
/// `x` indexes all three arrays of `c`.
#[inline(always)]
unsafe fn relax_path_at<S: Semiring>(
    c: Cells<S::T>,
    x: usize,
    (a, ha, na): (S::T, u32, u32),
    (b, hb): (S::T, u32),
) {
    // SAFETY: caller's contract.
    unsafe {
        let cand = S::mul(a, b);
        let ch = ha.saturating_add(hb);
        let cur = *c.val.add(x);
        if S::improves(cand, cur) || (cand == cur && ch < *c.hops.add(x)) {
            *c.val.add(x) = cand;
            *c.hops.add(x) = ch;
            *c.next.add(x) = na;
        }
    }
}

/// `$body` four times with `$v` = 0, 1, 2, 3 (`SUB` = 4), as constants.
macro_rules! unroll4 {
    ($v:ident => $body:block) => {{
        {
            let $v = 0usize;
            $body
        }
        {
            let $v = 1usize;
            $body
        }
        {
            let $v = 2usize;
            $body
        }
        {
            let $v = 3usize;
            $body
        }
    }};
}

/// The thread's 4 × 4 cells: `(i, j)` for `i = ty + 16·r`, `j = tx + 16·c`.
#[inline(always)]
fn cells_of(t: u32, mut f: impl FnMut(usize, usize)) {
    let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
    for r in 0..SUB {
        for c in 0..SUB {
            f(ty + SIDE * r, tx + SIDE * c);
        }
    }
}

/// Phase 1: FW inside the diagonal tile `(kb, kb)`; one block.
///
/// # Safety
/// `d` is valid for `np·np` values, `np` a multiple of [`TILE`], `kb < np / TILE`;
/// `sm` holds [`smem_bytes`] bytes private to the block, aligned for `S::T`.
#[inline(always)]
pub unsafe fn phase1<S: Semiring, B: Block>(b: &B, np: u32, kb: u32, d: *mut S::T, sm: *mut S::T) {
    let (np, kb) = (np as usize, kb as usize);
    // SAFETY: caller's contract.
    unsafe {
        move_tile(b, d, np, (kb, kb), sm, false);
        for k in 0..T {
            b.each(|t| {
                let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
                for r in 0..SUB {
                    let i = ty + SIDE * r;
                    let a = *sm.add(i * T + k);
                    for c in 0..SUB {
                        let j = tx + SIDE * c;
                        relax_at::<S>(sm.add(i * T + j), a, *sm.add(k * T + j));
                    }
                }
            });
        }
        move_tile(b, d, np, (kb, kb), sm, true);
    }
}

/// Phase 2: the tiles of row `kb` and column `kb`; grid of `2·(np/TILE)` blocks
/// (block `x`: row tile `x` if `x < nt`, else column tile `x − nt`; the diagonal
/// one returns at once).
///
/// # Safety
/// As [`phase1`].
#[inline(always)]
pub unsafe fn phase2<S: Semiring, B: Block>(b: &B, np: u32, kb: u32, d: *mut S::T, sm: *mut S::T) {
    let Some((is_row, at)) = phase2_tile(b, np, kb) else {
        return;
    };
    let (npu, kb) = (np as usize, kb as usize);
    // SAFETY: caller's contract; the diagonal tile goes to sm[..T²], ours to sm[T²..].
    unsafe {
        let diag = sm;
        let own = sm.add(TT);
        move_tile(b, d, npu, (kb, kb), diag, false);
        move_tile(b, d, npu, at, own, false);
        for k in 0..T {
            b.each(|t| {
                cells_of(t, |i, j| {
                    let p = own.add(i * T + j);
                    if is_row {
                        relax_at::<S>(p, *diag.add(i * T + k), *own.add(k * T + j));
                    } else {
                        relax_at::<S>(p, *own.add(i * T + k), *diag.add(k * T + j));
                    }
                })
            });
        }
        move_tile(b, d, npu, at, own, true);
    }
}

/// Phase 2's tile for this block: (row tile?, tile), or `None` for the diagonal
/// and for blocks past the grid.
#[inline(always)]
fn phase2_tile<B: Block>(b: &B, np: u32, kb: u32) -> Option<(bool, (usize, usize))> {
    let nt = np as usize / T;
    let kb = kb as usize;
    let x = b.block_idx() as usize;
    let (is_row, other) = (x < nt, x % nt);
    if other == kb || x >= 2 * nt {
        return None;
    }
    Some((is_row, if is_row { (kb, other) } else { (other, kb) }))
}

/// Phase 3's tile for this block, or `None` on row or column `kb`.
#[inline(always)]
fn phase3_tile<B: Block>(b: &B, np: u32, kb: u32) -> Option<(usize, usize)> {
    let nt = np as usize / T;
    let x = b.block_idx() as usize;
    let (ti, tj) = (x / nt, x % nt);
    if ti == kb as usize || tj == kb as usize || ti >= nt {
        return None;
    }
    Some((ti, tj))
}

/// Phase 3: every tile off row and column `kb`; grid of `(np/TILE)²` blocks.
/// `A(i, kb)` and `B(kb, j)` go to shared memory; each thread keeps its 4 × 4
/// cells of `C(i, j)` in registers over all `k`.
///
/// # Safety
/// As [`phase1`].
#[inline(always)]
pub unsafe fn phase3<S: Semiring, B: Block>(b: &B, np: u32, kb: u32, d: *mut S::T, sm: *mut S::T) {
    let Some((ti, tj)) = phase3_tile(b, np, kb) else {
        return;
    };
    let (npu, kb) = (np as usize, kb as usize);
    // SAFETY: caller's contract; A at sm[..T²], B at sm[T²..].
    unsafe {
        let sa = sm;
        let sb = sm.add(TT);
        move_tile(b, d, npu, (ti, kb), sa, false);
        move_tile(b, d, npu, (kb, tj), sb, false);
        b.each(|t| {
            let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
            let base = d.add(ti * T * npu + tj * T);
            let mut acc = [[S::T::default(); SUB]; SUB];
            for r in 0..SUB {
                for c in 0..SUB {
                    acc[r][c] = *base.add((ty + SIDE * r) * npu + tx + SIDE * c);
                }
            }
            for k in 0..T {
                let mut a = [S::T::default(); SUB];
                let mut bb = [S::T::default(); SUB];
                for r in 0..SUB {
                    a[r] = *sa.add((ty + SIDE * r) * T + k);
                    bb[r] = *sb.add(k * T + tx + SIDE * r);
                }
                for r in 0..SUB {
                    for c in 0..SUB {
                        acc[r][c] = S::relax(acc[r][c], a[r], bb[c]);
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

/// The global matrices of the next-hop kernels: values, edge counts and next
/// hops, each `np × np` row-major.
#[derive(Clone, Copy)]
pub struct PathMatrix<V> {
    pub np: u32,
    pub cells: Cells<V>,
}

/// Phase 1 with next hops.
///
/// # Safety
/// As [`phase1`], for the three arrays of `m`; `sm` holds [`smem_bytes_path`]
/// bytes, aligned for `S::T`.
#[inline(always)]
pub unsafe fn path1<S: Semiring, B: Block>(b: &B, m: PathMatrix<S::T>, kb: u32, sm: *mut u8) {
    let (np, kb) = (m.np as usize, kb as usize);
    // SAFETY: caller's contract.
    unsafe {
        let s = Cells::<S::T>::tile_at(sm);
        move_cells(b, m.cells, np, (kb, kb), s, false);
        for k in 0..T {
            b.each(|t| {
                cells_of(t, |i, j| {
                    let a = (
                        *s.val.add(i * T + k),
                        *s.hops.add(i * T + k),
                        *s.next.add(i * T + k),
                    );
                    let bk = (*s.val.add(k * T + j), *s.hops.add(k * T + j));
                    relax_path_at::<S>(s, i * T + j, a, bk);
                })
            });
        }
        move_cells(b, m.cells, np, (kb, kb), s, true);
    }
}

/// Phase 2 with next hops: a row tile takes the diagonal's `i → k` hop, a column
/// tile its own.
///
/// # Safety
/// As [`path1`].
#[inline(always)]
pub unsafe fn path2<S: Semiring, B: Block>(b: &B, m: PathMatrix<S::T>, kb: u32, sm: *mut u8) {
    let Some((is_row, at)) = phase2_tile(b, m.np, kb) else {
        return;
    };
    let (np, kb) = (m.np as usize, kb as usize);
    // SAFETY: caller's contract; the diagonal tile first, ours after it.
    unsafe {
        let diag = Cells::<S::T>::tile_at(sm);
        let own = Cells::<S::T>::tile_at(sm.add(Cells::<S::T>::bytes()));
        move_cells(b, m.cells, np, (kb, kb), diag, false);
        move_cells(b, m.cells, np, at, own, false);
        let (left, right) = if is_row { (diag, own) } else { (own, diag) };
        for k in 0..T {
            b.each(|t| {
                cells_of(t, |i, j| {
                    let a = (
                        *left.val.add(i * T + k),
                        *left.hops.add(i * T + k),
                        *left.next.add(i * T + k),
                    );
                    let bk = (*right.val.add(k * T + j), *right.hops.add(k * T + j));
                    relax_path_at::<S>(own, i * T + j, a, bk);
                })
            });
        }
        move_cells(b, m.cells, np, at, own, true);
    }
}

/// Phase 3 with next hops: `A(i, kb)` (values, counts, hops) and `B(kb, j)`
/// (values, counts) in shared memory; each thread keeps its 4 × 4 cells of `C`
/// — value, count, hop — in registers over all `k`.
///
/// # Safety
/// As [`path1`].
#[inline(always)]
pub unsafe fn path3<S: Semiring, B: Block>(b: &B, m: PathMatrix<S::T>, kb: u32, sm: *mut u8) {
    let Some((ti, tj)) = phase3_tile(b, m.np, kb) else {
        return;
    };
    let (npu, kb) = (m.np as usize, kb as usize);
    // SAFETY: caller's contract; A's three arrays first, then B's.
    unsafe {
        let sa = Cells::<S::T>::tile_at(sm);
        let sb = Cells::<S::T>::tile_at(sm.add(Cells::<S::T>::bytes()));
        move_cells(b, m.cells, npu, (ti, kb), sa, false);
        move_tile(b, m.cells.val, npu, (kb, tj), sb.val, false);
        move_tile(b, m.cells.hops, npu, (kb, tj), sb.hops, false);
        b.each(|t| {
            let (ty, tx) = (t as usize / SIDE, t as usize % SIDE);
            let at = |r: usize, c: usize| (ti * T + ty + SIDE * r) * npu + tj * T + tx + SIDE * c;
            let g = m.cells;
            let mut val = [[S::T::default(); SUB]; SUB];
            let mut hops = [[0u32; SUB]; SUB];
            let mut next = [[0u32; SUB]; SUB];
            for r in 0..SUB {
                for c in 0..SUB {
                    val[r][c] = *g.val.add(at(r, c));
                    hops[r][c] = *g.hops.add(at(r, c));
                    next[r][c] = *g.next.add(at(r, c));
                }
            }
            for k in 0..T {
                // Unrolled by hand: LLVM keeps the 8-byte variants' loops rolled,
                // which leaves the three register arrays in local memory.
                unroll4!(r => {
                    let x = (ty + SIDE * r) * T + k;
                    let (a, ha, na) = (*sa.val.add(x), *sa.hops.add(x), *sa.next.add(x));
                    unroll4!(c => {
                        let y = k * T + tx + SIDE * c;
                        let cand = S::mul(a, *sb.val.add(y));
                        let ch = ha.saturating_add(*sb.hops.add(y));
                        let cur = val[r][c];
                        if S::improves(cand, cur) || (cand == cur && ch < hops[r][c]) {
                            val[r][c] = cand;
                            hops[r][c] = ch;
                            next[r][c] = na;
                        }
                    });
                });
            }
            for r in 0..SUB {
                for c in 0..SUB {
                    *g.val.add(at(r, c)) = val[r][c];
                    *g.hops.add(at(r, c)) = hops[r][c];
                    *g.next.add(at(r, c)) = next[r][c];
                }
            }
        });
    }
}

/// Peak microbenchmark of one semiring's relaxation: `iters` rounds of 16
/// independent `c ⊕ (a ⊗ x)` per thread on registers (8 chains of two), the
/// same instruction mix as phase 3 without memory traffic. The chains start
/// from `seed[0..16]` (read at run time, so nothing folds). Relaxations =
/// threads × iters × 16.
///
/// # Safety
/// `seed` holds 16 values; `out` one per thread of the grid.
#[inline(always)]
pub unsafe fn peak<S: Semiring>(
    t: crate::ThreadCtx,
    iters: u32,
    x: S::T,
    y: S::T,
    seed: *const S::T,
    out: *mut S::T,
) {
    let mut a = [S::T::default(); 8];
    let mut b = [S::T::default(); 8];
    // SAFETY: caller's contract.
    unsafe {
        for l in 0..8 {
            a[l] = *seed.add(l);
            b[l] = *seed.add(8 + l);
        }
    }
    for _ in 0..iters {
        for l in 0..8 {
            a[l] = S::relax(a[l], b[l], x);
            b[l] = S::relax(b[l], a[l], y);
        }
    }
    let mut s = a[0];
    for l in 0..8 {
        s = S::add(S::add(s, a[l]), b[l]);
    }
    // SAFETY: one slot per thread (caller's contract).
    unsafe { *out.add(t.global() as usize) = s };
}

/// The names of a closure kernel set with prefix `p`: phases 1–3, the next-hop
/// phases 1–3 and the peak, in that order ([`crate::closure_kernels!`]'s order).
pub const KERNEL_SUFFIXES: [&str; 7] = [
    "phase1", "phase2", "phase3", "path1", "path2", "path3", "peak",
];

/// Declares the closure entry points of semiring `$s` (a [`Semiring`]), named
/// `$p1 $p2 $p3` (phases), `$q1 $q2 $q3` (next-hop phases) and `$peak`; the host
/// loads them by the names in [`KERNEL_SUFFIXES`] order. Launch contract:
/// [`THREADS`] threads, [`smem_bytes`] / [`smem_bytes_path`] bytes of
/// launch-sized shared memory, `np` a multiple of [`TILE`].
#[macro_export]
macro_rules! closure_kernels {
    ($s:ty => $p1:ident, $p2:ident, $p3:ident, $q1:ident, $q2:ident, $q3:ident, $peak:ident) => {
        $crate::__closure_phase!($s, $p1, phase1);
        $crate::__closure_phase!($s, $p2, phase2);
        $crate::__closure_phase!($s, $p3, phase3);
        $crate::__closure_path!($s, $q1, path1);
        $crate::__closure_path!($s, $q2, path2);
        $crate::__closure_path!($s, $q3, path3);

        $crate::__kernel!(
            $peak => $crate::closure::peak::<$s>;
            iters: u32,
            x: <$s as $crate::closure::Semiring>::T,
            y: <$s as $crate::closure::Semiring>::T,
            seed: *const <$s as $crate::closure::Semiring>::T,
            out: *mut <$s as $crate::closure::Semiring>::T,
        );
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __closure_phase {
    ($s:ty, $name:ident, $body:ident) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            np: u32,
            kb: u32,
            d: *mut <$s as $crate::closure::Semiring>::T,
        ) {
            // SAFETY: an np·np buffer, THREADS threads and smem_bytes of launch-sized
            // shared memory (8-byte aligned: enough for every element type).
            unsafe {
                let sm = $crate::closure::shared_mem() as *mut <$s as $crate::closure::Semiring>::T;
                $crate::closure::$body::<$s, _>(
                    &$crate::closure::GpuBlock::current(),
                    np,
                    kb,
                    d,
                    sm,
                )
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __closure_path {
    ($s:ty, $name:ident, $body:ident) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            np: u32,
            kb: u32,
            d: *mut <$s as $crate::closure::Semiring>::T,
            hops: *mut u32,
            next: *mut u32,
        ) {
            let m = $crate::closure::PathMatrix {
                np,
                cells: $crate::closure::Cells { val: d, hops, next },
            };
            // SAFETY: three np·np buffers, THREADS threads and smem_bytes_path of
            // launch-sized shared memory (8-byte aligned).
            unsafe {
                let sm = $crate::closure::shared_mem() as *mut u8;
                $crate::closure::$body::<$s, _>(&$crate::closure::GpuBlock::current(), m, kb, sm)
            }
        }
    };
}
