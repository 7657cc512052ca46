//! `vertex-gpu-bench multi`: BFS on 1..=G GPUs (1-D partition, NCCL all-gather of
//! the frontier bitmap per level): strong scaling (one scale on every GPU count)
//! and weak scaling (scale S on 1 GPU, S+1 on 2, …), harmonic-mean TEPS over
//! Graph500 input edges (`edgefactor · 2^scale`), every tree validated by the
//! Graph500 rules and its levels compared with the single-GPU run; the share of
//! time spent in the exchange. JSON + SVG.

use std::path::Path;

use anyhow::{bail, Context, Result};
use runtime::gpu::bench::{pick_roots, HostInfo};
use runtime::gpu::multi::MultiGpu;
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions};
use serde::Serialize;
use vertex_examples::programs::bfs;

#[derive(Serialize)]
struct Row {
    mode: &'static str,
    scale: u32,
    gpus: usize,
    roots: usize,
    gteps_hmean: f64,
    time_ms_median: f64,
    exchange_share: f64,
    bytes_per_level: u64,
    levels_mean: f64,
    invalid: usize,
}

#[derive(Serialize)]
struct Report<'a> {
    host: HostInfo,
    devices: Vec<runtime::gpu::DeviceInfo>,
    command_line: String,
    edgefactor: u64,
    rows: &'a [Row],
    /// Strong scaling: time on 1 GPU / time on G (per scale).
    strong_speedup: Vec<(u32, usize, f64)>,
    /// Weak scaling efficiency: TEPS(G GPUs, S + log2 G) / (G · TEPS(1 GPU, S)).
    weak_efficiency: Vec<(u32, usize, f64)>,
}

fn measure(
    multi: &MultiGpu,
    gpus: usize,
    scale: u32,
    edgefactor: u64,
    roots: usize,
    mode: &'static str,
) -> Result<Row> {
    eprintln!("{mode}: scale {scale} on {gpus} GPU(s): generating...");
    let el = runtime::generate::kronecker(scale, edgefactor, 1)?;
    let g = build(&el, BuildOptions::undirected())?;
    drop(el);
    let opts = ProgramOptions {
        kernel: BfsKernel::Direction,
        max_edge_count: runtime::gpu::direction::DEFAULT_CHUNK,
        parents: true,
        ..ProgramOptions::default()
    };
    let rs = pick_roots(g.csr(), roots, 5);
    if rs.is_empty() {
        bail!("no root with degree > 0");
    }
    // A communicator over exactly `gpus` GPUs.
    let owned;
    let multi = if gpus == multi.devices.len() {
        multi
    } else {
        owned = MultiGpu::open(gpus)?;
        &owned
    };
    let k = multi.load_program::<bfs::Program>()?;
    let mg = multi.upload(&g, false)?;
    multi.run_program::<bfs::Program>(&k, &mg, rs[0], &opts)?; // warm-up
    let teps_edges = edgefactor << scale;
    let (mut times, mut inv_teps, mut exch, mut levels, mut invalid) =
        (Vec::new(), 0.0, 0.0, 0.0, 0);
    let mut bytes = 0;
    for &r in &rs {
        let run = multi.run_program::<bfs::Program>(&k, &mg, r, &opts)?;
        let want = runtime::oracle::bfs_levels(g.csr(), r);
        let tree_ok = run.parents.as_ref().is_some_and(|p| {
            runtime::validate::validate_bfs_tree(g.csr(), r, p, Some(&run.states)).is_ok()
        });
        if run.states != want || !tree_ok {
            invalid += 1;
        }
        inv_teps += run.time_ms * 1e-3 / teps_edges as f64;
        exch += run.exchange_ms / run.time_ms.max(1e-9);
        levels += run.levels.len() as f64;
        bytes = run.bytes_per_level;
        times.push(run.time_ms);
    }
    let k = rs.len() as f64;
    times.sort_by(f64::total_cmp);
    let row = Row {
        mode,
        scale,
        gpus,
        roots: rs.len(),
        gteps_hmean: k / inv_teps / 1e9,
        time_ms_median: times[times.len() / 2],
        exchange_share: exch / k,
        bytes_per_level: bytes,
        levels_mean: levels / k,
        invalid,
    };
    eprintln!(
        "  {:.3} GTEPS, median {:.3} ms, exchange {:.1}%, {} invalid",
        row.gteps_hmean,
        row.time_ms_median,
        100.0 * row.exchange_share,
        row.invalid
    );
    Ok(row)
}

pub fn run(max_gpus: usize, scale: u32, edgefactor: u64, roots: usize, out: &Path) -> Result<bool> {
    let multi = MultiGpu::open(max_gpus)?;
    let mut rows = Vec::new();
    let counts: Vec<usize> = (0..)
        .map(|i| 1usize << i)
        .take_while(|&g| g <= max_gpus)
        .collect();
    for &g in &counts {
        rows.push(measure(&multi, g, scale, edgefactor, roots, "strong")?);
    }
    for (i, &g) in counts.iter().enumerate().skip(1) {
        rows.push(measure(
            &multi,
            g,
            scale + i as u32,
            edgefactor,
            roots,
            "weak",
        )?);
    }
    let one = rows
        .iter()
        .find(|r| r.gpus == 1)
        .context("no single-GPU row")?;
    let strong_speedup = rows
        .iter()
        .filter(|r| r.mode == "strong" && r.gpus > 1)
        .map(|r| (r.scale, r.gpus, one.time_ms_median / r.time_ms_median))
        .collect();
    let weak_efficiency = rows
        .iter()
        .filter(|r| r.mode == "weak")
        .map(|r| {
            (
                r.scale,
                r.gpus,
                r.gteps_hmean / (r.gpus as f64 * one.gteps_hmean),
            )
        })
        .collect();
    let report = Report {
        host: HostInfo::read(),
        devices: multi.devices.iter().map(|d| d.info().clone()).collect(),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        edgefactor,
        rows: &rows,
        strong_speedup,
        weak_efficiency,
    };
    std::fs::create_dir_all(out)?;
    let json = out.join("gpu-multi.json");
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    let svg = out.join("gpu-multi.svg");
    chart(&rows, &svg)?;
    for r in &rows {
        println!(
            "{:6} scale {:2} on {} GPU(s): {:8.3} GTEPS, exchange {:5.1}%, {} invalid",
            r.mode,
            r.scale,
            r.gpus,
            r.gteps_hmean,
            100.0 * r.exchange_share,
            r.invalid
        );
    }
    println!("wrote {} and {}", json.display(), svg.display());
    Ok(rows.iter().all(|r| r.invalid == 0))
}

fn chart(rows: &[Row], path: &Path) -> Result<()> {
    use runtime::plot::{panels_svg, Panel};
    let series = |mode: &str| {
        rows.iter()
            .filter(|r| r.mode == mode)
            .map(|r| (r.gpus as f64, r.gteps_hmean))
            .collect::<Vec<_>>()
    };
    let panel = Panel {
        title: "BFS GTEPS (harmonic mean, input edges) vs GPUs".into(),
        x_desc: "GPUs".into(),
        y_desc: "GTEPS".into(),
        series: vec![
            ("strong scaling (same scale)".into(), 0, series("strong")),
            ("weak scaling (scale + log2 GPUs)".into(), 1, series("weak")),
        ],
        log_y: false,
    };
    panels_svg(
        path,
        "Multi-GPU BFS (1-D partition, NCCL all-gather)",
        &[panel],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_chart_renders() {
        let row = |mode: &'static str, scale: u32, gpus: usize| Row {
            mode,
            scale,
            gpus,
            roots: 4,
            gteps_hmean: 10.0 * gpus as f64,
            time_ms_median: 2.0,
            exchange_share: 0.1,
            bytes_per_level: 1 << 20,
            levels_mean: 7.0,
            invalid: 0,
        };
        let rows = [
            row("strong", 20, 1),
            row("strong", 20, 2),
            row("weak", 21, 2),
        ];
        let path = std::env::temp_dir().join(format!("vertex-multi-{}.svg", std::process::id()));
        chart(&rows, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 100);
        std::fs::remove_file(&path).ok();
    }
}
