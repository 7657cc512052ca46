//! A spinning barrier for engines that keep their workers for a whole run and
//! meet between phases (bulk delta-stepping), as OpenMP's barrier does for gapbs.
//!
//! `std::sync::Barrier` parks on a futex: a few microseconds per wake-up, paid
//! twice per bucket pass, and runs have thousands of passes. Here waiters spin
//! briefly and then yield, so an oversubscribed machine still makes progress.
//! The barrier can be *poisoned* (a worker panicked in user code): every waiter,
//! now and later, returns `false` at once instead of waiting forever for it.

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

/// Spins before each waiter starts yielding its CPU, when every party has a CPU
/// of its own. With more parties than CPUs a spinning waiter only delays the
/// descheduled worker it waits for, so it yields almost at once.
const SPINS: u32 = 2000;
const SPINS_OVERSUBSCRIBED: u32 = 16;

pub struct SpinBarrier {
    arrived: CachePadded<AtomicUsize>,
    generation: CachePadded<AtomicUsize>,
    poisoned: AtomicBool,
    parties: usize,
    spins: u32,
}

impl SpinBarrier {
    /// A barrier for `parties` workers (at least one).
    pub fn new(parties: usize) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        SpinBarrier {
            spins: if parties > cpus {
                SPINS_OVERSUBSCRIBED
            } else {
                SPINS
            },
            arrived: CachePadded::new(AtomicUsize::new(0)),
            generation: CachePadded::new(AtomicUsize::new(0)),
            poisoned: AtomicBool::new(false),
            parties: parties.max(1),
        }
    }

    /// Waits until all parties arrived. Everything a worker wrote before `wait`
    /// is visible to every worker after it. `false`: the barrier was poisoned and
    /// the caller must stop.
    pub fn wait(&self) -> bool {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            // Reset before releasing: a released worker may arrive at the next
            // barrier at once, and it reads `arrived` after seeing the new generation.
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
            return !self.poisoned.load(Ordering::Acquire);
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == gen {
            if self.poisoned.load(Ordering::Acquire) {
                return false;
            }
            if spins < self.spins {
                core::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        !self.poisoned.load(Ordering::Acquire)
    }

    /// Releases every waiter for good (a worker is about to unwind).
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_ordered() {
        let b = SpinBarrier::new(3);
        let counter = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for phase in 0..100 {
                        counter.fetch_add(1, Ordering::Relaxed);
                        assert!(b.wait());
                        assert_eq!(counter.load(Ordering::Relaxed), 3 * (phase + 1));
                        assert!(b.wait());
                    }
                });
            }
        });
    }

    #[test]
    fn poison_releases_waiters() {
        let b = SpinBarrier::new(2);
        std::thread::scope(|s| {
            let h = s.spawn(|| b.wait());
            std::thread::sleep(std::time::Duration::from_millis(20));
            b.poison();
            assert!(!h.join().unwrap());
        });
        assert!(!b.wait());
    }
}
