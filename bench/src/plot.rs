//! SVG line charts for `docs/results` (plotters, SVG backend only, no fonts or
//! bitmaps needed). One drawing routine serves every bench — CPU comparisons,
//! GPU BFS, APSP, Graph500 — so their charts look alike and axis handling (log
//! scales, padding, empty panels) is fixed in one place.
//!
//! * [`line_chart`]: one panel in its own file, optionally log–log.
//! * [`panels_svg`]: panels side by side under a common title (linear x).
//! * [`group_series`]: rows of a report → one line per name, first-seen order.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use runtime::error::{Error, Result};

/// One line: name, colour (index into [`PALETTE`], wrapping), points `(x, y)`.
pub type Series = (String, usize, Vec<(f64, f64)>);

/// One chart: its caption, axis names, lines and y scale (`log_y` applies
/// when the values span at least a factor of ten).
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub series: Vec<Series>,
    pub log_y: bool,
}

/// Line colours (the matplotlib "tab10" set: distinct, readable on white).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// How a panel is laid out: caption size and where the legend sits.
struct Layout {
    caption: u32,
    /// Legend in the upper left corner (else upper right).
    legend_left: bool,
    log_x: bool,
}

/// Draws `panel` alone into `path` (860 × 520); `log_x` picks a log x axis
/// with ticks at powers of two (sizes, scales, chunk lengths).
pub fn line_chart(path: &Path, panel: &Panel, log_x: bool) -> Result<()> {
    if no_points(&panel.series) {
        return Err(Error::format(path, "no data to draw"));
    }
    let root = SVGBackend::new(path, (860, 520)).into_drawing_area();
    let layout = Layout {
        caption: 20,
        legend_left: true,
        log_x,
    };
    draw_err(path, root.fill(&WHITE))?;
    draw(path, &root, panel, &layout)?;
    draw_err(path, root.present())
}

/// Draws `panels` side by side (560 px each) under a common `title`; a panel
/// without points is left blank.
pub fn panels_svg(path: &Path, title: &str, panels: &[Panel]) -> Result<()> {
    if panels.iter().all(|p| no_points(&p.series)) {
        return Err(Error::format(path, "no data to draw"));
    }
    let w = 560 * panels.len() as u32;
    let root = SVGBackend::new(path, (w, 500)).into_drawing_area();
    draw_err(path, root.fill(&WHITE))?;
    let root = draw_err(path, root.titled(title, ("sans-serif", 22)))?;
    let layout = Layout {
        caption: 17,
        legend_left: false,
        log_x: false,
    };
    for (area, p) in root.split_evenly((1, panels.len())).iter().zip(panels) {
        if !no_points(&p.series) {
            draw(path, area, p, &layout)?;
        }
    }
    draw_err(path, root.present())
}

/// One series per distinct `name` of `items` (first-seen order, colour = that
/// order), with the points `point` gives for that name's items.
pub fn group_series<T>(
    items: &[T],
    name: impl Fn(&T) -> &str,
    point: impl Fn(&T) -> Option<(f64, f64)>,
) -> Vec<Series> {
    let mut names: Vec<&str> = Vec::new();
    for it in items {
        if !names.contains(&name(it)) {
            names.push(name(it));
        }
    }
    names
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let pts = items
                .iter()
                .filter(|it| name(it) == n)
                .filter_map(&point)
                .collect();
            (n.to_string(), i, pts)
        })
        .collect()
}

/// One series per side of a side-by-side run: its time per run (x = run number),
/// labelled with its harmonic-mean GTEPS, so that every per-root chart reads alike.
pub fn per_run_series<'a>(
    sides: impl IntoIterator<Item = (&'a str, f64, &'a [f64])>,
) -> Vec<Series> {
    sides
        .into_iter()
        .enumerate()
        .map(|(i, (name, gteps, times))| {
            let pts = times
                .iter()
                .enumerate()
                .map(|(k, &t)| (k as f64, t))
                .collect();
            (format!("{name} ({gteps:.2} GTEPS)"), i, pts)
        })
        .collect()
}

fn no_points(series: &[Series]) -> bool {
    series.iter().all(|s| s.2.is_empty())
}

/// An x tick label: integers without a fraction (sizes, thread counts); on a
/// log axis only the powers of two are labelled (the light lines between stay).
fn tick(x: f64, log: bool) -> String {
    if log && x.log2().fract().abs() > 1e-9 {
        String::new()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let t = format!("{x:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn draw_err<T, E: std::fmt::Display>(path: &Path, r: std::result::Result<T, E>) -> Result<T> {
    r.map_err(|e| Error::format(path, format!("drawing chart: {e}")))
}

/// Axis range of `lo..=hi` with room around the points: a factor on log axes, a
/// margin on linear ones (linear y starts at 0 unless values are negative).
fn range(lo: f64, hi: f64, log: bool, y: bool) -> (f64, f64) {
    match (log, y) {
        (true, false) => (lo.max(1e-9) / 1.3, hi.max(1e-9) * 1.3),
        (true, true) => (lo.max(1e-9) / 1.5, hi.max(1e-9) * 1.5),
        (false, false) => (lo - 0.3, hi + 0.3),
        (false, true) => {
            let base = lo.min(0.0);
            let d = (hi - base).max(hi.abs() * 0.1).max(1e-9);
            let below = if lo < 0.0 { 0.05 * d } else { 0.0 };
            (base - below, hi + 0.1 * d)
        }
    }
}

/// Draws one panel (which has points) on `area`.
fn draw(
    path: &Path,
    area: &DrawingArea<SVGBackend, Shift>,
    p: &Panel,
    layout: &Layout,
) -> Result<()> {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in p.series.iter().flat_map(|s| s.2.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    // A log y axis is labelled at powers of ten only: within one decade it
    // would carry no numbers, so such a panel is drawn linear.
    let log_y = p.log_y && y0 > 0.0 && y1 / y0 >= 10.0;
    let (x0, x1) = range(x0, x1, layout.log_x, false);
    let (y0, y1) = range(y0, y1, log_y, true);
    let mut b = ChartBuilder::on(area);
    b.caption(&p.title, ("sans-serif", layout.caption))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(80);
    // Each axis-type combination is its own chart type in plotters.
    macro_rules! body {
        ($coords:expr) => {{
            let mut chart = draw_err(path, b.build_cartesian_2d($coords.0, $coords.1))?;
            draw_err(
                path,
                chart
                    .configure_mesh()
                    .x_label_formatter(&|x: &f64| tick(*x, layout.log_x))
                    .x_desc(p.x_desc.as_str())
                    .y_desc(p.y_desc.as_str())
                    .draw(),
            )?;
            for (name, ci, data) in &p.series {
                let c = PALETTE[ci % PALETTE.len()];
                let line = LineSeries::new(data.iter().copied(), c.stroke_width(2)).point_size(4);
                draw_err(path, chart.draw_series(line))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                    });
            }
            draw_err(
                path,
                chart
                    .configure_series_labels()
                    .position(if layout.legend_left {
                        SeriesLabelPosition::UpperLeft
                    } else {
                        SeriesLabelPosition::UpperRight
                    })
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .draw(),
            )
        }};
    }
    match (layout.log_x, log_y) {
        (false, false) => body!((x0..x1, y0..y1)),
        (false, true) => body!((x0..x1, (y0..y1).log_scale())),
        (true, false) => body!(((x0..x1).log_scale().base(2.0), y0..y1)),
        (true, true) => body!(((x0..x1).log_scale().base(2.0), (y0..y1).log_scale())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(series: Vec<Series>, log_y: bool) -> Panel {
        Panel {
            title: "t".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            series,
            log_y,
        }
    }

    #[test]
    fn plot_every_axis_kind_and_panels() {
        let dir = tempfile::tempdir().unwrap();
        let pts = vec![(1.0, 2.0), (10.0, 0.5), (100.0, 30.0)];
        for log_x in [false, true] {
            for log_y in [false, true] {
                let p = dir.path().join(format!("c-{log_x}-{log_y}.svg"));
                let s = vec![
                    ("a".into(), 0, pts.clone()),
                    ("b".into(), 9, vec![(2.0, -1.0)]),
                ];
                line_chart(&p, &panel(s, log_y), log_x).unwrap();
                let text = std::fs::read_to_string(&p).unwrap();
                assert!(
                    text.contains("<svg") && text.contains(">\na\n</text>"),
                    "{text:.300}"
                );
            }
        }
        let p = dir.path().join("panels.svg");
        let panels = [
            panel(vec![("a".into(), 0, pts.clone())], true),
            panel(vec![("empty".into(), 1, vec![])], false),
        ];
        panels_svg(&p, "title", &panels).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().contains("title"));
    }

    #[test]
    fn plot_without_points_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.svg");
        assert!(line_chart(&p, &panel(vec![("a".into(), 0, vec![])], false), false).is_err());
        assert!(panels_svg(&p, "t", &[]).is_err());
    }

    #[test]
    fn plot_ticks() {
        assert_eq!(tick(2048.0, true), "2048");
        assert_eq!(tick(2048.0, false), "2048");
        assert_eq!(tick(153.6, true), "");
        assert_eq!(tick(0.8, false), "0.8");
        assert_eq!(tick(-1.25, false), "-1.25");
    }

    #[test]
    fn plot_group_series_keeps_first_seen_order() {
        let rows = [("b", 1.0), ("a", 2.0), ("b", 3.0)];
        let s = group_series(&rows, |r| r.0, |r| Some((r.1, r.1 * 2.0)));
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].0.as_str(), s[0].1), ("b", 0));
        assert_eq!(s[0].2, vec![(1.0, 2.0), (3.0, 6.0)]);
        assert_eq!((s[1].0.as_str(), s[1].2.len()), ("a", 1));
    }
}
