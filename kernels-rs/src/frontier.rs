//! Which vertices an iteration expands.
//!
//! Two kinds: [`Implicit`], where the state itself says (BFS: `dist == level`, the
//! seed 000 full-scan test, no extra memory), and [`Flags`], an explicit
//! one-word-per-vertex frontier for programs whose state cannot tell whether it
//! changed in the last iteration (e.g. Bellman-Ford style SSSP, and every
//! `#[vertex_program]`).
//!
//! [`Flags`] holds iteration *stamps*, not booleans, so that nothing ever has to be
//! cleared: a vertex is active in iteration `i` iff `current[v] == i + 1`, and a
//! vertex whose state changed in iteration `i` gets `next[v] = i + 2`. The host
//! alternates two arrays by parity (`current = a[i % 2]`, `next = a[(i + 1) % 2]`);
//! stamps only grow, so a stale stamp never looks current. Initially the active
//! vertices hold 1 and everything else 0. A separate `next` array (rather than one
//! array) matters: a vertex active now may be re-activated while other threads are
//! still asking whether it is active now.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::program::Program;

/// A frontier representation usable by the level skeletons.
pub trait Frontier<P: Program>: Sync {
    /// If `v` is active in iteration `iter`, its state (read through `load`).
    fn active(&self, v: usize, load: impl FnOnce() -> P::State, iter: u32) -> Option<P::State>;
    /// Marks `v` active for the next iteration (its state just changed).
    fn push(&self, v: usize);
}

/// The state decides: active iff [`Program::is_active`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Implicit;

impl<P: Program> Frontier<P> for Implicit {
    #[inline(always)]
    fn active(&self, _v: usize, load: impl FnOnce() -> P::State, iter: u32) -> Option<P::State> {
        let s = load();
        P::is_active(s, iter).then_some(s)
    }
    #[inline(always)]
    fn push(&self, _v: usize) {}
}

/// Explicit frontier: one stamp word per vertex for this iteration and the next
/// (see the module docs for the stamp protocol).
#[derive(Clone, Copy, Debug)]
pub struct Flags<'a> {
    pub current: &'a [AtomicU32],
    pub next: &'a [AtomicU32],
    /// The iteration being expanded (pushes stamp `iter + 2`).
    pub iter: u32,
}

impl<P: Program> Frontier<P> for Flags<'_> {
    #[inline(always)]
    fn active(&self, v: usize, load: impl FnOnce() -> P::State, iter: u32) -> Option<P::State> {
        (self.current[v].load(Relaxed) == iter.wrapping_add(1)).then(load)
    }
    #[inline(always)]
    fn push(&self, v: usize) {
        // Read first: most pushes hit an already-stamped vertex and skip the store.
        let stamp = self.iter.wrapping_add(2);
        if self.next[v].load(Relaxed) != stamp {
            self.next[v].store(stamp, Relaxed);
        }
    }
}

/// Lists the vertices below `n` whose stamp is `stamp` into `queue`, counting
/// them in `len` (grid-stride; any order). The host hands a level loop's last
/// frontier to the resident kernel this way: one pass over the stamps on the
/// device instead of copying them all back. The frontier is small there (the
/// handover waits for small levels), so one atomic per listed vertex is cheap.
///
/// # Safety
/// `stamps` and `queue` valid for `n` words, `len` for one, for the launch.
#[inline(always)]
pub unsafe fn stamped_queue(
    t: crate::ThreadCtx,
    n: u64,
    stamps: *const u32,
    stamp: u32,
    queue: *mut u32,
    len: *mut u32,
) {
    // SAFETY: caller's contract; `len` is only touched atomically.
    let (stamps, len) = unsafe {
        (
            core::slice::from_raw_parts(stamps, n as usize),
            AtomicU32::from_ptr(len),
        )
    };
    let mut v = t.global();
    while v < n {
        if stamps[v as usize] == stamp {
            let i = len.fetch_add(1, Relaxed);
            // SAFETY: at most `n` vertices carry the stamp, so `i < n`.
            unsafe { queue.add(i as usize).write(v as u32) };
        }
        v += t.stride();
    }
}

/// Defines [`stamped_queue`] as a kernel named `$name` (parameters `n, stamps,
/// stamp, queue, len`).
#[macro_export]
macro_rules! stamped_queue_kernel {
    ($name:ident) => {
        $crate::__kernel!(
            $name => $crate::frontier::stamped_queue;
            n: u64,
            stamps: *const u32,
            stamp: u32,
            queue: *mut u32,
            len: *mut u32,
        );
    };
}
