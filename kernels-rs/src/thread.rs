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
