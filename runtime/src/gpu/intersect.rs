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

use cudarc::driver::PushKernelArg;
use kernels_rs::intersect::{intersect_body, IntersectProgram, Per};

use super::cuda::{cuda_err, Gpu};
use super::device::Device;
use super::launch::{emulated_grid, launch, SharedPtr};
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
        let t1 = Instant::now();
        let offsets = gpu.upload(&o.offsets, "oriented offsets")?;
        let targets = gpu.upload(&o.targets, "oriented targets")?;
        // Without a renaming this is a one-word buffer the kernel never reads.
        let ids = gpu.upload(&o.ids, "rank to vertex ids")?;
        let out = gpu.upload::<u8>(slot_bytes::<P>(&mut acc), "intersection results")?;
        gpu.sync("uploading the oriented graph")?;
        let upload_time = t1.elapsed();
        let (ids_len, acc_len) = (o.ids.len() as u64, acc.len() as u64);
        let start = gpu.record()?;
        let mut b = gpu.stream.launch_builder(&kernel);
        b.arg(&n)
            .arg(&m)
            .arg(&offsets.ptr)
            .arg(&targets.ptr)
            .arg(&ids.ptr)
            .arg(&ids_len)
            .arg(&out.ptr)
            .arg(&acc_len);
        // SAFETY: the `intersect_kernel!` entry of `P`, with live buffers of n + 1
        // and m elements holding an oriented CSR built by `orient` (rows sorted,
        // ids < n), `ids_len` renaming entries (0 or n), and `acc_len` result slots
        // (1 or n, as `P::PER`) of `P::Acc`.
        unsafe { b.launch(gpu.resident_grid(m, BLOCK)) }
            .map_err(cuda_err(&format!("cuLaunchKernel({name})")))?;
        let end = gpu.record()?;
        gpu.download(&out, slot_bytes::<P>(&mut acc), "intersection results")?;
        let kernel_ms = Gpu::elapsed_ms(&start, &end)?;
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

/// [`Device::run_intersect`] on the host: orientation, then the kernel body under
/// the emulator (a grid capped at 16 blocks of 64, so the grid-stride loop runs
/// several rounds). Fails on a directed graph.
pub fn emulate<P: IntersectProgram, W: Weight>(g: &Graph<W>) -> Result<IntersectRun<P>> {
    let t0 = Instant::now();
    let o = orient(g)?;
    let orient_time = t0.elapsed();
    let t1 = Instant::now();
    let (n, m) = (o.num_vertices() as u64, o.num_edges());
    let mut acc = slots::<P>(o.num_vertices());
    let (ids_len, acc_len) = (o.ids.len() as u64, acc.len() as u64);
    let (offsets, targets, ids, out) = (
        SharedPtr(o.offsets.as_ptr() as *mut u64),
        SharedPtr(o.targets.as_ptr() as *mut u32),
        SharedPtr(o.ids.as_ptr() as *mut u32),
        SharedPtr(acc.as_mut_ptr()),
    );
    launch(emulated_grid(m, 64, 16), 64, |t| {
        // SAFETY: host arrays of n + 1, m and ids_len elements forming an oriented
        // CSR and its renaming (built by `orient`), read only; `acc_len` slots of
        // `P::Acc`, updated only atomically while the grid runs.
        unsafe {
            intersect_body::<P>(
                t,
                n,
                m,
                offsets.get(),
                targets.get(),
                ids.get(),
                ids_len,
                out.get(),
                acc_len,
            )
        }
    });
    let (total, states) = result::<P>(&o, &acc);
    Ok(IntersectRun {
        total,
        states,
        oriented_edges: m,
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
