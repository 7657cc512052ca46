//! Asynchronous gather/apply (Galois's data-driven, residual-push style): no
//! rounds. A vertex that receives a value is queued; a worker that pops it swaps
//! its accumulator back to the identity, applies what had arrived, and, if the
//! program says the vertex is `active`, scatters `emit(new)` to its out-neighbours
//! at once — so later vertices see the newest values within the same sweep.
//!
//! Only programs declared `schedule(.., async, obim)` run here: their `apply`
//! accumulates deltas (see [`GatherProgram::ASYNC`]), so applying whatever has
//! arrived, as often as it happens, reaches the same fixed point as rounds do.
//!
//! * **Ordering.** Under [`AsyncOrder::Fifo`] all work shares one chunked queue;
//!   under [`AsyncOrder::Obim`] a vertex goes to bucket `priority(ctx, acc)` (its
//!   accumulator just after the value arrived) and workers drain the lowest
//!   non-empty bucket first — soft priorities, as in `cpu::obim`: no barrier
//!   between buckets. Within a bucket the oldest chunk runs first (a worker
//!   prefers a published chunk to its own newer one of the same bucket).
//! * **One writer per vertex.** A vertex's status moves idle → queued → running →
//!   idle; a value arriving while it runs marks it *dirty*, and the runner queues
//!   it again when it finishes. A vertex is thus in at most one queue entry and
//!   applied by one worker at a time, so the state may be any plain-data struct.
//! * **Termination** is [`super::termination`]'s protocol: published chunks are
//!   counted, a worker is idle only with no private work.
//!
//! Operators see `ctx.round == 0` and `ctx.global` = the reduction's identity: an
//! asynchronous run has neither rounds nor dense refreshes.

use std::sync::atomic::Ordering::{AcqRel, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::time::Instant;

use crossbeam_deque::{Injector, Steal};
use kernels_rs::StateWord;

use super::termination::{IdleWait, Termination};
use crate::error::{Error, Result};
use crate::gather::{
    degree, no_weight, weights_of, Ctx, GatherOptions, GatherProgram, GatherReport, GatherRun,
    StopReason, FRONTIER_ROUNDS_FLOOR, FRONTIER_ROUNDS_PER_VERTEX,
};
use crate::graph::{Graph, Weight};

/// How queued vertices are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AsyncOrder {
    /// One shared chunked queue.
    Fifo,
    /// Buckets by the program's `priority(ctx, acc)`, lowest first.
    Obim,
}

/// Priority buckets; larger priorities share the last.
const BUCKETS: usize = 64;
/// Vertices per published chunk.
const CHUNK: usize = 64;
/// Processed chunks' buffers a worker keeps for reuse.
const SPARE_CHUNKS: usize = 16;
/// Applies a worker counts before adding them to the shared count that the
/// work bound is checked against.
const SPENT_BATCH: u64 = 4096;

const IDLE: u8 = 0;
const QUEUED: u8 = 1;
const RUNNING: u8 = 2;
const DIRTY: u8 = 3;

/// Runs `P` asynchronously on `g` (FIFO or obim order).
pub fn run<P: GatherProgram, W: Weight>(
    g: &Graph<W>,
    opts: &GatherOptions,
    order: AsyncOrder,
) -> Result<GatherRun<P::State>> {
    if !P::ASYNC {
        return Err(Error::InvalidArgument(format!(
            "program `{}` runs in synchronous rounds only (declare `schedule(sync, async, obim)` on a frontier-driven program whose `apply` accumulates deltas)",
            P::NAME
        )));
    }
    let n = g.num_vertices();
    // Validates the options the same way the round engines do.
    opts.rounds_only("asynchronous runs have no rounds")?;
    let resolved = opts.resolve::<P>(n)?;
    // A program that set no round limit gets the work of the round engines'
    // safety bound (that many rounds of every vertex): a wrong `active` rule
    // must not keep the workers busy for ever.
    let budget = resolved
        .safety_bound
        .then(|| u64::from(resolved.max_rounds).saturating_mul(n as u64));
    let out_w = weights_of::<P, W>(g.csr())?;
    let csc = g.csc();
    let (run, threads) = super::in_pool(opts.threads, || {
        let start = Instant::now();
        let threads = rayon::current_num_threads();
        let ctx0 = |v: usize| Ctx {
            vertex: v as u32,
            out_degree: degree(g.csr().offsets(), v),
            in_degree: degree(csc.offsets(), v),
            num_vertices: n as u32,
            num_edges: g.csr().targets().len() as u64,
            round: 0,
            source: opts.source.unwrap_or(u32::MAX),
            global: P::REDUCE.identity(),
        };
        let mut acc_values = vec![P::identity(); n];
        let shared = Shared::<P, _> {
            offsets: g.csr().offsets(),
            targets: g.csr().targets(),
            weights: out_w,
            ctx0: &ctx0,
            state: (0..n)
                .map(|v| std::cell::UnsafeCell::new(P::init(ctx0(v))))
                .collect(),
            acc: P::Acc::atomics_from_mut(&mut acc_values),
            status: (0..n).map(|_| AtomicU8::new(IDLE)).collect(),
            buckets: (0..BUCKETS).map(|_| Injector::new()).collect(),
            hint: AtomicUsize::new(0),
            term: Termination::new(threads),
            order,
            budget: budget.unwrap_or(u64::MAX),
            spent: AtomicU64::new(0),
            over_budget: AtomicBool::new(false),
            solo: threads == 1,
        };
        let seeded = crate::cpu::barrier::SpinBarrier::new(threads);
        let counts: Vec<(u64, u64)> = rayon::broadcast(|b| {
            let mut w = Worker {
                s: &shared,
                local: (0..BUCKETS).map(|_| Vec::new()).collect(),
                spare: Vec::new(),
                lowest: BUCKETS,
                edges: 0,
                applies: 0,
                unspent: 0,
            };
            // Seed: the initially active vertices scatter their initial state.
            let (lo, hi) = (b.index() * n / threads, (b.index() + 1) * n / threads);
            let seed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                for v in lo..hi {
                    let ctx = ctx0(v);
                    let s = P::init(ctx);
                    if P::active(ctx, s, s) {
                        w.scatter(v, P::emit(ctx, s));
                    }
                }
            }));
            // A panic in the program must not leave the others at the barrier.
            if let Err(p) = seed {
                seeded.poison();
                std::panic::resume_unwind(p);
            }
            // Every initial message is in before the first apply, so no vertex
            // scatters a residual that its in-neighbours' first messages would
            // have cancelled.
            if !seeded.wait() {
                return (0, 0);
            }
            w.run();
            (w.edges, w.applies)
        });
        if shared.over_budget.load(Relaxed) {
            return Err(Error::RoundBound(format!(
                "program `{}` still had queued vertices after {} applies, the bound for \
                 asynchronous runs of programs that set no round limit ({} rounds' worth: \
                 max({} × vertices, {}) times the {} vertices): its `active` rule may never \
                 let the work run out. Run it in rounds (`--schedule sync`) to see how its \
                 frontier evolves, or set `pub const MAX_ROUNDS: u32 = ..;` in the program",
                P::NAME,
                shared.spent.load(Relaxed),
                resolved.max_rounds,
                FRONTIER_ROUNDS_PER_VERTEX,
                FRONTIER_ROUNDS_FLOOR,
                n
            )));
        }
        let mut report = GatherReport::empty();
        report.edges_gathered = counts.iter().map(|c| c.0).sum();
        report.applies = counts.iter().map(|c| c.1).sum();
        report.stop = StopReason::Quiescent;
        report.reduced = P::REDUCE.identity();
        let states: Vec<P::State> = shared
            .state
            .into_iter()
            .map(std::cell::UnsafeCell::into_inner)
            .collect();
        report.time = start.elapsed();
        Ok((states, report))
    })?;
    let (states, mut report) = run?;
    report.threads = threads;
    Ok(GatherRun { states, report })
}

struct Shared<'a, P: GatherProgram, C> {
    offsets: &'a [u64],
    targets: &'a [u32],
    weights: Option<&'a [P::Weight]>,
    ctx0: &'a C,
    state: Vec<std::cell::UnsafeCell<P::State>>,
    acc: &'a [<P::Acc as StateWord>::Atomic],
    status: Vec<AtomicU8>,
    buckets: Vec<Injector<Vec<u32>>>,
    /// Lowest bucket that may hold a published chunk (a stale value costs order,
    /// never work: idle workers rescan from 0).
    hint: AtomicUsize,
    term: Termination,
    order: AsyncOrder,
    /// Applies allowed in all (`u64::MAX`: no bound), those done so far
    /// (counted per chunk), and whether the bound was reached: every worker
    /// then stops.
    budget: u64,
    spent: AtomicU64,
    over_budget: AtomicBool,
    /// One worker: accumulators and statuses have no other writer, so plain
    /// loads and stores replace the read-modify-writes (a locked instruction
    /// per edge was most of a scatter's cost).
    solo: bool,
}

// SAFETY: `state[v]` is read and written only by the worker that moved
// `status[v]` to RUNNING, while it stays RUNNING or DIRTY (see the module doc);
// the status transitions order successive runners' accesses.
unsafe impl<P: GatherProgram, C: Sync> Sync for Shared<'_, P, C> {}

struct Worker<'s, 'a, P: GatherProgram, C> {
    s: &'s Shared<'a, P, C>,
    /// Private chunks, one per bucket.
    local: Vec<Vec<u32>>,
    /// Buffers of processed chunks, reused by [`Self::fresh`].
    spare: Vec<Vec<u32>>,
    /// Lowest non-empty private bucket (`BUCKETS`: none).
    lowest: usize,
    edges: u64,
    applies: u64,
    /// Applies not yet added to `Shared::spent`.
    unspent: u64,
}

impl<P: GatherProgram, C: Fn(usize) -> Ctx + Sync> Worker<'_, '_, P, C> {
    fn run(&mut self) {
        let mut wait = IdleWait::new();
        loop {
            let chunk = match self.next_chunk() {
                Some(c) => c,
                None => {
                    // No private work: idle until a chunk is published or all stop.
                    self.s.term.enter_idle();
                    loop {
                        if self.s.term.work_queued() {
                            self.s.term.leave_idle();
                            if let Some(c) = self.steal(0, BUCKETS) {
                                wait.reset();
                                break c;
                            }
                            self.s.term.enter_idle();
                        }
                        if self.s.term.quiescent() || self.s.over_budget.load(Relaxed) {
                            return;
                        }
                        wait.wait();
                    }
                }
            };
            for &v in &chunk {
                self.process(v as usize);
            }
            let done = chunk.len() as u64;
            self.recycle(chunk);
            // Counted in batches: one shared line updated per chunk cost
            // pr-delta a few per cent at two threads.
            self.unspent += done;
            if self.unspent >= SPENT_BATCH {
                let before = self.s.spent.fetch_add(self.unspent, Relaxed);
                if before.saturating_add(self.unspent) > self.s.budget {
                    self.s.over_budget.store(true, Relaxed);
                }
                self.unspent = 0;
                if self.s.over_budget.load(Relaxed) {
                    return;
                }
            }
            if self.s.term.hungry() {
                self.publish_all();
            }
        }
    }

    /// The lowest private chunk, unless a published one is as low: published
    /// chunks are older, and taking the oldest first keeps a bucket in FIFO
    /// order. (Taking the newest, private chunk first made the order nearly
    /// LIFO, a depth-first walk; residual-push PageRank then did four times the
    /// edges of a FIFO.)
    fn next_chunk(&mut self) -> Option<Vec<u32>> {
        let hint = self.s.hint.load(Relaxed);
        if hint <= self.lowest {
            // Only buckets up to the private one: a published chunk of a later
            // bucket taken here would run before more urgent private work.
            if let Some(c) = self.steal(hint, (self.lowest + 1).min(BUCKETS)) {
                return Some(c);
            }
        }
        if self.lowest < BUCKETS {
            let b = self.lowest;
            let fresh = self.fresh();
            let c = std::mem::replace(&mut self.local[b], fresh);
            self.lowest = (b + 1..BUCKETS)
                .find(|&i| !self.local[i].is_empty())
                .unwrap_or(BUCKETS);
            return Some(c);
        }
        self.steal(hint, BUCKETS)
    }

    /// Takes a published chunk from the lowest non-empty bucket in `from..to`.
    fn steal(&self, from: usize, to: usize) -> Option<Vec<u32>> {
        for b in from..to {
            loop {
                match self.s.buckets[b].steal() {
                    Steal::Success(c) => {
                        self.s.term.took();
                        if b > from {
                            // Buckets `from..b` were seen empty; raise the hint unless
                            // someone moved it meanwhile.
                            let _ = self.s.hint.compare_exchange(from, b, Relaxed, Relaxed);
                        }
                        return Some(c);
                    }
                    Steal::Retry => continue,
                    Steal::Empty => break,
                }
            }
        }
        None
    }

    /// An empty chunk at full size, a processed one's buffer when there is one:
    /// grown from empty, every chunk was reallocated five times on the way to
    /// `CHUNK` entries and freed after its run (a tenth of a 1-thread run).
    fn fresh(&mut self) -> Vec<u32> {
        self.spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(CHUNK))
    }

    /// Keeps a processed chunk's buffer for [`Self::fresh`].
    fn recycle(&mut self, mut c: Vec<u32>) {
        if self.spare.len() < SPARE_CHUNKS {
            c.clear();
            self.spare.push(c);
        }
    }

    fn publish(&mut self, b: usize) {
        let fresh = self.fresh();
        let c = std::mem::replace(&mut self.local[b], fresh);
        self.s.term.will_publish();
        self.s.buckets[b].push(c);
        self.s.hint.fetch_min(b, Relaxed);
    }

    fn publish_all(&mut self) {
        for b in self.lowest..BUCKETS {
            if !self.local[b].is_empty() {
                self.publish(b);
            }
        }
        self.lowest = BUCKETS;
    }

    fn enqueue(&mut self, v: usize) {
        let b = match self.s.order {
            AsyncOrder::Fifo => 0,
            AsyncOrder::Obim => {
                let a = P::Acc::load(&self.s.acc[v]);
                (P::priority((self.s.ctx0)(v), a) as usize).min(BUCKETS - 1)
            }
        };
        self.local[b].push(v as u32);
        self.lowest = self.lowest.min(b);
        if self.local[b].len() >= CHUNK {
            self.publish(b);
            if self.lowest == b {
                self.lowest = (b..BUCKETS)
                    .find(|&i| !self.local[i].is_empty())
                    .unwrap_or(BUCKETS);
            }
        }
    }

    /// Combines `msg` into every out-neighbour's accumulator and queues them.
    fn scatter(&mut self, u: usize, msg: P::Msg) {
        let (lo, hi) = (self.s.offsets[u] as usize, self.s.offsets[u + 1] as usize);
        self.edges += (hi - lo) as u64;
        for e in lo..hi {
            let t = self.s.targets[e] as usize;
            let w = match self.s.weights {
                Some(w) => w[e],
                None => no_weight::<P>(),
            };
            let a = &self.s.acc[t];
            if self.s.solo {
                P::Acc::store(a, P::combine(P::Acc::load(a), P::gather(msg, w)));
            } else {
                P::combine_atomic(a, P::gather(msg, w));
            }
            self.receive(t);
        }
    }

    /// `t` got a value: queue it unless it is queued already; if it is running,
    /// mark it so its runner queues it again.
    fn receive(&mut self, t: usize) {
        let st = &self.s.status[t];
        if self.s.solo {
            match st.load(Relaxed) {
                IDLE => {
                    st.store(QUEUED, Relaxed);
                    self.enqueue(t);
                }
                RUNNING => st.store(DIRTY, Relaxed),
                _ => {}
            }
            return;
        }
        loop {
            match st.load(Relaxed) {
                IDLE => {
                    // Acquire: the last runner's state write (released when it went
                    // idle) travels with the queue entry to the next runner.
                    if st.compare_exchange(IDLE, QUEUED, AcqRel, Relaxed).is_ok() {
                        self.enqueue(t);
                        return;
                    }
                }
                RUNNING => {
                    if st
                        .compare_exchange(RUNNING, DIRTY, Relaxed, Relaxed)
                        .is_ok()
                    {
                        return;
                    }
                }
                _ => return,
            }
        }
    }

    fn process(&mut self, v: usize) {
        let st = &self.s.status[v];
        st.store(RUNNING, Relaxed);
        let acc = if self.s.solo {
            let a = &self.s.acc[v];
            let acc = P::Acc::load(a);
            P::Acc::store(a, P::identity());
            acc
        } else {
            take::<P>(&self.s.acc[v])
        };
        let ctx = (self.s.ctx0)(v);
        // SAFETY: this worker moved `v` to RUNNING; no other worker reads or
        // writes `state[v]` until it leaves RUNNING/DIRTY (module doc).
        let old = unsafe { *self.s.state[v].get() };
        let new = P::apply(ctx, old, acc);
        // SAFETY: as above.
        unsafe { *self.s.state[v].get() = new };
        self.applies += 1;
        if P::active(ctx, old, new) {
            self.scatter(v, P::emit(ctx, new));
        }
        let idle = if self.s.solo {
            let dirty = st.load(Relaxed) == DIRTY;
            if !dirty {
                st.store(IDLE, Relaxed);
            }
            !dirty
        } else {
            st.compare_exchange(RUNNING, IDLE, Release, Relaxed).is_ok()
        };
        if !idle {
            // Values arrived while it ran: it goes back in a queue.
            st.store(QUEUED, Relaxed);
            self.enqueue(v);
        }
    }
}

/// Swaps the identity into `a`, returning what was there.
fn take<P: GatherProgram>(a: &<P::Acc as StateWord>::Atomic) -> P::Acc {
    let id = P::identity();
    let mut cur = P::Acc::load(a);
    loop {
        match P::Acc::compare_exchange(a, cur, id) {
            Ok(v) => return v,
            Err(now) => cur = now,
        }
    }
}
