//! Connected components by Afforest on the GPU (`kernels_rs::cc`), and the same
//! kernel bodies under the host emulator ([`emulate`]) for CI without a GPU.
//!
//! The phases are those of the CPU version ([`crate::cc`]): `neighbor_rounds`
//! launches of `cc_link_round` each followed by `cc_compress`, then `cc_sample`
//! (1024 labels come back to the host, which picks the most frequent with
//! [`crate::cc::most_frequent`], the same choice as the CPU), then `cc_link_rest`
//! skipping that component and a last `cc_compress`. [`CcExec`] is the phases'
//! trait and `CcRun` its one implementation, over the device's or the
//! emulator's `Launcher`; [`drive`] is the phase sequence over it.
//!
//! Directed graphs: uploaded with their transpose ([`Device::upload_traversal`]),
//! whose rows `cc_link_rest` walks too, giving weakly connected components.

use cudarc::driver::CudaFunction;
use kernels_rs::ThreadCtx;

use super::cuda::DevBuf;
use super::device::{Device, DeviceGraph, Incoming};
use super::launcher::{Arg, DeviceLauncher, Grid, HostBody, HostLauncher, Kernel, Launcher};
use crate::cc::{most_frequent, AfforestOptions};
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight};

/// Threads per block of every cc kernel.
const BLOCK: u32 = 256;

/// Labels and timing of a GPU (or emulated) Afforest run.
#[derive(Clone, Debug)]
pub struct GpuCcRun {
    /// `labels[v]` = smallest vertex id of `v`'s (weakly) connected component.
    pub labels: Vec<u32>,
    /// From the first kernel to the last (CUDA events); host time when emulated.
    pub time_ms: f64,
    /// The sampled label skipped by the last link phase.
    pub skipped: Option<u32>,
    pub skipped_share: f64,
}

/// The Afforest kernels of the loaded module.
pub struct CcKernels {
    init: CudaFunction,
    link_round: CudaFunction,
    compress: CudaFunction,
    sample: CudaFunction,
    link_rest: CudaFunction,
}

/// One launcher of the Afforest phases: the device or the emulator.
pub trait CcExec {
    /// Every vertex its own tree.
    fn init(&mut self) -> Result<()>;
    /// Links every vertex with its `round`-th out-neighbour.
    fn link_round(&mut self, round: u32) -> Result<()>;
    /// Points every vertex at its root.
    fn compress(&mut self) -> Result<()>;
    /// The labels of the `nsamples` vertices `sample_vertex(seed, i, n)`.
    fn sample(&mut self, seed: u64, nsamples: u32) -> Result<Vec<u32>>;
    /// Links the remaining edges of the vertices not labelled `skip`.
    fn link_rest(&mut self, skip: u32, rounds: u32) -> Result<()>;
}

/// Runs the phases; returns the skipped label and its sample count.
pub fn drive(x: &mut impl CcExec, o: &AfforestOptions) -> Result<Option<(u32, u32)>> {
    x.init()?;
    for r in 0..o.neighbor_rounds {
        x.link_round(r)?;
        x.compress()?;
    }
    let giant = if o.samples > 0 {
        most_frequent(&x.sample(o.seed, o.samples)?)
    } else {
        None
    };
    x.link_rest(giant.map_or(u32::MAX, |(c, _)| c), o.neighbor_rounds)?;
    x.compress()?;
    Ok(giant)
}

fn share(giant: Option<(u32, u32)>, o: &AfforestOptions) -> f64 {
    giant.map_or(0.0, |(_, k)| f64::from(k) / f64::from(o.samples.max(1)))
}

/// The Afforest phases over any [`Launcher`]: the one [`CcExec`] of the device
/// and the emulator.
struct CcRun<'a, L: Launcher> {
    l: &'a L,
    k: [Kernel<'a>; 5],
    /// `(n, m, offsets, targets)` of the CSR.
    csr: [Arg; 4],
    /// `(m_in, in_offsets, in_sources)`; zeros for a symmetric graph.
    incoming: [Arg; 3],
    comp: L::Buf<u32>,
    samples: L::Buf<u32>,
    block: u32,
}

/// The five kernels, in the order `init, link_round, compress, sample,
/// link_rest`, with the device's functions where loaded.
fn cc_kernels(device: Option<&CcKernels>) -> [Kernel<'_>; 5] {
    let names = [
        "cc_init",
        "cc_link_round",
        "cc_compress",
        "cc_sample",
        "cc_link_rest",
    ];
    let fns = device.map(|k| [&k.init, &k.link_round, &k.compress, &k.sample, &k.link_rest]);
    let hosts: [HostBody; 5] = [
        init_body,
        link_round_body,
        compress_body,
        sample_body,
        link_rest_body,
    ];
    std::array::from_fn(|i| Kernel {
        name: names[i],
        device: fns.map(|f| f[i]),
        host: hosts[i],
    })
}

// Each body reads the argument list `CcRun` builds for its kernel (the PTX
// parameter list of `kernels_rs::cc_kernels!`): the contract its SAFETY
// comment refers to.

/// `cc_init(n, comp)`.
unsafe fn init_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { kernels_rs::cc::init(t, a[0].u64(), a[1].ptr()) }
}

/// `cc_link_round(n, m, offsets, targets, comp, round)`.
unsafe fn link_round_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe {
        kernels_rs::cc::link_round(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].ptr(),
            a[5].u32(),
        )
    }
}

/// `cc_compress(n, comp)`.
unsafe fn compress_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe { kernels_rs::cc::compress(t, a[0].u64(), a[1].ptr()) }
}

/// `cc_sample(n, comp, seed, samples, nsamples)`.
unsafe fn sample_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe {
        kernels_rs::cc::sample(
            t,
            a[0].u64(),
            a[1].ptr(),
            a[2].u64(),
            a[3].ptr(),
            a[4].u32(),
        )
    }
}

/// `cc_link_rest(n, m, offsets, targets, m_in, in_offsets, in_sources, comp,
/// skip, rounds)`.
unsafe fn link_rest_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: see above.
    unsafe {
        kernels_rs::cc::link_rest(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].u64(),
            a[5].ptr(),
            a[6].ptr(),
            a[7].ptr(),
            a[8].u32(),
            a[9].u32(),
        )
    }
}

impl<'a, L: Launcher> CcRun<'a, L> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        l: &'a L,
        k: [Kernel<'a>; 5],
        csr: [Arg; 4],
        incoming: [Arg; 3],
        samples: u32,
        block: u32,
    ) -> Result<Self> {
        let n = csr[0].u64() as usize;
        Ok(CcRun {
            comp: l.zeros::<u32>(n, "cc labels")?,
            samples: l.zeros::<u32>(samples as usize, "cc samples")?,
            l,
            k,
            csr,
            incoming,
            block,
        })
    }

    fn n(&self) -> u64 {
        self.csr[0].u64()
    }

    /// Launches kernel `i` of [`cc_kernels`] over the vertices.
    ///
    /// # Safety
    /// `args` is that kernel's parameter list.
    unsafe fn over_vertices(&self, i: usize, args: &[Arg]) -> Result<()> {
        let grid = Grid::Resident(self.n());
        // SAFETY: the caller's contract.
        unsafe { self.l.launch(&self.k[i], grid, self.block, args) }
    }

    /// Runs the phases; the skipped label and its sample count, and the time
    /// from the first kernel to the last.
    fn run(&mut self, o: &AfforestOptions) -> Result<(Option<(u32, u32)>, f64)> {
        let start = self.l.mark()?;
        let giant = drive(self, o)?;
        let end = self.l.mark()?;
        Ok((giant, self.l.elapsed_ms(&start, &end)?))
    }
}

impl<L: Launcher> CcExec for CcRun<'_, L> {
    fn init(&mut self) -> Result<()> {
        let args = [self.csr[0], L::addr(&self.comp).into()];
        // SAFETY: `cc_init(n, comp)` with `comp` holding `n` words.
        unsafe { self.over_vertices(0, &args) }
    }

    fn link_round(&mut self, round: u32) -> Result<()> {
        let c = self.csr;
        let args = [
            c[0],
            c[1],
            c[2],
            c[3],
            L::addr(&self.comp).into(),
            round.into(),
        ];
        // SAFETY: `cc_link_round(n, m, offsets, targets, comp, round)` over a
        // valid CSR and `n` comp words.
        unsafe { self.over_vertices(1, &args) }
    }

    fn compress(&mut self) -> Result<()> {
        let args = [self.csr[0], L::addr(&self.comp).into()];
        // SAFETY: `cc_compress(n, comp)` with `comp` holding `n` words.
        unsafe { self.over_vertices(2, &args) }
    }

    fn sample(&mut self, seed: u64, nsamples: u32) -> Result<Vec<u32>> {
        if nsamples as usize > L::len(&self.samples) {
            return Err(Error::InvalidArgument(format!(
                "{nsamples} samples for a buffer of {}",
                L::len(&self.samples)
            )));
        }
        let args = [
            self.csr[0],
            L::addr(&self.comp).into(),
            seed.into(),
            L::addr(&self.samples).into(),
            nsamples.into(),
        ];
        let grid = Grid::Cover(u64::from(nsamples));
        // SAFETY: `cc_sample(n, comp, seed, samples, nsamples)`, `samples` holds
        // at least `nsamples` words (checked above).
        unsafe { self.l.launch(&self.k[3], grid, self.block, &args)? };
        let mut out = self.l.read(&self.samples, "cc samples")?;
        out.truncate(nsamples as usize);
        Ok(out)
    }

    fn link_rest(&mut self, skip: u32, rounds: u32) -> Result<()> {
        let (c, i) = (self.csr, self.incoming);
        let args = [
            c[0],
            c[1],
            c[2],
            c[3],
            i[0],
            i[1],
            i[2],
            L::addr(&self.comp).into(),
            skip.into(),
            rounds.into(),
        ];
        // SAFETY: `cc_link_rest(n, m, offsets, targets, m_in, in_offsets,
        // in_sources, comp, skip, rounds)`: a valid CSR, its transpose or null
        // pointers, `n` comp words.
        unsafe { self.over_vertices(4, &args) }
    }
}

impl Device {
    /// Loads the Afforest kernels from the vertex module.
    pub fn load_cc(&self) -> Result<CcKernels> {
        Ok(CcKernels {
            init: self.gpu.function("cc_init")?,
            link_round: self.gpu.function("cc_link_round")?,
            compress: self.gpu.function("cc_compress")?,
            sample: self.gpu.function("cc_sample")?,
            link_rest: self.gpu.function("cc_link_rest")?,
        })
    }

    /// Weakly connected components of a graph uploaded with
    /// [`Device::upload_traversal`] (a directed graph needs its in-edges there).
    pub fn afforest(
        &self,
        k: &CcKernels,
        g: &DeviceGraph,
        o: &AfforestOptions,
    ) -> Result<GpuCcRun> {
        if matches!(g.incoming, Incoming::Unknown) {
            return Err(Error::InvalidArgument(
                "GPU connected components need a graph uploaded with upload_traversal \
                 (in-edges of directed graphs)"
                    .into(),
            ));
        }
        if g.n == 0 {
            return Ok(GpuCcRun {
                labels: Vec::new(),
                time_ms: 0.0,
                skipped: None,
                skipped_share: 0.0,
            });
        }
        self.gpu.check_fits(
            "connected-component labels",
            DevBuf::<u32>::bytes_for(g.n as usize) + DevBuf::<u32>::bytes_for(o.samples as usize),
        )?;
        let incoming = match &g.incoming {
            Incoming::Transpose { offsets, sources } => [
                (sources.len as u64).into(),
                offsets.ptr.into(),
                sources.ptr.into(),
            ],
            _ => [Arg::U64(0); 3],
        };
        let csr = [
            g.n.into(),
            g.m.into(),
            g.offsets.ptr.into(),
            g.targets.ptr.into(),
        ];
        let l = DeviceLauncher { gpu: &self.gpu };
        let mut x = CcRun::new(&l, cc_kernels(Some(k)), csr, incoming, o.samples, BLOCK)?;
        let (giant, time_ms) = x.run(o)?;
        let labels = l.read(&x.comp, "cc labels")?;
        Ok(GpuCcRun {
            labels,
            time_ms,
            skipped: giant.map(|(c, _)| c),
            skipped_share: share(giant, o),
        })
    }
}

/// Threads per emulated block; few blocks, so grid-stride loops are exercised.
const EMU_BLOCK: u32 = 64;

/// [`Device::afforest`] on the host: the kernel bodies under the emulator, for
/// tests and machines without a GPU. Directed graphs walk their in-edges.
pub fn emulate<W: Weight>(g: &Graph<W>, o: &AfforestOptions) -> Result<GpuCcRun> {
    let csr = g.csr();
    let n = csr.num_vertices() as u64;
    let addr = |p: *const u64| Arg::U64(p as u64);
    let incoming = if g.is_symmetric() {
        [Arg::U64(0); 3]
    } else {
        let csc = g.csc();
        [
            csc.num_edges().into(),
            addr(csc.offsets().as_ptr()),
            Arg::U64(csc.targets().as_ptr() as u64),
        ]
    };
    let args = [
        n.into(),
        csr.num_edges().into(),
        addr(csr.offsets().as_ptr()),
        Arg::U64(csr.targets().as_ptr() as u64),
    ];
    if n == 0 {
        return Ok(GpuCcRun {
            labels: Vec::new(),
            time_ms: 0.0,
            skipped: None,
            skipped_share: 0.0,
        });
    }
    let l = HostLauncher::new(16);
    let mut x = CcRun::new(&l, cc_kernels(None), args, incoming, o.samples, EMU_BLOCK)?;
    let (giant, time_ms) = x.run(o)?;
    let labels = l.read(&x.comp, "cc labels")?;
    Ok(GpuCcRun {
        labels,
        time_ms,
        skipped: giant.map(|(c, _)| c),
        skipped_share: share(giant, o),
    })
}
