//! Which thread am I: the only thing a kernel body asks of the hardware.
//!
//! Kernel bodies take a [`ThreadCtx`] instead of reading special registers, so the
//! host emulation launcher can hand them a simulated one.

/// Position of one thread in a 1-D grid of 1-D blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadCtx {
    /// `threadIdx.x`
    pub thread_idx: u32,
    /// `blockIdx.x`
    pub block_idx: u32,
    /// `blockDim.x`
    pub block_dim: u32,
    /// `gridDim.x`
    pub grid_dim: u32,
}

impl ThreadCtx {
    /// Global thread index, the start of a grid-stride loop.
    #[inline(always)]
    pub fn global(&self) -> u64 {
        self.block_idx as u64 * self.block_dim as u64 + self.thread_idx as u64
    }

    /// Total threads in the grid, the step of a grid-stride loop.
    #[inline(always)]
    pub fn stride(&self) -> u64 {
        self.grid_dim as u64 * self.block_dim as u64
    }

    /// Splits the grid into `parts` sub-grids of whole blocks and calls
    /// `f(part, ctx)` for each part this thread serves, `ctx` its place in that
    /// part's sub-grid: one launch then runs `parts` independent jobs (the
    /// batches of a group) side by side, each thread working on one of them,
    /// not looping over all. With fewer blocks than parts, block `b` serves
    /// parts `b`, `b + blocks`, … alone.
    #[inline(always)]
    pub fn each_part(&self, parts: u32, mut f: impl FnMut(usize, ThreadCtx)) {
        if parts == 0 {
            return;
        }
        if self.grid_dim >= parts {
            let per = self.grid_dim / parts;
            let (part, block) = (self.block_idx % parts, self.block_idx / parts);
            if block < per {
                let sub = ThreadCtx {
                    block_idx: block,
                    grid_dim: per,
                    ..*self
                };
                f(part as usize, sub);
            }
        } else {
            let mut part = self.block_idx;
            while part < parts {
                let sub = ThreadCtx {
                    block_idx: 0,
                    grid_dim: 1,
                    ..*self
                };
                f(part as usize, sub);
                part += self.grid_dim;
            }
        }
    }

    /// The calling GPU thread's position (PTX special registers).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn current() -> Self {
        use core::arch::nvptx::*;
        // SAFETY: reading the special registers %tid.x, %ctaid.x, %ntid.x, %nctaid.x
        // has no preconditions inside a kernel.
        unsafe {
            ThreadCtx {
                thread_idx: _thread_idx_x() as u32,
                block_idx: _block_idx_x() as u32,
                block_dim: _block_dim_x() as u32,
                grid_dim: _grid_dim_x() as u32,
            }
        }
    }
}

#[cfg(test)]
mod part_tests {
    extern crate std;
    use super::ThreadCtx;
    use std::vec;
    use std::vec::Vec;

    /// Every part gets a whole sub-grid: each of its threads once, with a
    /// consistent stride, whether the grid has more blocks than parts or fewer.
    #[test]
    fn each_part_covers_every_part_once() {
        for (grid, parts) in [(12, 3), (13, 3), (2, 5), (1, 4), (8, 8)] {
            let block = 4;
            let mut seen: Vec<Vec<(u64, u64)>> = vec![Vec::new(); parts];
            for b in 0..grid {
                for th in 0..block {
                    let t = ThreadCtx {
                        thread_idx: th,
                        block_idx: b,
                        block_dim: block,
                        grid_dim: grid,
                    };
                    t.each_part(parts as u32, |p, sub| {
                        seen[p].push((sub.global(), sub.stride()))
                    });
                }
            }
            for (p, s) in seen.iter_mut().enumerate() {
                s.sort();
                let stride = s[0].1;
                let want: Vec<(u64, u64)> = (0..stride).map(|g| (g, stride)).collect();
                // With fewer blocks than parts, a part may be served more than
                // once only if it is the same sub-grid again: never here.
                assert_eq!(*s, want, "grid {grid}, parts {parts}, part {p}");
            }
        }
    }
}
