//! [`Launcher`] in the host emulator: buffers in host memory, each launch a
//! simulated grid on rayon ([`crate::gpu::launch::launch`]), timing by the
//! wall clock. Launches finish before they return, so reads need no wait.

use std::ptr::NonNull;

use std::time::Instant;

use std::sync::atomic::AtomicU32;
use std::sync::{Barrier, OnceLock};

use kernels_rs::ThreadCtx;

use super::{Arg, Elem, Grid, Kernel, Launcher, TeamKernel, TeamShape};
use crate::error::Result;
use crate::gpu::launch::{emulated_grid, launch, spawn_grid, SharedPtr};

/// The emulator: at most `max_blocks` simulated blocks a launch (so the
/// kernels' grid-stride loops run too).
pub(crate) struct HostLauncher {
    max_blocks: u32,
}

impl HostLauncher {
    pub(crate) fn new(max_blocks: u32) -> HostLauncher {
        HostLauncher {
            max_blocks: max_blocks.max(1),
        }
    }
}

/// The emulator's team of one simulated thread ([`kernels_rs::resident::Team`]
/// for the resident kernel, [`kernels_rs::tiles::Crew`] for the tiled one): a
/// `std::sync::Barrier` for its block, one for the grid, and one for a part
/// of its block (the tiled kernel's workers), made by the part's first
/// arrival with the part's size.
pub(crate) struct HostTeam<'a> {
    ctx: ThreadCtx,
    block: &'a Barrier,
    grid: &'a Barrier,
    part: &'a OnceLock<Barrier>,
}

impl kernels_rs::resident::Team for HostTeam<'_> {
    fn ctx(&self) -> ThreadCtx {
        self.ctx
    }
    fn sync_block(&self) {
        self.block.wait();
    }
    fn sync_grid(&self, _count: &AtomicU32, _generation: &AtomicU32) {
        self.grid.wait();
    }
}

impl kernels_rs::tiles::Crew for HostTeam<'_> {
    fn ctx(&self) -> ThreadCtx {
        self.ctx
    }
    fn sync_block(&self) {
        self.block.wait();
    }
    fn sync_workers(&self, threads: u32) {
        self.part
            .get_or_init(|| Barrier::new(threads as usize))
            .wait();
    }
    fn fence_block(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn fence_device(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);
    }
    fn idle(&self) {
        std::thread::yield_now();
    }
}

/// Host memory that kernels reach only through its address: no Rust reference
/// to the elements lives while a launch may write them (reads copy out).
pub(crate) struct HostBuf<T> {
    ptr: NonNull<T>,
    /// Logical length (what `read` returns).
    len: usize,
    /// Allocated elements: `len`, or one for an empty buffer.
    cap: usize,
}

// SAFETY: the buffer owns its elements (`T: Send + Sync` via `Elem`); shared
// access goes through launches, whose kernels use atomics or disjoint writes.
unsafe impl<T: Elem> Send for HostBuf<T> {}
// SAFETY: as above.
unsafe impl<T: Elem> Sync for HostBuf<T> {}

impl<T> HostBuf<T> {
    /// The elements, between launches (launches return when done, and `&mut`
    /// excludes every other user of the buffer).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: `len <= cap` initialised elements owned by `self`; see above.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for HostBuf<T> {
    fn drop(&mut self) {
        let all = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.cap);
        // SAFETY: `ptr`/`cap` came from `Box::leak` of a `[T]` of `cap`
        // elements in `zeros`, and are freed only here.
        drop(unsafe { Box::from_raw(all) });
    }
}

impl Launcher for HostLauncher {
    type Buf<T: Elem> = HostBuf<T>;
    type Mark = Instant;

    fn zeros<T: Elem>(&self, len: usize, _what: &str) -> Result<HostBuf<T>> {
        // At least one element, as on the device, so every buffer has an address.
        let b: Box<[T]> = vec![T::zeroed(); len.max(1)].into_boxed_slice();
        let cap = b.len();
        let ptr = NonNull::from(Box::leak(b)).cast::<T>();
        Ok(HostBuf { ptr, len, cap })
    }

    fn write_at<T: Elem>(
        &self,
        buf: &mut HostBuf<T>,
        at: usize,
        data: &[T],
        what: &str,
    ) -> Result<()> {
        if at.saturating_add(data.len()) > buf.len {
            return Err(crate::error::Error::InvalidArgument(format!(
                "{what}: writing {} elements at {at} into a buffer of {}",
                data.len(),
                buf.len
            )));
        }
        buf.as_mut_slice()[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn clear<T: Elem>(&self, buf: &mut HostBuf<T>, _what: &str) -> Result<()> {
        buf.as_mut_slice().fill(T::zeroed());
        Ok(())
    }

    fn read_prefix<T: Elem>(&self, buf: &HostBuf<T>, len: usize, _what: &str) -> Result<Vec<T>> {
        // SAFETY: at most `buf.len` initialised elements; no launch is running.
        let all = unsafe { std::slice::from_raw_parts(buf.ptr.as_ptr(), buf.len) };
        Ok(all[..len.min(buf.len)].to_vec())
    }

    fn read_marked<T: Elem>(&self, buf: &HostBuf<T>, what: &str) -> Result<(Vec<T>, Instant)> {
        let out = self.read(buf, what)?;
        Ok((out, Instant::now()))
    }

    fn addr<T: Elem>(buf: &HostBuf<T>) -> u64 {
        buf.ptr.as_ptr() as usize as u64
    }

    fn len<T: Elem>(buf: &HostBuf<T>) -> usize {
        buf.len
    }

    unsafe fn launch(&self, k: &Kernel<'_>, grid: Grid, block: u32, args: &[Arg]) -> Result<()> {
        let (Grid::Cover(work) | Grid::Resident(work)) = grid;
        let grid = emulated_grid(work, block, self.max_blocks);
        let body = k.host;
        launch(grid, block, |t| {
            // SAFETY: the caller's contract: `args` is `k`'s parameter list.
            unsafe { body(t, args) }
        });
        Ok(())
    }

    fn sync(&self, _after: &str) -> Result<()> {
        Ok(())
    }

    unsafe fn launch_team(&self, k: &TeamKernel<'_>, shape: TeamShape, args: &[Arg]) -> Result<()> {
        let TeamShape {
            blocks,
            threads,
            smem_words,
            ..
        } = shape;
        if blocks == 0 || threads == 0 {
            return Err(crate::error::Error::InvalidArgument(format!(
                "{}: an emulated team launch needs at least one block of one thread",
                k.name
            )));
        }
        // u64 words: each block's shared memory starts 8-byte aligned, as on
        // the device (kernels keep 8-byte values there).
        let per_block = smem_words.div_ceil(2) as usize;
        let mut smem = self.zeros::<u64>(blocks as usize * per_block, "shared memory")?;
        let base = SharedPtr(smem.as_mut_slice().as_mut_ptr());
        let grid = Barrier::new((blocks * threads) as usize);
        let block_barriers: Vec<Barrier> = (0..blocks)
            .map(|_| Barrier::new(threads as usize))
            .collect();
        let part_barriers: Vec<OnceLock<Barrier>> = (0..blocks).map(|_| OnceLock::new()).collect();
        let body = k.host;
        spawn_grid(blocks, threads, |ctx| {
            let team = HostTeam {
                ctx,
                block: &block_barriers[ctx.block_idx as usize],
                grid: &grid,
                part: &part_barriers[ctx.block_idx as usize],
            };
            // SAFETY: the caller's contract for `args`; each block's slice of
            // `smem` (`per_block` words from `block × per_block`, at least
            // `smem_words` 4-byte words) is its own, and `smem` outlives the
            // launch.
            unsafe {
                let own = base.get().add(ctx.block_idx as usize * per_block);
                body(&team, own.cast(), smem_words, args)
            }
        });
        Ok(())
    }

    fn warps(&self, grid: Grid, block: u32) -> u64 {
        let (Grid::Cover(work) | Grid::Resident(work)) = grid;
        u64::from(emulated_grid(work, block, self.max_blocks)) * u64::from(block)
    }

    fn mark(&self) -> Result<Instant> {
        Ok(Instant::now())
    }

    fn elapsed_ms(&self, a: &Instant, b: &Instant) -> Result<f64> {
        Ok(b.saturating_duration_since(*a).as_secs_f64() * 1e3)
    }
}
