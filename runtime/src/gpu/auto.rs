//! `--kernel auto`: the GPU strategy picked from the program and the graph, so no
//! user lands on the slow path by default.
//!
//! What decides (measured on the H100, `74e218a:docs/results/h100/`):
//! * a **high-diameter** graph (the bounded BFS [`probe`] walks its 24
//!   levels and the frontier is still going: grids, roads, meshes; or its
//!   ball's growth says a whole search takes [`HIGH_DIAMETER_LEVELS`] levels,
//!   [`HIGH_DIAMETER_LEVELS_PRIORITY`] with a priority: mid-sized meshes) that fits
//!   the multiprocessors' shared memory: the **tiles** kernel. Each block
//!   relaxes its own range of vertices in shared memory, level by level (or
//!   bucket by bucket, Δ from [`tiles_delta`]), and hands candidates for
//!   other tiles over through message rings, with no grid-wide step. H100,
//!   grid 1000² from the corner (`74e218a:docs/results/h100/rings/`): BFS 7.5 ms
//!   against the resident kernel's 9.5, SSSP 10.7 against 16.0 for the
//!   previous tiles; every program gets it, BFS-like ones included since
//!   the rings. Graphs with a row over [`TILES_MAX_DEGREE`] edges do not, nor
//!   do programs with a priority on graphs whose ids are not local
//!   ([`TILES_MIN_LOCALITY`]: tiles' buckets then trade most of their work
//!   through the rings).
//! * a high-diameter graph too big for shared memory, or with such a row:
//!   the **resident** kernel. Thousands of small levels cost a launch and a
//!   host round trip each under the level kernels; one persistent launch pays
//!   a barrier instead. Programs with a priority get device-side near-far
//!   buckets with Δ from [`super::program::gpu_delta`] times
//!   [`super::resident::RESIDENT_DELTA_FACTOR`].
//! * a low-diameter graph and a BFS-like program (one source, unweighted, min/max):
//!   the **direction**-optimizing kernel (bottom-up levels over the big frontiers),
//!   which hands the rest of the traversal to the resident kernel after a run of
//!   small levels ([`TAIL_HANDOVER`]): the probe stops at the first hub, so a
//!   long path behind one (a web graph's whiskers) looks low-diameter to it.
//! * a low-diameter graph and an idempotent program where every vertex starts
//!   (label-propagation CC): the **direction** kernel's top-down levels, by a
//!   scan of every edge chunk while the frontier holds many edges and by the
//!   frontier's work list after (H200: CC on Kronecker 24 14.6 ms against 17.5
//!   with edge chunks), and the same for the other idempotent programs (SSSP,
//!   widest paths) on graphs of [`DIRECTION_MIN_EDGES`] edges and more (H200:
//!   SSSP on Kronecker 24 23.1 ms against 31.0).
//! * otherwise the **balanced** edge-chunk kernel, 8 edges per thread, which
//!   hands a long tail over the same way (H100,
//!   `74e218a:docs/results/h100/mec-programs/`: SSSP Kronecker 22 8.2 ms against 28.0
//!   for the work list and 39.9 for the best near-far Δ; gapbs on 16 threads
//!   takes 156 ms).
//! * a program whose `combine` is not idempotent (a sum) always gets the balanced
//!   kernel: the queue-based kernels could add a contribution twice.

use super::direction::{Handover, TAIL_HANDOVER};
use super::options::BfsKernel;
use super::program_api::{gpu_delta, uniform_frontier, GpuProgram, ProgramOptions};
use crate::graph::Graph;
use crate::program::VertexProgram;
use crate::shape::diameter::id_locality;
use crate::shape::{probe, Probe};

/// The kernel `auto` picked, the bucket width it brings, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct KernelChoice {
    pub kernel: BfsKernel,
    /// Near-far bucket width for the resident kernel (programs with a priority).
    pub delta: Option<u64>,
    pub reason: String,
    /// The diameter probe, when the choice made one.
    pub probe: Option<Probe>,
    /// With the level kernels (direction, balanced): when their loop hands a
    /// long tail to the resident kernel ([`TAIL_HANDOVER`]).
    pub handover: Option<Handover>,
}

impl KernelChoice {
    /// `base` with this choice's kernel, Δ (unless `base` has one) and handover.
    pub fn options(&self, base: ProgramOptions) -> ProgramOptions {
        ProgramOptions {
            kernel: self.kernel,
            delta: base.delta.or(self.delta),
            handover: self.handover,
            ..base
        }
    }
}

/// The resident kernel's bucket width for `P` on `g` (programs with a
/// priority): [`gpu_delta`] times [`super::resident::RESIDENT_DELTA_FACTOR`].
/// Without one the kernel keeps a single bucket, which on a weighted grid is a
/// label-correcting run with many re-relaxations (16 times slower on 4000²).
pub fn resident_delta<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
) -> Option<u64> {
    <P as VertexProgram>::HAS_PRIORITY
        .then(|| gpu_delta::<P>(g, source).saturating_mul(super::resident::RESIDENT_DELTA_FACTOR))
}

/// The tiled kernel's bucket width for `P` on `g` (programs with a priority):
/// [`gpu_delta`] times [`super::tiles::TILES_DELTA_FACTOR`]. A tile relaxes the
/// pending vertices within Δ of its lowest each round.
pub fn tiles_delta<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
) -> Option<u64> {
    <P as VertexProgram>::HAS_PRIORITY
        .then(|| gpu_delta::<P>(g, source).saturating_mul(super::tiles::TILES_DELTA_FACTOR))
}

/// The launch options for `kernel` on `g` from `source`, with `base`'s other
/// settings: for `Auto`, [`choose`]'s kernel, Δ and handover (and its reason);
/// for the persistent kernels, their default bucket widths ([`resident_delta`],
/// [`tiles_delta`]) unless `base` names one; any other kernel as given. What
/// `vertex sssp --kernel K` and the one run call (`runtime::run`) both launch.
pub fn options_for<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
    kernel: BfsKernel,
    base: ProgramOptions,
) -> (ProgramOptions, Option<String>) {
    let with = |kernel, delta: Option<u64>| ProgramOptions {
        kernel,
        delta,
        ..base
    };
    match kernel {
        BfsKernel::Auto => {
            let c = choose::<P>(g, source);
            (c.options(base), Some(c.reason))
        }
        BfsKernel::Resident => (
            with(
                kernel,
                base.delta.or_else(|| resident_delta::<P>(g, source)),
            ),
            None,
        ),
        BfsKernel::Tiles => (
            with(kernel, base.delta.or_else(|| tiles_delta::<P>(g, source))),
            None,
        ),
        k => (with(k, base.delta), None),
    }
}

/// Out-degree above which `auto` does not pick the tiled kernel: a tile's row
/// is relaxed by one thread in a large level and by at most a warp in a short
/// one (a hub of 200,000 edges held its tile for hundreds of milliseconds,
/// `74e218a:docs/results/h100/hubs-and-shapes/`), and a vertex's remote
/// edges go out together through a part of the outbox, so the kernel itself takes
/// no longer rows ([`kernels_rs::tiles::PART`]).
pub const TILES_MAX_DEGREE: u64 = kernels_rs::tiles::PART as u64;

/// Why several GPUs are likely much slower than one for `P` on `g` from
/// `source`, if they are: one GPU would run a persistent kernel (resident or
/// tiles, a high-diameter graph), while a partition over several exchanges
/// after every level, thousands of them on a grid or a road network. 2 H200s,
/// a 1000² grid: SSSP 247 ms on two GPUs, 111 with one GPU's level kernel, a
/// few ms with its tiles; Python's BFS on a 200² grid 41 ms on two, 1.8 on one.
/// Said, not refused: the user asked for the GPUs.
pub fn several_gpus_warning<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    source: u32,
) -> Option<String> {
    let one = choose::<P>(g, source);
    matches!(one.kernel, BfsKernel::Resident | BfsKernel::Tiles).then(|| {
        format!(
            "{}; the GPUs exchange after every level, so one GPU (the {} kernel) is likely much faster",
            one.reason,
            one.kernel.name()
        )
    })
}

/// Picks the GPU kernel for `P` on `g` from `source` (see the module docs).
pub fn choose<P: GpuProgram>(g: &Graph<<P as VertexProgram>::Weight>, source: u32) -> KernelChoice {
    if !<P as VertexProgram>::IDEMPOTENT {
        return KernelChoice {
            kernel: BfsKernel::Balanced,
            delta: None,
            reason: "the combine is not idempotent: edge-chunk levels".into(),
            probe: None,
            handover: None,
        };
    }
    let from = if P::NEEDS_SOURCE {
        source
    } else {
        (0..g.num_vertices() as u32)
            .find(|&v| g.csr().degree(v) > 0)
            .unwrap_or(0)
    };
    let p = probe(g, from);
    let high = p.high_diameter
        || p.estimated_levels
            >= if <P as VertexProgram>::HAS_PRIORITY {
                HIGH_DIAMETER_LEVELS_PRIORITY
            } else {
                HIGH_DIAMETER_LEVELS
            };
    let fits = super::tiles::fits::<P>(
        g.num_vertices() as u64,
        super::tiles::H100_MULTIPROCESSORS,
        super::tiles::H100_SMEM_PER_BLOCK,
    );
    // A tile relaxes a row on one thread or one warp; the resident kernel has an entry
    // that shares hubs out over a block.
    let hubless = || g.max_out_degree() <= TILES_MAX_DEGREE;
    // Buckets across tiles whose edges mostly leave them cost more in messages
    // than the resident kernel's global buckets.
    let local = || !<P as VertexProgram>::HAS_PRIORITY || id_locality(g) >= TILES_MIN_LOCALITY;
    if high && fits && hubless() && local() {
        let delta = tiles_delta::<P>(g, source);
        return KernelChoice {
            kernel: BfsKernel::Tiles,
            delta,
            reason: format!(
                "high diameter ({}), {}, small enough for shared memory: asynchronous tiles{}",
                diameter_note(&p),
                if <P as VertexProgram>::HAS_PRIORITY {
                    "a priority"
                } else if !P::NEEDS_SOURCE {
                    "every vertex starting"
                } else if uniform_frontier::<P>() {
                    "BFS-like"
                } else {
                    "not BFS-like"
                },
                if delta.is_some() {
                    ", ordered buckets"
                } else {
                    ""
                }
            ),
            probe: Some(p),
            handover: None,
        };
    }
    if high {
        let delta = resident_delta::<P>(g, source);
        return KernelChoice {
            kernel: BfsKernel::Resident,
            delta,
            reason: format!(
                "high diameter ({}){}: one resident launch, frontier queues{}",
                diameter_note(&p),
                if fits && hubless() && !local() {
                    ", ids not local enough for tiles' buckets"
                } else {
                    ""
                },
                if delta.is_some() {
                    ", device-side buckets"
                } else {
                    ""
                }
            ),
            probe: Some(p),
            handover: None,
        };
    }
    let kernel = without_graph::<P>(g.csr().num_edges());
    KernelChoice {
        kernel,
        delta: None,
        reason: format!(
            "low diameter: {} levels (a tail of {} levels of at most {} vertices goes to \
             the resident kernel)",
            match kernel {
                BfsKernel::Direction if uniform_frontier::<P>() => "direction-optimizing",
                BfsKernel::Direction => "top-down (by scan while the frontier is large)",
                _ => "edge-chunk",
            },
            TAIL_HANDOVER.levels,
            TAIL_HANDOVER.frontier
        ),
        probe: Some(p),
        handover: handover_for(kernel),
    }
}

/// Estimated BFS levels ([`Probe::estimated_levels`]) from which `auto` takes
/// a graph for high-diameter: the persistent kernels then beat the level
/// kernels' launch and host round trip per level. H200, 2026-11-29
/// (`gpu-run.sh kernels`): a 65,536-point Delaunay mesh (~110 levels, which
/// the bounded probe alone called low-diameter) ran BFS in 0.98 ms with tiles
/// and 2.19 ms with direction-optimizing levels; Kronecker 22 and urand 22
/// estimate 4–6 levels.
pub const HIGH_DIAMETER_LEVELS: u32 = 64;

/// [`HIGH_DIAMETER_LEVELS`] for programs with a priority (SSSP): their level
/// kernels run near-far rounds, fewer launches per level than a BFS pays, so
/// the persistent kernels win later. H200, 65,536-point mesh (~107 levels
/// estimated): SSSP 3.8 ms with edge-chunk levels, 4.4 resident, 4.2 tiles;
/// 262,144 points (~200 levels): 11.0 edge chunks, 8.8 resident.
pub const HIGH_DIAMETER_LEVELS_PRIORITY: u32 = 150;

/// [`id_locality`] from which programs with a priority get the tiled kernel:
/// its Δ-buckets are per tile, so on a graph whose edges mostly cross tiles
/// the resident kernel's global buckets win. H200, SSSP, meshes with ids in
/// random order (locality 0.03): tiles 25.9 ms against resident 17.2 on 1 M
/// points, 16.4 against 8.8 on 262,144; row-major grids (locality 1.0):
/// tiles 6.2 ms against resident 28.6 on 1000².
pub const TILES_MIN_LOCALITY: f64 = 0.5;

/// How the probe saw the diameter, for the choice's reason.
fn diameter_note(p: &Probe) -> String {
    if p.high_diameter {
        format!("{} levels reached only {} vertices", p.levels, p.reached)
    } else {
        format!(
            "about {} levels, from a probe of {} reaching {} vertices",
            p.estimated_levels, p.levels, p.reached
        )
    }
}

/// The handover `auto` asks of `kernel`: [`TAIL_HANDOVER`] for the level
/// kernels it picks on a low diameter (a bounded probe cannot see a long tail
/// behind a hub), none otherwise. Only idempotent programs get here.
pub(crate) fn handover_for(kernel: BfsKernel) -> Option<Handover> {
    matches!(kernel, BfsKernel::Direction | BfsKernel::Balanced).then_some(TAIL_HANDOVER)
}

/// What `auto` means on a low-diameter graph of `edges` edges (and when only
/// the uploaded graph is at hand): direction for BFS-like programs, for
/// idempotent programs where every vertex starts, and for the others (SSSP)
/// from [`DIRECTION_MIN_EDGES`] — their top-down levels scan every edge chunk
/// while the frontier is large, then list the frontier's; edge chunks for the
/// rest.
pub fn without_graph<P: GpuProgram>(edges: u64) -> BfsKernel {
    if uniform_frontier::<P>() || every_vertex_starts::<P>() || edges >= DIRECTION_MIN_EDGES {
        BfsKernel::Direction
    } else {
        BfsKernel::Balanced
    }
}

/// Edges from which programs with one source that are not BFS-like (SSSP,
/// widest paths) get the direction kernel on a low diameter: there its scan
/// levels are faster than the edge-chunk kernel's (same walk, fewer bytes: the
/// edge-chunk kernel reads a stamp per vertex) and its list levels cost only
/// the frontier's edges, while on smaller graphs its three launches a level
/// cost more than they save. H200, `bde2243`, SSSP, direction against edge
/// chunks: Kronecker 24 23.1 ms against 31.0, 22 4.6 against 6.8, 20 2.0
/// against 2.1, 18 1.1 against 0.74; urand 24 96 against 103, 22 14.8 against
/// 15.9, 20 4.7 against 4.1; widest paths on Kronecker 22 3.05 against 4.24;
/// 65,536-point mesh 7.2 against 3.8.
pub const DIRECTION_MIN_EDGES: u64 = 1 << 26;

/// An idempotent program without a source (label-propagation components):
/// its first levels hold every vertex, so the direction kernel scans them as
/// the edge-chunk kernel would, and its shrinking frontiers then cost only
/// their own edges. H200, `95d197a`: components by label propagation on
/// Kronecker 24 in 14.6 ms (direction) against 17.5 (edge chunks), urand 22 3.6
/// against 4.4, Kronecker 20 0.89 against 1.26.
fn every_vertex_starts<P: GpuProgram>() -> bool {
    !P::NEEDS_SOURCE && <P as VertexProgram>::IDEMPOTENT
}
