//! Batches of launches replayed as CUDA graphs.
//!
//! Why: a device-planned batch of BFS levels is several stream calls a level
//! (the plan, the work list, the level's kernel, two timing events), each a few
//! µs of host time; a graph issues the batch with one call and starts each
//! kernel as the one before ends. Measured on one H200 (Graph500, 16 roots, on
//! and off in one process, `adc7892`, when a level was a clear and four
//! kernels): 1.0–1.09× at scales 18–26, within the spread but at scale 20; a
//! 1000×1000 grid's 1,817 levels 54.9 ms against 62.4. The host was not what
//! bounded those searches: ncu timed a level that had nothing to do at ~13 µs
//! of kernels (plan, work list, relax and bottom-up grids that returned at
//! once; `direction::run` now launches one kernel for relax or bottom-up), and
//! a search at scale 18 took 0.26 ms either way.
//!
//! How: the launcher records a batch's operations (`Op`) instead of issuing
//! them; `Graphs::replay` looks the batch up by its key (every kernel, grid,
//! argument and cleared range, in order) and launches the graph captured for
//! it, or — the second time a batch comes — captures one (on a stream of its
//! own: the legacy default stream cannot be captured). A key holds the
//! buffers' addresses, so a graph only replays where the same buffers are live
//! again: the same semantics by construction. Timing marks become event-record
//! nodes, pointed at the batch's events for each launch. Batches that never
//! repeat stop being captured after a few misses and are issued directly, as
//! is everything when `VERTEX_CUDA_GRAPHS=0` or after a capture fails.

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction};

use crate::error::{Error, Result};

/// Graphs kept per GPU (least recently used dropped first).
const CAPACITY: usize = 16;
/// Misses after which a GPU whose batches miss more often than they hit stops
/// capturing.
const MISSES_BEFORE_GIVING_UP: u64 = 8;

/// One recorded stream operation.
pub(crate) enum Op {
    /// Clear `bytes` bytes at `ptr`.
    Memset { ptr: u64, bytes: usize },
    /// A kernel launch; each parameter in a 64-bit slot (a 32-bit parameter is
    /// the low half, which is where the driver reads it on a little-endian host).
    Launch {
        f: CudaFunction,
        grid: u32,
        block: u32,
        smem: u32,
        params: Vec<u64>,
    },
    /// A timing event (owned by the caller, which reads it after the batch).
    Mark(sys::CUevent),
}

/// What identifies a batch: its operations without the timing events.
#[derive(PartialEq, Eq)]
enum Key {
    Memset(u64, usize),
    Launch(usize, u32, u32, u32, Vec<u64>),
    Mark,
}

impl Op {
    fn key(&self) -> Key {
        match self {
            Op::Memset { ptr, bytes } => Key::Memset(*ptr, *bytes),
            Op::Launch {
                f,
                grid,
                block,
                smem,
                params,
            } => Key::Launch(
                f.cu_function() as usize,
                *grid,
                *block,
                *smem,
                params.clone(),
            ),
            Op::Mark(_) => Key::Mark,
        }
    }

    /// Issues the operation on `stream`. While capturing, a mark records
    /// `node_event` (the graph's own event, which outlives the batch's) as an
    /// event-record node.
    ///
    /// # Safety
    /// A launch's parameters must be its kernel's, addresses of live buffers;
    /// a memset's range live device memory.
    unsafe fn issue(&self, stream: sys::CUstream, node_event: Option<sys::CUevent>) -> Result<()> {
        // SAFETY: the caller's contract; `ptrs` point into `params`, which
        // outlives the call.
        unsafe {
            match self {
                Op::Memset { ptr, bytes } => check(
                    sys::cuMemsetD8Async(*ptr, 0, *bytes, stream),
                    "cuMemsetD8Async",
                ),
                Op::Launch {
                    f,
                    grid,
                    block,
                    smem,
                    params,
                } => {
                    let mut ptrs: Vec<*mut std::ffi::c_void> =
                        params.iter().map(|p| p as *const u64 as *mut _).collect();
                    check(
                        sys::cuLaunchKernel(
                            f.cu_function(),
                            *grid,
                            1,
                            1,
                            *block,
                            1,
                            1,
                            *smem,
                            stream,
                            ptrs.as_mut_ptr(),
                            std::ptr::null_mut(),
                        ),
                        "cuLaunchKernel",
                    )
                }
                Op::Mark(_) if node_event.is_some() => check(
                    sys::cuEventRecordWithFlags(
                        node_event.unwrap_or(std::ptr::null_mut()),
                        stream,
                        sys::CUevent_record_flags::CU_EVENT_RECORD_EXTERNAL as u32,
                    ),
                    "cuEventRecordWithFlags",
                ),
                Op::Mark(e) => check(sys::cuEventRecord(*e, stream), "cuEventRecord"),
            }
        }
    }
}

fn check(r: sys::CUresult, call: &str) -> Result<()> {
    r.result().map_err(super::cuda_error::cuda_err(call))
}

/// A captured batch.
struct Entry {
    key: Vec<Key>,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    /// The event-record node of each mark, in the batch's order.
    marks: Vec<sys::CUgraphNode>,
    /// The events the nodes were captured with, which they point at between
    /// launches. They live as long as the graph: the driver refuses to point a
    /// node whose event was destroyed at another
    /// (`cuGraphExecEventRecordNodeSetEvent`: invalid value).
    events: Vec<cudarc::driver::CudaEvent>,
    /// Keeps the kernels' modules loaded while the graph may launch them.
    _functions: Vec<CudaFunction>,
}

/// How a GPU's recorded batches ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GraphStats {
    /// Batches launched as a graph captured before.
    pub replayed: u64,
    /// Batches captured (and launched).
    pub captured: u64,
    /// Batches issued call by call.
    pub direct: u64,
}

impl GraphStats {
    /// What ran since `before` (an earlier reading of the same GPU's stats).
    pub fn since(self, before: GraphStats) -> GraphStats {
        GraphStats {
            replayed: self.replayed.saturating_sub(before.replayed),
            captured: self.captured.saturating_sub(before.captured),
            direct: self.direct.saturating_sub(before.direct),
        }
    }
}

/// A GPU's recorder and graph cache.
pub(crate) struct Graphs {
    ctx: Arc<CudaContext>,
    recording: Option<Vec<Op>>,
    cache: Vec<Entry>,
    /// Keys of batches issued once and not captured (yet).
    seen: Vec<Vec<Key>>,
    /// The capture stream (null until the first capture).
    capture: sys::CUstream,
    misses: u64,
    /// Why batches are issued directly, if they are.
    off: Option<String>,
    pub stats: GraphStats,
}

// SAFETY: the raw handles (graphs, execs, nodes, the capture stream, the
// recorded events) belong to one context and are only used under the GPU's
// mutex; the driver API is thread-safe.
unsafe impl Send for Graphs {}

impl Graphs {
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Graphs {
        let off = (std::env::var("VERTEX_CUDA_GRAPHS").as_deref() == Ok("0"))
            .then(|| "VERTEX_CUDA_GRAPHS=0".to_string());
        Graphs {
            ctx,
            recording: None,
            cache: Vec::new(),
            seen: Vec::new(),
            capture: std::ptr::null_mut(),
            misses: 0,
            off,
            stats: GraphStats::default(),
        }
    }

    /// Starts recording (a batch already being recorded is an error).
    pub(crate) fn begin(&mut self) -> Result<()> {
        if self.recording.is_some() {
            return Err(internal("a batch began while another was being recorded"));
        }
        self.recording = Some(Vec::new());
        Ok(())
    }

    /// Forgets the batch being recorded, if any.
    pub(crate) fn abandon(&mut self) {
        self.recording = None;
    }

    /// The batch being recorded, if any.
    pub(crate) fn recording(&mut self) -> Option<&mut Vec<Op>> {
        self.recording.as_mut()
    }

    /// Whether operations were recorded and not yet issued (any other stream
    /// operation now would run before them).
    pub(crate) fn pending(&self) -> bool {
        self.recording.as_ref().is_some_and(|ops| !ops.is_empty())
    }

    /// Issues the recorded batch on `stream`: a graph when one was captured
    /// for it or can be, else call by call. Recording stops.
    pub(crate) fn replay(&mut self, stream: sys::CUstream) -> Result<()> {
        let Some(ops) = self.recording.take() else {
            return Ok(());
        };
        if ops.is_empty() {
            return Ok(());
        }
        self.ctx
            .bind_to_thread()
            .map_err(super::cuda_error::cuda_err("cuCtxSetCurrent"))?;
        if self.off.is_some() {
            return self.direct(&ops, stream);
        }
        let key: Vec<Key> = ops.iter().map(Op::key).collect();
        if let Some(i) = self.cache.iter().position(|e| e.key == key) {
            let e = self.cache.remove(i);
            let r = launch(&e, &ops, stream);
            return self.launched(e, r, &ops, stream, false);
        }
        // A batch seen for the first time is issued as it is: a capture costs
        // ~0.4 ms of host time (Kronecker 22), more than one search saves, so
        // only a batch that comes back is captured.
        if !self.seen.contains(&key) {
            self.seen.push(key);
            if self.seen.len() > CAPACITY {
                self.seen.remove(0);
            }
            return self.direct(&ops, stream);
        }
        self.misses += 1;
        if self.misses > MISSES_BEFORE_GIVING_UP && self.misses > self.stats.replayed {
            self.off = Some(format!(
                "{} batches did not repeat (replayed {})",
                self.misses, self.stats.replayed
            ));
            return self.direct(&ops, stream);
        }
        match self.capture(&ops, key) {
            Ok(e) => {
                let r = launch(&e, &ops, stream);
                self.launched(e, r, &ops, stream, true)
            }
            Err(e) => {
                self.off = Some(format!("capture failed: {e}"));
                self.direct(&ops, stream)
            }
        }
    }

    /// Turns replay on or off (off: every batch is issued call by call, for
    /// comparisons). Turning it on forgets why it was off.
    pub(crate) fn set_on(&mut self, on: bool) {
        self.off = (!on).then(|| "turned off".to_string());
        self.misses = 0;
    }

    /// Keeps `e` after [`launch`] gave `r`; issues the batch call by call if
    /// nothing was launched.
    fn launched(
        &mut self,
        e: Entry,
        r: Result<Result<()>>,
        ops: &[Op],
        stream: sys::CUstream,
        captured: bool,
    ) -> Result<()> {
        let result = match r {
            Ok(result) => result,
            Err(err) => {
                destroy(&e);
                self.off = Some(format!("replay failed: {err}"));
                return self.direct(ops, stream);
            }
        };
        // Launched, whatever came after: counted, and kept (not destroyed under
        // its launch).
        match captured {
            true => self.stats.captured += 1,
            false => self.stats.replayed += 1,
        }
        self.cache.push(e);
        match result {
            Ok(()) if self.cache.len() > CAPACITY => destroy(&self.cache.remove(0)),
            Ok(()) => {}
            // Never replayed again.
            Err(err) => self.off = Some(format!("replay failed: {err}")),
        }
        Ok(())
    }

    /// Why batches are issued call by call, if they are.
    pub(crate) fn off_reason(&self) -> Option<&str> {
        self.off.as_deref()
    }

    fn direct(&mut self, ops: &[Op], stream: sys::CUstream) -> Result<()> {
        self.stats.direct += 1;
        for op in ops {
            // SAFETY: the launcher recorded each operation with its contract met.
            unsafe { op.issue(stream, None)? };
        }
        Ok(())
    }

    /// Captures `ops` into a graph and instantiates it.
    fn capture(&mut self, ops: &[Op], key: Vec<Key>) -> Result<Entry> {
        if self.capture.is_null() {
            let mut s = std::ptr::null_mut();
            // SAFETY: writes one stream handle; the context is current.
            check(
                unsafe {
                    sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
                },
                "cuStreamCreate",
            )?;
            self.capture = s;
        }
        let cap = self.capture;
        // SAFETY: a stream of this context, not capturing; thread-local mode
        // leaves other threads' calls alone.
        check(
            unsafe {
                sys::cuStreamBeginCapture_v2(
                    cap,
                    sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                )
            },
            "cuStreamBeginCapture",
        )?;
        let marks = ops.iter().filter(|o| matches!(o, Op::Mark(_))).count();
        let events = (0..marks)
            .map(|_| {
                self.ctx
                    .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(super::cuda_error::cuda_err("cuEventCreate"))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut next = events.iter();
        // SAFETY: as `direct`; captured, not run.
        let issued = ops.iter().try_for_each(|op| {
            let ev = match op {
                Op::Mark(_) => next.next().map(|e| e.cu_event()),
                _ => None,
            };
            unsafe { op.issue(cap, ev) }
        });
        let mut graph = std::ptr::null_mut();
        // SAFETY: ends the capture begun above (also after a failed issue).
        let ended = check(
            unsafe { sys::cuStreamEndCapture(cap, &mut graph) },
            "cuStreamEndCapture",
        );
        if let Err(e) = issued.and(ended) {
            if !graph.is_null() {
                // SAFETY: the graph the capture made, used by nothing else.
                unsafe { sys::cuGraphDestroy(graph) };
            }
            return Err(e);
        }
        let mut exec = std::ptr::null_mut();
        // SAFETY: `graph` is a complete captured graph.
        if let Err(e) = check(
            unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) },
            "cuGraphInstantiate",
        ) {
            // SAFETY: as above.
            unsafe { sys::cuGraphDestroy(graph) };
            return Err(e);
        }
        let mut entry = Entry {
            key,
            graph,
            exec,
            marks: Vec::new(),
            events: Vec::new(),
            _functions: ops
                .iter()
                .filter_map(|o| match o {
                    Op::Launch { f, .. } => Some(f.clone()),
                    _ => None,
                })
                .collect(),
        };
        match mark_nodes(graph, &events) {
            Ok(m) => {
                entry.marks = m;
                entry.events = events;
            }
            Err(e) => {
                destroy(&entry);
                return Err(e);
            }
        }
        Ok(entry)
    }
}

/// Points `e`'s event-record nodes at the batch's marks, then launches it.
/// An error: nothing was launched. `Ok(Err)`: launched, but the nodes could
/// not be pointed back at the entry's events (the entry must go).
fn launch(e: &Entry, ops: &[Op], stream: sys::CUstream) -> Result<Result<()>> {
    let events = ops.iter().filter_map(|o| match o {
        Op::Mark(e) => Some(*e),
        _ => None,
    });
    for (&node, ev) in e.marks.iter().zip(events) {
        // SAFETY: `node` is an event-record node of `e.graph`, whose exec is
        // `e.exec`; `ev` a live event of this context.
        check(
            unsafe { sys::cuGraphExecEventRecordNodeSetEvent(e.exec, node, ev) },
            "cuGraphExecEventRecordNodeSetEvent",
        )?;
    }
    // SAFETY: the exec's kernels and buffers are the key's, which the recorded
    // batch has again (live buffers, loaded modules).
    check(
        unsafe { sys::cuGraphLaunch(e.exec, stream) },
        "cuGraphLaunch",
    )?;
    Ok(restore(e))
}

/// Points `e`'s nodes back at its own events.
fn restore(e: &Entry) -> Result<()> {
    // Point the nodes back at the graph's own events: the launch just made
    // keeps the batch's, but the driver refuses to repoint a node whose
    // current event was destroyed, as the batch's will be.
    for (&node, ev) in e.marks.iter().zip(&e.events) {
        // SAFETY: as above, with an event the entry owns.
        check(
            unsafe { sys::cuGraphExecEventRecordNodeSetEvent(e.exec, node, ev.cu_event()) },
            "cuGraphExecEventRecordNodeSetEvent",
        )?;
    }
    Ok(())
}

/// The event-record nodes of `graph`, one per event of `events`, in order.
fn mark_nodes(
    graph: sys::CUgraph,
    events: &[cudarc::driver::CudaEvent],
) -> Result<Vec<sys::CUgraphNode>> {
    let mut count = 0usize;
    // SAFETY: a count query on a live graph.
    check(
        unsafe { sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut count) },
        "cuGraphGetNodes",
    )?;
    let mut nodes = vec![std::ptr::null_mut(); count];
    // SAFETY: `nodes` holds `count` handles.
    check(
        unsafe { sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count) },
        "cuGraphGetNodes",
    )?;
    let mut by_event = Vec::new();
    for &node in &nodes[..count] {
        let mut ty = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        // SAFETY: a node of `graph`.
        check(
            unsafe { sys::cuGraphNodeGetType(node, &mut ty) },
            "cuGraphNodeGetType",
        )?;
        if ty == sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EVENT_RECORD {
            let mut ev = std::ptr::null_mut();
            // SAFETY: an event-record node of `graph`.
            check(
                unsafe { sys::cuGraphEventRecordNodeGetEvent(node, &mut ev) },
                "cuGraphEventRecordNodeGetEvent",
            )?;
            by_event.push((ev, node));
        }
    }
    events
        .iter()
        .map(|e| e.cu_event())
        .map(|e| {
            by_event
                .iter()
                .find(|(ev, _)| *ev == e)
                .map(|&(_, node)| node)
                .ok_or_else(|| internal("a timing mark has no node in the captured graph"))
        })
        .collect()
}

fn destroy(e: &Entry) {
    // SAFETY: the exec and graph belong to `e` alone; nothing uses them after.
    unsafe {
        sys::cuGraphExecDestroy(e.exec);
        sys::cuGraphDestroy(e.graph);
    }
}

fn internal(what: &str) -> Error {
    Error::Cuda {
        call: "CUDA graph recording".into(),
        msg: what.into(),
    }
}

impl Drop for Graphs {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        for e in &self.cache {
            destroy(e);
        }
        if !self.capture.is_null() {
            // SAFETY: the capture stream, created here and used by nothing else.
            unsafe { sys::cuStreamDestroy_v2(self.capture) };
        }
    }
}
