//! Frontiers: a sparse queue of vertex ids or a dense bitmap, and the conversions.
//!
//! Push rounds read a queue and write a bitmap (setting a bit is how duplicates are
//! dropped without a lock); pull rounds read a bitmap. `fetch_or` on the word tells
//! the one thread that set a bit first, so exactly one thread appends the vertex.

use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::recycle::Slots;

/// A concurrent bit set over vertex ids.
pub struct Bitmap {
    words: Slots<AtomicU64>,
    len: usize,
}

impl Bitmap {
    pub fn new(len: usize) -> Self {
        Bitmap {
            words: Slots::zeroed(len.div_ceil(64)),
            len,
        }
    }

    /// A bitmap of unspecified contents, for callers that clear or overwrite
    /// every word before reading it (see [`super::recycle`]).
    pub(crate) fn scratch(len: usize) -> Self {
        Bitmap {
            words: Slots::scratch(len.div_ceil(64)),
            len,
        }
    }

    /// Sets bit `i`; returns true if this call set it (it was clear).
    #[inline]
    pub fn insert(&self, i: u32) -> bool {
        let bit = 1u64 << (i % 64);
        let w = &self.words[i as usize / 64];
        if w.load(Ordering::Relaxed) & bit != 0 {
            return false;
        }
        w.fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// Clears bit `i`.
    #[inline]
    pub fn remove(&self, i: u32) {
        self.words[i as usize / 64].fetch_and(!(1u64 << (i % 64)), Ordering::Relaxed);
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words[i as usize / 64].load(Ordering::Relaxed) & (1u64 << (i % 64)) != 0
    }

    /// Clears every bit (parallel).
    pub fn clear(&self) {
        self.words
            .par_iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words
            .par_iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
            .sum()
    }

    /// The set bits as a sorted queue.
    pub fn to_queue(&self) -> Vec<u32> {
        self.words
            .par_iter()
            .enumerate()
            .flat_map_iter(|(wi, w)| {
                let mut bits = w.load(Ordering::Relaxed);
                let len = self.len;
                core::iter::from_fn(move || {
                    while bits != 0 {
                        let b = bits.trailing_zeros();
                        bits &= bits - 1;
                        let i = wi * 64 + b as usize;
                        if i < len {
                            return Some(i as u32);
                        }
                    }
                    None
                })
            })
            .collect()
    }

    /// Number of 64-bit words.
    #[inline]
    pub fn num_words(&self) -> usize {
        self.words.len()
    }

    /// Number of ids the set ranges over.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set ranges over no ids at all.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Overwrites word `w` (bits `64w..64w+64`); a pull round builds each word in a
    /// register and stores it once instead of one atomic `or` per bit.
    #[inline]
    pub fn store_word(&self, w: usize, bits: u64) {
        self.words[w].store(bits, Ordering::Relaxed);
    }

    /// The words themselves, for loops that test many bits (one slice, no
    /// per-bit indirection through `self`).
    #[inline]
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Word `w`.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Ordering::Relaxed)
    }

    /// Word `w`, cleared.
    #[inline]
    pub fn take_word(&self, w: usize) -> u64 {
        let v = self.words[w].load(Ordering::Relaxed);
        if v != 0 {
            self.words[w].store(0, Ordering::Relaxed);
        }
        v
    }

    /// Sets every id in `queue`.
    pub fn fill_from(&self, queue: &[u32]) {
        queue.par_iter().for_each(|&v| {
            self.insert(v);
        });
    }
}

/// A shared append-only queue of vertex ids with room for every vertex once
/// (gapbs's sliding queue): workers collect ids in a small local buffer and append
/// it with one `fetch_add` on the tail, so a round allocates nothing.
pub struct Queue {
    slots: Slots<AtomicU32>,
    tail: AtomicUsize,
}

/// Ids a worker buffers before appending them to a [`Queue`].
pub const LOCAL_BUFFER: usize = 256;

impl Queue {
    /// A queue with room for `cap` ids (its storage may be an earlier queue's:
    /// only appended slots are ever read).
    pub fn new(cap: usize) -> Self {
        Queue {
            slots: Slots::scratch(cap),
            tail: AtomicUsize::new(0),
        }
    }

    /// Appends as many of `ids` as fit and returns how many that was; the rest is
    /// the caller's to keep (for queues that hold fewer slots than may arrive).
    #[inline]
    pub fn append_upto(&self, ids: &[u32]) -> usize {
        let start = self.tail.fetch_add(ids.len(), Ordering::Relaxed);
        let fit = ids.len().min(self.slots.len().saturating_sub(start));
        for (slot, &v) in self.slots[start.min(self.slots.len())..][..fit]
            .iter()
            .zip(ids)
        {
            slot.store(v, Ordering::Relaxed);
        }
        fit
    }

    /// Slot `i` (below [`Self::len`]).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        self.slots[i].load(Ordering::Relaxed)
    }

    /// Appends `ids` and returns the slot of the first. Callers append each
    /// vertex at most once per round, so the capacity (one slot per vertex) is
    /// never exceeded.
    #[inline]
    pub fn append(&self, ids: &[u32]) -> usize {
        let start = self.tail.fetch_add(ids.len(), Ordering::Relaxed);
        for (slot, &v) in self.slots[start..start + ids.len()].iter().zip(ids) {
            slot.store(v, Ordering::Relaxed);
        }
        start
    }

    /// The ids appended so far (call between rounds, when nobody appends).
    #[inline]
    pub fn ids(&self) -> &[AtomicU32] {
        &self.slots[..self.len()]
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.tail.load(Ordering::Acquire).min(self.slots.len())
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every id.
    pub fn reset(&self) {
        self.tail.store(0, Ordering::Release);
    }

    /// Appends the set bits of `bits`: ascending within each block of words, so a
    /// frontier built this way is walked in (nearly) memory order.
    pub fn fill_from_bitmap(&self, bits: &Bitmap) {
        self.fill(bits, false);
    }

    /// As [`Self::fill_from_bitmap`], clearing `bits` on the way (one pass).
    pub fn take_from_bitmap(&self, bits: &Bitmap) {
        self.fill(bits, true);
    }

    fn fill(&self, bits: &Bitmap, take: bool) {
        const BLOCK: usize = 256;
        let nw = bits.num_words();
        (0..nw.div_ceil(BLOCK)).into_par_iter().for_each(|blk| {
            let mut buf = LocalIds::default();
            for wi in blk * BLOCK..((blk + 1) * BLOCK).min(nw) {
                let mut w = if take {
                    bits.take_word(wi)
                } else {
                    bits.word(wi)
                };
                while w != 0 {
                    let i = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    if i < bits.len() {
                        buf.push(self, i as u32);
                    }
                }
            }
            buf.flush(self);
        });
    }
}

/// A worker's local buffer of ids bound for a [`Queue`].
pub struct LocalIds {
    buf: [u32; LOCAL_BUFFER],
    len: usize,
}

impl Default for LocalIds {
    fn default() -> Self {
        LocalIds {
            buf: [0; LOCAL_BUFFER],
            len: 0,
        }
    }
}

impl LocalIds {
    #[inline]
    pub fn push(&mut self, q: &Queue, v: u32) {
        if self.len == LOCAL_BUFFER {
            q.append(&self.buf);
            self.len = 0;
        }
        self.buf[self.len] = v;
        self.len += 1;
    }

    /// Appends what is buffered.
    #[inline]
    pub fn flush(&mut self, q: &Queue) {
        q.append(&self.buf[..self.len]);
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_from_bitmap() {
        let b = Bitmap::new(200);
        for i in [3, 64, 65, 199] {
            b.insert(i);
        }
        let q = Queue::new(200);
        q.fill_from_bitmap(&b);
        let mut ids: Vec<u32> = q.ids().iter().map(|a| a.load(Ordering::Relaxed)).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![3, 64, 65, 199]);
        q.reset();
        assert!(q.is_empty());
    }

    #[test]
    fn set_once_and_convert() {
        let b = Bitmap::new(130);
        assert!(b.insert(129));
        assert!(!b.insert(129));
        assert!(b.insert(0));
        assert!(b.insert(64));
        assert_eq!(b.count(), 3);
        assert_eq!(b.to_queue(), vec![0, 64, 129]);
        b.remove(64);
        assert!(!b.contains(64) && b.contains(0) && b.contains(129));
        b.clear();
        assert_eq!(b.count(), 0);
    }
}
