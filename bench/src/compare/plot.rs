//! SVG charts of CPU comparisons ([`comparison_svg`]); the drawing itself is
//! [`crate::plot`].

use std::path::Path;

use super::Comparison;
use crate::plot::{panels_svg, Panel, Series};
use runtime::error::Result;

/// Time and work per schedule over thread counts.
pub fn comparison_svg(c: &Comparison, graph: &str, path: &Path) -> Result<()> {
    let series = |f: &dyn Fn(&super::Row) -> Option<f64>| -> Vec<Series> {
        crate::plot::group_series(
            &c.rows,
            |r| r.schedule.as_str(),
            |r| Some((r.threads? as f64, f(r)?)),
        )
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
