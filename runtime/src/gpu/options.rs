//! The settings shared by every level-kernel strategy: which kernel
//! ([`BfsKernel`]), whether the direction loop may pull ([`Pull`]), the default
//! chunk size and batch of levels per host wait, and their validation. A leaf
//! module, so that the BFS, program and gather front ends and the strategies can
//! all name them without importing each other.

use crate::error::{Error, Result};
pub use kernels_rs::direction::Heuristic;

/// Which level kernel to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BfsKernel {
    /// Seed 000 Alg. 2: one thread per vertex, full scan every level.
    Naive,
    /// Seed 000 Alg. 3 + 4: one thread per chunk of `max_edge_count` edges.
    Balanced,
    /// Direction-optimizing: top-down over a work list of the frontier's edge
    /// chunks (`max_edge_count` edges each), bottom-up when the frontier is large
    /// (see [`super::direction`]).
    Direction,
    /// One persistent cooperative launch runs every level on the device, with
    /// compacted frontier queues and device-side near-far buckets (see
    /// [`super::resident`]): the strategy for high-diameter graphs. Programs only.
    Resident,
    /// One cooperative launch of asynchronous tiles: each block owns a range of
    /// vertices in shared memory and relaxes with no barrier; tiles hand border
    /// vertices over through mailboxes (see [`super::tiles`]). For high-diameter
    /// graphs small enough for the multiprocessors' shared memory. Programs only.
    Tiles,
    /// Picked from the program and the graph ([`super::auto`]).
    Auto,
}

impl BfsKernel {
    /// The name the command line takes.
    pub fn name(self) -> &'static str {
        match self {
            BfsKernel::Naive => "naive",
            BfsKernel::Balanced => "balanced",
            BfsKernel::Direction => "direction",
            BfsKernel::Resident => "resident",
            BfsKernel::Tiles => "tiles",
            BfsKernel::Auto => "auto",
        }
    }
}

impl std::str::FromStr for BfsKernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "naive" => Ok(BfsKernel::Naive),
            "balanced" => Ok(BfsKernel::Balanced),
            "direction" => Ok(BfsKernel::Direction),
            "resident" => Ok(BfsKernel::Resident),
            "tiles" => Ok(BfsKernel::Tiles),
            "auto" => Ok(BfsKernel::Auto),
            _ => Err(Error::InvalidArgument(format!(
                "unknown GPU kernel `{s}` (expected auto, naive, balanced, direction, resident or tiles)"
            ))),
        }
    }
}

/// Default edges per thread (balanced) or per work item (direction): the best of
/// the sweep on an H100 (74e218a:docs/results/h100/gpu-bfs.json: 50.4 vs 42.8 GTEPS at
/// seed 000's 16, Kronecker 20). One value for the hand kernels, the programs'
/// kernels and the CLI.
pub const DEFAULT_MAX_EDGE_COUNT: u64 = 64;

/// Edges per thread of the programs' balanced kernel (SSSP, widest, CC, …): the
/// best of the sweep on an H100 (`74e218a:docs/results/h100/mec-programs/`: SSSP Kronecker
/// 22 7.3 ms at 8 against 23.1 ms at 64, Kronecker 20 2.1 against 6.3, a uniform
/// random graph of 4 M vertices 22.8 against 57.5; widest alike). A warp's 32
/// threads then read 32 × 8 consecutive edges, which the L1 cache holds; at 64
/// each thread's lines are evicted before it comes back to them.
pub const BALANCED_MAX_EDGE_COUNT: u64 = 8;

/// Edges per top-down work item when none is asked for. A level that reaches
/// the hubs top-down is latency-bound: each work item is one lane walking its
/// edges one after another (a dependent state and bitmap read per edge), so
/// smaller items mean more lanes at once. One H200, Graph500, 16 roots, every
/// tree valid, harmonic-mean GTEPS at 32 / 16 / 8 / 4 edges an item: scale 18
/// 14.1 / 14.9 / 17.0 / 16.6, 20 49.3 / 54.6 / 55.8 / 60.4, 22 134.7 / 146.7 /
/// 151.7 / 151.2, 24 254.9 / 255.2 / 266.2 / 260.1, 26 316.1 / 324.3 / 327.8 /
/// 326.0. The work list then takes `8 (n + m / 8)` bytes.
pub const DIRECTION_CHUNK: u64 = 8;

/// A program run's edges per item when none is given: [`BALANCED_MAX_EDGE_COUNT`]
/// for the balanced (and naive) level kernels, the direction kernel's
/// [`DIRECTION_CHUNK`] for its work items, [`DEFAULT_MAX_EDGE_COUNT`]
/// for the resident and tiles kernels.
pub fn default_max_edge_count(kernel: BfsKernel) -> u64 {
    match kernel {
        BfsKernel::Balanced | BfsKernel::Naive | BfsKernel::Auto => BALANCED_MAX_EDGE_COUNT,
        BfsKernel::Direction => DIRECTION_CHUNK,
        BfsKernel::Resident | BfsKernel::Tiles => DEFAULT_MAX_EDGE_COUNT,
    }
}

/// Levels launched between two host waits. The balanced/naive kernels read a
/// ring of level flags once per batch; the direction kernel plans each level's
/// direction on the device (`kernels_rs::direction::plan_level`), so the host
/// neither reads counters nor decides between levels. Levels launched past the
/// end return at once (a few microseconds each). 1 restores one host round trip
/// per level (the host then chooses the direction).
pub const DEFAULT_LEVELS_PER_SYNC: u32 = 8;

/// The launch settings every level-kernel run shares (hand-written BFS and
/// `#[vertex_program]` kernels alike).
pub(crate) fn validate_launch(
    kernel: BfsKernel,
    max_edge_count: u64,
    block_size: u32,
    levels_per_sync: u32,
) -> Result<()> {
    if kernel != BfsKernel::Naive && max_edge_count == 0 {
        return Err(Error::InvalidArgument(
            "--max-edge-count must be at least 1".into(),
        ));
    }
    if block_size == 0 || block_size > 1024 {
        return Err(Error::InvalidArgument(format!(
            "block size {block_size} is not in 1..=1024"
        )));
    }
    if levels_per_sync == 0 || levels_per_sync > 64 {
        return Err(Error::InvalidArgument(format!(
            "levels per sync {levels_per_sync} is not in 1..=64"
        )));
    }
    Ok(())
}

/// How the loop may move between directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pull {
    /// Beamer's heuristic (when the program and graph allow bottom-up).
    Auto,
    /// Top-down only (to measure what bottom-up brings).
    Never,
}

/// When a level loop hands the rest of a traversal to the resident kernel: after
/// `levels` levels in a row of at most `frontier` vertices each, with the next
/// frontier no larger and not empty. Why: a low-diameter core can hide a long
/// tail (a path behind a hub, the whiskers of a web graph) that a bounded probe
/// from the source cannot see; each of its levels costs the level kernels a few
/// launches and a scan (35–40 µs on the H100) against a few microseconds a round
/// in the resident kernel. Waiting for a run of small levels keeps the handover
/// (a bitmap read back, buffers, one cooperative launch) off the short tails of
/// Kronecker and social graphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Handover {
    pub levels: usize,
    pub frontier: u64,
}

/// What `--kernel auto` hands over at: 16 levels in a row (two device-planned
/// batches) of at most 2,048 vertices, the frontiers the resident kernel runs on
/// one block (`resident::DEFAULT_SMALL_MAX`, checked there).
pub const TAIL_HANDOVER: Handover = Handover {
    levels: 16,
    frontier: 2048,
};

/// How options that record a [`Heuristic`] write it (kernels-rs is `no_std`
/// without serde): `{"alpha": …, "beta": …}`.
#[derive(serde::Serialize)]
#[serde(remote = "Heuristic")]
pub(crate) struct HeuristicJson {
    alpha: u64,
    beta: u64,
}

/// [`HeuristicJson`] of an optional heuristic (`null` when unset).
pub(crate) fn optional_heuristic_json<S: serde::Serializer>(
    h: &Option<Heuristic>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct Set(#[serde(with = "HeuristicJson")] Heuristic);
    serde::Serialize::serialize(&h.map(Set), s)
}

/// What a front end's optional `--alpha`/`--beta` ask for: `None` when neither
/// is given (the run keeps its default), else [`Heuristic::DEFAULT`] with those
/// replaced.
pub fn heuristic_from(alpha: Option<u64>, beta: Option<u64>) -> Option<Heuristic> {
    (alpha.is_some() || beta.is_some()).then(|| Heuristic {
        alpha: alpha.unwrap_or(Heuristic::DEFAULT.alpha),
        beta: beta.unwrap_or(Heuristic::DEFAULT.beta),
    })
}

/// Checks a run's α and β: zero would divide by zero (bottom-up at once, or
/// never back), so the switch points start at 1.
pub fn validate_heuristic(h: Heuristic) -> Result<()> {
    if h.alpha == 0 || h.beta == 0 {
        return Err(Error::InvalidArgument(format!(
            "direction heuristic α = {}, β = {}: both must be at least 1",
            h.alpha, h.beta
        )));
    }
    Ok(())
}
