//! One launcher for both backends: the device (cudarc) and the host emulator
//! implement [`Launcher`], and a strategy written against it runs on either.
//!
//! Why one trait: before it, every strategy had a device executor and a host
//! executor that spelled out the same kernel argument lists twice (a cudarc
//! launch builder against host slices and `kernels_rs::entry` calls), so a
//! change to a kernel's parameters had to be made, and tested, in two places.
//! Here a kernel is one [`Kernel`] value: its PTX function (on the device) and
//! its host body (in the emulator) take the same argument list, a slice of
//! [`Arg`] words, built once by the strategy.
//!
//! Buffers are the launcher's own ([`Launcher::Buf`]): device memory that frees
//! on drop, or host memory the emulated threads reach through raw addresses.
//! Both hand kernels their address ([`Launcher::addr`]), which is what every
//! pointer parameter of our kernels is.
//!
//! Users so far: the seed 000 level loop (`super::levels`, the built-in BFS
//! and every program's `naive`/`balanced` kernels).

mod device;
mod host;

pub(crate) use device::DeviceLauncher;
pub(crate) use host::{HostLauncher, HostTeam};

use cudarc::driver::{CudaFunction, DeviceRepr, ValidAsZeroBits};
use kernels_rs::ThreadCtx;

use crate::error::Result;

/// One kernel parameter: a scalar, or a buffer's address as a `u64` (every
/// pointer parameter of our kernels is a 64-bit address).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Arg {
    U32(u32),
    U64(u64),
    F64(f64),
}

impl Arg {
    /// The word as a `u64` (a `U32` widened).
    pub(crate) fn u64(self) -> u64 {
        match self {
            Arg::U32(x) => u64::from(x),
            Arg::U64(x) => x,
            Arg::F64(x) => x.to_bits(),
        }
    }

    /// The word as a `u32` (a host body reading a `u32` parameter).
    pub(crate) fn u32(self) -> u32 {
        self.u64() as u32
    }

    /// The word as an `f64` (a `U64` read as its bits).
    pub(crate) fn f64(self) -> f64 {
        match self {
            Arg::F64(x) => x,
            other => f64::from_bits(other.u64()),
        }
    }

    /// The word as an address of `T`s (null for 0).
    pub(crate) fn ptr<T>(self) -> *mut T {
        self.u64() as usize as *mut T
    }
}

impl From<u32> for Arg {
    fn from(x: u32) -> Arg {
        Arg::U32(x)
    }
}

impl From<f64> for Arg {
    fn from(x: f64) -> Arg {
        Arg::F64(x)
    }
}

impl From<u64> for Arg {
    fn from(x: u64) -> Arg {
        Arg::U64(x)
    }
}

/// A kernel's body on the host: one simulated thread, the argument list as the
/// PTX entry point receives it.
///
/// # Safety
/// The arguments must be what the kernel's parameter list documents (addresses
/// of live buffers of the documented lengths, accessed as the kernel says).
pub(crate) type HostBody = unsafe fn(ThreadCtx, &[Arg]);

/// A kernel both backends can run.
#[derive(Clone, Copy)]
pub(crate) struct Kernel<'k> {
    /// The PTX entry point's name (for errors).
    pub name: &'k str,
    /// The loaded function; `None` where only the emulator runs it.
    pub device: Option<&'k CudaFunction>,
    /// The same kernel's body for the emulator.
    pub host: HostBody,
}

/// How many blocks a launch gets for its work items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grid {
    /// One thread per item: `ceil(work / block)` blocks.
    Cover(u64),
    /// At most the blocks the device holds at once, for grid-stride kernels
    /// whose threads flush per-thread tallies at the end (fewer atomics).
    Resident(u64),
}

/// A kernel whose threads share their block's memory and wait for each other
/// (block barriers, and in a cooperative launch grid barriers): its host body
/// gets the simulated thread's [`HostTeam`] and its block's shared memory
/// (`words` words), as the PTX entry gets them from the hardware.
pub(crate) type TeamBody = unsafe fn(&HostTeam<'_>, *mut u32, u32, &[Arg]);

/// A [`TeamBody`] kernel both backends can run.
#[derive(Clone, Copy)]
pub(crate) struct TeamKernel<'k> {
    pub name: &'k str,
    pub device: Option<&'k CudaFunction>,
    pub host: TeamBody,
}

/// The shape of a team launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TeamShape {
    pub blocks: u32,
    pub threads: u32,
    /// Words of shared memory per block.
    pub smem_words: u32,
    /// All blocks co-resident, so that grid barriers work (the device refuses
    /// a cooperative launch larger than it holds at once).
    pub cooperative: bool,
}

/// What a buffer may hold: plain words both sides can copy.
pub(crate) trait Elem:
    bytemuck::Pod + DeviceRepr + ValidAsZeroBits + Send + Sync + 'static
{
}
impl<T: bytemuck::Pod + DeviceRepr + ValidAsZeroBits + Send + Sync + 'static> Elem for T {}

/// What a strategy needs from a backend: buffers, launches, timing.
pub(crate) trait Launcher {
    /// A buffer of `T`s on this backend (freed on drop).
    type Buf<T: Elem>;
    /// A point in time on the backend's timeline (a CUDA event, an `Instant`).
    type Mark;

    /// `len` zeroed `T`s (`what` names them in errors).
    fn zeros<T: Elem>(&self, len: usize, what: &str) -> Result<Self::Buf<T>>;
    /// A copy of `data`.
    fn upload<T: Elem>(&self, data: &[T], what: &str) -> Result<Self::Buf<T>> {
        let mut buf = self.zeros(data.len(), what)?;
        self.write(&mut buf, data, what)?;
        Ok(buf)
    }
    /// Copies `data` into the start of `buf` (ordered after earlier launches).
    fn write<T: Elem>(&self, buf: &mut Self::Buf<T>, data: &[T], what: &str) -> Result<()> {
        self.write_at(buf, 0, data, what)
    }
    /// Copies `data` into `buf` from element `at` on (ordered after earlier
    /// launches); an error if it does not fit.
    fn write_at<T: Elem>(
        &self,
        buf: &mut Self::Buf<T>,
        at: usize,
        data: &[T],
        what: &str,
    ) -> Result<()>;
    /// Zeroes `buf` (ordered after earlier launches).
    fn clear<T: Elem>(&self, buf: &mut Self::Buf<T>, what: &str) -> Result<()>;
    /// Waits for every launch so far, then copies `buf` out.
    fn read<T: Elem>(&self, buf: &Self::Buf<T>, what: &str) -> Result<Vec<T>> {
        self.read_prefix(buf, Self::len(buf), what)
    }
    /// [`Self::read`] of the first `len` elements only (at most the buffer's).
    fn read_prefix<T: Elem>(&self, buf: &Self::Buf<T>, len: usize, what: &str) -> Result<Vec<T>>;
    /// [`Self::read`], with a mark right after the copy (before the wait): the
    /// end of a timed span that includes reading its result.
    fn read_marked<T: Elem>(&self, buf: &Self::Buf<T>, what: &str) -> Result<(Vec<T>, Self::Mark)>;
    /// The address kernels take for `buf`.
    fn addr<T: Elem>(buf: &Self::Buf<T>) -> u64;
    /// Elements in `buf`.
    fn len<T: Elem>(buf: &Self::Buf<T>) -> usize;
    /// Launches `k` on a 1-D grid for `grid`'s items, `block` threads a block
    /// (the emulator runs fewer blocks; the kernels' grid-stride loops do the
    /// rest).
    ///
    /// # Safety
    /// `args` must be `k`'s parameter list exactly: scalars of its types, and
    /// addresses of live buffers (of this launcher) of the lengths it documents.
    unsafe fn launch(&self, k: &Kernel<'_>, grid: Grid, block: u32, args: &[Arg]) -> Result<()>;
    /// Waits for every launch so far (`after` names them in errors).
    fn sync(&self, after: &str) -> Result<()>;
    /// Launches team kernel `k` on `shape` (see [`TeamBody`]). The emulator
    /// runs every simulated thread on an OS thread of its own, all at once,
    /// with real barriers: keep emulated shapes small.
    ///
    /// # Safety
    /// As [`Self::launch`].
    unsafe fn launch_team(&self, k: &TeamKernel<'_>, shape: TeamShape, args: &[Arg]) -> Result<()>;
    /// Warps a launch on `grid` with `block`-thread blocks has: 32 lanes each
    /// on the device, one lane on the emulator (whose threads run one after
    /// another). Kernels that write one tally slot per warp are sized by it.
    fn warps(&self, grid: Grid, block: u32) -> u64;
    /// Now, on the backend's timeline (after every launch so far).
    fn mark(&self) -> Result<Self::Mark>;
    /// Milliseconds from `a` to `b` (waits for both).
    fn elapsed_ms(&self, a: &Self::Mark, b: &Self::Mark) -> Result<f64>;
    /// Starts a batch: the launches, clears and marks until [`Self::replay`]
    /// are recorded and issued together (on a device, as a CUDA graph captured
    /// the first time and replayed whenever the same batch comes again; see
    /// `gpu::graphs`). Any other operation on the launcher before the replay
    /// is an error, as it would overtake the recorded ones. The emulator runs
    /// every operation as it comes.
    fn begin_batch(&self) -> Result<()> {
        Ok(())
    }
    /// Issues the batch begun by [`Self::begin_batch`] and stops recording.
    fn replay(&self) -> Result<()> {
        Ok(())
    }
    /// Drops a batch that will not be issued (its run failed while recording).
    fn abandon_batch(&self) {}
}

/// The first five parameters of every graph kernel: `(n, m, offsets, targets,
/// weights)`, addresses as the launcher gives them (`weights` 0 when none).
pub(crate) fn graph_args(n: u64, m: u64, offsets: u64, targets: u64, weights: u64) -> [Arg; 5] {
    [
        n.into(),
        m.into(),
        offsets.into(),
        targets.into(),
        weights.into(),
    ]
}

/// [`graph_args`] of a host CSR, as the emulator's kernels read it
/// (`weights` the address of `m` weights, or 0).
pub(crate) fn host_graph_args<W: crate::graph::Weight>(
    csr: &crate::graph::Csr<W>,
    weights: u64,
) -> [Arg; 5] {
    graph_args(
        csr.num_vertices() as u64,
        csr.num_edges(),
        csr.offsets().as_ptr() as u64,
        csr.targets().as_ptr() as u64,
        weights,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_convert_both_ways() {
        assert_eq!(Arg::from(7u32).u64(), 7);
        assert_eq!(Arg::from(1u64 << 40).u64(), 1 << 40);
        assert_eq!(Arg::from(9u64).u32(), 9);
        assert_eq!(Arg::from(2.5f64).f64(), 2.5);
        assert!(Arg::from(0u64).ptr::<u32>().is_null());
    }

    /// A host body that adds its thread's global index into one word, so the
    /// emulator's grid (every thread exactly once) and buffers can be checked.
    unsafe fn count(t: ThreadCtx, a: &[Arg]) {
        let n = a[0].u64();
        let sum = a[1].ptr::<u64>();
        let mut i = t.global();
        while i < n {
            // SAFETY: `sum` is a live one-word buffer, updated atomically.
            let cell = unsafe { core::sync::atomic::AtomicU64::from_ptr(sum) };
            cell.fetch_add(i + 1, core::sync::atomic::Ordering::Relaxed);
            i += t.stride();
        }
    }

    /// A team body: every thread stores its id in the block's shared memory,
    /// waits at the block barrier, then thread 0 sums the block's ids into
    /// `out[block]`; after a grid barrier, thread 0 of block 0 adds the
    /// blocks' sums into `out[blocks]`.
    unsafe fn team_sum(team: &HostTeam<'_>, smem: *mut u32, words: u32, a: &[Arg]) {
        use kernels_rs::resident::Team;
        use std::sync::atomic::{AtomicU32, Ordering};
        let ctx = Team::ctx(team);
        let out = a[0].ptr::<u32>();
        assert!(ctx.block_dim <= words);
        // SAFETY: `smem` holds `words` words of this block; `out` one word per
        // block and one more, written by one thread each between barriers.
        unsafe {
            *smem.add(ctx.thread_idx as usize) = ctx.thread_idx;
            team.sync_block();
            if ctx.thread_idx == 0 {
                let sum = (0..ctx.block_dim).map(|t| *smem.add(t as usize)).sum();
                *out.add(ctx.block_idx as usize) = sum;
            }
            let (count, generation) = (AtomicU32::new(0), AtomicU32::new(0));
            team.sync_grid(&count, &generation);
            if ctx.global() == 0 {
                let blocks = ctx.grid_dim as usize;
                let total = (0..blocks).map(|b| *out.add(b)).sum::<u32>();
                let cell = AtomicU32::from_ptr(out.add(blocks));
                cell.store(total, Ordering::Relaxed);
            }
        }
    }

    #[test]
    fn a_team_launch_gives_each_block_its_memory_and_real_barriers() {
        let l = HostLauncher::new(1);
        let (blocks, threads) = (3u32, 5u32);
        let out = l.zeros::<u32>(blocks as usize + 1, "out").unwrap();
        let k = TeamKernel {
            name: "team_sum",
            device: None,
            host: team_sum,
        };
        let shape = TeamShape {
            blocks,
            threads,
            smem_words: 7,
            cooperative: true,
        };
        // SAFETY: `team_sum(out)`: `blocks + 1` live words.
        unsafe { l.launch_team(&k, shape, &[HostLauncher::addr(&out).into()]) }.unwrap();
        // 0 + 1 + 2 + 3 + 4 per block.
        assert_eq!(l.read(&out, "out").unwrap(), vec![10, 10, 10, 30]);
        let empty = TeamShape { blocks: 0, ..shape };
        // SAFETY: refused before any thread runs.
        assert!(unsafe { l.launch_team(&k, empty, &[]) }.is_err());
        // The emulator's warps are one lane: a tally slot per simulated thread
        // of the (capped) grid.
        assert_eq!(HostLauncher::new(8).warps(Grid::Cover(100), 32), 128);
        assert_eq!(l.warps(Grid::Cover(100), 32), 32);
    }

    #[test]
    fn the_host_launcher_runs_every_item_once() {
        let l = HostLauncher::new(3);
        let mut sum = l.zeros::<u64>(1, "sum").unwrap();
        l.write(&mut sum, &[5], "sum").unwrap();
        let k = Kernel {
            name: "count",
            device: None,
            host: count,
        };
        let n = 1000u64;
        // SAFETY: `count(n, sum)`: one live word.
        unsafe {
            l.launch(
                &k,
                Grid::Cover(n),
                32,
                &[n.into(), HostLauncher::addr(&sum).into()],
            )
        }
        .unwrap();
        assert_eq!(l.read(&sum, "sum").unwrap(), vec![5 + n * (n + 1) / 2]);
        l.clear(&mut sum, "sum").unwrap();
        assert_eq!(l.read(&sum, "sum").unwrap(), vec![0]);
        let mut two = l.zeros::<u32>(2, "two").unwrap();
        l.write_at(&mut two, 1, &[4], "two").unwrap();
        assert_eq!(l.read(&two, "two").unwrap(), vec![0, 4]);
        assert!(l.write_at(&mut two, 2, &[4], "two").is_err());
        assert_eq!(HostLauncher::len(&sum), 1);
        let a = l.mark().unwrap();
        let b = l.mark().unwrap();
        assert!(l.elapsed_ms(&a, &b).unwrap() >= 0.0);
    }
}
