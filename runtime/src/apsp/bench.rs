//! APSP benchmarks (seed 002) — results as JSON + SVG, every number measured in
//! the same process on the same graphs.
//!
//! * [`run_cpu`]: blocked FW (each tile size, all threads and one thread) vs the
//!   naive triple loop vs `scipy.sparse.csgraph.floyd_warshall` (a `python3`
//!   subprocess fed the same matrix; timed inside Python, excluding I/O) vs
//!   Johnson, at N = 1024 / 2048.
//! * [`run_gpu`]: GPU FW checked against the CPU on random graphs (negative
//!   weights → exact kernels, non-negative → fast kernels); the seed 002 sweep
//!   (naive GPU vs CPU, blocked GPU vs naive GPU, N = 64 … 4096); blocked FW at
//!   large N as relaxations/s against an add+min peak measured in the same run.
//!
//! Graphs: directed, each ordered pair an edge with probability `density`,
//! weights uniform in 1..=100 (seeded), so every engine sees the same matrix.

use std::path::{Path, PathBuf};
use std::time::Instant;

use plotters::prelude::*;
use rand::{Rng, SeedableRng};

use super::fw_cpu;
use super::johnson::Johnson;
use super::matrix::DistMatrix;
use super::output::summarize;
use super::semiring::MinPlus;
use crate::error::{Error, Result};
use crate::gpu::bench::HostInfo;
use crate::graph::{build, BuildOptions, Csr, EdgeList};

type S = MinPlus<i32>;

/// A random directed graph: each ordered pair `(u, v)`, `u ≠ v`, with
/// probability `density`, weight uniform in `lo..=hi`.
pub fn random_graph(n: usize, density: f64, lo: i32, hi: i32, seed: u64) -> Result<Csr<i32>> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut el = EdgeList::<i32>::new(n);
    let mut w = Vec::new();
    let expected = (n as f64 * n as f64 * density) as usize;
    el.edges.reserve(expected);
    w.reserve(expected);
    if density >= 0.05 {
        for u in 0..n as u32 {
            for v in 0..n as u32 {
                if u != v && rng.gen_bool(density) {
                    el.edges.push([u, v]);
                    w.push(rng.gen_range(lo..=hi));
                }
            }
        }
    } else {
        for _ in 0..expected {
            let (u, v) = (rng.gen_range(0..n as u32), rng.gen_range(0..n as u32));
            if u != v {
                el.edges.push([u, v]);
                w.push(rng.gen_range(lo..=hi));
            }
        }
    }
    el.weights = Some(w);
    Ok(build(&el, BuildOptions::default())?.into_csr())
}

fn adjacency(g: &Csr<i32>) -> Result<DistMatrix<i32>> {
    DistMatrix::adjacency::<S, i32>(g, 1, Some)
}

fn checksum(m: &DistMatrix<i32>) -> String {
    let s = summarize::<S>(m);
    format!("{}/{}", s.checksum, s.unreachable)
}

/// One measured configuration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub n: usize,
    pub edges: u64,
    pub variant: String,
    /// Seconds (kernel time for GPU rows).
    pub seconds: f64,
    /// Host wall seconds including transfers (GPU rows).
    pub total_seconds: f64,
    /// n³ / seconds.
    pub relaxations_per_s: f64,
    /// `checksum of finite entries / unreachable pairs`, equal across variants.
    pub checksum: String,
    pub agrees: bool,
}

/// CPU benchmark settings.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuConfig {
    pub sizes: Vec<usize>,
    pub density: f64,
    pub tiles: Vec<usize>,
    /// Largest n the naive triple loop runs at.
    pub naive_max: usize,
    pub scipy: bool,
    pub seed: u64,
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            sizes: vec![1024, 2048],
            density: 0.1,
            tiles: fw_cpu::TILES.to_vec(),
            naive_max: 2048,
            scipy: true,
            seed: 1,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuReport {
    pub config: CpuConfig,
    pub host: HostInfo,
    pub command_line: String,
    pub rows: Vec<Row>,
    /// `(n, what, ratio)` side-by-side speed ratios (> 1: the first is faster).
    pub ratios: Vec<(usize, String, f64)>,
    pub notes: Vec<String>,
}

fn row(n: usize, edges: u64, variant: &str, secs: f64, total: f64, sum: String, want: &str) -> Row {
    Row {
        n,
        edges,
        variant: variant.to_string(),
        seconds: secs,
        total_seconds: total,
        relaxations_per_s: (n as f64).powi(3) / secs.max(1e-12),
        agrees: sum == want,
        checksum: sum,
    }
}

/// Runs the CPU comparison; `log` gets a line per measurement.
pub fn run_cpu(
    cfg: &CpuConfig,
    command_line: &str,
    mut log: impl FnMut(&str),
) -> Result<CpuReport> {
    let mut rep = CpuReport {
        config: cfg.clone(),
        host: HostInfo::read(),
        command_line: command_line.to_string(),
        rows: Vec::new(),
        ratios: Vec::new(),
        notes: vec![
            "scipy.sparse.csgraph.floyd_warshall is single-threaded; compare it with the 1-thread row too".into(),
            "petgraph::algo::floyd_warshall not measured: petgraph is not a dependency of this workspace".into(),
        ],
    };
    for &n in &cfg.sizes {
        let g = random_graph(n, cfg.density, 1, 100, cfg.seed ^ n as u64)?;
        let m0 = adjacency(&g)?;
        let e = g.num_edges();
        log(&format!("n {n}: {e} edges"));
        let mut best_tile = (f64::MAX, 0usize);
        let mut want = String::new();
        for &t in &cfg.tiles {
            let mut m = m0.clone();
            let t0 = Instant::now();
            fw_cpu::blocked::<S>(&mut m, None, t)?;
            let s = t0.elapsed().as_secs_f64();
            let sum = checksum(&m);
            if want.is_empty() {
                want = sum.clone();
            }
            if s < best_tile.0 {
                best_tile = (s, t);
            }
            let r = row(n, e, &format!("blocked tile {t}"), s, s, sum, &want);
            log(&format!(
                "  {:24} {:8.3} s  {:.2e} relax/s",
                r.variant, s, r.relaxations_per_s
            ));
            rep.rows.push(r);
        }
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
        let mut m = m0.clone();
        let t0 = Instant::now();
        one.install(|| fw_cpu::blocked::<S>(&mut m, None, best_tile.1))?;
        let s1 = t0.elapsed().as_secs_f64();
        let r = row(
            n,
            e,
            &format!("blocked tile {} 1 thread", best_tile.1),
            s1,
            s1,
            checksum(&m),
            &want,
        );
        log(&format!("  {:24} {:8.3} s", r.variant, s1));
        rep.rows.push(r);
        if n <= cfg.naive_max {
            let mut m = m0.clone();
            let t0 = Instant::now();
            fw_cpu::naive::<S>(&mut m, None);
            let s = t0.elapsed().as_secs_f64();
            let r = row(n, e, "naive triple loop", s, s, checksum(&m), &want);
            log(&format!("  {:24} {:8.3} s", r.variant, s));
            rep.ratios.push((
                n,
                "naive / blocked(best, all threads)".into(),
                s / best_tile.0,
            ));
            rep.ratios
                .push((n, "naive / blocked(1 thread)".into(), s / s1));
            rep.rows.push(r);
        }
        let t0 = Instant::now();
        let j = Johnson::<i32>::prepare(&g, 1)?;
        let mut jm = Vec::with_capacity(n * n);
        j.for_each_block(256, |_, b| {
            jm.extend_from_slice(b);
            Ok(())
        })?;
        let sj = t0.elapsed().as_secs_f64();
        let r = row(
            n,
            e,
            "johnson",
            sj,
            sj,
            checksum(&DistMatrix::from_vec(n, jm)?),
            &want,
        );
        log(&format!("  {:24} {:8.3} s", r.variant, sj));
        rep.ratios
            .push((n, "johnson / blocked(best)".into(), sj / best_tile.0));
        rep.rows.push(r);
        if cfg.scipy {
            match scipy_fw(&m0) {
                Ok((s, sum)) => {
                    let r = row(n, e, "scipy floyd_warshall", s, s, sum, &want);
                    log(&format!(
                        "  {:24} {:8.3} s  agrees {}",
                        r.variant, s, r.agrees
                    ));
                    rep.ratios.push((
                        n,
                        "scipy / blocked(best, all threads)".into(),
                        s / best_tile.0,
                    ));
                    rep.ratios
                        .push((n, "scipy / blocked(1 thread)".into(), s / s1));
                    rep.rows.push(r);
                }
                Err(e) => rep.notes.push(format!("scipy not measured at n {n}: {e}")),
            }
        }
    }
    Ok(rep)
}

const SCIPY: &str = r#"
import json, sys, time
import numpy as np
from scipy.sparse.csgraph import floyd_warshall
n = int(sys.argv[2])
a = np.fromfile(sys.argv[1], dtype=np.float64).reshape(n, n)
t = time.perf_counter()
d = floyd_warshall(a, directed=True)
t = time.perf_counter() - t
fin = np.isfinite(d)
print(json.dumps({"seconds": t, "checksum": int(d[fin].astype(np.int64).sum()), "unreachable": int((~fin).sum())}))
"#;

/// scipy's FW on the same matrix (f64, ∞ = no edge): seconds and checksum.
fn scipy_fw(m: &DistMatrix<i32>) -> Result<(f64, String)> {
    let dir = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let p = dir.path().join("a.f64");
    let a: Vec<f64> = m
        .as_slice()
        .iter()
        .map(|&x| {
            if x == i32::MAX {
                f64::INFINITY
            } else {
                x as f64
            }
        })
        .collect();
    std::fs::write(&p, bytemuck::cast_slice(&a)).map_err(|e| Error::io(&p, e))?;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(SCIPY)
        .arg(&p)
        .arg(m.n().to_string())
        .output()
        .map_err(|e| Error::io("python3", e))?;
    if !out.status.success() {
        return Err(Error::InvalidArgument(format!(
            "python3/scipy failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::InvalidArgument(format!("scipy output: {e}")))?;
    Ok((
        v["seconds"].as_f64().unwrap_or(f64::NAN),
        format!("{}/{}", v["checksum"], v["unreachable"]),
    ))
}

/// GPU benchmark settings.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuConfig {
    /// Seed 002 sweep sizes.
    pub sweep: Vec<usize>,
    /// Blocked-only sizes (relaxations/s vs peak).
    pub big: Vec<usize>,
    pub density: f64,
    /// Largest n the sequential CPU triple loop runs at in the sweep.
    pub cpu_naive_max: usize,
    /// Largest n the parallel CPU blocked FW runs at in the sweep.
    pub cpu_blocked_max: usize,
    /// Largest n the naive GPU kernel runs at.
    pub gpu_naive_max: usize,
    /// Rows spot-checked against CPU Dijkstra at every size.
    pub spot_rows: usize,
    pub peak_iters: u32,
    pub seed: u64,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            sweep: vec![64, 128, 256, 512, 1024, 2048, 4096],
            big: vec![8192, 16384],
            density: 0.1,
            cpu_naive_max: 1024,
            cpu_blocked_max: 4096,
            gpu_naive_max: 8192,
            spot_rows: 8,
            peak_iters: 1 << 14,
            seed: 2,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuReport {
    pub config: GpuConfig,
    pub device: crate::gpu::DeviceInfo,
    pub host: HostInfo,
    pub command_line: String,
    pub check: Vec<String>,
    pub rows: Vec<Row>,
    /// Relaxations/s of the add+min microbenchmark (exact = with the ∞ select).
    pub peak_fast: f64,
    pub peak_exact: f64,
    /// `(n, what, ratio)`.
    pub ratios: Vec<(usize, String, f64)>,
}

/// Rows `s` of the CPU's Dijkstra (Johnson) agree with `d`.
fn spot_check(g: &Csr<i32>, d: &[i32], rows: usize, seed: u64) -> Result<bool> {
    let n = g.num_vertices();
    let j = Johnson::<i32>::prepare(g, 1)?;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut sc = super::johnson::Scratch::new(n);
    let mut row = vec![0i32; n];
    for _ in 0..rows.min(n) {
        let s = rng.gen_range(0..n);
        j.row(s as u32, &mut sc, &mut row, None);
        if row[..] != d[s * n..(s + 1) * n] {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Correctness on the device: GPU FW (both kernels, both encodings where exact)
/// equals CPU blocked FW on random graphs, negative weights included.
pub fn check_gpu(
    dev: &crate::gpu::apsp::ApspGpu,
    mut log: impl FnMut(&str),
) -> Result<Vec<String>> {
    use crate::gpu::apsp::FwKernel;
    let mut lines = Vec::new();
    let mut failed = 0;
    for (i, &n) in [1usize, 7, 63, 64, 65, 200, 513, 1000, 1500]
        .iter()
        .enumerate()
    {
        for neg in [false, true] {
            let (lo, hi) = if neg { (-20, 100) } else { (0, 100) };
            // Negative weights through a potential, so no negative cycle.
            let mut g = random_graph(n, 0.05, 0, hi - lo, 100 + i as u64)?;
            if neg {
                let h: Vec<i32> = (0..n as i32).map(|v| (v * 7919) % (-lo + 1)).collect();
                let offs = g.offsets().to_vec();
                let tg = g.targets().to_vec();
                let mut w = g.weights().map(|w| w.to_vec()).unwrap_or_default();
                for u in 0..n {
                    for e in offs[u] as usize..offs[u + 1] as usize {
                        w[e] += h[u] - h[tg[e] as usize];
                    }
                }
                g = g.with_weights(w)?;
            }
            let m0 = adjacency(&g)?;
            let mut want = m0.clone();
            fw_cpu::blocked::<S>(&mut want, None, 64)?;
            for kernel in [FwKernel::Naive, FwKernel::Blocked] {
                for fast in [None, Some(false)] {
                    let mut d = m0.clone().into_vec();
                    let r = dev.fw(&mut d, n, kernel, fast)?;
                    let ok = d == want.as_slice();
                    if !ok {
                        failed += 1;
                    }
                    let l = format!(
                        "n {n:5} {} {kernel:?} fast {}: {}",
                        if neg { "neg" } else { "pos" },
                        r.fast,
                        if ok { "ok" } else { "FAIL" }
                    );
                    log(&l);
                    lines.push(l);
                }
            }
        }
    }
    if failed > 0 {
        return Err(Error::InvalidGraph(format!(
            "{failed} GPU FW checks failed"
        )));
    }
    Ok(lines)
}

/// The seed 002 sweep and the large-n runs.
pub fn run_gpu(
    dev: &crate::gpu::apsp::ApspGpu,
    cfg: &GpuConfig,
    command_line: &str,
    mut log: impl FnMut(&str),
) -> Result<GpuReport> {
    use crate::gpu::apsp::FwKernel;
    let check = check_gpu(dev, &mut log)?;
    let peak_fast = dev.peak(true, cfg.peak_iters, 8)?;
    let peak_exact = dev.peak(false, cfg.peak_iters, 8)?;
    log(&format!(
        "peak add+min: fast {peak_fast:.3e}/s, exact {peak_exact:.3e}/s"
    ));
    let mut rep = GpuReport {
        config: cfg.clone(),
        device: dev.info().clone(),
        host: HostInfo::read(),
        command_line: command_line.to_string(),
        check,
        rows: Vec::new(),
        peak_fast,
        peak_exact,
        ratios: Vec::new(),
    };
    let mut sizes = cfg.sweep.clone();
    sizes.extend(cfg.big.iter().copied());
    for &n in &sizes {
        let g = random_graph(n, cfg.density, 1, 100, cfg.seed ^ n as u64)?;
        let e = g.num_edges();
        let m0 = adjacency(&g)?;
        let in_sweep = cfg.sweep.contains(&n);
        let mut want = String::new();
        let mut times = std::collections::HashMap::new();
        let mut gpu =
            |kernel: FwKernel, fast: bool, rep: &mut GpuReport, want: &mut String| -> Result<()> {
                let mut d = m0.clone().into_vec();
                dev.fw(&mut d, n, kernel, Some(fast))?; // warm-up (JIT, first touch)
                let mut d = m0.clone().into_vec();
                let r = dev.fw(&mut d, n, kernel, Some(fast))?;
                let ok = spot_check(&g, &d, cfg.spot_rows, n as u64)?;
                let sum = checksum(&DistMatrix::from_vec(n, d)?);
                if want.is_empty() {
                    *want = sum.clone();
                }
                let name = format!("gpu {kernel:?}{}", if fast { " fast" } else { " exact" })
                    .to_lowercase();
                let mut rw = row(n, e, &name, r.kernel_ms / 1e3, r.total_ms / 1e3, sum, want);
                rw.agrees &= ok;
                log(&format!(
                "  n {n:6} {:22} {:10.3} ms kernels {:10.3} ms total  {:.3e} relax/s  agrees {}",
                name, r.kernel_ms, r.total_ms, rw.relaxations_per_s, rw.agrees
            ));
                times.insert(name, rw.seconds);
                rep.rows.push(rw);
                Ok(())
            };
        gpu(FwKernel::Blocked, true, &mut rep, &mut want)?;
        gpu(FwKernel::Blocked, false, &mut rep, &mut want)?;
        if n <= cfg.gpu_naive_max {
            gpu(FwKernel::Naive, true, &mut rep, &mut want)?;
            gpu(FwKernel::Naive, false, &mut rep, &mut want)?;
        }
        if in_sweep && n <= cfg.cpu_blocked_max {
            let mut m = m0.clone();
            let t0 = Instant::now();
            fw_cpu::blocked::<S>(&mut m, None, fw_cpu::DEFAULT_TILE)?;
            let s = t0.elapsed().as_secs_f64();
            let rw = row(n, e, "cpu blocked", s, s, checksum(&m), &want);
            log(&format!(
                "  n {n:6} {:22} {:10.3} ms  agrees {}",
                rw.variant,
                s * 1e3,
                rw.agrees
            ));
            times.insert("cpu blocked".into(), s);
            rep.rows.push(rw);
        }
        if in_sweep && n <= cfg.cpu_naive_max {
            let mut m = m0.clone();
            let t0 = Instant::now();
            fw_cpu::naive::<S>(&mut m, None);
            let s = t0.elapsed().as_secs_f64();
            let rw = row(n, e, "cpu naive", s, s, checksum(&m), &want);
            log(&format!(
                "  n {n:6} {:22} {:10.3} ms  agrees {}",
                rw.variant,
                s * 1e3,
                rw.agrees
            ));
            times.insert("cpu naive".into(), s);
            rep.rows.push(rw);
        }
        let mut ratio = |what: &str, a: &str, b: &str| {
            if let (Some(x), Some(y)) = (times.get(a), times.get(b)) {
                rep.ratios.push((n, what.to_string(), x / y));
            }
        };
        ratio(
            "cpu naive / gpu naive exact (seed 002)",
            "cpu naive",
            "gpu naive exact",
        );
        ratio(
            "cpu blocked / gpu naive exact",
            "cpu blocked",
            "gpu naive exact",
        );
        ratio(
            "gpu naive exact / gpu blocked exact",
            "gpu naive exact",
            "gpu blocked exact",
        );
        ratio(
            "gpu naive fast / gpu blocked fast",
            "gpu naive fast",
            "gpu blocked fast",
        );
        ratio(
            "gpu blocked exact / gpu blocked fast",
            "gpu blocked exact",
            "gpu blocked fast",
        );
        if let Some(t) = times.get("gpu blocked fast") {
            let rps = (n as f64).powi(3) / t;
            rep.ratios.push((
                n,
                "gpu blocked fast relax/s / peak fast".into(),
                rps / peak_fast,
            ));
        }
    }
    if rep.rows.iter().any(|r| !r.agrees) {
        log("WARNING: some variants disagree (see `agrees` in the JSON)");
    }
    Ok(rep)
}

type Series = (String, RGBColor, Vec<(f64, f64)>);

/// A log-log line chart.
fn chart(path: &Path, title: &str, y_desc: &str, series: &[Series]) -> Result<()> {
    let err = |e: String| Error::format(path, format!("drawing chart: {e}"));
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|s| s.2.iter().copied()).collect();
    if pts.is_empty() {
        return Ok(());
    }
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.1), a.1.max(p.1)));
    let root = SVGBackend::new(path, (860, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut c = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (x0 / 1.3..x1 * 1.3).log_scale(),
            (y0.max(1e-12) / 2.0..y1.max(1e-12) * 2.0).log_scale(),
        )
        .map_err(|e| err(e.to_string()))?;
    c.configure_mesh()
        .x_desc("n (vertices)")
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (name, color, data) in series {
        let col = *color;
        c.draw_series(LineSeries::new(data.iter().copied(), col.stroke_width(2)).point_size(4))
            .map_err(|e| err(e.to_string()))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

const COLORS: [RGBColor; 8] = [
    RED,
    BLUE,
    GREEN,
    MAGENTA,
    CYAN,
    BLACK,
    RGBColor(255, 140, 0),
    RGBColor(128, 0, 128),
];

fn series_of(rows: &[Row], f: impl Fn(&Row) -> f64) -> Vec<Series> {
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        if !names.contains(&r.variant) {
            names.push(r.variant.clone());
        }
    }
    names
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (
                v.clone(),
                COLORS[i % COLORS.len()],
                rows.iter()
                    .filter(|r| &r.variant == v)
                    .map(|r| (r.n as f64, f(r)))
                    .collect(),
            )
        })
        .collect()
}

fn write_json<T: serde::Serialize>(v: &T, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| Error::InvalidArgument(format!("serialising the report: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Writes `apsp-cpu.json` and `apsp-cpu.svg` into `dir`.
pub fn write_cpu(rep: &CpuReport, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let (j, s) = (dir.join("apsp-cpu.json"), dir.join("apsp-cpu.svg"));
    write_json(rep, &j)?;
    chart(
        &s,
        "CPU Floyd–Warshall: seconds by variant",
        "seconds",
        &series_of(&rep.rows, |r| r.seconds),
    )?;
    Ok(vec![j, s])
}

/// Writes `apsp-gpu.json`, `apsp-gpu-seed002.svg` (time vs n) and
/// `apsp-gpu-ratios.svg` into `dir`.
pub fn write_gpu(rep: &GpuReport, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let j = dir.join("apsp-gpu.json");
    write_json(rep, &j)?;
    let t = dir.join("apsp-gpu-seed002.svg");
    chart(
        &t,
        "FW time vs n (GPU kernel time, CUDA events)",
        "seconds",
        &series_of(&rep.rows, |r| r.seconds),
    )?;
    let r = dir.join("apsp-gpu-ratios.svg");
    let mut names: Vec<String> = Vec::new();
    for (_, w, _) in &rep.ratios {
        if !names.contains(w) {
            names.push(w.clone());
        }
    }
    let series: Vec<Series> = names
        .iter()
        .enumerate()
        .map(|(i, w)| {
            (
                w.clone(),
                COLORS[i % COLORS.len()],
                rep.ratios
                    .iter()
                    .filter(|x| &x.1 == w)
                    .map(|x| (x.0 as f64, x.2))
                    .collect(),
            )
        })
        .collect();
    chart(
        &r,
        "Speed ratios (> 1: the first is slower)",
        "ratio",
        &series,
    )?;
    Ok(vec![j, t, r])
}
