//! Triangle counting on the GPU (`kernels_rs::tc`): [`crate::tc::orientation`]
//! picks the rows as for the CPU count, they go to the device, one resident
//! grid grid-strides over their edges, and one `u64` comes back.
//!
//! When the order by id is the one to use, the rows are the graph's own CSR,
//! uploaded as it is (or already on the device: [`Device::triangle_count_on`]):
//! the kernel skips the edges towards higher ids itself, so nothing is oriented
//! or copied on the host. Otherwise (skewed degrees) the host builds the
//! degree-ordered copy, a sort the CPU engine shares, and the device does the
//! part that is `O(Σ min(d⁺(u), d⁺(v)))`, the intersections. [`emulate`] runs
//! the kernel body on the host over a simulated grid, which is how tests
//! without a GPU check it.

use std::time::{Duration, Instant};

use cudarc::driver::CudaFunction;
use kernels_rs::{entry, ThreadCtx};

use super::device::{Device, DeviceGraph};
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};
use crate::tc::{orientation, Orientation};

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
    /// Choosing the order, and ranking and copying on the host when a copy is
    /// made.
    pub orient_time: Duration,
    /// Copying the rows to the device (host clock; zero when they were there).
    pub upload_time: Duration,
    /// The kernel alone, CUDA events, milliseconds.
    pub kernel_ms: f64,
    /// Whether the graph's own rows were read ([`Orientation::InPlace`]).
    pub in_place: bool,
}

/// Device addresses of the rows a kernel reads, and how to read them.
#[derive(Clone, Copy, Debug)]
pub(super) struct RowsArgs {
    pub n: u64,
    pub m: u64,
    pub offsets: u64,
    pub targets: u64,
    pub in_place: bool,
}

impl Device {
    /// Counts the triangles of an undirected graph on the GPU. Fails on a
    /// directed graph (as [`crate::tc::count`]) or when the rows do not fit in
    /// device memory.
    pub fn triangle_count<W: Weight>(&self, g: &Graph<W>) -> Result<GpuTcRun> {
        let t0 = Instant::now();
        let o = orientation(g)?;
        let orient_time = t0.elapsed();
        let (triangles, upload_time, kernel_ms) = self.triangle_count_rows(&o)?;
        Ok(GpuTcRun {
            triangles,
            oriented_edges: o.undirected_edges(),
            orient_time,
            upload_time,
            kernel_ms,
            in_place: o.in_place(),
        })
    }

    /// Counts the triangles of `g` already on the device as `dg` (its upload by
    /// [`Device::upload`] or [`Device::upload_traversal`]), in place, so that
    /// programs sharing the upload pay no copy. `None` when in place does not
    /// apply (degrees skewed, or rows not strictly increasing): use
    /// [`Device::triangle_count`]. Fails on a directed graph, or when `dg` is
    /// not `g`'s upload.
    pub fn triangle_count_on<W: Weight>(
        &self,
        g: &Graph<W>,
        dg: &DeviceGraph,
    ) -> Result<Option<GpuTcRun>> {
        let t0 = Instant::now();
        let o = orientation(g)?;
        let orient_time = t0.elapsed();
        if !o.in_place() {
            return Ok(None);
        }
        let rows = uploaded_rows(&o, dg)?;
        let gpu = &self.gpu;
        let kernel = gpu.function(KERNEL)?;
        let (triangles, kernel_ms) = count_on(&DeviceLauncher { gpu }, Some(&kernel), rows, BLOCK)?;
        Ok(Some(GpuTcRun {
            triangles,
            oriented_edges: o.undirected_edges(),
            orient_time,
            upload_time: Duration::ZERO,
            kernel_ms,
            in_place: true,
        }))
    }

    /// Counts the triangles on rows [`orientation`] chose: (count, upload time,
    /// kernel milliseconds).
    pub fn triangle_count_rows(&self, o: &Orientation<'_>) -> Result<(u64, Duration, f64)> {
        let gpu = &self.gpu;
        let kernel = gpu.function(KERNEL)?;
        let (n, m) = (o.num_vertices() as u64, o.num_entries());
        gpu.check_fits("triangle count (CSR rows)", 8 * (n + 1) + 4 * m + 8)?;
        upload_and_count(&DeviceLauncher { gpu }, Some(&kernel), o, BLOCK)
    }
}

/// The kernel arguments of `dg`'s rows for orientation `o` of the same graph
/// (in place); an error if `dg` holds another graph's shape.
pub(super) fn uploaded_rows(o: &Orientation<'_>, dg: &DeviceGraph) -> Result<RowsArgs> {
    let (n, m) = (o.num_vertices() as u64, o.num_entries());
    if dg.n != n || dg.m != m {
        return Err(Error::InvalidArgument(format!(
            "the uploaded graph ({} vertices, {} edges) is not the one counted ({n}, {m})",
            dg.n, dg.m
        )));
    }
    Ok(RowsArgs {
        n,
        m,
        offsets: dg.offsets.ptr,
        targets: dg.targets.ptr,
        in_place: true,
    })
}

/// `triangle_count(n, m, offsets, targets, in_place, total)` of
/// `kernels_rs::entry`.
unsafe fn count_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `count_on` builds.
    unsafe {
        entry::triangle_count(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].u64(),
            a[5].ptr(),
        )
    }
}

/// Uploads `o`'s rows and counts on any launcher: (count, upload time, kernel
/// milliseconds).
fn upload_and_count<L: Launcher>(
    l: &L,
    device: Option<&CudaFunction>,
    o: &Orientation<'_>,
    block: u32,
) -> Result<(u64, Duration, f64)> {
    let rows = o.rows();
    let t0 = Instant::now();
    let offsets = l.upload(rows.graph.offsets, "row offsets")?;
    let targets = l.upload(rows.graph.targets, "row targets")?;
    l.sync("uploading the rows")?;
    let upload_time = t0.elapsed();
    let args = RowsArgs {
        n: o.num_vertices() as u64,
        m: o.num_entries(),
        offsets: L::addr(&offsets),
        targets: L::addr(&targets),
        in_place: rows.in_place,
    };
    let (count, ms) = count_on(l, device, args, block)?;
    Ok((count, upload_time, ms))
}

/// The count kernel over rows on the launcher: (count, kernel milliseconds).
fn count_on<L: Launcher>(
    l: &L,
    device: Option<&CudaFunction>,
    rows: RowsArgs,
    block: u32,
) -> Result<(u64, f64)> {
    let total = l.zeros::<u64>(1, "triangle total")?;
    let k = Kernel {
        name: KERNEL,
        device,
        host: count_body,
    };
    let args = [
        rows.n.into(),
        rows.m.into(),
        rows.offsets.into(),
        rows.targets.into(),
        u64::from(rows.in_place).into(),
        L::addr(&total).into(),
    ];
    let start = l.mark()?;
    // SAFETY: `triangle_count(n, m, offsets, targets, in_place, total)` with
    // `rows` the addresses of live buffers of this launcher, of n + 1 and m
    // elements: an oriented CSR built by `orient` (rows sorted, ids < n), or
    // with `in_place` an undirected graph's own strictly increasing rows (what
    // `orientation` checked); `total` one word; blocks of `block` threads, a
    // multiple of 32.
    unsafe { l.launch(&k, Grid::Resident(rows.m), block, &args)? };
    let end = l.mark()?;
    let out = l.read(&total, "triangle total")?;
    Ok((out[0], l.elapsed_ms(&start, &end)?))
}

/// [`Device::triangle_count`] on the host: the rows [`orientation`] chooses,
/// then the kernel body under the emulator. Fails on a directed graph.
pub fn emulate<W: Weight>(g: &Graph<W>) -> Result<u64> {
    emulate_rows(&orientation(g)?)
}

/// The count kernel over chosen rows, under the emulator (a grid capped at 16
/// blocks of 64, so the grid-stride loop runs several rounds).
pub fn emulate_rows(o: &Orientation<'_>) -> Result<u64> {
    Ok(upload_and_count(&HostLauncher::new(16), None, o, 64)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};
    use crate::tc::tests::{arb_edges, brute_force, builds, shapes};
    use crate::tc::{orient, Orientation};

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

    #[test]
    fn emulated_kernel_in_place_agrees_with_the_copy() {
        for (name, g, in_place) in shapes() {
            let expect = crate::oracle::triangles(g.csr());
            assert_eq!(orientation(&g).unwrap().in_place(), in_place, "{name}");
            assert_eq!(emulate(&g).unwrap(), expect, "{name}");
            let copy = Orientation::Copy(orient(&g).unwrap());
            assert_eq!(emulate_rows(&copy).unwrap(), expect, "{name}");
            // The kernel in place on any sorted rows, Kronecker's included.
            let own = Orientation::InPlace {
                graph: kernels_rs::skeleton::CsrView {
                    offsets: g.csr().offsets(),
                    targets: g.csr().targets(),
                },
                self_loops: 0,
            };
            assert_eq!(emulate_rows(&own).unwrap(), expect, "{name}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn emulated_kernel_counts_what_brute_force_counts((n, edges) in arb_edges()) {
            for g in builds(n, &edges) {
                proptest::prop_assert_eq!(emulate(&g).unwrap(), brute_force(g.csr()));
            }
        }
    }
}
