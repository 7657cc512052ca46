//! obim: ordered-by-integer-metric soft-priority scheduling (Galois's OBIM), and
//! delta-stepping as its special case.
//!
//! Every task `(v, s)` goes to the bucket `priority(s) / Δ`. A bucket is a chunked
//! bag with one queue per package ([`super::bag::PackageQueues`]). The pieces:
//!
//! * **global log**: an append-only list of every bucket ever created, behind a
//!   mutex taken only to create a bucket or to read entries a worker has not seen;
//!   its length is published in an atomic so the common check is one load;
//! * **thread-local bucket map**: each worker's ordered map (index → bucket),
//!   brought up to date from the log lazily, so looking up or scanning buckets
//!   never takes a lock;
//! * **private push chunks per bucket**: tasks for the same bucket are batched
//!   before they are published, as in the plain bag;
//! * **current bucket**: a worker drains the lowest bucket it knows of; when it
//!   runs dry the worker scans upward for the next non-empty one, comparing with its
//!   own private chunks. Priorities are *soft*: workers do not wait for each other
//!   at bucket boundaries (no barrier), so a worker may run ahead into the next
//!   bucket while others finish the current one. When a worker pushes to a bucket
//!   below its current one, it goes back down at its next pop.
//!
//! A shared `hint` (the lowest bucket that may hold a published chunk: lowered on
//! every publish, raised by scans) lets a worker that is looking for work skip the
//! long prefix of exhausted buckets. A stale hint costs only priority order, never
//! correctness: idle workers fall back on a full scan, and termination rests on
//! [`super::termination`], which counts chunks, not buckets.
//!
//! Delta-stepping (Meyer & Sanders 2003) is obim with `priority = dist` and bucket
//! width Δ. When Δ is not given it is derived from the graph through the program
//! itself (see [`crate::shape::auto_delta`], and for the CPU's choice
//! [`super::operator::cpu_delta`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use super::bag::{Origin, PackageQueues, PopChunk, Spare};
use super::operator::{
    check_run, expand, init_cells, prefetch_relax, resolve_delta, seed_range, BucketOf, Counters,
    Setup, Task,
};
use super::termination::{IdleWait, Termination};
use super::{unload, AsyncOptions, CpuOptions, RunResult};
use crate::error::Result;
use crate::graph::Graph;
use crate::program::{AtomicState, Schedule, VertexProgram};

/// gapbs-style bulk delta-stepping over the same buckets (see [`super::delta`]).
pub use super::delta::run as run_bulk;

/// What [`Schedule::Obim`] runs ([`super::run`]): the buckets in lock-step
/// ([`run_bulk`]) where [`lockstep`] says so, soft priorities ([`run`])
/// otherwise.
pub fn run_ordered<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    if lockstep::<P>(g, source) {
        run_bulk::<P>(g, source, opts, aopts)
    } else {
        run::<P>(g, source, opts, aopts)
    }
}

/// Whether `P`'s buckets run in lock-step from `source`: for a single-source
/// program on a high-diameter graph ([`crate::shape::probe`]: a mesh, a road
/// network), on any number of workers. There a bucket is a thin ring of
/// vertices; bulk passes with gapbs's bin fusion keep each worker on its own
/// small bins, where soft priorities pay chunk traffic. Session 4 measured
/// soft priorities ahead from 4 workers up (`74e218a:docs/results/h100/cpu-issue20/session4/`)
/// and lock-step was kept to one or two; since then the bulk engine runs on the
/// kept pool with one barrier per pass and even splits, and it leads at every
/// count measured (H100 host, auto Δ, best of 7, three alternating rounds,
/// `74e218a:docs/results/h100/cpu-issue20/session13/call6.log`): 1000² grid, lock-step
/// / soft, 4 threads 39 / 44, 39 / 49, 33 / 41 ms; 8 threads 22 / 27, 22 / 25,
/// 21 / 25; 16 threads 17 / 19, 15 / 20, 17 / 20; 2000² grid, 8 threads
/// 76 / 98, 76 / 94, 79 / 102; 16 threads 53 / 67, 45 / 59, 50 / 69. (Earlier:
/// 2-core machine, 1 thread 180–187 vs 215–291 ms, 2 threads 122–141 vs
/// 124–192.) On low-diameter graphs soft obim keeps the edge (Kronecker 20,
/// auto Δ 8: 347 vs 457 ms at 1 thread), as it does for programs where every
/// vertex starts (no source to probe from).
pub fn lockstep<P: VertexProgram>(g: &Graph<P::Weight>, source: u32) -> bool {
    P::NEEDS_SOURCE && crate::shape::probe(g, source).high_diameter
}

/// One past the last bucket: a scan's end that includes bucket `u32::MAX`. A
/// scan that stopped before it never found the work filed there, and the run
/// waited for it for ever (SSSP with Δ 1 once a distance reached 2³² − 1).
const ALL_BUCKETS: u64 = 1 << 32;

/// Runs `P` under soft-priority obim from `source`.
pub fn run<P: VertexProgram>(
    g: &Graph<P::Weight>,
    source: u32,
    opts: &CpuOptions,
    aopts: &AsyncOptions,
) -> Result<RunResult<P::State>> {
    check_run::<P>(Schedule::Obim, g, source)?;
    let n = g.num_vertices();
    let delta = resolve_delta::<P>(g, source, aopts)?;
    let setup = Setup::resolve(opts, aopts)?;
    super::operator::prepare_edges::<P>(g);
    let t0 = Instant::now();
    let cells = init_cells::<P>(n, source);
    let term = Termination::new(setup.threads);
    let log = Log::<Task<P::State>>::new(setup.topology.num_packages());
    let threads = setup.threads;
    let counters = setup.spawn(|i, pkg| {
        let mut w = Worker::<P> {
            g,
            cells: &cells,
            log: &log,
            term: &term,
            pkg,
            chunk: setup.chunk,
            bucket_of: BucketOf::new(delta),
            local: BTreeMap::new(),
            seen: 0,
            slots: Vec::new(),
            last_slot: 0,
            spare: Spare::new(setup.chunk),
            cur: None,
            lowest_pushed: u32::MAX,
            pop: PopChunk::new(),
            c: Counters::default(),
        };
        if P::NEEDS_SOURCE {
            if i == 0 {
                let s = P::State::load(&cells[source as usize]);
                w.push(Task { v: source, s });
            }
        } else {
            for v in seed_range(n, i, threads) {
                w.push(Task {
                    v,
                    s: P::init(v, source),
                });
            }
        }
        w.run()
    });
    let mut report = setup.report(Schedule::Obim, &counters, t0);
    report.rounds = log.len.load(Ordering::Acquire) as u64;
    report.bucket_switches = counters.iter().map(|c| c.bucket_switches).sum();
    report.delta = Some(delta);
    let states = unload::<P::State>(cells);
    report.time = t0.elapsed();
    Ok(RunResult { states, report })
}

/// One priority bucket.
struct Bucket<T> {
    queues: PackageQueues<T>,
}

/// The global, append-only log of buckets.
struct Log<T> {
    entries: Mutex<Vec<(u32, Arc<Bucket<T>>)>>,
    len: AtomicUsize,
    /// Lowest bucket that may hold a published chunk.
    hint: AtomicU32,
    packages: usize,
}

impl<T> Log<T> {
    fn new(packages: usize) -> Self {
        Log {
            entries: Mutex::new(Vec::new()),
            len: AtomicUsize::new(0),
            hint: AtomicU32::new(u32::MAX),
            packages,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u32, Arc<Bucket<T>>)>> {
        // A poisoned lock means another worker panicked in user code; the log itself
        // is always consistent (entries are pushed whole).
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Copies entries the worker has not seen into its map.
    fn sync(&self, local: &mut BTreeMap<u32, Arc<Bucket<T>>>, seen: &mut usize) {
        if self.len.load(Ordering::Acquire) == *seen {
            return;
        }
        let entries = self.lock();
        for (idx, b) in &entries[*seen..] {
            local.insert(*idx, b.clone());
        }
        *seen = entries.len();
    }

    /// The bucket `idx`, created if nobody has yet.
    fn get(
        &self,
        idx: u32,
        local: &mut BTreeMap<u32, Arc<Bucket<T>>>,
        seen: &mut usize,
    ) -> Arc<Bucket<T>> {
        if let Some(b) = local.get(&idx) {
            return b.clone();
        }
        let mut entries = self.lock();
        for (i, b) in &entries[*seen..] {
            local.insert(*i, b.clone());
        }
        if let Some(b) = local.get(&idx) {
            *seen = entries.len();
            return b.clone();
        }
        let b = Arc::new(Bucket {
            queues: PackageQueues::new(self.packages),
        });
        entries.push((idx, b.clone()));
        self.len.store(entries.len(), Ordering::Release);
        *seen = entries.len();
        local.insert(idx, b.clone());
        b
    }

    #[inline]
    fn lower_hint(&self, idx: u32) {
        if idx < self.hint.load(Ordering::Relaxed) {
            self.hint.fetch_min(idx, Ordering::AcqRel);
        }
    }
}

/// A worker's private push chunk for one bucket.
struct Slot<T> {
    idx: u32,
    bucket: Arc<Bucket<T>>,
    items: Vec<T>,
}

/// A shared handle to one bucket of `P`'s tasks.
type BucketRef<P> = Arc<Bucket<Task<<P as VertexProgram>::State>>>;

struct Worker<'a, P: VertexProgram> {
    g: &'a Graph<P::Weight>,
    cells: &'a [<P::State as AtomicState>::Atomic],
    log: &'a Log<Task<P::State>>,
    term: &'a Termination,
    pkg: usize,
    chunk: usize,
    bucket_of: BucketOf,
    local: BTreeMap<u32, BucketRef<P>>,
    seen: usize,
    slots: Vec<Slot<Task<P::State>>>,
    last_slot: usize,
    spare: Spare<Task<P::State>>,
    cur: Option<(u32, BucketRef<P>)>,
    /// Lowest bucket pushed below `cur` since the last pop (u32::MAX: none).
    lowest_pushed: u32,
    pop: PopChunk<Task<P::State>>,
    c: Counters,
}

impl<P: VertexProgram> Worker<'_, P> {
    #[inline]
    fn bucket_of(&self, s: P::State) -> u32 {
        self.bucket_of.of(P::priority(s))
    }

    #[inline]
    fn push(&mut self, t: Task<P::State>) {
        let idx = self.bucket_of(t.s);
        if matches!(&self.cur, Some((c, _)) if idx < *c) {
            self.lowest_pushed = self.lowest_pushed.min(idx);
        }
        let k = match self.slots.get(self.last_slot) {
            Some(s) if s.idx == idx => self.last_slot,
            _ => match self.slots.iter().position(|s| s.idx == idx) {
                Some(k) => k,
                None => {
                    let bucket = self.log.get(idx, &mut self.local, &mut self.seen);
                    self.slots.push(Slot {
                        idx,
                        bucket,
                        items: self.spare.get(),
                    });
                    self.slots.len() - 1
                }
            },
        };
        self.last_slot = k;
        self.slots[k].items.push(t);
        if self.slots[k].items.len() >= self.chunk {
            self.publish(k);
        }
    }

    /// Publishes slot `k`'s chunk (keeps the slot, with an empty buffer).
    fn publish(&mut self, k: usize) {
        let s = &mut self.slots[k];
        if s.items.is_empty() {
            return;
        }
        let full = std::mem::replace(&mut s.items, self.spare.get());
        s.bucket.queues.publish(self.pkg, full, self.term);
        self.log.lower_hint(s.idx);
        self.c.chunks += 1;
    }

    /// Publishes every private chunk and forgets the slots.
    fn flush(&mut self) {
        for k in 0..self.slots.len() {
            self.publish(k);
        }
        for s in self.slots.drain(..) {
            self.spare.put(s.items);
        }
        self.last_slot = 0;
    }

    fn take_slot(&mut self, idx: u32) -> Option<Vec<Task<P::State>>> {
        let k = self
            .slots
            .iter()
            .position(|s| s.idx == idx && !s.items.is_empty())?;
        let s = self.slots.swap_remove(k);
        self.last_slot = 0;
        Some(s.items)
    }

    fn refill(&mut self, chunk: Vec<Task<P::State>>) {
        let old = self.pop.refill(chunk);
        self.spare.put(old);
    }

    fn switch_to(&mut self, idx: u32) {
        if !matches!(&self.cur, Some((c, _)) if *c == idx) {
            let b = self.log.get(idx, &mut self.local, &mut self.seen);
            self.cur = Some((idx, b));
            self.c.bucket_switches += 1;
        }
    }

    /// The next task, from the lowest bucket this worker knows has work.
    fn next(&mut self) -> Option<Task<P::State>> {
        if self.lowest_pushed != u32::MAX {
            let low = std::mem::replace(&mut self.lowest_pushed, u32::MAX);
            if matches!(&self.cur, Some((c, _)) if low < *c) {
                // Keep what is left of the pop chunk: publish it back to its bucket.
                self.return_pop_chunk();
                self.switch_to(low);
            }
        }
        if let Some(t) = self.pop.pop() {
            return Some(t);
        }
        if let Some((idx, b)) = self.cur.clone() {
            if let Some(ch) = b.queues.take_own(self.pkg, self.term) {
                self.refill(ch);
                return self.pop.pop();
            }
            if let Some(ch) = self.take_slot(idx) {
                self.refill(ch);
                return self.pop.pop();
            }
            if let Some(ch) = b.queues.steal_remote(self.pkg, self.term) {
                self.c.steals += 1;
                self.refill(ch);
                return self.pop.pop();
            }
        }
        self.find_next()
    }

    /// Puts the unprocessed rest of the pop chunk back as tasks of its bucket.
    fn return_pop_chunk(&mut self) {
        while let Some(t) = self.pop.pop() {
            self.push(t);
        }
    }

    /// The current bucket is dry: move to the lowest bucket with work, comparing
    /// published chunks (scanned upward from the hint or the current bucket) with
    /// this worker's own private ones.
    fn find_next(&mut self) -> Option<Task<P::State>> {
        let own_min = self
            .slots
            .iter()
            .filter(|s| !s.items.is_empty())
            .map(|s| s.idx)
            .min();
        self.log.sync(&mut self.local, &mut self.seen);
        let hint = self.log.hint.load(Ordering::Acquire);
        let start = match &self.cur {
            Some((c, _)) => (*c).min(hint),
            None => hint.min(own_min.unwrap_or(u32::MAX)),
        };
        let end = own_min.map_or(ALL_BUCKETS, u64::from);
        let found = self.scan(start, end);
        if let Some((idx, ch)) = found {
            if idx > hint {
                // Everything in [hint, idx) looked empty: let others skip it too.
                let _ =
                    self.log
                        .hint
                        .compare_exchange(hint, idx, Ordering::AcqRel, Ordering::Relaxed);
            }
            self.switch_to(idx);
            self.refill(ch);
            return self.pop.pop();
        }
        let idx = own_min?;
        let ch = self.take_slot(idx)?;
        self.switch_to(idx);
        self.refill(ch);
        self.pop.pop()
    }

    /// First published chunk in buckets `[start, end)` (`end` up to
    /// [`ALL_BUCKETS`], so that the last bucket, `u32::MAX`, can be scanned:
    /// every priority at or past `u32::MAX` lands there).
    fn scan(&mut self, start: u32, end: u64) -> Option<(u32, Vec<Task<P::State>>)> {
        if u64::from(start) >= end {
            return None;
        }
        let last = (end - 1) as u32;
        for (&idx, b) in self.local.range(start..=last) {
            if let Some((ch, origin)) = b.queues.take(self.pkg, self.term) {
                if origin == Origin::Stolen {
                    self.c.steals += 1;
                }
                return Some((idx, ch));
            }
        }
        None
    }

    fn run(mut self) -> Counters {
        let mut wait = IdleWait::new();
        // Kept apart from `self.c` so `expand` and `push` can borrow separately.
        let mut edge_counters = Counters::default();
        loop {
            while let Some(t) = self.next() {
                let (g, cells) = (self.g, self.cells);
                let pop = &self.pop;
                prefetch_relax::<P>(g, cells, |j| pop.ahead(j).map(|t| t.v), 0);
                expand::<P>(g, cells, t, &mut edge_counters, |nt| self.push(nt));
                if self.term.hungry() && self.slots.iter().any(|s| !s.items.is_empty()) {
                    self.flush();
                }
            }
            // Nothing private left (next() drained our slots): idle.
            self.flush();
            self.term.enter_idle();
            loop {
                if self.term.work_queued() {
                    self.term.leave_idle();
                    if self.idle_grab() {
                        break;
                    }
                    self.term.enter_idle();
                } else if self.term.quiescent() {
                    self.c += edge_counters;
                    return self.c;
                }
                wait.wait();
            }
            wait.reset();
        }
    }

    /// An idle worker's search: from the hint up, then (safety net for a stale
    /// hint) everything below it.
    fn idle_grab(&mut self) -> bool {
        self.log.sync(&mut self.local, &mut self.seen);
        let hint = self.log.hint.load(Ordering::Acquire);
        let found = self.scan(hint, ALL_BUCKETS).or_else(|| {
            let f = self.scan(0, u64::from(hint));
            if let Some((idx, _)) = &f {
                self.log.lower_hint(*idx);
            }
            f
        });
        match found {
            Some((idx, ch)) => {
                self.switch_to(idx);
                self.refill(ch);
                true
            }
            None => false,
        }
    }
}
