//! SVG charts of a [`BenchReport`]; the drawing is [`crate::plot`].

use std::path::{Path, PathBuf};

use super::{BenchReport, RunSummary};
use crate::plot::{line_chart, Panel, Series};
use runtime::error::Result;
use runtime::gpu::options::BfsKernel;

/// One colour per kernel across the charts.
fn color(k: BfsKernel) -> usize {
    match k {
        BfsKernel::Naive => 0,
        BfsKernel::Balanced => 1,
        BfsKernel::Direction => 2,
        BfsKernel::Resident => 3,
        BfsKernel::Auto => 4,
        BfsKernel::Tiles => 5,
    }
}

fn by_kernel(runs: &[RunSummary], k: BfsKernel) -> impl Iterator<Item = &RunSummary> {
    runs.iter().filter(move |r| r.kernel == k)
}

/// Draws every chart the report has data for; returns the files written.
pub fn all(report: &BenchReport, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let dev = &report.device.name;
    if !report.scaling.is_empty() {
        let p = dir.join("gpu-bfs-scaling.svg");
        let mut series: Vec<Series> = [BfsKernel::Direction, BfsKernel::Balanced, BfsKernel::Naive]
            .into_iter()
            .map(|k| {
                let name = match k {
                    BfsKernel::Balanced => {
                        format!("balanced (mec {})", report.config.max_edge_count)
                    }
                    BfsKernel::Naive => "naive (full scan)".to_string(),
                    BfsKernel::Direction => "direction-optimizing".to_string(),
                    k => k.name().to_string(),
                };
                (
                    name,
                    color(k),
                    by_kernel(&report.scaling, k)
                        .map(|r| (r.scale as f64, r.gteps_hmean))
                        .collect(),
                )
            })
            .collect();
        // Seed 000 Fig. 7's CPU columns, same graphs and roots.
        if !report.cpu.is_empty() {
            series.push((
                "CPU sequential (queue BFS)".into(),
                3,
                report
                    .cpu
                    .iter()
                    .map(|c| (c.scale as f64, c.sequential_gteps_hmean))
                    .collect(),
            ));
            let par: Vec<(f64, f64)> = report
                .cpu
                .iter()
                .filter_map(|c| Some((c.scale as f64, c.parallel_gteps_hmean?)))
                .collect();
            if !par.is_empty() {
                let t = report.cpu[0].threads;
                series.push((format!("CPU parallel ({t} threads)"), 4, par));
            }
        }
        series.retain(|s| !s.2.is_empty());
        let panel = Panel {
            title: format!("BFS on Kronecker ef {} — {dev}", report.config.edgefactor),
            x_desc: "scale (log2 vertices)".into(),
            y_desc: "GTEPS (harmonic mean over roots)".into(),
            series,
            log_y: true,
        };
        line_chart(&p, &panel, false)?;
        out.push(p);
    }
    if !report.sweep.is_empty() {
        let p = dir.join("gpu-bfs-mec-sweep.svg");
        let data = report
            .sweep
            .iter()
            .map(|r| (r.max_edge_count as f64, r.gteps_hmean))
            .collect();
        let panel = Panel {
            title: format!(
                "Balanced BFS vs max_edge_count, scale {} — {dev}",
                report.config.sweep_scale
            ),
            x_desc: "max_edge_count (edges per thread)".into(),
            y_desc: "GTEPS (harmonic mean over roots)".into(),
            series: vec![("balanced".into(), color(BfsKernel::Balanced), data)],
            log_y: false,
        };
        line_chart(&p, &panel, true)?;
        out.push(p);
    }
    if !report.direction_sweep.is_empty() {
        let p = dir.join("gpu-bfs-direction-sweep.svg");
        let data = report
            .direction_sweep
            .iter()
            .map(|r| (r.max_edge_count as f64, r.gteps_hmean))
            .collect();
        let panel = Panel {
            title: format!(
                "Direction-optimizing BFS vs edges per work item, scale {} — {dev}",
                report.config.sweep_scale
            ),
            x_desc: "edges per chunk".into(),
            y_desc: "GTEPS (harmonic mean over roots)".into(),
            series: vec![("direction".into(), color(BfsKernel::Direction), data)],
            log_y: false,
        };
        line_chart(&p, &panel, true)?;
        out.push(p);
    }
    let at_sweep: Vec<&RunSummary> = report
        .scaling
        .iter()
        .filter(|r| r.scale == report.config.sweep_scale)
        .collect();
    if !at_sweep.is_empty() {
        let p = dir.join("gpu-bfs-per-level.svg");
        let series: Vec<Series> = at_sweep
            .iter()
            .map(|r| {
                let data = r
                    .per_level_ms_median_root
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (i as f64, t.max(1e-4)))
                    .collect();
                (
                    format!("{:?}", r.kernel).to_lowercase(),
                    color(r.kernel),
                    data,
                )
            })
            .collect();
        let panel = Panel {
            title: format!(
                "Time per BFS level, scale {} (median root) — {dev}",
                report.config.sweep_scale
            ),
            x_desc: "level".into(),
            y_desc: "kernel time (ms)".into(),
            series,
            log_y: true,
        };
        line_chart(&p, &panel, false)?;
        out.push(p);
    }
    Ok(out)
}
