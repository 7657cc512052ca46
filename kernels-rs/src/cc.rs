//! Connected components by Afforest (Sutton, Ben-Nun and Barak, "Optimizing
//! Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS 2018),
//! as gapbs `cc` runs it, in kernels a GPU thread or a CPU worker executes alike.
//!
//! Why Afforest and not label propagation: propagation needs as many rounds as
//! the graph's diameter (a 1000×1000 grid: ~2000 rounds), while Afforest's work
//! does not depend on the diameter at all. Every vertex `v` holds a parent
//! `comp[v]` in a forest whose roots are component representatives:
//!
//! 1. [`Comp::link`] joins the trees of an edge's two ends by hooking the larger
//!    root under the smaller with one compare-exchange (lock-free; a lost race
//!    walks up and retries). Since hooks always point from a larger id to a
//!    smaller one, a root is the smallest vertex of its tree, and at the end the
//!    label of every vertex is the smallest vertex id of its component, the
//!    convention of `runtime::oracle::components` and the `cc` program.
//! 2. Link rounds over only the first `r` (2) neighbours of every vertex
//!    ([`Afforest::link_round`]), each followed by [`Comp::compress`] (pointer
//!    jumping until every vertex points at its root), already put most vertices
//!    of the giant component of a real graph into one tree.
//! 3. [`Comp::sample`] reads the labels of a fixed pseudo-random set of vertices
//!    ([`sample_vertex`]); the most frequent one, `c`, is probably the giant
//!    component. [`Afforest::link_rest`] then links the remaining edges only of
//!    vertices outside `c`: the edges inside the giant component, most of the
//!    graph, are never read. An edge between `c` and another tree is still
//!    linked from its other end, which is why directed inputs also walk the
//!    in-edges (weak components): the end outside `c` must see the edge.
//! 4. A last [`Comp::compress`] flattens every tree to depth one.
//!
//! Phases are separate launches: links never run concurrently with compress, so
//! compress may store into `comp[v]` without a CAS (only roots are hooked, and
//! compress only writes non-roots).

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::skeleton::CsrView;
use crate::thread::ThreadCtx;
use crate::word::{slice, StateWord};

/// Neighbours per vertex linked before sampling (gapbs' `neighbor_rounds`).
pub const NEIGHBOR_ROUNDS: u32 = 2;

/// Vertices sampled to guess the giant component (gapbs: 1024).
pub const NUM_SAMPLES: u32 = 1024;

/// The `i`-th sampled vertex of `n > 0` for `seed`: a splitmix64 hash, so that
/// host and device sample the same vertices without sharing a generator.
#[inline(always)]
pub fn sample_vertex(seed: u64, i: u32, n: u64) -> u32 {
    let mut z = seed.wrapping_add(
        u64::from(i)
            .wrapping_add(1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % n.max(1)) as u32
}

/// The parent array of the forest, one atomic word per vertex.
#[derive(Clone, Copy, Debug)]
pub struct Comp<'a> {
    pub comp: &'a [AtomicU32],
}

impl Comp<'_> {
    /// Puts `u` and `v` in one tree, the larger root hooked under the smaller
    /// (gapbs `Link`). Lock-free: the compare-exchange only succeeds on a root,
    /// and a failed one means another thread hooked that root meanwhile, so we
    /// climb one step and retry. Parents only ever decrease, which bounds the
    /// retries.
    #[inline(always)]
    pub fn link(&self, u: u32, v: u32) {
        let c = self.comp;
        let mut p1 = c[u as usize].load(Relaxed);
        let mut p2 = c[v as usize].load(Relaxed);
        while p1 != p2 {
            let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
            let p_high = c[high as usize].load(Relaxed);
            if p_high == low
                || (p_high == high
                    && c[high as usize]
                        .compare_exchange(high, low, Relaxed, Relaxed)
                        .is_ok())
            {
                break;
            }
            p1 = c[c[high as usize].load(Relaxed) as usize].load(Relaxed);
            p2 = c[low as usize].load(Relaxed);
        }
    }

    /// Points `v` at its root by pointer jumping (gapbs `Compress` for one vertex).
    #[inline(always)]
    pub fn compress_one(&self, v: usize) {
        let c = self.comp;
        loop {
            let p = c[v].load(Relaxed);
            let gp = c[p as usize].load(Relaxed);
            if p == gp {
                break;
            }
            c[v].store(gp, Relaxed);
        }
    }

    /// One thread of the init kernel: every vertex its own tree.
    #[inline(always)]
    pub fn init(&self, t: ThreadCtx) {
        let n = self.comp.len() as u64;
        let mut v = t.global();
        while v < n {
            self.comp[v as usize].store(v as u32, Relaxed);
            v += t.stride();
        }
    }

    /// One thread of the compress kernel (grid-stride over vertices).
    #[inline(always)]
    pub fn compress(&self, t: ThreadCtx) {
        let n = self.comp.len() as u64;
        let mut v = t.global();
        while v < n {
            self.compress_one(v as usize);
            v += t.stride();
        }
    }

    /// One thread of the sampling kernel: `samples[i]` = label of the `i`-th
    /// sampled vertex ([`sample_vertex`]). The host picks the most frequent.
    #[inline(always)]
    pub fn sample(&self, t: ThreadCtx, seed: u64, samples: &[AtomicU32]) {
        let n = self.comp.len() as u64;
        if n == 0 {
            return;
        }
        let mut i = t.global();
        while i < samples.len() as u64 {
            let v = sample_vertex(seed, i as u32, n);
            samples[i as usize].store(self.comp[v as usize].load(Relaxed), Relaxed);
            i += t.stride();
        }
    }
}

/// The graph and the forest: what the link kernels read and write.
#[derive(Clone, Copy, Debug)]
pub struct Afforest<'a> {
    /// Out-edges.
    pub out: CsrView<'a>,
    /// In-edges of a directed graph (`None` when symmetric): with them the
    /// result is the weakly connected components.
    pub incoming: Option<CsrView<'a>>,
    pub comp: Comp<'a>,
}

impl Afforest<'_> {
    /// Links `u` with its `round`-th out-neighbour, if it has one.
    #[inline(always)]
    pub fn link_round_one(&self, u: usize, round: u32) {
        let e = self.out.offsets[u] + u64::from(round);
        if e < self.out.offsets[u + 1] {
            self.comp.link(u as u32, self.out.targets[e as usize]);
        }
    }

    /// Links the remaining edges of `u` unless it is in component `skip`: its
    /// out-edges past the first `rounds`, and every in-edge of a directed graph.
    #[inline(always)]
    pub fn link_rest_one(&self, u: usize, skip: u32, rounds: u32) {
        if self.comp.comp[u].load(Relaxed) == skip {
            return;
        }
        let end = self.out.offsets[u + 1];
        let mut e = (self.out.offsets[u] + u64::from(rounds)).min(end);
        while e < end {
            self.comp.link(u as u32, self.out.targets[e as usize]);
            e += 1;
        }
        if let Some(inc) = &self.incoming {
            let end = inc.offsets[u + 1];
            let mut e = inc.offsets[u];
            while e < end {
                self.comp.link(u as u32, inc.targets[e as usize]);
                e += 1;
            }
        }
    }

    /// One thread of a neighbour link round (grid-stride over vertices).
    #[inline(always)]
    pub fn link_round(&self, t: ThreadCtx, round: u32) {
        let n = self.out.num_vertices() as u64;
        let mut u = t.global();
        while u < n {
            self.link_round_one(u as usize, round);
            u += t.stride();
        }
    }

    /// One thread of the final link phase (grid-stride over vertices). Most
    /// long rows belong to the skipped giant component, which keeps the
    /// per-vertex split from starving on hubs.
    #[inline(always)]
    pub fn link_rest(&self, t: ThreadCtx, skip: u32, rounds: u32) {
        let n = self.out.num_vertices() as u64;
        let mut u = t.global();
        while u < n {
            self.link_rest_one(u as usize, skip, rounds);
            u += t.stride();
        }
    }
}

// ---- Entry bodies over raw pointers, as the kernels are launched ----------------
//
// # Safety (all of them)
// `comp` holds `n` words; `offsets`/`targets` a valid CSR (`n + 1`, `m`); the
// in-edge pointers either null (symmetric graph) or a valid CSR (`n + 1`,
// `m_in`); `samples` `nsamples` words; all live for the call.

/// The forest over `n` vertices at `comp`.
///
/// # Safety
/// See above.
#[inline(always)]
unsafe fn comp_of<'a>(n: u64, comp: *mut u32) -> Comp<'a> {
    // SAFETY: caller's contract.
    Comp {
        comp: unsafe { u32::atomics_from_raw(comp, n as usize) },
    }
}

/// Body of `cc_init(n, comp)`.
///
/// # Safety
/// See above.
#[inline(always)]
pub unsafe fn init(t: ThreadCtx, n: u64, comp: *mut u32) {
    // SAFETY: caller's contract.
    unsafe { comp_of(n, comp) }.init(t)
}

/// Body of `cc_compress(n, comp)`.
///
/// # Safety
/// See above.
#[inline(always)]
pub unsafe fn compress(t: ThreadCtx, n: u64, comp: *mut u32) {
    // SAFETY: caller's contract.
    unsafe { comp_of(n, comp) }.compress(t)
}

/// Body of `cc_sample(n, comp, seed, samples, nsamples)`.
///
/// # Safety
/// See above.
#[inline(always)]
pub unsafe fn sample(
    t: ThreadCtx,
    n: u64,
    comp: *mut u32,
    seed: u64,
    samples: *mut u32,
    nsamples: u32,
) {
    // SAFETY: caller's contract.
    unsafe {
        let s = u32::atomics_from_raw(samples, nsamples as usize);
        comp_of(n, comp).sample(t, seed, s)
    }
}

/// The graph and forest of the link kernels.
///
/// # Safety
/// See above.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn afforest_of<'a>(
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    m_in: u64,
    in_offsets: *const u64,
    in_sources: *const u32,
    comp: *mut u32,
) -> Afforest<'a> {
    let n_ = n as usize;
    // SAFETY: caller's contract.
    unsafe {
        Afforest {
            out: CsrView {
                offsets: slice(offsets, n_ + 1),
                targets: slice(targets, m as usize),
            },
            incoming: if in_offsets.is_null() {
                None
            } else {
                Some(CsrView {
                    offsets: slice(in_offsets, n_ + 1),
                    targets: slice(in_sources, m_in as usize),
                })
            },
            comp: comp_of(n, comp),
        }
    }
}

/// Body of `cc_link_round(n, m, offsets, targets, comp, round)`.
///
/// # Safety
/// See above.
#[inline(always)]
pub unsafe fn link_round(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    comp: *mut u32,
    round: u32,
) {
    // SAFETY: caller's contract; no in-edges in the sampling rounds.
    unsafe {
        afforest_of(
            n,
            m,
            offsets,
            targets,
            0,
            core::ptr::null(),
            core::ptr::null(),
            comp,
        )
    }
    .link_round(t, round)
}

/// Body of `cc_link_rest(n, m, offsets, targets, m_in, in_offsets, in_sources,
/// comp, skip, rounds)`.
///
/// # Safety
/// See above.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn link_rest(
    t: ThreadCtx,
    n: u64,
    m: u64,
    offsets: *const u64,
    targets: *const u32,
    m_in: u64,
    in_offsets: *const u64,
    in_sources: *const u32,
    comp: *mut u32,
    skip: u32,
    rounds: u32,
) {
    // SAFETY: caller's contract.
    unsafe { afforest_of(n, m, offsets, targets, m_in, in_offsets, in_sources, comp) }
        .link_rest(t, skip, rounds)
}

/// Defines the Afforest kernels `cc_init`, `cc_link_round`, `cc_compress`,
/// `cc_sample` and `cc_link_rest` (parameters as their bodies in this module).
#[macro_export]
macro_rules! cc_kernels {
    () => {
        $crate::__kernel!(
            cc_init => $crate::cc::init;
            n: u64,
            comp: *mut u32,
        );

        $crate::__kernel!(
            cc_compress => $crate::cc::compress;
            n: u64,
            comp: *mut u32,
        );

        $crate::__kernel!(
            cc_sample => $crate::cc::sample;
            n: u64,
            comp: *mut u32,
            seed: u64,
            samples: *mut u32,
            nsamples: u32,
        );

        $crate::__kernel!(
            cc_link_round => $crate::cc::link_round;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            comp: *mut u32,
            round: u32,
        );

        $crate::__kernel!(
            cc_link_rest => $crate::cc::link_rest;
            n: u64,
            m: u64,
            offsets: *const u64,
            targets: *const u32,
            m_in: u64,
            in_offsets: *const u64,
            in_sources: *const u32,
            comp: *mut u32,
            skip: u32,
            rounds: u32,
        );
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_links(n: usize, edges: &[(u32, u32)]) -> [u32; 16] {
        let comp: [AtomicU32; 16] = core::array::from_fn(|v| AtomicU32::new(v as u32));
        let c = Comp { comp: &comp[..n] };
        for &(u, v) in edges {
            c.link(u, v);
        }
        for v in 0..n {
            c.compress_one(v);
        }
        core::array::from_fn(|v| comp[v].load(Relaxed))
    }

    /// Roots are component minima: labels are the smallest id of each component.
    #[test]
    fn link_hooks_under_the_smallest_id() {
        let l = run_links(8, &[(5, 7), (7, 3), (6, 4), (4, 6), (1, 2)]);
        assert_eq!(&l[..8], &[0, 1, 1, 3, 4, 3, 4, 3]);
    }

    #[test]
    fn samples_are_vertices() {
        for n in [1u64, 2, 7, 1000] {
            for i in 0..100 {
                assert!(u64::from(sample_vertex(42, i, n)) < n);
            }
        }
    }
}
