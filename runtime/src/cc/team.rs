//! A team of workers that runs a fixed sequence of steps over the vertices
//! `0..n` and stays awake between them, as an OpenMP parallel region runs
//! gapbs's loops.
//!
//! Afforest is seven short passes over the vertices and one serial step
//! (sampling). With one rayon call per pass, every pass begins by waking the
//! workers that went to sleep at the end of the last one (rayon's idle workers
//! sleep after a few dozen rounds of yielding) and pays one spawned job per
//! worker; on a million-vertex grid at 16 threads a pass is a few hundred
//! microseconds, of the order of those wake-ups. Here the helpers are started
//! once per run and wait for the next pass by spinning (then yielding).
//!
//! Work is handed out in chunks of consecutive vertices from a shared counter
//! per pass (OpenMP's `schedule(dynamic)`), so a worker that is slow (a hub's
//! rows) or preempted holds back at most one chunk. No worker is required: a
//! helper that starts late joins the pass in progress, and one that never
//! starts is not waited for (the caller alone can run every pass). A wait is
//! only ever for chunks that another thread has taken and is running, so
//! concurrent or nested teams cannot deadlock.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// One step of a team's run.
pub(super) enum Step<'a> {
    /// `f(start, end)` on every chunk of `0..n`, in parallel; the next step
    /// starts once every chunk is done.
    Par(&'a (dyn Fn(usize, usize) + Sync)),
    /// Run once, by one worker, after every earlier step is complete.
    Serial(&'a (dyn Fn() + Sync)),
}

/// The shared counters of one parallel step.
#[derive(Default)]
struct Pass {
    /// Next chunk to hand out.
    next: CachePadded<AtomicUsize>,
    /// Chunks finished.
    done: CachePadded<AtomicUsize>,
}

/// Runs `steps` in order over `0..n` in chunks of `chunk` vertices, on the
/// current rayon pool's workers; returns when each step ended, from `t0`.
pub(super) fn run(n: usize, chunk: usize, steps: &[Step<'_>], t0: Instant) -> Vec<Duration> {
    let chunks = n.div_ceil(chunk);
    let workers = rayon::current_num_threads().min(chunks);
    if workers <= 1 {
        // Inline, with no counters.
        return steps
            .iter()
            .map(|s| {
                match s {
                    Step::Par(f) => {
                        if n > 0 {
                            f(0, n)
                        }
                    }
                    Step::Serial(f) => f(),
                }
                t0.elapsed()
            })
            .collect();
    }
    let team = Team {
        n,
        chunk,
        chunks,
        steps,
        par: steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| matches!(s, Step::Par(_)).then_some(i))
            .collect(),
        passes: steps.iter().map(|_| Pass::default()).collect(),
        stage: CachePadded::new(AtomicUsize::new(0)),
        poisoned: AtomicBool::new(false),
        ends: steps.iter().map(|_| AtomicU64::new(0)).collect(),
        t0,
    };
    // Serial steps before the first parallel one.
    team.serial_from(0);
    rayon::scope(|sc| {
        for _ in 1..workers {
            sc.spawn(|_| team.work());
        }
        team.work();
        // False only after a panic, which the scope carries on.
        team.wait_for(team.par.len());
    });
    team.ends
        .iter()
        .map(|e| Duration::from_nanos(e.load(Ordering::Relaxed)))
        .collect()
}

struct Team<'s, 'a> {
    n: usize,
    chunk: usize,
    chunks: usize,
    steps: &'s [Step<'a>],
    /// Indices in `steps` of the parallel steps.
    par: Vec<usize>,
    passes: Vec<Pass>,
    /// Parallel steps complete (with the serial steps after them): the
    /// parallel step `stage` is open.
    stage: CachePadded<AtomicUsize>,
    /// A step panicked: nobody waits any more, and rayon's scope carries the
    /// panic to the caller.
    poisoned: AtomicBool,
    /// When each step ended, nanoseconds from `t0`.
    ends: Vec<AtomicU64>,
    t0: Instant,
}

impl Team<'_, '_> {
    /// One worker's part: every parallel step in turn, as many chunks of each
    /// as it gets.
    fn work(&self) {
        let _poison = Poison(&self.poisoned);
        for k in self.stage.load(Ordering::Acquire)..self.par.len() {
            if !self.wait_for(k) {
                return;
            }
            let i = self.par[k];
            let Step::Par(f) = &self.steps[i] else {
                unreachable!("par holds parallel steps")
            };
            let pass = &self.passes[i];
            loop {
                let c = pass.next.fetch_add(1, Ordering::Relaxed);
                if c >= self.chunks {
                    break;
                }
                let s = c * self.chunk;
                f(s, (s + self.chunk).min(self.n));
                // The last chunk's worker has seen every write of the step
                // (the increments form one release sequence); it runs the
                // serial steps that follow and opens the next parallel step.
                if pass.done.fetch_add(1, Ordering::AcqRel) + 1 == self.chunks {
                    self.end(i);
                    self.serial_from(i + 1);
                    self.stage.store(k + 1, Ordering::Release);
                }
            }
        }
    }

    /// Runs the serial steps from `i` to the next parallel one.
    fn serial_from(&self, i: usize) {
        for (j, s) in self.steps.iter().enumerate().skip(i) {
            match s {
                Step::Serial(f) => {
                    f();
                    self.end(j);
                }
                Step::Par(_) => break,
            }
        }
    }

    fn end(&self, i: usize) {
        self.ends[i].store(self.t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Waits until `k` parallel steps are complete: spinning first (a pass
    /// ends within a chunk's work of the last worker to take one), then
    /// yielding the CPU (a worker holding the last chunk may be preempted).
    /// False if a step panicked meanwhile.
    fn wait_for(&self, k: usize) -> bool {
        let mut round = 0u32;
        while self.stage.load(Ordering::Acquire) < k {
            if self.poisoned.load(Ordering::Relaxed) {
                return false;
            }
            if round < SPIN_ROUNDS {
                for _ in 0..1u32 << round.min(6) {
                    spin_loop();
                }
                round += 1;
            } else {
                std::thread::yield_now();
            }
        }
        true
    }
}

/// Marks the team poisoned when a worker unwinds out of a step.
struct Poison<'t>(&'t AtomicBool);

impl Drop for Poison<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Rounds of spinning (up to 64 pause instructions each) before a waiting
/// worker yields: of the order of 100 µs.
const SPIN_ROUNDS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;
    use std::sync::Mutex;

    /// Every chunk of every step once, steps in order, serial steps between.
    #[test]
    fn steps_run_in_order_over_every_chunk() {
        for (n, chunk, threads) in [(0, 4, 3), (1, 4, 3), (10, 4, 1), (1000, 7, 3), (64, 8, 8)] {
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            let log = Mutex::new(Vec::new());
            let first = |s: usize, e: usize| {
                // One worker runs the whole range at once.
                assert!(s < e && e <= n && (e - s <= chunk || (s, e, threads) == (0, n, 1)));
                for h in &hits[s..e] {
                    assert_eq!(h.fetch_add(1, Ordering::Relaxed), 0);
                }
            };
            let middle = || {
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                log.lock().unwrap().push("serial");
            };
            let second = |s: usize, e: usize| {
                for h in &hits[s..e] {
                    assert_eq!(h.fetch_add(1, Ordering::Relaxed), 1);
                }
            };
            let steps = [
                Step::Serial(&|| log.lock().unwrap().push("start")),
                Step::Par(&first),
                Step::Serial(&middle),
                Step::Serial(&middle),
                Step::Par(&second),
                Step::Serial(&|| log.lock().unwrap().push("end")),
            ];
            let ends = crate::cpu::pool(threads, false)
                .unwrap()
                .install(|| run(n, chunk, &steps, Instant::now()));
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 2));
            assert_eq!(
                *log.lock().unwrap(),
                ["start", "serial", "serial", "end"],
                "n {n} chunk {chunk} threads {threads}"
            );
            assert!(ends.windows(2).all(|w| w[0] <= w[1]), "{ends:?}");
        }
    }

    /// A step that panics on any worker reaches the caller (the others stop
    /// waiting for its chunk).
    #[test]
    fn a_panic_reaches_the_caller() {
        for bad in [0, 37, 99] {
            let r = std::panic::catch_unwind(|| {
                crate::cpu::pool(3, false).unwrap().install(|| {
                    let f = |s: usize, _: usize| assert_ne!(s, bad * 10, "bad chunk");
                    run(
                        1000,
                        10,
                        &[Step::Par(&f), Step::Par(&|_, _| {})],
                        Instant::now(),
                    )
                })
            });
            assert!(r.is_err(), "chunk {bad}");
        }
    }

    /// Two teams at once on a pool of two workers finish (no worker waits for
    /// a helper that is busy in the other team).
    #[test]
    fn concurrent_teams_finish() {
        let pool = crate::cpu::pool(2, false).unwrap();
        let runs = || {
            for _ in 0..50 {
                run(
                    10_000,
                    16,
                    &[Step::Par(&|_, _| {}), Step::Par(&|_, _| {})],
                    Instant::now(),
                );
            }
        };
        pool.install(|| rayon::join(runs, runs));
    }
}
