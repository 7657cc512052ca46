//! The direction loop's kernels as [`Kernel`]s: a program's `init`,
//! `td_chunks`, `td_select`, `td_relax`, `bottom_up` and `td_scan`, and the
//! program-independent planning and `build_sv` kernels, each with the host body that reads
//! the argument list the PTX entry point takes (`kernels_rs::direction_kernels!`,
//! `plan_kernel!`).

use cudarc::driver::CudaFunction;
use kernels_rs::{entry, Program, ThreadCtx};

use crate::gpu::launcher::{Arg, Kernel};

/// A direction run's kernels, in one place for both backends.
pub(crate) struct DirectionKernels<'k> {
    /// `init(n, source, state, parents)` of `kernels_rs::ptx_kernels!`.
    pub init: Kernel<'k>,
    pub td_chunks: Kernel<'k>,
    pub td_select: Kernel<'k>,
    pub td_relax: Kernel<'k>,
    pub bottom_up: Kernel<'k>,
    /// `plan_level(prev, cur, n, m, first_vertices, first_edges, alpha, beta, level)`.
    pub plan: Kernel<'k>,
    /// `plan_pass(prev, cur, first_pending, first_limit, delta)`.
    pub plan_pass: Kernel<'k>,
    pub td_scan: Kernel<'k>,
    /// A planned level's relax or bottom-up scan, by its plan (`td_relax`'s
    /// arguments, then `first, end, m_in, in_offsets, in_sources, frontier`).
    pub level: Kernel<'k>,
    /// `build_sv(n, offsets, max_edge_count, sv, nchunks)`: the scan's chunk starts.
    pub build_sv: Kernel<'k>,
    /// The program's name, for error messages.
    pub name: &'k str,
}

/// The names (and, on a device, the loaded functions) of the ten kernels, in
/// the order `init, td_chunks, td_select, td_relax, bottom_up, plan, plan_pass,
/// td_scan, build_sv, level`.
pub(crate) type DirectionFns<'k> = [&'k CudaFunction; 10];

impl<'k> DirectionKernels<'k> {
    /// Program `P`'s direction kernels.
    pub(crate) fn of<P: Program>(
        name: &'k str,
        names: [&'k str; 10],
        device: Option<DirectionFns<'k>>,
    ) -> DirectionKernels<'k> {
        let k = |i: usize, host| Kernel {
            name: names[i],
            device: device.map(|d| d[i]),
            host,
        };
        DirectionKernels {
            init: k(0, init_body::<P>),
            td_chunks: k(1, td_chunks_body),
            td_select: k(2, td_select_body::<P>),
            td_relax: k(3, td_relax_body::<P>),
            bottom_up: k(4, bottom_up_body::<P>),
            plan: k(5, plan_level_body),
            plan_pass: k(6, plan_pass_body),
            td_scan: k(7, td_scan_body::<P>),
            build_sv: k(8, crate::gpu::levels::build_sv_body),
            level: k(9, level_body::<P>),
            name,
        }
    }

    /// The emulator's kernels of `P` (no device functions).
    pub(crate) fn host<P: Program>(name: &'k str) -> DirectionKernels<'k> {
        let names = [
            "init",
            "td_chunks",
            "td_select",
            "td_relax",
            "bottom_up",
            "plan_level",
            "plan_pass",
            "td_scan",
            "build_sv",
            "level",
        ];
        Self::of::<P>(name, names, None)
    }
}

// Each body below reads the argument list `super::run::DirectionRun` builds for
// its kernel, which is that kernel's PTX parameter list; that is the contract
// its SAFETY comment refers to.

/// `init(n, source, state, parents)`.
unsafe fn init_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { entry::init::<P>(t, a[0].u64(), a[1].u32(), a[2].ptr(), a[3].ptr()) }
}

/// `td_chunks(n, offsets, frontier, chunk, chunks, capacity, ctl, clear)`.
unsafe fn td_chunks_body(t: ThreadCtx, a: &[Arg]) {
    let [n, offsets, frontier, chunk, chunks, capacity, ctl, clear] = words(a);
    // SAFETY: see above.
    unsafe {
        entry::td_chunks(
            t,
            n.u64(),
            offsets.ptr(),
            frontier.ptr(),
            chunk.u64(),
            chunks.ptr(),
            capacity.u64(),
            ctl.ptr(),
            clear.ptr(),
        )
    }
}

/// `td_select(n, offsets, state, pending, limit, chunk, chunks, capacity, ctl)`.
unsafe fn td_select_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    let [n, offsets, state, pending, limit, chunk, chunks, capacity, ctl] = words(a);
    // SAFETY: see above.
    unsafe {
        entry::td_select::<P>(
            t,
            n.u64(),
            offsets.ptr(),
            state.ptr(),
            pending.ptr(),
            limit.u64(),
            chunk.u64(),
            chunks.ptr(),
            capacity.u64(),
            ctl.ptr(),
        )
    }
}

/// `td_relax(n, m, offsets, targets, weights, state, parents, chunks, capacity,
/// chunk, next, ctl, iter, degree_offsets, candidate)`.
unsafe fn td_relax_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    let [n, m, offsets, targets, weights, state, parents, chunks, capacity, chunk, next, ctl, iter, degree_offsets, candidate] =
        words(a);
    // SAFETY: see above.
    unsafe {
        entry::td_relax::<P>(
            t,
            n.u64(),
            m.u64(),
            offsets.ptr(),
            targets.ptr(),
            weights.ptr(),
            state.ptr(),
            parents.ptr(),
            chunks.ptr(),
            capacity.u64(),
            chunk.u64(),
            next.ptr(),
            ctl.ptr(),
            iter.u32(),
            degree_offsets.ptr(),
            candidate.ptr(),
        )
    }
}

/// `td_scan(n, m, offsets, targets, weights, state, parents, sv, nsv, chunk,
/// frontier, next, ctl, iter, degree_offsets, candidate)`.
unsafe fn td_scan_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    let [n, m, offsets, targets, weights, state, parents, sv, nsv, chunk, frontier, next, ctl, iter, degree_offsets, candidate] =
        words(a);
    // SAFETY: see above.
    unsafe {
        entry::td_scan::<P>(
            t,
            n.u64(),
            m.u64(),
            offsets.ptr(),
            targets.ptr(),
            weights.ptr(),
            state.ptr(),
            parents.ptr(),
            sv.ptr(),
            nsv.u64(),
            chunk.u64(),
            frontier.ptr(),
            next.ptr(),
            ctl.ptr(),
            iter.u32(),
            degree_offsets.ptr(),
            candidate.ptr(),
        )
    }
}

/// `bottom_up(n, first, end, m_in, in_offsets, in_sources, out_offsets, state,
/// parents, frontier, next, candidate, ctl)`.
unsafe fn bottom_up_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    let [n, first, end, m_in, in_offsets, in_sources, out_offsets, state, parents, frontier, next, candidate, ctl] =
        words(a);
    // SAFETY: see above.
    unsafe {
        entry::bottom_up::<P>(
            t,
            n.u64(),
            first.u64(),
            end.u64(),
            m_in.u64(),
            in_offsets.ptr(),
            in_sources.ptr(),
            out_offsets.ptr(),
            state.ptr(),
            parents.ptr(),
            frontier.ptr(),
            next.ptr(),
            candidate.ptr(),
            ctl.ptr(),
        )
    }
}

/// `level(n, m, offsets, targets, weights, state, parents, chunks, capacity,
/// chunk, next, ctl, iter, degree_offsets, candidate, first, end, m_in,
/// in_offsets, in_sources, frontier)`.
unsafe fn level_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    let [n, m, offsets, targets, weights, state, parents, chunks, capacity, chunk, next, ctl, iter, degree_offsets, candidate, first, end, m_in, in_offsets, in_sources, frontier] =
        words(a);
    // SAFETY: see above.
    unsafe {
        entry::level::<P>(
            t,
            n.u64(),
            m.u64(),
            offsets.ptr(),
            targets.ptr(),
            weights.ptr(),
            state.ptr(),
            parents.ptr(),
            chunks.ptr(),
            capacity.u64(),
            chunk.u64(),
            next.ptr(),
            ctl.ptr(),
            iter.u32(),
            degree_offsets.ptr(),
            candidate.ptr(),
            first.u64(),
            end.u64(),
            m_in.u64(),
            in_offsets.ptr(),
            in_sources.ptr(),
            frontier.ptr(),
        )
    }
}

/// `plan_level(prev, cur, n, m, first_vertices, first_edges, alpha, beta, level)`.
unsafe fn plan_level_body(t: ThreadCtx, a: &[Arg]) {
    let [prev, cur, n, m, vertices, edges, alpha, beta, level] = words(a);
    // SAFETY: see above.
    unsafe {
        entry::plan_level(
            t,
            prev.ptr(),
            cur.ptr(),
            n.u64(),
            m.u64(),
            vertices.u64(),
            edges.u64(),
            alpha.u64(),
            beta.u64(),
            level.u32(),
        )
    }
}

/// `plan_pass(prev, cur, first_pending, first_limit, delta)`.
unsafe fn plan_pass_body(t: ThreadCtx, a: &[Arg]) {
    let [prev, cur, pending, limit, delta] = words(a);
    // SAFETY: see above.
    unsafe {
        entry::plan_pass(
            t,
            prev.ptr(),
            cur.ptr(),
            pending.u64(),
            limit.u64(),
            delta.u64(),
        )
    }
}

/// The first `N` words of an argument list (a shorter list is a bug in the
/// executor, caught by the emulator's tests).
fn words<const N: usize>(a: &[Arg]) -> [Arg; N] {
    std::array::from_fn(|i| a[i])
}
