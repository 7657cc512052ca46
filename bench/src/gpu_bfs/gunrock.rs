//! `vertex-gpu-bench peer`: our GPU BFS against Gunrock on the same graph file and
//! the same sources, one run on one device.
//!
//! The graph and sources come from the Gunrock kit's `kron.sh` (gapbs's Kronecker
//! generator written as Matrix Market, 64 sources of degree > 0); Gunrock's per-source
//! GPU times come from its `--export_metrics` JSON (`process_times`, `srcs`), made by
//! the kit's `run.sh` just before this command. Both sides count TEPS the Gunrock
//! kit's way (Graph500 input edges, `edgefactor · 2^scale`) over GPU time with file
//! loading excluded. Every one of our runs is checked against the CPU oracle; the
//! Gunrock side is validated by its own `--validate` on a subset (see gpu-run.sh).
//!
//! Also measured in the same run: the device-to-device copy bandwidth, and for each
//! kernel the *effective* bandwidth — the bytes a traversal must touch at least once
//! (CSR offsets and targets, one level and one parent per vertex) over its time —
//! as a share of it.

use std::path::{Path, PathBuf};

use crate::host::HostInfo;
use anyhow::{bail, Context, Result};
use runtime::gpu::{BfsKernel, Device, GpuBfsOptions};
use runtime::graph::BuildOptions;
use runtime::load::{load_graph, LoadOptions};
use runtime::oracle;
use serde::Serialize;

/// One side (a kernel of ours, or Gunrock).
#[derive(Serialize)]
pub struct Side {
    pub name: String,
    pub max_edge_count: Option<u64>,
    pub sources: usize,
    pub time_ms: Vec<f64>,
    pub time_ms_median: f64,
    pub gteps_hmean: f64,
    /// Effective bandwidth (see the module docs) / device copy bandwidth.
    pub effective_bandwidth_share: Option<f64>,
    pub validated: String,
}

#[derive(Serialize)]
struct Report<'a> {
    host: HostInfo,
    device: runtime::gpu::DeviceInfo,
    command_line: String,
    graph: &'a str,
    vertices: u64,
    csr_entries: u64,
    teps_edges: u64,
    /// Device-to-device copy bandwidth, GB/s (read + write bytes).
    copy_bandwidth_gbs: f64,
    sides: &'a [Side],
    /// Our first kernel's harmonic-mean TEPS / Gunrock's.
    ratio_vs_gunrock: Option<f64>,
}

/// Gunrock's `--export_metrics` JSON: the fields we read.
#[derive(serde::Deserialize)]
struct GunrockMetrics {
    process_times: Vec<f64>,
    srcs: Vec<u32>,
}

fn hmean_gteps(edges: u64, times_ms: &[f64]) -> f64 {
    let k = times_ms.len() as f64;
    k / times_ms
        .iter()
        .map(|t| 1.0 / (edges as f64 / (t * 1e-3) / 1e9).max(1e-12))
        .sum::<f64>()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(0.0)
}

/// What `vertex-gpu-bench peer` was given: the kit's graph and sources, Gunrock's
/// metrics (if it ran), the edge factor TEPS count with, our kernels, the output folder.
pub struct PeerArgs {
    pub graph: PathBuf,
    pub sources: PathBuf,
    pub gunrock: Option<PathBuf>,
    pub edgefactor: u64,
    pub kernels: Vec<BfsKernel>,
    pub max_edge_count: Option<u64>,
    pub out: PathBuf,
}

/// Runs every kernel of `a` from the kit's sources, sets Gunrock's times beside
/// them and writes the report and chart; `false` if a run of ours failed its check.
pub fn run(dev: &Device, a: &PeerArgs) -> Result<bool> {
    let spec = a.graph.to_string_lossy().to_string();
    let opts = LoadOptions {
        ignore_weights: true,
        build: Some(BuildOptions::default()),
        ..LoadOptions::default()
    };
    eprintln!("loading {spec} ...");
    let loaded = load_graph::<u32>(&spec, &opts)?;
    if loaded.new_to_old.is_some() {
        bail!("the graph was relabelled on load; sources would not match");
    }
    let g = loaded.graph;
    let n = g.num_vertices() as u64;
    let text = std::fs::read_to_string(&a.sources)
        .with_context(|| format!("reading {}", a.sources.display()))?;
    let sources: Vec<u32> = text
        .trim()
        .split(',')
        .enumerate()
        .map(|(i, s)| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|&v| u64::from(v) < n)
                .with_context(|| {
                    format!("{}: source #{i} `{s}` is not a vertex", a.sources.display())
                })
        })
        .collect::<Result<_>>()?;
    // A Matrix Market file ends at the largest vertex id that has an edge, so a
    // Kronecker graph's isolated last vertices are missing: round up to 2^scale.
    let scale = n.max(1).next_power_of_two().ilog2();
    let teps_edges = a.edgefactor << scale;
    let csr_bytes = 8 * (n + 1) + 4 * g.num_edges() + 8 * n;
    let copy = dev.copy_bandwidth_gbs()?;
    eprintln!(
        "{n} vertices, {} CSR entries, {} sources; device copy bandwidth {copy:.0} GB/s",
        g.num_edges(),
        sources.len()
    );
    let dg = dev.upload_traversal(&g, false)?;
    let mut sides = Vec::new();
    let mut ok = true;
    for &kernel in &a.kernels {
        let mec = a.max_edge_count.unwrap_or(match kernel {
            BfsKernel::Direction => runtime::gpu::direction::DEFAULT_CHUNK,
            _ => 64,
        });
        let o = GpuBfsOptions {
            kernel,
            max_edge_count: mec,
            parents: true,
            ..GpuBfsOptions::default()
        };
        dev.bfs(&dg, sources[0], &o)?; // warm-up (JIT, first touch)
        let (mut times, mut bad) = (Vec::new(), 0);
        for &s in &sources {
            let r = dev.bfs(&dg, s, &o)?;
            let want = oracle::bfs(g.csr(), s)?;
            let parents_ok = r.parents.as_ref().is_some_and(|p| {
                runtime::validate::validate_bfs_tree(g.csr(), s, p, Some(&r.levels)).is_ok()
            });
            if r.levels != want.levels || !parents_ok {
                bad += 1;
            }
            times.push(r.time_ms);
        }
        ok &= bad == 0;
        let name = format!("vertex {}", format!("{kernel:?}").to_lowercase());
        let med = median(&times);
        let side = Side {
            name,
            max_edge_count: Some(mec),
            sources: times.len(),
            gteps_hmean: hmean_gteps(teps_edges, &times),
            effective_bandwidth_share: Some(csr_bytes as f64 / (med * 1e-3) / 1e9 / copy),
            time_ms_median: med,
            time_ms: times,
            validated: format!("{bad} of {} runs differ from the CPU oracle", sources.len()),
        };
        eprintln!(
            "{:28} {:8.3} GTEPS (harmonic), median {:.3} ms, effective bandwidth {:.1}% of copy; {}",
            side.name,
            side.gteps_hmean,
            side.time_ms_median,
            100.0 * side.effective_bandwidth_share.unwrap_or(0.0),
            side.validated
        );
        sides.push(side);
    }
    let mut ratio = None;
    if let Some(path) = &a.gunrock {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading Gunrock metrics {}", path.display()))?;
        let m: GunrockMetrics = serde_json::from_str(&text)
            .with_context(|| format!("{}: not Gunrock --export_metrics JSON", path.display()))?;
        if m.srcs.first() != sources.first() {
            bail!("Gunrock ran from other sources ({:?}...)", m.srcs.first());
        }
        let med = median(&m.process_times);
        let side = Side {
            name: "Gunrock bfs (essentials 530f254)".into(),
            max_edge_count: None,
            sources: m.process_times.len(),
            gteps_hmean: hmean_gteps(teps_edges, &m.process_times),
            effective_bandwidth_share: Some(csr_bytes as f64 / (med * 1e-3) / 1e9 / copy),
            time_ms_median: med,
            time_ms: m.process_times,
            validated: "Gunrock --validate on the first sources: see gunrock-validate.log".into(),
        };
        eprintln!(
            "{:28} {:8.3} GTEPS (harmonic), median {:.3} ms",
            side.name, side.gteps_hmean, side.time_ms_median
        );
        if let Some(first) = sides.first() {
            ratio = Some(first.gteps_hmean / side.gteps_hmean);
            eprintln!(
                "{} / Gunrock = {:.2}x",
                first.name,
                first.gteps_hmean / side.gteps_hmean
            );
        }
        sides.push(side);
    }
    let report = Report {
        host: HostInfo::read(),
        device: dev.info().clone(),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        graph: &spec,
        vertices: n,
        csr_entries: g.num_edges(),
        teps_edges,
        copy_bandwidth_gbs: copy,
        sides: &sides,
        ratio_vs_gunrock: ratio,
    };
    std::fs::create_dir_all(&a.out)?;
    let stem = a.out.join(format!("gpu-bfs-vs-gunrock-s{scale}"));
    let json = stem.with_extension("json");
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    let svg = stem.with_extension("svg");
    chart(&sides, scale, &svg)?;
    eprintln!("wrote {} and {}", json.display(), svg.display());
    Ok(ok)
}

/// Time per source for every side.
fn chart(sides: &[Side], scale: u32, path: &Path) -> Result<()> {
    use crate::plot::{panels_svg, Panel};
    let series = crate::plot::per_run_series(
        sides
            .iter()
            .map(|s| (s.name.as_str(), s.gteps_hmean, s.time_ms.as_slice())),
    );
    let panel = Panel {
        title: "BFS time per source (GPU time, loading excluded)".into(),
        x_desc: "source #".into(),
        y_desc: "ms".into(),
        series,
        log_y: true,
    };
    panels_svg(
        path,
        &format!("GPU BFS vs Gunrock, Kronecker scale {scale} (gapbs generator)"),
        &[panel],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_chart_and_metrics() {
        let side = |name: &str| Side {
            name: name.into(),
            max_edge_count: Some(32),
            sources: 3,
            time_ms: vec![1.0, 2.0, 1.5],
            time_ms_median: 1.5,
            gteps_hmean: hmean_gteps(1 << 20, &[1.0, 2.0, 1.5]),
            effective_bandwidth_share: Some(0.4),
            validated: "0 of 3".into(),
        };
        let path = std::env::temp_dir().join(format!("vertex-peer-{}.svg", std::process::id()));
        chart(&[side("vertex direction"), side("Gunrock")], 20, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 100);
        std::fs::remove_file(&path).ok();
        // Harmonic mean of 1 M edges over 1, 2, 1.5 ms.
        let want = 3.0 / (1e-3 / 1.048576e-3 * 1.0 + 2e-3 / 1.048576e-3 + 1.5e-3 / 1.048576e-3);
        assert!((hmean_gteps(1 << 20, &[1.0, 2.0, 1.5]) - want).abs() < 1e-9);
        let m: GunrockMetrics =
            serde_json::from_str(r#"{"process_times":[1.5,2.5],"srcs":[3,4],"x":1}"#).unwrap();
        assert_eq!((m.process_times.len(), m.srcs[0]), (2, 3));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    }
}
