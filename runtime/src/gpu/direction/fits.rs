//! What a direction-optimizing traversal needs on a device, checked before
//! anything is uploaded or allocated.

use super::run::DirectionRun;
use crate::error::Result;
use crate::gpu::cuda::DevBuf;
use crate::gpu::device::Device;
use crate::gpu::launcher::DeviceLauncher;
use crate::graph::{Graph, Weight};

/// What a direction-optimizing traversal needs on the device, checked before a
/// run allocates anything.
impl Device {
    /// Checks, before anything is uploaded or allocated, that a direction-optimizing
    /// traversal of `g` fits: the CSR (and its transpose unless symmetric), state
    /// and parents, bitmaps and the work list. The error names what was asked for
    /// and how much is free ([`crate::Error::GpuOutOfMemory`]).
    pub fn check_traversal_fits<W: Weight>(
        &self,
        g: &Graph<W>,
        state_size: usize,
        parents: bool,
        chunk: u64,
    ) -> Result<()> {
        let (n, m) = (g.num_vertices() as u64, g.num_edges());
        self.check_traversal_size_fits(n, m, g.is_symmetric(), state_size, parents, chunk, 0)
    }

    /// [`Self::check_traversal_fits`] for a graph known by its size only, e.g.
    /// an upper bound before the graph is generated, so that a run that cannot
    /// fit stops before minutes of construction; `extra` bytes are added (other
    /// buffers the caller will hold at the same time).
    #[allow(clippy::too_many_arguments)]
    pub fn check_traversal_size_fits(
        &self,
        n: u64,
        m: u64,
        symmetric: bool,
        state_size: usize,
        parents: bool,
        chunk: u64,
        extra: u64,
    ) -> Result<()> {
        let (nu, mu) = (n as usize, m as usize);
        let csr = DevBuf::<u64>::bytes_for(nu + 1) + DevBuf::<u32>::bytes_for(mu);
        let graph = if symmetric { csr } else { 2 * csr };
        let arrays = DevBuf::<u8>::bytes_for(nu.saturating_mul(state_size))
            + if parents {
                DevBuf::<u32>::bytes_for(nu)
            } else {
                0
            }
            + DirectionRun::<DeviceLauncher>::bytes(n, m, chunk.max(1), state_size);
        self.gpu.check_fits(
            &format!(
                "a traversal of {n} vertices and {m} edges (graph, state, bitmaps, work list{})",
                if extra > 0 {
                    ", validation buffers"
                } else {
                    ""
                }
            ),
            graph.saturating_add(arrays).saturating_add(extra),
        )
    }
}
