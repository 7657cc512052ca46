//! More dense closures, written as a user would: each is a few lines of
//! `#[vertex_program(semiring)]`, and the macro derives both the CPU closure
//! (`runtime::apsp::ProgramSemiring`) and the GPU one (blocked Floyd–Warshall
//! kernels generated from the same `relax` and `combine`).
//!
//! * [`reliable`] — max-times over f64: the most reliable path, edge weights
//!   being success probabilities in [0, 1] (the all-pairs form of
//!   [`super::reliability`]); a cycle never beats the empty path since
//!   products of probabilities only shrink;
//! * [`apsp_f32`], [`apsp_i64`] — min-plus over the other distance types;
//! * [`widest_u64`] — max-min over u64 (bottleneck capacities beyond 2³²).
//!
//! Together with [`super::apsp`] they cover every state type the closure
//! kernels take: u32, i32, u64, i64, f32 and f64.

use vertex_dsl::prelude::*;

#[vertex_program(combine = max, semiring)]
pub mod reliable {
    /// Probability that the best path works; 0 = no path.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            1.0
        } else {
            0.0
        }
    }

    /// ⊗: a path works if every edge does.
    pub fn relax(p: State, w: Weight) -> State {
        p * w
    }
}

#[vertex_program(combine = min, semiring)]
pub mod apsp_f32 {
    /// Shortest distance; infinity = no path.
    pub type State = f32;
    pub type Weight = f32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0.0
        } else {
            f32::INFINITY
        }
    }

    pub fn relax(dist: State, w: Weight) -> State {
        dist + w
    }
}

#[vertex_program(combine = min, semiring)]
pub mod apsp_i64 {
    /// Shortest distance; `i64::MAX` = no path.
    pub type State = i64;
    pub type Weight = i64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            i64::MAX
        }
    }

    /// ⊗: ∞ stays ∞ (a select, not an addition).
    pub fn relax(dist: State, w: Weight) -> State {
        if dist == i64::MAX || w == i64::MAX {
            i64::MAX
        } else {
            dist.wrapping_add(w)
        }
    }
}

#[vertex_program(combine = max, semiring)]
pub mod widest_u64 {
    /// Widest-path capacity; 0 = no path.
    pub type State = u64;
    pub type Weight = u64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            u64::MAX
        } else {
            0
        }
    }

    pub fn relax(width: State, w: Weight) -> State {
        width.min(w)
    }
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use runtime::apsp::{DistMatrix, ProgramSemiring, Semiring};
    use runtime::gpu::closure::{verify, GpuSemiring};

    /// A deterministic random matrix over `S`: 1̄ on the diagonal, about `deg`
    /// edges per row with values from `w`.
    fn matrix<S: Semiring>(
        n: usize,
        deg: u64,
        seed: u64,
        w: impl Fn(u64) -> S::T,
    ) -> DistMatrix<S::T> {
        let mut m = DistMatrix::filled(n, S::zero()).unwrap();
        let mut x = seed;
        for i in 0..n {
            m.set(i, i, S::one());
            for _ in 0..deg {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let j = (x >> 33) as usize % n;
                if j != i {
                    m.set(i, j, S::add(m.get(i, j), w(x >> 11)));
                }
            }
        }
        m
    }

    /// The program's generated closure kernels, run by the host emulator, give
    /// the CPU closure's values and next hops, and (`walks`: cancellative ⊗, see
    /// `verify::emulated_equals_cpu`) next-hop walks that reproduce each value.
    fn check<P>(walks: bool, w: impl Fn(u64) -> <ProgramSemiring<P> as Semiring>::T)
    where
        ProgramSemiring<P>: GpuSemiring,
    {
        let name = <ProgramSemiring<P> as Semiring>::name();
        for (n, deg, seed) in [(1, 1, 1), (33, 3, 2), (64, 4, 3), (150, 3, 4)] {
            let m = matrix::<ProgramSemiring<P>>(n, deg, seed, &w);
            verify::emulated_equals_cpu::<ProgramSemiring<P>>(&m, walks, &format!("{name} n {n}"))
                .unwrap();
        }
    }

    #[test]
    fn every_semiring_program_closes_on_the_emulated_gpu() {
        use super::super::apsp::{apsp, apsp_f64, bottleneck, closure};
        check::<apsp::Program>(true, |x| (x % 100) as i32 - 3);
        check::<apsp_f64::Program>(true, |x| (x % 1000) as f64 / 7.0);
        check::<closure::Program>(false, |_| 1);
        check::<bottleneck::Program>(false, |x| (x % 50) as u32 + 1);
        check::<super::reliable::Program>(true, |x| (x % 1000) as f64 / 1000.0);
        check::<super::apsp_f32::Program>(true, |x| (x % 64) as f32 * 0.5);
        check::<super::apsp_i64::Program>(true, |x| (x % (1 << 40)) as i64);
        check::<super::widest_u64::Program>(false, |x| x % (1 << 40) + 1);
    }
}
