//! A spinning barrier for engines that keep their workers for a whole run and
//! meet between phases (bulk delta-stepping), as OpenMP's barrier does for gapbs.
//!
//! `std::sync::Barrier` parks on a futex: a few microseconds per wake-up, paid
//! twice per bucket pass, and runs have thousands of passes. Here waiters spin
//! briefly, then yield a few times, and only then sleep on a condition variable
//! (as libgomp's default spins and then waits on a futex). Sleeping matters on a
//! machine shared with other work: a waiter that only yields stays runnable and
//! takes CPU time from the worker everyone waits for (on a 2-core machine with
//! other builds running, gapbs under `OMP_WAIT_POLICY=passive` was many times
//! faster than with spinning waiters). The releasing worker takes the lock only
//! when someone sleeps.
//! The barrier can be *poisoned* (a worker panicked in user code): every waiter,
//! now and later, returns `false` at once instead of waiting forever for it.

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// How long a waiter spins before it starts yielding its CPU, when every party
/// has a CPU of its own: long enough to cover the imbalance of a short phase
/// (levels of a mesh or a road network run in microseconds, thousands a run), so
/// that a waiter rarely sleeps and pays a futex wake-up (50-80 µs measured on a
/// 2-core VM: BC on a 30×30 grid at 2 threads took 19 ms against gapbs's 1 ms,
/// whose libgomp spins some 300,000 times before it sleeps). With more parties
/// than CPUs a spinning waiter only delays the descheduled worker it waits for,
/// so it yields almost at once.
const SPIN_TIME: Duration = Duration::from_micros(300);
const SPINS_OVERSUBSCRIBED: u32 = 16;
/// Spins between two reads of the clock.
const SPINS_PER_CLOCK: u32 = 64;
/// How long a waiter yields, after spinning, before it sleeps.
const YIELD_TIME: Duration = Duration::from_millis(1);
/// Fewest `yield_now` calls before sleeping (the clock may be coarse).
const YIELDS: u32 = 64;

pub struct SpinBarrier {
    arrived: CachePadded<AtomicUsize>,
    generation: CachePadded<AtomicUsize>,
    poisoned: AtomicBool,
    parties: usize,
    /// Whether there are more parties than CPUs (see [`SPIN_TIME`]).
    oversubscribed: bool,
    /// Waiters asleep or about to sleep on `wake`.
    sleepers: CachePadded<AtomicUsize>,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    /// A barrier for `parties` workers (at least one).
    pub fn new(parties: usize) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        SpinBarrier {
            oversubscribed: parties > cpus,
            arrived: CachePadded::new(AtomicUsize::new(0)),
            generation: CachePadded::new(AtomicUsize::new(0)),
            poisoned: AtomicBool::new(false),
            parties: parties.max(1),
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            lock: Mutex::new(()),
            wake: Condvar::new(),
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
            self.generation.fetch_add(1, Ordering::SeqCst);
            self.wake_sleepers();
            return !self.poisoned.load(Ordering::Acquire);
        }
        // Spin (by count when oversubscribed, else by time), then yield, then sleep.
        let mut spins = 0u32;
        let mut yields = 0u32;
        let mut start: Option<Instant> = None;
        let mut spinning = true;
        while self.generation.load(Ordering::Acquire) == gen {
            if self.poisoned.load(Ordering::Acquire) {
                return false;
            }
            if spinning {
                core::hint::spin_loop();
                spins = spins.wrapping_add(1);
                spinning = if self.oversubscribed {
                    spins < SPINS_OVERSUBSCRIBED
                } else if spins % SPINS_PER_CLOCK == 0 {
                    start.get_or_insert_with(Instant::now).elapsed() < SPIN_TIME
                } else {
                    true
                };
            } else if yields < YIELDS
                || (!self.oversubscribed
                    && start.get_or_insert_with(Instant::now).elapsed() < SPIN_TIME + YIELD_TIME)
            {
                std::thread::yield_now();
                yields += 1;
            } else {
                self.sleep(gen);
            }
        }
        !self.poisoned.load(Ordering::Acquire)
    }

    /// Sleeps until the generation moves past `gen` or the barrier is poisoned.
    /// No lost wake-up: the sleeper counts itself before it checks the
    /// generation, the releaser moves the generation before it reads the count
    /// (both sequentially consistent), so either the releaser sees the sleeper and
    /// notifies under the lock, or the sleeper sees the new generation.
    fn sleep(&self, gen: usize) {
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while self.generation.load(Ordering::SeqCst) == gen && !self.poisoned.load(Ordering::SeqCst)
        {
            guard = self
                .wake
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
        drop(guard);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    /// Wakes the sleepers, if any (after the generation or the poison flag moved).
    fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.wake.notify_all();
        }
    }

    /// Releases every waiter for good (a worker is about to unwind).
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
        self.wake_sleepers();
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
