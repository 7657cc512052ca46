//! Termination detection for the asynchronous engines, correct under stealing.
//!
//! Work lives in two places: a worker's *private* chunks (only it can see them) and
//! *published* chunks in shared queues. The protocol:
//!
//! * a worker declares itself **idle** ([`Termination::enter_idle`]) only when its
//!   private chunks are empty — an idle worker holds no work;
//! * before it takes anything from a shared queue, an idle worker **leaves** idle
//!   ([`Termination::leave_idle`]), which also bumps an epoch — so an idle worker
//!   never holds work, not even for the instant between a steal and its bookkeeping;
//! * every published chunk is counted in `queued` *before* it is pushed, and
//!   uncounted only *after* it was taken, so `queued >= ` the chunks really queued;
//! * only non-idle workers publish.
//!
//! [`Termination::quiescent`] reads `(idle count, epoch)`, then `queued`, then
//! `(idle count, epoch)` again. If both reads show all workers idle with the same
//! epoch, no worker left idle in between, so during the whole interval no worker held
//! work, none could publish, and `queued == 0` proves the queues were empty at that
//! moment: the computation is finished and stays finished (an idle worker only
//! leaves idle when `queued > 0`, which can no longer happen). Every worker reaches
//! the same conclusion by itself, so no extra signal is needed.
//!
//! All operations are `SeqCst`: the argument above relies on one total order of
//! these few accesses, and they happen once per chunk or per idle spin, not per edge.

use core::sync::atomic::{AtomicI64, AtomicU64, Ordering::SeqCst};

use crossbeam_utils::CachePadded;

/// Low bits: idle workers; high bits: epoch (bumped whenever a worker leaves idle).
const COUNT_BITS: u32 = 20;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
const EPOCH_ONE: u64 = 1 << COUNT_BITS;

/// Shared termination state of one run.
pub struct Termination {
    state: CachePadded<AtomicU64>,
    queued: CachePadded<AtomicI64>,
    workers: u64,
}

impl Termination {
    /// For `workers` workers (at most 2^20), all busy.
    pub fn new(workers: usize) -> Self {
        Termination {
            state: CachePadded::new(AtomicU64::new(0)),
            queued: CachePadded::new(AtomicI64::new(0)),
            workers: (workers as u64).min(COUNT_MASK),
        }
    }

    /// The caller has no private work left.
    #[inline]
    pub fn enter_idle(&self) {
        self.state.fetch_add(1, SeqCst);
    }

    /// The caller is about to take work: count −1 and epoch +1 in one step.
    #[inline]
    pub fn leave_idle(&self) {
        // count ≥ 1 here, so adding EPOCH_ONE − 1 carries exactly into the epoch.
        self.state.fetch_add(EPOCH_ONE - 1, SeqCst);
    }

    /// Whether some worker is idle (a busy worker then publishes partial chunks).
    #[inline]
    pub fn hungry(&self) -> bool {
        self.state.load(core::sync::atomic::Ordering::Relaxed) & COUNT_MASK != 0
    }

    /// Call before pushing a chunk to a shared queue.
    #[inline]
    pub fn will_publish(&self) {
        self.queued.fetch_add(1, SeqCst);
    }

    /// Call after taking a chunk from a shared queue.
    #[inline]
    pub fn took(&self) {
        self.queued.fetch_sub(1, SeqCst);
    }

    /// Whether a chunk may be waiting in some shared queue.
    #[inline]
    pub fn work_queued(&self) -> bool {
        self.queued.load(SeqCst) > 0
    }

    /// Whether the run is over (see the module doc). Called by idle workers only.
    pub fn quiescent(&self) -> bool {
        let s1 = self.state.load(SeqCst);
        if s1 & COUNT_MASK != self.workers {
            return false;
        }
        if self.queued.load(SeqCst) > 0 {
            return false;
        }
        self.state.load(SeqCst) == s1
    }
}

/// Waiting politely in an idle loop: spin briefly, then yield, then sleep a little,
/// so oversubscribed runs (more workers than cores) still let busy workers run.
pub struct IdleWait {
    spins: u32,
}

impl IdleWait {
    pub fn new() -> Self {
        IdleWait { spins: 0 }
    }

    pub fn reset(&mut self) {
        self.spins = 0;
    }

    pub fn wait(&mut self) {
        self.spins += 1;
        if self.spins < 16 {
            core::hint::spin_loop();
        } else if self.spins < 64 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
}

impl Default for IdleWait {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiescence_needs_all_idle_and_nothing_queued() {
        let t = Termination::new(2);
        assert!(!t.quiescent());
        t.enter_idle();
        assert!(t.hungry());
        assert!(!t.quiescent());
        t.will_publish();
        t.enter_idle();
        assert!(!t.quiescent(), "a chunk is queued");
        t.leave_idle();
        t.took();
        t.enter_idle();
        assert!(t.quiescent());
    }
}
