//! The seed 000 level kernels (`init`, the SV build, the naive and the balanced
//! level) over a [`Launcher`]: the one executor of the `driver` loop, for the
//! built-in BFS and every program, on the device and in the emulator.
//!
//! The kernels' parameter lists are those `kernels_rs::ptx_kernels!` declares;
//! [`LevelRun`] builds each list once, and the host bodies here read the same
//! list back into the `kernels_rs::entry` calls the PTX entry points make.

use cudarc::driver::CudaFunction;
use kernels_rs::entry::{self, RawLevel};
use kernels_rs::{Program, ThreadCtx};

use super::driver::LevelExec;
use super::launcher::{Arg, Grid, Kernel, Launcher};
use crate::error::Result;

/// The four kernels of a level run.
#[derive(Clone, Copy)]
pub(crate) struct LevelKernels<'k> {
    pub init: Kernel<'k>,
    pub build_sv: Kernel<'k>,
    pub naive: Kernel<'k>,
    pub balanced: Kernel<'k>,
}

impl<'k> LevelKernels<'k> {
    /// Program `P`'s kernels named `names` (`init`, `build_sv`, `naive`,
    /// `balanced`), with their device functions where loaded.
    pub(crate) fn of<P: Program>(
        names: [&'k str; 4],
        device: Option<[&'k CudaFunction; 4]>,
    ) -> LevelKernels<'k> {
        let f = |i: usize| device.map(|d| d[i]);
        LevelKernels {
            init: Kernel {
                name: names[0],
                device: f(0),
                host: init_body::<P>,
            },
            build_sv: Kernel {
                name: names[1],
                device: f(1),
                host: build_sv_body,
            },
            naive: Kernel {
                name: names[2],
                device: f(2),
                host: naive_body::<P>,
            },
            balanced: Kernel {
                name: names[3],
                device: f(3),
                host: balanced_body::<P>,
            },
        }
    }
}

/// Program `P`'s `init(n, source, state, parents)` kernel alone (the
/// persistent strategies start with it).
pub(crate) fn init_kernel<'k, P: Program>(
    name: &'k str,
    device: Option<&'k CudaFunction>,
) -> Kernel<'k> {
    Kernel {
        name,
        device,
        host: init_body::<P>,
    }
}

/// `init(n, source, state, parents)`.
unsafe fn init_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `LevelRun::init` builds.
    unsafe { entry::init::<P>(t, a[0].u64(), a[1].u32(), a[2].ptr(), a[3].ptr()) }
}

/// `build_sv(n, offsets, max_edge_count, sv, nchunks)`.
pub(crate) unsafe fn build_sv_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: as above (`LevelRun::build_sv`).
    unsafe {
        entry::build_sv(
            t,
            a[0].u64(),
            a[1].ptr(),
            a[2].u64(),
            a[3].ptr(),
            a[4].u64(),
        )
    }
}

/// The 14 parameters every level kernel starts with.
fn raw_level<P: Program>(a: &[Arg]) -> RawLevel<P> {
    RawLevel {
        n: a[0].u64(),
        m: a[1].u64(),
        offsets: a[2].ptr(),
        targets: a[3].ptr(),
        weights: a[4].ptr(),
        state: a[5].ptr(),
        parents: a[6].ptr(),
        frontier_current: a[7].ptr(),
        frontier_next: a[8].ptr(),
        flags: a[9].ptr(),
        nflags: a[10].u32(),
        slot_in: a[11].u32(),
        slot_out: a[12].u32(),
        iter: a[13].u32(),
    }
}

/// `naive(<14 level parameters>)`.
unsafe fn naive_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: as above (`LevelRun::level`).
    unsafe { entry::naive::<P>(t, raw_level::<P>(a)) }
}

/// `balanced(<14 level parameters>, sv, nchunks, max_edge_count)`.
unsafe fn balanced_body<P: Program>(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: as above (`LevelRun::level`).
    unsafe { entry::balanced::<P>(t, raw_level::<P>(a), a[14].ptr(), a[15].u64(), a[16].u64()) }
}

/// How a level run is set up.
pub(crate) struct LevelSetup {
    /// `(n, m, offsets, targets, weights)` ([`super::launcher::graph_args`]).
    pub graph: [Arg; 5],
    /// Threads per block.
    pub block: u32,
    /// Edge chunks (SV) instead of a full scan.
    pub balanced: bool,
    /// Edges per chunk of the balanced kernel.
    pub max_edge_count: u64,
    /// Size of the flag ring (`driver::ring_size`).
    pub ring: u32,
    /// Address of the `n` states, and of the `n` parents (0: none).
    pub state: u64,
    pub parents: u64,
    /// The explicit frontier's initial stamps (see `kernels_rs::Flags`), or
    /// `None` where the state encodes the level (the built-in BFS).
    pub stamps: Option<Vec<u32>>,
    /// A mark around every level (the built-in BFS reports per-level times).
    pub time_levels: bool,
}

/// Marks a level run records: its start and end, and around kernels.
pub(crate) struct Marks<M> {
    pub start: Option<M>,
    pub init: Option<(M, M)>,
    pub sv: Option<(M, M)>,
    pub levels: Vec<(M, M)>,
    pub end: Option<M>,
}

/// [`LevelExec`] over any [`Launcher`].
pub(crate) struct LevelRun<'a, L: Launcher> {
    l: &'a L,
    k: LevelKernels<'a>,
    s: LevelSetup,
    stamps: Option<[L::Buf<u32>; 2]>,
    sv: L::Buf<u32>,
    nchunks: u64,
    flags: L::Buf<u32>,
    pub(crate) marks: Marks<L::Mark>,
}

impl<'a, L: Launcher> LevelRun<'a, L> {
    /// Allocates the frontier stamps, the SV and the flag ring.
    pub(crate) fn new(l: &'a L, k: LevelKernels<'a>, mut s: LevelSetup) -> Result<Self> {
        let (n, m) = (s.graph[0].u64(), s.graph[1].u64());
        let nchunks = if s.balanced {
            kernels_rs::skeleton::num_chunks(m, s.max_edge_count)
        } else {
            0
        };
        let stamps = match s.stamps.take() {
            Some(first) => Some([
                l.upload(&first, "frontier stamps")?,
                l.zeros(n as usize, "frontier stamps")?,
            ]),
            None => None,
        };
        Ok(LevelRun {
            l,
            k,
            stamps,
            sv: l.zeros(nchunks as usize, "SV")?,
            nchunks,
            flags: l.zeros(s.ring as usize, "level flags")?,
            marks: Marks {
                start: None,
                init: None,
                sv: None,
                levels: Vec::new(),
                end: None,
            },
            s,
        })
    }

    /// Bytes a run allocates besides the state (for a memory check first).
    pub(crate) fn bytes(
        n: u64,
        m: u64,
        balanced: bool,
        max_edge_count: u64,
        ring: u32,
        stamps: bool,
    ) -> u64 {
        let nchunks = if balanced {
            kernels_rs::skeleton::num_chunks(m, max_edge_count)
        } else {
            0
        };
        4 * (nchunks.max(1) + u64::from(ring) + if stamps { 2 * n.max(1) } else { 0 })
    }

    /// The address of stamp array `i % 2`: level `iter` reads array `iter % 2`
    /// and stamps its activations in the other (see `kernels_rs::Flags`).
    pub(crate) fn stamps_addr(&self, i: u32) -> Option<u64> {
        self.stamps.as_ref().map(|s| L::addr(&s[(i % 2) as usize]))
    }

    /// Stamp array `i % 2`, read back (empty without stamps).
    pub(crate) fn stamps(&self, i: u32) -> Result<Vec<u32>> {
        match &self.stamps {
            Some(s) => self.l.read(&s[(i % 2) as usize], "frontier stamps"),
            None => Ok(Vec::new()),
        }
    }

    fn n(&self) -> u64 {
        self.s.graph[0].u64()
    }
}

impl<L: Launcher> LevelExec for LevelRun<'_, L> {
    fn init(&mut self, source: u32, ring: u32) -> Result<()> {
        let mut flags = vec![0u32; ring as usize];
        flags[0] = 1;
        self.l.write(&mut self.flags, &flags, "level flags")?;
        self.marks.start = Some(self.l.mark()?);
        let args = [
            self.n().into(),
            source.into(),
            self.s.state.into(),
            self.s.parents.into(),
        ];
        let a = self.l.mark()?;
        // SAFETY: `init(n, source, state, parents)`: `n` states, parents `n`
        // words or null.
        unsafe {
            self.l
                .launch(&self.k.init, Grid::Cover(self.n()), self.s.block, &args)?
        };
        self.marks.init = Some((a, self.l.mark()?));
        Ok(())
    }

    fn build_sv(&mut self) -> Result<()> {
        let a = self.l.mark()?;
        let args = [
            self.n().into(),
            self.s.graph[2],
            self.s.max_edge_count.into(),
            L::addr(&self.sv).into(),
            self.nchunks.into(),
        ];
        // SAFETY: `build_sv(n, offsets, max_edge_count, sv, nchunks)`: `n + 1`
        // offsets, `nchunks` SV slots.
        unsafe {
            self.l
                .launch(&self.k.build_sv, Grid::Cover(self.n()), self.s.block, &args)?
        };
        self.marks.sv = Some((a, self.l.mark()?));
        Ok(())
    }

    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
        let (cur, next) = match &self.stamps {
            Some(s) => (
                L::addr(&s[(iter % 2) as usize]),
                L::addr(&s[((iter + 1) % 2) as usize]),
            ),
            None => (0, 0),
        };
        let g = self.s.graph;
        let mut args = [
            &g[..],
            &[
                self.s.state.into(),
                self.s.parents.into(),
                cur.into(),
                next.into(),
                L::addr(&self.flags).into(),
                (L::len(&self.flags) as u32).into(),
                slot_in.into(),
                slot_out.into(),
                iter.into(),
            ],
        ]
        .concat();
        let (k, work) = if self.s.balanced {
            args.extend([
                Arg::from(L::addr(&self.sv)),
                Arg::from(self.nchunks),
                Arg::from(self.s.max_edge_count),
            ]);
            (&self.k.balanced, self.nchunks)
        } else {
            (&self.k.naive, self.n())
        };
        let a = self.s.time_levels.then(|| self.l.mark()).transpose()?;
        // SAFETY: the level kernels' lists of `kernels_rs::ptx_kernels!` (the
        // balanced one with the chunk arguments last): the CSR, `n` states,
        // parents and stamps (or null), the flag ring, the SV of `nchunks`.
        unsafe { self.l.launch(k, Grid::Cover(work), self.s.block, &args)? };
        if let Some(a) = a {
            self.marks.levels.push((a, self.l.mark()?));
        }
        Ok(())
    }

    fn read_flags(&mut self) -> Result<Vec<u32>> {
        let (flags, end) = self.l.read_marked(&self.flags, "level flags")?;
        self.marks.end = Some(end);
        Ok(flags)
    }
}
