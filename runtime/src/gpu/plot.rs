//! SVG charts of a [`BenchReport`] (plotters, SVG backend only, no fonts needed).

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::bench::{BenchReport, RunSummary};
use super::bfs::BfsKernel;
use crate::error::{Error, Result};

fn draw_err(path: &Path) -> impl Fn(String) -> Error + '_ {
    move |msg| Error::format(path, format!("drawing chart: {msg}"))
}

pub(super) type Series = (String, RGBColor, Vec<(f64, f64)>);

/// A line chart with points; `log_x`/`log_y` pick logarithmic axes.
pub(super) fn line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    log_x: bool,
    log_y: bool,
) -> Result<()> {
    let err = draw_err(path);
    let pts = series.iter().flat_map(|s| s.2.iter().copied());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(Error::format(path, "no data to draw"));
    }
    let pad = |lo: f64, hi: f64, log: bool| {
        if log {
            (lo.max(1e-9) / 1.5, hi.max(1e-9) * 1.5)
        } else {
            let d = (hi - lo).max(hi.abs() * 0.1).max(1e-9);
            (
                (lo - 0.05 * d).min(if lo >= 0.0 { 0.0 } else { lo }),
                hi + 0.1 * d,
            )
        }
    };
    let (x0, x1) = if log_x {
        (x0 / 1.3, x1 * 1.3)
    } else {
        (x0 - 0.3, x1 + 0.3)
    };
    let (y0, y1) = pad(y0, y1, log_y);
    let root = SVGBackend::new(path, (860, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut b = ChartBuilder::on(&root);
    b.caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(70);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .draw()
                .map_err(|e| err(e.to_string()))?;
            for (name, color, data) in series {
                let c = *color;
                chart
                    .draw_series(
                        LineSeries::new(data.iter().copied(), c.stroke_width(2)).point_size(4),
                    )
                    .map_err(|e| err(e.to_string()))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }};
    }
    match (log_x, log_y) {
        (false, false) => body!(b
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(e.to_string()))?),
        (false, true) => body!(b
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(|e| err(e.to_string()))?),
        (true, false) => body!(b
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(|e| err(e.to_string()))?),
        (true, true) => body!(b
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| err(e.to_string()))?),
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
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
        let series: Vec<Series> = [
            (BfsKernel::Direction, GREEN),
            (BfsKernel::Balanced, RED),
            (BfsKernel::Naive, BLUE),
        ]
        .into_iter()
        .map(|(k, c)| {
            let name = match k {
                BfsKernel::Balanced => {
                    format!("balanced (mec {})", report.config.max_edge_count)
                }
                BfsKernel::Naive => "naive (full scan)".to_string(),
                BfsKernel::Direction => "direction-optimizing".to_string(),
            };
            (
                name,
                c,
                by_kernel(&report.scaling, k)
                    .map(|r| (r.scale as f64, r.gteps_hmean))
                    .collect(),
            )
        })
        .collect();
        line_chart(
            &p,
            &format!("BFS on Kronecker ef {} — {dev}", report.config.edgefactor),
            "scale (log2 vertices)",
            "GTEPS (harmonic mean over roots)",
            &series,
            false,
            true,
        )?;
        out.push(p);
    }
    if !report.sweep.is_empty() {
        let p = dir.join("gpu-bfs-mec-sweep.svg");
        let data = report
            .sweep
            .iter()
            .map(|r| (r.max_edge_count as f64, r.gteps_hmean))
            .collect();
        line_chart(
            &p,
            &format!(
                "Balanced BFS vs max_edge_count, scale {} — {dev}",
                report.config.sweep_scale
            ),
            "max_edge_count (edges per thread)",
            "GTEPS (harmonic mean over roots)",
            &[("balanced".into(), RED, data)],
            true,
            false,
        )?;
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
                let c = if r.kernel == BfsKernel::Balanced {
                    RED
                } else {
                    BLUE
                };
                let data = r
                    .per_level_ms_median_root
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (i as f64, t.max(1e-4)))
                    .collect();
                (format!("{:?}", r.kernel).to_lowercase(), c, data)
            })
            .collect();
        line_chart(
            &p,
            &format!(
                "Time per BFS level, scale {} (median root) — {dev}",
                report.config.sweep_scale
            ),
            "level",
            "kernel time (ms)",
            &series,
            false,
            true,
        )?;
        out.push(p);
    }
    Ok(out)
}
