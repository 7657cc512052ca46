//! Intersection programs on the GPU: the macro's `vx_<name>_intersect` kernel
//! ([`kernels_rs::intersect`]) over the rows [`crate::tc::orientation`] picks.
//!
//! As for the library count ([`super::tc`]): when the order by id is the one to
//! use, the kernel reads the graph's own CSR, uploaded as it is or already on
//! the device (the one run call passes the upload its traversal programs share,
//! [`Device::run_intersect_rows`]), and nothing is oriented on the host;
//! otherwise the host builds the degree-ordered copy (the arrays the CPU engine
//! reads) and uploads it with its rank → id renaming. The result slots (one, or
//! one per vertex) start as the program's identity; one resident grid
//! grid-strides over the rows' edges; the slots come back, and per-vertex
//! programs finish on the host ([`crate::tc::program::finish`]: renaming and
//! `apply`, `O(n)`). [`emulate`] runs the kernel body on the host, which is how
//! tests without a GPU check a program's GPU path.

use std::time::{Duration, Instant};

use kernels_rs::intersect::{intersect_body, IntersectProgram, Per};
use kernels_rs::ThreadCtx;

use super::cuda::cuda_err;
use super::device::{Device, DeviceGraph};
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
use super::tc::{uploaded_rows, RowsArgs};
use crate::error::Result;
use crate::graph::{Graph, Weight};
use crate::tc::program::{finish, IntersectRun};
use crate::tc::{orientation, Orientation};

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
    /// Copying the rows to the device (host clock; zero when they were there).
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
fn result<P: IntersectProgram>(o: &Orientation<'_>, s: &[P::Acc]) -> (P::Acc, Vec<P::State>) {
    match P::PER {
        Per::Graph => (s[0], Vec::new()),
        Per::Vertex => (P::identity(), finish::<P>(o, s)),
    }
}

impl Device {
    /// Runs intersection program `P` on an undirected graph with its generated
    /// kernel. Fails on a directed graph, when the program's crate has no PTX, or
    /// when the rows do not fit in device memory.
    pub fn run_intersect<P: IntersectProgram, W: Weight>(
        &self,
        g: &Graph<W>,
    ) -> Result<GpuIntersectRun<P>> {
        let t0 = Instant::now();
        let o = orientation(g)?;
        let orient_time = t0.elapsed();
        let mut r = self.run_intersect_rows::<P>(&o, None)?;
        r.run.orient_time = orient_time;
        Ok(r)
    }

    /// Runs `P` on rows [`orientation`] chose (its `orient_time` is left zero for
    /// the caller to fill). With `uploaded`, the graph already on the device
    /// ([`Device::upload`] or [`Device::upload_traversal`] of the same graph), an
    /// in-place run reads it there and uploads nothing; a copy is uploaded.
    pub fn run_intersect_rows<P: IntersectProgram>(
        &self,
        o: &Orientation<'_>,
        uploaded: Option<&DeviceGraph>,
    ) -> Result<GpuIntersectRun<P>> {
        let ptx = crate::gpu::ptx::program_source(P::NAME, P::gpu_ptx(), P::gpu_ptx_status())?;
        let gpu = &self.gpu;
        let module = gpu.load_module(&ptx, P::NAME)?;
        let name = kernel_name(P::NAME);
        let kernel = module
            .load_function(&name)
            .map_err(cuda_err(&format!("cuModuleGetFunction({name})")))?;
        let (n, m) = (o.num_vertices() as u64, o.num_entries());
        let mut acc = slots::<P>(o.num_vertices());
        let resident = match uploaded {
            Some(dg) if o.in_place() => Some(uploaded_rows(o, dg)?),
            _ => None,
        };
        let rows_bytes = if resident.is_some() {
            0
        } else {
            8 * (n + 1) + 4 * m + 4 * o.ids().len() as u64
        };
        gpu.check_fits(
            &format!("`{}` (CSR rows, renaming, results)", P::NAME),
            rows_bytes + slot_bytes::<P>(&mut acc).len() as u64,
        )?;
        let k = Kernel {
            name: &name,
            device: Some(&kernel),
            host: body::<P>,
        };
        let l = DeviceLauncher { gpu };
        let (upload_time, kernel_ms) = match resident {
            Some(rows) => (
                Duration::ZERO,
                intersect_on::<_, P>(&l, &k, rows, &[], &mut acc, BLOCK)?,
            ),
            None => upload_and_intersect::<_, P>(&l, &k, o, &mut acc, BLOCK)?,
        };
        let (total, states) = result::<P>(o, &acc);
        Ok(GpuIntersectRun {
            run: IntersectRun {
                total,
                states,
                oriented_edges: o.undirected_edges(),
                orient_time: Duration::ZERO,
                count_time: Duration::from_secs_f64(kernel_ms / 1e3),
                in_place: o.in_place(),
                threads: 0,
            },
            upload_time,
        })
    }
}

/// The `intersect_kernel!` entry of `P`: `(n, m, offsets, targets, in_place,
/// ids, ids_len, out, acc_len)`.
unsafe fn body<P: IntersectProgram>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `intersect_on` builds.
    unsafe {
        intersect_body::<P>(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].u64(),
            a[5].ptr(),
            a[6].u64(),
            a[7].ptr(),
            a[8].u64(),
        )
    }
}

/// Uploads `o`'s rows and runs `k` over them on any launcher, `acc` the result
/// slots in and out: (upload time, kernel milliseconds).
fn upload_and_intersect<L: Launcher, P: IntersectProgram>(
    l: &L,
    k: &Kernel<'_>,
    o: &Orientation<'_>,
    acc: &mut [P::Acc],
    block: u32,
) -> Result<(Duration, f64)> {
    let rows = o.rows();
    let t1 = Instant::now();
    let offsets = l.upload(rows.graph.offsets, "row offsets")?;
    let targets = l.upload(rows.graph.targets, "row targets")?;
    l.sync("uploading the rows")?;
    let upload_time = t1.elapsed();
    let args = RowsArgs {
        n: o.num_vertices() as u64,
        m: o.num_entries(),
        offsets: L::addr(&offsets),
        targets: L::addr(&targets),
        in_place: rows.in_place,
    };
    let ms = intersect_on::<_, P>(l, k, args, o.ids(), acc, block)?;
    Ok((upload_time, ms))
}

/// `k` over `rows` on any launcher, with the rank → id renaming `ids` (empty:
/// ranks are ids) and `acc` the result slots in and out: kernel milliseconds.
fn intersect_on<L: Launcher, P: IntersectProgram>(
    l: &L,
    k: &Kernel<'_>,
    rows: RowsArgs,
    ids: &[u32],
    acc: &mut [P::Acc],
    block: u32,
) -> Result<f64> {
    // Without a renaming this is a one-word buffer the kernel never reads.
    let id_buf = l.upload(ids, "rank to vertex ids")?;
    // The slots as whole words, so that any `Acc` is aligned on both sides.
    let bytes = slot_bytes::<P>(acc);
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    let out = l.upload(&words, "intersection results")?;
    let args = [
        rows.n.into(),
        rows.m.into(),
        rows.offsets.into(),
        rows.targets.into(),
        u64::from(rows.in_place).into(),
        L::addr(&id_buf).into(),
        (ids.len() as u64).into(),
        L::addr(&out).into(),
        (acc.len() as u64).into(),
    ];
    let start = l.mark()?;
    // SAFETY: the `intersect_kernel!` entry of `P`, with `rows` the addresses of
    // live buffers of this launcher, of n + 1 and m elements: an oriented CSR
    // built by `orient` (rows sorted, ids < n), or with `in_place` an undirected
    // graph's own strictly increasing rows (what `orientation` checked);
    // `ids_len` renaming entries (0 or n); `acc_len` result slots (1 or n, as
    // `P::PER`) of `P::Acc`, updated only atomically.
    unsafe { l.launch(k, Grid::Resident(rows.m), block, &args)? };
    let end = l.mark()?;
    let words = l.read(&out, "intersection results")?;
    let bytes = slot_bytes::<P>(acc);
    let len = bytes.len();
    bytes.copy_from_slice(&bytemuck::cast_slice::<u64, u8>(&words)[..len]);
    l.elapsed_ms(&start, &end)
}

/// [`Device::run_intersect`] on the host: the rows [`orientation`] chooses, then
/// the kernel body under the emulator (a grid capped at 16 blocks of 64, so the
/// grid-stride loop runs several rounds). Fails on a directed graph.
pub fn emulate<P: IntersectProgram, W: Weight>(g: &Graph<W>) -> Result<IntersectRun<P>> {
    let t0 = Instant::now();
    let o = orientation(g)?;
    let orient_time = t0.elapsed();
    emulate_rows::<P>(&o, orient_time)
}

/// The kernel of `P` under the emulator over chosen rows (`orient_time` is
/// what choosing them took, reported as is).
pub fn emulate_rows<P: IntersectProgram>(
    o: &Orientation<'_>,
    orient_time: Duration,
) -> Result<IntersectRun<P>> {
    let t1 = Instant::now();
    let mut acc = slots::<P>(o.num_vertices());
    let name = kernel_name(P::NAME);
    let k = Kernel {
        name: &name,
        device: None,
        host: body::<P>,
    };
    upload_and_intersect::<_, P>(&HostLauncher::new(16), &k, o, &mut acc, 64)?;
    let (total, states) = result::<P>(o, &acc);
    Ok(IntersectRun {
        total,
        states,
        oriented_edges: o.undirected_edges(),
        orient_time,
        count_time: t1.elapsed(),
        in_place: o.in_place(),
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

    #[test]
    fn emulated_kernel_in_place_agrees_with_the_copy_and_brute_force() {
        use crate::tc::tests::{brute_per_vertex, shapes};
        for (name, g, in_place) in shapes() {
            let per = brute_per_vertex(g.csr());
            let r = emulate::<Count, _>(&g).unwrap();
            assert_eq!(
                (r.total, r.in_place),
                (per.iter().sum::<u64>() / 3, in_place)
            );
            let copy = Orientation::Copy(crate::tc::orient(&g).unwrap());
            let zero = Duration::ZERO;
            assert_eq!(emulate_rows::<Count>(&copy, zero).unwrap().total, r.total);
            let r = emulate::<PerVertex, _>(&g).unwrap();
            let got: Vec<u64> = r.states.iter().map(|s| s.0).collect();
            assert_eq!(got, per, "{name}");
            let c = emulate_rows::<PerVertex>(&copy, zero).unwrap();
            assert_eq!(c.states, r.states, "{name}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn emulated_programs_count_what_brute_force_counts(
            (n, edges) in crate::tc::tests::arb_edges()
        ) {
            use crate::tc::tests::{brute_per_vertex, builds};
            for g in builds(n, &edges) {
                let per = brute_per_vertex(g.csr());
                let r = emulate::<Count, _>(&g).unwrap();
                proptest::prop_assert_eq!(r.total, per.iter().sum::<u64>() / 3);
                let r = emulate::<PerVertex, _>(&g).unwrap();
                let got: Vec<u64> = r.states.iter().map(|s| s.0).collect();
                proptest::prop_assert_eq!(got, per);
            }
        }
    }
}
