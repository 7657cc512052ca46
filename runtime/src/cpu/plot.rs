//! SVG charts of CPU comparisons and benchmarks (plotters, SVG backend only, no
//! fonts needed): panels of lines over thread counts, side by side in one file.

use std::path::Path;

use plotters::prelude::*;

use super::compare::Comparison;
use crate::error::{Error, Result};

/// One line: name, colour index, points `(x, y)`.
pub type Series = (String, usize, Vec<(f64, f64)>);

/// One panel of a chart.
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub series: Vec<Series>,
    pub log_y: bool,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// Draws `panels` side by side under a common `title`.
pub fn panels_svg(path: &Path, title: &str, panels: &[Panel]) -> Result<()> {
    let err = |e: String| Error::format(path, format!("drawing chart: {e}"));
    if panels.is_empty()
        || panels
            .iter()
            .all(|p| p.series.iter().all(|s| s.2.is_empty()))
    {
        return Err(Error::format(path, "no data to draw"));
    }
    let w = 560 * panels.len() as u32;
    let root = SVGBackend::new(path, (w, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let root = root
        .titled(title, ("sans-serif", 22))
        .map_err(|e| err(e.to_string()))?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, p) in areas.iter().zip(panels) {
        let pts = p.series.iter().flat_map(|s| s.2.iter().copied());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            continue;
        }
        let (x0, x1) = (x0 - 0.3, x1 + 0.3);
        let mut b = ChartBuilder::on(area);
        b.caption(&p.title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70);
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(p.x_desc.as_str())
                    .y_desc(p.y_desc.as_str())
                    .draw()
                    .map_err(|e| err(e.to_string()))?;
                for (name, ci, data) in &p.series {
                    let c = COLORS[ci % COLORS.len()];
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
                    .position(SeriesLabelPosition::UpperRight)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|e| err(e.to_string()))?;
            }};
        }
        if p.log_y {
            let (lo, hi) = (y0.max(1e-9) / 1.5, y1.max(1e-9) * 1.5);
            body!(b
                .build_cartesian_2d(x0..x1, (lo..hi).log_scale())
                .map_err(|e| err(e.to_string()))?);
        } else {
            let hi = y1 + 0.1 * (y1 - y0.min(0.0)).max(1e-9);
            body!(b
                .build_cartesian_2d(x0..x1, y0.min(0.0)..hi)
                .map_err(|e| err(e.to_string()))?);
        }
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// Time and work per schedule over thread counts.
pub fn comparison_svg(c: &Comparison, graph: &str, path: &Path) -> Result<()> {
    let mut names: Vec<String> = Vec::new();
    for r in &c.rows {
        if !names.contains(&r.schedule) {
            names.push(r.schedule.clone());
        }
    }
    let series = |f: &dyn Fn(&super::compare::Row) -> Option<f64>| -> Vec<Series> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let pts = c
                    .rows
                    .iter()
                    .filter(|r| &r.schedule == n)
                    .filter_map(|r| Some((r.threads? as f64, f(r)?)))
                    .collect();
                (n.clone(), i, pts)
            })
            .collect()
    };
    let panels = [
        Panel {
            title: "time (best of runs)".into(),
            x_desc: "threads".into(),
            y_desc: "milliseconds".into(),
            series: series(&|r| r.time_s.map(|t| t * 1e3)),
            log_y: true,
        },
        Panel {
            title: "work: edges relaxed / useful edges".into(),
            x_desc: "threads".into(),
            y_desc: "work ratio (1 = no waste)".into(),
            series: series(&|r| r.work_ratio),
            log_y: false,
        },
    ];
    panels_svg(
        path,
        &format!("{} on {graph} from {}", c.program, c.source),
        &panels,
    )
}
