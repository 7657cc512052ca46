//! Array storage that is either owned or borrowed from a memory-mapped file.
//!
//! `.vgr` snapshots are loaded without copying: the CSR arrays point straight into
//! the mapping. Everything above this module sees a plain `&[T]`.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;

/// A read-only array of `T`, owned or mapped.
pub enum Buf<T: Pod> {
    /// Heap storage.
    Owned(Vec<T>),
    /// A slice of a memory-mapped file, kept alive by the `Arc`.
    Mapped {
        map: Arc<Mmap>,
        offset: usize,
        len: usize,
        _t: PhantomData<T>,
    },
}

impl<T: Pod> Buf<T> {
    /// Views `len` elements at byte `offset` of `map`.
    ///
    /// Returns `None` when the range is out of bounds or misaligned for `T`, so a
    /// corrupt header can never make us read outside the file.
    pub fn mapped(map: Arc<Mmap>, offset: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let end = offset.checked_add(bytes)?;
        if end > map.len() {
            return None;
        }
        let ptr = map.as_ptr().wrapping_add(offset);
        if (ptr as usize) % std::mem::align_of::<T>() != 0 {
            return None;
        }
        Some(Buf::Mapped {
            map,
            offset,
            len,
            _t: PhantomData,
        })
    }

    /// Whether the data lives in a file mapping (zero-copy load).
    pub fn is_mapped(&self) -> bool {
        matches!(self, Buf::Mapped { .. })
    }

    /// Copies the data into an owned vector (no copy if already owned).
    pub fn into_vec(self) -> Vec<T> {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { .. } => self.deref().to_vec(),
        }
    }
}

impl<T: Pod> Deref for Buf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped {
                map, offset, len, ..
            } => {
                let bytes = &map[*offset..*offset + *len * std::mem::size_of::<T>()];
                // Bounds and alignment were checked in `Buf::mapped`.
                bytemuck::cast_slice(bytes)
            }
        }
    }
}

impl<T: Pod> From<Vec<T>> for Buf<T> {
    fn from(v: Vec<T>) -> Self {
        Buf::Owned(v)
    }
}

impl<T: Pod> Clone for Buf<T> {
    fn clone(&self) -> Self {
        match self {
            Buf::Owned(v) => Buf::Owned(v.clone()),
            Buf::Mapped {
                map, offset, len, ..
            } => Buf::Mapped {
                map: map.clone(),
                offset: *offset,
                len: *len,
                _t: PhantomData,
            },
        }
    }
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for Buf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_mapped() { "mapped" } else { "owned" };
        write!(f, "Buf<{kind}, len={}>", self.len())
    }
}
