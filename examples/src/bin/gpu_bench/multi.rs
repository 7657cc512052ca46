//! `vertex-gpu-bench multi`: the multi-GPU traversal (1-D partition, NCCL
//! all-gather of the frontier bitmap per level) in one call:
//!
//! 1. correctness: BFS (host-driven and device-planned levels, parents checked by
//!    the Graph500 rules), SSSP (plain and near-far), CC and PageRank (gather
//!    rounds, messages all-gathered) on 1 and G GPUs against the CPU oracles, on
//!    Kronecker `--check-scale`, a grid and a holdout-style file graph (a skewed
//!    graph written here as a SNAP edge list, hubs first, and read back through
//!    the file reader), each program's speedup on G GPUs over 1 from those runs;
//! 2. scaling: BFS on 1 and G GPUs at every scale of `--strong` and at `S` and
//!    `S + 1` for every `S` of `--weak` (weak scaling: 1 GPU at S, G GPUs at
//!    S + 1), for each `--levels-per-sync`; harmonic-mean TEPS over Graph500
//!    input edges (`edgefactor · 2^scale`), every tree validated by the Graph500
//!    rules, every root's levels equal to the 1-GPU run's (and the CPU oracle's
//!    for the first root), and a per-level time split (slowest/fastest GPU's
//!    kernels, the all-gather, the wait, the host gap).
//!
//! The JSON (`gpu-multi.json`) is rewritten after every row, so a cut-off call
//! keeps what it measured; the SVG is written at the end.

#[path = "multi_check.rs"]
mod check;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use runtime::generate::pick_roots;
use runtime::gpu::direction::LevelLog;
use runtime::gpu::multi::{Barrier, LevelTime, MultiGpu, Route, TimeSplit};
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, Graph};
use runtime::validate::BfsValidator;
use serde::Serialize;
use vertex_bench::host::HostInfo;
use vertex_examples::programs::bfs;

/// What `vertex-gpu-bench multi` runs.
pub struct Args {
    pub gpus: usize,
    pub strong: Vec<u32>,
    pub weak: Vec<u32>,
    pub edgefactor: u64,
    pub roots: usize,
    pub levels_per_sync: Vec<u32>,
    /// Kronecker scale of the correctness graphs (0: no correctness suite).
    pub check_scale: u32,
    pub grid: String,
    /// Kronecker scale of the holdout-style file graph.
    pub file_scale: u32,
    pub out: PathBuf,
}

#[derive(Serialize)]
struct Row {
    scale: u32,
    gpus: usize,
    levels_per_sync: u32,
    /// How the GPUs exchanged: peer access or NCCL (both, side by side, where
    /// peer access is available).
    route: Route,
    roots: usize,
    gteps_hmean: f64,
    time_ms_median: f64,
    /// Mean over the roots of exchange time / wall time.
    exchange_share: f64,
    /// Mean per BFS of the per-level split (sums over its levels).
    split: TimeSplit,
    /// Mean per BFS of wall time not covered by device levels.
    host_ms: f64,
    syncs_mean: f64,
    bytes_per_level: u64,
    levels_mean: f64,
    invalid: usize,
    /// Edges each GPU holds: (out-edges of its slice, in-edges of its vertices).
    part_edges: Vec<(u64, u64)>,
    /// The median-time root's levels: direction, frontier, and time split.
    median_root: u32,
    level_log: Vec<LevelRow>,
}

#[derive(Serialize)]
struct LevelRow {
    #[serde(flatten)]
    level: Option<LevelLog>,
    #[serde(flatten)]
    time: LevelTime,
}

#[derive(Serialize)]
struct Report<'a> {
    host: HostInfo,
    gpus: usize,
    /// Several parts on one GPU (`VERTEX_MULTI_DEVICES`): a check of the
    /// code, whose times are not a scaling figure.
    parts_share_gpus: bool,
    devices: Vec<runtime::gpu::DeviceInfo>,
    command_line: String,
    edgefactor: u64,
    nccl_nvls_enable: Option<String>,
    checks: &'a [check::Check],
    rows: &'a [Row],
    /// The route of the rows the scaling figures use (the default one).
    route: Route,
    /// (scale, levels per sync, time on 1 GPU / time on G).
    strong_speedup: Vec<(u32, u32, f64)>,
    /// (scale, levels per sync, median time over NCCL / over peer access) on
    /// G GPUs: what the peer exchange gains, measured side by side.
    peer_over_nccl: Vec<(u32, u32, f64)>,
    /// How the peer exchange's launches waited in the rows (`events`:
    /// cross-GPU event waits; `device`: each launch waits for its peers'
    /// arrival itself).
    peer_barrier: Option<Barrier>,
    /// The peer route's rows measured again with the other barrier, side by
    /// side.
    other_barrier: &'a [BarrierCompare],
    /// Of the checked programs (BFS, SSSP, CC, PageRank): (graph, program,
    /// levels per sync, GPUs, mean time on 1 GPU / mean time on G).
    program_speedup: Vec<(String, &'static str, u32, usize, f64)>,
    /// (base scale S, levels per sync, TEPS(G GPUs, S + log2 G) / (G · TEPS(1 GPU, S))).
    weak_efficiency: Vec<(u32, u32, f64)>,
}

/// One peer-route row measured with the other barrier, beside the row's own.
#[derive(Serialize)]
struct BarrierCompare {
    /// The barrier of this measurement (the rows' is `peer_barrier`).
    barrier: Barrier,
    scale: u32,
    levels_per_sync: u32,
    gteps_hmean: f64,
    time_ms_median: f64,
    /// Mean exchange time per BFS (ms), with this barrier and with the row's.
    exchange_ms: f64,
    exchange_ms_row: f64,
    /// This median time / the row's.
    over_row: f64,
    invalid: usize,
}

/// The Kronecker graph of a row, each vertex's neighbours hubs first, as
/// `vertex bench graph500` builds it by default (bottom-up levels stop at the
/// first neighbour in the frontier, which is where the hubs are). Built in id
/// order, as this bench did before, one H200 at scale 26 ran at 198 GTEPS here
/// and at 264 in `vertex bench graph500` in the same call (other roots).
fn generate(scale: u32, edgefactor: u64) -> Result<Graph<u32>> {
    let t = Instant::now();
    let el = runtime::generate::kronecker(scale, edgefactor, 1)?;
    let g = build(&el, BuildOptions::undirected())?.hubs_first();
    eprintln!(
        "scale {scale}: {} vertices, {} edges (neighbours hubs first), generated in {:.1} s",
        g.num_vertices(),
        g.num_edges(),
        t.elapsed().as_secs_f64()
    );
    Ok(g)
}

/// BFS from `roots` on `multi` for every levels-per-sync value: one row each.
/// `reference[i]` is root `i`'s levels from the first configuration measured on
/// this graph (filled by it), checked against the CPU oracle for root 0.
#[allow(clippy::too_many_arguments)]
fn measure(
    multi: &MultiGpu,
    g: &Graph<u32>,
    validator: &mut BfsValidator<'_, u32>,
    scale: u32,
    edgefactor: u64,
    rs: &[u32],
    lps_list: &[u32],
    reference: &mut Vec<Vec<u32>>,
) -> Result<Vec<Row>> {
    let gpus = multi.devices.len();
    let t = Instant::now();
    let k = multi.load_program::<bfs::Program>()?;
    let mg = multi.upload(g, false)?;
    eprintln!(
        "  {gpus} GPU(s): uploaded in {:.1} s, part edges {:?}",
        t.elapsed().as_secs_f64(),
        mg.part_edges
    );
    let teps_edges = (edgefactor << scale) as f64;
    let mut rows = Vec::new();
    for &lps in lps_list {
        let opts = ProgramOptions {
            kernel: BfsKernel::Direction,
            max_edge_count: Some(runtime::gpu::direction::DEFAULT_CHUNK),
            parents: true,
            levels_per_sync: lps,
            ..ProgramOptions::default()
        };
        multi.run_program::<bfs::Program>(&k, &mg, rs[0], &opts)?; // warm-up
        let mut runs = Vec::with_capacity(rs.len());
        let mut invalid = 0;
        for (i, &r) in rs.iter().enumerate() {
            let run = multi.run_program::<bfs::Program>(&k, &mg, r, &opts)?;
            if reference.len() == i {
                if i == 0 {
                    let want = runtime::oracle::bfs_levels(g.csr(), r);
                    if run.states != want {
                        eprintln!("  root {r}: levels differ from the CPU oracle");
                        invalid += 1;
                    }
                }
                reference.push(run.states.clone());
            } else if run.states != reference[i] {
                eprintln!("  root {r}: levels differ from the first run's");
                invalid += 1;
            }
            match run.parents.as_ref() {
                None => invalid += 1,
                Some(p) => {
                    if let Err(e) = validator.validate(r, p, Some(&run.states)) {
                        eprintln!("  root {r}: tree invalid: {e}");
                        invalid += 1;
                    }
                }
            }
            runs.push((r, run));
        }
        let n = runs.len() as f64;
        let mut by_time: Vec<usize> = (0..runs.len()).collect();
        by_time.sort_by(|&a, &b| runs[a].1.time_ms.total_cmp(&runs[b].1.time_ms));
        let (median_root, med) = &runs[by_time[by_time.len() / 2]];
        let mean = |f: &dyn Fn(&runtime::gpu::multi::MultiRun<u32>) -> f64| {
            runs.iter().map(|(_, r)| f(r)).sum::<f64>() / n
        };
        let splits: Vec<TimeSplit> = runs.iter().map(|(_, r)| r.split.clone()).collect();
        let split = TimeSplit {
            kernel_max_ms: splits.iter().map(|s| s.kernel_max_ms).sum::<f64>() / n,
            kernel_min_ms: splits.iter().map(|s| s.kernel_min_ms).sum::<f64>() / n,
            allgather_ms: splits.iter().map(|s| s.allgather_ms).sum::<f64>() / n,
            wait_ms: splits.iter().map(|s| s.wait_ms).sum::<f64>() / n,
            level_ms: splits.iter().map(|s| s.level_ms).sum::<f64>() / n,
            host_gap_ms: splits.iter().map(|s| s.host_gap_ms).sum::<f64>() / n,
        };
        let row = Row {
            scale,
            gpus,
            levels_per_sync: lps,
            route: multi.route(),
            roots: runs.len(),
            gteps_hmean: n
                / runs
                    .iter()
                    .map(|(_, r)| r.time_ms * 1e-3 / teps_edges)
                    .sum::<f64>()
                / 1e9,
            time_ms_median: med.time_ms,
            exchange_share: mean(&|r| r.exchange_ms / r.time_ms.max(1e-9)),
            split,
            host_ms: mean(&|r| r.host_ms),
            syncs_mean: mean(&|r| f64::from(r.syncs)),
            bytes_per_level: med.bytes_per_level,
            levels_mean: mean(&|r| r.levels.len() as f64),
            invalid,
            part_edges: mg.part_edges.clone(),
            median_root: *median_root,
            level_log: med
                .level_times
                .iter()
                .enumerate()
                .map(|(i, t)| LevelRow {
                    level: med.levels.get(i).cloned(),
                    time: t.clone(),
                })
                .collect(),
        };
        eprintln!(
            "  scale {scale}, {gpus} GPU(s), {lps} levels/sync, {:?}: {:.2} GTEPS, median {:.3} ms \
             (kernels {:.3}..{:.3}, all-gather {:.3}, wait {:.3}, host {:.3} ms), exchange {:.1}%, \
             {} invalid",
            row.route,
            row.gteps_hmean,
            row.time_ms_median,
            row.split.kernel_min_ms,
            row.split.kernel_max_ms,
            row.split.allgather_ms,
            row.split.wait_ms,
            row.host_ms,
            100.0 * row.exchange_share,
            row.invalid
        );
        rows.push(row);
    }
    Ok(rows)
}

pub fn run(a: &Args) -> Result<bool> {
    if a.gpus < 2 {
        bail!("--gpus {}: the multi-GPU bench needs at least 2", a.gpus);
    }
    if a.levels_per_sync.is_empty() || a.levels_per_sync.iter().any(|&l| l == 0 || l > 64) {
        bail!("--levels-per-sync: values in 1..=64");
    }
    std::fs::create_dir_all(&a.out)?;
    let started = Instant::now();
    // Communicators over GPU 0 alone and over all of them, kept for the call.
    let one = MultiGpu::open(1)?;
    let mut all = MultiGpu::open(a.gpus)?;
    // The default route first (what the scaling figures use), then NCCL beside
    // it when the default is peer access.
    let main_route = all.route();
    // Parts sharing a GPU (VERTEX_MULTI_DEVICES) exchange over peer access
    // alone, with the event barrier: they check the code, not the scaling.
    let shared = all.shares_gpus();
    if shared {
        eprintln!("parts share GPUs (VERTEX_MULTI_DEVICES): these times say nothing about scaling");
    }
    let routes: Vec<Route> = match main_route {
        Route::Peer if !shared => vec![Route::Peer, Route::Nccl],
        r => vec![r],
    };
    eprintln!("exchange routes: {routes:?}");
    let devices: Vec<_> = all.devices.iter().map(|d| d.info().clone()).collect();
    for d in &devices {
        eprintln!(
            "GPU: {} (sm_{}{})",
            d.name, d.compute_capability.0, d.compute_capability.1
        );
    }
    let mut checks = Vec::new();
    if a.check_scale > 0 {
        let scratch = std::env::temp_dir();
        checks = check::run(
            &[&one, &all],
            a.check_scale,
            &a.grid,
            a.file_scale,
            &scratch,
        )?;
    }
    let mut scales: Vec<u32> = a
        .strong
        .iter()
        .copied()
        .chain(a.weak.iter().flat_map(|&s| [s, s + 1]))
        .collect();
    scales.sort_unstable();
    scales.dedup();
    let mut rows: Vec<Row> = Vec::new();
    let mut barriers: Vec<BarrierCompare> = Vec::new();
    let peer_barrier = all.peer_barrier();
    // The peer rows are measured again with this one, side by side.
    let other = peer_barrier.filter(|_| !shared).map(|b| match b {
        Barrier::Events => Barrier::Device,
        Barrier::Device => Barrier::Events,
    });
    let write =
        |rows: &[Row], checks: &[check::Check], compare: &[BarrierCompare]| -> Result<PathBuf> {
            let report = Report {
                host: HostInfo::read(),
                gpus: a.gpus,
                parts_share_gpus: shared,
                devices: devices.clone(),
                command_line: std::env::args().collect::<Vec<_>>().join(" "),
                edgefactor: a.edgefactor,
                nccl_nvls_enable: std::env::var("NCCL_NVLS_ENABLE").ok(),
                checks,
                rows,
                route: main_route,
                strong_speedup: strong_speedup(rows, a.gpus, main_route),
                peer_over_nccl: peer_over_nccl(rows, a.gpus),
                peer_barrier,
                other_barrier: compare,
                program_speedup: check::speedups(checks),
                weak_efficiency: weak_efficiency(rows, a.gpus, &a.weak, main_route),
            };
            let json = a.out.join("gpu-multi.json");
            std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
                .with_context(|| format!("writing {}", json.display()))?;
            Ok(json)
        };
    write(&rows, &checks, &barriers)?;
    for &scale in &scales {
        let g = generate(scale, a.edgefactor)?;
        let rs = pick_roots(g.csr(), a.roots, 5);
        if rs.is_empty() {
            bail!("scale {scale}: no root with degree > 0");
        }
        let mut validator = BfsValidator::new(g.csr(), true);
        let mut reference = Vec::new();
        for route in std::iter::once(None).chain(routes.iter().map(Some)) {
            let multi = match route {
                None => &one,
                Some(&r) => {
                    all.set_route(r)?;
                    &all
                }
            };
            let mut measure_on = |m: &MultiGpu| {
                measure(
                    m,
                    &g,
                    &mut validator,
                    scale,
                    a.edgefactor,
                    &rs,
                    &a.levels_per_sync,
                    &mut reference,
                )
            };
            let r = measure_on(multi)?;
            // The peer route again with the other barrier, beside the rows.
            if let (Some(&Route::Peer), Some(own), Some(other)) = (route, peer_barrier, other) {
                all.set_peer_barrier(other)?;
                let measured = measure_on(&all);
                all.set_peer_barrier(own)?;
                for (e, d) in measured?.iter().zip(&r) {
                    barriers.push(BarrierCompare {
                        barrier: other,
                        scale,
                        levels_per_sync: e.levels_per_sync,
                        gteps_hmean: e.gteps_hmean,
                        time_ms_median: e.time_ms_median,
                        exchange_ms: e.split.allgather_ms + e.split.wait_ms,
                        exchange_ms_row: d.split.allgather_ms + d.split.wait_ms,
                        over_row: e.time_ms_median / d.time_ms_median,
                        invalid: e.invalid,
                    });
                }
            }
            rows.extend(r);
            write(&rows, &checks, &barriers)?;
        }
        eprintln!("  ({:.0} s since start)", started.elapsed().as_secs_f64());
    }
    let json = write(&rows, &checks, &barriers)?;
    let svg = a.out.join("gpu-multi.svg");
    chart(&rows, a.gpus, &a.weak, main_route, &svg)?;
    summary(&rows, &checks, a.gpus, &a.weak, main_route);
    for b in &barriers {
        println!(
            "peer barrier, scale {}, lps {}: {:?} {:.3} ms a search (exchange {:.3}), the rows' {:.3} \
             (exchange {:.3}): the rows' barrier {:.2}x faster, {} invalid",
            b.scale,
            b.levels_per_sync,
            b.barrier,
            b.time_ms_median,
            b.exchange_ms,
            b.time_ms_median / b.over_row,
            b.exchange_ms_row,
            b.over_row,
            b.invalid
        );
    }
    println!("wrote {} and {}", json.display(), svg.display());
    Ok(rows.iter().all(|r| r.invalid == 0)
        && barriers.iter().all(|b| b.invalid == 0)
        && checks.iter().all(|c| c.ok))
}

fn find(rows: &[Row], scale: u32, gpus: usize, lps: u32) -> Option<&Row> {
    rows.iter()
        .find(|r| r.scale == scale && r.gpus == gpus && r.levels_per_sync == lps)
}

fn strong_speedup(rows: &[Row], gpus: usize, route: Route) -> Vec<(u32, u32, f64)> {
    rows.iter()
        .filter(|r| r.gpus == gpus && r.route == route)
        .filter_map(|r| {
            let one = find(rows, r.scale, 1, r.levels_per_sync)?;
            Some((
                r.scale,
                r.levels_per_sync,
                one.time_ms_median / r.time_ms_median,
            ))
        })
        .collect()
}

/// On G GPUs, per scale and levels per sync: NCCL's median time over peer
/// access's.
fn peer_over_nccl(rows: &[Row], gpus: usize) -> Vec<(u32, u32, f64)> {
    let at = |r: &Row, route| {
        rows.iter().find(|x| {
            x.gpus == gpus
                && x.route == route
                && x.scale == r.scale
                && x.levels_per_sync == r.levels_per_sync
        })
    };
    rows.iter()
        .filter(|r| r.gpus == gpus && r.route == Route::Peer)
        .filter_map(|r| {
            let nccl = at(r, Route::Nccl)?;
            Some((
                r.scale,
                r.levels_per_sync,
                nccl.time_ms_median / r.time_ms_median,
            ))
        })
        .collect()
}

fn weak_efficiency(rows: &[Row], gpus: usize, weak: &[u32], route: Route) -> Vec<(u32, u32, f64)> {
    let step = gpus.ilog2();
    let mut out = Vec::new();
    for &s in weak {
        for r in rows
            .iter()
            .filter(|r| r.gpus == gpus && r.route == route && r.scale == s + step)
        {
            if let Some(one) = find(rows, s, 1, r.levels_per_sync) {
                out.push((
                    s,
                    r.levels_per_sync,
                    r.gteps_hmean / (gpus as f64 * one.gteps_hmean),
                ));
            }
        }
    }
    out
}

/// The compact summary the device step prints.
fn summary(rows: &[Row], checks: &[check::Check], gpus: usize, weak: &[u32], route: Route) {
    let bad: Vec<_> = checks.iter().filter(|c| !c.ok).collect();
    println!(
        "correctness: {} checks, {} failed{}",
        checks.len(),
        bad.len(),
        bad.iter()
            .map(|c| format!(
                " [{} {} {} GPU(s) lps {}]",
                c.graph, c.program, c.gpus, c.levels_per_sync
            ))
            .collect::<String>()
    );
    for (g, p, lps, gpus, x) in check::speedups(checks) {
        println!("{g} {p} (lps {lps}): {x:.2}x on {gpus} GPUs over 1");
    }
    println!("scale gpus lps route   GTEPS  median_ms  kern_max kern_min exchange  wait   host  exch% invalid");
    for r in rows {
        println!(
            "{:5} {:4} {:3} {:5} {:7.2} {:10.3} {:9.3} {:8.3} {:9.3} {:5.3} {:6.3} {:6.1} {:7}",
            r.scale,
            r.gpus,
            r.levels_per_sync,
            match (r.gpus, r.route) {
                (1, _) => "-",
                (_, Route::Peer) => "peer",
                (_, Route::Nccl) => "nccl",
            },
            r.gteps_hmean,
            r.time_ms_median,
            r.split.kernel_max_ms,
            r.split.kernel_min_ms,
            r.split.allgather_ms,
            r.split.wait_ms,
            r.host_ms,
            100.0 * r.exchange_share,
            r.invalid
        );
    }
    for (s, lps, x) in strong_speedup(rows, gpus, route) {
        println!("strong scale {s}, lps {lps}: speedup {x:.2} on {gpus} GPUs ({route:?})");
    }
    for (s, lps, x) in peer_over_nccl(rows, gpus) {
        println!("scale {s}, lps {lps}: peer exchange {x:.2}x faster than NCCL on {gpus} GPUs");
    }
    for (s, lps, e) in weak_efficiency(rows, gpus, weak, route) {
        println!(
            "weak {s}->{}, lps {lps}: efficiency {:.0}%",
            s + gpus.ilog2(),
            100.0 * e
        );
    }
}

fn chart(rows: &[Row], gpus: usize, weak: &[u32], route: Route, path: &Path) -> Result<()> {
    use vertex_bench::plot::{panels_svg, Panel};
    let mut lps: Vec<u32> = rows.iter().map(|r| r.levels_per_sync).collect();
    lps.sort_unstable();
    lps.dedup();
    let mut scales: Vec<u32> = rows.iter().map(|r| r.scale).collect();
    scales.sort_unstable();
    scales.dedup();
    let mut series = Vec::new();
    // 1 GPU, then G GPUs over each route measured.
    let mut sides: Vec<(usize, Option<Route>)> = vec![(1, None)];
    for r in [Route::Peer, Route::Nccl] {
        if rows.iter().any(|x| x.gpus == gpus && x.route == r) {
            sides.push((gpus, Some(r)));
        }
    }
    for &l in &lps {
        for &(g, r) in &sides {
            let name = match r {
                None => format!("{g} GPU, {l} levels/sync"),
                Some(r) => format!("{g} GPUs ({r:?}), {l} levels/sync"),
            };
            series.push((
                name,
                series.len(),
                rows.iter()
                    .filter(|x| {
                        x.gpus == g && x.levels_per_sync == l && r.is_none_or(|r| x.route == r)
                    })
                    .map(|x| (f64::from(x.scale), x.gteps_hmean))
                    .collect::<Vec<_>>(),
            ));
        }
    }
    let teps = Panel {
        title: format!("BFS GTEPS (harmonic mean, input edges) on 1 and {gpus} GPUs"),
        x_desc: "Kronecker scale".into(),
        y_desc: "GTEPS".into(),
        series,
        log_y: false,
    };
    let split = Panel {
        title: format!("Where a BFS's time goes on {gpus} GPUs (ms per BFS)"),
        x_desc: "Kronecker scale".into(),
        y_desc: "ms".into(),
        series: [
            ("slowest GPU's kernels", 0usize),
            ("all-gather", 1),
            ("wait for the slower GPU", 2),
            ("host (not on the device)", 3),
        ]
        .iter()
        .map(|&(name, i)| {
            let l = lps.last().copied().unwrap_or(1);
            (
                format!("{name} ({l} levels/sync)"),
                i,
                rows.iter()
                    .filter(|r| r.gpus == gpus && r.route == route && r.levels_per_sync == l)
                    .map(|r| {
                        let y = match i {
                            0 => r.split.kernel_max_ms,
                            1 => r.split.allgather_ms,
                            2 => r.split.wait_ms,
                            _ => r.host_ms,
                        };
                        (f64::from(r.scale), y)
                    })
                    .collect(),
            )
        })
        .collect(),
        log_y: false,
    };
    let eff = weak_efficiency(rows, gpus, weak, route);
    let mut panels = vec![teps, split];
    if !eff.is_empty() {
        panels.push(Panel {
            title: format!("Weak-scaling efficiency, 1 GPU at S vs {gpus} at S + log2 {gpus}"),
            x_desc: "base scale S".into(),
            y_desc: "efficiency (1 = ideal)".into(),
            series: lps
                .iter()
                .enumerate()
                .map(|(i, &l)| {
                    (
                        format!("{l} levels/sync"),
                        i,
                        eff.iter()
                            .filter(|e| e.1 == l)
                            .map(|e| (f64::from(e.0), e.2))
                            .collect(),
                    )
                })
                .collect(),
            log_y: false,
        });
    }
    panels_svg(
        path,
        &format!("Multi-GPU BFS (1-D partition; exchange over {route:?})"),
        &panels,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scale: u32, gpus: usize, lps: u32, gteps: f64) -> Row {
        Row {
            scale,
            gpus,
            levels_per_sync: lps,
            route: Route::Peer,
            roots: 4,
            gteps_hmean: gteps,
            time_ms_median: 100.0 / gteps,
            exchange_share: 0.1,
            split: TimeSplit::default(),
            host_ms: 0.1,
            syncs_mean: 2.0,
            bytes_per_level: 1 << 20,
            levels_mean: 7.0,
            invalid: 0,
            part_edges: vec![(1, 1)],
            median_root: 0,
            level_log: vec![LevelRow {
                level: None,
                time: LevelTime::default(),
            }],
        }
    }

    #[test]
    fn multi_chart_and_tables() {
        let nccl = |scale, gteps| Row {
            route: Route::Nccl,
            ..row(scale, 2, 8, gteps)
        };
        let rows = [
            row(20, 1, 8, 10.0),
            row(20, 2, 8, 15.0),
            nccl(20, 12.0),
            row(21, 1, 8, 12.0),
            row(21, 2, 8, 16.0),
            nccl(21, 8.0),
        ];
        // The scaling figures read the default route's rows only.
        let s = strong_speedup(&rows, 2, Route::Peer);
        assert_eq!(s.len(), 2);
        assert!((s[0].2 - 1.5).abs() < 1e-9);
        let w = weak_efficiency(&rows, 2, &[20], Route::Peer);
        assert_eq!(w, vec![(20, 8, 0.8)]);
        let p = peer_over_nccl(&rows, 2);
        assert_eq!(p.len(), 2);
        assert!((p[0].2 - 1.25).abs() < 1e-9 && (p[1].2 - 2.0).abs() < 1e-9);
        let path = std::env::temp_dir().join(format!("vertex-multi-{}.svg", std::process::id()));
        chart(&rows, 2, &[20], Route::Peer, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 100);
        std::fs::remove_file(&path).ok();
        summary(&rows, &[], 2, &[20], Route::Peer);
        let json = serde_json::to_value(&rows[0]).unwrap();
        assert!(json["level_log"][0].get("allgather_ms").is_some());
    }
}
