//! The Graph500 BFS benchmark (kernel 1 construction + kernel 2 BFS), for any engine.
//!
//! The harness owns the rules so that every backend is measured the same way:
//! the Kronecker edge list is generated (not timed, as in the spec) and built into
//! an undirected CSR (timed: `construction_time`); `roots` random roots with
//! degree > 0 are drawn with a fixed seed; the backend runs one BFS per root through
//! a closure; *every* parent tree is checked by one [`BfsValidator`] (the rules of
//! [`runtime::validate::validate_bfs_tree`]); TEPS use the spec's numerator, the
//! number of **input** edge tuples (of the `edgefactor·2^scale` generated ones,
//! self-loops and duplicates included) inside the traversed component, summed from
//! per-vertex tuple counts taken once. Statistics follow the reference code's
//! `statistics()` (quartiles as mean of the two middle elements, harmonic mean for
//! TEPS).
//!
//! The host side is what bounds a large run (GPU BFS is milliseconds per root), so
//! it is kept O(V + E) per root with no per-root pass over the input tuples, and it
//! prints a status line per phase and about every 10 s over the roots, so that a
//! log of a run that is cut off shows where it was.
//!
//! A tree that fails validation does not abort the run: it is recorded in
//! [`Graph500Report::failures`] and the report is marked invalid, so a caller can
//! still write what happened and then fail.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use runtime::error::{Error, Result};
use runtime::generate::GenSpec;
use runtime::graph::{build_consuming, BuildOptions, EdgeList, Graph};
use runtime::progress;
use runtime::validate::{BfsValidator, UNREACHED};

/// What to run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Graph500Config {
    pub scale: u32,
    pub edgefactor: u64,
    /// Number of BFS roots (NBFS); the spec asks for 64.
    pub roots: usize,
    /// Seed of the generator and of the root choice.
    pub seed: u64,
    /// Reorder every adjacency row hubs first ([`runtime::graph::Csr::hubs_first`])
    /// as part of construction (timed): bottom-up levels then mostly stop at the
    /// first neighbour they test. Off: rows in id order.
    pub hubs_first: bool,
}

impl Default for Graph500Config {
    fn default() -> Self {
        Graph500Config {
            scale: 16,
            edgefactor: 16,
            roots: 64,
            seed: runtime::generate::DEFAULT_SEED,
            hubs_first: true,
        }
    }
}

/// What a backend returns for one root.
#[derive(Clone, Debug, Default)]
pub struct BfsRun {
    /// `parents[root] == root`, [`UNREACHED`] for vertices not reached.
    pub parents: Vec<u32>,
    /// Levels, if the backend has them; checked against the parents.
    pub levels: Option<Vec<u32>>,
    /// Time of the BFS that produced `parents` (the TEPS denominator).
    pub seconds: f64,
    /// Device-only time (GPU events), reported next to `seconds` when known.
    pub device_seconds: Option<f64>,
}

/// The graph of kernel 1 and the input edges the TEPS count needs.
pub struct Graph500Graph {
    pub graph: Graph<u32>,
    /// Generated tuples (`edgefactor · 2^scale`, self-loops and duplicates
    /// included). The tuples themselves are not kept: the build consumes them
    /// (memory) after [`Self::tuples_per_source`] has counted them.
    pub input_edges: u64,
    /// Edge-list generation (not part of the benchmark time).
    pub generation_time: f64,
    /// Kernel 1: edge list to CSR.
    pub construction_time: f64,
    /// The `cfg.roots` BFS roots (degree > 0, from `cfg.seed`), picked once so that
    /// every kernel run on this graph, and its warm-up, uses the same ones.
    pub roots: Vec<u32>,
    /// Input tuples per source vertex, for the per-root `nedge` (counted once per
    /// graph, not per kernel run).
    pub tuples_per_source: Vec<u64>,
}

/// Host bytes a run of `cfg` peaks at, about: the build's scattered entries
/// (two 8-byte (source, target) pairs per tuple), while the tuples (8 bytes)
/// and then the entries go back to the OS in 8 steps as the CSR (two 4-byte
/// entries per tuple) fills — 18 bytes per tuple with that overlap (17.2 as
/// measured at scale 22: 1.15 GB for 67 M tuples; 24 before the steps, 102 GB
/// at scale 28) — plus 16 bytes per vertex (offsets, per-source counts).
pub fn host_bytes_estimate(cfg: &Graph500Config) -> u64 {
    let n = 1u64.checked_shl(cfg.scale).unwrap_or(u64::MAX);
    let m = n.saturating_mul(cfg.edgefactor);
    m.saturating_mul(18).saturating_add(n.saturating_mul(16))
}

/// Upper bounds of the graph `cfg` generates, before generating it: `2^scale`
/// vertices and `2 · edgefactor · 2^scale` CSR entries (every tuple in both
/// directions, before self-loops and duplicates are dropped).
pub fn size_bound(cfg: &Graph500Config) -> (u64, u64) {
    let n = 1u64.checked_shl(cfg.scale).unwrap_or(u64::MAX);
    (n, n.saturating_mul(cfg.edgefactor).saturating_mul(2))
}

/// Refuses a run that cannot fit in host memory before anything is generated
/// (the OS would kill it half-way, minutes in). `available`: bytes free, e.g.
/// [`available_memory`]; `None` skips the check.
pub fn check_host_memory(cfg: &Graph500Config, available: Option<u64>) -> Result<()> {
    let needed = host_bytes_estimate(cfg);
    match available {
        Some(available) if needed > available => Err(Error::HostOutOfMemory {
            what: format!(
                "Graph500 scale {} edgefactor {} (edge list, CSR and build scratch)",
                cfg.scale, cfg.edgefactor
            ),
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

pub use runtime::error::available_memory;

/// Generates and builds the graph of `cfg` (kernel 1), after checking that it
/// fits in host memory ([`check_host_memory`]).
pub fn construct(cfg: &Graph500Config) -> Result<Graph500Graph> {
    if cfg.edgefactor == 0 {
        return Err(Error::InvalidArgument("edgefactor must be > 0".into()));
    }
    // The generator's own scale check first, so an impossible scale is named as such.
    runtime::generate::Kronecker::graph500(cfg.scale, cfg.edgefactor, cfg.seed).num_vertices()?;
    check_host_memory(cfg, available_memory())?;
    let spec = GenSpec::Kron {
        scale: cfg.scale,
        edgefactor: cfg.edgefactor,
        seed: cfg.seed,
    };
    progress::status(&format!(
        "graph500: generating {} edges (scale {}, edgefactor {})...",
        cfg.edgefactor.saturating_mul(1u64 << cfg.scale.min(63)),
        cfg.scale,
        cfg.edgefactor
    ));
    let t = Instant::now();
    let edges = spec.generate()?;
    let generation_time = t.elapsed().as_secs_f64();
    progress::status(&format!(
        "graph500: generated in {generation_time:.1} s; building the CSR..."
    ));
    // Counted before the build consumes the tuples (untimed, as the spec's
    // construction covers the CSR only).
    let n = edges.num_vertices;
    let tuples_per_source = tuples_per_source(&edges, n);
    let input_edges = edges.edges.len() as u64;
    let t = Instant::now();
    let mut graph = build_consuming(edges, BuildOptions::undirected())?;
    if cfg.hubs_first {
        graph = graph.hubs_first();
    }
    let construction_time = t.elapsed().as_secs_f64();
    let roots = pick_roots(&graph, cfg.roots, cfg.seed);
    Ok(Graph500Graph {
        graph,
        input_edges,
        generation_time,
        construction_time,
        roots,
        tuples_per_source,
    })
}

/// The Graph500 statistics block of one quantity.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    pub min: f64,
    pub firstquartile: f64,
    pub median: f64,
    pub thirdquartile: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
    /// Only for rates (TEPS): the mean the spec ranks by.
    pub harmonic_mean: Option<f64>,
    pub harmonic_stddev: Option<f64>,
}

impl Stats {
    /// Statistics of `data` as the reference code computes them; `harmonic` adds
    /// the harmonic mean and its standard deviation. Empty input gives zeros.
    pub fn of(data: &[f64], harmonic: bool) -> Stats {
        let n = data.len();
        if n == 0 {
            return Stats::default();
        }
        let mut x = data.to_vec();
        x.sort_by(f64::total_cmp);
        let mid = |a: usize, b: usize| (x[a] + x[b]) * 0.5;
        let nf = n as f64;
        let mean = x.iter().sum::<f64>() / nf;
        let dev = |sum: f64| {
            if n > 1 {
                (sum / (nf - 1.0)).sqrt()
            } else {
                0.0
            }
        };
        let stddev = dev(x.iter().map(|v| (v - mean).powi(2)).sum());
        let (harmonic_mean, harmonic_stddev) = if harmonic && x.iter().all(|&v| v > 0.0) {
            let inv_mean = x.iter().map(|v| 1.0 / v).sum::<f64>() / nf;
            let hm = 1.0 / inv_mean;
            let s: f64 = x.iter().map(|v| (1.0 / v - inv_mean).powi(2)).sum();
            // Reference code: sqrt(Σ(1/x − 1/hm)²) / (n − 1) · hm².
            let hs = if n > 1 {
                s.sqrt() / (nf - 1.0) * hm * hm
            } else {
                0.0
            };
            (Some(hm), Some(hs))
        } else {
            (None, None)
        };
        Stats {
            min: x[0],
            firstquartile: mid((n - 1) / 4, n / 4),
            median: mid((n - 1) / 2, n / 2),
            thirdquartile: mid(n - 1 - (n - 1) / 4, n - 1 - n / 4),
            max: x[n - 1],
            mean,
            stddev,
            harmonic_mean,
            harmonic_stddev,
        }
    }
}

/// One root's outcome.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RootResult {
    pub root: u32,
    pub seconds: f64,
    pub device_seconds: Option<f64>,
    /// Input edge tuples inside the traversed component.
    pub nedge: u64,
    pub reached: u64,
    pub teps: f64,
    /// `None` if the tree passed validation, else what was wrong.
    pub validation_error: Option<String>,
}

/// Everything one benchmark run produced.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Graph500Report {
    pub config: Graph500Config,
    pub backend: String,
    pub vertices: u64,
    /// Directed CSR entries after symmetrising and removing self-loops/duplicates.
    pub csr_entries: u64,
    /// `edgefactor·2^scale`.
    pub input_edges: u64,
    pub generation_time: f64,
    pub construction_time: f64,
    pub roots: Vec<RootResult>,
    pub bfs_time: Stats,
    pub nedge: Stats,
    pub teps: Stats,
    pub validation_time: f64,
    /// Where the trees were validated: `host` or `gpu`.
    pub validator: String,
    /// Processes (ranks) the run took: 1, or one per rank over ranks.
    pub processes: usize,
    /// Wall time of the backend calls in total: the timed BFS plus what the
    /// backend does around it (buffers, downloading the tree). With validation,
    /// this is what bounds a large run, so it is kept to see where time goes.
    pub call_time: f64,
    /// Wall time of the whole root loop.
    pub roots_time: f64,
    /// True iff every tree passed validation.
    pub valid: bool,
    /// `(root, message)` of every tree that failed.
    pub failures: Vec<(u32, String)>,
}

/// `count` random roots with degree > 0, reproducible from `seed`.
pub fn pick_roots(g: &Graph<u32>, count: usize, seed: u64) -> Vec<u32> {
    runtime::generate::pick_roots(g.csr(), count, seed)
}

/// Per vertex, the number of input tuples `(u, v)` with `u` = that vertex: the
/// spec's `nedge` for a tree is then a sum over the reached vertices (O(V) per
/// root) instead of a pass over all input tuples (O(M) random reads per root).
fn tuples_per_source(edges: &EdgeList<u32>, n: usize) -> Vec<u64> {
    let count: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    edges.edges.par_iter().for_each(|[u, _]| {
        if let Some(c) = count.get(*u as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    });
    count.into_par_iter().map(AtomicU64::into_inner).collect()
}

/// `(nedge, reached)` of a tree: input tuples `(u, v)` with `u` reached (then `v`
/// is too: the graph is undirected), and reached vertices.
fn count_nedge(per_source: &[u64], parents: &[u32]) -> (u64, u64) {
    parents
        .par_iter()
        .zip(per_source)
        .with_min_len(4096)
        .filter(|(&p, _)| p != UNREACHED)
        .map(|(_, &c)| (c, 1))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Runs kernel 2 from the graph's roots ([`Graph500Graph::roots`]) with `bfs`,
/// validates every tree and gathers the statistics. Backend errors end the run
/// (`Err`); validation failures are recorded in the report.
pub fn run<F>(
    cfg: &Graph500Config,
    g: &Graph500Graph,
    backend: &str,
    bfs: F,
) -> Result<Graph500Report>
where
    F: FnMut(u32) -> Result<BfsRun>,
{
    let mut validator = BfsValidator::for_graph(&g.graph);
    run_validated(cfg, g, backend, bfs, "host", |root, r| {
        Ok(validator.validate(root, &r.parents, r.levels.as_deref()))
    })
}

/// [`run`] with another validator: `validate(root, run)` checks one tree by the
/// same rules (e.g. `Device::check_bfs_tree` on the GPU) and returns its verdict;
/// an `Err` of its own ends the run. `validator` names it in the report.
pub fn run_validated<F, V>(
    cfg: &Graph500Config,
    g: &Graph500Graph,
    backend: &str,
    mut bfs: F,
    validator: &str,
    mut validate: V,
) -> Result<Graph500Report>
where
    F: FnMut(u32) -> Result<BfsRun>,
    V: FnMut(u32, &BfsRun) -> Result<std::result::Result<(), String>>,
{
    let roots = &g.roots;
    if roots.is_empty() {
        return Err(Error::InvalidArgument(
            "the graph has no vertex with degree > 0".into(),
        ));
    }
    let per_source = &g.tuples_per_source;
    let mut results = Vec::with_capacity(roots.len());
    let mut failures = Vec::new();
    let mut validation_time = 0.0;
    let mut call_time = 0.0;
    let pb = progress::bar(roots.len() as u64, "BFS roots");
    let mut ticker = progress::Ticker::new(Duration::from_secs(10));
    let started = Instant::now();
    for (i, &root) in roots.iter().enumerate() {
        ticker.tick(&pb, i == 0, || {
            format!(
                "graph500: root {}/{} ({backend}), {:.0} s, BFS {:.1} s, validation {:.1} s so far",
                i + 1,
                roots.len(),
                started.elapsed().as_secs_f64(),
                results.iter().fold(0.0, |a, r: &RootResult| a + r.seconds),
                validation_time
            )
        });
        let t = Instant::now();
        let r = bfs(root)?;
        call_time += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let check = validate(root, &r)?;
        validation_time += t.elapsed().as_secs_f64();
        let (nedge, reached) = count_nedge(per_source, &r.parents);
        if let Err(msg) = &check {
            failures.push((root, msg.clone()));
        }
        let teps = if r.seconds > 0.0 {
            nedge as f64 / r.seconds
        } else {
            0.0
        };
        results.push(RootResult {
            root,
            seconds: r.seconds,
            device_seconds: r.device_seconds,
            nedge,
            reached,
            teps,
            validation_error: check.err(),
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    let roots_time = started.elapsed().as_secs_f64();
    progress::status(&format!(
        "graph500: {} roots in {:.1} s (backend calls {:.1} s, validation {:.1} s), {} failed validation",
        roots.len(),
        roots_time,
        call_time,
        validation_time,
        failures.len()
    ));
    let (bfs_time, nedge, teps) = root_stats(&results);
    Ok(Graph500Report {
        config: cfg.clone(),
        backend: backend.to_string(),
        vertices: g.graph.num_vertices() as u64,
        csr_entries: g.graph.num_edges(),
        input_edges: g.input_edges,
        generation_time: g.generation_time,
        construction_time: g.construction_time,
        bfs_time,
        nedge,
        teps,
        roots: results,
        validation_time,
        validator: validator.to_string(),
        processes: 1,
        call_time,
        roots_time,
        valid: failures.is_empty(),
        failures,
    })
}

/// The spec's statistics of the roots' BFS time, `nedge` and TEPS (the last
/// with its harmonic mean).
pub fn root_stats(results: &[RootResult]) -> (Stats, Stats, Stats) {
    let col = |f: fn(&RootResult) -> f64| results.iter().map(f).collect::<Vec<f64>>();
    (
        Stats::of(&col(|r| r.seconds), false),
        Stats::of(&col(|r| r.nedge as f64), false),
        Stats::of(&col(|r| r.teps), true),
    )
}

impl Graph500Report {
    /// The Graph500 output block (`key: value` lines, as the reference prints).
    pub fn output_block(&self) -> String {
        let mut s = String::new();
        let mut kv = |k: &str, v: String| {
            s.push_str(&format!("{k}: {v}\n"));
        };
        kv("SCALE", self.config.scale.to_string());
        kv("edgefactor", self.config.edgefactor.to_string());
        kv("NBFS", self.roots.len().to_string());
        kv("graph_generation", format!("{:.6e}", self.generation_time));
        kv("num_mpi_processes", self.processes.to_string());
        kv(
            "construction_time",
            format!("{:.6e}", self.construction_time),
        );
        let mut block = |name: &str, st: &Stats| {
            kv(&format!("min_{name}"), format!("{:.6e}", st.min));
            kv(
                &format!("firstquartile_{name}"),
                format!("{:.6e}", st.firstquartile),
            );
            kv(&format!("median_{name}"), format!("{:.6e}", st.median));
            kv(
                &format!("thirdquartile_{name}"),
                format!("{:.6e}", st.thirdquartile),
            );
            kv(&format!("max_{name}"), format!("{:.6e}", st.max));
            match (st.harmonic_mean, st.harmonic_stddev) {
                (Some(hm), Some(hs)) => {
                    kv(&format!("harmonic_mean_{name}"), format!("{hm:.6e}"));
                    kv(&format!("harmonic_stddev_{name}"), format!("{hs:.6e}"));
                }
                _ => {
                    kv(&format!("mean_{name}"), format!("{:.6e}", st.mean));
                    kv(&format!("stddev_{name}"), format!("{:.6e}", st.stddev));
                }
            }
        };
        block("time", &self.bfs_time);
        block("nedge", &self.nedge);
        block("TEPS", &self.teps);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_match_the_reference_definitions() {
        let s = Stats::of(&[4.0, 1.0, 3.0, 2.0], true);
        assert_eq!((s.min, s.max), (1.0, 4.0));
        assert_eq!(s.median, 2.5);
        assert_eq!(s.firstquartile, 1.5);
        assert_eq!(s.thirdquartile, 3.5);
        let hm = 4.0 / (1.0 + 0.5 + 1.0 / 3.0 + 0.25);
        assert!((s.harmonic_mean.unwrap() - hm).abs() < 1e-12);
        assert_eq!(Stats::of(&[], true), Stats::default());
        assert_eq!(Stats::of(&[5.0], false).median, 5.0);
    }

    /// The per-source tuple counts give the spec's `nedge`: input tuples whose
    /// first endpoint is reached, self-loops and duplicates included.
    #[test]
    fn nedge_counts_input_tuples_of_reached_sources() {
        let edges = EdgeList::<u32> {
            num_vertices: 6,
            edges: vec![[0, 1], [1, 0], [1, 1], [2, 0], [0, 1], [3, 4], [5, 5]],
            weights: None,
        };
        let per = tuples_per_source(&edges, 6);
        let parents = [0, 0, 0, UNREACHED, UNREACHED, UNREACHED];
        let brute = edges
            .edges
            .iter()
            .filter(|[u, _]| parents[*u as usize] != UNREACHED)
            .count() as u64;
        assert_eq!(count_nedge(&per, &parents), (brute, 3));
        assert_eq!(brute, 5);
        let all = [0, 0, 0, 3, 3, 5];
        assert_eq!(count_nedge(&per, &all), (7, 6));
    }

    /// The host estimate is 18 bytes a tuple and 16 a vertex (82 GB at scale 28),
    /// and a scale that cannot fit is refused with the sizes in the message.
    #[test]
    fn host_memory_is_checked_before_generating() {
        let cfg = |scale| Graph500Config {
            scale,
            ..Graph500Config::default()
        };
        let gb = |b: u64| b as f64 / 1e9;
        let s28 = host_bytes_estimate(&cfg(28));
        assert!((78.0..86.0).contains(&gb(s28)), "{}", gb(s28));
        assert_eq!(host_bytes_estimate(&cfg(29)), 2 * s28);
        let avail = 125_000_000_000;
        assert!(check_host_memory(&cfg(28), Some(avail)).is_ok());
        assert!(check_host_memory(&cfg(29), None).is_ok());
        let e = check_host_memory(&cfg(29), Some(avail)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::HostOutOfMemory { .. }), "{msg}");
        assert!(
            msg.contains("scale 29") && msg.contains("125000000000"),
            "{msg}"
        );
        assert_eq!(size_bound(&cfg(20)), (1 << 20, 32 << 20));
        let too_big = construct(&cfg(40)).err().map(|e| e.to_string());
        assert!(
            too_big.as_ref().is_some_and(|m| m.contains("32-bit")),
            "{too_big:?}"
        );
    }

    /// On a Kronecker graph the O(V) count equals the O(M) scan over the tuples.
    #[test]
    fn nedge_matches_a_scan_of_the_tuples() {
        let cfg = Graph500Config {
            scale: 9,
            edgefactor: 8,
            roots: 4,
            seed: 5,
            hubs_first: true,
        };
        let g = construct(&cfg).unwrap();
        let edges = GenSpec::Kron {
            scale: cfg.scale,
            edgefactor: cfg.edgefactor,
            seed: cfg.seed,
        }
        .generate()
        .unwrap();
        assert_eq!(g.input_edges, edges.edges.len() as u64);
        let per = tuples_per_source(&edges, g.graph.num_vertices());
        assert_eq!(per, g.tuples_per_source);
        for root in pick_roots(&g.graph, 4, 5) {
            let t = runtime::oracle::bfs(g.graph.csr(), root).unwrap();
            let scan = edges
                .edges
                .iter()
                .filter(|[u, _]| t.parents[*u as usize] != UNREACHED)
                .count() as u64;
            let reached = t.parents.iter().filter(|&&p| p != UNREACHED).count() as u64;
            assert_eq!(count_nedge(&per, &t.parents), (scan, reached));
        }
    }
}
