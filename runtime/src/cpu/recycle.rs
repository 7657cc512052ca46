//! Frontier storage (queue slots, bitmap words) kept from one run to the next.
//!
//! Why: a queue holds a slot per vertex (16 MB on Kronecker 22) and a BFS touches
//! few of them; the level engine's bitmaps are written whole before they are
//! read. Once glibc has freed a block that large it raises its mmap
//! threshold and serves the next one from memory it already holds, which
//! `calloc` must clear: a sequential `memset` on the calling thread inside the
//! timed region, every run after the first (measured 5–9 ms for a queue and two
//! bitmaps of 4 M vertices on the 2-core machine). A fresh mapping instead
//! (zero pages from the kernel) costs a page fault per 4 KiB touched, more than
//! the `memset` (1000² grid BFS: 32.6 → 34.0 ms). Reusing the previous run's
//! block costs neither. Its stale contents are harmless where [`Slots::scratch`]
//! is used: a queue reads only the slots appended since it was made, and the
//! level engine's bitmaps are cleared or overwritten before they are read
//! (gapbs's `new T[n]` is not cleared either).
//!
//! At most [`KEPT`] blocks of [`MIN_BYTES`] to [`MAX_BYTES`] are kept per
//! element type, process-wide.

use core::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Mutex, PoisonError};

/// Smaller blocks are allocated and freed as usual.
const MIN_BYTES: usize = 1 << 20;

/// Larger blocks are freed as usual: the pool must not hold gigabytes after a
/// run on a huge graph, and there a `memset` is small next to the traversal.
const MAX_BYTES: usize = 1 << 26;

/// Blocks kept between runs (a run holds up to three queues).
const KEPT: usize = 4;

/// Atomic words the pool keeps: each type has its own list of free blocks.
pub(crate) trait Word: Sized + Send + 'static {
    fn free() -> &'static Mutex<Vec<Box<[Self]>>>;
    /// `len` zeroed words.
    fn zeroed(len: usize) -> Box<[Self]>;
}

impl Word for AtomicU32 {
    fn free() -> &'static Mutex<Vec<Box<[Self]>>> {
        static FREE: Mutex<Vec<Box<[AtomicU32]>>> = Mutex::new(Vec::new());
        &FREE
    }
    fn zeroed(len: usize) -> Box<[Self]> {
        let v = core::mem::ManuallyDrop::new(vec![0u32; len].into_boxed_slice());
        let ptr = v.as_ptr().cast_mut();
        // SAFETY: `AtomicU32` has the same size, alignment and bit validity as
        // `u32` (documented in `core::sync::atomic`), so the buffer is a valid
        // `[AtomicU32]` of the same length, freed with the same layout;
        // `ManuallyDrop` keeps the `Box<[u32]>` from freeing it as well.
        unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(ptr.cast::<Self>(), len)) }
    }
}

impl Word for AtomicU64 {
    fn free() -> &'static Mutex<Vec<Box<[Self]>>> {
        static FREE: Mutex<Vec<Box<[AtomicU64]>>> = Mutex::new(Vec::new());
        &FREE
    }
    fn zeroed(len: usize) -> Box<[Self]> {
        let v = core::mem::ManuallyDrop::new(vec![0u64; len].into_boxed_slice());
        let ptr = v.as_ptr().cast_mut();
        // SAFETY: as for `AtomicU32`, with `u64`.
        unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(ptr.cast::<Self>(), len)) }
    }
}

/// `len` atomic words.
pub(crate) struct Slots<A: Word> {
    buf: Box<[A]>,
    len: usize,
}

impl<A: Word> Slots<A> {
    /// `len` words holding zero.
    pub(crate) fn zeroed(len: usize) -> Self {
        Slots {
            buf: A::zeroed(len),
            len,
        }
    }

    /// `len` words of unspecified contents: a kept block if one fits.
    pub(crate) fn scratch(len: usize) -> Self {
        let bytes = len * core::mem::size_of::<A>();
        if bytes >= MIN_BYTES {
            let mut free = A::free().lock().unwrap_or_else(PoisonError::into_inner);
            // The smallest kept block that fits and is not more than twice the
            // size (a small graph's run must not pin a large graph's block).
            let best = free
                .iter()
                .enumerate()
                .filter(|(_, b)| b.len() >= len && b.len() <= 2 * len)
                .min_by_key(|(_, b)| b.len())
                .map(|(i, _)| i);
            if let Some(i) = best {
                return Slots {
                    buf: free.swap_remove(i),
                    len,
                };
            }
        }
        Self::zeroed(len)
    }
}

impl<A: Word> core::ops::Deref for Slots<A> {
    type Target = [A];

    #[inline]
    fn deref(&self) -> &[A] {
        &self.buf[..self.len]
    }
}

impl<A: Word> Drop for Slots<A> {
    fn drop(&mut self) {
        let bytes = self.buf.len() * core::mem::size_of::<A>();
        if (MIN_BYTES..=MAX_BYTES).contains(&bytes) {
            let buf = core::mem::take(&mut self.buf);
            let mut free = A::free().lock().unwrap_or_else(PoisonError::into_inner);
            free.push(buf);
            if free.len() > KEPT {
                // Drop the oldest.
                free.remove(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::Ordering;

    #[test]
    fn blocks_come_back_with_the_asked_length() {
        let n = MIN_BYTES / 4 + 3;
        let a = Slots::<AtomicU32>::scratch(n);
        assert_eq!(a.len(), n);
        assert!(a.iter().all(|s| s.load(Ordering::Relaxed) == 0));
        a[n - 1].store(9, Ordering::Relaxed);
        drop(a);
        let b = Slots::<AtomicU32>::scratch(n - 1);
        assert_eq!(b.len(), n - 1);
        let small = Slots::<AtomicU64>::scratch(5);
        assert_eq!(small.len(), 5);
        let z = Slots::<AtomicU64>::zeroed(MIN_BYTES / 8);
        assert!(z.iter().all(|s| s.load(Ordering::Relaxed) == 0));
    }
}
