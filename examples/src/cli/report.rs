//! Shared output helpers: JSON on stdout, human tables on stdout, run metadata.

use std::time::Duration;

use serde::Serialize;

/// Prints `value` as one JSON object on stdout.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Seconds as f64, for JSON.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Peak resident memory of this process so far (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `1234567` → `1.23 M`; for tables.
pub fn human_count(x: u64) -> String {
    let f = x as f64;
    match x {
        0..=9_999 => x.to_string(),
        10_000..=9_999_999 => format!("{:.2} K", f / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.2} M", f / 1e6),
        _ => format!("{:.2} G", f / 1e9),
    }
}

/// Bytes with a binary unit.
pub fn human_bytes(x: u64) -> String {
    let f = x as f64;
    if x < 1 << 10 {
        format!("{x} B")
    } else if x < 1 << 20 {
        format!("{:.1} KiB", f / 1024.0)
    } else if x < 1 << 30 {
        format!("{:.1} MiB", f / (1u64 << 20) as f64)
    } else {
        format!("{:.2} GiB", f / (1u64 << 30) as f64)
    }
}

/// One line of a chart with a point per row (x = 1, 2, … in row order; rows
/// without a value left out): how the bench commands draw per-graph results.
pub fn row_series<R>(
    rows: &[R],
    name: &str,
    color: usize,
    f: &dyn Fn(&R) -> Option<f64>,
) -> vertex_bench::plot::Series {
    let pts = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| f(r).map(|y| (i as f64 + 1.0, y)))
        .collect();
    (name.to_string(), color, pts)
}
