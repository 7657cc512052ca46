//! What the DSL costs on the GPU: a `#[vertex_program]` BFS (generated kernels,
//! explicit stamp frontier, atomic-min combine) against the hand-written seed 000
//! balanced kernels, same graph, same roots, interleaved in one run.

use std::path::{Path, PathBuf};

use super::kronecker_csr;
use crate::host::HostInfo;
use runtime::error::{Error, Result};
use runtime::generate::pick_roots;
use runtime::gpu::bfs::{BfsCombine, GpuBfsOptions};
use runtime::gpu::device::Device;
use runtime::gpu::options::BfsKernel;
use runtime::gpu::program_api::{GpuProgram, ProgramOptions};
use runtime::oracle;
use runtime::program::VertexProgram;

/// One kernel's numbers over all roots.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Side {
    pub name: String,
    pub gteps_hmean: f64,
    pub time_ms_median: f64,
    pub time_ms: Vec<f64>,
}

/// The whole comparison, as written to `dsl-vs-hand.json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DslReport {
    pub command: String,
    pub device: runtime::gpu::cuda::DeviceInfo,
    pub host: HostInfo,
    pub scale: u32,
    pub edgefactor: u64,
    pub vertices: usize,
    pub csr_entries: u64,
    pub max_edge_count: u64,
    pub roots: Vec<u32>,
    pub oracle_checked_roots: usize,
    pub sides: Vec<Side>,
    /// DSL harmonic-mean GTEPS / hand-written (store combine) harmonic-mean GTEPS.
    pub ratio_dsl_vs_hand_store: f64,
    /// DSL / hand-written with the same atomic-min combine.
    pub ratio_dsl_vs_hand_atomic_min: f64,
}

fn side(name: &str, times: Vec<f64>, edges: &[u64]) -> Side {
    let k = times.len() as f64;
    let hmean = k / times
        .iter()
        .zip(edges)
        .map(|(t, &e)| (t * 1e-3) / (e as f64 / 1e9).max(1e-12))
        .sum::<f64>();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    Side {
        name: name.into(),
        gteps_hmean: hmean,
        time_ms_median: sorted[sorted.len() / 2],
        time_ms: times,
    }
}

/// Runs BFS program `P` and the hand-written balanced kernels from `roots` random
/// roots of a Kronecker graph; the first `oracle_roots` of each are checked.
pub fn run<P: GpuProgram + VertexProgram<State = u32>>(
    dev: &Device,
    scale: u32,
    edgefactor: u64,
    roots: usize,
    max_edge_count: u64,
    oracle_roots: usize,
    command: &str,
) -> Result<DslReport> {
    let csr = kronecker_csr(scale, edgefactor, 1)?;
    let g = dev.upload(&csr)?;
    let kernels = dev.load_program::<P>()?;
    let roots = pick_roots(&csr, roots, 2);
    if roots.is_empty() {
        return Err(Error::InvalidArgument("no roots with degree > 0".into()));
    }
    let hand = |combine| GpuBfsOptions {
        kernel: BfsKernel::Balanced,
        max_edge_count,
        combine,
        ..GpuBfsOptions::default()
    };
    let (store, amin) = (hand(BfsCombine::Store), hand(BfsCombine::AtomicMin));
    let dsl = ProgramOptions {
        kernel: BfsKernel::Balanced,
        max_edge_count: Some(max_edge_count),
        ..ProgramOptions::default()
    };
    // Warm-up: module JIT and first touch.
    dev.bfs(&g, roots[0], &store)?;
    dev.run_program::<P>(&kernels, &g, roots[0], &dsl)?;
    let (mut t_store, mut t_amin, mut t_dsl, mut edges) = (vec![], vec![], vec![], vec![]);
    let mut checked = 0;
    for (i, &r) in roots.iter().enumerate() {
        let a = dev.bfs(&g, r, &store)?;
        let b = dev.bfs(&g, r, &amin)?;
        let c = dev.run_program::<P>(&kernels, &g, r, &dsl)?;
        if i < oracle_roots {
            let want = oracle::bfs(&csr, r)?;
            for (name, got) in [
                ("store", &a.levels),
                ("atomic-min", &b.levels),
                ("dsl", &c.states),
            ] {
                if *got != want.levels {
                    return Err(Error::InvalidGraph(format!(
                        "{name} BFS from {r} disagrees with the oracle"
                    )));
                }
            }
            checked += 1;
        }
        edges.push(a.edges_traversed);
        t_store.push(a.time_ms);
        t_amin.push(b.time_ms);
        t_dsl.push(c.time_ms);
    }
    let sides = vec![
        side("hand-written balanced, store combine", t_store, &edges),
        side("hand-written balanced, atomic-min combine", t_amin, &edges),
        side(
            &format!("#[vertex_program] {} (generated)", P::NAME),
            t_dsl,
            &edges,
        ),
    ];
    Ok(DslReport {
        command: command.into(),
        device: dev.info().clone(),
        host: HostInfo::read(),
        scale,
        edgefactor,
        vertices: csr.num_vertices(),
        csr_entries: csr.num_edges(),
        max_edge_count,
        roots,
        oracle_checked_roots: checked,
        ratio_dsl_vs_hand_store: sides[2].gteps_hmean / sides[0].gteps_hmean,
        ratio_dsl_vs_hand_atomic_min: sides[2].gteps_hmean / sides[1].gteps_hmean,
        sides,
    })
}

/// Writes `dsl-vs-hand.json` and `dsl-vs-hand.svg` (time per root) into `dir`.
pub fn write(report: &DslReport, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let json = dir.join("dsl-vs-hand.json");
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::InvalidArgument(format!("serialising the report: {e}")))?;
    std::fs::write(&json, text + "\n").map_err(|e| Error::io(&json, e))?;
    let svg = dir.join("dsl-vs-hand.svg");
    let series = crate::plot::per_run_series(
        report
            .sides
            .iter()
            .map(|s| (s.name.as_str(), s.gteps_hmean, s.time_ms.as_slice())),
    );
    let panel = crate::plot::Panel {
        title: format!(
            "BFS per root, Kronecker scale {} ef {} — DSL / hand = {:.3}",
            report.scale, report.edgefactor, report.ratio_dsl_vs_hand_store
        ),
        x_desc: "root".into(),
        y_desc: "time (ms, CUDA events)".into(),
        series,
        log_y: false,
    };
    crate::plot::line_chart(&svg, &panel, false)?;
    Ok(vec![json, svg])
}
