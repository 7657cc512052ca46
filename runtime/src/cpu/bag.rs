//! Galois-style chunked bags: tasks move between workers in chunks, not one by one.
//!
//! * Each worker fills a private *push chunk* (8–64 tasks) and drains a private
//!   *pop chunk*; neither is visible to anyone else, so the common case touches no
//!   shared memory.
//! * A full push chunk is *published* to its worker's package queue (a lock-free
//!   MPMC FIFO, `crossbeam_deque::Injector`). Busy workers also publish partial
//!   chunks while someone is idle ([`super::termination::Termination::hungry`]).
//! * A worker whose pop chunk is empty takes the oldest chunk of its own package
//!   first, then its own push chunk, and only then steals from other packages —
//!   nearest package first — so work crosses a socket boundary only when its own
//!   package has run dry.
//!
//! Who may do what: only the owner touches its private chunks; anyone may push to
//! or take from any package queue. Every publish and take is reported to
//! [`Termination`] (see there for why that makes stopping safe).
//!
//! [`Termination`]: super::termination::Termination

use crossbeam_deque::{Injector, Steal};
use crossbeam_utils::CachePadded;

use super::termination::Termination;

/// Default tasks per chunk (Galois's default chunk size is 64; 8–64 all work).
pub const DEFAULT_CHUNK: usize = 64;
/// Smallest and largest chunk sizes accepted.
pub const CHUNK_RANGE: core::ops::RangeInclusive<usize> = 1..=4096;

/// A published chunk: a batch of tasks.
pub type Chunk<T> = Vec<T>;

/// One queue of published chunks per package.
pub struct PackageQueues<T> {
    queues: Vec<CachePadded<Injector<Chunk<T>>>>,
}

/// Where a taken chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Own,
    Stolen,
}

impl<T> PackageQueues<T> {
    pub fn new(packages: usize) -> Self {
        PackageQueues {
            queues: (0..packages.max(1))
                .map(|_| CachePadded::new(Injector::new()))
                .collect(),
        }
    }

    /// Publishes `chunk` (non-empty) to `package`'s queue.
    #[inline]
    pub fn publish(&self, package: usize, chunk: Chunk<T>, term: &Termination) {
        debug_assert!(!chunk.is_empty());
        term.will_publish();
        self.queues[package].push(chunk);
    }

    /// The oldest chunk of `package` itself.
    #[inline]
    pub fn take_own(&self, package: usize, term: &Termination) -> Option<Chunk<T>> {
        take_from(&self.queues[package], term)
    }

    /// A chunk from another package, nearest (by index distance) first.
    pub fn steal_remote(&self, package: usize, term: &Termination) -> Option<Chunk<T>> {
        let p = self.queues.len();
        (1..p).find_map(|d| take_from(&self.queues[(package + d) % p], term))
    }

    /// Own package first, then the others.
    pub fn take(&self, package: usize, term: &Termination) -> Option<(Chunk<T>, Origin)> {
        if let Some(c) = self.take_own(package, term) {
            return Some((c, Origin::Own));
        }
        self.steal_remote(package, term)
            .map(|c| (c, Origin::Stolen))
    }

    /// Whether every package queue looks empty (a hint: racy by nature).
    pub fn looks_empty(&self) -> bool {
        self.queues.iter().all(|q| q.is_empty())
    }
}

fn take_from<T>(q: &Injector<Chunk<T>>, term: &Termination) -> Option<Chunk<T>> {
    loop {
        match q.steal() {
            Steal::Success(c) => {
                term.took();
                return Some(c);
            }
            Steal::Empty => return None,
            Steal::Retry => core::hint::spin_loop(),
        }
    }
}

/// A worker's pop chunk: drained front to back (FIFO inside a chunk keeps an
/// unordered traversal close to level order, which cuts redundant work).
pub struct PopChunk<T> {
    items: Vec<T>,
    next: usize,
}

impl<T: Copy> PopChunk<T> {
    pub fn new() -> Self {
        PopChunk {
            items: Vec::new(),
            next: 0,
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let t = self.items.get(self.next).copied();
        self.next += t.is_some() as usize;
        t
    }

    /// `ahead(0)`: the task [`Self::pop`] returned last; `ahead(k)`: the one `k`
    /// places after it (`None` past the end). Lets a worker prefetch the tasks it
    /// is about to run.
    #[inline]
    pub fn ahead(&self, k: usize) -> Option<T> {
        (self.next + k)
            .checked_sub(1)
            .and_then(|i| self.items.get(i))
            .copied()
    }

    pub fn is_empty(&self) -> bool {
        self.next >= self.items.len()
    }

    /// Replaces the (drained) contents with `chunk`; returns the old buffer for reuse.
    pub fn refill(&mut self, chunk: Vec<T>) -> Vec<T> {
        debug_assert!(self.is_empty());
        self.next = 0;
        let mut old = std::mem::replace(&mut self.items, chunk);
        old.clear();
        old
    }
}

impl<T: Copy> Default for PopChunk<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A few spare chunk buffers per worker, so steady state allocates nothing.
pub struct Spare<T> {
    free: Vec<Vec<T>>,
    chunk: usize,
}

impl<T> Spare<T> {
    pub fn new(chunk: usize) -> Self {
        Spare {
            free: Vec::new(),
            chunk,
        }
    }

    #[inline]
    pub fn get(&mut self) -> Vec<T> {
        self.free
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.chunk))
    }

    #[inline]
    pub fn put(&mut self, mut v: Vec<T>) {
        if self.free.len() < 8 && v.capacity() >= self.chunk {
            v.clear();
            self.free.push(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_package_before_stealing() {
        let term = Termination::new(2);
        let q = PackageQueues::<u32>::new(3);
        q.publish(2, vec![7], &term);
        q.publish(0, vec![1, 2], &term);
        assert_eq!(q.take(0, &term), Some((vec![1, 2], Origin::Own)));
        assert_eq!(q.take(0, &term), Some((vec![7], Origin::Stolen)));
        assert!(q.take(1, &term).is_none());
        assert!(q.looks_empty());
        assert!(!term.work_queued());
    }

    #[test]
    fn pop_chunk_is_fifo() {
        let mut p = PopChunk::<u32>::new();
        assert!(p.pop().is_none());
        let spare = p.refill(vec![3, 4]);
        assert!(spare.is_empty());
        assert_eq!(p.pop(), Some(3));
        assert_eq!(p.pop(), Some(4));
        assert_eq!(p.pop(), None);
    }

    #[test]
    fn ahead_counts_from_the_last_pop() {
        let mut p = PopChunk::<u32>::new();
        assert_eq!(p.ahead(0), None, "nothing popped yet");
        p.refill(vec![3, 4, 5]);
        assert_eq!(p.ahead(0), None);
        assert_eq!(p.ahead(1), Some(3));
        assert_eq!(p.pop(), Some(3));
        assert_eq!(
            (p.ahead(0), p.ahead(2), p.ahead(3)),
            (Some(3), Some(5), None)
        );
    }
}
