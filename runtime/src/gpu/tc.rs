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

use cudarc::driver::CudaFunction;
use kernels_rs::{entry, ThreadCtx};

use super::device::Device;
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
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
        count_on(&DeviceLauncher { gpu }, Some(&kernel), o, BLOCK)
    }
}

/// `triangle_count(n, m, offsets, targets, total)` of `kernels_rs::entry`.
unsafe fn count_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `count_on` builds.
    unsafe {
        entry::triangle_count(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].ptr(),
        )
    }
}

/// The count on any launcher: (count, upload time, kernel milliseconds).
fn count_on<L: Launcher>(
    l: &L,
    device: Option<&CudaFunction>,
    o: &Oriented,
    block: u32,
) -> Result<(u64, Duration, f64)> {
    let (n, m) = (o.num_vertices() as u64, o.num_edges());
    let t0 = Instant::now();
    let offsets = l.upload(&o.offsets, "oriented offsets")?;
    let targets = l.upload(&o.targets, "oriented targets")?;
    let total = l.zeros::<u64>(1, "triangle total")?;
    l.sync("uploading the oriented graph")?;
    let upload_time = t0.elapsed();
    let k = Kernel {
        name: KERNEL,
        device,
        host: count_body,
    };
    let args = [
        n.into(),
        m.into(),
        L::addr(&offsets).into(),
        L::addr(&targets).into(),
        L::addr(&total).into(),
    ];
    let start = l.mark()?;
    // SAFETY: `triangle_count(n, m, offsets, targets, total)` with live
    // buffers of n + 1, m and 1 elements holding an oriented CSR built by
    // `orient` (rows sorted, ids < n); blocks of `block` threads, a multiple of
    // 32.
    unsafe { l.launch(&k, Grid::Resident(m), block, &args)? };
    let end = l.mark()?;
    let out = l.read(&total, "triangle total")?;
    Ok((out[0], upload_time, l.elapsed_ms(&start, &end)?))
}

/// [`Device::triangle_count`] on the host: orientation, then the kernel body
/// under the emulator. Fails on a directed graph.
pub fn emulate<W: Weight>(g: &Graph<W>) -> Result<u64> {
    emulate_oriented(&orient(g)?)
}

/// The count kernel over an oriented graph, under the emulator (a grid capped
/// at 16 blocks of 64, so the grid-stride loop runs several rounds).
pub fn emulate_oriented(o: &Oriented) -> Result<u64> {
    Ok(count_on(&HostLauncher::new(16), None, o, 64)?.0)
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
