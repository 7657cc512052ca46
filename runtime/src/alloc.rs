//! Allocations that fail with an error, not an abort.
//!
//! `vec![x; n]` aborts the process when the allocation fails. Input decides
//! many of our sizes (a stray vertex id of four billion in a text file, a
//! mistyped `kron:32:1000`), and the user should learn how much memory was
//! asked for, not see the process die. One helper for the graph builder and
//! the generators.

use std::alloc::{alloc_zeroed, Layout};

use bytemuck::Zeroable;

use crate::error::{Error, Result};

/// A vector of `len` all-zero values, from zeroed pages: large allocations come
/// straight from the OS, so nothing is written until the pass that fills them
/// (`vec![x; n]` would write every element first unless `x` is an integer zero).
/// An allocation the machine cannot hold is an error naming `what`, not an
/// abort: a stray vertex id of four billion in a text file asks for 32 GB of
/// row offsets, and the user should learn that, not see the process die.
pub(crate) fn zeroed_vec<T: Zeroable>(len: usize, what: &str) -> Result<Vec<T>> {
    if len == 0 || std::mem::size_of::<T>() == 0 {
        return Ok((0..len).map(|_| T::zeroed()).collect());
    }
    let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
    let too_big = || Error::host_memory(what, bytes);
    // Zeroed pages are only reserved until touched, so an allocation larger
    // than the machine may still succeed and be killed half-way; ask first
    // (large ones only: reading /proc/meminfo is not free).
    if bytes >= LARGE_ALLOCATION
        && crate::error::available_memory().is_some_and(|free| bytes > free)
    {
        return Err(too_big());
    }
    let layout = Layout::array::<T>(len).map_err(|_| too_big())?;
    // SAFETY: `layout` has non-zero size (checked above).
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(too_big());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `[T; len]`,
    // so capacity `len` matches it; all-zero bytes are a valid `T` (`Zeroable`).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// Allocations from this size on are checked against the memory available.
const LARGE_ALLOCATION: u64 = 1 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_or_an_error_naming_what() {
        assert_eq!(zeroed_vec::<[u32; 2]>(3, "x").unwrap(), vec![[0, 0]; 3]);
        assert!(zeroed_vec::<u64>(0, "nothing").unwrap().is_empty());
        let e = zeroed_vec::<u64>(usize::MAX / 16, "the row offsets of many vertices").unwrap_err();
        assert!(matches!(e, Error::HostOutOfMemory { .. }), "{e}");
        assert!(e.to_string().contains("row offsets"), "{e}");
    }
}
