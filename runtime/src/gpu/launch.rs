//! The host emulator's launcher: runs a kernel body for every thread of a
//! simulated 1-D grid, blocks in parallel on rayon, the threads of a block one
//! after another. The bodies are `kernels_rs::entry` functions called with host
//! pointers, exactly as the PTX entry points call them with device pointers, and
//! they update state with real `core::sync::atomic` atomics, so races between
//! simulated threads are real races between OS threads. This is how CI, which has
//! no GPU, tests kernel logic.
//!
//! A leaf module: every host executor (BFS, direction, programs, CC, TC, ...)
//! launches through it, and it depends on nothing else in `gpu`.
//!
//! Limits: no shared memory and no intra-block barriers (the level kernels use
//! neither); the resident kernel, which needs them, has its own launcher with
//! OS threads and real barriers ([`super::resident`]).

use kernels_rs::ThreadCtx;
use rayon::prelude::*;

/// Runs `body` once per thread of a grid of `grid` blocks of `block` threads.
pub fn launch(grid: u32, block: u32, body: impl Fn(ThreadCtx) + Sync) {
    (0..grid).into_par_iter().for_each(|b| {
        for t in 0..block {
            body(ThreadCtx {
                thread_idx: t,
                block_idx: b,
                block_dim: block,
                grid_dim: grid,
            });
        }
    });
}

/// Runs `body` on one OS thread per thread of a grid of `grid` blocks of
/// `block` threads, all at once: for the persistent kernels, whose threads wait
/// for each other (barriers, spin loops) and so cannot run one after another.
pub fn spawn_grid(grid: u32, block: u32, body: impl Fn(ThreadCtx) + Sync) {
    std::thread::scope(|scope| {
        for b in 0..grid {
            for t in 0..block {
                let body = &body;
                scope.spawn(move || {
                    body(ThreadCtx {
                        thread_idx: t,
                        block_idx: b,
                        block_dim: block,
                        grid_dim: grid,
                    })
                });
            }
        }
    });
}

/// Grid size the emulator uses for `work` items: like the GPU's, but capped, so
/// that the grid-stride loops of the kernels are exercised too.
pub fn emulated_grid(work: u64, block: u32, max_blocks: u32) -> u32 {
    (work.div_ceil(block as u64).max(1)).min(max_blocks as u64) as u32
}

/// A raw pointer that may cross rayon threads. The kernels' contract (disjoint
/// or atomic access) is what makes sharing it sound.
#[derive(Clone, Copy)]
pub(crate) struct SharedPtr<T>(pub(crate) *mut T);
// SAFETY: kernel bodies only access the pointee through atomics or disjoint writes.
unsafe impl<T> Send for SharedPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SharedPtr<T> {}
impl<T> SharedPtr<T> {
    /// The pointer (a method, so closures capture the whole `Sync` wrapper).
    pub(crate) fn get(self) -> *mut T {
        self.0
    }
}
