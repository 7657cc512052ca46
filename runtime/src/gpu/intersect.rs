//! Intersection programs on the GPU: the macro's `vx_<name>_intersect` kernel
//! ([`kernels_rs::intersect`]) over the oriented graph.
//!
//! As for the library count ([`super::tc`]), the host orients the graph
//! ([`crate::tc::orient`], the same arrays the CPU engine reads), uploads the
//! oriented CSR, the rank → id renaming when there is one, and the result slots
//! (one, or one per vertex) filled with the program's identity; one resident grid
//! grid-strides over the oriented edges; the slots come back, and per-vertex
//! programs finish on the host ([`crate::tc::program::finish`]: renaming and
//! `apply`, `O(n)`). [`emulate`] runs the kernel body on the host, which is how
//! tests without a GPU check a program's GPU path.

use std::time::{Duration, Instant};

use kernels_rs::intersect::{intersect_body, IntersectProgram, Per};
use kernels_rs::ThreadCtx;

use super::cuda::cuda_err;
use super::device::Device;
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};
use crate::tc::program::{finish, IntersectRun};
use crate::tc::{orient, Oriented};

/// Threads per block of intersection kernels.
pub const BLOCK: u32 = 256;

/// The PTX name of program `name`'s kernel.
pub fn kernel_name(name: &str) -> String {
    format!("vx_{name}_intersect")
}

/// A GPU run: the results as on the CPU, and the device's share of the time.
#[derive(Clone)]
pub struct GpuIntersectRun<P: IntersectProgram> {
    /// `count_time` is the kernel alone (CUDA events); `threads` is 0.
    pub run: IntersectRun<P>,
    /// Copying the oriented graph to the device (host clock).
    pub upload_time: Duration,
}

/// Result slots of `P` for `n` vertices, each the identity.
fn slots<P: IntersectProgram>(n: usize) -> Vec<P::Acc> {
    let len = match P::PER {
        Per::Graph => 1,
        Per::Vertex => n,
    };
    vec![P::identity(); len]
}

/// The bytes of result slots, for the copies to and from the device.
fn slot_bytes<P: IntersectProgram>(s: &mut [P::Acc]) -> &mut [u8] {
    // SAFETY: `Acc` is one of the plain number types the macro allows (every bit
    // pattern valid, no padding), so its storage may be viewed and written as
    // bytes; the length is the slice's size in bytes and the borrow is exclusive.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), std::mem::size_of_val(s)) }
}

/// The run's result from the kernel's slots.
fn result<P: IntersectProgram>(o: &Oriented, s: &[P::Acc]) -> (P::Acc, Vec<P::State>) {
    match P::PER {
        Per::Graph => (s[0], Vec::new()),
        Per::Vertex => (P::identity(), finish::<P>(o, s)),
    }
}

impl Device {
    /// Runs intersection program `P` on an undirected graph with its generated
    /// kernel. Fails on a directed graph, when the program's crate has no PTX, or
    /// when the oriented graph does not fit in device memory.
    pub fn run_intersect<P: IntersectProgram, W: Weight>(
        &self,
        g: &Graph<W>,
    ) -> Result<GpuIntersectRun<P>> {
        let ptx = P::gpu_ptx().ok_or_else(|| {
            Error::GpuUnavailable(format!(
                "program `{}` has no GPU kernels: {}",
                P::NAME,
                P::gpu_ptx_status()
            ))
        })?;
        let gpu = &self.gpu;
        let module = gpu.load_module(ptx, P::NAME)?;
        let name = kernel_name(P::NAME);
        let kernel = module
            .load_function(&name)
            .map_err(cuda_err(&format!("cuModuleGetFunction({name})")))?;
        let t0 = Instant::now();
        let o = orient(g)?;
        let orient_time = t0.elapsed();
        let (n, m) = (o.num_vertices() as u64, o.num_edges());
        let mut acc = slots::<P>(o.num_vertices());
        gpu.check_fits(
            &format!("`{}` (oriented CSR, renaming, results)", P::NAME),
            8 * (n + 1) + 4 * m + 4 * o.ids.len() as u64 + slot_bytes::<P>(&mut acc).len() as u64,
        )?;
        let k = Kernel {
            name: &name,
            device: Some(&kernel),
            host: body::<P>,
        };
        let l = DeviceLauncher { gpu };
        let (upload_time, kernel_ms) = intersect_on::<_, P>(&l, &k, &o, &mut acc, BLOCK)?;
        let (total, states) = result::<P>(&o, &acc);
        Ok(GpuIntersectRun {
            run: IntersectRun {
                total,
                states,
                oriented_edges: m,
                orient_time,
                count_time: Duration::from_secs_f64(kernel_ms / 1e3),
                threads: 0,
            },
            upload_time,
        })
    }
}

/// The `intersect_kernel!` entry of `P`: `(n, m, offsets, targets, ids,
/// ids_len, out, acc_len)`.
unsafe fn body<P: IntersectProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `intersect_on` builds.
    unsafe {
        intersect_body::<P>(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].ptr(),
            a[5].u64(),
            a[6].ptr(),
            a[7].u64(),
        )
    }
}

/// `k` over the oriented graph on any launcher, `acc` the result slots in and
/// out: (upload time, kernel milliseconds).
fn intersect_on<L: Launcher, P: IntersectProgram>(
    l: &L,
    k: &Kernel<'_>,
    o: &Oriented,
    acc: &mut [P::Acc],
    block: u32,
) -> Result<(Duration, f64)> {
    let (n, m) = (o.num_vertices() as u64, o.num_edges());
    let t1 = Instant::now();
    let offsets = l.upload(&o.offsets, "oriented offsets")?;
    let targets = l.upload(&o.targets, "oriented targets")?;
    // Without a renaming this is a one-word buffer the kernel never reads.
    let ids = l.upload(&o.ids, "rank to vertex ids")?;
    // The slots as whole words, so that any `Acc` is aligned on both sides.
    let bytes = slot_bytes::<P>(acc);
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    let out = l.upload(&words, "intersection results")?;
    l.sync("uploading the oriented graph")?;
    let upload_time = t1.elapsed();
    let args = [
        n.into(),
        m.into(),
        L::addr(&offsets).into(),
        L::addr(&targets).into(),
        L::addr(&ids).into(),
        (o.ids.len() as u64).into(),
        L::addr(&out).into(),
        (acc.len() as u64).into(),
    ];
    let start = l.mark()?;
    // SAFETY: the `intersect_kernel!` entry of `P`, with live buffers of n + 1
    // and m elements holding an oriented CSR built by `orient` (rows sorted,
    // ids < n), `ids_len` renaming entries (0 or n), and `acc_len` result slots
    // (1 or n, as `P::PER`) of `P::Acc`, updated only atomically.
    unsafe { l.launch(k, Grid::Resident(m), block, &args)? };
    let end = l.mark()?;
    let words = l.read(&out, "intersection results")?;
    let bytes = slot_bytes::<P>(acc);
    let len = bytes.len();
    bytes.copy_from_slice(&bytemuck::cast_slice::<u64, u8>(&words)[..len]);
    Ok((upload_time, l.elapsed_ms(&start, &end)?))
}

/// [`Device::run_intersect`] on the host: orientation, then the kernel body under
/// the emulator (a grid capped at 16 blocks of 64, so the grid-stride loop runs
/// several rounds). Fails on a directed graph.
pub fn emulate<P: IntersectProgram, W: Weight>(g: &Graph<W>) -> Result<IntersectRun<P>> {
    let t0 = Instant::now();
    let o = orient(g)?;
    let orient_time = t0.elapsed();
    let t1 = Instant::now();
    let mut acc = slots::<P>(o.num_vertices());
    let name = kernel_name(P::NAME);
    let k = Kernel {
        name: &name,
        device: None,
        host: body::<P>,
    };
    intersect_on::<_, P>(&HostLauncher::new(16), &k, &o, &mut acc, 64)?;
    let (total, states) = result::<P>(&o, &acc);
    Ok(IntersectRun {
        total,
        states,
        oriented_edges: o.num_edges(),
        orient_time,
        count_time: t1.elapsed(),
        threads: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};
    use crate::tc::program::test_programs::{Count, PerVertex};

    #[test]
    fn emulated_kernel_agrees_with_the_cpu_engine() {
        let el = crate::generate::GenSpec::Kron {
            scale: 9,
            edgefactor: 8,
            seed: 3,
        }
        .generate()
        .unwrap();
        let g = build(&el, BuildOptions::undirected()).unwrap();
        let count = emulate::<Count, _>(&g).unwrap().total;
        assert_eq!(count, crate::oracle::triangles(g.csr()));
        let cpu = crate::tc::program::run::<PerVertex, _>(&g, Some(2)).unwrap();
        assert_eq!(emulate::<PerVertex, _>(&g).unwrap().states, cpu.states);
    }
}
