//! The kernels' side of the launch: the raw pointers the host passes
//! ([`RawRound`]), turned back into a [`Round`]'s slices, and the macros that
//! make a program's PTX entry points from them.

use core::sync::atomic::AtomicU32;

use super::{GatherProgram, Round};
use crate::word::{slice, StateWord};

/// Raw kernel arguments, as the host launches them.
#[derive(Debug)]
pub struct RawRound<P: GatherProgram> {
    /// Vertices (the length of every per-vertex array).
    pub n: u64,
    /// Edges of the whole graph ([`super::Ctx::num_edges`]).
    pub m: u64,
    /// Entries of `out_targets` (and `out_weights`): `m` on one GPU; 0 on a
    /// part of several GPUs, which pulls only and passes no out-edges.
    pub out_len: u64,
    /// Entries of `in_sources` (and `in_weights`): `m` on one GPU; the part's
    /// in-edges (those of its own vertices) on several.
    pub in_len: u64,
    /// The vertices `first..end` the per-vertex launches (init, emit, apply,
    /// refresh) run: `0..n` on one GPU, the part's own on several.
    pub first: u64,
    pub end: u64,
    pub out_offsets: *const u64,
    pub out_targets: *const u32,
    pub out_weights: *const P::Weight,
    pub in_offsets: *const u64,
    pub in_sources: *const u32,
    pub in_weights: *const P::Weight,
    pub state: *mut P::State,
    pub msg: *mut P::Msg,
    pub acc: *mut P::Acc,
    pub frontier: *mut u32,
    pub received: *mut u32,
    pub next: *mut u32,
    pub tally: *mut u64,
    pub tally_len: u64,
    pub round: u32,
    pub source: u32,
    pub global: f64,
}

impl<P: GatherProgram> Clone for RawRound<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: GatherProgram> Copy for RawRound<P> {}

/// `len` cells at `ptr` (dangling for empty).
///
/// # Safety
/// `ptr` valid for `len` elements for `'a`; accesses follow the kernels' rules.
#[inline(always)]
unsafe fn cells<'a, T>(ptr: *mut T, len: usize) -> &'a [core::cell::UnsafeCell<T>] {
    // SAFETY: `UnsafeCell<T>` has `T`'s layout; validity is the caller's.
    unsafe { slice(ptr as *const core::cell::UnsafeCell<T>, len) }
}

/// `len` bits at `ptr` as atomic words, `None` if null.
///
/// # Safety
/// As [`cells`], for `len.div_ceil(32)` words.
#[inline(always)]
unsafe fn bits<'a>(ptr: *mut u32, len: usize) -> Option<&'a [AtomicU32]> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: forwarded contract.
        Some(unsafe { u32::atomics_from_raw(ptr, len.div_ceil(32)) })
    }
}

impl<P: GatherProgram> RawRound<P> {
    /// The slices behind the pointers.
    ///
    /// # Safety
    /// Every non-null pointer valid for its length (`n + 1` offsets, `out_len`
    /// and `in_len` edges and weights, `n` states, messages and accumulators,
    /// `ceil(n / 32)` bitmap words, `tally_len` tally words); `out_offsets` the
    /// whole graph's out-degrees; `in_*` a CSC whose rows hold every in-edge of
    /// the vertices `first..end` (`first <= end <= n`); `out_*`, when
    /// `out_len > 0`, the CSR of the same graph.
    #[inline(always)]
    pub unsafe fn round<'a>(&self) -> Round<'a, P> {
        let n = self.n as usize;
        let (out_len, in_len) = (self.out_len as usize, self.in_len as usize);
        let weights = |len: usize| if P::WEIGHTED { len } else { 0 };
        // SAFETY: the caller's contract.
        unsafe {
            Round {
                n: self.n as u32,
                num_edges: self.m,
                first: self.first as u32,
                end: self.end as u32,
                out_offsets: slice(self.out_offsets, n + 1),
                out_targets: slice(self.out_targets, out_len),
                out_weights: slice(self.out_weights, weights(out_len)),
                in_offsets: slice(self.in_offsets, n + 1),
                in_sources: slice(self.in_sources, in_len),
                in_weights: slice(self.in_weights, weights(in_len)),
                state: cells(self.state, n),
                msg: cells(self.msg, n),
                acc: P::Acc::atomics_from_raw(self.acc, n),
                frontier: bits(self.frontier, n),
                received: bits(self.received, n),
                next: bits(self.next, n),
                tally: u64::atomics_from_raw(self.tally, self.tally_len as usize),
                round: self.round,
                source: self.source,
                global: self.global,
            }
        }
    }
}

/// The gather/apply kernels of a program: `$init`, `$emit`, `$pull`, `$push`,
/// `$apply`, `$refresh`, `$sweep`, each taking a [`RawRound`]'s fields (plus `sv,
/// nchunks, mec` for the gathers, `all` for apply, `order, rank, lo, hi` for a
/// sweep round).
#[macro_export]
macro_rules! gather_kernels {
    ($prog:ty => $init:ident, $emit:ident, $pull:ident, $push:ident, $apply:ident, $refresh:ident, $sweep:ident) => {
        $crate::__gather_kernel!($prog, $init, |r, t, preset| r.init(t, preset != 0), [preset: u32]);
        $crate::__gather_kernel!($prog, $emit, |r, t| r.emit(t), []);
        $crate::__gather_kernel!($prog, $pull, |r, t, sv, nchunks, mec| {
            // SAFETY: `sv` holds `nchunks` entries (host contract).
            r.pull(t, unsafe { $crate::word::slice(sv, nchunks as usize) }, mec)
        }, [sv: *const u32, nchunks: u64, mec: u64]);
        $crate::__gather_kernel!($prog, $push, |r, t, sv, nchunks, mec| {
            // SAFETY: as above.
            r.push(t, unsafe { $crate::word::slice(sv, nchunks as usize) }, mec)
        }, [sv: *const u32, nchunks: u64, mec: u64]);
        $crate::__gather_kernel!($prog, $apply, |r, t, all, emit| r.apply(t, all != 0, emit != 0), [all: u32, emit: u32]);
        $crate::__gather_kernel!($prog, $refresh, |r, t| r.refresh(t), []);
        $crate::__gather_kernel!($prog, $sweep, |r, t, order, rank, lo, hi| {
            // SAFETY: `order` holds at least `hi` entries and `rank` `n` (host
            // contract: a `Sweep` of this graph).
            let (order, rank) = unsafe {
                ($crate::word::slice(order, hi as usize), $crate::word::slice(rank, r.n as usize))
            };
            r.sweep(t, order, rank, lo, hi)
        }, [order: *const u32, rank: *const u32, lo: u64, hi: u64]);
    };
}

/// One entry point of [`gather_kernels!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __gather_kernel {
    ($prog:ty, $name:ident, |$r:ident, $t:ident $(, $extra:ident)*| $body:expr, [$($x:ident: $ty:ty),*]) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            n: u64,
            m: u64,
            out_len: u64,
            in_len: u64,
            first: u64,
            end: u64,
            out_offsets: *const u64,
            out_targets: *const u32,
            out_weights: *const <$prog as $crate::gather::GatherProgram>::Weight,
            in_offsets: *const u64,
            in_sources: *const u32,
            in_weights: *const <$prog as $crate::gather::GatherProgram>::Weight,
            state: *mut <$prog as $crate::gather::GatherProgram>::State,
            msg: *mut <$prog as $crate::gather::GatherProgram>::Msg,
            acc: *mut <$prog as $crate::gather::GatherProgram>::Acc,
            frontier: *mut u32,
            received: *mut u32,
            next: *mut u32,
            tally: *mut u64,
            tally_len: u64,
            round: u32,
            source: u32,
            global: f64,
            $($x: $ty),*
        ) {
            let raw = $crate::gather::RawRound::<$prog> {
                n, m, out_len, in_len, first, end, out_offsets, out_targets, out_weights, in_offsets, in_sources,
                in_weights, state, msg, acc, frontier, received, next, tally, tally_len,
                round, source, global,
            };
            // SAFETY: the host launches with buffers matching `RawRound::round`.
            let $r = unsafe { raw.round() };
            let $t = $crate::ThreadCtx::current();
            $body
        }
    };
}
