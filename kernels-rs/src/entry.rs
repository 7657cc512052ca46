//! Kernel entry bodies over raw pointers: what a GPU kernel does, minus reading
//! its thread id.
//!
//! These take exactly the arguments the host launches the kernels with (device
//! pointers, lengths, scalars), rebuild slices from them and call the
//! [`crate::skeleton`] bodies. The `extern "ptx-kernel"` wrappers made by
//! [`crate::ptx_kernels!`] are one line each around them, and the host emulation
//! launcher calls them directly with host pointers, so emulation tests exercise
//! the same code, argument plumbing included.
//!
//! Conventions: a null `parents` means "no parents"; null `frontier_current` /
//! `frontier_next` mean the implicit (state-based) frontier, otherwise they are
//! the stamp arrays of [`crate::Flags`]; `flags` is the ring
//! of `nflags ≥ 3` level flags, read at `slot_in`, raised at `slot_out`, and slot
//! `(slot_out + 1) % nflags` is cleared for the next launch.
//!
//! # Safety (all functions)
//! Every pointer must be valid for its stated length (`n + 1` offsets, `m` targets
//! and weights, `n` state/parents/frontier words, `nchunks` SV entries, `nflags`
//! flags) for the duration of the call, device or host memory as appropriate, and
//! `offsets` must describe a valid CSR over `targets` (checked on upload).

use crate::direction;
use crate::frontier::{Flags, Frontier, Implicit};
use crate::program::Program;
use crate::skeleton::{self, CsrView, Level, LevelFlags};
use crate::thread::ThreadCtx;
use crate::word::{opt_u32_cells, slice, StateWord};

/// Arguments shared by both level kernels, as the host passes them.
#[derive(Debug)]
pub struct RawLevel<P: Program> {
    pub n: u64,
    pub m: u64,
    pub offsets: *const u64,
    pub targets: *const u32,
    pub weights: *const P::Weight,
    pub state: *mut P::State,
    pub parents: *mut u32,
    pub frontier_current: *mut u32,
    pub frontier_next: *mut u32,
    pub flags: *mut u32,
    pub nflags: u32,
    pub slot_in: u32,
    pub slot_out: u32,
    pub iter: u32,
}

impl<P: Program> Clone for RawLevel<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: Program> Copy for RawLevel<P> {}

impl<P: Program> RawLevel<P> {
    /// Rebuilds the slices and runs `body` with the frontier the pointers select.
    ///
    /// # Safety
    /// See the module docs.
    #[inline(always)]
    unsafe fn with_level(&self, body: impl Fn(&dyn LevelBody<P>)) {
        let n = self.n as usize;
        let m = self.m as usize;
        // SAFETY: lengths and validity are the caller's contract (module docs).
        let (graph, weights, state, parents, flags) = unsafe {
            (
                CsrView {
                    offsets: slice(self.offsets, n + 1),
                    targets: slice(self.targets, m),
                },
                slice(self.weights, m),
                P::State::atomics_from_raw(self.state, n),
                if P::PARENTS_VALID {
                    opt_u32_cells(self.parents, n)
                } else {
                    None
                },
                u32::atomics_from_raw(self.flags, self.nflags as usize),
            )
        };
        let flags = LevelFlags {
            input: &flags[self.slot_in as usize],
            output: &flags[self.slot_out as usize],
            clear: &flags[((self.slot_out + 1) % self.nflags) as usize],
        };
        if self.frontier_current.is_null() || self.frontier_next.is_null() {
            body(&Level::<P, Implicit> {
                graph,
                weights,
                state,
                parents,
                frontier: Implicit,
                flags,
                iter: self.iter,
            });
        } else {
            // SAFETY: as above; both frontier arrays hold `n` words.
            let (current, next) = unsafe {
                (
                    u32::atomics_from_raw(self.frontier_current, n),
                    u32::atomics_from_raw(self.frontier_next, n),
                )
            };
            body(&Level::<P, Flags<'_>> {
                graph,
                weights,
                state,
                parents,
                frontier: Flags {
                    current,
                    next,
                    iter: self.iter,
                },
                flags,
                iter: self.iter,
            });
        }
    }
}

/// Object-safe view of a [`Level`] so one closure serves both frontier kinds.
trait LevelBody<P: Program> {
    fn naive(&self, t: ThreadCtx);
    fn balanced(&self, t: ThreadCtx, sv: &[u32], max_edge_count: u64);
}

impl<P: Program, F: Frontier<P>> LevelBody<P> for Level<'_, P, F> {
    #[inline(always)]
    fn naive(&self, t: ThreadCtx) {
        Level::naive(self, t)
    }
    #[inline(always)]
    fn balanced(&self, t: ThreadCtx, sv: &[u32], max_edge_count: u64) {
        Level::balanced(self, t, sv, max_edge_count)
    }
}

/// Initial state and parents (`parents` may be null).
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn init<P: Program>(
    t: ThreadCtx,
    n: u64,
    source: u32,
    state: *mut P::State,
    parents: *mut u32,
) {
    // SAFETY: caller's contract.
    let (state, parents) = unsafe {
        (
            P::State::atomics_from_raw(state, n as usize),
            opt_u32_cells(parents, n as usize),
        )
    };
    skeleton::init::<P>(t, state, parents, source);
}

/// The `SV` construction (Alg. 4) over `n` vertices into `nchunks` slots.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn build_sv(
    t: ThreadCtx,
    n: u64,
    offsets: *const u64,
    max_edge_count: u64,
    sv: *mut u32,
    nchunks: u64,
) {
    // SAFETY: caller's contract.
    let (offsets, sv) = unsafe {
        (
            slice(offsets, n as usize + 1),
            u32::atomics_from_raw(sv, nchunks as usize),
        )
    };
    skeleton::build_sv(t, offsets, max_edge_count, sv);
}

/// One thread of the naive full-scan level kernel (Alg. 2).
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn naive<P: Program>(t: ThreadCtx, a: RawLevel<P>) {
    // SAFETY: caller's contract.
    unsafe { a.with_level(|l| l.naive(t)) }
}

/// One thread of the edge-chunk balanced level kernel (Alg. 3).
///
/// # Safety
/// See the module docs; `sv` holds `nchunks = ceil(m / max_edge_count)` entries
/// built by [`build_sv`] with the same `max_edge_count`.
#[inline(always)]
pub unsafe fn balanced<P: Program>(
    t: ThreadCtx,
    a: RawLevel<P>,
    sv: *const u32,
    nchunks: u64,
    max_edge_count: u64,
) {
    // SAFETY: caller's contract.
    unsafe {
        let sv = slice(sv, nchunks as usize);
        a.with_level(|l| l.balanced(t, sv, max_edge_count))
    }
}

/// One kernel entry, `extern "ptx-kernel" fn $name($params)`, that hands its
/// parameters, in order, to `$body` after the calling thread's [`ThreadCtx`].
/// The kernel macros below are made of it, so that each kernel's parameter
/// list (the order the host launches it with) is written once.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel {
    ($name:ident => $body:path; $($p:ident: $t:ty),* $(,)?) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name($($p: $t),*) {
            // SAFETY: the host launches with buffers matching the documented contract.
            unsafe { $body($crate::ThreadCtx::current(), $($p),*) }
        }
    };
}

/// Defines the GPU entry points of one program: `init`, the naive and the
/// balanced level kernel. Expands to nothing off the GPU target, so a program
/// crate can invoke it unconditionally; the crate root needs
/// `#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]`.
///
/// Kernel parameters (all scalars and device pointers, in this order):
/// * `init(n, source, state, parents)`
/// * `naive(n, m, offsets, targets, weights, state, parents, frontier_current,
///   frontier_next, flags, nflags, slot_in, slot_out, iter)`
/// * `balanced(<naive's parameters>, sv, nchunks, max_edge_count)`
///
/// ```ignore
/// kernels_rs::ptx_kernels!(my_crate::Sssp => sssp_init, sssp_naive, sssp_balanced);
/// ```
#[macro_export]
macro_rules! ptx_kernels {
    ($prog:ty => $init:ident, $naive:ident, $balanced:ident) => {
        $crate::__kernel!(
            $init => $crate::entry::init::<$prog>;
            n: u64,
            source: u32,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
        );

        $crate::__level_kernel!($prog, $naive, naive, []);
        $crate::__level_kernel!(
            $prog,
            $balanced,
            balanced,
            [sv: *const u32, nchunks: u64, max_edge_count: u64]
        );
    };
}

/// One level kernel of [`ptx_kernels!`]: the 14 parameters of a [`RawLevel`]
/// followed by `extra` ones, forwarded to `entry::$body` after the `RawLevel`.
#[doc(hidden)]
#[macro_export]
macro_rules! __level_kernel {
    ($prog:ty, $name:ident, $body:ident, [$($extra:ident: $ty:ty),*]) => {
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
            frontier_current: *mut u32,
            frontier_next: *mut u32,
            flags: *mut u32,
            nflags: u32,
            slot_in: u32,
            slot_out: u32,
            iter: u32,
            $($extra: $ty),*
        ) {
            let a = $crate::entry::RawLevel::<$prog> {
                n,
                m,
                offsets,
                targets,
                weights,
                state,
                parents,
                frontier_current,
                frontier_next,
                flags,
                nflags,
                slot_in,
                slot_out,
                iter,
            };
            // SAFETY: the host launches with buffers matching the documented contract.
            unsafe {
                $crate::entry::$body::<$prog>($crate::ThreadCtx::current(), a $(, $extra)*)
            }
        }
    };
}

/// Checks the vertices `[first, end)` of a BFS tree
/// ([`crate::tree_check::TreeCheck`]).
///
/// # Safety
/// See the module docs; `offsets`/`targets` a valid CSR (`n + 1`, `m`) holding
/// at least the rows of `[first, end)`, of a symmetric graph; `levels`/`parents`
/// `n` each, `verdict` one word.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn check_tree(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    root: u32,
    levels: *const u32,
    parents: *const u32,
    verdict: *mut u64,
    first: u64,
    end: u64,
) {
    let n_ = n as usize;
    // SAFETY: caller's contract.
    let c = unsafe {
        crate::tree_check::TreeCheck {
            graph: CsrView {
                offsets: slice(offsets, n_ + 1),
                targets: slice(targets, m as usize),
            },
            root,
            levels: slice(levels, n_),
            parents: slice(parents, n_),
            verdict: &u64::atomics_from_raw(verdict, 1)[0],
            first,
            end,
        }
    };
    c.run(t, crate::warp::kernel_warp(t))
}

/// One GPU's share of the peer exchange ([`crate::peer::PeerGather`]): `table`
/// holds `bufs · parts` rows; `sums` (null for none) `parts` counter addresses;
/// `flags` (null: the host ordered the launch) `parts` arrival arrays, with the
/// exchange's `epoch` and this part's counters and published slot
/// ([`crate::peer::Arrive`]).
///
/// # Safety
/// See the module docs and [`crate::peer::PeerGather::run`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn peer_gather(
    t: ThreadCtx,
    me: u32,
    parts: u32,
    table: *const u64,
    bufs: u32,
    sums: *const u64,
    sum_words: u32,
    sum_out: *mut u64,
    epoch: u64,
    flags: *const u64,
    publish_from: *const u64,
    publish_to: *mut u64,
) {
    let parts_ = parts as usize;
    // SAFETY: caller's contract.
    let g = unsafe {
        crate::peer::PeerGather {
            me: me as usize,
            parts: parts_,
            table: slice(table, bufs as usize * parts_ * crate::peer::ROW),
            bufs: bufs as usize,
            sums: if sums.is_null() {
                &[]
            } else {
                slice(sums, parts_)
            },
            sum_words: sum_words as usize,
            sum_out,
            arrive: if flags.is_null() {
                None
            } else {
                Some(crate::peer::Arrive {
                    epoch,
                    flags: slice(flags, parts_),
                    publish: (publish_from, publish_to),
                })
            },
        }
    };
    // SAFETY: forwarded contract.
    unsafe { g.run(t) }
}

/// Defines the peer-exchange kernel under `$name` (parameters `me, parts, table,
/// bufs, sums, sum_words, sum_out`).
#[macro_export]
macro_rules! peer_gather_kernel {
    ($name:ident) => {
        $crate::__kernel!(
            $name => $crate::entry::peer_gather;
            me: u32,
            parts: u32,
            table: *const u64,
            bufs: u32,
            sums: *const u64,
            sum_words: u32,
            sum_out: *mut u64,
            epoch: u64,
            flags: *const u64,
            publish_from: *const u64,
            publish_to: *mut u64,
        );
    };
}

/// Defines the BFS-tree check kernel under `$name` (parameters `n, m, offsets,
/// targets, root, levels, parents, verdict, first, end`).
#[macro_export]
macro_rules! tree_check_kernel {
    ($name:ident) => {
        $crate::__kernel!(
            $name => $crate::entry::check_tree;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            root: u32,
            levels: *const u32,
            parents: *const u32,
            verdict: *mut u64,
            first: u64,
            end: u64,
        );
    };
}

/// Defines the program-independent `SV` construction kernel under `$name`
/// (parameters `n, offsets, max_edge_count, sv, nchunks`).
#[macro_export]
macro_rules! sv_kernel {
    ($name:ident) => {
        $crate::__kernel!(
            $name => $crate::entry::build_sv;
            n: u64,
            offsets: *const u64,
            max_edge_count: u64,
            sv: *mut u32,
            nchunks: u64,
        );
    };
}

/// The counter blocks a planning kernel reads (`prev`, none at level 0) and
/// writes (`cur`).
///
/// # Safety
/// As [`plan_level`].
#[inline(always)]
unsafe fn plan_blocks<'a>(
    prev: *mut u64,
    cur: *mut u64,
) -> (
    Option<&'a [core::sync::atomic::AtomicU64]>,
    &'a [core::sync::atomic::AtomicU64],
) {
    // SAFETY: caller's contract.
    unsafe {
        let prev = (!prev.is_null()).then(|| u64::atomics_from_raw(prev, direction::CTL_WORDS));
        (prev, u64::atomics_from_raw(cur, direction::CTL_WORDS))
    }
}

/// Plans one device-driven direction level ([`direction::plan_level`]); thread 0
/// of the launch does it, any others return.
///
/// # Safety
/// `prev` is null (level 0) or `direction::CTL_WORDS` counters of the previous
/// level; `cur` `direction::CTL_WORDS` counters of this one, not `prev`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn plan_level(
    t: ThreadCtx,
    prev: *mut u64,
    cur: *mut u64,
    n: u64,
    m: u64,
    first_vertices: u64,
    first_edges: u64,
    alpha: u64,
    beta: u64,
    level: u32,
) {
    if t.global() != 0 {
        return;
    }
    let h = direction::Heuristic { alpha, beta };
    // SAFETY: caller's contract.
    unsafe {
        let (prev, cur) = plan_blocks(prev, cur);
        direction::plan_level(prev, cur, n, m, (first_vertices, first_edges), level, h)
    }
}

/// Plans one device-driven bucketed pass ([`direction::plan_pass`]); thread 0 of
/// the launch does it.
///
/// # Safety
/// As [`plan_level`].
#[inline(always)]
pub unsafe fn plan_pass(
    t: ThreadCtx,
    prev: *mut u64,
    cur: *mut u64,
    first_pending: u64,
    first_limit: u64,
    delta: u64,
) {
    if t.global() != 0 {
        return;
    }
    // SAFETY: caller's contract.
    unsafe {
        let (prev, cur) = plan_blocks(prev, cur);
        direction::plan_pass(prev, cur, first_pending, first_limit, delta)
    }
}

/// Defines the program-independent planning kernels: `$level` (parameters
/// `prev, cur, n, m, first_vertices, first_edges, alpha, beta, level`) and `$pass`
/// (`prev, cur, first_pending, first_limit, delta`); one thread each.
#[macro_export]
macro_rules! plan_kernel {
    ($name:ident, $pass:ident) => {
        $crate::__kernel!(
            $pass => $crate::entry::plan_pass;
            prev: *mut u64,
            cur: *mut u64,
            first_pending: u64,
            first_limit: u64,
            delta: u64,
        );

        $crate::__kernel!(
            $name => $crate::entry::plan_level;
            prev: *mut u64,
            cur: *mut u64,
            n: u64,
            m: u64,
            first_vertices: u64,
            first_edges: u64,
            alpha: u64,
            beta: u64,
            level: u32,
        );
    };
}

/// Words of a one-bit-per-vertex bitmap over `n` vertices.
#[inline(always)]
pub fn bitmap_words(n: u64) -> u64 {
    n.div_ceil(32)
}

/// # Safety
/// `ptr` valid for [`bitmap_words`]`(n)` words, accessed only atomically.
#[inline(always)]
unsafe fn bitmap<'a>(ptr: *mut u32, n: u64) -> direction::Bitmap<'a> {
    direction::Bitmap {
        // SAFETY: forwarded contract.
        words: unsafe { u32::atomics_from_raw(ptr, bitmap_words(n) as usize) },
    }
}

/// # Safety
/// `ptr` valid for [`bitmap_words`]`(n)` words that nothing writes while the
/// kernel runs (a level's frontier: the level writes the other buffer).
#[inline(always)]
unsafe fn frozen_bitmap<'a>(ptr: *const u32, n: u64) -> direction::FrozenBitmap<'a> {
    direction::FrozenBitmap {
        // SAFETY: forwarded contract.
        words: unsafe { slice(ptr, bitmap_words(n) as usize) },
    }
}

/// Top-down step 1 ([`direction::td_chunks`]): frontier bitmap → chunk work list.
/// Launched with whole warps (blocks a multiple of 32 threads). A non-null
/// `clear` (the next frontier's bitmap) is zeroed on the way, whatever the
/// level's direction: a planned level's bitmap clear then costs no launch of
/// its own.
///
/// # Safety
/// See the module docs; `frontier` holds `bitmap_words(n)` words, `chunks`
/// `capacity ≥ direction::chunk_capacity(n, m, chunk)` slots, `ctl`
/// `direction::CTL_WORDS` counters, `clear` null or `bitmap_words(n)` words
/// that no other thread of the launch reads or writes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn td_chunks(
    t: ThreadCtx,
    n: u64,
    offsets: *const u64,
    frontier: *mut u32,
    chunk: u64,
    chunks: *mut u64,
    capacity: u64,
    ctl: *mut u64,
    clear: *mut u32,
) {
    // SAFETY: caller's contract.
    unsafe {
        direction::td_chunks(
            t,
            crate::warp::kernel_warp(t),
            slice(offsets, n as usize + 1),
            frozen_bitmap(frontier, n),
            chunk,
            u64::atomics_from_raw(chunks, capacity as usize),
            u64::atomics_from_raw(ctl, direction::CTL_WORDS),
            (!clear.is_null()).then(|| bitmap(clear, n).words),
        )
    }
}

/// Bucketed step 1 ([`direction::td_select`]).
///
/// # Safety
/// As [`td_chunks`]; `state` holds `n` states; `pending` `bitmap_words(n)` words.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn td_select<P: Program>(
    t: ThreadCtx,
    n: u64,
    offsets: *const u64,
    state: *mut P::State,
    pending: *mut u32,
    limit: u64,
    chunk: u64,
    chunks: *mut u64,
    capacity: u64,
    ctl: *mut u64,
) {
    // SAFETY: caller's contract.
    unsafe {
        direction::td_select::<P, _>(
            t,
            crate::warp::kernel_warp(t),
            slice(offsets, n as usize + 1),
            P::State::atomics_from_raw(state, n as usize),
            bitmap(pending, n),
            limit,
            chunk,
            u64::atomics_from_raw(chunks, capacity as usize),
            u64::atomics_from_raw(ctl, direction::CTL_WORDS),
        )
    }
}

/// The [`direction::TopDown`] of a `td_relax` or `td_scan` launch.
///
/// # Safety
/// As [`td_relax`]; `chunks` as long as the launch reads it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn top_down<'a, P: Program>(
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    parents: *mut u32,
    chunks: &'a [u64],
    chunk: u64,
    next: *mut u32,
    ctl: *mut u64,
    iter: u32,
    degree_offsets: *const u64,
    candidate: *const P::State,
) -> direction::TopDown<'a, P> {
    let (n_, m_) = (n as usize, m as usize);
    // SAFETY: caller's contract.
    unsafe {
        let ctl = u64::atomics_from_raw(ctl, direction::CTL_WORDS);
        let iter = if iter == direction::ITER_FROM_PLAN {
            ctl[direction::CTL_LEVEL].load(core::sync::atomic::Ordering::Relaxed) as u32
        } else {
            iter
        };
        direction::TopDown::<P> {
            graph: CsrView {
                offsets: slice(offsets, n_ + 1),
                targets: slice(targets, m_),
            },
            weights: slice(weights, m_),
            state: P::State::atomics_from_raw(state, n_),
            parents: opt_u32_cells(parents, n_),
            chunks,
            chunk,
            next: bitmap(next, n),
            ctl,
            iter,
            degree_offsets: if degree_offsets.is_null() {
                slice(offsets, n_ + 1)
            } else {
                slice(degree_offsets, n_ + 1)
            },
            candidate: if candidate.is_null() {
                None
            } else {
                Some(slice(candidate, 1)[0])
            },
        }
    }
}

/// Top-down step 2 ([`direction::TopDown::relax`]).
///
/// # Safety
/// As [`td_chunks`], plus the CSR/weights/state/parents contract of the module
/// docs; `next` holds `bitmap_words(n)` words; `degree_offsets` is null (use
/// `offsets`) or `n + 1` offsets; `candidate` null or one state.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn td_relax<P: Program>(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    parents: *mut u32,
    chunks: *const u64,
    capacity: u64,
    chunk: u64,
    next: *mut u32,
    ctl: *mut u64,
    iter: u32,
    degree_offsets: *const u64,
    candidate: *const P::State,
) {
    // SAFETY: caller's contract.
    let td = unsafe {
        top_down::<P>(
            n,
            m,
            offsets,
            targets,
            weights,
            state,
            parents,
            slice(chunks, capacity as usize),
            chunk,
            next,
            ctl,
            iter,
            degree_offsets,
            candidate,
        )
    };
    td.relax(t, crate::warp::kernel_warp(t))
}

/// A top-down level by scan ([`direction::TopDown::scan`]).
///
/// # Safety
/// As [`td_relax`] without the work list; `sv` holds `nsv = ⌈m / chunk⌉`
/// chunk starts built by [`build_sv`] with `chunk`; `frontier`
/// `bitmap_words(n)` words.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn td_scan<P: Program>(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    parents: *mut u32,
    sv: *const u32,
    nsv: u64,
    chunk: u64,
    frontier: *mut u32,
    next: *mut u32,
    ctl: *mut u64,
    iter: u32,
    degree_offsets: *const u64,
    candidate: *const P::State,
) {
    // SAFETY: caller's contract.
    let (td, sv, frontier) = unsafe {
        (
            top_down::<P>(
                n,
                m,
                offsets,
                targets,
                weights,
                state,
                parents,
                &[],
                chunk,
                next,
                ctl,
                iter,
                degree_offsets,
                candidate,
            ),
            slice(sv, nsv as usize),
            frozen_bitmap(frontier, n),
        )
    };
    td.scan(t, crate::warp::kernel_warp(t), frontier, sv)
}

/// A bottom-up level ([`direction::BottomUp::run`]).
///
/// # Safety
/// See the module docs; `in_offsets`/`in_sources` are a valid CSR of the in-edges
/// (`n + 1`, `m_in`), `out_offsets` `n + 1` offsets, `frontier`/`next`
/// `bitmap_words(n)` words each, `candidate` one state (the uniform candidate, in
/// memory so that one kernel signature serves every state type).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn bottom_up<P: Program>(
    t: ThreadCtx,
    n: u64,
    first: u64,
    end: u64,
    m_in: u64,
    in_offsets: *const u64,
    in_sources: *const u32,
    out_offsets: *const u64,
    state: *mut P::State,
    parents: *mut u32,
    frontier: *mut u32,
    next: *mut u32,
    candidate: *const P::State,
    ctl: *mut u64,
) {
    let n_ = n as usize;
    // SAFETY: caller's contract.
    let bu = unsafe {
        direction::BottomUp::<P> {
            incoming: CsrView {
                offsets: slice(in_offsets, n_ + 1),
                targets: slice(in_sources, m_in as usize),
            },
            out_offsets: slice(out_offsets, n_ + 1),
            state: P::State::atomics_from_raw(state, n_),
            parents: opt_u32_cells(parents, n_),
            frontier: frozen_bitmap(frontier, n),
            next: bitmap(next, n),
            candidate: slice(candidate, 1)[0],
            ctl: u64::atomics_from_raw(ctl, direction::CTL_WORDS),
            first,
            end,
        }
    };
    bu.run(t, crate::warp::kernel_warp(t))
}

/// A device-planned level's work in the direction its plan chose: the
/// bottom-up scan ([`direction::BottomUp::run`]) when the plan is
/// [`direction::PLAN_BOTTOM_UP`], the top-down relax of the work list
/// ([`direction::TopDown::relax`]) otherwise (an empty list on a level planned
/// done or by scan). One launch where a planned level would launch both
/// kernels and one of them would return at once: a launch that returns at
/// once still costs ~4 µs of a resident grid plus a node of the batch's graph
/// (ncu, Graph500 scale 22 on an H200).
///
/// # Safety
/// As [`td_relax`] and [`bottom_up`] together (the arguments after `candidate`
/// are [`bottom_up`]'s own); `ctl` is a planned level's block ([`plan_level`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn level<P: Program>(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    weights: *const P::Weight,
    state: *mut P::State,
    parents: *mut u32,
    chunks: *const u64,
    capacity: u64,
    chunk: u64,
    next: *mut u32,
    ctl: *mut u64,
    iter: u32,
    degree_offsets: *const u64,
    candidate: *const P::State,
    first: u64,
    end: u64,
    m_in: u64,
    in_offsets: *const u64,
    in_sources: *const u32,
    frontier: *mut u32,
) {
    // SAFETY: caller's contract (one block of CTL_WORDS counters).
    let plan = unsafe { u64::atomics_from_raw(ctl, direction::CTL_WORDS) }[direction::CTL_PLAN]
        .load(core::sync::atomic::Ordering::Relaxed);
    // Every thread reads the same word: the branch is grid-uniform.
    if plan == direction::PLAN_BOTTOM_UP {
        let out_offsets = if degree_offsets.is_null() {
            offsets
        } else {
            degree_offsets
        };
        // SAFETY: caller's contract, as `bottom_up`'s.
        unsafe {
            bottom_up::<P>(
                t,
                n,
                first,
                end,
                m_in,
                in_offsets,
                in_sources,
                out_offsets,
                state,
                parents,
                frontier,
                next,
                candidate,
                ctl,
            )
        }
    } else {
        // SAFETY: caller's contract, as `td_relax`'s.
        unsafe {
            td_relax::<P>(
                t,
                n,
                m,
                offsets,
                targets,
                weights,
                state,
                parents,
                chunks,
                capacity,
                chunk,
                next,
                ctl,
                iter,
                degree_offsets,
                candidate,
            )
        }
    }
}

/// Defines a program's direction-optimizing kernels (see [`crate::direction`]):
///
/// * `td_chunks(n, offsets, frontier, chunk, chunks, capacity, ctl, clear)` (clear may
///   be null)
/// * `td_select(n, offsets, state, pending, limit, chunk, chunks, capacity, ctl)`
/// * `td_relax(n, m, offsets, targets, weights, state, parents, chunks, capacity,
///   chunk, next, ctl, iter, degree_offsets, candidate)` (the last two may be null)
/// * `bottom_up(n, first, end, m_in, in_offsets, in_sources, out_offsets, state,
///   parents, frontier, next, candidate, ctl)` (scans vertices `[first, end)`,
///   `first` a multiple of 32; arrays sized for all `n`)
/// * `td_scan(n, m, offsets, targets, weights, state, parents, sv, nsv, chunk,
///   frontier, next, ctl, iter, degree_offsets, candidate)`
/// * `level(` td_relax's arguments `, first, end, m_in, in_offsets, in_sources,
///   frontier)`: a planned level's relax or bottom-up scan, by its plan ([`level`])
///
/// ```ignore
/// kernels_rs::direction_kernels!(
///     my_crate::Bfs => bfs_td_chunks, bfs_td_select, bfs_td_relax, bfs_bottom_up, bfs_td_scan,
///     bfs_level
/// );
/// ```
#[macro_export]
macro_rules! direction_kernels {
    ($prog:ty => $chunks:ident, $select:ident, $relax:ident, $bottom_up:ident, $scan:ident,
     $level:ident) => {
        $crate::__kernel!(
            $level => $crate::entry::level::<$prog>;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
            chunks: *const u64,
            capacity: u64,
            chunk: u64,
            next: *mut u32,
            ctl: *mut u64,
            iter: u32,
            degree_offsets: *const u64,
            candidate: *const <$prog as $crate::Program>::State,
            first: u64,
            end: u64,
            m_in: u64,
            in_offsets: *const u64,
            in_sources: *const u32,
            frontier: *mut u32,
        );

        $crate::__kernel!(
            $scan => $crate::entry::td_scan::<$prog>;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
            sv: *const u32,
            nsv: u64,
            chunk: u64,
            frontier: *mut u32,
            next: *mut u32,
            ctl: *mut u64,
            iter: u32,
            degree_offsets: *const u64,
            candidate: *const <$prog as $crate::Program>::State,
        );

        $crate::__kernel!(
            $select => $crate::entry::td_select::<$prog>;
            n: u64,
            offsets: *const u64,
            state: *mut <$prog as $crate::Program>::State,
            pending: *mut u32,
            limit: u64,
            chunk: u64,
            chunks: *mut u64,
            capacity: u64,
            ctl: *mut u64,
        );

        $crate::__kernel!(
            $chunks => $crate::entry::td_chunks;
            n: u64,
            offsets: *const u64,
            frontier: *mut u32,
            chunk: u64,
            chunks: *mut u64,
            capacity: u64,
            ctl: *mut u64,
            clear: *mut u32,
        );

        $crate::__kernel!(
            $relax => $crate::entry::td_relax::<$prog>;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            weights: *const <$prog as $crate::Program>::Weight,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
            chunks: *const u64,
            capacity: u64,
            chunk: u64,
            next: *mut u32,
            ctl: *mut u64,
            iter: u32,
            degree_offsets: *const u64,
            candidate: *const <$prog as $crate::Program>::State,
        );

        $crate::__kernel!(
            $bottom_up => $crate::entry::bottom_up::<$prog>;
            n: u64,
            first: u64,
            end: u64,
            m_in: u64,
            in_offsets: *const u64,
            in_sources: *const u32,
            out_offsets: *const u64,
            state: *mut <$prog as $crate::Program>::State,
            parents: *mut u32,
            frontier: *mut u32,
            next: *mut u32,
            candidate: *const <$prog as $crate::Program>::State,
            ctl: *mut u64,
        );
    };
}

/// Counts the triangles of an undirected graph ([`crate::tc::TriangleCount`])
/// into `*total` (added to, so the host zeroes it first).
///
/// # Safety
/// See the module docs; `offsets`/`targets` a CSR (`n + 1`, `m`, targets `< n`):
/// with `in_place == 0` an oriented CSR as `runtime::tc::orient` builds it,
/// otherwise the graph's own rows, each strictly increasing; `total` one word.
#[inline(always)]
pub unsafe fn triangle_count(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    in_place: u64,
    total: *mut u64,
) {
    // SAFETY: caller's contract.
    let c = unsafe {
        crate::tc::TriangleCount {
            rows: crate::intersect::TriangleRows {
                graph: CsrView {
                    offsets: slice(offsets, n as usize + 1),
                    targets: slice(targets, m as usize),
                },
                in_place: in_place != 0,
            },
            total: &u64::atomics_from_raw(total, 1)[0],
        }
    };
    c.run(t, crate::warp::kernel_warp(t))
}

/// Defines the triangle-count kernel under `$name` (parameters `n, m, offsets,
/// targets, in_place, total`); blocks must be a multiple of 32 threads (warp
/// sums).
#[macro_export]
macro_rules! tc_kernel {
    ($name:ident) => {
        $crate::__kernel!(
            $name => $crate::entry::triangle_count;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            in_place: u64,
            total: *mut u64,
        );
    };
}
