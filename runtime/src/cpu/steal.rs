//! Asynchronous engine: a chunked worklist with topology-aware work stealing.
//!
//! There are no rounds. Every worker repeatedly takes a task `(v, s)`, relaxes
//! `v`'s out-edges, and queues a task for every target whose state it changed
//! ([`super::operator::expand`]). Tasks travel in chunks ([`super::bag`]): a worker
//! drains its pop chunk, then takes the oldest published chunk of its own package,
//! then falls back on its own private push chunk, and only then steals from another
//! package. When nothing is found anywhere it goes idle, and the run ends when
//! [`super::termination`] proves that every worker is idle and nothing is queued.
//!
//! Only idempotent programs run here (a vertex may be relaxed several times, with
//! improving values, and duplicate arrivals must not change the result); the
//! fixpoint is the same as the sync engine's, the amount of work depends on the
//! order (reported as `edges_relaxed`, `stale_tasks`).

use std::time::Instant;

use super::bag::{Origin, PackageQueues, PopChunk, Spare};
use super::operator::{check_run, expand, init_cells, seed_range, Counters, Setup, Task};
use super::termination::{IdleWait, Termination};
use super::{unload, AsyncOptions, CpuOptions, RunResult};
use crate::error::Result;
use crate::graph::Graph;
use crate::program::{AtomicState, Schedule, VertexProgram};

/// Runs `P` asynchronously from `source` (ignored by programs whose every vertex
/// starts active).
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    check_run::<P>(Schedule::Async, g, source)?;
    let n = g.num_vertices();
    let setup = Setup::resolve(opts, aopts)?;
    super::operator::prepare_edges::<P>(g);
    let t0 = Instant::now();
    let cells = init_cells::<P>(n, source);
    let term = Termination::new(setup.threads);
    let queues = PackageQueues::<Task<P::State>>::new(setup.topology.num_packages());
    let threads = setup.threads;
    let counters = setup.spawn(|i, pkg| {
        let mut w = Worker::<P> {
            g,
            cells: &cells,
            out: Outbox {
                push: Vec::with_capacity(setup.chunk),
                spare: Spare::new(setup.chunk),
                chunk: setup.chunk,
                pkg,
                queues: &queues,
                term: &term,
                chunks: 0,
            },
            pop: PopChunk::new(),
            c: Counters::default(),
        };
        if P::NEEDS_SOURCE {
            if i == 0 {
                let s = P::State::load(&cells[source as usize]);
                w.out.push(Task { v: source, s });
            }
        } else {
            for v in seed_range(n, i, threads) {
                w.out.push(Task {
                    v,
                    s: P::init(v, source),
                });
            }
        }
        w.run()
    });
    let mut report = setup.report(Schedule::Async, &counters, t0);
    let states = unload::<P::State>(cells);
    report.time = t0.elapsed();
    Ok(RunResult { states, report })
}

/// The pushing side of a worker: its private push chunk and where full ones go.
struct Outbox<'a, T> {
    push: Vec<T>,
    spare: Spare<T>,
    chunk: usize,
    pkg: usize,
    queues: &'a PackageQueues<T>,
    term: &'a Termination,
    chunks: u64,
}

impl<T: Copy> Outbox<'_, T> {
    #[inline]
    fn push(&mut self, t: T) {
        self.push.push(t);
        if self.push.len() >= self.chunk {
            self.publish();
        }
    }

    fn publish(&mut self) {
        if !self.push.is_empty() {
            let full = std::mem::replace(&mut self.push, self.spare.get());
            self.queues.publish(self.pkg, full, self.term);
            self.chunks += 1;
        }
    }
}

struct Worker<'a, P: VertexProgram> {
    g: &'a Graph<P::Weight>,
    cells: &'a [<P::State as AtomicState>::Atomic],
    out: Outbox<'a, Task<P::State>>,
    pop: PopChunk<Task<P::State>>,
    c: Counters,
}

impl<P: VertexProgram> Worker<'_, P> {
    /// The next task from private or shared chunks, without going idle.
    fn next(&mut self) -> Option<Task<P::State>> {
        if let Some(t) = self.pop.pop() {
            return Some(t);
        }
        let o = &mut self.out;
        let chunk = if let Some(ch) = o.queues.take_own(o.pkg, o.term) {
            ch
        } else if !o.push.is_empty() {
            std::mem::replace(&mut o.push, o.spare.get())
        } else {
            let ch = o.queues.steal_remote(o.pkg, o.term)?;
            self.c.steals += 1;
            ch
        };
        o.spare.put(self.pop.refill(chunk));
        self.pop.pop()
    }

    fn run(mut self) -> Counters {
        let mut wait = IdleWait::new();
        loop {
            while let Some(t) = self.next() {
                let out = &mut self.out;
                expand::<P>(self.g, self.cells, t, &mut self.c, |nt| out.push(nt));
                // Someone is starving: share what we have, even a partial chunk.
                if !self.out.push.is_empty() && self.out.term.hungry() {
                    self.out.publish();
                }
            }
            // Private chunks are empty: idle until work shows up or the run is over.
            let term = self.out.term;
            term.enter_idle();
            loop {
                if term.work_queued() {
                    term.leave_idle();
                    if let Some((ch, origin)) = self.out.queues.take(self.out.pkg, term) {
                        if origin == Origin::Stolen {
                            self.c.steals += 1;
                        }
                        self.out.spare.put(self.pop.refill(ch));
                        break;
                    }
                    term.enter_idle();
                } else if term.quiescent() {
                    self.c.chunks = self.out.chunks;
                    return self.c;
                }
                wait.wait();
            }
            wait.reset();
        }
    }
}
