//! Triangle counting on the GPU (`kernels_rs::tc`): the host orients the graph
//! ([`crate::tc::orient`], the same degree order as the CPU count), uploads the
//! oriented CSR, launches one resident grid that grid-strides over the oriented
//! edges, and reads back one `u64`.
//!
//! Why the orientation stays on the host: it is a sort by degree and a filter of
//! every row, done once, and the CPU engine needs the identical arrays; the
//! device does the part that is `O(Σ min(d⁺(u), d⁺(v)))`, the intersections.
//! [`emulate`] runs the kernel body on the host over a simulated grid, which is
//! how tests without a GPU check it.

use std::time::{Duration, Instant};

use cudarc::driver::PushKernelArg;
use kernels_rs::entry;

use super::cuda::{cuda_err, Gpu};
use super::device::Device;
use super::launch::{emulated_grid, launch, SharedPtr};
use crate::error::Result;
use crate::graph::{Graph, Weight};
use crate::tc::{orient, Oriented};

/// Threads per block of the count kernel (a multiple of 32: warp sums).
pub const BLOCK: u32 = 256;

/// The PTX name of the count kernel.
pub const KERNEL: &str = "vertex_tc_count";

/// A GPU count and where its time went.
#[derive(Clone, Debug)]
pub struct GpuTcRun {
    /// Number of triangles.
    pub triangles: u64,
    /// Undirected edges after orientation.
    pub oriented_edges: u64,
    /// Ranking and renaming on the host.
    pub orient_time: Duration,
    /// Copying the oriented CSR to the device (host clock).
    pub upload_time: Duration,
    /// The kernel alone, CUDA events, milliseconds.
    pub kernel_ms: f64,
}

impl Device {
    /// Counts the triangles of an undirected graph on the GPU. Fails on a
    /// directed graph (as [`crate::tc::count`]) or when the oriented graph does
    /// not fit in device memory.
    pub fn triangle_count<W: Weight>(&self, g: &Graph<W>) -> Result<GpuTcRun> {
        let t0 = Instant::now();
        let o = orient(g)?;
        let orient_time = t0.elapsed();
        let (triangles, upload_time, kernel_ms) = self.triangle_count_oriented(&o)?;
        Ok(GpuTcRun {
            triangles,
            oriented_edges: o.num_edges(),
            orient_time,
            upload_time,
            kernel_ms,
        })
    }

    /// Counts the triangles of an already oriented graph: (count, upload time,
    /// kernel milliseconds).
    pub fn triangle_count_oriented(&self, o: &Oriented) -> Result<(u64, Duration, f64)> {
        let gpu = &self.gpu;
        let kernel = gpu.function(KERNEL)?;
        let (n, m) = (o.num_vertices() as u64, o.num_edges());
        gpu.check_fits("triangle count (oriented CSR)", 8 * (n + 1) + 4 * m + 8)?;
        let t0 = Instant::now();
        let offsets = gpu.upload(&o.offsets, "oriented offsets")?;
        let targets = gpu.upload(&o.targets, "oriented targets")?;
        let total = gpu.alloc::<u64>(1, "triangle total")?;
        gpu.sync("uploading the oriented graph")?;
        let upload_time = t0.elapsed();
        let start = gpu.record()?;
        let mut b = gpu.stream.launch_builder(&kernel);
        b.arg(&n)
            .arg(&m)
            .arg(&offsets.ptr)
            .arg(&targets.ptr)
            .arg(&total.ptr);
        // SAFETY: `triangle_count(n, m, offsets, targets, total)` of
        // kernels_rs::entry, with live buffers of n + 1, m and 1 elements holding
        // an oriented CSR built by `orient` (rows sorted, ids < n); blocks of
        // BLOCK threads, a multiple of 32.
        unsafe { b.launch(gpu.resident_grid(m, BLOCK)) }
            .map_err(cuda_err("cuLaunchKernel(vertex_tc_count)"))?;
        let end = gpu.record()?;
        let mut out = [0u64];
        gpu.download(&total, &mut out, "triangle total")?;
        Ok((out[0], upload_time, Gpu::elapsed_ms(&start, &end)?))
    }
}

/// [`Device::triangle_count`] on the host: orientation, then the kernel body
/// under the emulator. Fails on a directed graph.
pub fn emulate<W: Weight>(g: &Graph<W>) -> Result<u64> {
    Ok(emulate_oriented(&orient(g)?))
}

/// The count kernel over an oriented graph, under the emulator (a grid capped
/// at 16 blocks of 64, so the grid-stride loop runs several rounds).
pub fn emulate_oriented(o: &Oriented) -> u64 {
    let (n, m) = (o.num_vertices() as u64, o.num_edges());
    let total = std::sync::atomic::AtomicU64::new(0);
    let (offsets, targets) = (
        SharedPtr(o.offsets.as_ptr() as *mut u64),
        SharedPtr(o.targets.as_ptr() as *mut u32),
    );
    let out = SharedPtr(total.as_ptr());
    launch(emulated_grid(m, 64, 16), 64, |t| {
        // SAFETY: host arrays of n + 1 and m elements forming an oriented CSR
        // (built by `orient`), read only; the total is updated atomically.
        unsafe { entry::triangle_count(t, n, m, offsets.get(), targets.get(), out.get()) }
    });
    total.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};

    #[test]
    fn emulated_kernel_agrees_with_the_oracle_on_kronecker() {
        let el = crate::generate::GenSpec::Kron {
            scale: 9,
            edgefactor: 8,
            seed: 3,
        }
        .generate()
        .unwrap();
        let g = build(&el, BuildOptions::undirected()).unwrap();
        assert_eq!(emulate(&g).unwrap(), crate::oracle::triangles(g.csr()));
    }
}
