//! All-pairs shortest paths as a semiring program (seed 002: Floyd–Warshall).
//!
//! A `#[vertex_program(semiring)]` has `relax: State × State → State` (⊗) and a
//! built-in `combine` (⊕); `init(s, s)` is ⊗'s identity and `init(v, s)` for
//! `v ≠ s` is "no path". That is all a dense closure needs:
//! `runtime::apsp::ProgramSemiring<Program>` turns it into the semiring blocked
//! Floyd–Warshall runs on (Venkataraman et al. 2003 on the CPU, Katz & Kider 2008
//! on the GPU). The same operators still run as single-source programs on the
//! sync engine. Four instances show the generality:
//!
//! * [`apsp`] — min-plus over i32 (negative weights allowed, no negative cycle);
//!   ∞ is `i32::MAX` and `relax` never adds to it, so nothing overflows;
//! * [`apsp_f64`] — min-plus over f64;
//! * [`closure`] — or-and: transitive closure (1 = reachable);
//! * [`bottleneck`] — max-min: all-pairs widest paths.

use vertex_dsl::prelude::*;

#[vertex_program(combine = min, semiring)]
pub mod apsp {
    /// Shortest distance; `i32::MAX` = no path.
    pub type State = i32;
    pub type Weight = i32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0
        } else {
            i32::MAX
        }
    }

    /// ⊗: extend a path by an edge; ∞ stays ∞ (a select, not an addition).
    pub fn relax(dist: State, w: Weight) -> State {
        if dist == i32::MAX || w == i32::MAX {
            i32::MAX
        } else {
            dist.wrapping_add(w)
        }
    }
}

#[vertex_program(combine = min, semiring)]
pub mod apsp_f64 {
    /// Shortest distance; infinity = no path.
    pub type State = f64;
    pub type Weight = f64;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            0.0
        } else {
            f64::INFINITY
        }
    }

    pub fn relax(dist: State, w: Weight) -> State {
        dist + w
    }
}

#[vertex_program(combine = or, semiring)]
pub mod closure {
    /// 1 if reachable.
    pub type State = u32;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            1
        } else {
            0
        }
    }

    pub fn relax(reach: State, edge: Weight) -> State {
        reach & edge
    }
}

#[vertex_program(combine = max, semiring)]
pub mod bottleneck {
    /// Widest-path capacity; 0 = no path.
    pub type State = u32;
    pub type Weight = u32;

    pub fn init(v: u32, source: u32) -> State {
        if v == source {
            u32::MAX
        } else {
            0
        }
    }

    pub fn relax(width: State, w: Weight) -> State {
        width.min(w)
    }
}

pub use apsp::Program;

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use runtime::apsp::{fw_cpu, DistMatrix, MaxMin, MinPlus, OrAnd, ProgramSemiring, Semiring};

    /// A program's closure equals the built-in semiring's on the same matrix.
    fn same<P, S>(entries: &[(usize, usize, u32)], n: usize, conv: impl Fn(u32) -> S::T)
    where
        S: Semiring,
        ProgramSemiring<P>: Semiring<T = S::T>,
    {
        let mut a = DistMatrix::filled(n, S::zero()).unwrap();
        for i in 0..n {
            a.set(i, i, S::one());
        }
        for &(i, j, w) in entries {
            a.set(i, j, S::add(a.get(i, j), conv(w)));
        }
        let mut b = a.clone();
        fw_cpu::blocked::<S>(&mut a, None, 32).unwrap();
        fw_cpu::blocked::<ProgramSemiring<P>>(&mut b, None, 32).unwrap();
        assert_eq!(a, b, "{}", <ProgramSemiring<P> as Semiring>::name());
    }

    #[test]
    fn programs_are_the_builtin_semirings() {
        ProgramSemiring::<super::apsp::Program>::check().unwrap();
        ProgramSemiring::<super::closure::Program>::check().unwrap();
        let e: Vec<(usize, usize, u32)> = (0..200u32)
            .map(|x| ((x * 7 % 45) as usize, (x * 13 % 45) as usize, x % 17 + 1))
            .collect();
        same::<super::apsp::Program, MinPlus<i32>>(&e, 45, |w| w as i32);
        same::<super::apsp_f64::Program, MinPlus<f64>>(&e, 45, |w| w as f64);
        same::<super::closure::Program, OrAnd>(&e, 45, |_| 1);
        same::<super::bottleneck::Program, MaxMin>(&e, 45, |w| w);
        assert!(<ProgramSemiring<super::apsp::Program> as Semiring>::is_min_plus());
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::MinPlusProgram;

/// Host-only (the GPU build of this file has no runtime crate).
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    /// The shipped min-plus program over each distance type: what batched
    /// all-pairs runs from every vertex on a weighted graph.
    pub trait MinPlusProgram: runtime::apsp::johnson::MinPlusElem
    where
        runtime::apsp::MinPlus<Self>: runtime::gpu::closure::GpuSemiring<T = Self>,
    {
        type P: runtime::gpu::GpuProgram
            + runtime::run::Runnable<Weight = Self>
            + runtime::program::VertexProgram<State = Self, Weight = Self>
            + runtime::program::Batchable<LaneState = Self>;
    }

    impl MinPlusProgram for i32 {
        type P = super::apsp::Program;
    }
    impl MinPlusProgram for i64 {
        type P = crate::programs::semirings::apsp_i64::Program;
    }
    impl MinPlusProgram for f32 {
        type P = crate::programs::semirings::apsp_f32::Program;
    }
    impl MinPlusProgram for f64 {
        type P = super::apsp_f64::Program;
    }
}
